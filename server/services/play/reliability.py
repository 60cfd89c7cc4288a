"""How reliably a person answers: the share of their requests answered before the deadline, and how long
they usually take. Leagues and organisers read it; the player sees their own on their preferences page.

What counts: the requests a person owed (``player_id``: the person who held the seat when the request opened, so a
substitute's figures are theirs) in closed windows, of every game or of one game. Left out:

- requests answered at once by the person's standing answers (``standing``) or by the autopilot (``autopilot``):
  the person was not asked;
- votes closed as decided that the person had not answered (no answer, not defaulted): they missed nothing;
- requests asked in secret (B-INFO, ``engine.asked_in_secret``): a card window (kind ``cards``), and a move with a
  single character to move (asked only of a player holding a Sprint). Being asked at all tells what the player
  holds, so a count of them, even per game and after the fact, must not exist: every figure here is computed over
  public requests only (a request's ``secret`` mark, set from ``engine.asked_in_secret`` of its payload when it
  opened).

Of what is left, a request is *on time* when the person answered it themselves no later than the window's
(final) deadline; it is *missed* when it was defaulted (H-4), or answered after the deadline before the window
closed. The figures use the person's newest ``LAST`` counted requests (newest first by the window's opening):

- ``on_time``: the recency-weighted share on time, the ``i``-th newest (from 0) weighing ``DECAY ** i``
  (0.95: the 14th newest weighs half as much as the newest one);
- ``median_seconds``: the median of (answered at − window opened at) over the ones the person answered themselves
  (the time of their last change, when they changed an answer).

A person with fewer than ``NEW_BELOW`` counted requests is *new*: both figures are unknown (None), never shown as
unreliable. Where they are read from: over every game, each person's ledger (``Ledger``: the count
and the newest ``LAST``, kept by ``record`` as each window closes); in some games, those games' archives of closed
requests (``services.play.archive``). Every call reads the figures of many people in one query, never one per person.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple, TypedDict

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from ...db import Database
from ...models import Ledger, RequestRow, Seat, Window
from . import archive

#: how many of a person's newest counted requests the figures use.
LAST = 50
#: the weight of the i-th newest request (from 0) is DECAY ** i.
DECAY = 0.95
#: fewer counted requests than this: "new", the figures unknown.
NEW_BELOW = 20


class ReliabilityJSON(TypedDict):
    """``Reliability`` in the JSON API."""

    requests: int
    on_time: float | None
    median_seconds: int | None
    new: bool


class SeatFiguresJSON(TypedDict):
    """``SeatFigures`` in the JSON API: the person's figures in this game and over every game."""

    game: ReliabilityJSON
    overall: ReliabilityJSON


@dataclass(frozen=True)
class Reliability:
    """One person's figures (overall or in one game)."""

    #: counted requests in all (the figures use the newest ``LAST`` of them).
    requests: int
    #: recency-weighted share answered on time (0 to 1); None when new.
    on_time: float | None
    #: median seconds from a window's opening to the person's answer; None when new or nothing was answered.
    median_seconds: int | None

    @property
    def new(self) -> bool:
        """Too few requests to tell: shown as unknown, not as unreliable."""
        return self.requests < NEW_BELOW

    def as_json(self) -> ReliabilityJSON:
        """The API's shape: ``{"requests": n, "on_time": 0.92 | null, "median_seconds": s | null, "new": bool}``."""
        return {
            "requests": self.requests,
            "on_time": None if self.on_time is None else round(self.on_time, 4),
            "median_seconds": self.median_seconds,
            "new": self.new,
        }


#: nobody's figures yet.
NONE = Reliability(0, None, None)


class _Counted(NamedTuple):
    """One counted request: its window's opening and final deadline, the person's answer, its window's id (of two
    windows opened at one instant, the later made is the newer)."""

    opened_at: datetime
    deadline: datetime
    answered_at: datetime | None
    defaulted: bool
    window_id: int


def counts(row: archive.ClosedRequest | RequestRow) -> bool:
    """Whether a closed request counts (see the module's docstring)."""
    return (
        row.player_id is not None
        and not row.standing
        and not row.autopilot
        and (row.answered_at is not None or row.defaulted)
        and not row.secret
    )


def _figures(rows: list[_Counted], total: int) -> Reliability:
    """The figures of one person's newest rows (newest first)."""
    if total < NEW_BELOW:
        return Reliability(total, None, None)
    weights = [DECAY**i for i in range(len(rows))]
    on_time = [not row.defaulted and row.answered_at is not None and row.answered_at <= row.deadline for row in rows]
    share = sum(w for w, ok in zip(weights, on_time, strict=True) if ok) / sum(weights)
    times = [
        (row.answered_at - row.opened_at).total_seconds()
        for row in rows
        if not row.defaulted and row.answered_at is not None
    ]
    median = round(statistics.median(times)) if times else None
    return Reliability(total, share, median)


def _newest(rows: Iterable[_Counted]) -> list[_Counted]:
    """Newest first: by the window's opening, then the window made later."""
    return sorted(rows, key=lambda r: (r.opened_at, r.window_id), reverse=True)


def _entry(row: _Counted) -> list[Any]:
    """A ledger's entry (``Ledger.newest``)."""
    instants = (archive.stamp(row.opened_at), archive.stamp(row.deadline), archive.stamp(row.answered_at))
    return [*instants, row.defaulted, row.window_id]


def _entries(newest: list[list[Any]]) -> list[_Counted]:
    """A ledger's entries, newest first."""
    rows = []
    for opened, deadline, answered, defaulted, window_id in newest:
        opened_at, deadline_at = archive.at(opened), archive.at(deadline)
        assert opened_at is not None and deadline_at is not None
        rows.append(_Counted(opened_at, deadline_at, archive.at(answered), bool(defaulted), window_id))
    return rows


