"""The player's hub: a player's games, their season entries and their stored ratings, read as plain data from
play and leagues.

``games``: every seat the player holds or held, with what is asked of them now (only from a seat they hold: the
seat's own open requests, never another seat's, B-INFO) and, for a finished game, their place (END-3, by
``play.places.placings``). Two queries, whatever the number of games.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import or_, select
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
    Seat,
    SeatTenure,
    Window,
    WindowStatus,
)
from .leagues import ratings, schedule, seasons
from .play import places

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
    placed = places.outcome_places(outcome)
    for seat, place, span, points in placed:
        if seat == colour:
            return Place(place, len(placed), span > 1, points)
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
    """The player's stored rating across all games (``leagues.game_end.game_over`` keeps it as each game ends), with
    its last ``HISTORY`` points; None: no rated game."""
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
            for entry, season, league in seasons.season_entries(session, player_id)
        ]
