"""A game's end in the leagues, registered on play's hook (``play.hooks.on_game_over``, in
``server/services/__init__.py``): ``game_over`` runs in the transaction that ends a game. Every finished game updates
the stored ratings (``stored_ratings``); the shares of partial play are ``play.outcome.finished_game``'s. A league game
(``Game.round_id``) writes one ``LeagueResult`` per seat (``write_results``), credited to who started the seat, with
how it ended (on autopilot, or handed over to a substitute) and the substitute, raises ``Season.results_version``
and stores the standings; then the round may be over (``round_end``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine

from ...models import Game, LeagueResult, LeagueRound, Season, SeatTenure
from ..play.outcome import finished_game
from . import round_end, scoring, standings, stored_ratings


def _credits(session: Session, game: Game) -> dict[str, scoring.Credit]:
    """Colour -> who started the seat, how it ended and who finished it (bots' seats: ``Credit(None)``)."""
    first: dict[int, int | None] = {}
    for seat_id, player_id in session.execute(
        select(SeatTenure.seat_id, SeatTenure.player_id)
        .where(SeatTenure.seat_id.in_([seat.id for seat in game.seats]))
        .order_by(SeatTenure.seat_id, SeatTenure.id)
    ).all():
        first.setdefault(seat_id, player_id)
    out = {}
    for seat in game.seats:
        holder = seat.player_id if seat.bot is None else None
        starter = first.get(seat.id, holder)
        if seat.id not in first and seat.bot is not None:
            starter = None
        if starter is None:
            out[seat.colour] = scoring.Credit(None)
        elif holder != starter:
            out[seat.colour] = scoring.Credit(starter, scoring.Ending.SUBSTITUTED, holder)
        elif seat.autopilot_at is not None:
            out[seat.colour] = scoring.Credit(starter, scoring.Ending.AUTOPILOT)
        else:
            out[seat.colour] = scoring.Credit(starter)
    return out


def league_of(session: Session, game: Game) -> tuple[LeagueRound, Season] | None:
    """The league game's round and its season, locked until the caller's commit; None: not a league game."""
    if game.round_id is None:
        return None
    league_round = session.get(LeagueRound, game.round_id)
    season = None if league_round is None else session.get(Season, league_round.season_id, with_for_update=True)
    return None if league_round is None or season is None else (league_round, season)


def write_results(
    session: Session,
    game: Game,
    league_round: LeagueRound,
    season: Season,
    outcome: engine.Outcome,
    now: datetime,
    *,
    recorded: bool = False,
) -> None:
    """One ``LeagueResult`` per seat of ``outcome``, the season's ``results_version`` raised and its standings
    stored."""
    result = scoring.from_outcome(game.id, outcome, _credits(session, game))
    for seat in result.seats:
        session.add(
            LeagueResult(
                season_id=season.id,
                round_id=league_round.id,
                game_id=game.id,
                colour=seat.colour,
                player_id=seat.player,
                ending=seat.ending.value,
                substitute_id=seat.substitute,
                points=seat.points,
                cards=seat.cards,
                winner=seat.winner,
                recorded=recorded,
                finished_at=now,
            )
        )
    season.results_version = (season.results_version or 0) + 1
    session.flush()
    standings.store(session, season, now)  # here, under the season's lock: no reader waits for the computation


def game_over(session: Session, game: Game, now: datetime) -> None:
    """The game just ended (its status and outcome are set, in this transaction): ratings, league results, and the
    round's end when it was its last game."""
    session.flush()
    finished = finished_game(session, game.id)
    found = league_of(session, game)
    if finished is not None:
        stored_ratings.rate_both(session, finished, None if found is None else found[1].league_id, now)
    if found is not None and game.outcome:
        league_round, season = found
        write_results(session, game, league_round, season, game.outcome, now)
        round_end.round_over(session, league_round, season, now)
