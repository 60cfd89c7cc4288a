"""A player's absences as they read them: days in their own time zone and language."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from babel.dates import format_date

from ..services.attendance.absences import Away
from ..text import i18n


def moment_shown(moment: datetime, tz_name: str | None, lang: str, *, end: bool) -> str:
    """A day ("Thursday, 3 December 2026") when the instant is a midnight of the reader's zone (an end: the day
    before, the last day of the absence), else the day and the time (an absence under way, or clipped to now)."""
    local = moment.astimezone(i18n.zone(tz_name))
    if local.time() == time(0):
        locale = i18n.DATE_LOCALES[i18n.language(lang)]
        return format_date((local - timedelta(days=1)) if end else local, "full", locale=locale)
    return i18n.format_when(moment, moment, tz_name, lang)[0]


def absences_shown(items: list[Away], tz_name: str | None, lang: str) -> list[dict[str, object]]:
    """``services.attendance.absences.listed`` for a page: each with ``first`` and ``last`` (their words) and
    ``current``."""
    return [
        {
            "id": item["id"],
            "current": item["current"],
            "first": moment_shown(item["from"], tz_name, lang, end=False),
            "last": moment_shown(item["to"], tz_name, lang, end=True),
        }
        for item in items
    ]
