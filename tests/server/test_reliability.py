"""Reliability: per person, the recency-weighted share of their requests answered before the deadline over
their last 50, and their median response time, per game and overall; "new" under 20 requests. Requests answered by
standing answers or the autopilot, votes decided without the person and requests asked in secret (B-INFO) are not
counted. Shown on the player's preferences page, the organiser's game page and in the API; read in one query."""

from __future__ import annotations

import itertools
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event

import engine
import engine.bots
from server.db import Database
from server.models import Game, Player, RequestRow, Seat, Window
from server.services.links import player_token, seat_token
from server.services.play import archive, reliability, turns
from server.services.play.reliability import DECAY, LAST, NEW_BELOW, Reliability
from tests.conftest import Stack
from tests.support import (
    AUTH,
    T0,
    create,
    create_tagged,
    engine_of,
    log_in_as_organiser,
    open_window,
    player_of,
    seat_ids,
)

NUMBERS = itertools.count(1000)
HOUR = timedelta(hours=1)

#: one hand-made request per letter: on time, missed (defaulted), late (answered after the deadline), by standing
#: answers, by the autopilot, a vote decided without the player, a card window, a move with one character (both
#: asked in secret), a move with two characters (public, on time).
KINDS: dict[str, dict[str, Any]] = {
    "o": {},
    "m": {"answered": None, "defaulted": True},
    "l": {"answered": timedelta(hours=25)},
    "s": {"standing": True},
    "a": {"autopilot": True},
    "d": {"kind": "vote", "answered": None},
    "c": {"kind": "cards", "payload": {"kind": "cards", "options": None}},
    "1": {"kind": "move", "payload": {"kind": "move", "options": [{"character": "gunman"}]}},
    "2": {"kind": "move", "payload": {"kind": "move", "options": [{"character": "gunman"}, {"character": "tough"}]}},
}


@dataclass(frozen=True)
class Ask:
    """A hand-made request: answered this long after its window opened (None: not answered), defaulted, ...; its
    window is closed a day after it opened, at its deadline, unless ``status`` says otherwise."""

    answered: timedelta | None = HOUR
    defaulted: bool = False
    kind: str = "place"
    payload: dict[str, Any] | None = None
    standing: bool = False
    autopilot: bool = False
    status: str = "closed"


#: a person's seat in a game: (game id, seat id, player id).
Owner = tuple[int, int, int]


def add(db: Database, owner: Owner, opened: datetime, **fields: Any) -> None:
    """A window of its own with one request (``Ask(**fields)``) owed by the owner's player."""
    game_id, seat_id, player_id = owner
    ask = Ask(**fields)
    with db.session() as session:
        window = Window(
            game_id=game_id,
            number=next(NUMBERS),
            status=ask.status,
            round=1,
            phase="test",
            opened_at=opened,
            deadline=opened + timedelta(hours=24),
        )
        session.add(window)
        session.flush()
        row = RequestRow(
            window_id=window.id,
            seat_id=seat_id,
            player_id=player_id,
            position=0,
            kind=ask.kind,
            payload=ask.payload if ask.payload is not None else {"kind": ask.kind, "options": [1, 2]},
            answer=None if ask.answered is None else "x",
            answered_at=None if ask.answered is None else opened + ask.answered,
            defaulted=ask.defaulted,
            standing=ask.standing,
            autopilot=ask.autopilot,
        )
        session.add(row)
        session.flush()
        if ask.status == "closed":  # closed as ``turns.advance_window`` closes a window
            game = session.get(Game, game_id)
            assert game is not None
            reliability.record(session, reliability.counted_of(window, [row]))
            archive.fold(session, game, [(window, [row])], opened + timedelta(hours=24))


def series(
    db: Database, owner: Owner, pattern: str, start: datetime = T0, every: timedelta = timedelta(days=1), **fields: Any
) -> datetime:
    """A request per letter of ``pattern`` (KINDS), oldest first, one ``every``; returns when the next would open."""
    for i, letter in enumerate(pattern):
        add(db, owner, start + i * every, **(KINDS[letter] | fields))
    return start + len(pattern) * every


