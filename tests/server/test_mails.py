"""The notification mails, built for outbox rows of real games: commands under their heading in each language,
one-tap links, threads, deadlines in the reader's zone, inlined CSS, events told once, signed reply addresses,
reminders, digests and the answers to replies."""

from __future__ import annotations

import datetime as dt
import re
from email.message import EmailMessage
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import sqlalchemy as sa

import engine
from engine.bots import RandomBot
from server import i18n, narrate
from server.commands import MESSAGES, commands_for, parse_reply
from server.models import Event, InboundMail, Outbox, Player, RequestRow, Seat, Window
from server.services import games, mails, outbox, reply_address, turns

T0 = dt.datetime(2031, 3, 4, 12, 0, tzinfo=dt.UTC)
FROM = "Dead Mail <games@deadmail.example>"
REPLY_DOMAIN = "reply.deadmail.example"
HEADING = "Reply with one of these lines:"


# --- helpers shared with test_one_tap.py and test_mail_leaks.py ---------------------------------------------------


def settings_of(stack: Any, reply_domain: str = REPLY_DOMAIN) -> outbox.MailSettings:
    return outbox.MailSettings(stack.settings.secret_key, stack.settings.base_url, FROM, reply_domain)


def create(
    db: Any,
    people: int,
    seed: int,
    bots: int = 0,
    options: dict[str, Any] | None = None,
    prefs: dict[int, dict[str, Any]] | None = None,
    now: dt.datetime = T0,
    tag: int | None = None,
) -> games.Created:
    """A game of ``people`` people (p0.<tag>@…, the tag is the seed unless given) and ``bots`` random bots;
    ``prefs`` sets players' language, zone, mail mode (by index) before any mail is composed."""
    tag = seed if tag is None else tag
    players = [games.PlayerSpec(name=f"P{i}", email=f"p{i}.{tag}@example.org") for i in range(people)]
    players += [games.PlayerSpec(bot="random") for _ in range(bots)]
    spec = games.GameSpec(players=players, seed=seed, options=options or {})
    if prefs:  # the players exist before the game when prefs matter for the first window's rows
        with db.session() as session:
            for i, values in prefs.items():
                player = games.find_or_create_player(session, players[i])
                for key, value in values.items():
                    setattr(player, key, value)
    return games.create_game(db, spec, now=now)


def open_window(db: Any, game_id: int) -> Window | None:
    with db.session() as session:
        window = session.execute(
            sa.select(Window).where(Window.game_id == game_id, Window.status == "open")
        ).scalar_one_or_none()
        if window is not None:
            session.expunge(window)
        return window


def engine_of(db: Any, game_id: int) -> engine.Game:
    with db.session() as session:
        game = session.get(games.Game, game_id)
        assert game is not None
        return games.CACHE.get(game)


def play_window(db: Any, game_id: int, seed: int, now: dt.datetime) -> list[int]:
    """Every person still owing answers like a random bot (through submit_answer); then the window advances."""
    window = open_window(db, game_id)
    assert window is not None
    eng = engine_of(db, game_id)
    with db.session() as session:
        owed = session.execute(
            sa.select(RequestRow.seat_id, Seat.colour, RequestRow.kind)
            .join(Seat, Seat.id == RequestRow.seat_id)
            .where(RequestRow.window_id == window.id, RequestRow.answered_at.is_(None))
        ).all()
    for seat_id, colour, kind in owed:
        req = next(r for r in eng.pending() if r.player == colour)
        value = RandomBot(seed * 31 + window.number).decide(eng, req)
        turns.submit_answer(db, seat_id, kind, value, window_number=window.number, now=now)
    added = turns.advance_window(db, window.id, now=now)
    assert added is not None
    return added


def rows_of(db: Any, ids: list[int]) -> list[Outbox]:
    with db.session() as session:
        rows = list(session.execute(sa.select(Outbox).where(Outbox.id.in_(ids)).order_by(Outbox.id)).scalars())
        for row in rows:
            session.expunge(row)
        return rows


