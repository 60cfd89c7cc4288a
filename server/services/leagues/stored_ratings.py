"""Stored ratings: each finished game updates the ratings across all games (``RatingRow`` scope
``ALL_GAMES``) and, for a league game, the league's scope (the league's id), by ``ratings.rate_game`` on the stored
mu/sigma, with one ``RatingPoint`` per person and scope (the history). A person's rows are locked while a game is
applied, so that two games ending at once both count."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ...models import RatingPoint, RatingRow
from ..play import places
from . import ratings

#: the scope of the rating across all games.
ALL_GAMES = 0


def _rate(session: Session, game: places.FinishedGame, scope: int, now: datetime) -> None:
    """Apply ``game`` to the stored ratings of ``scope`` and append each rated person's point."""
    people = ratings.rated(game)
    if not people:
        return
    rows = _locked_ratings(session, scope, people, now)
    current = {pid: ratings.Rating(row.mu, row.sigma, row.games) for pid, row in rows.items()}
    ratings.rate_game(current, game)
    for player_id, rating in current.items():
        if not rating.history:
            continue
        row = rows[player_id]
        row.mu, row.sigma, row.games, row.updated_at = rating.mu, rating.sigma, rating.games, now
        session.add(
            RatingPoint(
                player_id=player_id,
                scope=scope,
                game_id=game.id,
                mu=rating.mu,
                sigma=rating.sigma,
                finished_at=game.finished_at,
            )
        )


def _locked_ratings(session: Session, scope: int, people: list[int], now: datetime) -> dict[int, RatingRow]:
    """The people's rating rows of ``scope``, locked (in id order) until the caller's commit, so that two games ending
    at once both count; a person without one gets a row at the model's start (``games`` 0), inserted in a savepoint
    (the second of two at once reads the first's)."""
    query = select(RatingRow).where(RatingRow.scope == scope, RatingRow.player_id.in_(people))
    known = set(session.execute(query.with_only_columns(RatingRow.player_id)).scalars())
    unrated = ratings.Rating()
    for player_id in (p for p in people if p not in known):
        try:
            with session.begin_nested():
                start = RatingRow(player_id=player_id, scope=scope, games=0, updated_at=now)
                start.mu, start.sigma = unrated.mu, unrated.sigma
                session.add(start)
        except IntegrityError:
            pass
    locked = query.order_by(RatingRow.player_id).with_for_update().execution_options(populate_existing=True)
    return {row.player_id: row for row in session.execute(locked).scalars()}


def rate_both(session: Session, finished: places.FinishedGame, league_id: int | None, now: datetime) -> None:
    """The game's placements applied to the ratings across all games and, for a league game, the league's."""
    _rate(session, finished, ALL_GAMES, now)
    if league_id is not None:
        _rate(session, finished, league_id, now)