def table(stack: Stack, seed: int = 5) -> tuple[int, dict[str, tuple[int, int]]]:
    """A new 3-player game of P0..P2 (the same people in every game made this way): (game id, colour -> (seat id,
    player id))."""
    game_id = create(stack.db, 3, seed).game_id
    seats = seat_ids(stack.db, game_id)
    return game_id, {colour: (seat, player_of(stack.db, seat).id) for colour, seat in seats.items()}


def figures_of(db: Database, player_ids: list[int], game_id: int | None = None) -> dict[int, Reliability]:
    with db.session() as session:
        return reliability.of_players(session, player_ids, game_id)


def weighted(on_time: list[bool]) -> float:
    """The expected share, newest first."""
    weights = [DECAY**i for i in range(len(on_time))]
    return sum(w for w, ok in zip(weights, on_time, strict=True) if ok) / sum(weights)


# --- the figures -----------------------------------------------------------------------------------------------------


def test_recent_requests_weigh_more(stack: Stack) -> None:
    game_id, seats = table(stack)
    (ys, yp), (rs, rp) = seats["yellow"], seats["red"]
    series(stack.db, (game_id, ys, yp), "o" * 24 + "m")  # the newest one missed
    series(stack.db, (game_id, rs, rp), "m" + "o" * 24)  # the oldest one missed
    got = figures_of(stack.db, [yp, rp])
    assert got[yp].requests == got[rp].requests == 25
    assert got[yp].on_time == pytest.approx(weighted([False] + [True] * 24))
    assert got[rp].on_time == pytest.approx(weighted([True] * 24 + [False]))
    assert got[yp].on_time < got[rp].on_time < 1
    assert got[yp].median_seconds == got[rp].median_seconds == 3600
    assert not got[yp].new and not got[rp].new


def test_only_the_last_50_count(stack: Stack) -> None:
    game_id, seats = table(stack)
    ys, yp = seats["yellow"]
    later = series(stack.db, (game_id, ys, yp), "m" * 30)
    series(stack.db, (game_id, ys, yp), "o" * LAST, start=later, answered=2 * HOUR)
    got = figures_of(stack.db, [yp])[yp]
    assert got == Reliability(30 + LAST, 1.0, 7200)  # every request counted, the figures over the newest 50
    series(stack.db, (game_id, ys, yp), "m", start=later + timedelta(days=LAST))
    got = figures_of(stack.db, [yp])[yp]
    assert got.requests == 81 and got.on_time == pytest.approx(weighted([False] + [True] * 49))


def test_new_under_20_requests(stack: Stack) -> None:
    game_id, seats = table(stack)
    ys, yp = seats["yellow"]
    nothing = figures_of(stack.db, [yp])[yp]
    assert nothing == Reliability(0, None, None) and nothing.new
    later = series(stack.db, (game_id, ys, yp), "m" * (NEW_BELOW - 1))
    got = figures_of(stack.db, [yp])[yp]
    assert got == Reliability(NEW_BELOW - 1, None, None) and got.new  # unknown, not 0 %
    assert got.as_json() == {"requests": 19, "on_time": None, "median_seconds": None, "new": True}
    series(stack.db, (game_id, ys, yp), "m", start=later)
    got = figures_of(stack.db, [yp])[yp]
    assert got == Reliability(NEW_BELOW, 0.0, None) and not got.new
    assert got.as_json() == {"requests": 20, "on_time": 0.0, "median_seconds": None, "new": False}


def test_median_response_time_and_late_answers(stack: Stack) -> None:
    game_id, seats = table(stack)
    ys, yp = seats["yellow"]
    times = [timedelta(minutes=m) for m in (5, 10, 20, 40, 80, 160, 320, 640, 1280)] * 2 + [timedelta(minutes=7)]
    for i, after in enumerate(times):
        add(stack.db, (game_id, ys, yp), T0 + i * timedelta(days=1), answered=after)
    later = T0 + len(times) * timedelta(days=1)
    series(stack.db, (game_id, ys, yp), "l", start=later)  # answered 25 h after opening: after the deadline
    series(stack.db, (game_id, ys, yp), "m", start=later + timedelta(days=1))  # missed: no response time
    got = figures_of(stack.db, [yp])[yp]
    seconds = [t.total_seconds() for t in times] + [25 * 3600]
    assert got.requests == 21
    assert got.median_seconds == round(statistics.median(seconds)) == 80 * 60
    assert got.on_time == pytest.approx(weighted([False, False] + [True] * 19))  # late is not on time


