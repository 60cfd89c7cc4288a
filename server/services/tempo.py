"""Deadlines: a duration per request kind, moved (once, by at most 12 h) out of the quiet hours of the players who
owe an answer; or, in a game with play hours, a short deadline inside the daily sessions; and the last call of the
one player everyone waits for."""

from __future__ import annotations

import logging
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import cache, lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

import engine
from engine.data import KINDS

from ..models import Player, PlayHoursJSON, TempoJSON
from .errors import N_, ShownError

log = logging.getLogger("deadmail.tempo")

DEFAULT_DURATION = 24 * 3600
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "": 3600}


class TempoError(ShownError):
    """A tempo setting that cannot be used; the message says which (pages translate it)."""


def closes_decided_votes(tempo: TempoJSON | None) -> bool:
    """The tempo's ``close_decided_votes``: a vote closes as soon as the votes still missing cannot change its
    outcome; on unless the game's tempo says false (games made before the option have it on)."""
    return tempo is None or tempo.get("close_decided_votes", True) is not False


def parse_duration(text: str) -> int:
    """``"24h"``, ``"90m"``, ``"2d"``, ``"30s"`` (a bare number means hours) -> seconds; TempoError for any other
    text, and for a duration shorter than a second or longer than 30 days (however many digits it has)."""
    match = _DURATION.match(text)
    if not match:
        raise TempoError(N_("%(value)s is not a duration such as 24h, 90m, 2d or 30s"), value=repr(text[:40]))
    number = match.group(1)
    # a number of more digits than any duration taken is out of range at once (as a float it may be infinite)
    seconds = round(float(number) * _UNITS[match.group(2)]) if len(number.split(".")[0]) <= 9 else 0
    if not 1 <= seconds <= 30 * 86400:
        raise TempoError(N_("%(value)s: a deadline must be between 1 second and 30 days"), value=repr(text[:40]))
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


@cache
def timezones() -> frozenset[str]:
    return frozenset(available_timezones())


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
        if self.start == self.end:
            return None
        local = at.astimezone(ZoneInfo(self.zone))
        clock = local.time()  # (naive: the local wall time)
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

    def next_start(self, at: datetime) -> datetime | None:
        """The first instant after ``at`` at which the quiet hours begin; None when there are none."""
        if self.start == self.end:
            return None
        zone = ZoneInfo(self.zone)
        local = at.astimezone(zone)
        begins = datetime.combine(local.date(), self.start, tzinfo=zone)
        if begins <= local:
            begins = datetime.combine(local.date() + timedelta(days=1), self.start, tzinfo=zone)
        return begins.astimezone(at.tzinfo)


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


def deadline_quiet(
    requests: Iterable[engine.Request], colours: Iterable[str], quiet_for: Callable[[str], Quiet | None]
) -> list[Quiet]:
    """The quiet hours a window's deadline keeps out of (``window_deadline``): those of the players its
    ``requests`` ask; everyone's (``colours``) when being asked tells what a player holds (a card
    window: a deadline kept out of only the askeds' nights would tell who they are, B-INFO)."""
    requests = list(requests)
    secret = any(engine.asked_in_secret(r) for r in requests)
    owing = colours if secret else [r.player for r in requests]
    return [q for c in owing if (q := quiet_for(c)) is not None]


#: the furthest quiet hours may move a deadline.
MAX_SHIFT = timedelta(hours=12)


def window_deadline(now: datetime, kinds: Iterable[str], tempo: TempoJSON, quiet: Iterable[Quiet] = ()) -> datetime:
    """When a window closes: the longest duration of its kinds; then, if some owing players are in their quiet hours
    then, moved once, by at most ``MAX_SHIFT``, to the earliest instant of that range at which the most of them are
    awake (players whose nights together cover the whole day no longer push it for days).

    With play hours: the short deadline from now inside a session, else from the next session's start; quiet hours
    do not move it (the sessions are the agreed time)."""
    hours = PlayHours.of(tempo)
    if hours is not None:
        return hours.deadline_from(now)
    durations: dict[str, int] = tempo.get("durations", {})
    default = durations.get("default", DEFAULT_DURATION)
    seconds = max((durations.get(kind, default) for kind in kinds), default=default)
    deadline = now + timedelta(seconds=seconds)
    nights = Counter(quiet)  # the same quiet hours once, counted as often as they are given (players of one zone)
    if not tempo.get("avoid_quiet_hours", True) or not nights:
        return deadline

    def asleep(at: datetime) -> int:
        return sum(n for q, n in nights.items() if q.end_of_quiet(at) is not None)

    latest = deadline + MAX_SHIFT
    candidates = [deadline, *(w for q in nights for w in _wakings(q, deadline, latest))]
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


# --- last call ----------------------------------------------------------------------------------------------------


