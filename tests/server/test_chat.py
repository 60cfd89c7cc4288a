"""Table talk (server/services/play/chat.py, server/present/chat.py, server/web/chat.py, templates/chat.html): public
and private channels of real games on both setups; private messages never reach a non-member (page data, page HTML,
mail); hostile text is escaped or refused with nothing stored; the flood limit; CSRF, forged and revoked links; one
digest mail per seat and 10-minute slot listing the messages; a reply by mail to the chat address posts to the
channel, a forged one posts nothing."""

from __future__ import annotations

import datetime as dt
from email.message import EmailMessage
from typing import Any

import pytest
import sqlalchemy as sa
from flask import render_template
from werkzeug.test import TestResponse

from server.config import Settings
from server.db import Database
from server.mail.replies import Received, receive
from server.mail.send import send_one
from server.models import ChatChannel, ChatMessage, Game, GameStatus, InboundMail, MailKind, Outbox, OutboxStatus
from server.present.chat import ChatPage, page
from server.services.links import seat_token
from server.services.mailflow import reminders, reply_address
from server.services.play import chat
from server.services.play.seats import rotate_link
from server.text.refusals import refusal
from tests.conftest import Stack
from tests.support import (
    REPLY_DOMAIN,
    Sink,
    compose,
    create_tagged,
    csrf_token,
    forged,
    html_of,
    letter,
    mail_settings,
    outbox_ids,
    player_of,
    post_form,
    recording,
    rows_of,
    seat_ids,
    seat_of,
    text_of,
)

T0 = dt.datetime(2031, 3, 4, 12, 0, 30, tzinfo=dt.UTC)  # 30 s into a 10-minute slot
SEED = 11
SECRET = "meet-me-at-the-parking-lot"


def new_game(db: Database, people: int = 3, bots: int = 0, prefs: dict[int, dict[str, Any]] | None = None) -> Game:
    """A running game created at T0: P0 (yellow), P1 (red), P2 (blue) … then ``bots`` random bots."""
    created = create_tagged(db, people, seed=SEED, bots=bots, prefs=prefs, now=T0)
    with db.session() as session:
        game = session.get(Game, created.game_id)
        assert game is not None
        session.expunge(game)
        return game


def email(i: int) -> str:
    """The address of the game's person number ``i`` (create_tagged's)."""
    return f"p{i}.{SEED}@example.org"


def token(stack: Stack, seat_id: int, generation: int = 1) -> str:
    return seat_token(stack.settings.secret_key, seat_id, generation)


def messages(db: Database) -> list[tuple[str, str, str]]:
    with db.session() as session:
        rows = session.execute(
            sa.select(ChatChannel.key, ChatMessage.colour, ChatMessage.text)
            .join(ChatChannel, ChatChannel.id == ChatMessage.channel_id)
            .order_by(ChatMessage.id)
        ).all()
        return [(key, colour, text) for key, colour, text in rows]


def chat_rows(db: Database) -> list[Outbox]:
    """The table-talk mails written so far."""
    return [row for row in rows_of(db, outbox_ids(db)) if row.kind == MailKind.CHAT]


def channel_id(db: Database, key: str) -> int:
    with db.session() as session:
        found: int = session.execute(sa.select(ChatChannel.id).where(ChatChannel.key == key)).scalar_one()
        return found


def shown(db: Database, seat_id: int, now: dt.datetime = T0) -> ChatPage:
    """What the seat page shows of the table talk to the seat, in English, at ``now``."""
    table = chat.table(db, seat_id)
    return page("en", table.channels, table.colour, table.colours, running=table.running, tz="UTC", now=now)


def texts(ctx: ChatPage) -> list[str]:
    return [m.text for ch in ctx.channels for m in ch.messages]


def rendered(stack: Stack, seat_id: int, path: str = "/") -> str:
    with stack.app.test_request_context(path):
        return render_template("chat.html", chat=shown(stack.db, seat_id), token=token(stack, seat_id))


def post_chat(stack: Stack, seat_id: int, **fields: Any) -> TestResponse:
    """The chat form of the seat page, POSTed with a valid CSRF token."""
    return post_form(stack.client, stack.app, f"/s/{token(stack, seat_id)}/chat", fields)


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


