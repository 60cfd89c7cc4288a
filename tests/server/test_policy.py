"""One policy for the server and the estimate (``services.play.policy``): the same windows played through the real
server (games created with services, answers submitted and windows advanced on an injected clock) and through the
estimate's simulation step (``estimate._Table``: last calls, the close, the wait for players absent from a session,
the count of missed deadlines) with the same answers at the same instants end the same way: the same deadline after
each answer (last calls), the same close, answers in and waits, the same counts of missed deadlines and the same
seats on autopilot. Either side changing one of these rules alone fails here.

Each test runs on SQLite (embedded) and PostgreSQL (production)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import engine
from engine.bots import SensibleBot
from server.db import Database
from server.models import Game, Window
from server.services.play import estimate, games, seats, turns
from server.services.tempo import (
    PlayHours,
    deadline_quiet,
    last_call_of,
    parse_deadlines,
    parse_play_hours,
    quiet_of,
    window_deadline,
)
from tests.conftest import Stack
from tests.support import add_player, closed_window, engine_of, open_window, requests_in, seat_ids, seat_of, utc

PEOPLE = ("Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>")

#: when a person answers (or visits their page in) window ``number``, opened at ``opened``, asking ``requests``;
#: None: never.
Plan = Callable[[int, str, datetime, list[engine.Request]], datetime | None]
#: an answer as the estimate sees it: when, the request's index in the window, the colour, the answer.
Arrival = tuple[datetime, int, str, Any]


@dataclass
class Seen:
    """What the windows played went through, so that the tests keep testing what they say."""

    why: set[str] = field(default_factory=set)
    single: int = 0
    secret: int = 0
    last_calls: int = 0
    paced: int = 0
    waits: int = 0
    secret_waits: int = 0
    autopilots: set[str] = field(default_factory=set)


class Mirror:
    """The estimate's table of a server game: its seats with the quiet hours the server knows, and its tempo."""

    def __init__(self, db: Database, game_id: int) -> None:
        with db.session() as session:
            game = session.get(Game, game_id)
            assert game is not None
            self.tempo: dict[str, Any] = dict(game.tempo)
            quiet = {s.colour: None if s.player is None else quiet_of(s.player) for s in game.seats}
        self.colours = list(quiet)
        sims = {colour: estimate.SimSeat(quiet=q) for colour, q in quiet.items()}
        self.table = estimate._Table(sims, self.tempo, estimate.Model(), random.Random(1))

    def deadline(self, opened: datetime, requests: list[engine.Request]) -> datetime:
        """The window's deadline before any last call, as ``estimate.play`` computes it."""
        quiet = deadline_quiet(requests, self.colours, lambda c: self.table.seats[c].quiet)
        return window_deadline(opened, [r.kind for r in requests], self.tempo, quiet)

    def settle(
        self, requests: list[engine.Request], arrivals: list[Arrival], opened: datetime
    ) -> tuple[datetime, dict[str, Any], str, bool]:
        """As ``estimate.play``: the close by the deadline, then the wait for those absent from a session."""
        window = estimate._Window(requests, [], [])
        close, answers, why = self.table.close(window, arrivals, opened, self.deadline(opened, requests))
        waits = self.table.wait_for_absent(window, answers, close) if why == "deadline" else None
        if waits is not None:
            close, answers, why = self.table.close(window, arrivals, opened, waits)
        return close, answers, why, waits is not None


def still_open(db: Database, game_id: int, window_id: int) -> Window | None:
    window = open_window(db, game_id)
    return window if window is not None and window.id == window_id else None


def advance(db: Database, game_id: int, window: Window) -> bool:
    """The window advances when it is complete or its deadline passes; True when it waited for absent players."""
    if turns.advance_window(db, window.id, now=window.completed_at or window.deadline):
        return False
    waiting = still_open(db, game_id, window.id)
    assert waiting is not None and waiting.extended_at is not None
    return True


@dataclass
class Played:
    """A window being played: the server's row, its requests in seating order, the answers as the estimate sees them
    (those given when it opened, then each person's own by the plan: ``own``, their indices)."""

    window: Window
    ids: dict[str, int]
    requests: list[engine.Request]
    arrivals: list[Arrival]
    own: set[int]
    #: the people absent from the session (``visit``)
    absent: set[str] = field(default_factory=set)

    @property
    def secret(self) -> bool:
        return secret(self.requests)


