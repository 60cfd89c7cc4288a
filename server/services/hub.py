"""The player's hub (issue 14): a player's games and their rating across all games, read as plain data.

``games``: every seat the player holds or held, with what is asked of them now (only from a seat they hold: the
seat's own open requests, never another seat's, B-INFO) and, for a finished game, their place (END-3, by
``scoring.placings``). Two queries, whatever the number of games.

``finished_games``: every finished game as ``ratings.FinishedGame``, for ``ratings.rate_games``. Two queries for all
the games: the seats of every finished game with its outcome, and each seat's requests counted per person who owed
them (``RequestRow.player_id``; None for a bot). A seat's tenures are the people (and bots) who owed its requests,
plus whoever holds it at the end; each one's share is the fraction of the seat's answered requests they answered
themselves (not by the autopilot, not by default; as ``tenures.py`` counts "answered"); with none answered, the
fraction they owed; a seat played by one person alone has share 1.0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, and_, or_, select
from sqlalchemy.orm import Session

import engine

from ..db import Database
from ..models import (
    Game,
    GameStatus,
    League,
    RatingPoint,
    RatingRow,
    RequestRow,
    Season,
    SeasonPlayer,
    Seat,
    SeatTenure,
    Window,
    WindowStatus,
)
from .leagues import ratings, schedule, scoring
from .play import archive

#: the rating history shown: its last points.
HISTORY = 8


@dataclass(frozen=True)
class Asked:
    """A decision the player owes now in one of their seats: the request's kind and the window's deadline."""

    kind: str
    deadline: datetime


@dataclass(frozen=True)
class Place:
    """A finished game's result for the seat: place (END-3: tied seats share it), of how many, the victory points."""

    place: int
    of: int
    shared: bool
    points: int


@dataclass(frozen=True)
class HubGame:
    game_id: int
    title: str
    #: ``GameStatus``: running, over, abandoned.
    status: str
    colour: str
    seat_id: int
    #: the player holds the seat now (not replaced by a bot or a substitute): only then is it linked.
    held: bool
    #: the seat's current link generation (for its signed link; meaningful only when ``held``).
    link_generation: int
    #: what the seat owes now (held seats of running games only).
    asked: tuple[Asked, ...] = ()
    #: the seat's result (finished games only).
    result: Place | None = None


def _place(outcome: engine.Outcome | None, colour: str) -> Place | None:
    places = scoring.outcome_places(outcome)
    for seat, place, span, points in places:
        if seat == colour:
            return Place(place, len(places), span > 1, points)
    return None


def games(db: Database, player_id: int) -> list[HubGame]:
    """The player's games, the newest first: running, then finished and abandoned ones."""
    with db.session() as session:
        former = select(SeatTenure.seat_id).where(SeatTenure.player_id == player_id)
        rows = session.execute(
            select(
                Game.id,
                Game.title,
                Game.status,
                Game.outcome,
                Seat.id,
                Seat.colour,
                Seat.player_id,
                Seat.bot,
                Seat.link_generation,
            )
            .join(Seat, Seat.game_id == Game.id)
            .where(or_(Seat.player_id == player_id, Seat.id.in_(former)))
            .order_by(Game.id.desc(), Seat.position)
        ).all()
        held_running = [
            row[4] for row in rows if row[2] == GameStatus.RUNNING and row[6] == player_id and row[7] is None
        ]
        asked: dict[int, list[Asked]] = {}
        if held_running:
            found = session.execute(
                select(RequestRow.seat_id, RequestRow.kind, Window.deadline)
                .join(Window, Window.id == RequestRow.window_id)
                .where(
                    RequestRow.seat_id.in_(held_running),
                    Window.status == WindowStatus.OPEN,
                    RequestRow.answered_at.is_(None),
                )
                .order_by(Window.deadline, RequestRow.position)
            ).all()
            for seat_id, kind, deadline in found:
                asked.setdefault(seat_id, []).append(Asked(kind, deadline))
    out = []
    for game_id, title, status, outcome, seat_id, colour, holder, bot, generation in rows:
        held = holder == player_id and bot is None
        out.append(
            HubGame(
                game_id=game_id,
                title=title or "",
                status=status,
                colour=colour,
                seat_id=seat_id,
                held=held,
                link_generation=generation,
                asked=tuple(asked.get(seat_id, ())) if held else (),
                result=_place(outcome, colour) if status == GameStatus.OVER else None,
            )
        )
    order = {GameStatus.RUNNING: 0, GameStatus.OVER: 1, GameStatus.ABANDONED: 2}
    return sorted(out, key=lambda g: order.get(GameStatus(g.status), 3))


def _tenures(holder: int | None, counts: dict[int | None, tuple[int, int]]) -> tuple[ratings.Tenure, ...]:
    """A seat's tenures and shares from ``counts`` (person or None for a bot -> (owed, answered))."""
    people = dict(counts)
    people.setdefault(holder, (0, 0))
    if len(people) == 1:
        return (ratings.Tenure(holder, 1.0),)
    answered = sum(a for _o, a in people.values())
    owed = sum(o for o, _a in people.values())
    index = 1 if answered else 0
    total = answered or owed
    return tuple(
        ratings.Tenure(who, (figures[index] / total) if total else 1.0 / len(people))
        for who, figures in sorted(people.items(), key=lambda item: (item[0] is None, item[0] or 0))
    )