def test_post_and_list_private_never_seen_by_others(stack: Stack) -> None:
    game = new_game(stack.db)
    seats = seat_ids(stack.db, game.id)
    assert set(seats) == {"yellow", "red", "blue"}
    first = chat.post(stack.db, game.id, "red", "all", "Hello everyone", now=T0)
    second = chat.post(stack.db, game.id, "blue", "red+blue", SECRET, now=T0 + dt.timedelta(seconds=5))
    assert second > first
    assert messages(stack.db) == [("all", "red", "Hello everyone"), ("blue+red", "blue", SECRET)]

    red = shown(stack.db, seats["red"], now=T0 + dt.timedelta(hours=1, seconds=5))
    assert [c.key for c in red.channels] == ["all", "blue+red"]
    assert texts(red) == ["Hello everyone", SECRET]
    assert red.channels[1].title == "Private: Blue and you"
    assert red.channels[0].messages[0].mine and red.channels[0].messages[0].colour_name == "Red"
    assert red.channels[1].messages[0].relative == "1 hour ago"  # in the reader's language
    assert [o.colour for o in red.others] == ["yellow", "blue"]

    yellow = shown(stack.db, seats["yellow"])
    assert [c.key for c in yellow.channels] == ["all"]
    assert texts(yellow) == ["Hello everyone"]
    assert SECRET not in repr(yellow)

    html = rendered(stack, seats["yellow"])
    assert "Hello everyone" in html and SECRET not in html and "blue+red" not in html
    assert SECRET in rendered(stack, seats["blue"])

    # the whole seat page (seat.html includes chat.html) never shows another pair's private talk
    page_of_yellow = stack.client.get(f"/s/{token(stack, seats['yellow'])}")
    assert page_of_yellow.status_code == 200
    assert "Hello everyone" in page_of_yellow.get_data(as_text=True)
    assert SECRET not in page_of_yellow.get_data(as_text=True)
    red_page = stack.client.get(f"/s/{token(stack, seats['red'])}").get_data(as_text=True)
    assert 'id="chat"' in red_page and SECRET in red_page and "Hello everyone" in red_page


def test_post_through_the_page(stack: Stack) -> None:
    seats = seat_ids(stack.db, new_game(stack.db).id)
    answer = post_chat(stack, seats["red"], channel="all", text="  Deal?\r\nI go to 4.  ")
    assert answer.status_code == 303
    location = answer.headers["Location"]  # back to red's page; the link's signature has a timestamp: its seat part
    assert location.endswith("?chat=sent#chat")
    assert location.split("/s/")[1].split(".")[0] == token(stack, seats["red"]).split(".")[0]
    started = post_chat(stack, seats["red"], to=["blue"], text="Just us")
    assert started.status_code == 303
    assert messages(stack.db) == [("all", "red", "Deal?\nI go to 4."), ("blue+red", "red", "Just us")]
    html = rendered(stack, seats["red"], "/?chat=sent")
    assert "Your message is posted." in html
    assert 'name="channel" value="blue+red"' in html and 'maxlength="1000"' in html
    assert "<label" in html and 'name="to" value="yellow"' in html
    assert "Write to everyone" in html and "Write to Blue only" in html

    # a channel the writer is not in, or everybody but as a "private" one, is refused and stores nothing
    refused = post_chat(stack, seats["red"], channel="blue+yellow", text="let me in")
    assert refused.status_code == 422
    assert "You are not in this conversation." in refused.get_data(as_text=True)
    lonely = post_chat(stack, seats["red"], to=["green"], text="nobody")
    assert lonely.status_code == 422
    everybody = post_chat(stack, seats["red"], to=["blue", "yellow"], text="not private at all")
    assert everybody.status_code == 422
    assert "not everybody" in everybody.get_data(as_text=True)
    assert len(messages(stack.db)) == 2


# --- hostile text --------------------------------------------------------------------------------------------------


