"""A finished game's placements and its seats' shares of partial play, read from its rows (``places.FinishedGame``:
what ``leagues.ratings`` rates).

``finished_games``: every finished game, in two queries for all the games: the seats of every finished game with its
outcome, and each seat's requests counted per person who owed them (``RequestRow.player_id``; None for a bot; read
from the games' archives). A seat's tenures are the people (and bots) who owed its requests, plus whoever holds it at
the end; each one's share is the fraction of the seat's answered requests they answered themselves (not by the
autopilot, not by default; as ``tenures.py`` counts "answered"); with none answered, the fraction they owed; a seat
played by one person alone has share 1.0.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

import engine

from ...models import Game, GameStatus, Seat
from . import archive, places


def _tenures(holder: int | None, counts: dict[int | None, tuple[int, int]]) -> tuple[places.Tenure, ...]:
    """A seat's tenures and shares from ``counts`` (person or None for a bot -> (owed, answered))."""
    people = dict(counts)
    people.setdefault(holder, (0, 0))
    if len(people) == 1:
        return (places.Tenure(holder, 1.0),)
    answered = sum(a for _o, a in people.values())
    owed = sum(o for o, _a in people.values())
    index = 1 if answered else 0
    total = answered or owed
    return tuple(
        places.Tenure(who, (figures[index] / total) if total else 1.0 / len(people))
        for who, figures in sorted(people.items(), key=lambda item: (item[0] is None, item[0] or 0))
    )


def finished_games(session: Session, *where: Any, outcome: engine.Outcome | None = None) -> list[places.FinishedGame]:
    """Every finished game (or those ``where`` selects among them), for ``ratings.rate_games`` (two queries). With
    ``outcome``: the games ``where`` selects whatever their status, placed by that outcome (``recorded_game``)."""
    over = and_(Game.status == GameStatus.OVER, *where) if outcome is None else and_(*where)
    seats = session.execute(
        select(Game.id, Game.updated_at, Game.outcome, Seat.id, Seat.colour, Seat.player_id, Seat.bot)
        .join(Seat, Seat.game_id == Game.id)
        .where(over)
        .order_by(Game.id, Seat.position)
    ).all()
    counts: dict[int, dict[int | None, tuple[int, int]]] = {}
    for rows in archive.closed_requests(session, {row[0] for row in seats}).values():
        for r in rows:
            owed, answered = counts.setdefault(r.seat_id, {}).get(r.player_id, (0, 0))
            mine = r.answered_at is not None and not r.autopilot and not r.defaulted
            counts[r.seat_id][r.player_id] = (owed + 1, answered + int(mine))
    by_game: dict[int, tuple[datetime, list[places.SeatResult]]] = {}
    place_of: dict[int, dict[str, int]] = {}
    for game_id, finished_at, played, seat_id, colour, holder, bot in seats:
        if game_id not in place_of:
            placed = places.outcome_places(played if outcome is None else outcome)
            place_of[game_id] = {c: place for c, place, _span, _points in placed}
            by_game[game_id] = (finished_at, [])
        if colour not in place_of[game_id]:
            continue
        tenures = _tenures(holder if bot is None else None, counts.get(seat_id, {}))
        by_game[game_id][1].append(places.SeatResult(place_of[game_id][colour], tenures))
    return [places.FinishedGame(game_id, at, tuple(seats)) for game_id, (at, seats) in by_game.items()]


def finished_game(session: Session, game_id: int) -> places.FinishedGame | None:
    """One finished game as ``finished_games`` reads it (None: not over); its seats' shares of partial play."""
    found = finished_games(session, Game.id == game_id)
    return found[0] if found else None


def recorded_game(session: Session, game_id: int, outcome: engine.Outcome) -> places.FinishedGame | None:
    """An abandoned game as ``finished_games`` reads it, placed by the result the organiser recorded (``outcome``):
    its seats' shares of partial play as far as it went. None: no such game."""
    found = finished_games(session, Game.id == game_id, outcome=outcome)
    return found[0] if found else None