def planned(db: Database, game_id: int, window: Window, plan: Plan) -> Played:
    """The window's answers: those given when it opened (standing answers, the autopilot), then each person's own
    by ``plan`` (the sensible bot's choice)."""
    rows = sorted(window.requests, key=lambda r: r.position)
    requests = [engine.Request.from_json(r.payload) for r in rows]
    arrivals = [(window.opened_at, i, r.seat.colour, r.answer) for i, r in enumerate(rows) if r.answered_at]
    eng = engine_of(db, game_id)
    own: set[int] = set()
    for i, row in enumerate(rows):
        at = None if row.answered_at else plan(window.number, row.seat.colour, window.opened_at, requests)
        if at is not None:
            request = next(r for r in eng.pending() if r.player == row.seat.colour)
            arrivals.append((at, i, row.seat.colour, SensibleBot(window.number).decide(eng, request)))
            own.add(i)
    arrivals.sort(key=lambda a: (a[0], a[1]))
    return Played(window, seat_ids(db, game_id), requests, arrivals, own)


def visit(db: Database, mirror: Mirror, played: Played, visits: Plan) -> None:
    """Each person on their page since the window opened, or absent from the session: by ``visits`` for the server,
    as who is at the session for the estimate."""
    window = played.window
    hours = PlayHours.of(mirror.tempo)
    session = None if hours is None else hours.session_at(mirror.deadline(window.opened_at, played.requests))
    assert session is not None  # as the estimate's model: a short deadline in a session
    for colour in mirror.colours:
        at = visits(window.number, colour, window.opened_at, played.requests)
        if at is not None:
            seats.visit(db, played.ids[colour], at)
        else:
            played.absent.add(colour)
        mirror.table.present[(colour, session[0].date())] = at is not None


def answer(db: Database, game_id: int, mirror: Mirror, played: Played, seen: Seen) -> bool:
    """The planned answers through the server until the window closes; after each, the server's deadline is the
    estimate's (the last calls). True when the window waited for players absent from a session."""
    window, requests = played.window, played.requests
    number, opened = window.number, window.opened_at
    deadline = mirror.deadline(opened, requests)
    called = mirror.table.last_call(requests, {}, opened, deadline, secret=played.secret, opening=True)
    seen.last_calls += called != deadline
    if window.completed_at is None:
        assert window.deadline == called, f"window {number}: the deadline when it opened"
    answered = {colour: value for _, i, colour, value in played.arrivals if i not in played.own}
    deadline, waited = called, False
    for at, i, colour, value in played.arrivals:
        current = still_open(db, game_id, window.id)
        if current is None or current.completed_at is not None or i not in played.own:
            continue
        if at >= current.deadline:  # the deadline passes first: the window closes, or waits for absent players
            if waited or not advance(db, game_id, current):
                break
            waited, deadline = True, still_open(db, game_id, window.id).deadline  # type: ignore[union-attr]
            if at >= deadline:
                continue
        turns.submit_answer(db, played.ids[colour], requests[i].kind, value, window_number=number, now=at)
        answered[colour] = value
        before = deadline
        deadline = mirror.table.last_call(requests, answered, at, deadline, secret=played.secret, opening=False)
        if deadline != before:
            seen.last_calls += 1
            seen.paced += deadline - at < timedelta(seconds=last_call_of(mirror.tempo) or 0)
        current = still_open(db, game_id, window.id)
        if current is not None and current.completed_at is None:
            assert current.deadline == deadline, f"window {number}: the deadline once {colour} answered"
    if (current := still_open(db, game_id, window.id)) is not None:
        waited = advance(db, game_id, current) or waited
    if (current := still_open(db, game_id, window.id)) is not None:  # the wait is over
        assert not advance(db, game_id, current)
    return waited


def play_window(db: Database, game_id: int, mirror: Mirror, plan: Plan, seen: Seen, visits: Plan | None = None) -> bool:
    """The open window played through the server by ``plan`` (and seat page ``visits``) and through the mirror with
    the same answers at the same instants; asserts they agree. False when the game is over."""
    window = open_window(db, game_id)
    if window is None:
        return False
    played = planned(db, game_id, window, plan)
    seen.single += len(played.requests) == 1
    seen.secret += played.secret
    if visits is not None:
        visit(db, mirror, played, visits)
    waited = answer(db, game_id, mirror, played, seen)

    # the close: when, with which answers in, why, and whether the window waited
    close, answers, why, waits = mirror.settle(played.requests, played.arrivals, window.opened_at)
    seen.why.add(why)
    seen.waits += waits
    seen.secret_waits += waits and played.secret and not any(asked(played.requests, c) for c in played.absent)
    closed = closed_window(db, game_id, window.id)
    assert closed is not None
    colours = {seat_id: colour for colour, seat_id in played.ids.items()}
    server_answers = {colours[r.seat_id] for r in requests_in(db, window.id) if r.answered_at is not None}
    assert (closed.closed_at, server_answers, waited) == (close, set(answers), waits), f"window {window.number}: {why}"

    # the count of missed deadlines, and the seats on autopilot
    mirror.table.paces(played.arrivals, answers, played.own, window.opened_at, close)
    mirror.table.count(estimate._Window(played.requests, [], []), answers, played.own, why, close)
    for colour in mirror.colours:
        seat = seat_of(db, played.ids[colour])
        assert seat.missed == mirror.table.missed.get(colour, 0), f"window {window.number}: {colour}'s count"
        assert (seat.autopilot_at is not None) == (colour in mirror.table.pilots), f"window {window.number}: {colour}"
        if seat.autopilot_at is not None:
            seen.autopilots.add(colour)
    return True


