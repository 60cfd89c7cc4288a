"""Deadlines: a duration per request kind, moved (once, by at most 12 h) out of the quiet hours of the players who
owe an answer."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from engine.data import KINDS

from ..models import Player
from .errors import N_, ShownError

log = logging.getLogger("deadmail.tempo")

DEFAULT_DURATION = 24 * 3600
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "": 3600}


class TempoError(ShownError):
    """A tempo setting that cannot be used; the message says which (pages translate it)."""


def closes_decided_votes(tempo: dict[str, Any] | None) -> bool:
    """The tempo's ``close_decided_votes``: a vote closes as soon as the votes still missing cannot change its
    outcome; on unless the game's tempo says false (games made before the option have it on)."""
    return (tempo or {}).get("close_decided_votes", True) is not False


def parse_duration(text: str) -> int:
    """``"24h"``, ``"90m"``, ``"2d"``, ``"30s"`` (a bare number means hours) -> seconds."""
    match = _DURATION.match(text)
    if not match:
        raise TempoError(N_("%(value)s is not a duration such as 24h, 90m, 2d or 30s"), value=repr(text))
    seconds = round(float(match.group(1)) * _UNITS[match.group(2)])
    if not 1 <= seconds <= 30 * 86400:
        raise TempoError(N_("%(value)s: a deadline must be between 1 second and 30 days"), value=repr(text))
    return seconds


def parse_deadlines(specs: Iterable[str]) -> dict[str, int]:
    """``["24h", "vote=6h"]`` -> ``{"default": 86400, "vote": 21600}``."""
    durations = {"default": DEFAULT_DURATION}
    for spec in specs:
        kind, sep, value = spec.partition("=")
        if not sep:
            durations["default"] = parse_duration(spec)
            continue
        kind = kind.strip()
        if kind not in KINDS:
            raise TempoError(
                N_("%(value)s is not a request kind (%(choices)s)"), value=repr(kind), choices=", ".join(KINDS)
            )
        durations[kind] = parse_duration(value)
    return durations


#: offered first wherever a time zone is chosen (those this system's tz database knows).
COMMON_ZONES = (
    "UTC",
    "Europe/London",
    "Europe/Dublin",
    "Europe/Lisbon",
    "Europe/Paris",
    "Europe/Berlin",
    "Europe/Rome",
    "Europe/Madrid",
    "Europe/Warsaw",
    "Europe/Athens",
    "Europe/Kyiv",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Asia/Kolkata",
    "Asia/Shanghai",
    "Asia/Tokyo",
    "Australia/Sydney",
)


@cache
def timezones() -> frozenset[str]:
    return frozenset(available_timezones())


@cache
def zone_choices() -> tuple[list[str], list[str]]:  # cached: callers only read
    """A time zone select's two groups: the common zones that exist, then every other zone, sorted."""
    zones = timezones()
    first = [z for z in COMMON_ZONES if z in zones]
    return first, sorted(zones - set(first))


def check_timezone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise TempoError(N_("%(value)s is not an IANA time zone such as Europe/Rome"), value=repr(name)) from None
    return name


def parse_clock(text: str) -> time:
    match = re.fullmatch(r"([01]?\d|2[0-3]):([0-5]\d)", text.strip())
    if not match:
        raise TempoError(N_("%(value)s is not a time of day such as 22:30"), value=repr(text))
    return time(int(match.group(1)), int(match.group(2)))


@dataclass(frozen=True)
class Quiet:
    """A player's quiet hours, in their own time zone; they may wrap past midnight (22:00-07:00)."""

    zone: str
    start: time
    end: time

    def end_of_quiet(self, at: datetime) -> datetime | None:
        """If ``at`` falls in the quiet hours, the instant they end; otherwise None."""
        local = at.astimezone(ZoneInfo(self.zone))
        clock = local.time().replace(tzinfo=None)
        if self.start == self.end:
            return None
        if self.start < self.end:
            inside = self.start <= clock < self.end
            end_day = local.date()
        else:  # wraps midnight
            inside = clock >= self.start or clock < self.end
            end_day = local.date() + timedelta(days=1) if clock >= self.start else local.date()
        if not inside:
            return None
        end = datetime.combine(end_day, self.end, tzinfo=ZoneInfo(self.zone))
        if end <= at:  # the end's wall time repeats (clocks going back) and ``at`` is in its second pass
            end = end.replace(fold=1)
        return end.astimezone(at.tzinfo)


def quiet_of(player: Player) -> Quiet | None:
    """The player's quiet hours; None when they have none or the stored values cannot be read."""
    if not (player.quiet_start and player.quiet_end):
        return None
    try:
        zone = check_timezone(player.timezone or "UTC")
        return Quiet(zone, parse_clock(player.quiet_start), parse_clock(player.quiet_end))
    except TempoError:
        log.warning("player %s: unreadable quiet hours or time zone; ignoring them", player.id)
        return None


def in_quiet_hours(player: Player, now: datetime) -> datetime | None:
    """When the player's quiet hours end, if ``now`` is inside them; else None."""
    quiet = quiet_of(player)
    return None if quiet is None else quiet.end_of_quiet(now)


#: the furthest quiet hours may move a deadline.
MAX_SHIFT = timedelta(hours=12)


def window_deadline(
    now: datetime, kinds: Iterable[str], tempo: dict[str, Any], quiet: Iterable[Quiet] = ()
) -> datetime:
    """When a window closes: the longest duration of its kinds; then, if some owing players are in their quiet hours
    then, moved once, by at most ``MAX_SHIFT``, to the earliest instant of that range at which the most of them are
    awake (players whose nights together cover the whole day no longer push it for days)."""
    durations: dict[str, int] = tempo.get("durations", {})
    default = durations.get("default", DEFAULT_DURATION)
    seconds = max((durations.get(kind, default) for kind in kinds), default=default)
    deadline = now + timedelta(seconds=seconds)
    quiet = list(quiet)
    if not tempo.get("avoid_quiet_hours", True) or not quiet:
        return deadline

    def asleep(at: datetime) -> int:
        return sum(q.end_of_quiet(at) is not None for q in quiet)

    latest = deadline + MAX_SHIFT
    candidates = [deadline, *(w for q in quiet for w in _wakings(q, deadline, latest))]
    return min(candidates, key=lambda at: (asleep(at), at))


def _wakings(q: Quiet, start: datetime, end: datetime) -> list[datetime]:
    """The instants in ``(start, end]`` at which ``q``'s quiet hours end (the only ones at which someone wakes)."""
    zone = ZoneInfo(q.zone)
    first, last = start.astimezone(zone).date() - timedelta(days=1), end.astimezone(zone).date()
    out = []
    for day in range((last - first).days + 1):
        falls_asleep = datetime.combine(first + timedelta(days=day), q.start, tzinfo=zone)
        waking = q.end_of_quiet(falls_asleep)
        if waking is not None and start < waking <= end:
            out.append(waking.astimezone(start.tzinfo))
    wakes_now = q.end_of_quiet(start)  # asleep at ``start``: the end of that night
    if wakes_now is not None and wakes_now <= end:
        out.append(wakes_now)
    return out
