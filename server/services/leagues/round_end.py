"""The end of a round, of a season: when every game of the round is over (or abandoned with a recorded
result) the round is over: ``LEAGUE_RESULTS`` mails to every player of the season; after the last round the season is
over: ``SEASON_END`` mails. The league's channel is posted the standings after the round, and the final ones
(``channel.events``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ...models import (
    Game,
    GameStatus,
    League,
    LeagueResult,
    LeagueRound,
    MailKind,
    RoundStatus,
    Season,
    SeasonPlayer,
    SeasonStatus,
)
from ..channel import events as channel_events
from ..mailflow import outbox
from .standings import standings_in


def _round_done(session: Session, league_round: LeagueRound) -> bool:
    """Every game of the round is over, or abandoned with a recorded result."""
    if league_round.status != RoundStatus.STARTED:
        return False
    recorded = select(LeagueResult.game_id).where(LeagueResult.round_id == league_round.id)
    open_games = session.execute(
        select(func.count())
        .select_from(Game)
        .where(
            Game.round_id == league_round.id,
            Game.status != GameStatus.OVER,
            ~((Game.status == GameStatus.ABANDONED) & Game.id.in_(recorded)),
        )
    ).scalar_one()
    return open_games == 0


def _players(session: Session, season_id: int) -> list[int]:
    return [entry.player_id for entry in session.execute(SeasonPlayer.confirmed(season_id)).scalars()]


def round_over(session: Session, league_round: LeagueRound, season: Season, now: datetime) -> None:
    if not _round_done(session, league_round):
        return
    league_round.status = RoundStatus.OVER
    league_round.over_at = now
    players = _players(session, season.id)
    payload = {"round": league_round.id, "season": season.id}
    outbox.add(
        session,
        (
            outbox.player_mail(p, MailKind.LEAGUE_RESULTS, f"results:{league_round.id}:{p}", payload, now)
            for p in players
        ),
    )
    league = session.get(League, season.league_id)
    told = league is not None and channel_events.listening(session, league.id)
    table = standings_in(session, season.id, now).divisions if told else []
    if told and league is not None:
        channel_events.round_over(session, league, season, league_round, table, now)
    if league_round.number >= season.rounds:
        season.status = SeasonStatus.OVER
        if told and league is not None:
            channel_events.season_over(session, league, season, table, now)
        ended = {"season": season.id}
        outbox.add(
            session,
            (outbox.player_mail(p, MailKind.SEASON_END, f"season_end:{season.id}:{p}", ended, now) for p in players),
        )
    # else a "when_over" season's next round is started by the minute sweep (``rounds.due_seasons``): starting it
    # here would create games inside the transaction that ends one (``rounds`` imports ``games``, which end here).
