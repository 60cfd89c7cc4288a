"""The player's hub: their games and their rating, shaped for the page in their language and time zone.

Built from ``services.hub`` (plain data about the reader's own seats only): what is asked of them comes from their
own seat's open requests, never another seat's (B-INFO).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..services import signin
from ..services.hub import HubEntry, HubGame
from ..services.leagues import ratings
from ..services.notify import devices
from ..text import glossary
from ..text.i18n import format_when, translations
from .seat import game_label, ordinal


def result_text(lang: str, game: HubGame) -> str:
    """ "2nd of 5, 31 victory points" (or "shared 1st of 4 …"): the game's points, never a league's."""
    t = translations(lang)
    result = game.result
    if result is None:
        return ""
    words = {"place": ordinal(lang, result.place), "count": result.of}
    place = (t.gettext("shared %(place)s of %(count)s") if result.shared else t.gettext("%(place)s of %(count)s")) % (
        words
    )
    points = t.ngettext("%(num)d victory point", "%(num)d victory points", result.points) % {"num": result.points}
    return f"{place}, {points}"


def games_shown(
    lang: str,
    timezone: str,
    now: datetime,
    found: list[HubGame],
    seat_url: Callable[[int, int], str],
    replay_url: Callable[[int, int], str],
) -> dict[str, list[dict[str, Any]]]:
    """The games by status ("running", "over", "abandoned"), each ``{"label", "colour", "asked": [{"what", "when",
    "relative"}], "result", "link", "replay", "held"}``; links only to seats the player still holds."""
    t = translations(lang)
    out: dict[str, list[dict[str, Any]]] = {"running": [], "over": [], "abandoned": []}
    for game in found:
        over = game.status == "over"
        link = replay = None
        if game.held:
            link = None if over else seat_url(game.seat_id, game.link_generation)
            replay = replay_url(game.seat_id, game.link_generation) if over else None
        asked = []
        for item in game.asked:
            when, relative = format_when(item.deadline, now, timezone, lang)
            asked.append({"what": glossary.kind_name(lang, item.kind), "when": when, "relative": relative})
        out.setdefault(str(game.status), []).append(
            {
                "game_id": game.game_id,
                "label": game_label(lang, game.game_id, game.title),
                "colour": glossary.colour_name(lang, game.colour),
                "asked": asked,
                "result": result_text(lang, game),
                "held": game.held,
                "link": link,
                "replay": replay,
                "gone": "" if game.held else t.gettext("You no longer hold this seat."),
            }
        )
    return out


def rating_shown(lang: str, rating: ratings.Rating | None) -> dict[str, object]:
    """The rating across all games: ``{"new", "text", "games"}``; "new" (fewer than ``NEW_BELOW`` games) is shown as
    unknown, never as a low number."""
    t = translations(lang)
    figures = ratings.shown(rating)
    played = rating.games if rating else 0
    games = t.ngettext("rated over %(num)d game", "rated over %(num)d games", played) % {"num": played}
    if not played:
        games = t.gettext("no rated game yet")
    if figures.new:
        text = t.ngettext("new: fewer than %(num)d game", "new: fewer than %(num)d games", ratings.NEW_BELOW) % {
            "num": ratings.NEW_BELOW
        }
    else:
        text = t.gettext("%(ordinal)s ± %(uncertainty)s") % {
            "ordinal": figures.ordinal,
            "uncertainty": figures.uncertainty,
        }
    return {"new": figures.new, "text": text, "games": games}


def history_shown(rating: ratings.Rating | None) -> list[int]:
    """The rating's last points, rounded ordinals, oldest first (none while new: a new rating is unknown)."""
    if rating is None or rating.new:
        return []
    return [round(point.ordinal) for point in rating.history]


def league_ratings_shown(lang: str, found: list[tuple[str, ratings.Rating]]) -> list[dict[str, object]]:
    """Each league's rating: ``{"league", "text", "games"}`` as ``rating_shown``."""
    return [{"league": name, **rating_shown(lang, rating)} for name, rating in found]


