"""The notification mails, built for outbox rows of real games: commands under their heading in each language,
one-tap links, threads, deadlines in the reader's zone, inlined CSS, events told once, signed reply addresses,
reminders, digests and the answers to replies."""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import sqlalchemy as sa

import engine
from server.db import Database
from server.mail.send import send_one
from server.models import InboundMail, Outbox, Player, Seat, Window
from server.services import claims
from server.services.mailflow import reply_address
from server.services.play import turns
from server.text import i18n
from server.text.grammar import commands_for, parse_reply
from server.text.sentences import describe_answer, event_text, request_headline
from tests.conftest import Stack
from tests.support import (
    REPLY_DOMAIN,
    T0,
    Sink,
    compose,
    create_tagged,
    engine_of,
    html_of,
    mail_settings,
    one_tap_links,
    open_window,
    outbox_ids,
    play_window,
    player_of,
    request_of,
    rows_of,
    seat_of,
    table_names,
    text_of,
    turn_rows,
)

HEADING = "Reply with one of these lines:"


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


def view_events(db: Database, game_id: int, colour: str) -> list[dict[str, Any]]:
    """The events of the seat's own view (what ``Seat.told_events`` counts)."""
    return list(engine.view(engine_of(db, game_id), colour)["events"])


def told_of(db: Database, game_id: int, player_id: int) -> int | None:
    with db.session() as session:
        told: int | None = session.execute(
            sa.select(Seat.told_events).where(Seat.game_id == game_id, Seat.player_id == player_id)
        ).scalar_one()
        return told


def event_lines(text: str) -> list[str]:
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


# --- commands, one-tap links, headers ------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "it", "pl"])
def test_every_legal_command_is_listed_under_the_heading_and_has_a_one_tap_link(embedded: Stack, lang: str) -> None:
    """Windows of a real game (placement, truck votes, cards, moves…): the text part lists exactly commands_for,
    four spaces in, under the one heading; the HTML part has a one-tap link for each, which parses back, its button
    saying the answer in words; the subject says what is asked, where, and by when."""
    db = embedded.db
    settings = mail_settings(embedded.settings)
    prefs = {i: {"language": lang} for i in range(3)}
    created = create_tagged(db, 3, seed=11, prefs=prefs)
    heading = i18n.translations(lang).gettext(HEADING)
    assert (heading == HEADING) == (lang == "en")  # the heading is translated
    ids, kinds = outbox_ids(db, created.game_id), set()
    now = T0
    for step in range(12):
        for row in turn_rows(db, ids):
            message = compose(db, row.id, settings, now=now)
            assert message is not None
            assert message["Content-Language"] == lang
            assert row.seat_id is not None
            seat = seat_of(db, row.seat_id)
            found = request_of(db, seat.id)
            assert found is not None
            window, request = found
            view = engine.view(engine_of(db, created.game_id), seat.colour)
            expected = commands_for(request.payload, view, lang)
            assert expected and listed(text_of(message), heading) == expected
            links = one_tap_links(html_of(message))
            assert list(links) == expected
            # each button says its answer in words; the subject what is asked, where, and by when
            names = table_names(db, created.game_id)
            words = [
                describe_answer(lang, request.payload, parse_reply(c, request.payload, view, lang), names)
                for c in expected
            ]
            buttons = re.findall(r'<a [^>]*href="[^"]+/do\?[^"]+"[^>]*>([^<]+)</a>', html_of(message))
            assert [html.unescape(b) for b in buttons] == [w[:1].upper() + w[1:] for w in words]
            headline = request_headline(lang, request.payload)
            assert re.fullmatch(rf".+: {re.escape(headline)} — \w+ \S+ \d\d:\d\d", message["Subject"])
            for command, url in links.items():
                query = parse_qs(urlsplit(url).query)
                assert query == {"w": [str(window.number)], "c": [command]}
                assert urlsplit(url).path.endswith("/do")
                parse_reply(query["c"][0], request.payload, view, lang)  # a legal answer
            kinds.add(request.kind)
        if open_window(db, created.game_id) is None:
            break
        now += dt.timedelta(hours=1)
        ids = play_window(db, created.game_id, seed=step, now=now)
    assert {"place", "vote"} <= kinds, kinds


