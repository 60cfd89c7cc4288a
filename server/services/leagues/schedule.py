"""A season's schedule: when its rounds start. Reads rows only; no other service.

- ``round_starts``: a fixed schedule's starts, weekly at the same local time in the league's zone.
- ``upcoming_rounds``: the rounds not yet started, with their start when known (the hub, the calendars, the rounds).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...models import LeagueRound, RoundStatus, ScheduleRuleJSON, Season, SeasonStatus


def round_starts(rule: ScheduleRuleJSON, zone: str, after: datetime, rounds: int) -> list[datetime]:
    """A fixed schedule's round starts (UTC): the first at the rule's weekday and time (in the league's ``zone``)
    strictly after ``after`` (the sign-up's close), then one a week at the same local time (across DST changes)."""
    local = after.astimezone(ZoneInfo(zone))
    hour, minute = (int(part) for part in rule["time"].split(":"))
    first = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    first += timedelta(days=(rule["weekday"] - first.weekday()) % 7)
    if first <= local:
        first += timedelta(days=7)
    return [
        datetime.combine(first.date() + timedelta(weeks=k), first.time(), first.tzinfo).astimezone(UTC)
        for k in range(rounds)
    ]


def upcoming_rounds(session: Session, season: Season, zone: str, now: datetime) -> list[tuple[int, datetime | None]]:
    """The season's rounds not yet started, in order, each with its start when known: a planned round's
    ``starts_at``; for a fixed schedule's round without a row yet, ``round_starts`` from the sign-up's close."""
    if season.status == SeasonStatus.OVER:
        return []
    rows = {
        r.number: r for r in session.execute(select(LeagueRound).where(LeagueRound.season_id == season.id)).scalars()
    }
    fixed = None
    if season.schedule == "fixed" and season.schedule_rule:
        fixed = round_starts(season.schedule_rule, zone, season.signup_closes, season.rounds)
    found: list[tuple[int, datetime | None]] = []
    for number in range(1, season.rounds + 1):
        row = rows.get(number)
        if row is not None and row.status != RoundStatus.PLANNED:
            continue
        start = row.starts_at if row is not None and row.starts_at is not None else None
        if start is None and row is None and fixed is not None:
            start = fixed[number - 1]
        if start is None or start > now:
            found.append((number, start))
    return found