def finished_games(
    session: Session, *where: Any, outcome: Mapping[str, Any] | None = None
) -> list[ratings.FinishedGame]:
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
    by_game: dict[int, tuple[datetime, list[ratings.SeatResult]]] = {}
    places: dict[int, dict[str, int]] = {}
    for game_id, finished_at, played, seat_id, colour, holder, bot in seats:
        if game_id not in places:
            placed = scoring.outcome_places(played if outcome is None else outcome)
            places[game_id] = {c: place for c, place, _span, _points in placed}
            by_game[game_id] = (finished_at, [])
        if colour not in places[game_id]:
            continue
        tenures = _tenures(holder if bot is None else None, counts.get(seat_id, {}))
        by_game[game_id][1].append(ratings.SeatResult(places[game_id][colour], tenures))
    return [ratings.FinishedGame(game_id, at, tuple(seats)) for game_id, (at, seats) in by_game.items()]


def finished_game(session: Session, game_id: int) -> ratings.FinishedGame | None:
    """One finished game as ``finished_games`` reads it (None: not over); its seats' shares of partial play."""
    found = finished_games(session, Game.id == game_id)
    return found[0] if found else None


def recorded_game(session: Session, game_id: int, outcome: Mapping[str, Any]) -> ratings.FinishedGame | None:
    """An abandoned game as ``finished_games`` reads it, placed by the result the organiser recorded (``outcome``):
    its seats' shares of partial play as far as it went. None: no such game."""
    found = finished_games(session, Game.id == game_id, outcome=outcome)
    return found[0] if found else None


def stored(session: Session, player_id: int, scope: int = 0, history: int = HISTORY) -> ratings.Rating | None:
    """The player's stored rating in ``scope`` (0: all games; a league's id) with its last ``history`` points;
    None: no rated game."""
    row = session.execute(
        select(RatingRow).where(RatingRow.player_id == player_id, RatingRow.scope == scope)
    ).scalar_one_or_none()
    if row is None:
        return None
    points = session.execute(
        select(RatingPoint.game_id, RatingPoint.finished_at, RatingPoint.mu, RatingPoint.sigma)
        .where(RatingPoint.player_id == player_id, RatingPoint.scope == scope)
        .order_by(RatingPoint.finished_at.desc(), RatingPoint.game_id.desc())
        .limit(history)
    ).all()
    shown = [ratings.Point(g, at, ratings.Rating(mu, sigma).ordinal) for g, at, mu, sigma in reversed(points)]
    return ratings.Rating(row.mu, row.sigma, row.games, shown)


def league_ratings(db: Database, player_id: int) -> list[tuple[str, ratings.Rating]]:
    """The player's stored rating in each league they have one in: (league name, rating), by name."""
    with db.session() as session:
        found = session.execute(
            select(League.name, RatingRow.mu, RatingRow.sigma, RatingRow.games)
            .join(League, League.id == RatingRow.scope)
            .where(RatingRow.player_id == player_id, RatingRow.scope != 0)
            .order_by(League.name, League.id)
        ).all()
    return [(name, ratings.Rating(mu, sigma, games)) for name, mu, sigma, games in found]


def rating(db: Database, player_id: int) -> ratings.Rating | None:
    """The player's stored rating across all games (``results.game_over`` keeps it as each game ends), with its last
    ``HISTORY`` points; None: no rated game."""
    with db.session() as session:
        return stored(session, player_id)


# --- leagues ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HubEntry:
    """One of the player's season entries: the league, the season, the entry's status, the season's rounds not yet
    started (number, start when known) and those the player said they would miss."""

    entry_id: int
    league: str
    season: int
    #: ``EntryStatus``
    status: str
    #: ``SeasonStatus``
    season_status: str
    upcoming: tuple[tuple[int, datetime | None], ...]
    skips: tuple[int, ...]
    #: the season's id (its standings page: ``/p/<token>/season/<id>``)
    season_id: int = 0
    #: the addresses of people the player declared they know in this season (never at their table)
    knows: tuple[str, ...] = ()


def season_entries(session: Session, player_id: int) -> Sequence[Row[SeasonPlayer, Season, League]]:
    """The player's season entries (any status) with their season and league, the newest season first."""
    return session.execute(
        select(SeasonPlayer, Season, League)
        .join(Season, Season.id == SeasonPlayer.season_id)
        .join(League, League.id == Season.league_id)
        .where(SeasonPlayer.player_id == player_id)
        .order_by(Season.id.desc())
    ).all()


def league_entries(db: Database, player_id: int, now: datetime) -> list[HubEntry]:
    """The player's own season entries (pending, confirmed or withdrawn), newest first."""
    with db.session() as session:
        return [
            HubEntry(
                entry.id,
                league.name,
                season.number,
                entry.status,
                season.status,
                tuple(schedule.upcoming_rounds(session, season, league.timezone, now)),
                tuple(entry.skips or ()),
                season.id,
                tuple(entry.knows or ()),
            )
            for entry, season, league in season_entries(session, player_id)
        ]
