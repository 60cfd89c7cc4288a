"""What the lobby's pages show (``services.lobby.proposals``): a forming game's facts in the reader's language and
zone (seats taken with the players' names, the tempo preset's name, the table's language and zone, the date it must
fill by, how long it should take), the new-game form's choices, an invitation's answer, and the lobby as JSON."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from engine.options import CHOICES

from ..services.errors import N_
from ..services.lobby import proposals
from ..services.presets import PRESETS
from ..text.i18n import format_when, translations
from .organiser import option_hints, option_labels

#: each language in its own name: a reader must find theirs whatever the page's language.
LANGUAGE_NAMES = {"en": "English", "it": "Italiano", "pl": "Polski"}
#: how long a new game may wait for its players (days), as the form offers it.
FILL_CHOICES = (1, 2, 3, 5, 7, 10, 14, 21, 30)
SEAT_CHOICES = (3, 4, 5, 6)
#: the lobby's zone filter: how many hours apart.
HOURS_CHOICES = (0, 1, 2, 3, 6, 12)


def preset_name(lang: str, preset: str | None) -> str:
    """A tempo preset's title in the reader's language, or what a game without one does."""
    t = translations(lang)
    if preset is None or preset not in PRESETS:
        return t.gettext("no preset: 24 hours for each decision")
    return t.gettext(PRESETS[preset].title)


def game_title(lang: str, table: proposals.Table) -> str:
    """The game's title, or who proposed it."""
    if table.title:
        return table.title
    t = translations(lang)
    if table.creator:
        return t.gettext("A game by %(name)s") % {"name": table.creator}
    return t.gettext("Game proposal %(id)s") % {"id": table.id}


def estimate_text(lang: str, median: float | None, p90: float | None) -> str:
    """How long the game should take, in days ("" when not known)."""
    if median is None or p90 is None:
        return ""
    t = translations(lang)
    return t.gettext("About %(median)s days; 9 games in 10 end within %(p90)s days.") % {
        "median": max(round(median), 1),
        "p90": max(round(p90), 1),
    }


def rules_shown(lang: str, options: Mapping[str, str]) -> list[str]:
    """The rules options that differ from the printed game's, as "Turn order: strict (…)"."""
    labels = option_labels(lang)
    return [
        f"{labels.get(name, name)}: {labels.get(value, value)}"
        for name, value in options.items()
        if name in CHOICES and value != CHOICES[name][0]
    ]


def table_shown(lang: str, timezone: str, now: datetime, table: proposals.Table) -> dict[str, Any]:
    """A forming game for a page: ``{"id", "title", "creator", "seats", "taken", "free", "players", "preset",
    "language", "timezone", "fill_by", "fill_in", "estimate", "rules", "status", "game_id", "listed"}``; its dates in
    the reader's ``timezone``."""
    t = translations(lang)
    fill_by, fill_in = format_when(table.fill_by, now, timezone, lang)
    taken = len(table.players)
    return {
        "id": table.id,
        "title": game_title(lang, table),
        "creator": table.creator,
        "seats": table.seats,
        "taken": taken,
        "free": max(table.seats - taken, 0),
        "seats_text": t.ngettext("%(taken)s of %(num)d seat taken", "%(taken)s of %(num)d seats taken", table.seats)
        % {"taken": taken, "num": table.seats},
        "players": list(table.players),
        "preset": preset_name(lang, table.preset),
        "language": LANGUAGE_NAMES.get(table.language, table.language),
        "timezone": table.timezone,
        "fill_by": fill_by,
        "fill_in": fill_in,
        "estimate": estimate_text(lang, table.days_median, table.days_p90),
        "rules": rules_shown(lang, table.options),
        "status": table.status,
        "game_id": table.game_id,
        "listed": table.listed,
    }


def tables_shown(
    lang: str, timezone: str, now: datetime, tables: list[proposals.Table], link: Callable[[int], str]
) -> list[dict[str, Any]]:
    """Forming games for a list (the lobby, the hub), each with ``link`` to its page."""
    return [{**table_shown(lang, timezone, now, table), "link": link(table.id)} for table in tables]