def secret(requests: list[engine.Request]) -> bool:
    return any(engine.asked_in_secret(r) for r in requests)


def asked(requests: list[engine.Request], colour: str) -> bool:
    return any(r.player == colour for r in requests)


def test_last_calls_and_the_autopilot_count_are_the_same_in_the_server_and_the_estimate(stack: Stack) -> None:
    """Ann answers within the hour, Bob within minutes (his pace shortens his last calls) but misses every fifth
    window, Cy answers the first few windows after hours, then never: last calls in her waking hours, then the
    autopilot."""
    db = stack.db
    add_player(db, "bob@example.org", timezone="America/New_York", quiet_start="22:00", quiet_end="06:00")
    add_player(db, "cy@example.org", timezone="Europe/Rome", quiet_start="23:00", quiet_end="07:00")
    spec = games.GameSpec(
        players=[games.parse_player(p) for p in PEOPLE],
        deadlines=parse_deadlines(["24h"]),
        last_call=4 * 3600,
        seed=11,
    )
    game_id = games.create_game(db, spec, now=utc(2026, 6, 1, 12)).game_id
    mirror = Mirror(db, game_id)

    def plan(number: int, colour: str, opened: datetime, _requests: list[engine.Request]) -> datetime | None:
        if colour == "yellow":
            return opened + timedelta(minutes=20 + 11 * (number % 4))
        if colour == "red":
            return None if number % 5 == 4 else opened + timedelta(minutes=9 + 5 * (number % 3))
        return opened + timedelta(hours=3, minutes=7 * number) if number <= 4 else None

    seen = Seen()
    for _ in range(40):
        if not play_window(db, game_id, mirror, plan, seen):
            break
    assert seen.why >= {"all", "deadline"} and seen.single and seen.secret
    assert seen.last_calls >= 3 and seen.paced and "blue" in seen.autopilots


def test_the_wait_for_players_absent_from_a_session_is_the_same_in_the_server_and_the_estimate(stack: Stack) -> None:
    """Play hours: Ann is at every session and answers; Bob comes but does not answer every third window; Cy is
    absent every fourth window and answers at the next session, and absent the window after and never answers. In
    a window asked in secret those asked come and do not answer, and the others are absent: the window waits for
    them all the same (B-INFO). From window 24 on Cy never comes again: after two defaults her seat is on autopilot,
    and no window waits for her any more (the table knows)."""
    GONE = 24
    db = stack.db
    spec = games.GameSpec(
        players=[games.parse_player(p) for p in PEOPLE],
        deadlines=parse_deadlines(["24h"]),
        play_hours=parse_play_hours("Mon-Sun 20:30-22:00 Europe/Rome", "10m"),
        seed=7,
    )
    game_id = games.create_game(db, spec, now=utc(2026, 2, 3, 20)).game_id  # 21:00 in Rome
    mirror = Mirror(db, game_id)
    hours = PlayHours.of(mirror.tempo)
    assert hours is not None

    def visits(number: int, colour: str, opened: datetime, requests: list[engine.Request]) -> datetime | None:
        if secret(requests) and not asked(requests, colour):
            return None
        if colour == "blue" and (number % 4 in (2, 3) or number >= GONE):
            return None
        return opened + timedelta(minutes=1)

    def plan(number: int, colour: str, opened: datetime, requests: list[engine.Request]) -> datetime | None:
        if secret(requests):
            return None
        if colour == "yellow":
            return opened + timedelta(minutes=1)
        if colour == "red":
            return None if number % 3 == 1 else opened + timedelta(minutes=2)
        if number >= GONE:
            return None
        if number % 4 == 2:
            return hours.next_start(opened) + timedelta(minutes=2)
        return None if number % 4 == 3 else opened + timedelta(minutes=3)

    seen = Seen()
    for _ in range(40):
        if not play_window(db, game_id, mirror, plan, seen, visits):
            break
    assert seen.why >= {"all", "deadline"} and seen.waits >= 2 and seen.secret_waits and seen.autopilots == {"blue"}