def test_what_is_not_counted(stack: Stack) -> None:
    """Standing answers, the autopilot, votes decided without the player, secret requests (a card window, a move
    with one character) and windows still open are left out: 19 counted requests are still "new"."""
    game_id, seats = table(stack)
    ys, yp = seats["yellow"]
    later = series(stack.db, (game_id, ys, yp), "sadc1" * 6 + "o" * 17 + "2" * 2)
    add(stack.db, (game_id, ys, yp), later, status="open")
    add(stack.db, (game_id, ys, yp), later, status="resolving")
    got = figures_of(stack.db, [yp])[yp]
    assert got == Reliability(19, None, None)
    series(stack.db, (game_id, ys, yp), "m", start=later + timedelta(days=1))
    got = figures_of(stack.db, [yp])[yp]
    assert got.requests == 20 and got.on_time == pytest.approx(weighted([False] + [True] * 19))


def test_the_secret_filter_is_the_engines(stack: Stack) -> None:
    """What leaves out requests asked in secret agrees with ``engine.asked_in_secret`` on every shape."""
    game_id, seats = table(stack)
    ys, yp = seats["yellow"]
    payloads = [
        {"kind": "cards", "options": None},
        {"kind": "cards", "options": [{"card": "sprint"}]},
        {"kind": "move", "options": [{"character": "gunman"}]},
        {"kind": "move", "options": [{"character": "gunman"}, {"character": "tough"}]},
        {"kind": "move", "options": [{"character": c} for c in ("gunman", "tough", "beauty")]},
        {"kind": "move", "options": []},
        {"kind": "move", "options": None},
        {"kind": "move"},
        {"kind": "vote", "options": ["red"]},
        {"kind": "place", "options": [{"character": "gunman", "location": 1}]},
        {"kind": "victim", "options": None},
    ]
    counted = []
    for i, payload in enumerate(payloads):
        before = figures_of(stack.db, [yp])[yp].requests
        add(stack.db, (game_id, ys, yp), T0 + i * HOUR, kind=payload["kind"], payload=payload)
        counted.append(figures_of(stack.db, [yp])[yp].requests == before + 1)
    assert counted == [not engine.asked_in_secret(engine.Request.from_json(p)) for p in payloads]


def test_per_game_and_overall(stack: Stack) -> None:
    first, seats = table(stack, seed=5)
    second, again = table(stack, seed=6)
    (ys, yp), (ys2, yp2) = seats["yellow"], again["yellow"]
    assert yp == yp2  # the same person in both games
    later = series(stack.db, (first, ys, yp), "o" * 30, answered=HOUR)
    series(stack.db, (second, ys2, yp), "m" * 10 + "o" * 10, start=later, answered=3 * HOUR)
    with stack.db.session() as session:
        assert reliability.of_players(session, [yp], first)[yp] == Reliability(30, 1.0, 3600)
        in_second = reliability.of_players(session, [yp], second)[yp]
        assert in_second.requests == 20 and in_second.on_time == pytest.approx(weighted([True] * 10 + [False] * 10))
        overall = reliability.of_players(session, [yp])[yp]
        assert overall.requests == 50
        assert overall.on_time == pytest.approx(weighted([True] * 10 + [False] * 10 + [True] * 30))
        assert overall.median_seconds == 3600  # 30 answers within 1 h, 10 within 3 h
        assert reliability.per_game(session, yp, [first, second]) == {
            first: reliability.of_players(session, [yp], first)[yp],
            second: in_second,
        }
    hub = reliability.hub(stack.db, yp, [first, second])
    assert hub.overall == overall and hub.games[second] == in_second


