"""Calendar feeds: a player's ICS feed at a revocable secret address, parsed back with ``icalendar`` as a
calendar client would: every property Google, Apple and Thunderbird need, stable UIDs, a moved deadline replacing
its event with a higher SEQUENCE, the reader's own decisions only, in their language; and the pure builder's league
round starts."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest.mock import patch

import pytest
import sqlalchemy as sa
from icalendar import Calendar
from itsdangerous import TimestampSigner, URLSafeTimedSerializer

from engine.bots import RandomBot
from server.db import Database
from server.models import Player, RequestRow, Seat, Window
from server.present.calendar import ALARM, EVENT_LENGTH, league_calendar, player_calendar
from server.services import calendar
from server.services.calendar import Deadline, Feed, RoundStart
from server.services.links import CALENDAR_SALT, calendar_token, player_token
from server.services.play import organise, turns
from tests.conftest import Stack
from tests.support import T0, create, engine_of, open_window, player_of, post_form, seat_ids


def fetch(stack: Stack, token: str) -> Calendar:
    reply = stack.client.get(f"/calendar/{token}.ics")
    assert reply.status_code == 200
    assert reply.headers["Content-Type"] == "text/calendar; charset=utf-8"
    assert reply.headers["Content-Disposition"].startswith("inline")
    assert reply.headers["Cache-Control"] == "no-store"  # a secret address: kept by no cache
    return Calendar.from_ical(reply.get_data())


def events(cal: Calendar) -> dict[str, Any]:
    return {str(event["UID"]): event for event in cal.walk("VEVENT")}


def owed(db: Database, player_id: int) -> dict[int, datetime]:
    """Each seat of the player that owes an unanswered decision in an open window, and its deadline."""
    with db.session() as session:
        rows = session.execute(
            sa.select(RequestRow.seat_id, Window.deadline)
            .join(Window, Window.id == RequestRow.window_id)
            .join(Seat, Seat.id == RequestRow.seat_id)
            .where(Window.status == "open", Seat.player_id == player_id, RequestRow.answered_at.is_(None))
        ).all()
        return {seat_id: deadline for seat_id, deadline in rows}


def two_games(stack: Stack) -> tuple[list[int], int, int]:
    """Two 3-player games of the same people (P0, P1, P2): their ids, P0's and P1's player ids."""
    games = [create(stack.db, 3, 5).game_id, create(stack.db, 3, 6).game_id]
    p0 = player_of(stack.db, seat_ids(stack.db, games[0])["yellow"]).id
    p1 = player_of(stack.db, seat_ids(stack.db, games[0])["red"]).id
    return games, p0, p1


def test_the_feed_lists_each_decision_the_player_owes_with_what_calendars_need(stack: Stack) -> None:
    games, p0, _p1 = two_games(stack)
    expected = owed(stack.db, p0)
    assert len(expected) == 2  # one decision in each game
    token = calendar.address(stack.db, stack.settings.secret_key, p0)

    cal = fetch(stack, token)

    assert str(cal["VERSION"]) == "2.0" and "deadmail" in str(cal["PRODID"])
    assert str(cal["METHOD"]) == "PUBLISH"
    assert str(cal["X-WR-CALNAME"]) == "deadmail: your deadlines"
    assert "X-WR-TIMEZONE" not in cal  # every time is UTC
    found = events(cal)
    assert len(found) == 2 and len(list(cal.walk("VEVENT"))) == 2  # UIDs unique
    seats = {}
    for uid, event in found.items():
        start, end, stamp = event.decoded("DTSTART"), event.decoded("DTEND"), event.decoded("DTSTAMP")
        for instant in (start, end, stamp):
            assert instant.utcoffset() == timedelta(0)
        assert "Z" in event["DTSTART"].to_ical().decode() and "Z" in event["DTEND"].to_ical().decode()
        assert end - start == EVENT_LENGTH
        # no seat link: revoking a seat's links must not be undone by the calendar's next fetch
        assert str(event["URL"]) == stack.settings.base_url + "/" and "/s/" not in str(event["DESCRIPTION"])
        seat_id = int(uid.split("@")[0].rsplit("-", 1)[1])
        seats[seat_id] = end
        assert uid.startswith("deadline-") and f"-{seat_id}@" in uid
        assert int(event["SEQUENCE"]) == 0
        assert "Mall of Horror, game" in str(event["SUMMARY"]) and "answer by" in str(event["SUMMARY"])
        (alarm,) = event.walk("VALARM")
        assert str(alarm["ACTION"]) == "DISPLAY" and str(alarm["DESCRIPTION"]) == str(event["SUMMARY"])
        assert start + alarm.decoded("TRIGGER") == end - ALARM  # the alarm goes off ALARM before the deadline
    assert seats == expected  # the deadline is the event's end
    assert events(fetch(stack, token)).keys() == found.keys()  # stable across fetches
    assert {f"Mall of Horror, game {game}" in str(e["SUMMARY"]) for game in games for e in found.values()} == {
        True,
        False,
    }


def test_nothing_of_another_players_seats_appears(stack: Stack) -> None:
    _games, p0, p1 = two_games(stack)
    secret = stack.settings.secret_key
    mine = events(fetch(stack, calendar.address(stack.db, secret, p0)))
    theirs = events(fetch(stack, calendar.address(stack.db, secret, p1)))

    assert set(owed(stack.db, p1)) and not set(owed(stack.db, p1)) & set(owed(stack.db, p0))
    assert not mine.keys() & theirs.keys()
    for found, player in ((mine, p0), (theirs, p1)):
        listed = {int(uid.split("@")[0].rsplit("-", 1)[1]) for uid in found}  # deadline-<game>-<window>-<seat>@…
        assert listed == set(owed(stack.db, player))


def test_a_moved_deadline_keeps_its_uid_with_a_later_time_and_a_higher_sequence(stack: Stack) -> None:
    games, p0, _p1 = two_games(stack)
    token = calendar.address(stack.db, stack.settings.secret_key, p0)
    before = events(fetch(stack, token))

    moved = organise.extend_deadline(stack.db, games[0], by=timedelta(hours=3), now=T0)

    after = events(fetch(stack, token))
    assert after.keys() == before.keys()
    changed = [uid for uid in after if after[uid].decoded("DTEND") != before[uid].decoded("DTEND")]
    assert len(changed) == 1
    (uid,) = changed
    assert after[uid].decoded("DTEND") == moved == before[uid].decoded("DTEND") + timedelta(hours=3)
    assert int(after[uid]["SEQUENCE"]) == int(before[uid]["SEQUENCE"]) + 1
    other = next(u for u in after if u != uid)
    assert int(after[other]["SEQUENCE"]) == 0  # the other game's deadline did not move

    organise.extend_deadline(stack.db, games[0], by=timedelta(hours=1), now=T0)
    assert int(events(fetch(stack, token))[uid]["SEQUENCE"]) == 2


def test_an_answered_decision_leaves_the_feed(embedded: Stack) -> None:
    games, p0, _p1 = two_games(embedded)
    token = calendar.address(embedded.db, embedded.settings.secret_key, p0)
    seat = seat_ids(embedded.db, games[0])["yellow"]
    assert any(f"-{seat}@" in uid for uid in events(fetch(embedded, token)))
    window = open_window(embedded.db, games[0])
    assert window is not None
    row = next(r for r in window.requests if r.seat_id == seat)
    eng = engine_of(embedded.db, games[0])
    req = next(r for r in eng.pending() if r.player == "yellow")
    turns.submit_answer(embedded.db, seat, row.kind, RandomBot(1).decide(eng, req), now=T0)

    assert not any(f"-{seat}@" in uid for uid in events(fetch(embedded, token)))


@pytest.mark.parametrize(
    ("lang", "words", "name"),
    [
        ("en", ("Mall of Horror, game", "answer by"), "deadmail: your deadlines"),
        ("it", ("Mall of Horror, partita", "rispondi entro"), "deadmail: le tue scadenze"),
        ("pl", ("Mall of Horror", "termin odpowiedzi"), "deadmail: twoje terminy"),
    ],
)
def test_the_feed_speaks_the_players_language(embedded: Stack, lang: str, words: tuple[str, str], name: str) -> None:
    _games, p0, _p1 = two_games(embedded)
    with embedded.db.session() as session:
        player = session.get(Player, p0)
        assert player is not None
        player.language, player.timezone = lang, "Europe/Warsaw"

    cal = fetch(embedded, calendar.address(embedded.db, embedded.settings.secret_key, p0))

    assert str(cal["X-WR-CALNAME"]) == name
    for event in cal.walk("VEVENT"):
        summary = str(event["SUMMARY"])
        assert all(word in summary for word in words)
        assert "CET" in summary  # the deadline written in the player's zone; the event itself is in UTC


def test_a_new_address_revokes_the_old_one_alone(stack: Stack) -> None:
    _games, p0, _p1 = two_games(stack)
    secret = stack.settings.secret_key
    old = calendar.address(stack.db, secret, p0)
    prefs = player_token(secret, p0, 1)
    page = stack.client.get(f"/p/{prefs}").get_data(as_text=True)
    assert page.count('id="calendar"') == 1 and "<title>Your games, leagues and preferences · deadmail</title>" in page
    assert f"/calendar/{old}.ics" in page and f"webcal://localhost/calendar/{old}.ics" in page.replace(
        stack.settings.base_url.split("://", 1)[1], "localhost"
    )

    reply = post_form(stack.client, stack.app, f"/p/{prefs}/calendar")

    assert reply.status_code == 303 and reply.headers["Location"].endswith("calendar=new#calendar")
    new = calendar.address(stack.db, secret, p0)
    assert new != old
    assert stack.client.get(f"/calendar/{old}.ics").status_code == 403
    assert len(events(fetch(stack, new))) == 2
    page = stack.client.get(f"/p/{prefs}?calendar=new").get_data(as_text=True)  # the preferences link still works
    assert "Your calendar has a new address" in page and f"/calendar/{new}.ics" in page and old not in page


def test_a_new_address_needs_the_form_token(embedded: Stack) -> None:
    _games, p0, _p1 = two_games(embedded)
    old = calendar.address(embedded.db, embedded.settings.secret_key, p0)
    prefs = player_token(embedded.settings.secret_key, p0, 1)
    reply = post_form(embedded.client, embedded.app, f"/p/{prefs}/calendar", csrf=False)
    assert reply.status_code == 400
    assert calendar.address(embedded.db, embedded.settings.secret_key, p0) == old


def test_the_address_is_one_string_and_a_dated_one_still_opens(embedded: Stack) -> None:
    """The address shown is the same from one second to the next (a page and the test reading it a second apart
    once saw two), and an address signed with its date, as handed out before, still opens the feed."""
    _games, p0, _p1 = two_games(embedded)
    secret = embedded.settings.secret_key
    made = calendar_token(secret, p0, 1)
    with patch.object(TimestampSigner, "get_timestamp", return_value=int(time.time()) + 5):
        dated = URLSafeTimedSerializer(secret, salt=CALENDAR_SALT).dumps([p0, 1])
        assert calendar_token(secret, p0, 1) == made == calendar.address(embedded.db, secret, p0)
    assert dated != made
    for token in (made, dated):
        assert len(events(fetch(embedded, token))) == 2


def test_forged_and_other_links_open_no_calendar(embedded: Stack) -> None:
    _games, p0, _p1 = two_games(embedded)
    secret = embedded.settings.secret_key
    good = calendar.address(embedded.db, secret, p0)
    for token in (
        good[:-2] + ("AA" if not good.endswith("AA") else "BB"),
        player_token(secret, p0, 1),  # a preferences link is not a calendar address
        calendar_token("another secret", p0, 1),
        calendar_token(secret, 10_000, 1),
        calendar_token(secret, p0, 2),  # a generation not made yet
        "x" * 300,
    ):
        reply = embedded.client.get(f"/calendar/{token}.ics")
        assert reply.status_code == 403
        assert b"VCALENDAR" not in reply.get_data()


def test_the_feed_tells_only_the_readers_own_decisions(embedded: Stack) -> None:
    """No secret in the feed: each event names one of the reader's own requests' kinds and nothing of the others."""
    games, p0, _p1 = two_games(embedded)
    cal = fetch(embedded, calendar.address(embedded.db, embedded.settings.secret_key, p0))
    text = cal.to_ical().decode()
    for name in ("P1", "P2", "p1@", "p2@", "P0"):
        assert name not in text
    for game in games:
        window = open_window(embedded.db, game)
        assert window is not None
        (mine,) = [r for r in window.requests if r.seat.player_id == p0]
        assert f"deadline-{game}-{window.number}-{mine.seat_id}@" in text


# --- the pure builder: league round starts ---------------------------------------------------------------------------

NOW = datetime(2031, 3, 4, 12, 0, tzinfo=UTC)
ROUNDS = (
    RoundStart(4, "Friday league", 1, NOW + timedelta(days=1), "https://dm.example/l/4"),
    RoundStart(4, "Friday league", 2, NOW + timedelta(days=8), "https://dm.example/l/4", revision=3),
)


def test_a_league_feed_lists_its_round_starts() -> None:
    cal = Calendar.from_ical(league_calendar("it", "Friday league", ROUNDS, "dm.example", NOW))

    assert str(cal["VERSION"]) == "2.0" and str(cal["X-WR-CALNAME"]) == "deadmail: Friday league"
    found = events(cal)
    assert list(found) == ["league-4-round-1@dm.example", "league-4-round-2@dm.example"]
    second = found["league-4-round-2@dm.example"]
    assert second.decoded("DTSTART") == ROUNDS[1].starts and int(second["SEQUENCE"]) == 3
    assert str(second["SUMMARY"]) == "Friday league: inizia il turno 2"
    assert not second.walk("VALARM")


def test_a_players_feed_carries_round_starts_and_a_chosen_alarm() -> None:
    deadline = Deadline(7, "Friday night", 3, 21, "vote", NOW + timedelta(hours=5), 1, "https://dm.example/s/x")
    feed = Feed(1, "Ann", "pl", "Europe/Warsaw", (deadline,), ROUNDS)

    cal = Calendar.from_ical(player_calendar(feed, "dm.example", NOW, alarm=timedelta(hours=1)))

    found = events(cal)
    assert set(found) == {"deadline-7-3-21@dm.example", *(f"league-4-round-{n}@dm.example" for n in (1, 2))}
    event = found["deadline-7-3-21@dm.example"]
    assert event.decoded("DTEND") == deadline.deadline and int(event["SEQUENCE"]) == 1
    assert event.decoded("DTSTAMP") == NOW
    (alarm,) = event.walk("VALARM")
    assert event.decoded("DTSTART") + alarm.decoded("TRIGGER") == deadline.deadline - timedelta(hours=1)
    assert str(found["league-4-round-1@dm.example"]["SUMMARY"]) == "Friday league: początek rundy 1"
    assert "(Friday night)" in str(event["SUMMARY"]) and "głosowanie" in str(event["SUMMARY"])


def test_a_deadline_brought_back_earlier_still_gets_a_higher_sequence(embedded: Stack) -> None:
    """A pause moves the deadline later, resuming early brings it back: each move raises SEQUENCE, so a calendar
    that keeps the highest one shows the deadline of now."""
    games, p0, _p1 = two_games(embedded)
    token = calendar.address(embedded.db, embedded.settings.secret_key, p0)
    seat = seat_ids(embedded.db, games[0])["yellow"]

    def mine() -> Any:
        return next(e for uid, e in events(fetch(embedded, token)).items() if f"-{seat}@" in uid)

    first = mine()
    organise.pause(embedded.db, games[0], T0 + timedelta(days=2), now=T0)
    paused = mine()
    organise.resume(embedded.db, games[0], now=T0 + timedelta(hours=1))
    resumed = mine()

    assert first.decoded("DTEND") < paused.decoded("DTEND") and resumed.decoded("DTEND") < paused.decoded("DTEND")
    assert [int(e["SEQUENCE"]) for e in (first, paused, resumed)] == [0, 1, 2]
