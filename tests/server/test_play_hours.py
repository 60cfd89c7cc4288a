"""Play hours through the server, on both databases with an injected clock: deadlines in and out
of a session, the session reminder (once per game, seat and day, in the reader's language and zone), turn mails
dropped when answered on the page during a session, who is on their page now, and the settings on create."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from server.db import Database
from server.mail.send import send_one
from server.models import Game, MailKind, OutboxStatus, RequestRow, Seat, Window, utcnow
from server.services.mailflow import reminders
from server.services.play import games, seats, turns
from server.services.tempo import parse_deadlines, parse_play_hours
from tests.conftest import Stack
from tests.support import (
    AUTH,
    Sink,
    add_player,
    compose,
    open_window,
    play_window,
    requests_in,
    rows_of_kind,
    seat_ids,
    text_of,
    utc,
)

from .test_api_cli import cli_env, run
from .test_last_call import answer

PEOPLE = ("Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>")
#: 20:30-22:00 in Rome; in February (CET) that is 19:30-21:00 UTC.
EVENINGS = parse_play_hours("Mon-Sun 20:30-22:00 Europe/Rome", "10m")
IN_SESSION = utc(2026, 2, 3, 20)  # 21:00 in Rome
OUTSIDE = utc(2026, 2, 3, 10)
SESSION_START = utc(2026, 2, 3, 19, 30)


def spec(play_hours: dict[str, Any] | None = EVENINGS) -> games.GameSpec:
    return games.GameSpec(
        players=[games.parse_player(p) for p in PEOPLE],
        deadlines=parse_deadlines(["24h"]),
        play_hours=play_hours,
        seed=7,
    )


def test_a_window_opened_in_a_session_has_the_short_deadline_one_opened_outside_waits(stack: Stack) -> None:
    db = stack.db
    inside = games.create_game(db, spec(), now=IN_SESSION).game_id
    assert open_window(db, inside).deadline == IN_SESSION + timedelta(minutes=10)  # type: ignore[union-attr]
    outside = games.create_game(db, spec(), now=OUTSIDE).game_id
    assert open_window(db, outside).deadline == SESSION_START + timedelta(minutes=10)  # type: ignore[union-attr]
    # quiet hours covering the session do not move it (the session is the agreed time)
    add_player(db, "dan@example.org", timezone="Europe/Rome", quiet_start="20:00", quiet_end="23:00")
    sleepy = games.GameSpec(
        players=[games.parse_player(p) for p in (*PEOPLE[:2], "Dan <dan@example.org>")], play_hours=EVENINGS, seed=7
    )
    game_id = games.create_game(db, sleepy, now=OUTSIDE).game_id
    assert open_window(db, game_id).deadline == SESSION_START + timedelta(minutes=10)  # type: ignore[union-attr]


def test_turn_mails_answered_on_the_page_during_a_session_are_not_sent(stack: Stack) -> None:
    db = stack.db
    game_id = games.create_game(db, spec(), now=IN_SESSION).game_id
    turn = {row.seat_id: row for row in rows_of_kind(db, MailKind.TURN)}
    assert len(turn) == 3
    due = IN_SESSION + timedelta(minutes=5)  # min(5 minutes, half the 10-minute deadline)
    assert {row.next_attempt_at for row in turn.values()} == {due}
    assert all(row.payload == {"window": 1, "unless_answered": True} for row in turn.values())
    answer(db, game_id, "yellow", IN_SESSION + timedelta(minutes=1))  # Ann answers on her page
    ids = seat_ids(db, game_id)
    sink = Sink()
    assert send_one(db, turn[ids["yellow"]].id, sink, stack.settings, IN_SESSION) == "skipped"  # not due yet
    assert send_one(db, turn[ids["yellow"]].id, sink, stack.settings, due) == "skipped"
    assert send_one(db, turn[ids["red"]].id, sink, stack.settings, due) == "sent"
    statuses = {row.seat_id: row.status for row in rows_of_kind(db, MailKind.TURN)}
    assert statuses[ids["yellow"]] == OutboxStatus.SKIPPED
    assert statuses[ids["red"]] == OutboxStatus.SENT
    assert len(sink.sent) == 1


def test_turn_mails_outside_a_session_go_at_once(stack: Stack) -> None:
    db = stack.db
    games.create_game(db, spec(), now=OUTSIDE)
    rows = rows_of_kind(db, MailKind.TURN)
    assert {(row.next_attempt_at, str(row.payload)) for row in rows} == {(OUTSIDE, "{'window': 1}")}
    games.create_game(db, spec(play_hours=None), now=IN_SESSION)
    assert {r.next_attempt_at for r in rows_of_kind(db, MailKind.TURN)} == {OUTSIDE, IN_SESSION}


def test_a_session_reminder_goes_15_minutes_before_once_per_seat_and_day(stack: Stack) -> None:
    db = stack.db
    add_player(db, "bob@example.org", timezone="America/New_York", language="it")
    game_id = games.create_game(db, spec(), now=OUTSIDE).game_id
    games.create_game(db, spec(play_hours=None), now=OUTSIDE)  # no play hours: never reminded
    assert reminders.plan_session_reminders(db, SESSION_START - timedelta(minutes=16)) == []
    first = reminders.plan_session_reminders(db, SESSION_START - timedelta(minutes=15))
    assert len(first) == 3
    assert reminders.plan_session_reminders(db, SESSION_START - timedelta(minutes=5)) == []  # once
    assert reminders.plan_session_reminders(db, SESSION_START) == []  # the session has begun
    rows = rows_of_kind(db, MailKind.SESSION)
    assert {row.game_id for row in rows} == {game_id}
    assert {row.key.rsplit(":", 1)[1] for row in rows} == {"2026-02-03"}
    # the next day's session: its own reminder
    tomorrow = SESSION_START + timedelta(days=1) - timedelta(minutes=10)
    assert len(reminders.plan_session_reminders(db, tomorrow)) == 3
    # Bob reads it in Italian, at his own time (14:30 in New York)
    ids = seat_ids(db, game_id)
    bob = next(r for r in rows if r.seat_id == ids["red"])
    message = compose(db, bob.id, stack.settings, SESSION_START - timedelta(minutes=15))
    assert message is not None
    assert "14:30" in str(message["Subject"]) and "sessione" in str(message["Subject"])
    assert "/s/" in text_of(message)
    sink = Sink()
    assert send_one(db, bob.id, sink, stack.settings, SESSION_START - timedelta(minutes=14)) == "sent"


def test_who_is_on_their_page_now(stack: Stack) -> None:
    db = stack.db
    game_id = games.create_game(db, spec(), now=OUTSIDE).game_id
    ids = seat_ids(db, game_id)
    outside = seats.visit(db, ids["yellow"], OUTSIDE)
    assert (outside.poll, outside.session_end, outside.here) == (seats.POLL_OTHERWISE, None, ())
    with db.session() as session:  # outside a session a visit writes nothing
        assert session.get(Seat, ids["yellow"]).seen_at is None  # type: ignore[union-attr]
    now = IN_SESSION
    assert seats.visit(db, ids["yellow"], now).here == ("yellow",)
    visit = seats.visit(db, ids["red"], now + timedelta(seconds=2))
    expected = (seats.POLL_IN_SESSION, utc(2026, 2, 3, 21), ("yellow", "red"))
    assert (visit.poll, visit.session_end, visit.here) == expected
    # writes are throttled: a visit 5 s later does not move the time seen
    seats.visit(db, ids["yellow"], now + timedelta(seconds=5))
    with db.session() as session:
        assert session.get(Seat, ids["yellow"]).seen_at == now  # type: ignore[union-attr]
    # Ann stops polling: 16 s after her last recorded visit she is no longer shown
    assert seats.visit(db, ids["red"], now + timedelta(seconds=16)).here == ("red",)


# --- players absent from a session --------------------------------------------------------------------------------

NEXT_SESSION_DEADLINE = utc(2026, 2, 4, 19, 40)  # the next evening's 20:30 in Rome, plus the 10 minutes


def window_row(db: Database, game_id: int) -> Any:
    window = open_window(db, game_id)
    assert window is not None
    return window


def test_a_session_deadline_waits_once_for_players_absent_from_the_session(stack: Stack) -> None:
    """Ann answers on her page, Bob is on his page but does not answer, Cy never comes: at the 10 minutes the window
    waits for Cy until the next session (Cy is told by mail, nobody else); then Bob and Cy get the default."""
    db = stack.db
    game_id = games.create_game(db, spec(), now=IN_SESSION).game_id
    ids = seat_ids(db, game_id)
    first = window_row(db, game_id)
    assert len(first.requests) == 3
    seats.visit(db, ids["yellow"], IN_SESSION + timedelta(minutes=1))
    answer(db, game_id, "yellow", IN_SESSION + timedelta(minutes=1))
    seats.visit(db, ids["red"], IN_SESSION + timedelta(minutes=2))
    due = IN_SESSION + timedelta(minutes=10)
    assert not turns.advance_window(db, first.id, now=due)  # waits for Cy
    window = window_row(db, game_id)
    assert (window.number, window.deadline, window.extended_at) == (first.number, NEXT_SESSION_DEADLINE, due)
    (told,) = rows_of_kind(db, MailKind.LAST_CALL)
    assert (told.seat_id, told.payload) == (ids["blue"], {"window": first.number, "absent": True})
    message = compose(db, told.id, stack.settings, due)
    assert message is not None
    assert "the table is waiting for you" in str(message["Subject"])
    assert "not at the session" in text_of(message)
    # waits once: at the next session's deadline the two missing answers get the default
    assert not turns.advance_window(db, first.id, now=NEXT_SESSION_DEADLINE - timedelta(seconds=1))
    assert turns.advance_window(db, first.id, now=NEXT_SESSION_DEADLINE)
    colours = {seat_id: colour for colour, seat_id in ids.items()}
    defaulted = {colours[r.seat_id]: r.defaulted for r in requests_in(db, first.id)}
    assert defaulted == {"yellow": False, "red": True, "blue": True}
    assert len(rows_of_kind(db, MailKind.LAST_CALL)) == 1


def test_an_absent_player_answers_by_mail_while_the_table_waits(stack: Stack) -> None:
    db = stack.db
    game_id = games.create_game(db, spec(), now=IN_SESSION).game_id
    ids = seat_ids(db, game_id)
    first = window_row(db, game_id)
    for colour in ("yellow", "red"):
        seats.visit(db, ids[colour], IN_SESSION + timedelta(minutes=1))
        answer(db, game_id, colour, IN_SESSION + timedelta(minutes=1))
    due = IN_SESSION + timedelta(minutes=10)
    assert not turns.advance_window(db, first.id, now=due)
    late = utc(2026, 2, 4, 8)  # Cy answers the next morning (by mail or on the page: the same submit)
    answer(db, game_id, "blue", late)
    assert turns.advance_window(db, first.id, now=late)
    with db.session() as session:
        assert not session.execute(
            sa.select(RequestRow.id).where(RequestRow.window_id == first.id, RequestRow.defaulted.is_(True))
        ).first()


def test_players_at_the_table_who_do_not_answer_get_the_default_at_once(stack: Stack) -> None:
    db = stack.db
    game_id = games.create_game(db, spec(), now=IN_SESSION).game_id
    ids = seat_ids(db, game_id)
    first = window_row(db, game_id)
    for colour in ("yellow", "red", "blue"):  # everyone on their page since the window opened
        seats.visit(db, ids[colour], IN_SESSION + timedelta(minutes=1))
    answer(db, game_id, "yellow", IN_SESSION + timedelta(minutes=2))
    assert turns.advance_window(db, first.id, now=IN_SESSION + timedelta(minutes=10))
    assert rows_of_kind(db, MailKind.LAST_CALL) == []
    # a visit before the window opened does not count as being at the table for it
    other = games.create_game(db, spec(), now=IN_SESSION).game_id
    other_ids = seat_ids(db, other)
    with db.session() as session:
        session.execute(
            sa.update(Seat).where(Seat.id.in_(other_ids.values())).values(seen_at=IN_SESSION - timedelta(minutes=1))
        )
    assert not turns.advance_window(db, window_row(db, other).id, now=IN_SESSION + timedelta(minutes=10))
    # and a game without play hours never waits
    plain = games.create_game(db, spec(play_hours=None), now=IN_SESSION).game_id
    window = window_row(db, plain)
    assert turns.advance_window(db, window.id, now=window.deadline)


# --- the settings, on create ------------------------------------------------------------------------------------


def test_play_hours_and_last_call_through_the_api(embedded: Stack) -> None:
    client = embedded.client
    body = {"players": list(PEOPLE), "last_call": "4h", "play_hours": "Mon-Fri 20:30-22:00 Europe/Rome"}
    reply = client.post("/api/games", json={**body, "play_deadline": "5m"}, headers=AUTH)
    assert reply.status_code == 201, reply.json
    status = client.get(f"/api/games/{reply.json['id']}", headers=AUTH).json
    assert status["tempo"]["last_call"] == 4 * 3600
    assert status["tempo"]["play_hours"] == {
        "zone": "Europe/Rome",
        "days": [0, 1, 2, 3, 4],
        "start": "20:30",
        "end": "22:00",
        "deadline": 300,
    }
    as_object = client.post("/api/games", json={**body, "play_hours": status["tempo"]["play_hours"]}, headers=AUTH)
    assert as_object.status_code == 201
    for bad, message in (
        ({"last_call": "soon"}, "'soon' is not a duration"),
        ({"last_call": 3600}, "last_call is a duration"),
        ({"play_hours": "evenings"}, "are not play hours such as Mon-Sun 20:30-22:00 Europe/Rome"),
        ({"play_hours": {"zone": "UTC"}}, "play hours are"),
        ({"play_deadline": 5}, "play_deadline is a duration"),
    ):
        refused = client.post("/api/games", json={**body, **bad}, headers=AUTH)
        assert refused.status_code in (400, 422), bad
        assert message in str(refused.json), (bad, refused.json)


def test_play_hours_on_the_command_line(embedded: Stack) -> None:
    env = cli_env(embedded)
    args = ["game", "create", "--json", *[f"--player={p}" for p in PEOPLE], "--last-call", "2h"]
    args += ["--play-hours", "Mon-Sun 20:30-22:00 Europe/Rome", "--play-deadline", "10m"]
    done = run(env, *args)
    assert done.exit_code == 0, done.output
    with embedded.db.session() as session:
        (game,) = session.execute(sa.select(Game)).scalars()
        assert (game.tempo["last_call"], game.tempo["play_hours"]) == (7200, EVENINGS)
    bad = run(env, *args[:-4], "--play-hours", "Mon-Sun 8-9 UTC")
    assert bad.exit_code != 0 and "are not play hours such as" in bad.output


def test_the_seat_page_polls_fast_and_shows_who_is_here_during_a_session(embedded: Stack) -> None:
    """The web's own clock: play hours around now (one hour either side, in UTC)."""
    now = utcnow()
    start, end = (now - timedelta(hours=1)).strftime("%H:%M"), (now + timedelta(hours=1)).strftime("%H:%M")
    around = parse_play_hours(f"daily {start}-{end} UTC", "10m")
    links = {}
    for play_hours in (around, None):
        body = {"players": list(PEOPLE), "play_hours": play_hours}
        reply = embedded.client.post("/api/games", json=body, headers=AUTH)
        assert reply.status_code == 201
        links[play_hours is not None] = [s["link"].split("/s/")[1] for s in reply.json["seats"]]
    page = embedded.client.get(f"/s/{links[True][0]}").get_data(as_text=True)
    assert 'hx-trigger="refresh, every 3s"' in page
    assert '<meta http-equiv="refresh" content="15">' in page  # without JavaScript, inside <noscript>
    embedded.client.get(f"/s/{links[True][1]}/live")
    live = embedded.client.get(f"/s/{links[True][0]}/live").get_data(as_text=True)
    assert "On their page now: Yellow, Red." in " ".join(live.split())
    quiet = embedded.client.get(f"/s/{links[False][0]}").get_data(as_text=True)
    assert 'hx-trigger="refresh, every 30s"' in quiet and 'http-equiv="refresh"' not in quiet
    assert "On their page now" not in quiet