def record(session: Session, rows: Iterable[tuple[int, _Counted]]) -> None:
    """A closed window's counted requests (person, request) added to each person's ledger (``Ledger``): the count
    over every game and the newest ``LAST``. The ledgers are locked in the order of their people's ids (nothing
    else locks them): two windows of two games closing at once for one person both count."""
    mine: dict[int, list[_Counted]] = defaultdict(list)
    for player_id, row in rows:
        mine[player_id].append(row)
    if not mine:
        return
    people = sorted(mine)
    with session.no_autoflush:  # the closing rows' changes are not written: they are deleted (``archive.fold``)
        insert = (pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert)(Ledger)
        new = [{"player_id": p, "counted": 0, "newest": []} for p in people]
        session.execute(insert.values(new).on_conflict_do_nothing())
        ledgers = session.execute(
            select(Ledger)
            .where(Ledger.player_id.in_(people))
            .order_by(Ledger.player_id)
            .with_for_update()
            .execution_options(populate_existing=True)  # as the lock found it, not as read before
        ).scalars()
        for ledger in ledgers:
            added = mine[ledger.player_id]
            ledger.newest = [_entry(r) for r in _newest([*_entries(ledger.newest), *added])[:LAST]]
            ledger.counted += len(added)


def _counted(window: Window | archive.ClosedWindow, row: RequestRow | archive.ClosedRequest) -> _Counted:
    return _Counted(window.opened_at, window.deadline, row.answered_at, row.defaulted, window.id)


def counted_of(window: Window | archive.ClosedWindow, rows: Iterable[RequestRow]) -> list[tuple[int, _Counted]]:
    """The counted requests of a window being closed, as ``record`` takes them."""
    return [(row.player_id, _counted(window, row)) for row in rows if counts(row) and row.player_id is not None]


def _read(
    session: Session, player_ids: Iterable[int], game_ids: Iterable[int] | None, per_game: bool
) -> dict[tuple[int, int | None], Reliability]:
    """(player, game or None) -> figures; a key with no counted request is missing. Over every game: the people's
    ledgers (one query); in some games: those games' archives (one query)."""
    people = sorted(set(player_ids))
    if not people:
        return {}
    if game_ids is None:
        ledgers = session.execute(select(Ledger).where(Ledger.player_id.in_(people), Ledger.counted > 0)).scalars()
        return {(ledger.player_id, None): _figures(_entries(ledger.newest), ledger.counted) for ledger in ledgers}
    groups: dict[tuple[int, int | None], list[_Counted]] = defaultdict(list)
    wanted = set(people)
    for game_id, rows in archive.closed_requests(session, game_ids).items():
        for row in rows:
            if row.player_id in wanted and counts(row):
                key = (row.player_id, game_id if per_game else None)
                groups[key].append(_counted(row.window, row))
    return {key: _figures(_newest(rows)[:LAST], len(rows)) for key, rows in groups.items()}


def of_players(session: Session, player_ids: Iterable[int], game_id: int | None = None) -> dict[int, Reliability]:
    """Each person's figures, over every game or over ``game_id``'s requests only (one query for all of them);
    every id asked for is in the answer (``NONE`` when nothing counts yet)."""
    people = list(player_ids)
    found = _read(session, people, None if game_id is None else [game_id], per_game=False)
    return {p: found.get((p, None), NONE) for p in people}


def per_game(session: Session, player_id: int, game_ids: Iterable[int]) -> dict[int, Reliability]:
    """One person's figures in each of ``game_ids`` (one query)."""
    games = list(game_ids)
    found = _read(session, [player_id], games, per_game=True)
    return {g: found.get((player_id, g), NONE) for g in games}


@dataclass(frozen=True)
class Hub:
    """A person's figures over every game and in each of some games (their preferences page)."""

    overall: Reliability
    games: dict[int, Reliability]


def hub(db: Database, player_id: int, game_ids: Iterable[int]) -> Hub:
    with db.session() as session:
        return Hub(of_players(session, [player_id])[player_id], per_game(session, player_id, game_ids))


@dataclass(frozen=True)
class SeatFigures:
    """A person's seat: their figures in this game and over every game."""

    player_id: int
    game: Reliability
    overall: Reliability

    def as_json(self) -> SeatFiguresJSON:
        return {"game": self.game.as_json(), "overall": self.overall.as_json()}


def of_game(db: Database, game_id: int) -> dict[str, SeatFigures]:
    """colour -> the figures of the person holding the seat now, in this game and overall (two queries); bots'
    seats are left out."""
    with db.session() as session:
        return seats_of(session, game_id)


def seats_of(session: Session, game_id: int) -> dict[str, SeatFigures]:
    """``of_game`` in a session."""
    seats = session.execute(
        select(Seat.colour, Seat.player_id).where(
            Seat.game_id == game_id, Seat.bot.is_(None), Seat.player_id.is_not(None)
        )
    ).all()
    people = [s.player_id for s in seats]
    here = of_players(session, people, game_id)
    overall = of_players(session, people)
    return {s.colour: SeatFigures(s.player_id, here[s.player_id], overall[s.player_id]) for s in seats}


def of_seat(db: Database, seat_id: int) -> Reliability | None:
    """The overall figures of the person holding a seat (None for a bot's seat)."""
    with db.session() as session:
        player_id = session.execute(select(Seat.player_id).where(Seat.id == seat_id)).scalar_one_or_none()
        if player_id is None:
            return None
        return of_players(session, [player_id])[player_id]