def leagues_shown(lang: str, timezone: str, now: datetime, entries: list[HubEntry]) -> list[dict[str, object]]:
    """The player's season entries for the hub: ``{"id", "title", "status", "next", "rounds": [{"number", "when",
    "skipped"}], "skips", "can_skip", "can_withdraw", "knows", "standings"}`` (``knows``: the addresses of people they
    know, one a line, while they play; else None; ``standings``: the season's id, or None); times in the reader's
    zone."""
    t = translations(lang)
    statuses = {
        "pending": t.gettext("waiting for your confirmation (see the mail)"),
        "confirmed": t.gettext("you play"),
        "withdrawn": t.gettext("you withdrew"),
    }
    shown = []
    for entry in entries:
        playing = entry.status == "confirmed" and entry.season_status != "over"
        rounds = [
            {
                "number": number,
                "when": None if start is None else format_when(start, now, timezone, lang)[0],
                "skipped": number in entry.skips,
            }
            for number, start in entry.upcoming
        ]
        starts = [item for item in rounds if item["when"]]
        shown.append(
            {
                "id": entry.entry_id,
                "title": t.gettext("%(league)s, season %(season)s") % {"league": entry.league, "season": entry.season},
                "status": statuses.get(entry.status, entry.status),
                "next": starts[0] if starts else None,
                "rounds": rounds if playing else [],
                "skips": list(entry.skips),
                "can_withdraw": entry.status != "withdrawn" and entry.season_status != "over",
                # the people they know, to change while they play (a pending sign-up changes them as it confirms)
                "knows": "\n".join(entry.knows) if playing else None,
                # the standings open to a confirmed player (and one who withdrew), not to a pending sign-up
                "standings": entry.season_id if entry.status != "pending" else None,
            }
        )
    return shown


def devices_shown(lang: str, timezone: str, now: datetime, listed: list[devices.Listed]) -> list[dict[str, object]]:
    """The player's devices for their hub: ``{"id", "name", "kind", "added", "reached"}`` (``reached``: when a
    notification last reached it, in the reader's zone and language, or that none has yet)."""
    t = translations(lang)
    kinds = {"push": t.gettext("notifications in this browser"), "chat": t.gettext("a chat app")}
    shown = []
    for device in listed:
        if device.reached_at is not None:
            reached = t.gettext("last reached %(when)s") % {
                "when": format_when(device.reached_at, now, timezone, lang)[0]
            }
        elif device.failing:
            reached = t.gettext("notifications do not reach it")
        else:
            reached = t.gettext("no notification yet")
        added = format_when(device.created_at, now, timezone, lang)[0]
        shown.append(
            {
                "id": device.id,
                "name": device.name,
                "kind": kinds.get(device.kind, device.kind),
                "added": added,
                "reached": reached,
            }
        )
    return shown


#: (what the User-Agent says, the name shown), the first that matches: Edge and Opera say "Chrome" too, Chrome says
#: "Safari" too
BROWSERS = (("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari"))
SYSTEMS = (
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Android", "Android"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
)


def browser_label(lang: str, agent: str) -> str:
    """A browser as a person names it ("Firefox on Android"), from its User-Agent; "A browser" when it says none."""
    t = translations(lang)
    name = next((shown for mark, shown in BROWSERS if mark in agent), None)
    system = next((shown for mark, shown in SYSTEMS if mark in agent), None)
    if name and system:
        return t.gettext("%(browser)s on %(system)s") % {"browser": name, "system": system}
    return name or system or t.gettext("A browser")


def browsers_shown(lang: str, timezone: str, now: datetime, listed: list[signin.Browser]) -> list[dict[str, object]]:
    """The player's signed-in browsers for their hub: ``{"name", "since", "seen", "current"}``, in the reader's zone
    and language."""
    return [
        {
            "name": browser_label(lang, b.agent),
            "since": format_when(b.created_at, now, timezone, lang)[0],
            "seen": format_when(b.seen_at, now, timezone, lang)[1],
            "current": b.current,
        }
        for b in listed
    ]


def reach_shown(lang: str, figures: dict[str, tuple[int, int]]) -> list[str]:
    """How each channel reached the reader(s) lately, in a sentence each: "By notification: 7 times, after 12 minutes
    (median)." (``notify.nudges.figures``)."""
    t = translations(lang)
    names = {
        "push": t.gettext("By notification"),
        "chat": t.gettext("By chat app"),
        "mail": t.gettext("By mail"),
    }
    lines = []
    for channel, (count, seconds) in figures.items():
        times = t.ngettext("%(num)d time", "%(num)d times", count) % {"num": count}
        after = waited(lang, seconds)
        lines.append(
            t.gettext("%(channel)s: %(times)s, after %(after)s (median).")
            % {"channel": names.get(channel, channel), "times": times, "after": after}
        )
    return lines


def waited(lang: str, seconds: int) -> str:
    """A wait in minutes under two hours, else in hours: "12 minutes", "3 hours"."""
    t = translations(lang)
    if seconds < 2 * 3600:
        minutes = max(1, round(seconds / 60))
        return t.ngettext("%(num)d minute", "%(num)d minutes", minutes) % {"num": minutes}
    hours = round(seconds / 3600)
    return t.ngettext("%(num)d hour", "%(num)d hours", hours) % {"num": hours}
