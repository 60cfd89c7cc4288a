"""The league organiser's forms read: a new league's fields as a ``LeagueSpec``, a new season's as the
arguments of ``seasons.create_season`` (the sign-up's close given as a date and a time in the league's zone), and
the addresses to invite. Each field is passed on as typed when it is not what it should be, so the service's own
check refuses it with its message; nothing here decides what is allowed."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from werkzeug.datastructures import MultiDict

from ..services import inputs
from ..services.errors import N_
from ..services.inputs import small_int
from ..services.leagues import scoring, seasons
from ..services.leagues.seasons import LeagueError, LeagueSpec, Sizes

#: the form's fields of a new league and of a new season (a refused form comes back with them).
LEAGUE_FIELDS = (
    "name",
    "organiser_email",
    "language",
    "timezone",
    "table_size",
    "preset",
    "scoring",
    "forfeit",
    "standings_public",
)
TIE_FIELDS = tuple(f"tie_break_{k}" for k in range(1, len(scoring.TIE_BREAKS) + 1))
SEASON_FIELDS = (
    "closes_date",
    "closes_time",
    "rounds",
    "schedule",
    "weekday",
    "time",
    "max_players",
    "divisions",
    "promote",
)
BAD_CLOSES = N_("Give the day and the time the sign-up closes, such as 2031-03-01 and 18:00.")
#: the webhook address taken from a form (longer is refused by ``channel.check_url`` with its message).
URL_LIMIT = 8000
#: the invitation form's text: ``seasons.MAX_INVITES`` addresses.
INVITE_LIMIT = 400 * seasons.MAX_INVITES


def values(form: MultiDict[str, str], names: tuple[str, ...]) -> dict[str, str]:
    """The form's texts of ``names`` (each cut to 200 characters)."""
    return {name: str(form.get(name, ""))[:200].strip() for name in names}


def _number(text: str, digits: int) -> int | str:
    """A whole number, or the text as typed (the service refuses it, naming the field)."""
    found = small_int(text, digits)
    return text if found is None else found


def _optional(text: str, digits: int) -> int | str | None:
    return None if text == "" else _number(text, digits)


def league_spec(given: dict[str, str]) -> LeagueSpec:
    """A new league's form as a ``LeagueSpec`` (checked by ``seasons.check_league``)."""
    breaks = [given[name] for name in TIE_FIELDS if given.get(name)]
    return LeagueSpec(
        name=given["name"],
        language=given["language"],
        timezone=given["timezone"] or "UTC",
        table_size=_number(given["table_size"], 1),  # type: ignore[arg-type]
        preset=given["preset"] or None,
        scoring=given["scoring"],
        tie_breaks=breaks,
        forfeit=given["forfeit"],
        standings_public=given["standings_public"] == "1",
        organiser_email=given["organiser_email"] or None,
    )


@dataclass(frozen=True)
class SeasonArgs:
    closes: datetime
    rounds: Any
    schedule: str
    rule: Any
    sizes: Sizes


def closes_at(day: str, clock: str, zone: str, label: str) -> datetime:
    """The sign-up's close, a day (YYYY-MM-DD) and a time (HH:MM) in the league's ``zone``, in UTC; LeagueError
    ``BAD_CLOSES`` for no such day and time, or ``inputs.OUT_OF_RANGE`` (naming the field by ``label``)."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", day) or not re.fullmatch(r"\d{2}:\d{2}", clock):
        raise LeagueError(BAD_CLOSES)
    try:
        found = inputs.local_instant(f"{day}T{clock}", label, ZoneInfo(zone))
    except inputs.InputError as exc:
        raise LeagueError(exc.msgid, **exc.params) from None
    if found is None:
        raise LeagueError(BAD_CLOSES)
    return found


def season_args(given: dict[str, str], zone: str, label: str) -> SeasonArgs:
    """A new season's form: LeagueError ``BAD_CLOSES`` for a close that is no day and time; the rest is passed on
    for ``seasons.create_season`` to check."""
    closes = closes_at(given["closes_date"], given["closes_time"], zone, label)
    schedule = given["schedule"]
    rule = {"weekday": _number(given["weekday"], 1), "time": given["time"]} if schedule == "fixed" else None
    sizes = Sizes(
        _optional(given["max_players"], 6), _optional(given["divisions"], 3), _optional(given["promote"], 3) or 0
    )
    return SeasonArgs(closes, _number(given["rounds"], 3), schedule, rule, sizes)


def addresses(text: str) -> list[str]:
    """The invitation form's addresses: one a line, or separated by commas, semicolons or spaces."""
    return [part for part in re.split(r"[\s,;]+", text[:INVITE_LIMIT]) if part]
