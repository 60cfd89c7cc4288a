"""What the season pages read: which season a reader may see (``season_of_member``, a member's;
``season_of_league``, the league's organiser's; ``public_seasons``, anyone's when the league's standings are public),
and a player's games of a season with their results (``player_games``)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...db import Database
from ...models import (
    EntryStatus,
    Game,
    GameStatus,
    League,
    LeagueResult,
    LeagueRound,
    Player,
    Season,
    SeasonPlayer,
    Seat,
    SeatTenure,
)
from ..errors import N_
from ..play.places import placings
from . import scoring
from .standings import ResultError

NOT_MEMBER = N_("You are not in season %(season)s of this league.")
OTHER_LEAGUE = N_("There is no season %(season)s in this league.")
NOT_PUBLIC = N_("This league's standings are shown to its players only.")


@dataclass(frozen=True)
class SeasonShown:
    season_id: int
    number: int
    league_id: int
    league: str
    status: str
    standings_public: bool


def _shown(session: Session, season: Season) -> SeasonShown:
    league = session.get(League, season.league_id)
    assert league is not None
    return SeasonShown(season.id, season.number, league.id, league.name, season.status, league.standings_public)


def season_of_member(db: Database, season_id: int, player_id: int) -> SeasonShown:
    """The season, for a player with an entry in it (confirmed, or withdrawn after playing); else ResultError."""
    with db.session() as session:
        season = session.get(Season, season_id)
        entry = session.execute(
            select(SeasonPlayer.status).where(SeasonPlayer.season_id == season_id, SeasonPlayer.player_id == player_id)
        ).scalar_one_or_none()
        if season is None or entry is None or entry == EntryStatus.PENDING:
            raise ResultError(NOT_MEMBER, season=season_id)
        if entry == EntryStatus.WITHDRAWN and not _played_in(session, season_id, player_id):
            raise ResultError(NOT_MEMBER, season=season_id)
        return _shown(session, season)


def _played_in(session: Session, season_id: int, player_id: int) -> bool:
    """The player has a result in the season, or holds a seat of one of its games."""
    result = select(LeagueResult.id).where(
        LeagueResult.season_id == season_id,
        (LeagueResult.player_id == player_id) | (LeagueResult.substitute_id == player_id),
    )
    seat = (
        select(Seat.id)
        .join(Game, Game.id == Seat.game_id)
        .join(LeagueRound, LeagueRound.id == Game.round_id)
        .where(LeagueRound.season_id == season_id, Seat.player_id == player_id)
    )
    return session.execute(select(result.exists() | seat.exists())).scalar_one()


def season_of_league(db: Database, season_id: int, league_id: int) -> SeasonShown:
    """The season when it is the league's; else ResultError."""
    with db.session() as session:
        season = session.get(Season, season_id)
        if season is None or season.league_id != league_id:
            raise ResultError(OTHER_LEAGUE, season=season_id)
        return _shown(session, season)


def public_seasons(db: Database, league_id: int) -> list[SeasonShown]:
    """The league's seasons, the newest first, when its standings are public; else ResultError."""
    with db.session() as session:
        league = session.get(League, league_id)
        if league is None or not league.standings_public:
            raise ResultError(NOT_PUBLIC)
        found = session.execute(
            select(Season).where(Season.league_id == league_id).order_by(Season.number.desc())
        ).scalars()
        return [_shown(session, season) for season in found]


@dataclass(frozen=True)
class SeasonGame:
    """One of a player's games of a season, as a page lists it: the seat's result once there is one; ``seat_id`` and
    ``generation`` only when the reader holds the seat (its replay link is theirs)."""

    game_id: int
    round: int
    status: str
    colour: str
    ending: str | None
    points: int | None
    place: int | None
    of: int
    substitute: bool
    seat_id: int | None = None
    generation: int = 0


def player_games(db: Database, season_id: int, player_id: int, reader_id: int | None) -> tuple[str, list[SeasonGame]]:
    """(the player's name, their games of the season by round): every seat they were credited with, or started. A
    person with neither an entry nor a game in the season: ("", []) (nobody's name is read by trying ids)."""
    with db.session() as session:
        entered = select(SeasonPlayer.id).where(
            SeasonPlayer.season_id == season_id, SeasonPlayer.player_id == player_id
        )
        name = session.execute(select(Player.display_name).where(Player.id == player_id)).scalar_one_or_none()
        results = session.execute(
            select(LeagueResult).where(
                LeagueResult.season_id == season_id,
                (LeagueResult.player_id == player_id) | (LeagueResult.substitute_id == player_id),
            )
        ).scalars()
        credited = {(r.game_id, r.colour): r for r in results}
        rounds = select(LeagueRound.id).where(LeagueRound.season_id == season_id)
        former = select(SeatTenure.seat_id).where(SeatTenure.player_id == player_id)
        seats = session.execute(
            select(Game.id, Game.status, LeagueRound.number, Seat.id, Seat.colour, Seat.player_id, Seat.bot)
            .join(Seat, Seat.game_id == Game.id)
            .join(LeagueRound, LeagueRound.id == Game.round_id)
            .where(Game.round_id.in_(rounds))
            .order_by(LeagueRound.number, Game.id, Seat.position)
        ).all()
        places = _places(session, {game_id for game_id, *_ in seats})
        mine = set(session.execute(former).scalars())
        out = []
        for game_id, status, number, seat_id, colour, holder, bot in seats:
            result = credited.get((game_id, colour))
            if result is None and holder != player_id and seat_id not in mine:
                continue
            place, of = places.get(game_id, {}).get(colour, (None, 0))
            held = reader_id is not None and reader_id == player_id == holder and bot is None
            seat = session.get(Seat, seat_id) if held and status == GameStatus.OVER else None
            out.append(
                SeasonGame(
                    game_id,
                    number,
                    status,
                    colour,
                    None if result is None else result.ending,
                    None if result is None else scoring.victory_points(result.points),
                    place,
                    of,
                    result is not None and result.substitute_id == player_id,
                    None if seat is None else seat.id,
                    0 if seat is None else seat.link_generation,
                )
            )
        if not out and session.execute(entered).first() is None:
            return "", []
        return name or "", out


def _places(session: Session, game_ids: set[int]) -> dict[int, dict[str, tuple[int, int]]]:
    """Game id -> colour -> (place, of how many), from the stored results."""
    found = session.execute(
        select(LeagueResult.game_id, LeagueResult.colour, LeagueResult.points, LeagueResult.cards).where(
            LeagueResult.game_id.in_(sorted(game_ids))
        )
    ).all()
    by_game: dict[int, tuple[dict[str, int], dict[str, int]]] = {}
    for game_id, colour, points, cards in found:
        by_game.setdefault(game_id, ({}, {}))[0][colour] = points
        by_game[game_id][1][colour] = cards
    return {
        game_id: {c: (place, len(points)) for c, place, _span in placings(list(points), points, cards)}
        for game_id, (points, cards) in by_game.items()
    }
