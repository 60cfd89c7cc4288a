"""An abandoned league game's result: ``record_result``, the organiser records it (victory points per
colour, or a ranking), written like a finished game's (``game_end.write_results``) and rated as far as the game went;
then the round may be over. Refused (nothing changed) for a game not in a league, not abandoned, or already recorded.
``unrecorded`` lists the season's abandoned games still without one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from sqlalchemy import func, select

import engine

from ...db import Database
from ...models import Game, GameStatus, League, LeagueResult, LeagueRound, Seat
from ..errors import N_
from ..play.outcome import recorded_game
from . import game_end, round_end, stored_ratings
from .standings import ResultError

NO_GAME = N_("There is no game %(game)s.")
NOT_LEAGUE = N_("Game %(game)s is not a league game: nothing was changed.")
NOT_ABANDONED = N_("Game %(game)s was not abandoned: its result comes from the game itself. Nothing was changed.")
ALREADY_RECORDED = N_("The result of game %(game)s is already recorded: nothing was changed.")
BAD_PLACES = N_("Give a result for every colour of the game (%(colours)s), as whole victory points from 0 to 999.")
BAD_RANKING = N_("Rank every colour of the game (%(colours)s) once, the best first.")
RANKING_NO_POINTS = N_(
    "This league scores the game's victory points: give each colour's victory points, not a ranking. "
    "Nothing was changed."
)


def _places_outcome(colours: Sequence[str], places: Mapping[str, object] | Sequence[str]) -> engine.Outcome:
    """An engine-like outcome from the organiser's victory points per colour, or ranking (best first). A ranking
    has no victory points: each colour's "score" is minus its position (-1 the best), which places it and which
    ``scoring.victory_points`` reads as none (nothing is invented)."""
    if isinstance(places, Mapping):
        points = {c: v for c, v in places.items() if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 999}
        if len(points) != len(places) or sorted(points) != sorted(colours):
            raise ResultError(BAD_PLACES, colours=list(colours))  # (a list parameter: named one by one)
    else:
        if sorted(places) != sorted(colours):
            raise ResultError(BAD_RANKING, colours=list(colours))
        points = {colour: -i for i, colour in enumerate(places, start=1)}
    best = max(points.values())
    return {"scores": points, "cards": {}, "winners": [c for c in colours if points[c] == best]}


def record_result(
    db: Database,
    game_id: int,
    places: Mapping[str, object] | Sequence[str],
    now: datetime,
    *,
    season_id: int | None = None,
) -> None:
    """The organiser's result of an abandoned league game; then the round may be over. With ``season_id`` (a league
    organiser's page), a game of any other season is answered as one that is not there (nothing told of it)."""
    with db.session() as session:
        game = session.get(Game, game_id, with_for_update=True)
        found = None if game is None else game_end.league_of(session, game)
        if game is None or (season_id is not None and (found is None or found[1].id != season_id)):
            raise ResultError(NO_GAME, game=game_id)
        if found is None:
            raise ResultError(NOT_LEAGUE, game=game_id)
        if game.status != GameStatus.ABANDONED:
            raise ResultError(NOT_ABANDONED, game=game_id)
        done = select(func.count()).select_from(LeagueResult).where(LeagueResult.game_id == game_id)
        if session.execute(done).scalar_one():
            raise ResultError(ALREADY_RECORDED, game=game_id)
        league_round, season = found
        league = session.get(League, season.league_id)
        if league is not None and league.scoring == "victory_points" and not isinstance(places, Mapping):
            raise ResultError(RANKING_NO_POINTS)
        outcome = _places_outcome([seat.colour for seat in game.seats], places)
        game_end.write_results(session, game, league_round, season, outcome, now, recorded=True)
        finished = recorded_game(session, game.id, outcome)
        if finished is not None:  # its placements rated like a finished game's (RatingPoint at the recording)
            stored_ratings.rate_both(session, replace(finished, finished_at=now), season.league_id, now)
        round_end.round_over(session, league_round, season, now)


def unrecorded(db: Database, season_id: int) -> list[tuple[int, list[str]]]:
    """The season's abandoned games without a recorded result: (game id, colours), for the organiser's form."""
    with db.session() as session:
        recorded = select(LeagueResult.game_id).where(LeagueResult.season_id == season_id)
        rounds = select(LeagueRound.id).where(LeagueRound.season_id == season_id)
        found = session.execute(
            select(Game.id, Seat.colour)
            .join(Seat, Seat.game_id == Game.id)
            .where(Game.round_id.in_(rounds), Game.status == GameStatus.ABANDONED, Game.id.not_in(recorded))
            .order_by(Game.id, Seat.position)
        ).all()
    out: dict[int, list[str]] = {}
    for game_id, colour in found:
        out.setdefault(game_id, []).append(colour)
    return list(out.items())