@contextmanager
def statements(db: Database) -> Iterator[list[str]]:
    """The SQL statements run on ``db``'s engine meanwhile."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", record)


def test_many_people_in_one_query(stack: Stack) -> None:
    game_id = create(stack.db, 6, 11).game_id
    seats = seat_ids(stack.db, game_id)
    people = {colour: player_of(stack.db, seat).id for colour, seat in seats.items()}
    for n, (colour, seat) in enumerate(seats.items()):
        series(stack.db, (game_id, seat, people[colour]), "o" * (15 + 3 * n) + "m" * n, answered=(n + 1) * HOUR)
    with stack.db.session() as session:
        session.execute(sa.select(1))  # the connection is open
        with statements(stack.db) as seen:
            got = reliability.of_players(session, list(people.values()))
            alone = {p: reliability.of_players(session, [p])[p] for p in people.values()}
    assert len(seen) == 1 + len(people)  # one for all of them, then one for each alone
    assert got == alone
    assert [got[people[c]].requests for c in seats] == [15 + 4 * n for n in range(6)]
    assert got[people[next(iter(seats))]].new
    with stack.db.session() as session, statements(stack.db) as seen:
        assert reliability.of_players(session, []) == {}
    assert seen == []


def _play(stack: Stack, seed: int, start: datetime) -> tuple[int, dict[str, int], datetime]:
    """A game of the same three people (tag 21) played to its end on an injected clock from ``start``: yellow
    answers everything 30 minutes after it opens, the others never (their requests default at the deadline).
    Returns (game id, colour -> player id, the clock at the end)."""
    game_id = create_tagged(stack.db, 3, seed, tag=21, absences={"autopilot_after": 0}, now=start).game_id
    seats = seat_ids(stack.db, game_id)
    clock = start
    for _ in range(300):
        window = open_window(stack.db, game_id)
        if window is None:
            break
        clock = max(clock, window.opened_at) + timedelta(minutes=30)
        eng = engine_of(stack.db, game_id)
        for row in window.requests:
            if row.seat_id == seats["yellow"] and row.answered_at is None and window.completed_at is None:
                req = next(r for r in eng.pending() if r.player == "yellow")
                value = engine.bots.RandomBot(window.number).decide(eng, req)
                turns.submit_answer(stack.db, row.seat_id, row.kind, value, window_number=window.number, now=clock)
        window = open_window(stack.db, game_id)
        assert window is not None
        clock = max(clock, window.deadline if window.completed_at is None else clock) + timedelta(seconds=1)
        assert turns.advance_window(stack.db, window.id, now=clock)
    assert open_window(stack.db, game_id) is None  # over
    return game_id, {colour: player_of(stack.db, seat).id for colour, seat in seats.items()}, clock


@pytest.mark.long(8)
def test_played_windows(stack: Stack) -> None:
    """Two games played on an injected clock by the same people: the figures count exactly the public requests the
    rows say, per game and overall."""
    first, people, clock = _play(stack, 21, T0)
    second, again, _ = _play(stack, 22, clock + HOUR)
    assert again == people
    ids = list(people.values())
    for game_id in (first, second):
        got = figures_of(stack.db, ids, game_id)
        assert {p: f.requests for p, f in got.items()} == _expected_counts(stack.db, people, game_id)
    overall = figures_of(stack.db, ids)
    counts = _expected_counts(stack.db, people)
    assert {p: f.requests for p, f in overall.items()} == counts
    assert all(n >= NEW_BELOW for n in counts.values()), counts
    assert overall[people["yellow"]].on_time == 1.0 and overall[people["yellow"]].median_seconds == 1800
    for colour in ("red", "blue"):
        assert overall[people[colour]].on_time == 0.0 and overall[people[colour]].median_seconds is None


def _expected_counts(db: Database, people: dict[str, int], game_id: int | None = None) -> dict[int, int]:
    """Counted requests per person (in one game), from the games' archives, in Python (the ``secret`` mark each
    request got from ``engine.asked_in_secret`` of its payload when it opened)."""
    with db.session() as session:
        games = [game_id] if game_id is not None else session.execute(sa.select(Game.id)).scalars().all()
        counts = dict.fromkeys(people.values(), 0)
        for rows in archive.closed_requests(session, games).values():
            for row in rows:
                if row.player_id is None or row.standing or row.autopilot or row.secret:
                    continue
                if row.answered_at is None and not row.defaulted:
                    continue
                counts[row.player_id] += 1
        return counts


# --- where it is shown -----------------------------------------------------------------------------------------------


def _set_language(db: Database, player_id: int, lang: str) -> None:
    with db.session() as session:
        player = session.get(Player, player_id)
        assert player is not None
        player.language = lang


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ["In game {first}: 100% answered on time, usually within 3 hours.", "new: fewer than 20"]),
        ("it", ["Nella partita {first}: 100% con risposta in tempo, di solito entro 3 ore.", "nuovo: meno di 20"]),
        ("pl", ["W grze {first}: 100% odpowiedzi w terminie, zwykle czas odpowiedzi: 3 godziny.", "nowy: dotąd"]),
    ],
)
def test_the_players_hub(stack: Stack, lang: str, words: list[str]) -> None:
    first, seats = table(stack, seed=5)
    second, again = table(stack, seed=6)
    (ys, yp), (ys2, _) = seats["yellow"], again["yellow"]
    later = series(stack.db, (first, ys, yp), "o" * 25, answered=3 * HOUR)
    series(stack.db, (second, ys2, yp), "m" * 5, start=later)
    _set_language(stack.db, yp, lang)
    page = stack.client.get(f"/p/{player_token(stack.settings.secret_key, yp, 1)}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert words[0].format(first=first) in text
    assert words[1] in text  # the second game: new there
    overall = reliability.hub(stack.db, yp, []).overall
    assert overall.requests == 30 and overall.on_time is not None and 0 < overall.on_time < 1
    assert "%" in text.split('id="reliability"')[1].split("</p>")[0]  # the overall line has a share


def test_a_new_players_hub(stack: Stack) -> None:
    _, seats = table(stack)
    _, yp = seats["yellow"]
    text = stack.client.get(f"/p/{player_token(stack.settings.secret_key, yp, 1)}").get_data(as_text=True)
    assert "In all your games: new: fewer than 20 decisions so far." in text
    assert "answered on time" not in text


def test_the_organisers_game_page(stack: Stack) -> None:
    first, seats = table(stack, seed=5)
    second, again = table(stack, seed=6)
    (ys, yp), (rs, rp) = seats["yellow"], seats["red"]
    later = series(stack.db, (first, ys, yp), "o" * 20, answered=timedelta(minutes=10))
    series(stack.db, (second, again["yellow"][0], yp), "m" * 20, start=later)
    series(stack.db, (first, rs, rp), "o" * 3)
    log_in_as_organiser(stack.client)
    text = stack.client.get(f"/o/games/{first}").get_data(as_text=True)
    assert "in this game: 100% answered on time, usually within 10 minutes" in text
    assert "in all games: new" not in text.split("<strong>Yellow</strong>")[1].split("</li>")[0]
    red = text.split("<strong>Red</strong> · P")[1].split("</li>")[0]
    assert "in this game: new: fewer than 20 decisions so far" in red and "in all games: new" in red


def test_the_api(stack: Stack) -> None:
    first, seats = table(stack, seed=5)
    second, again = table(stack, seed=6)
    (ys, yp), (rs, _) = seats["yellow"], seats["red"]
    later = series(stack.db, (first, ys, yp), "o" * 20, answered=HOUR)
    series(stack.db, (second, again["yellow"][0], yp), "m" * 20, start=later)
    with stack.db.session() as session:  # one seat played by a bot: no figures for it
        seat = session.get(Seat, seats["blue"][0])
        assert seat is not None
        seat.bot, seat.player_id = "random", None
    reply = stack.client.get(f"/api/games/{first}", headers=AUTH)
    assert reply.status_code == 200 and reply.json is not None
    yellow_overall = {"requests": 40, "on_time": pytest.approx(weighted([False] * 20 + [True] * 20), abs=1e-4)}
    assert reply.json["reliability"] == {
        "yellow": {
            "game": {"requests": 20, "on_time": 1.0, "median_seconds": 3600, "new": False},
            "overall": {**yellow_overall, "median_seconds": 3600, "new": False},
        },
        "red": {
            "game": {"requests": 0, "on_time": None, "median_seconds": None, "new": True},
            "overall": {"requests": 0, "on_time": None, "median_seconds": None, "new": True},
        },
    }
    assert stack.client.get(f"/api/games/{first}").status_code == 401  # the organiser's only
    own = stack.client.get(f"/api/seat/{seat_token(stack.settings.secret_key, ys, 1)}")
    assert own.status_code == 200 and own.json is not None
    assert own.json["reliability"] == {**yellow_overall, "median_seconds": 3600, "new": False}
    red = stack.client.get(f"/api/seat/{seat_token(stack.settings.secret_key, rs, 1)}").json
    assert red is not None and red["reliability"]["new"] is True
    assert "yellow" not in str(red["reliability"])  # a seat hears only its own player's figures


def test_secret_requests_change_no_figure(stack: Stack) -> None:
    """B-INFO: a card window or a one-character move asked of a player changes none of their figures, per game or
    overall, on any page or in the API."""
    game_id, seats = table(stack)
    ys, yp = seats["yellow"]
    later = series(stack.db, (game_id, ys, yp), "o" * 22)
    log_in_as_organiser(stack.client)
    prefs_link = f"/p/{player_token(stack.settings.secret_key, yp, 1)}"

    def everything() -> tuple[Any, ...]:
        return (
            stack.client.get(f"/api/games/{game_id}", headers=AUTH).json["reliability"],  # type: ignore[index]
            stack.client.get(f"/api/seat/{seat_token(stack.settings.secret_key, ys, 1)}").json["reliability"],  # type: ignore[index]
            stack.client.get(f"/o/games/{game_id}")
            .get_data(as_text=True)
            .split('class="reliability"')[1]
            .split("</ul>")[0],
            stack.client.get(prefs_link).get_data(as_text=True).split('id="reliability"')[1].split("</section>")[0],
        )

    before = everything()
    series(stack.db, (game_id, ys, yp), "c1c1", start=later)
    series(stack.db, (game_id, ys, yp), "c1", start=later + timedelta(days=10), answered=None, defaulted=True)
    assert everything() == before


def test_two_windows_closing_at_once_for_one_person_both_count(stack: Stack) -> None:
    """Two games' windows closing at the same moment both add to the person's ledger: the second waits for the
    first's lock on the person's row (PostgreSQL ``FOR UPDATE``; SQLite's write lock) instead of writing over it
    a ledger read before the first one's commit."""
    game_id, seats = table(stack)
    ys, yp = seats["yellow"]
    series(stack.db, (game_id, ys, yp), "o" * 3)
    owner = threading.get_ident()
    read = threading.Event()

    def slow_after_reading(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if threading.get_ident() == owner and "FROM ledgers" in statement and not read.is_set():
            read.set()  # the other closing starts now, while this one has read the ledger and not yet written it
            time.sleep(1)

    def close_one(at: datetime) -> None:
        window = Window(opened_at=at, deadline=at + HOUR)
        row = RequestRow(player_id=yp, answered_at=at, defaulted=False, standing=False, autopilot=False, secret=False)
        with stack.db.session() as session:
            reliability.record(session, reliability.counted_of(window, [row]))

    other = threading.Thread(target=lambda: (read.wait(10), close_one(T0 + 20 * HOUR)))
    other.start()
    event.listen(stack.db.engine, "after_cursor_execute", slow_after_reading)
    try:
        close_one(T0 + 10 * HOUR)
    finally:
        event.remove(stack.db.engine, "after_cursor_execute", slow_after_reading)
        other.join(30)
    assert figures_of(stack.db, [yp])[yp].requests == 5
