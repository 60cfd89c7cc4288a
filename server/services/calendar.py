"""Calendar feeds: what a player's feed lists, read from the database as plain data, and its address.

The address is a signed token of ``[player id, calendar generation]`` without an expiry (a calendar service keeps
fetching it for months); raising ``Player.calendar_generation`` (``new_address``) revokes it, on its own: the
preferences link and the seat links stay as they are. ``server/present/calendar.py`` builds the ICS from the items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..db import Database
from ..models import (
    EntryStatus,
    Game,
    GameStatus,
    League,
    Player,
    RequestRow,
    Season,
    SeasonPlayer,
    Seat,
    Window,
    WindowStatus,
    pick_language,
)
from .errors import N_
from .leagues import schedule
from .links import LinkError, calendar_token, check_current, read_calendar_token


@dataclass(frozen=True)
class Deadline:
    """A decision the player still owes in a running game, and its deadline (the reader's own: never another's)."""

    game_id: int
    title: str
    window: int
    seat_id: int
    #: the request's kind ("vote", "cards" …).
    kind: str
    deadline: datetime
    #: ``Window.deadline_revision``: raised on every move of the deadline.
    revision: int
    #: the seat's page.
    url: str


@dataclass(frozen=True)
class RoundStart:
    """The start of a league's round (leagues give these; the feed builder needs nothing else)."""

    league_id: int
    league: str
    round: int
    starts: datetime
    url: str
    #: raised when the start moves (the event's SEQUENCE).
    revision: int = 0
    #: the season's number (in the event's UID: seasons of a league number their rounds alike); None: not given.
    season: int | None = None


@dataclass(frozen=True)
class Feed:
    """A player's calendar: their language and time zone, and what it lists."""

    player_id: int
    name: str
    language: str
    timezone: str
    deadlines: tuple[Deadline, ...]
    rounds: tuple[RoundStart, ...] = ()


def open_calendar(db: Database, secret_key: str, token: str) -> int:
    """The player whose calendar address this is; LinkError for a forged or revoked one (``new_address``)."""
    player_id, generation = read_calendar_token(secret_key, token)
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise LinkError(N_("This link is not valid."))
        check_current(player.calendar_generation, generation)
        return player.id


def address(db: Database, secret_key: str, player_id: int) -> str:
    """The token of the player's current calendar address."""
    with db.session() as session:
        player = session.get(Player, player_id)
        assert player is not None
        return calendar_token(secret_key, player.id, player.calendar_generation)


def new_address(db: Database, secret_key: str, player_id: int) -> str:
    """Revoke the player's calendar address and return the token of the new one."""
    with db.session() as session:
        player = session.get(Player, player_id)
        assert player is not None
        player.calendar_generation += 1
        return calendar_token(secret_key, player.id, player.calendar_generation)


def feed(
    db: Database,
    player_id: int,
    seat_url: Callable[[int, int], str],
    rounds: Sequence[RoundStart] = (),
) -> Feed:
    """The player's feed: every decision they still owe in an open window of a running game, from their seats only
    (an answered one is not owed: it leaves the feed), with ``seat_url(seat id, link generation)``; and ``rounds``,
    the league round starts that concern them (given by the caller)."""
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise LinkError(N_("This link is not valid."))
        rows = session.execute(
            select(RequestRow.kind, Window, Seat.id, Seat.link_generation, Game.id, Game.title)
            .join(Window, Window.id == RequestRow.window_id)
            .join(Seat, Seat.id == RequestRow.seat_id)
            .join(Game, Game.id == Seat.game_id)
            .where(
                Seat.player_id == player_id,
                Seat.bot.is_(None),
                Game.status == GameStatus.RUNNING,
                Window.status == WindowStatus.OPEN,
                RequestRow.answered_at.is_(None),
            )
            .order_by(Window.deadline, Game.id, Seat.position)
        ).all()
        deadlines = tuple(
            Deadline(
                game_id=game_id,
                title=title or "",
                window=window.number,
                seat_id=seat_id,
                kind=kind,
                deadline=window.deadline,
                revision=window.deadline_revision,
                url=seat_url(seat_id, generation),
            )
            for kind, window, seat_id, generation, game_id, title in rows
        )
        return Feed(
            player.id,
            player.display_name,
            pick_language(player.language),
            player.timezone or "UTC",
            deadlines,
            tuple(rounds),
        )


def _season_rounds(session: Session, season: Season, league: League, now: datetime, url: str) -> list[RoundStart]:
    """The season's rounds still to start whose start is known (``schedule.upcoming_rounds``)."""
    return [
        RoundStart(league.id, league.name, number, start, url, season=season.number)
        for number, start in schedule.upcoming_rounds(session, season, league.timezone, now)
        if start is not None
    ]


def player_rounds(db: Database, player_id: int, now: datetime, url: str) -> list[RoundStart]:
    """Each upcoming round start of the seasons the player is confirmed in (rounds they said they would miss
    included: they may change their mind), linking to ``url`` (never a seat's link)."""
    with db.session() as session:
        rows = session.execute(
            select(Season, League)
            .join(SeasonPlayer, SeasonPlayer.season_id == Season.id)
            .join(League, League.id == Season.league_id)
            .where(SeasonPlayer.player_id == player_id, SeasonPlayer.status == EntryStatus.CONFIRMED)
            .order_by(Season.id)
        ).all()
        found = [item for season, league in rows for item in _season_rounds(session, season, league, now, url)]
        return sorted(found, key=lambda item: item.starts)


def league_rounds(db: Database, league_id: int, now: datetime, url: str) -> tuple[str, str, list[RoundStart]]:
    """The league's name, language and the upcoming round starts of its seasons (for its public feed)."""
    with db.session() as session:
        league = session.get(League, league_id)
        if league is None:
            raise LinkError(N_("This link is not valid."))
        seasons = session.execute(select(Season).where(Season.league_id == league_id).order_by(Season.id)).scalars()
        found = [item for season in seasons for item in _season_rounds(session, season, league, now, url)]
        return league.name, league.language, sorted(found, key=lambda item: item.starts)