def test_hostile_text_is_escaped_or_refused(stack: Stack) -> None:
    game = new_game(stack.db)
    seats = seat_ids(stack.db, game.id)
    script = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    chat.post(stack.db, game.id, "red", "all", script, now=T0)
    chat.post(stack.db, game.id, "red", "all", "a\x00b\x07c\x1b[31md\u202eexe.gnp\u2066x\u2069\nline two", now=T0)
    stored = [text for _, _, text in messages(stack.db)]
    assert stored == [script, "abc[31mdexe.gnpx\nline two"]
    html = rendered(stack, seats["yellow"])
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert 'class="chat-text">abc[31mdexe.gnpx\nline two</p>' in html  # newlines kept (CSS pre-wrap), no style attr
    assert "style=" not in html

    before = messages(stack.db)
    queued = chat_rows(stack.db)
    for text, code in (
        ("x" * 10_000, "too_long"),
        ("x" * 1001, "too_long"),
        ("\n".join(["line"] * 21), "too_many_lines"),
        ("  \x00\u202e\n\t ", "empty"),
    ):
        with pytest.raises(chat.ChatError) as refused:
            chat.post(stack.db, game.id, "red", "all", text, now=T0 + dt.timedelta(minutes=10))
        assert refused.value.code == code
    assert [r.id for r in chat_rows(stack.db)] == [r.id for r in queued]  # a refused post queues no mail
    assert chat.post(stack.db, game.id, "red", "all", "y" * 1000, now=T0)  # exactly the limit is fine
    assert chat.post(stack.db, game.id, "red", "all", "\n".join(["l"] * 20), now=T0)
    answer = post_chat(stack, seats["red"], channel="all", text="z" * 10_000)
    assert answer.status_code == 422
    assert "too long" in answer.get_data(as_text=True)
    assert len(messages(stack.db)) == len(before) + 2
    assert all("z" * 1001 not in text for _, _, text in messages(stack.db))


def test_flood_limit_and_closed_game(embedded: Stack) -> None:
    game = new_game(embedded.db)
    seats = seat_ids(embedded.db, game.id)
    for i in range(chat.FLOOD_COUNT):
        chat.post(embedded.db, game.id, "red", "all", f"message {i}", now=T0 + dt.timedelta(seconds=i))
    with pytest.raises(chat.ChatError) as refused:
        chat.post(embedded.db, game.id, "red", "all", "one more", now=T0 + dt.timedelta(minutes=1))
    assert refused.value.code == "flood"
    chat.post(embedded.db, game.id, "blue", "all", "others may still talk", now=T0 + dt.timedelta(minutes=1))
    later = T0 + chat.FLOOD_WINDOW + dt.timedelta(seconds=chat.FLOOD_COUNT)
    chat.post(embedded.db, game.id, "red", "all", "after the pause", now=later)
    assert len(messages(embedded.db)) == chat.FLOOD_COUNT + 2

    with embedded.db.session() as session:
        stored = session.get(Game, game.id)
        assert stored is not None
        stored.status = GameStatus.OVER
    with pytest.raises(chat.ChatError) as closed:
        chat.post(embedded.db, game.id, "red", "all", "too late", now=later)
    assert closed.value.code == "not_running"
    assert 'name="text"' not in rendered(embedded, seats["red"])  # no form once the game is over


# --- links and forms -----------------------------------------------------------------------------------------------


def test_csrf_forged_and_revoked_links(stack: Stack) -> None:
    game = new_game(stack.db)
    seats = seat_ids(stack.db, game.id)
    url = f"/s/{token(stack, seats['red'])}/chat"
    without = stack.client.post(url, data={"channel": "all", "text": "no token"})
    assert without.status_code == 400
    wrong = stack.client.post(url, data={"channel": "all", "text": "bad token", "csrf_token": "forged"})
    assert wrong.status_code == 400
    refused = forged(token(stack, seats["red"]))
    data = {"csrf_token": csrf_token(stack.client, stack.app), "channel": "all", "text": "forged"}
    assert stack.client.post(f"/s/{refused}/chat", data=data).status_code == 403
    other_key = seat_token("another-secret", seats["red"], 1)
    assert stack.client.post(f"/s/{other_key}/chat", data=data).status_code == 403
    rotate_link(stack.db, game.id, "red")
    revoked = stack.client.post(url, data=data)
    assert revoked.status_code == 403
    assert messages(stack.db) == []
    data["text"] = "with the new link"
    answer = stack.client.post(f"/s/{token(stack, seats['red'], 2)}/chat", data=data)
    assert answer.status_code == 303
    assert messages(stack.db) == [("all", "red", "with the new link")]


def test_posting_is_rate_limited(embedded: Stack) -> None:
    seats = seat_ids(embedded.db, new_game(embedded.db).id)
    codes = [post_chat(embedded, seats["red"], channel="all", text=f"m{i}").status_code for i in range(31)]
    assert codes[: chat.FLOOD_COUNT] == [303] * chat.FLOOD_COUNT
    assert set(codes[chat.FLOOD_COUNT : 30]) == {422}  # the flood limit: refused, nothing stored
    assert codes[30] == 429  # 30 posts a minute per address, whatever their outcome
    assert len(messages(embedded.db)) == chat.FLOOD_COUNT