def last_call_deadline(now: datetime, deadline: datetime, seconds: int, quiet: Quiet | None = None) -> datetime:
    """The deadline once everyone but one player has answered: the earlier of ``deadline`` and the end of the last
    call, which counts only the player's waking hours (a last call never ends in their quiet hours, nor is it spent
    while they sleep)."""
    left, at = timedelta(seconds=seconds), now
    while quiet is not None and at < deadline:
        at = quiet.end_of_quiet(at) or at
        sleeps = quiet.next_start(at)
        if sleeps is None or at + left <= sleeps:
            break
        left -= sleeps - at
        at = sleeps
    return min(at + left, deadline)


def last_call_of(tempo: TempoJSON) -> int | None:
    """The game's last call in seconds; None when it is off (absent, null or unreadable)."""
    value = tempo.get("last_call")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


@lru_cache(maxsize=1 << 16)
def waking_seconds(start: datetime, end: datetime, quiet: Quiet | None = None) -> float:
    """The seconds from ``start`` to ``end`` outside the ``quiet`` hours. Cached (a pure function of values): a
    last call counts the pace of every answer the player gave in the game, again at each last call, and an
    estimate plays hundreds of games (uncached, the create page's estimate took 6-17 s)."""
    total, at = 0.0, start
    while at < end:
        if quiet is not None:
            at = quiet.end_of_quiet(at) or at
        sleeps = None if quiet is None else quiet.next_start(at)
        stop = end if sleeps is None else min(sleeps, end)
        total += max((stop - at).total_seconds(), 0.0)
        at = stop
    return total


#: a last call shrinks for a player who usually answers quickly: to ``PACE_FACTOR`` times the median time they took
#: to answer (in waking hours), once they answered ``PACE_ANSWERS`` requests of the game themselves; never below
#: ``PACE_FLOOR``. A player who reads mail every hour gets about 3 hours, one who reads it every 3 hours the whole
#: last call (bench/tempo.py, docs/PERFORMANCE.md "Tempo").
PACE_FACTOR = 4
PACE_ANSWERS = 6
PACE_FLOOR = 3600


def last_call_end(
    tempo: TempoJSON,
    now: datetime,
    deadline: datetime,
    quiet: Quiet | None,
    answered: Iterable[tuple[datetime, datetime]] = (),
) -> datetime:
    """The window's deadline once the game's last call (``last_call_of``, which must be on) is called at ``now``
    for the player with the ``quiet`` hours: ``last_call_deadline``, counting their waking hours only, unless the
    game lets deadlines fall in quiet hours or has play hours (the sessions are the agreed time). ``answered``: when
    each request the player answered themselves in this game opened and when they answered it (their pace)."""
    seconds = last_call_of(tempo)
    assert seconds is not None
    keep_quiet = quiet if tempo.get("avoid_quiet_hours", True) and PlayHours.of(tempo) is None else None
    paces = [waking_seconds(opened, at, keep_quiet) for opened, at in answered]
    if len(paces) >= PACE_ANSWERS:
        seconds = int(min(seconds, max(PACE_FLOOR, PACE_FACTOR * statistics.median(paces))))
    return last_call_deadline(now, deadline, seconds, keep_quiet)


# --- play hours ---------------------------------------------------------------------------------------------------

DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_PLAY_HOURS = re.compile(r"^\s*(\S+)\s+(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s+(\S+)\s*$")
BAD_PLAY_HOURS = N_("%(value)s are not play hours such as Mon-Sun 20:30-22:00 Europe/Rome")