def test_one_thread_per_seat_and_events_are_told_once(stack: Stack) -> None:
    """The first mail of a seat starts its thread, later ones refer to it; each tells only the events of the seat's
    view after the last mail that was sent (a failed send tells nothing)."""
    db = stack.db
    settings = mail_settings(stack.settings)
    created = create_tagged(db, 3, seed=5)
    first = turn_rows(db, outbox_ids(db, created.game_id))[0]
    assert first.seat_id is not None
    seat = seat_of(db, first.seat_id)
    host = "deadmail.example"
    root = f"<deadmail.game-{created.game_id}.seat-{seat.id}@{host}>"

    assert send_one(db, first.id, Sink(refuse=True), settings, T0) == "retry"
    assert seat_of(db, seat.id).told_events is None  # not sent: nothing told
    sink = Sink()
    at = T0 + claims.backoff(1)
    assert send_one(db, first.id, sink, settings, at) == "sent"
    (mail1,) = sink.sent
    assert mail1["Message-ID"] == root
    assert mail1["In-Reply-To"] is None and mail1["References"] is None
    told = seat_of(db, seat.id).told_events
    assert told == len(view_events(db, created.game_id, seat.colour)) > 0

    now, mine = T0, []
    for step in range(6):  # play on until this seat gets its next mail
        now += dt.timedelta(hours=1)
        ids = play_window(db, created.game_id, seed=step, now=now)
        mine = [r for r in rows_of(db, ids) if r.seat_id == seat.id]
        if mine:
            break
    assert mine
    assert send_one(db, mine[0].id, sink, settings, now) == "sent"
    mail2 = sink.sent[-1]
    assert mail2["Message-ID"] != root and mail2["Message-ID"].endswith(f"@{host}>")
    assert mail2["In-Reply-To"] == root and mail2["References"] == root
    for header in ("Date", "Auto-Submitted", "List-Unsubscribe", "From", "To", "Subject"):
        assert mail2[header], header
    assert mail2["Auto-Submitted"] == "auto-generated"
    assert mail2["List-Unsubscribe"].startswith(f"<{stack.settings.base_url}/unsubscribe/")
    assert mail2["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    events = view_events(db, created.game_id, seat.colour)
    names = table_names(db, created.game_id)
    lines = [event_text("en", ev, seat.colour, names) for ev in events]
    before, after = [line for line in lines[:told] if line], [line for line in lines[told:] if line]
    assert before and after
    assert event_lines(text_of(mail1)) == before
    assert event_lines(text_of(mail2)) == after
    assert seat_of(db, seat.id).told_events == len(events)


def test_the_deadline_is_given_in_each_readers_zone_absolute_and_relative(embedded: Stack) -> None:
    db = embedded.db
    prefs = {0: {"timezone": "Europe/Warsaw"}, 1: {"timezone": "America/Los_Angeles"}, 2: {"language": "pl"}}
    created = create_tagged(db, 3, seed=8, prefs=prefs)
    now = T0 + dt.timedelta(hours=17)
    texts = {}
    deadlines = set()
    for row in turn_rows(db, outbox_ids(db, created.game_id)):
        message = compose(db, row.id, mail_settings(embedded.settings), now=now)
        assert message is not None and row.seat_id is not None
        player = player_of(db, row.seat_id)
        found = request_of(db, row.seat_id)
        assert found is not None
        deadlines.add(found[0].deadline)
        absolute, relative = i18n.format_when(found[0].deadline, now, player.timezone, player.language)
        text, html = text_of(message), html_of(message)
        assert absolute in text and relative in text and absolute in html
        texts[player.timezone if player.language == "en" else "pl"] = (absolute, relative, text)
    assert deadlines == {T0 + dt.timedelta(hours=24)}
    # 12:00 UTC on 5 March 2031: winter time in both zones (the US changes on 9 March, Poland on 30 March)
    assert texts["Europe/Warsaw"][:2] == ("Wednesday, 5 March 2031 at 13:00 CET", "in 7 hours")
    assert texts["America/Los_Angeles"][:2] == ("Wednesday, 5 March 2031 at 04:00 PST", "in 7 hours")
    assert texts["pl"][0] != texts["Europe/Warsaw"][0] and "UTC" in texts["pl"][0]


def test_the_html_part_has_its_css_inlined(embedded: Stack) -> None:
    created = create_tagged(embedded.db, 3, seed=2)
    first = outbox_ids(embedded.db, created.game_id)[0]
    message = compose(embedded.db, first, mail_settings(embedded.settings), now=T0)
    assert message is not None
    html = html_of(message)
    assert "<style" not in html
    assert re.search(r'<a [^>]*style="[^"]*background: ?#1f5f3a', html)
    assert re.search(r'<table [^>]*style="[^"]*border-collapse', html)
    assert message.get_content_type() == "multipart/alternative"


def test_the_reply_to_is_signed_for_the_seat_and_window(embedded: Stack) -> None:
    db = embedded.db
    settings = mail_settings(embedded.settings)
    created = create_tagged(db, 3, seed=3)
    rows = turn_rows(db, outbox_ids(db, created.game_id))
    for row in rows:
        message = compose(db, row.id, settings, now=T0)
        assert message is not None and row.seat_id is not None
        seat = seat_of(db, row.seat_id)
        got = reply_address.read(settings.secret_key, REPLY_DOMAIN, message["Reply-To"])
        assert got == reply_address.ReplyTo(seat.id, row.payload["window"], seat.link_generation)
        with pytest.raises(reply_address.ReplyAddressError):
            reply_address.read("another-secret", REPLY_DOMAIN, message["Reply-To"])
    no_domain = compose(db, rows[0].id, mail_settings(embedded.settings, ""), now=T0)
    assert no_domain is not None and no_domain["Reply-To"] is None
    assert HEADING in text_of(no_domain)  # the commands are listed all the same


# --- stale rows, updates, reminders, digests, replies ---------------------------------------------------------------


def test_a_turn_mail_for_a_closed_window_is_skipped_when_a_newer_mail_tells_the_rest(embedded: Stack) -> None:
    db = embedded.db
    settings = mail_settings(embedded.settings)
    created = create_tagged(db, 3, seed=4)
    old = turn_rows(db, outbox_ids(db, created.game_id))[0]
    now, newer = T0, []
    for step in range(6):
        now += dt.timedelta(hours=1)
        newer = [r for r in rows_of(db, play_window(db, created.game_id, step, now)) if r.seat_id == old.seat_id]
        if newer:
            break
    assert newer
    sink = Sink()
    assert send_one(db, old.id, sink, settings, now) == "skipped"
    assert sink.sent == [] and rows_of(db, [old.id])[0].status == "skipped"
    assert send_one(db, newer[0].id, sink, settings, now) == "sent"
    (mail,) = sink.sent
    lines = event_lines(text_of(mail))
    assert any("rolls" in line for line in lines)  # the setup events of the skipped mail are told here


def test_a_reminder_lists_what_is_still_owed_and_nothing_once_answered(embedded: Stack) -> None:
    db = embedded.db
    settings = mail_settings(embedded.settings)
    created = create_tagged(db, 3, seed=6)
    row = turn_rows(db, outbox_ids(db, created.game_id))[0]
    seat_id = row.seat_id
    assert seat_id is not None
    found = request_of(db, seat_id)
    assert found is not None
    window, request = found
    with db.session() as session:
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
    later = T0 + dt.timedelta(hours=12)
    message = compose(db, reminder_id, settings, now=later)
    assert message is not None
    assert message["Subject"].startswith("Reminder: ")
    text = text_of(message)
    view = engine.view(engine_of(db, created.game_id), seat_of(db, seat_id).colour)
    assert listed(text, HEADING) == commands_for(request.payload, view, "en")
    assert "in 12 hours" in text
    assert reply_address.read(settings.secret_key, REPLY_DOMAIN, message["Reply-To"]).seat_id == seat_id

    value = parse_reply(listed(text, HEADING)[0], request.payload, view, "en")
    turns.submit_answer(db, seat_id, request.kind, value, now=T0 + dt.timedelta(hours=1))
    assert compose(db, reminder_id, settings, now=later) is None
    assert send_one(db, reminder_id, Sink(), settings, later) == "skipped"


def test_a_digest_tells_each_game_and_a_reminder_of_two_games_has_no_reply_to(stack: Stack) -> None:
    db = stack.db
    settings = mail_settings(stack.settings)
    a = create_tagged(db, 3, seed=21, prefs={0: {"mail_mode": "digest"}})
    b = create_tagged(db, 3, seed=22, tag=21)  # the same three people in a second game
    with db.session() as session:  # p0 reads a digest: their turn mails of both games are held
        held = list(session.execute(sa.select(Outbox).where(Outbox.status == "held")).scalars())
        assert len(held) == 2 and {r.game_id for r in held} == {a.game_id, b.game_id}
        player_id = held[0].player_id
        digest = Outbox(key="digest:test", player_id=player_id, kind="digest", payload={"rows": [r.id for r in held]})
        session.add(digest)
        session.flush()
        digest_id = digest.id
    message = compose(db, digest_id, settings, now=T0)
    assert message is not None and message["Subject"] == "Your digest: news from 2 games"
    text = text_of(message)
    assert re.findall(r"^== Mall of Horror, game (\d+) ", text, re.M) == [str(a.game_id), str(b.game_id)]
    assert message["Reply-To"] is None  # two decisions listed: a reply could not say which
    assert HEADING not in text and len(one_tap_links(html_of(message))) >= 2
    with db.session() as session:
        session.execute(sa.update(Outbox).where(Outbox.id == digest_id).values(next_attempt_at=T0))
        seats = session.execute(sa.select(Seat.game_id, Seat.colour).where(Seat.player_id == player_id)).all()
        colours = {game_id: colour for game_id, colour in seats}
    assert [told_of(db, g.game_id, player_id) for g in (a, b)] == [None, None]
    assert send_one(db, digest_id, Sink(), settings, T0) == "sent"
    for created in (a, b):  # both games' events are told
        events = view_events(db, created.game_id, colours[created.game_id])
        assert told_of(db, created.game_id, player_id) == len(events) > 0

    # p1 owes a decision in both games: one reminder across both has no Reply-To, and each decision has its links
    with db.session() as session:
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
    message = compose(db, reminder_id, settings, now=T0)
    assert message is not None and message["Subject"] == "Reminder: 2 decisions are waiting for you"
    assert message["Reply-To"] is None and message["In-Reply-To"] is None
    text = text_of(message)
    assert HEADING not in text
    assert re.findall(r"^== Mall of Horror, game (\d+) ", text, re.M) == [str(a.game_id), str(b.game_id)]
    links = re.findall(r"/s/([\w.-]+)/do\?w=", text)
    assert len(set(links)) == 2  # each game's decisions link to its own seat


@pytest.mark.parametrize("result", ["applied", "error", "closed", "wrong_sender"])
def test_the_answer_to_a_reply_by_mail(embedded: Stack, result: str) -> None:
    db = embedded.db
    created = create_tagged(db, 3, seed=9)
    row = turn_rows(db, outbox_ids(db, created.game_id))[0]
    seat_id = row.seat_id
    assert seat_id is not None
    found = request_of(db, seat_id)
    assert found is not None
    window, request = found
    view = engine.view(engine_of(db, created.game_id), seat_of(db, seat_id).colour)
    commands = commands_for(request.payload, view, "en")
    command = {"applied": commands[0], "error": "DANCE <b>WILDLY</b>", "closed": commands[0]}.get(result, "")
    if result == "applied":
        turns.submit_answer(db, seat_id, request.kind, parse_reply(command, request.payload, view, "en"), now=T0)
    with db.session() as session:
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
    message = compose(db, reply_id, mail_settings(embedded.settings), now=T0)
    assert message is not None
    text, html = text_of(message), html_of(message)
    if result == "applied":
        meaning = describe_answer("en", request.payload, parse_reply(command, request.payload, view, "en"))
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
        assert message["To"].endswith(f"<{player_of(db, seat_id).email}>")
    assert message["In-Reply-To"] == f"<deadmail.game-{created.game_id}.seat-{seat_id}@deadmail.example>"
