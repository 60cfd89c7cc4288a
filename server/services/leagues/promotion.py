"""The next season: ``next_season`` creates it from a finished one in one step (same rounds, schedule,
limit, divisions): its confirmed players are carried over as *pending* entries, each mailed a confirmation; with
divisions, each player keeps their division moved by promotion and relegation (``promoted_and_relegated``), and
players without one are placed by their league rating; a season's first round places its players without a division
the same way (``place_divisions``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ...db import Database
from ...models import EntryStatus, RatingRow, Season, SeasonPlayer, SeasonStatus
from .. import inputs
from ..errors import N_
from ..mailflow import outbox
from . import scoring
from .standings import NO_SEASON, ResultError, Standings, season_divisions, standings_in

NOT_OVER = N_("Season %(season)s is not over yet: the next one is created from a finished season.")
HAS_NEXT = N_("The next season of season %(season)s was already created: nothing was changed.")
CLOSES_PAST = N_("The sign-up must close in the future.")
BAD_DAYS = N_("The sign-up of the next season stays open 1 to %(count)s days.")
#: the organiser's form: the next season's sign-up stays open at most this many days.
MAX_SIGNUP_DAYS = 90


def _placed_by_rating(session: Session, league_id: int, players: Sequence[int], count: int) -> dict[int, str]:
    """``players`` split into ``count`` divisions "1" (the highest) … by their league rating's ordinal, best first
    (no rating: last, by id); the divisions as even as can be."""
    found = dict(
        session.execute(
            select(RatingRow.player_id, RatingRow.mu - 3 * RatingRow.sigma).where(
                RatingRow.scope == league_id, RatingRow.player_id.in_(list(players))
            )
        ).all()
    )
    ordered = sorted(players, key=lambda p: (p not in found, -float(found.get(p, 0.0)), p))
    size = max(1, math.ceil(len(ordered) / max(1, count)))
    return {player: str(min(count, i // size + 1)) for i, player in enumerate(ordered)}


def promoted_and_relegated(season: Season, table: Standings) -> dict[int, str]:
    """Player -> the division they move to in the next season (promotion and relegation of the top and bottom
    ``season.promote`` of each division "1" (the highest) … ``season.divisions``); nobody without divisions."""
    count = season.divisions or 0
    if not count or not season.promote:
        return {}
    order = [str(i) for i in range(1, count + 1)]
    by_division = {name: [scoring.Row(row["player"]) for row in rows] for name, rows in table.divisions}
    ranked = {name: by_division.get(name, []) for name in order}
    return {move.player: move.destination for move in scoring.promotion_relegation(ranked, season.promote, order)}


def _moved(session: Session, season: Season, players: Sequence[int], now: datetime) -> dict[int, str]:
    """Each player's division in the next season: their division moved by promotion and relegation; players
    without one placed by rating."""
    count = season.divisions or 0
    before = season_divisions(session, season.id)
    kept = {p: before[p] for p in players if p in before}
    moved = promoted_and_relegated(season, standings_in(session, season.id, now))
    kept |= {p: division for p, division in moved.items() if p in kept}
    rest = [p for p in players if p not in kept]
    return kept | _placed_by_rating(session, season.league_id, rest, count) if rest else kept


def place_divisions(session: Session, season: Season) -> None:
    """A season with divisions, as a round is planned or started: each confirmed player without a division (every player
    of a league's first season) is placed by their league rating (``_placed_by_rating``)."""
    if not season.divisions:
        return
    entries = session.execute(
        select(SeasonPlayer).where(
            SeasonPlayer.season_id == season.id,
            SeasonPlayer.status == EntryStatus.CONFIRMED,
            SeasonPlayer.division.is_(None),
        )
    ).scalars()
    unplaced = {entry.player_id: entry for entry in entries}
    placed = _placed_by_rating(session, season.league_id, list(unplaced), season.divisions) if unplaced else {}
    for player_id, division in placed.items():
        unplaced[player_id].division = division


def next_season(db: Database, season_id: int, signup_closes: datetime, now: datetime) -> int:
    """The next season of a finished one (its id): same rounds, schedule, limit and divisions; its confirmed players
    carried over as pending entries, each mailed a confirmation, with their divisions and the acquaintances they
    declared (``SeasonPlayer.knows``: still kept apart; the confirmation page lets them change the list).
    ``signup_closes`` out of ``inputs.YEARS`` (however its caller read it) is an ``InputError``."""
    inputs.in_range(signup_closes, "signup_closes")
    with db.session() as session:
        season = session.get(Season, season_id, with_for_update=True)
        if season is None:
            raise ResultError(NO_SEASON, season=season_id)
        if season.status != SeasonStatus.OVER:
            raise ResultError(NOT_OVER, season=season.number)
        if session.execute(select(Season.id).where(Season.previous_id == season.id)).first() is not None:
            raise ResultError(HAS_NEXT, season=season.number)
        if signup_closes <= now:
            raise ResultError(CLOSES_PAST)
        number = session.execute(select(func.max(Season.number)).where(Season.league_id == season.league_id))
        created = Season(
            league_id=season.league_id,
            number=(number.scalar_one() or 0) + 1,
            signup_closes=signup_closes,
            rounds=season.rounds,
            schedule=season.schedule,
            schedule_rule=season.schedule_rule,
            status=SeasonStatus.SIGNUP,
            max_players=season.max_players,
            divisions=season.divisions,
            promote=season.promote,
            previous_id=season.id,
            results_version=0,
            created_at=now,
        )
        session.add(created)
        session.flush()
        outbox.release_invitations(session, season.league_id, now)  # invitations held until a season takes sign-ups
        carried = list(session.execute(SeasonPlayer.confirmed(season.id)).scalars())
        players = [entry.player_id for entry in carried]
        knows = {entry.player_id: entry.knows for entry in carried}
        divisions = _moved(session, season, players, now) if season.divisions else {}
        for player_id in players:
            entry = SeasonPlayer(
                season_id=created.id,
                player_id=player_id,
                status=EntryStatus.PENDING,
                division=divisions.get(player_id),
                knows=list(knows[player_id] or []) or None,  # (kept apart again; editable as they confirm)
                created_at=now,
            )
            session.add(entry)
            session.flush()
            outbox.confirm_entry(session, entry, now)
        return created.id