def _card_window_with_one_away(db: Database, **away: Any) -> tuple[int, Window]:
    """A session's card window asking some but not all (those asked are on their pages and stay silent); the seat
    not asked is away from the session, its row updated with ``away``: (game, window)."""
    for seed in range(1, 60):
        game_id = games.create_game(db, dataclasses.replace(spec(), seed=seed), now=IN_SESSION).game_id
        ids = seat_ids(db, game_id)
        for step in range(40):
            window = open_window(db, game_id)
            if window is None:
                break
            asked = {r.seat.colour for r in window.requests if r.answered_at is None}
            secret = all(r.secret for r in window.requests)
            if secret and asked and len(asked) < 3 and window.completed_at is None:
                for colour in asked:  # everyone asked is at the table and stays silent
                    seats.visit(db, ids[colour], max(IN_SESSION + timedelta(minutes=1), window.opened_at))
                other = next(c for c in ("yellow", "red", "blue") if c not in asked)
                with db.session() as session:
                    session.execute(sa.update(Seat).where(Seat.id == ids[other]).values(seen_at=None, **away))
                return game_id, window
            play_window(db, game_id, seed * 100 + step, IN_SESSION)
    pytest.fail("no card window asking some but not all in 60 games")


@pytest.mark.rule("B-INFO")
def test_a_window_asked_in_secret_waits_for_anyone_away_not_only_for_those_asked_B_INFO(stack: Stack) -> None:
    """Waiting only when an absent player was asked would tell the table that they hold a card."""
    game_id, window = _card_window_with_one_away(stack.db)
    assert not turns.advance_window(stack.db, window.id, now=window.deadline)
    assert open_window(stack.db, game_id).extended_at is not None  # type: ignore[union-attr]
    assert rows_of_kind(stack.db, MailKind.LAST_CALL) == []  # nobody asked is away: nobody is told


def test_a_seat_on_autopilot_away_from_the_session_does_not_make_a_window_wait(stack: Stack) -> None:
    """Its being on autopilot is public, and its requests are answered at once: waiting for it is waiting for
    nobody."""
    _game_id, window = _card_window_with_one_away(stack.db, autopilot_at=IN_SESSION)
    assert turns.advance_window(stack.db, window.id, now=window.deadline)  # the defaults, no wait
