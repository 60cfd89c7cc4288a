"""What an organiser is shown: the game page (who owes what, never the answers; deadlines and pauses in the game's
zone; the seats and their links), the list of games, and the new-game form's choices."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from engine.data import COLOURS, DEFAULT_WEAPONS, KINDS
from engine.options import CHOICES

from ..services.estimate import MODEL, Model, hours_text
from ..services.presets import PRESETS
from ..services.tempo import zone_choices
from ..text import glossary
from ..text.i18n import format_when, translations, zone

#: "extend by" choices, in hours.
EXTEND_HOURS = (1, 3, 6, 12, 24, 48, 72)


def local_input(instant: datetime, tz: str) -> str:
    """An instant as a datetime-local value in the game's zone."""
    return instant.astimezone(zone(tz)).strftime("%Y-%m-%dT%H:%M")


def from_local(text: str, tz: str) -> datetime | None:
    """A datetime-local value, read in the game's zone; None when it is not one."""
    try:
        local = datetime.strptime(text.strip()[:16], "%Y-%m-%dT%H:%M")
    except ValueError:
        return None
    return local.replace(tzinfo=zone(tz))


def seats(lang: str, links: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The seats of ``games.seat_links`` with their colours' names and players' names."""
    return [
        {**seat, "colour_name": glossary.colour_name(lang, seat["colour"]), "name": (seat["player"] or {}).get("name")}
        for seat in links
    ]


def game_page(lang: str, data: dict[str, Any], links: list[dict[str, Any]], now: datetime) -> dict[str, Any]:
    """templates/organiser/game.html's context from ``organise.owed`` and ``games.seat_links``."""
    tz = str(data["timezone"])

    def when(instant: datetime | None) -> dict[str, str] | None:
        if instant is None:
            return None
        absolute, relative = format_when(instant, now, tz, lang)
        return {"absolute": absolute, "relative": relative, "local": local_input(instant, tz)}

    by_colour = {row["colour"]: row["link"] for row in links}
    window = data["window"]
    return {
        "game": data,
        "status_name": glossary.status_name(lang, data["status"]),
        "phase_name": glossary.phase_name(lang, data["phase"]) if data["phase"] else "",
        "seats": [
            {
                **seat,
                "name": seat["player"],
                "colour_name": glossary.colour_name(lang, seat["colour"]),
                "link": by_colour.get(seat["colour"]),
            }
            for seat in data["seats"]
        ],
        "requests": [
            {
                **r,
                "colour_name": glossary.colour_name(lang, r["colour"]),
                "kind_name": glossary.kind_name(lang, r["kind"]),
            }
            for r in data["requests"]
        ],
        "deadline": when(window["deadline"]) if window else None,
        "paused_until": when(data["paused_until"]),
        "pause_default": local_input(now + timedelta(days=1), tz),
        "extend_hours": EXTEND_HOURS,
        "tz": tz,
    }


def games_list(lang: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**row, "status": glossary.status_name(lang, row["status"])} for row in rows]


def option_labels(lang: str) -> dict[str, str]:
    t = translations(lang)
    return {
        "turn_order": t.gettext("Turn order"),
        "sprint_timing": t.gettext("Sprint timing"),
        "attack_tie_pool": t.gettext("Second attack tie drawn among"),
        "zombie_player": t.gettext("Zombie player"),
        "attack_cards": t.gettext("Who may play cards in an attack"),
        "first_chief": t.gettext("First Chief"),
        "batched": t.gettext("batched (everyone at once where the rules allow)"),
        "strict": t.gettext("strict (one player after another)"),
        "on_move": t.gettext("on the player's own move"),
        "after_moves": t.gettext("after every character has moved"),
        "present": t.gettext("the colours present"),
        "tied": t.gettext("only the tied colours"),
        "next_round": t.gettext("the next round"),
        "every_round": t.gettext("every round"),
        "everyone": t.gettext("everyone"),
        "random": t.gettext("drawn at random"),
    }


def new_game_form(lang: str, values: dict[str, Any], error: str | None) -> dict[str, Any]:
    """templates/organiser/new.html's context: every option and its choices, colours, weapons, request kinds and
    time zones; ``values`` refills the form after a refusal."""
    common, others = zone_choices()
    return {
        "values": values,
        "error": error,
        "choices": CHOICES,
        "option_labels": option_labels(lang),
        "colours": [(c, glossary.colour_name(lang, c)) for c in COLOURS],
        "weapons": [(w, glossary.card_name(lang, w)) for w in DEFAULT_WEAPONS],
        "default_weapons": DEFAULT_WEAPONS,
        "kinds": KINDS,
        "common_zones": common,
        "other_zones": others,
        "presets": [
            (p.name, translations(lang).gettext(p.title), translations(lang).gettext(p.description))
            for p in PRESETS.values()
        ],
        "estimate": None,
        "estimate_model": MODEL,
        "estimate_reading": hours_text(Model().reading),
    }