# --- mail ----------------------------------------------------------------------------------------------------------


def send_chat_rows(stack: Stack, now: dt.datetime) -> list[EmailMessage]:
    """Send every chat row that is due at ``now`` (as the sweep would); the messages the transport took."""
    sink = Sink()
    for row in chat_rows(stack.db):
        send_one(stack.db, row.id, sink, mail_settings(stack.settings), now=now)
    return sink.sent


def to_address(message: EmailMessage) -> str:
    return str(message["To"]).split("<")[1].rstrip(">")


def test_one_digest_mail_per_seat_and_slot(stack: Stack) -> None:
    game = new_game(stack.db, people=3, bots=1)
    seats = seat_ids(stack.db, game.id)
    bot = "green"  # four seats: red, yellow, blue (people) and green (the bot)
    assert seat_of(stack.db, seats[bot]).bot == "random"
    chat.post(stack.db, game.id, "red", "all", "first <b>public</b>", now=T0)
    chat.post(stack.db, game.id, "red", "all", "second public\nwith two lines", now=T0 + dt.timedelta(minutes=3))
    chat.post(stack.db, game.id, "blue", "blue+red", SECRET, now=T0 + dt.timedelta(minutes=4))
    rows = chat_rows(stack.db)
    slot = int(T0.timestamp()) // 600
    end = dt.datetime.fromtimestamp((slot + 1) * 600, dt.UTC)
    by_seat = {row.seat_id: row for row in rows}
    assert len(rows) == 3 and set(by_seat) == {seats["yellow"], seats["blue"], seats["red"]}
    assert seats[bot] not in by_seat  # bots get no mail
    assert all(row.key == f"chat:{row.seat_id}:{slot}" and row.next_attempt_at == end for row in rows)
    assert all(row.status == "pending" for row in rows)

    assert send_chat_rows(stack, end - dt.timedelta(seconds=1)) == []  # not before the end of the slot
    sent = send_chat_rows(stack, end)
    assert len(sent) == 3
    colour_of = {player_of(stack.db, seat_id).email: colour for colour, seat_id in seats.items() if colour != bot}
    to = {colour_of[to_address(m)]: m for m in sent}
    yellow, red, blue = to["yellow"], to["red"], to["blue"]

    text = text_of(yellow)
    assert "first <b>public</b>" in text and "  second public\n  with two lines" in text
    assert SECRET not in text and SECRET not in html_of(yellow)
    assert "first &lt;b&gt;public&lt;/b&gt;" in html_of(yellow)
    assert yellow["Subject"].endswith("2 new messages at the table")
    assert SECRET in text_of(red) and "Private: Blue and you" in text_of(red)
    assert "Reply to this mail to write to: Private: Blue and you." in text_of(red)
    assert red["Subject"].endswith("1 new message at the table")  # its own messages are listed, not counted
    assert "first <b>public</b>" in text_of(blue) and SECRET in text_of(blue)
    assert yellow["In-Reply-To"] == f"<deadmail.game-{game.id}.seat-{seats['yellow']}@deadmail.example>"

    # the reply address posts to the channel of the latest message from another colour
    private, public = channel_id(stack.db, "blue+red"), channel_id(stack.db, "all")
    mailed = {colour: seat_of(stack.db, seat_id).chat_mailed_id for colour, seat_id in seats.items()}
    secret_key = stack.settings.secret_key
    assert red["Reply-To"] == reply_address.make_chat(secret_key, REPLY_DOMAIN, seats["red"], private, 1)
    assert yellow["Reply-To"] == reply_address.make_chat(secret_key, REPLY_DOMAIN, seats["yellow"], public, 1)
    last = max(i for i in (mailed["yellow"], mailed["red"], mailed["blue"]) if i is not None)
    assert mailed["red"] == mailed["blue"] == last and mailed["yellow"] == last - 1 and mailed[bot] is None

    # a later slot: a new row, and its mail lists only what is new
    chat.post(stack.db, game.id, "red", "all", "third public", now=end + dt.timedelta(minutes=1))
    later = [row for row in chat_rows(stack.db) if row.status == "pending"]
    assert {row.seat_id for row in later} == {seats["yellow"], seats["blue"]}
    again = send_chat_rows(stack, end + dt.timedelta(minutes=10))
    assert len(again) == 2
    assert all("third public" in text_of(m) and "first <b>public</b>" not in text_of(m) for m in again)


