"""Table talk (server/services/chat.py, server/chat_pages.py, templates/chat.html): public and private channels of
real games on both setups; private messages never reach a non-member (context, page HTML, mail); hostile text is
escaped or refused with nothing stored; the flood limit; CSRF, forged and revoked links; one digest mail per seat
and 10-minute slot listing the messages; a reply by mail to the chat address posts to the channel, a forged one
posts nothing."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

import pytest
import sqlalchemy as sa
from flask import render_template

from server.models import ChatChannel, ChatMessage, Game, InboundMail, Outbox, Player, Seat
from server.services import chat, games, mails, outbox, reminders, replies, reply_address
from server.services.links import seat_token
from server.services.seats import rotate_link
from tests.server.forms import csrf_token

T0 = dt.datetime(2031, 3, 4, 12, 0, 30, tzinfo=dt.UTC)  # 30 s into a 10-minute slot
DOMAIN = "reply.deadmail.test"
FROM = "Dead Mail <games@deadmail.example>"
SECRET = "meet-me-at-the-parking-lot"


class Sent:
    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []

    def send(self, message: EmailMessage) -> None:
        self.messages.append(message)


def new_game(stack: Any, people: int = 3, bots: int = 0, tag: str = "") -> tuple[int, dict[str, int]]:
    players = [games.PlayerSpec(name=f"P{i}", email=f"p{i}{tag}@example.org") for i in range(people)]
    players += [games.PlayerSpec(bot="random") for _ in range(bots)]
    created = games.create_game(stack.db, games.GameSpec(players=players, seed=11), now=T0)
    with stack.db.session() as session:
        seats = session.execute(sa.select(Seat).where(Seat.game_id == created.game_id)).scalars().all()
        return created.game_id, {s.colour: s.id for s in seats}


def token(stack: Any, seat_id: int, generation: int = 1) -> str:
    return seat_token(stack.settings.secret_key, seat_id, generation)


def messages(db: Any) -> list[tuple[str, str, str]]:
    with db.session() as session:
        rows = session.execute(
            sa.select(ChatChannel.key, ChatMessage.colour, ChatMessage.text)
            .join(ChatChannel, ChatChannel.id == ChatMessage.channel_id)
            .order_by(ChatMessage.id)
        ).all()
        return [tuple(r) for r in rows]


def chat_rows(db: Any) -> list[Outbox]:
    with db.session() as session:
        rows = list(session.execute(sa.select(Outbox).where(Outbox.kind == "chat").order_by(Outbox.id)).scalars())
        for row in rows:
            session.expunge(row)
        return rows


def texts(ctx: dict[str, Any]) -> list[str]:
    return [m["text"] for ch in ctx["channels"] for m in ch["messages"]]


def rendered(stack: Any, seat_id: int, path: str = "/") -> str:
    ctx = chat.page_context(stack.db, seat_id, "en")
    with stack.app.test_request_context(path):
        return render_template("chat.html", chat=ctx, token=token(stack, seat_id))


def post_form(stack: Any, seat_id: int, **fields: Any) -> Any:
    data = {"csrf_token": csrf_token(stack.client, stack.app), **fields}
    return stack.client.post(f"/s/{token(stack, seat_id)}/chat", data=data)


# --- channels and visibility -----------------------------------------------------------------------------------------


def test_channel_keys() -> None:
    table = ["yellow", "red", "blue"]
    assert chat.channel_key(["red", "blue"], table, "red") == "blue+red"
    assert chat.channel_key(["blue", "red", "red"], table, "blue") == "blue+red"
    assert chat.channel_key(["all"], table, "red") == "all"
    assert chat.channel_key(table, table, "red") == "all"  # everybody: the public channel
    for colours, code in ((["red"], "channel"), (["red", "green"], "channel"), (["blue", "yellow"], "not_member")):
        with pytest.raises(chat.ChatError) as refused:
            chat.channel_key(colours, table, "red")
        assert refused.value.code == code
    assert chat.members("blue+red", table) == ["red", "blue"]


def test_post_and_list_private_never_seen_by_others(stack: Any) -> None:
    game_id, seats = new_game(stack)
    assert set(seats) == {"yellow", "red", "blue"}
    first = chat.post(stack.db, game_id, "red", "all", "Hello everyone", now=T0)
    second = chat.post(stack.db, game_id, "blue", "red+blue", SECRET, now=T0 + dt.timedelta(seconds=5))
    assert second > first
    assert messages(stack.db) == [("all", "red", "Hello everyone"), ("blue+red", "blue", SECRET)]

    red = chat.page_context(stack.db, seats["red"], "en", now=T0 + dt.timedelta(minutes=1))
    assert [c["key"] for c in red["channels"]] == ["all", "blue+red"]
    assert texts(red) == ["Hello everyone", SECRET]
    assert red["channels"][1]["title"] == "Private: Blue and you"
    assert red["channels"][0]["messages"][0]["mine"] and red["channels"][0]["messages"][0]["colour_name"] == "Red"
    assert red["channels"][1]["messages"][0]["relative"]  # "55 seconds ago" in the reader's language
    assert [o["colour"] for o in red["others"]] == ["yellow", "blue"]

    yellow = chat.page_context(stack.db, seats["yellow"], "en")
    assert [c["key"] for c in yellow["channels"]] == ["all"]
    assert texts(yellow) == ["Hello everyone"]
    assert SECRET not in repr(yellow)

    html = rendered(stack, seats["yellow"])
    assert "Hello everyone" in html and SECRET not in html and "blue+red" not in html
    assert SECRET in rendered(stack, seats["blue"])

    # the whole seat page (the partial included by seat.html) never shows another pair's private talk
    page = stack.client.get(f"/s/{token(stack, seats['yellow'])}")
    assert page.status_code == 200
    assert SECRET not in page.get_data(as_text=True)
    red_page = stack.client.get(f"/s/{token(stack, seats['red'])}").get_data(as_text=True)
    if 'id="chat"' in red_page:  # once seat.html includes chat.html
        assert SECRET in red_page and "Hello everyone" in red_page


def test_post_through_the_page(stack: Any) -> None:
    _, seats = new_game(stack)
    answer = post_form(stack, seats["red"], channel="all", text="  Deal?\r\nI go to 4.  ")
    assert answer.status_code == 303
    assert answer.headers["Location"].endswith(f"/s/{token(stack, seats['red'])}?chat=sent#chat")
    started = post_form(stack, seats["red"], to=["blue"], text="Just us")
    assert started.status_code == 303
    assert messages(stack.db) == [("all", "red", "Deal?\nI go to 4."), ("blue+red", "red", "Just us")]
    html = rendered(stack, seats["red"], "/?chat=sent")
    assert "Your message is posted." in html
    assert 'name="channel" value="blue+red"' in html and 'maxlength="1000"' in html
    assert "<label" in html and 'name="to" value="yellow"' in html
    assert "Write to everyone" in html and "Write to Blue only" in html

    # a channel the writer is not in, or everybody but as a "private" one, is refused and stores nothing
    refused = post_form(stack, seats["red"], channel="blue+yellow", text="let me in")
    assert refused.status_code == 422
    assert "You are not in this conversation." in refused.get_data(as_text=True)
    lonely = post_form(stack, seats["red"], to=["green"], text="nobody")
    assert lonely.status_code == 422
    everybody = post_form(stack, seats["red"], to=["blue", "yellow"], text="not private at all")
    assert everybody.status_code == 422
    assert "not everybody" in everybody.get_data(as_text=True)
    assert len(messages(stack.db)) == 2


# --- hostile text --------------------------------------------------------------------------------------------------


def test_hostile_text_is_escaped_or_refused(stack: Any) -> None:
    game_id, seats = new_game(stack)
    script = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    chat.post(stack.db, game_id, "red", "all", script, now=T0)
    chat.post(stack.db, game_id, "red", "all", "a\x00b\x07c\x1b[31md\u202eexe.gnp\u2066x\u2069\nline two", now=T0)
    stored = [text for _, _, text in messages(stack.db)]
    assert stored == [script, "abc[31mdexe.gnpx\nline two"]
    html = rendered(stack, seats["yellow"])
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert 'class="chat-text">abc[31mdexe.gnpx\nline two</p>' in html  # newlines kept (CSS pre-wrap), no style attr
    assert "style=" not in html

    before = messages(stack.db)
    for text, code in (
        ("x" * 10_000, "too_long"),
        ("x" * 1001, "too_long"),
        ("\n".join(["line"] * 21), "too_many_lines"),
        ("  \x00\u202e\n\t ", "empty"),
    ):
        with pytest.raises(chat.ChatError) as refused:
            chat.post(stack.db, game_id, "red", "all", text, now=T0)
        assert refused.value.code == code
    assert chat.post(stack.db, game_id, "red", "all", "y" * 1000, now=T0)  # exactly the limit is fine
    assert chat.post(stack.db, game_id, "red", "all", "\n".join(["l"] * 20), now=T0)
    answer = post_form(stack, seats["red"], channel="all", text="z" * 10_000)
    assert answer.status_code == 422
    assert "too long" in answer.get_data(as_text=True)
    assert len(messages(stack.db)) == len(before) + 2
    assert chat_rows(stack.db)  # only the accepted posts queued mail
    assert all("z" * 1001 not in text for _, _, text in messages(stack.db))


def test_flood_limit_and_closed_game(embedded: Any) -> None:
    game_id, seats = new_game(embedded)
    for i in range(chat.FLOOD_COUNT):
        chat.post(embedded.db, game_id, "red", "all", f"message {i}", now=T0 + dt.timedelta(seconds=i))
    with pytest.raises(chat.ChatError) as refused:
        chat.post(embedded.db, game_id, "red", "all", "one more", now=T0 + dt.timedelta(minutes=1))
    assert refused.value.code == "flood"
    chat.post(embedded.db, game_id, "blue", "all", "others may still talk", now=T0 + dt.timedelta(minutes=1))
    later = T0 + chat.FLOOD_WINDOW + dt.timedelta(seconds=chat.FLOOD_COUNT)
    chat.post(embedded.db, game_id, "red", "all", "after the pause", now=later)
    assert len(messages(embedded.db)) == chat.FLOOD_COUNT + 2

    with embedded.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        game.status = "over"
    with pytest.raises(chat.ChatError) as closed:
        chat.post(embedded.db, game_id, "red", "all", "too late", now=later)
    assert closed.value.code == "not_running"
    assert 'name="text"' not in rendered(embedded, seats["red"])  # no form once the game is over


# --- links and forms -----------------------------------------------------------------------------------------------


def test_csrf_forged_and_revoked_links(stack: Any) -> None:
    game_id, seats = new_game(stack)
    url = f"/s/{token(stack, seats['red'])}/chat"
    without = stack.client.post(url, data={"channel": "all", "text": "no token"})
    assert without.status_code == 400
    wrong = stack.client.post(url, data={"channel": "all", "text": "bad token", "csrf_token": "forged"})
    assert wrong.status_code == 400
    forged = token(stack, seats["red"])[:-3] + "abc"
    data = {"csrf_token": csrf_token(stack.client, stack.app), "channel": "all", "text": "forged"}
    assert stack.client.post(f"/s/{forged}/chat", data=data).status_code == 403
    other_key = seat_token("another-secret", seats["red"], 1)
    assert stack.client.post(f"/s/{other_key}/chat", data=data).status_code == 403
    rotate_link(stack.db, game_id, "red")
    revoked = stack.client.post(url, data=data)
    assert revoked.status_code == 403
    assert messages(stack.db) == []
    data["text"] = "with the new link"
    answer = stack.client.post(f"/s/{token(stack, seats['red'], 2)}/chat", data=data)
    assert answer.status_code == 303
    assert messages(stack.db) == [("all", "red", "with the new link")]


# --- mail ----------------------------------------------------------------------------------------------------------


def mail_settings(stack: Any) -> outbox.MailSettings:
    return outbox.MailSettings(stack.settings.secret_key, stack.settings.base_url, FROM, DOMAIN)


def send_due(stack: Any, now: dt.datetime) -> list[EmailMessage]:
    sent = Sent()
    for row in chat_rows(stack.db):
        outbox.send_one(stack.db, row.id, sent, mail_settings(stack), now=now)
    return sent.messages


def body(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def html_body(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("html",))
    assert part is not None
    return str(part.get_content())


def test_one_digest_mail_per_seat_and_slot(stack: Any) -> None:
    game_id, seats = new_game(stack, people=3, bots=1)
    bot = "green"  # four seats: red, yellow, blue (people) and green (the bot)
    with stack.db.session() as session:
        assert session.get(Seat, seats[bot]).bot == "random"  # type: ignore[union-attr]
    chat.post(stack.db, game_id, "red", "all", "first <b>public</b>", now=T0)
    chat.post(stack.db, game_id, "red", "all", "second public\nwith two lines", now=T0 + dt.timedelta(minutes=3))
    chat.post(stack.db, game_id, "blue", "blue+red", SECRET, now=T0 + dt.timedelta(minutes=4))
    rows = chat_rows(stack.db)
    slot = int(T0.timestamp()) // 600
    end = dt.datetime.fromtimestamp((slot + 1) * 600, dt.UTC)
    by_seat = {row.seat_id: row for row in rows}
    assert len(rows) == 3 and set(by_seat) == {seats["yellow"], seats["blue"], seats["red"]}
    assert seats[bot] not in by_seat  # bots get no mail
    assert all(row.key == f"chat:{row.seat_id}:{slot}" and row.next_attempt_at == end for row in rows)
    assert all(row.status == "pending" for row in rows)

    assert send_due(stack, end - dt.timedelta(seconds=1)) == []  # not before the end of the slot
    sent = send_due(stack, end)
    assert len(sent) == 3
    with stack.db.session() as session:
        colour_of = {s.player.email: s.colour for s in session.execute(sa.select(Seat)).scalars() if s.player}
    to = {colour_of[m["To"].split("<")[1].rstrip(">")]: m for m in sent}
    yellow, red, blue = to["yellow"], to["red"], to["blue"]

    text = body(yellow)
    assert "first <b>public</b>" in text and "  second public\n  with two lines" in text
    assert SECRET not in text and SECRET not in html_body(yellow)
    assert "first &lt;b&gt;public&lt;/b&gt;" in html_body(yellow)
    assert yellow["Subject"].endswith("2 new messages at the table")
    assert SECRET in body(red) and "Private: Blue and you" in body(red)
    assert "Reply to this mail to write to: Private: Blue and you." in body(red)
    assert red["Subject"].endswith("1 new message at the table")  # its own messages are listed, not counted
    assert "first <b>public</b>" in body(blue) and SECRET in body(blue)
    assert yellow["In-Reply-To"] == f"<deadmail.game-{game_id}.seat-{seats['yellow']}@deadmail.example>"

    # the reply address posts to the channel of the latest message from another colour
    with stack.db.session() as session:
        private = session.execute(sa.select(ChatChannel).where(ChatChannel.key == "blue+red")).scalar_one()
        public = session.execute(sa.select(ChatChannel).where(ChatChannel.key == "all")).scalar_one()
        mailed = {s.colour: s.chat_mailed_id for s in session.execute(sa.select(Seat)).scalars()}
    secret_key = stack.settings.secret_key
    assert red["Reply-To"] == reply_address.make_chat(secret_key, DOMAIN, seats["red"], private.id, 1)
    assert yellow["Reply-To"] == reply_address.make_chat(secret_key, DOMAIN, seats["yellow"], public.id, 1)
    last = max(i for i in (mailed["yellow"], mailed["red"], mailed["blue"]) if i is not None)
    assert mailed["red"] == mailed["blue"] == last and mailed["yellow"] == last - 1 and mailed[bot] is None

    # a later slot: a new row, and its mail lists only what is new
    chat.post(stack.db, game_id, "red", "all", "third public", now=end + dt.timedelta(minutes=1))
    later = [row for row in chat_rows(stack.db) if row.status == "pending"]
    assert {row.seat_id for row in later} == {seats["yellow"], seats["blue"]}
    again = send_due(stack, end + dt.timedelta(minutes=10))
    assert len(again) == 2
    assert all("third public" in body(m) and "first <b>public</b>" not in body(m) for m in again)


def test_a_reply_by_mail_posts_to_the_channel(stack: Any) -> None:
    game_id, seats = new_game(stack)
    chat.post(stack.db, game_id, "blue", "blue+red", "Shall we vote yellow?", now=T0)
    with stack.db.session() as session:
        channel_id = session.execute(sa.select(ChatChannel.id).where(ChatChannel.key == "blue+red")).scalar_one()
    settings = replace(stack.settings, reply_domain=DOMAIN)
    address = reply_address.make_chat(settings.secret_key, DOMAIN, seats["red"], channel_id, 1)

    def letter(sender: str, to: str, text: str) -> bytes:
        message = EmailMessage()
        message["From"] = sender
        message["To"] = to
        message["Subject"] = "Re: table talk"
        message["Message-ID"] = make_msgid(domain="mail.example.org")
        message.set_content(text)
        return message.as_bytes()

    reply = "Yes, deal.\nI vote yellow.\n\nOn Tue, 4 Mar 2031 Dead Mail wrote:\n> Shall we vote yellow?\n-- \nP1"
    done = replies.receive(stack.db, settings, letter("p1@example.org", address, reply), [address], None)
    assert done.status == "applied" and done.outbox_ids == []
    assert messages(stack.db)[-1] == ("blue+red", "red", "Yes, deal.\nI vote yellow.")
    assert [r.seat_id for r in chat_rows(stack.db) if r.seat_id == seats["blue"]]  # blue is told by mail

    count = len(messages(stack.db))
    forged = address.replace(address.split("-")[4][:5], "aaaaa")
    assert forged != address
    key = settings.secret_key
    for to, sender, status in (
        (forged, "p1@example.org", "forged"),  # a bad signature
        (reply_address.make_chat("another-secret", DOMAIN, seats["red"], channel_id, 1), "p1@example.org", "forged"),
        (reply_address.make_chat(key, DOMAIN, seats["red"], channel_id, 2), "p1@example.org", "forged"),
        (reply_address.make_chat(key, DOMAIN, seats["red"], 10**6, 1), "p1@example.org", "forged"),
        ("r-" + address[2:], "p1@example.org", "forged"),  # a chat address read as a turn one
        # a signed address of a seat that is not in the channel (never made by the server, but refused anyway)
        (reply_address.make_chat(key, DOMAIN, seats["yellow"], channel_id, 1), "p0@example.org", "error"),
        (address, "p1@example.org", "error"),  # nothing left once the quote is stripped
    ):
        text = "> let me in" if to == address else "let me in"
        got = replies.receive(stack.db, settings, letter(sender, to, text), [to], None)
        assert (got.status, len(got.outbox_ids)) == (status, 1 if status == "error" else 0), to
    # a turn address is never read as a chat one
    turn = reply_address.make(settings.secret_key, DOMAIN, seats["red"], channel_id, 1)
    with pytest.raises(reply_address.ReplyAddressError):
        reply_address.read_chat(settings.secret_key, DOMAIN, "c-" + turn[2:])
    # another sender: nothing posted, the seat's player is told
    other = replies.receive(stack.db, settings, letter("mallory@example.org", address, "hijack"), [address], None)
    assert other.status == "wrong_sender" and len(other.outbox_ids) == 1
    # a revoked address
    rotate_link(stack.db, game_id, "red")
    revoked = replies.receive(stack.db, settings, letter("p1@example.org", address, "old link"), [address], None)
    assert revoked.status == "forged"
    assert len(messages(stack.db)) == count
    with stack.db.session() as session:
        statuses = session.execute(sa.select(InboundMail.status).order_by(InboundMail.id)).scalars().all()
    assert statuses[0] == "applied" and "applied" not in statuses[1:]


def test_posting_is_rate_limited(embedded: Any) -> None:
    _, seats = new_game(embedded)
    codes = [post_form(embedded, seats["red"], channel="all", text=f"m{i}").status_code for i in range(31)]
    assert codes[: chat.FLOOD_COUNT] == [303] * chat.FLOOD_COUNT
    assert set(codes[chat.FLOOD_COUNT : 30]) == {422}  # the flood limit: refused, nothing stored
    assert codes[30] == 429  # 30 posts a minute per address, whatever their outcome
    assert len(messages(embedded.db)) == chat.FLOOD_COUNT


# --- a chat reply that cannot be posted; quiet hours and digests --------------------------------------------------


def chat_letter(sender: str, to: str, text: str) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "Re: table talk"
    message["Message-ID"] = make_msgid(domain="mail.example.org")
    message.set_content(text)
    return message.as_bytes()


def test_a_chat_reply_that_cannot_be_posted_is_answered_to_the_player(stack: Any) -> None:
    game_id, seats = new_game(stack)
    chat.post(stack.db, game_id, "blue", "blue+red", "Deal?", now=T0)
    with stack.db.session() as session:
        channel_id = session.execute(sa.select(ChatChannel.id).where(ChatChannel.key == "blue+red")).scalar_one()
        session.get(Player, session.get(Seat, seats["red"]).player_id).language = "it"  # type: ignore[union-attr]
    settings = replace(stack.settings, reply_domain=DOMAIN)
    address = reply_address.make_chat(settings.secret_key, DOMAIN, seats["red"], channel_id, 1)

    def send(text: str, now: dt.datetime) -> replies.Received:
        return replies.receive(stack.db, settings, chat_letter("P1@Example.org", address, text), [address], None, now)

    too_long = send("x" * (chat.MAX_CHARS + 1), T0)
    assert too_long.status == "error" and len(too_long.outbox_ids) == 1
    message = mails.compose(stack.db, too_long.outbox_ids[0], mail_settings(stack), now=T0)
    assert message is not None
    assert message["To"].endswith("<p1@example.org>")  # the seat's registered player
    expected = chat.ChatError("too_long").text("it")
    assert expected != chat.ChatError("too_long").text("en")
    assert expected in body(message) and "x" * 50 not in body(message)
    assert len(messages(stack.db)) == 1  # nothing posted

    # at most REPLY_LIMITS["chat_error"] answers an hour per seat
    answered = [len(send("", T0 + dt.timedelta(minutes=i)).outbox_ids) for i in range(1, 5)]
    assert answered == [1, 1, 0, 0]
    assert len(send("", T0 + dt.timedelta(minutes=70)).outbox_ids) == 1

    # the game is over: told why
    with stack.db.session() as session:
        session.get(Game, game_id).status = "finished"  # type: ignore[union-attr]
    over = send("too late?", T0 + dt.timedelta(hours=3))
    assert over.status == "error" and len(over.outbox_ids) == 1
    told = mails.compose(stack.db, over.outbox_ids[0], mail_settings(stack), now=T0 + dt.timedelta(hours=3))
    assert told is not None and chat.ChatError("not_running").text("it") in body(told)


def set_player(db: Any, email: str, **values: Any) -> None:
    with db.session() as session:
        player = session.execute(sa.select(Player).where(Player.email == email)).scalar_one()
        for name, value in values.items():
            setattr(player, name, value)


def test_a_chat_mail_waits_for_the_end_of_quiet_hours(stack: Any) -> None:
    game_id, _seats = new_game(stack)
    set_player(stack.db, "p0@example.org", timezone="UTC", quiet_start="12:00", quiet_end="14:00")
    chat.post(stack.db, game_id, "red", "all", "lunch talk", now=T0)
    chat.post(stack.db, game_id, "red", "all", "more lunch talk", now=T0 + dt.timedelta(minutes=30))
    end = T0.replace(hour=14, minute=0, second=0)
    with stack.db.session() as session:
        quiet_seat = session.execute(
            sa.select(Seat.id).join(Player, Player.id == Seat.player_id).where(Player.email == "p0@example.org")
        ).scalar_one()
    quiet_rows = [r for r in chat_rows(stack.db) if r.seat_id == quiet_seat]
    assert len(quiet_rows) == 1 and quiet_rows[0].next_attempt_at == end  # one mail, when the quiet hours end
    others = [r for r in chat_rows(stack.db) if r.seat_id != quiet_seat]
    assert others and all(r.next_attempt_at < end for r in others)
    early = [m for m in send_due(stack, end - dt.timedelta(seconds=1)) if "p0@example.org" in m["To"]]
    assert early == []
    sent = [m for m in send_due(stack, end) if "p0@example.org" in m["To"]]
    assert len(sent) == 1 and "lunch talk" in body(sent[0]) and "more lunch talk" in body(sent[0])


def test_table_talk_joins_the_digest(stack: Any) -> None:
    game_id, _seats = new_game(stack)
    set_player(stack.db, "p0@example.org", mail_mode="digest", digest_hours=4)
    chat.post(stack.db, game_id, "red", "all", "digest <me>", now=T0)
    with stack.db.session() as session:
        seat = session.execute(
            sa.select(Seat).join(Player, Player.id == Seat.player_id).where(Player.email == "p0@example.org")
        ).scalar_one()
        seat_id, colour = seat.id, seat.colour
    held = [r for r in chat_rows(stack.db) if r.seat_id == seat_id]
    assert [r.status for r in held] == ["held"]
    assert [m for m in send_due(stack, T0 + dt.timedelta(hours=1)) if "p0@example.org" in m["To"]] == []
    later = T0 + dt.timedelta(hours=5)
    ids = reminders.release_digests(stack.db, later)
    with stack.db.session() as session:
        digests = [session.get(Outbox, i) for i in ids]
        digest = next(d for d in digests if d is not None and d.kind == "digest" and d.player_id == seat.player_id)
        digest_id = digest.id
    sent = Sent()
    assert outbox.send_one(stack.db, digest_id, sent, mail_settings(stack), now=later) or sent.messages
    (message,) = sent.messages
    assert "digest <me>" in body(message) and "digest &lt;me&gt;" in html_body(message)
    assert "Table talk:" in body(message)
    with stack.db.session() as session:
        mailed = session.get(Seat, seat_id).chat_mailed_id  # type: ignore[union-attr]
        last = session.execute(sa.select(sa.func.max(ChatMessage.id))).scalar_one()
    assert colour != "red" and mailed == last
