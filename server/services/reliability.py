"""How reliably a person answers (issue 12): the share of their requests answered before the deadline, and how long
they usually take. Leagues and organisers read it; the player sees their own on their preferences page.

What counts: the request rows a person owed (``RequestRow.player_id``: the person who held the seat when the request
opened, so a substitute's figures are theirs) in closed windows, of every game or of one game. Left out:

- requests answered at once by the person's standing answers (``standing``) or by the autopilot (``autopilot``):
  the person was not asked;
- votes closed as decided that the person had not answered (no answer, not defaulted): they missed nothing;
- requests asked in secret (B-INFO, ``engine.asked_in_secret``): a card window (kind ``cards``), and a move with a
  single character to move (asked only of a player holding a Sprint). Being asked at all tells what the player
  holds, so a count of them, even per game and after the fact, must not exist: every figure here is computed over
  public requests only, filtered in SQL (the kind, and for a move the length of its ``options``; the test checks
  that this filter and ``engine.asked_in_secret`` agree).

Of what is left, a request is *on time* when the person answered it themselves no later than the window's
(final) deadline; it is *missed* when it was defaulted (H-4), or answered after the deadline before the window
closed. The figures use the person's newest ``LAST`` counted requests (newest first by the window's opening):

- ``on_time``: the recency-weighted share on time, the ``i``-th newest (from 0) weighing ``DECAY ** i``
  (0.95: the 14th newest weighs half as much as the newest one);
- ``median_seconds``: the median of (answered at − window opened at) over the ones the person answered themselves
  (the time of their last change, when they changed an answer).

A person with fewer than ``NEW_BELOW`` counted requests is *new*: both figures are unknown (None), never shown as
unreliable. Every call reads the figures of many people in one query (a window function keeps each one's newest
``LAST`` rows), never one query per person.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, func, not_, or_, select
from sqlalchemy.orm import Session

from ..db import Database
from ..models import RequestRow, Seat, Window, WindowStatus

#: how many of a person's newest counted requests the figures use.
LAST = 50
#: the weight of the i-th newest request (from 0) is DECAY ** i.
DECAY = 0.95
#: fewer counted requests than this: "new", the figures unknown.
NEW_BELOW = 20


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

    def as_json(self) -> dict[str, Any]:
        """The API's shape: ``{"requests": n, "on_time": 0.92 | null, "median_seconds": s | null, "new": bool}``."""
        return {
            "requests": self.requests,
            "on_time": None if self.on_time is None else round(self.on_time, 4),
            "median_seconds": self.median_seconds,
            "new": self.new,
        }


#: nobody's figures yet.
NONE = Reliability(0, None, None)


def counted() -> ColumnElement[bool]:
    """The rows that count (see the module's docstring), given a join of ``RequestRow`` and ``Window``."""
    return and_(
        Window.status == WindowStatus.CLOSED.value,
        RequestRow.player_id.is_not(None),
        not_(RequestRow.standing),
        not_(RequestRow.autopilot),
        or_(RequestRow.answered_at.is_not(None), RequestRow.defaulted),
        not_(RequestRow.secret),
    )


def _figures(rows: list[Any], total: int) -> Reliability:
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


def _read(
    session: Session, player_ids: Iterable[int], game_ids: Iterable[int] | None, per_game: bool
) -> dict[tuple[int, int | None], Reliability]:
    """(player, game or None) -> figures, in one query; a key with no counted request is missing."""
    people = sorted(set(player_ids))
    if not people:
        return {}
    partition = [RequestRow.player_id, Window.game_id] if per_game else [RequestRow.player_id]
    newest_first: list[ColumnElement[Any]] = [Window.opened_at.desc(), RequestRow.id.desc()]
    inner = (
        select(
            RequestRow.player_id.label("player_id"),
            Window.game_id.label("game_id"),
            Window.opened_at.label("opened_at"),
            Window.deadline.label("deadline"),
            RequestRow.answered_at.label("answered_at"),
            RequestRow.defaulted.label("defaulted"),
            func.row_number().over(partition_by=partition, order_by=newest_first).label("age"),
            func.count().over(partition_by=partition).label("total"),
        )
        .join(Window, Window.id == RequestRow.window_id)
        .where(RequestRow.player_id.in_(people), counted())
    )
    if game_ids is not None:
        inner = inner.where(Window.game_id.in_(sorted(set(game_ids))))
    sub = inner.subquery()
    order = [sub.c.player_id, sub.c.game_id, sub.c.age] if per_game else [sub.c.player_id, sub.c.age]
    query = select(sub).where(sub.c.age <= LAST).order_by(*order)  # each group newest first
    groups: dict[tuple[int, int | None], list[Any]] = defaultdict(list)
    for row in session.execute(query).all():
        groups[(row.player_id, row.game_id if per_game else None)].append(row)
    return {key: _figures(rows, rows[0].total) for key, rows in groups.items()}


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

    def as_json(self) -> dict[str, Any]:
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