class Replies:
    """Replies by mail to a seat's chat address, each with the mails it asked to send."""

    def __init__(self, stack: Stack) -> None:
        self.settings: Settings = mail_settings(stack.settings)
        self.db, self.tasks = recording(stack.db)

    def send(self, sender: str, to: str, text: str, now: dt.datetime = T0) -> tuple[Received, list[int]]:
        asked = len(self.tasks.mails)
        got = receive(self.db, self.settings, letter(sender, to, text), [to], now)
        return got, self.tasks.mails[asked:]


def test_a_reply_by_mail_posts_to_the_channel(stack: Stack) -> None:
    game = new_game(stack.db)
    seats = seat_ids(stack.db, game.id)
    chat.post(stack.db, game.id, "blue", "blue+red", "Shall we vote yellow?", now=T0)
    channel = channel_id(stack.db, "blue+red")
    mail = Replies(stack)
    key = mail.settings.secret_key
    address = reply_address.make_chat(key, REPLY_DOMAIN, seats["red"], channel, 1)

    reply = "Yes, deal.\nI vote yellow.\n\nOn Tue, 4 Mar 2031 Dead Mail wrote:\n> Shall we vote yellow?\n-- \nP1"
    done, told = mail.send(email(1), address, reply)
    assert done.status == "applied" and told == []  # posted: no answer mail
    assert messages(stack.db)[-1] == ("blue+red", "red", "Yes, deal.\nI vote yellow.")
    assert [r.seat_id for r in chat_rows(stack.db) if r.seat_id == seats["blue"]]  # blue is told by mail

    count = len(messages(stack.db))
    forged = address.replace(address.split("-")[4][:5], "aaaaa")
    assert forged != address
    for to, sender, status in (
        (forged, email(1), "forged"),  # a bad signature
        (reply_address.make_chat("another-secret", REPLY_DOMAIN, seats["red"], channel, 1), email(1), "forged"),
        (reply_address.make_chat(key, REPLY_DOMAIN, seats["red"], channel, 2), email(1), "forged"),
        (reply_address.make_chat(key, REPLY_DOMAIN, seats["red"], 10**6, 1), email(1), "forged"),
        ("r-" + address[2:], email(1), "forged"),  # a chat address read as a turn one
        # a signed address of a seat that is not in the channel (never made by the server, but refused anyway)
        (reply_address.make_chat(key, REPLY_DOMAIN, seats["yellow"], channel, 1), email(0), "error"),
        (address, email(1), "error"),  # nothing left once the quote is stripped
    ):
        text = "> let me in" if to == address else "let me in"
        got, told = mail.send(sender, to, text)
        assert (got.status, len(told)) == (status, 1 if status == "error" else 0), to
    # a turn address is never read as a chat one
    turn = reply_address.make(key, REPLY_DOMAIN, seats["red"], channel, 1)
    with pytest.raises(reply_address.ReplyAddressError):
        reply_address.read_chat(key, REPLY_DOMAIN, "c-" + turn[2:])
    # another sender: nothing posted, the seat's player is told
    other, told = mail.send("mallory@example.org", address, "hijack")
    assert other.status == "wrong_sender" and len(told) == 1
    # a revoked address
    rotate_link(stack.db, game.id, "red")
    revoked, told = mail.send(email(1), address, "old link")
    assert revoked.status == "forged" and told == []
    assert len(messages(stack.db)) == count
    with stack.db.session() as session:
        statuses = session.execute(sa.select(InboundMail.status).order_by(InboundMail.id)).scalars().all()
    assert statuses[0] == "applied" and "applied" not in statuses[1:]


# --- a chat reply that cannot be posted; quiet hours and digests --------------------------------------------------