def seat_of(db: Any, seat_id: int) -> Seat:
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None
        session.expunge(seat)
        return seat


def request_of(db: Any, seat_id: int) -> tuple[Window, RequestRow] | None:
    """The seat's request row in its game's open window."""
    with db.session() as session:
        found = session.execute(
            sa.select(Window, RequestRow)
            .join(RequestRow, RequestRow.window_id == Window.id)
            .where(RequestRow.seat_id == seat_id, Window.status == "open")
        ).first()
        if found is None:
            return None
        window, row = found
        session.expunge(window)
        session.expunge(row)
        return window, row


def player_of(db: Any, seat_id: int) -> Player:
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None and seat.player is not None
        player = seat.player
        session.expunge(player)
        return player


def text_of(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def html_of(message: EmailMessage) -> str:
    part = message.get_body(("html",))
    assert part is not None
    return str(part.get_content())


def listed(text: str, heading: str) -> list[str]:
    """The lines indented by exactly four spaces right under the one heading line."""
    lines = text.splitlines()
    assert lines.count(heading) == 1, f"{heading!r} is not one line of the mail"
    out = []
    for line in lines[lines.index(heading) + 1 :]:
        if not (line.startswith("    ") and not line.startswith("     ")):
            break
        out.append(line[4:])
    return out


def one_tap_links(html: str) -> dict[str, str]:
    """command -> one-tap URL, from the HTML part's buttons."""
    import html as html_lib

    found = re.findall(r'<a [^>]*href="([^"]+/do\?[^"]+)"[^>]*>([^<]+)</a>', html)
    return {html_lib.unescape(label): html_lib.unescape(href) for href, label in found}


class Recorder:
    """A transport that keeps what it was given (or refuses, to test that a failed send tells nothing)."""

    def __init__(self, refuse: bool = False) -> None:
        self.sent: list[EmailMessage] = []
        self.refuse = refuse

    def send(self, message: EmailMessage) -> None:
        if self.refuse:
            raise OSError("refused")
        self.sent.append(message)


def turn_rows(db: Any, ids: list[int]) -> list[Outbox]:
    return [r for r in rows_of(db, ids) if r.kind == "turn"]


# --- commands, one-tap links, headers ------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "it", "pl"])
def test_every_legal_command_is_listed_under_the_heading_and_has_a_one_tap_link(embedded: Any, lang: str) -> None:
    """Windows of a real game (placement, truck votes, cards, moves…): the text part lists exactly commands_for,
    four spaces in, under the one heading; the HTML part has a one-tap link for each, which parses back."""
    settings = settings_of(embedded)
    prefs = {i: {"language": lang} for i in range(3)}
    created = create(embedded.db, 3, seed=11, prefs=prefs)
    heading = HEADING if lang == "en" else MESSAGES[lang]["list"]
    assert i18n.translations(lang).gettext(HEADING) == heading
    ids, kinds = created.outbox_ids, set()
    now = T0
    for step in range(12):
        for row in turn_rows(embedded.db, ids):
            message = mails.compose(embedded.db, row.id, settings, now=now)
            assert message is not None
            assert message["Content-Language"] == lang
            seat = seat_of(embedded.db, row.seat_id)  # type: ignore[arg-type]
            found = request_of(embedded.db, seat.id)
            assert found is not None
            window, request = found
            view = engine.view(engine_of(embedded.db, created.game_id), seat.colour)
            expected = commands_for(request.payload, view, lang)
            assert expected and listed(text_of(message), heading) == expected
            links = one_tap_links(html_of(message))
            assert list(links) == expected
            for command, url in links.items():
                query = parse_qs(urlsplit(url).query)
                assert query == {"w": [str(window.number)], "c": [command]}
                assert urlsplit(url).path.endswith("/do")
                parse_reply(query["c"][0], request.payload, view, lang)  # a legal answer
            kinds.add(request.kind)
        if open_window(embedded.db, created.game_id) is None:
            break
        now += dt.timedelta(hours=1)
        ids = play_window(embedded.db, created.game_id, seed=step, now=now)
    assert {"place", "vote"} <= kinds, kinds


def test_one_thread_per_seat_and_events_are_told_once(embedded: Any) -> None:
    """The first mail of a seat starts its thread, later ones refer to it; each tells only the events after the
    last mail that was sent (a failed send tells nothing)."""
    settings = settings_of(embedded)
    created = create(embedded.db, 3, seed=5)
    first = turn_rows(embedded.db, created.outbox_ids)[0]
    seat = seat_of(embedded.db, first.seat_id)  # type: ignore[arg-type]
    host = "deadmail.example"
    root = f"<deadmail.game-{created.game_id}.seat-{seat.id}@{host}>"

    assert outbox.send_one(embedded.db, first.id, Recorder(refuse=True), settings, T0) == "retry"
    assert seat_of(embedded.db, seat.id).mailed_seq is None  # not sent: nothing told
    recorder = Recorder()
    at = T0 + outbox.backoff(1)
    assert outbox.send_one(embedded.db, first.id, recorder, settings, at) == "sent"
    (mail1,) = recorder.sent
    assert mail1["Message-ID"] == root
    assert mail1["In-Reply-To"] is None and mail1["References"] is None
    told = seat_of(embedded.db, seat.id).mailed_seq
    with embedded.db.session() as session:
        last = session.execute(sa.select(sa.func.max(Event.seq)).where(Event.game_id == created.game_id)).scalar()
    assert told == last

    now = T0
    for step in range(6):  # play on until this seat gets its next mail
        now += dt.timedelta(hours=1)
        ids = play_window(embedded.db, created.game_id, seed=step, now=now)
        mine = [r for r in rows_of(embedded.db, ids) if r.seat_id == seat.id]
        if mine:
            break
    assert mine
    assert outbox.send_one(embedded.db, mine[0].id, recorder, settings, now) == "sent"
    mail2 = recorder.sent[-1]
    assert mail2["Message-ID"] != root and mail2["Message-ID"].endswith(f"@{host}>")
    assert mail2["In-Reply-To"] == root and mail2["References"] == root
    for header in ("Date", "Auto-Submitted", "List-Unsubscribe", "From", "To", "Subject"):
        assert mail2[header], header
    assert mail2["Auto-Submitted"] == "auto-generated"
    assert mail2["List-Unsubscribe"].startswith(f"<{embedded.settings.base_url}/p/")

    lang = "en"
    with embedded.db.session() as session:
        events = session.execute(sa.select(Event).where(Event.game_id == created.game_id).order_by(Event.seq)).scalars()
        told_lines: dict[bool, list[str]] = {True: [], False: []}
        for ev in events:
            if ev.visible_to is None or seat.colour in ev.visible_to:
                line = narrate.event_text(lang, {"type": ev.type, **ev.data}, seat.colour)
                if line:
                    told_lines[ev.seq <= told].append(line)  # type: ignore[operator]
    assert told_lines[True] and told_lines[False]
    assert _event_lines(text_of(mail1)) == told_lines[True]
    assert _event_lines(text_of(mail2)) == told_lines[False]
    assert seat_of(embedded.db, seat.id).mailed_seq == _last_seq(embedded.db, created.game_id)


def _last_seq(db: Any, game_id: int) -> int:
    with db.session() as session:
        return int(session.execute(sa.select(sa.func.max(Event.seq)).where(Event.game_id == game_id)).scalar())


def _event_lines(text: str) -> list[str]:
    """The "  - …" lines of the "What happened" part (up to the next blank line after the round titles)."""
    lines = text.splitlines()
    start = lines.index("What happened since your last mail:") + 1
    out = []
    for line in lines[start:]:
        if not line:
            break
        if line.startswith("  - "):
            out.append(line[4:])
    return out


def test_the_deadline_is_given_in_each_readers_zone_absolute_and_relative(embedded: Any) -> None:
    prefs = {0: {"timezone": "Europe/Warsaw"}, 1: {"timezone": "America/Los_Angeles"}, 2: {"language": "pl"}}
    created = create(embedded.db, 3, seed=8, prefs=prefs)
    now = T0 + dt.timedelta(hours=17)
    texts = {}
    for row in turn_rows(embedded.db, created.outbox_ids):
        message = mails.compose(embedded.db, row.id, settings_of(embedded), now=now)
        assert message is not None
        player = player_of(embedded.db, row.seat_id)  # type: ignore[arg-type]
        found = request_of(embedded.db, row.seat_id)  # type: ignore[arg-type]
        assert found is not None
        absolute, relative = i18n.format_when(found[0].deadline, now, player.timezone, player.language)
        text, html = text_of(message), html_of(message)
        assert absolute in text and relative in text and absolute in html
        texts[player.timezone if player.language == "en" else "pl"] = (absolute, relative, text)
    assert found[0].deadline == T0 + dt.timedelta(hours=24)
    # 12:00 UTC on 5 March 2031: winter time in both zones (the US changes on 9 March, Poland on 30 March)
    assert texts["Europe/Warsaw"][:2] == ("Wednesday, 5 March 2031 at 13:00 CET", "in 7 hours")
    assert texts["America/Los_Angeles"][:2] == ("Wednesday, 5 March 2031 at 04:00 PST", "in 7 hours")
    assert texts["pl"][0] != texts["Europe/Warsaw"][0] and "UTC" in texts["pl"][0]


def test_the_html_part_has_its_css_inlined(embedded: Any) -> None:
    created = create(embedded.db, 3, seed=2)
    message = mails.compose(embedded.db, created.outbox_ids[0], settings_of(embedded), now=T0)
    assert message is not None
    html = html_of(message)
    assert "<style" not in html
    assert re.search(r'<a [^>]*style="[^"]*background: ?#7a1f1f', html)
    assert re.search(r'<table [^>]*style="[^"]*border-collapse', html)
    assert message.get_content_type() == "multipart/alternative"


def test_the_reply_to_is_signed_for_the_seat_and_window(embedded: Any) -> None:
    settings = settings_of(embedded)
    created = create(embedded.db, 3, seed=3)
    for row in turn_rows(embedded.db, created.outbox_ids):
        message = mails.compose(embedded.db, row.id, settings, now=T0)
        assert message is not None
        seat = seat_of(embedded.db, row.seat_id)  # type: ignore[arg-type]
        got = reply_address.read(settings.secret_key, REPLY_DOMAIN, message["Reply-To"])
        assert got == reply_address.ReplyTo(seat.id, row.payload["window"], seat.link_generation)
        with pytest.raises(reply_address.ReplyAddressError):
            reply_address.read("another-secret", REPLY_DOMAIN, message["Reply-To"])
    no_domain = mails.compose(embedded.db, created.outbox_ids[0], settings_of(embedded, ""), now=T0)
    assert no_domain is not None and no_domain["Reply-To"] is None
    assert HEADING in text_of(no_domain)  # the commands are listed all the same


# --- stale rows, updates, reminders, digests, replies ---------------------------------------------------------------


def test_a_turn_mail_for_a_closed_window_is_skipped_when_a_newer_mail_tells_the_rest(embedded: Any) -> None:
    settings = settings_of(embedded)
    created = create(embedded.db, 3, seed=4)
    old = turn_rows(embedded.db, created.outbox_ids)[0]
    now, newer = T0, []
    for step in range(6):
        now += dt.timedelta(hours=1)
        newer = [
            r
            for r in rows_of(embedded.db, play_window(embedded.db, created.game_id, step, now))
            if r.seat_id == old.seat_id
        ]
        if newer:
            break
    assert newer
    recorder = Recorder()
    assert outbox.send_one(embedded.db, old.id, recorder, settings, now) == "skipped"
    assert recorder.sent == [] and rows_of(embedded.db, [old.id])[0].status == "skipped"
    assert outbox.send_one(embedded.db, newer[0].id, recorder, settings, now) == "sent"
    (mail,) = recorder.sent
    lines = _event_lines(text_of(mail))
    assert any("rolls" in line for line in lines)  # the setup events of the skipped mail are told here


def test_a_reminder_lists_what_is_still_owed_and_nothing_once_answered(embedded: Any) -> None:
    settings = settings_of(embedded)
    created = create(embedded.db, 3, seed=6)
    row = turn_rows(embedded.db, created.outbox_ids)[0]
    seat_id = row.seat_id
    assert seat_id is not None
    window, request = request_of(embedded.db, seat_id)  # type: ignore[misc]
    with embedded.db.session() as session:
        reminder = Outbox(
            key=f"remind:{window.id}:{seat_id}",
            player_id=row.player_id,
            kind="reminder",
            payload={"items": [{"seat": seat_id, "window": window.number, "step": 1}]},
            next_attempt_at=T0,
        )
        session.add(reminder)
        session.flush()
        reminder_id = reminder.id
    message = mails.compose(embedded.db, reminder_id, settings, now=T0 + dt.timedelta(hours=12))
    assert message is not None
    assert message["Subject"].startswith("Reminder: ")
    text = text_of(message)
    view = engine.view(engine_of(embedded.db, created.game_id), seat_of(embedded.db, seat_id).colour)
    assert listed(text, HEADING) == commands_for(request.payload, view, "en")
    assert "in 12 hours" in text
    assert reply_address.read(settings.secret_key, REPLY_DOMAIN, message["Reply-To"]).seat_id == seat_id

    value = parse_reply(listed(text, HEADING)[0], request.payload, view, "en")
    turns.submit_answer(embedded.db, seat_id, request.kind, value, now=T0 + dt.timedelta(hours=1))
    assert mails.compose(embedded.db, reminder_id, settings, now=T0 + dt.timedelta(hours=12)) is None
    assert outbox.send_one(embedded.db, reminder_id, Recorder(), settings, T0 + dt.timedelta(hours=12)) == "skipped"


def test_a_digest_tells_each_game_and_a_reminder_of_two_games_has_no_reply_to(embedded: Any) -> None:
    settings = settings_of(embedded)
    a = create(embedded.db, 3, seed=21, prefs={0: {"mail_mode": "digest"}})
    b = create(embedded.db, 3, seed=22, tag=21)  # the same three people in a second game
    with embedded.db.session() as session:  # p0 reads a digest: their turn mails of both games are held
        held = list(session.execute(sa.select(Outbox).where(Outbox.status == "held")).scalars())
        assert sorted(r.game_id for r in held) == [a.game_id, b.game_id]
        player_id = held[0].player_id
        digest = Outbox(key="digest:test", player_id=player_id, kind="digest", payload={"rows": [r.id for r in held]})
        session.add(digest)
        session.flush()
        digest_id = digest.id
    message = mails.compose(embedded.db, digest_id, settings, now=T0)
    assert message is not None and message["Subject"] == "Your digest: news from 2 games"
    text = text_of(message)
    assert re.findall(r"^== Mall of Horror, game (\d+) ", text, re.M) == [str(a.game_id), str(b.game_id)]
    assert message["Reply-To"] is None  # two decisions listed: a reply could not say which
    assert HEADING not in text and len(one_tap_links(html_of(message))) >= 2
    recorder = Recorder()
    with embedded.db.session() as session:
        session.execute(sa.update(Outbox).where(Outbox.id == digest_id).values(next_attempt_at=T0))
    assert outbox.send_one(embedded.db, digest_id, recorder, settings, T0) == "sent"
    for created in (a, b):  # both games' events are told
        with embedded.db.session() as session:
            told = session.execute(
                sa.select(Seat.mailed_seq).where(Seat.game_id == created.game_id, Seat.player_id == player_id)
            ).scalar_one()
        assert told == _last_seq(embedded.db, created.game_id)

    # p1 owes a decision in both games: one reminder across both has no Reply-To, and each decision has its links
    with embedded.db.session() as session:
        p1 = session.execute(sa.select(Player).where(Player.email == "p1.21@example.org")).scalar_one()
        items = []
        for created in (a, b):
            seat = session.execute(
                sa.select(Seat).where(Seat.player_id == p1.id, Seat.game_id == created.game_id)
            ).scalar_one()
            number = session.execute(
                sa.select(Window.number).where(Window.game_id == seat.game_id, Window.status == "open")
            ).scalar_one()
            items.append({"seat": seat.id, "window": number, "step": 1})
        reminder = Outbox(key="remind:two", player_id=p1.id, kind="reminder", payload={"items": items})
        session.add(reminder)
        session.flush()
        reminder_id = reminder.id
    message = mails.compose(embedded.db, reminder_id, settings, now=T0)
    assert message is not None and message["Subject"] == "Reminder: 2 decisions are waiting for you"
    assert message["Reply-To"] is None and message["In-Reply-To"] is None
    text = text_of(message)
    assert HEADING not in text
    assert re.findall(r"^== Mall of Horror, game (\d+) ", text, re.M) == [str(a.game_id), str(b.game_id)]
    links = re.findall(r"/s/([\w.-]+)/do\?w=", text)
    assert len(set(links)) == 2  # each game's decisions link to its own seat


@pytest.mark.parametrize("result", ["applied", "error", "closed", "wrong_sender"])
def test_the_answer_to_a_reply_by_mail(embedded: Any, result: str) -> None:
    settings = settings_of(embedded)
    created = create(embedded.db, 3, seed=9)
    row = turn_rows(embedded.db, created.outbox_ids)[0]
    seat_id = row.seat_id
    assert seat_id is not None
    window, request = request_of(embedded.db, seat_id)  # type: ignore[misc]
    seat = seat_of(embedded.db, seat_id)
    view = engine.view(engine_of(embedded.db, created.game_id), seat.colour)
    commands = commands_for(request.payload, view, "en")
    command = {"applied": commands[0], "error": "DANCE <b>WILDLY</b>", "closed": commands[0]}.get(result, "")
    if result == "applied":
        turns.submit_answer(embedded.db, seat_id, request.kind, parse_reply(command, request.payload, view, "en"))
    with embedded.db.session() as session:
        inbound = InboundMail(
            message_id=f"<in-{result}@example.org>",
            sender="Mallory <mallory@evil.example>",
            recipient="r@x",
            seat_id=seat_id,
            window_number=window.number,
            status=result,
        )
        session.add(inbound)
        session.flush()
        reply = Outbox(
            key=f"reply:{inbound.id}",
            game_id=created.game_id,
            seat_id=seat_id,
            player_id=row.player_id,
            kind="reply",
            payload={"inbound": inbound.id, "result": result, "window": window.number, "command": command},
        )
        session.add(reply)
        session.flush()
        reply_id = reply.id
    message = mails.compose(embedded.db, reply_id, settings, now=T0)
    assert message is not None
    text, html = text_of(message), html_of(message)
    if result == "applied":
        meaning = mails.describe_answer("en", request.payload, parse_reply(command, request.payload, view, "en"))
        assert f"“{command}”" in text and meaning in text and "change it until the deadline" in text
        assert "Your answer so far: " + meaning in text
    elif result == "error":
        assert "is not a reply you can make now" in text
        assert "<b>" not in html and "&lt;b&gt;" in html  # the player's text is escaped
        assert listed(text, HEADING) == commands
    elif result == "closed":
        assert "already closed" in text and "nothing was changed" in text
    else:
        assert "mallory@evil.example" in text and "Nothing was changed" in text
        assert message["To"].endswith(f"<{player_of(embedded.db, seat_id).email}>")
    assert message["In-Reply-To"] == f"<deadmail.game-{created.game_id}.seat-{seat_id}@deadmail.example>"