#: an invitation's answer as its creator sees it.
ANSWER_WORDS = {
    None: N_("waiting for an answer"),
    "accepted": N_("accepted"),
    "declined": N_("declined"),
    "never": N_("asked never to be invited"),
}


def forming_page(lang: str, timezone: str, now: datetime, found: proposals.Forming) -> dict[str, Any]:
    """templates/lobby/game.html's game: the table, the reader's part in it, and (to its creator) the invitations
    with their answers."""
    t = translations(lang)
    return {
        **table_shown(lang, timezone, now, found.table),
        "seated": found.seated,
        "creator_reads": found.creator,
        "forming": found.table.status == "forming",
        "started": found.table.status == "started",
        "cancelled": found.table.status == "cancelled",
        "invitations": [
            {"email": email, "answer": t.gettext(ANSWER_WORDS.get(answer, answer or ""))}
            for email, answer in found.invitations
        ],
    }


def invited_shown(lang: str, skipped: list[tuple[str, str]], sent: int) -> dict[str, Any]:
    """What the last invitations did: how many were mailed, and each address skipped with why."""
    t = translations(lang)
    return {
        "sent": t.ngettext("%(num)d invitation sent.", "%(num)d invitations sent.", sent) % {"num": sent}
        if sent
        else t.gettext("No invitation sent."),
        "skipped": [{"email": email, "why": t.gettext(why)} for email, why in skipped],
    }


def new_game_form(lang: str, values: Mapping[str, str], error: str | None) -> dict[str, Any]:
    """templates/lobby/new.html's context: every choice with its label; ``values`` refill the form after a
    refusal."""
    t = translations(lang)
    labels = option_labels(lang)
    return {
        "values": values,
        "error": error,
        "seat_choices": SEAT_CHOICES,
        "choices": CHOICES,
        "option_labels": labels,
        "option_hints": option_hints(lang),
        "presets": [(p.name, t.gettext(p.title), t.gettext(p.description)) for p in PRESETS.values()],
        "languages": list(LANGUAGE_NAMES.items()),
        "fill_choices": [(n, t.ngettext("%(num)d day", "%(num)d days", n) % {"num": n}) for n in FILL_CHOICES],
    }


def filters_form(lang: str, args: Mapping[str, str]) -> dict[str, Any]:
    """The lobby's filter form: its choices and the values given."""
    t = translations(lang)
    return {
        "values": args,
        "seat_choices": SEAT_CHOICES,
        "presets": [(p.name, t.gettext(p.title)) for p in PRESETS.values()],
        "languages": list(LANGUAGE_NAMES.items()),
        "hours": [
            (
                n,
                t.ngettext("within %(num)d hour", "within %(num)d hours", n) % {"num": n}
                if n
                else t.gettext("the same"),
            )
            for n in HOURS_CHOICES
        ],
    }


def hours_text(lang: str, hours: int) -> str:
    """The zone filter's choice: "the same" zone's offset, or within so many hours of it."""
    t = translations(lang)
    if not hours:
        return t.gettext("the same hours")
    return t.ngettext("within %(num)d hour", "within %(num)d hours", hours) % {"num": hours}


def lobby_json(tables: list[proposals.Table], link: Callable[[int], str]) -> dict[str, list[dict[str, object]]]:
    """``GET /api/lobby``'s answer: the open games, with public facts only."""
    return {
        "games": [
            {
                "id": table.id,
                "title": table.title,
                "seats": table.seats,
                "taken": len(table.players),
                "preset": table.preset,
                "language": table.language,
                "timezone": table.timezone,
                "options": dict(table.options),
                "fill_by": table.fill_by.isoformat(),
                "estimate": {"days_median": table.days_median, "days_p90": table.days_p90},
                "url": link(table.id),
            }
            for table in tables
        ]
    }