def test_a_chat_reply_that_cannot_be_posted_is_answered_to_the_player(stack: Stack) -> None:
    game = new_game(stack.db, prefs={1: {"language": "it"}})  # red
    seats = seat_ids(stack.db, game.id)
    chat.post(stack.db, game.id, "blue", "blue+red", "Deal?", now=T0)
    mail = Replies(stack)
    address = reply_address.make_chat(
        mail.settings.secret_key, REPLY_DOMAIN, seats["red"], channel_id(stack.db, "blue+red"), 1
    )

    too_long, told = mail.send(email(1).upper(), address, "x" * (chat.MAX_CHARS + 1), T0)
    assert too_long.status == "error" and len(told) == 1
    message = compose(stack.db, told[0], mail.settings, now=T0)
    assert message is not None
    assert message["To"].endswith(f"<{email(1)}>")  # the seat's registered player
    expected = refusal(chat.ChatError("too_long"), "it")
    assert expected != refusal(chat.ChatError("too_long"), "en")
    assert expected in text_of(message) and "x" * 50 not in text_of(message)
    assert len(messages(stack.db)) == 1  # nothing posted

    # at most REPLY_LIMITS["chat_error"] answers an hour per seat
    answered = [len(mail.send(email(1), address, "", T0 + dt.timedelta(minutes=i))[1]) for i in range(1, 5)]
    assert answered == [1, 1, 0, 0]
    assert len(mail.send(email(1), address, "", T0 + dt.timedelta(minutes=70))[1]) == 1

    # the game is over: told why
    with stack.db.session() as session:
        stored = session.get(Game, game.id)
        assert stored is not None
        stored.status = GameStatus.OVER
    over, told = mail.send(email(1), address, "too late?", T0 + dt.timedelta(hours=3))
    assert over.status == "error" and len(told) == 1
    said = compose(stack.db, told[0], mail.settings, now=T0 + dt.timedelta(hours=3))
    assert said is not None and refusal(chat.ChatError("not_running"), "it") in text_of(said)


def test_a_chat_mail_waits_for_the_end_of_quiet_hours(stack: Stack) -> None:
    quiet = {"timezone": "UTC", "quiet_start": "12:00", "quiet_end": "14:00"}
    game = new_game(stack.db, prefs={0: quiet})  # yellow
    quiet_seat = seat_ids(stack.db, game.id)["yellow"]
    chat.post(stack.db, game.id, "red", "all", "lunch talk", now=T0)
    chat.post(stack.db, game.id, "red", "all", "more lunch talk", now=T0 + dt.timedelta(minutes=30))
    end = T0.replace(hour=14, minute=0, second=0)
    quiet_rows = [r for r in chat_rows(stack.db) if r.seat_id == quiet_seat]
    assert len(quiet_rows) == 1 and quiet_rows[0].next_attempt_at == end  # one mail, when the quiet hours end
    others = [r for r in chat_rows(stack.db) if r.seat_id != quiet_seat]
    assert others and all(r.next_attempt_at < end for r in others)
    early = [m for m in send_chat_rows(stack, end - dt.timedelta(seconds=1)) if to_address(m) == email(0)]
    assert early == []
    sent = [m for m in send_chat_rows(stack, end) if to_address(m) == email(0)]
    assert len(sent) == 1 and "lunch talk" in text_of(sent[0]) and "more lunch talk" in text_of(sent[0])


def test_table_talk_joins_the_digest(stack: Stack) -> None:
    game = new_game(stack.db, prefs={0: {"mail_mode": "digest", "digest_hours": 4}})  # yellow
    seat = seat_of(stack.db, seat_ids(stack.db, game.id)["yellow"])
    chat.post(stack.db, game.id, "red", "all", "digest <me>", now=T0)
    held = [r for r in chat_rows(stack.db) if r.seat_id == seat.id]
    assert [r.status for r in held] == [OutboxStatus.HELD]
    assert [m for m in send_chat_rows(stack, T0 + dt.timedelta(hours=1)) if to_address(m) == email(0)] == []
    later = T0 + dt.timedelta(hours=5)
    ids = reminders.release_digests(stack.db, later)
    with stack.db.session() as session:
        digests = [session.get(Outbox, i) for i in ids]
        [digest_id] = [d.id for d in digests if d is not None and d.kind == "digest" and d.player_id == seat.player_id]
    sink = Sink()
    assert send_one(stack.db, digest_id, sink, mail_settings(stack.settings), now=later) == "sent"
    [message] = sink.sent
    assert "digest <me>" in text_of(message) and "digest &lt;me&gt;" in html_of(message)
    assert "Table talk:" in text_of(message)
    with stack.db.session() as session:
        last = session.execute(sa.select(sa.func.max(ChatMessage.id))).scalar_one()
    assert seat_of(stack.db, seat.id).chat_mailed_id == last