@dataclass(frozen=True)
class PlayHours:
    """Daily sessions in one time zone: on each of ``days`` (Monday = 0, the day a session starts) from ``start``
    to ``end`` (past midnight when ``end`` is not after ``start``); ``deadline`` seconds to answer in them."""

    zone: str
    days: frozenset[int]
    start: time
    end: time
    deadline: int

    @classmethod
    def of(cls, tempo: TempoJSON) -> PlayHours | None:
        """The game's play hours; None when it has none (or, logged, when the stored ones cannot be read)."""
        stored = tempo.get("play_hours")
        if not stored:
            return None
        key = repr(stored)  # read once per value (an estimate asks for every window of hundreds of games)
        if key not in _READ:
            if len(_READ) >= 1024:
                _READ.clear()
            try:
                _READ[key] = cls.from_json(stored)
            except TempoError:
                log.warning("unreadable play hours %r; ignoring them", stored)
                _READ[key] = None
        return _READ[key]

    @classmethod
    def from_json(cls, data: object) -> PlayHours:
        """``{"zone", "days", "start", "end", "deadline"}`` (the tempo's ``play_hours``), checked."""
        if not isinstance(data, dict) or set(data) != {"zone", "days", "start", "end", "deadline"}:
            raise TempoError(
                N_('play hours are {"zone", "days", "start", "end", "deadline"}, or a text such as %(example)s'),
                example="Mon-Sun 20:30-22:00 Europe/Rome",
            )
        days, deadline = data["days"], data["deadline"]
        if not isinstance(days, list) or not days or not all(_is_day(d) for d in days):
            raise TempoError(N_("the days of play hours are a list of numbers from 0 (Monday) to 6 (Sunday)"))
        if not isinstance(deadline, int) or isinstance(deadline, bool) or not 1 <= deadline <= 86400:
            raise TempoError(N_("the deadline in play hours is from 1 second to 24 hours"))
        start, end = parse_clock(str(data["start"])), parse_clock(str(data["end"]))
        if start == end:
            raise TempoError(N_("a session of play hours must end at another time than it starts"))
        return cls(check_timezone(str(data["zone"])), frozenset(days), start, end, deadline)

    def to_json(self) -> PlayHoursJSON:
        return {
            "zone": self.zone,
            "days": sorted(self.days),
            "start": self.start.strftime("%H:%M"),
            "end": self.end.strftime("%H:%M"),
            "deadline": self.deadline,
        }

    def _session(self, day: date) -> tuple[datetime, datetime]:
        """The session starting on ``day`` (whether or not one is held that day), in UTC."""
        zone = ZoneInfo(self.zone)
        end_day = day if self.end > self.start else day + timedelta(days=1)
        start = datetime.combine(day, self.start, tzinfo=zone).astimezone(UTC)
        return start, datetime.combine(end_day, self.end, tzinfo=zone).astimezone(UTC)

    def _days_from(self, at: datetime, count: int) -> tuple[tuple[datetime, datetime], ...]:
        """The sessions held from the local day before ``at``'s, for ``count`` days."""
        return _sessions(self, at.astimezone(ZoneInfo(self.zone)).date() - timedelta(days=1), count)

    def session_at(self, at: datetime) -> tuple[datetime, datetime] | None:
        """The session going on at ``at`` (its start and end, in UTC), or None."""
        return next(((s, e) for s, e in self._days_from(at, 3) if s <= at < e), None)

    def next_start(self, at: datetime) -> datetime:
        """The start of the first session after ``at`` (in UTC)."""
        return next(s for s, _ in self._days_from(at, 10) if s > at)

    def deadline_from(self, now: datetime) -> datetime:
        """A window's deadline: the short deadline from now in a session, else from the next session's start."""
        base = now if self.session_at(now) is not None else self.next_start(now)
        return (base + timedelta(seconds=self.deadline)).astimezone(now.tzinfo)

    def next_session_deadline(self, now: datetime) -> datetime:
        """The short deadline counted from the start of the first session after ``now``: how long a window waits
        for players absent from a session (``turns._wait_for_absent``)."""
        return (self.next_start(now) + timedelta(seconds=self.deadline)).astimezone(now.tzinfo)


#: play hours read from tempos (``PlayHours.of``), by the stored value's repr.
_READ: dict[str, PlayHours | None] = {}


@lru_cache(maxsize=4096)
def _sessions(hours: PlayHours, first: date, count: int) -> tuple[tuple[datetime, datetime], ...]:
    """The sessions held on ``count`` local days from ``first``: a pure function of values, cached (the estimate
    asks for the same days again and again)."""
    days = (first + timedelta(days=offset) for offset in range(count))
    return tuple(hours._session(day) for day in days if day.weekday() in hours.days)


def _is_day(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 6


def _days(text: str) -> frozenset[int]:
    """``"Mon-Fri,Sun"``, ``"Fri-Mon"`` (a range may wrap past Sunday), ``"daily"`` -> day numbers (Monday = 0)."""
    if text.lower() in ("daily", "every"):
        return frozenset(range(7))
    days: set[int] = set()
    for part in text.lower().split(","):
        first, sep, last = part.partition("-")
        if first[:3] not in DAY_NAMES or (sep and last[:3] not in DAY_NAMES):
            raise TempoError(BAD_PLAY_HOURS, value=repr(text))
        a = DAY_NAMES.index(first[:3])
        b = DAY_NAMES.index(last[:3]) if sep else a
        days.update((a + i) % 7 for i in range((b - a) % 7 + 1))
    return frozenset(days)


def parse_play_hours(text: str, deadline: str = "10m") -> PlayHoursJSON:
    """``"Mon-Sun 20:30-22:00 Europe/Rome"`` and a deadline such as ``"10m"`` -> the tempo's ``play_hours``."""
    match = _PLAY_HOURS.match(text)
    if not match:
        raise TempoError(BAD_PLAY_HOURS, value=repr(text))
    days, start, end, zone = match.groups()
    data = {"zone": zone, "days": sorted(_days(days)), "start": start, "end": end, "deadline": parse_duration(deadline)}
    return PlayHours.from_json(data).to_json()


def zone(name: object) -> ZoneInfo:
    """The IANA time zone ``name``; UTC for anything unknown or malformed."""
    if isinstance(name, str) and 0 < len(name) <= 64:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            pass
    return ZoneInfo("UTC")
