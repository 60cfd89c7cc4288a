"""Named tempo presets: a full ``games.tempo`` each, chosen on the create page, by
``deadmail game create --preset`` and by ``"preset"`` in ``POST /api/games``; settings given explicitly override
the preset's, and the game records the preset's name in its tempo (``tempo["preset"]``).

The figures are tuned with ``bench/tempo.py`` (docs/PERFORMANCE.md, "Tempo"): see there what each promises.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass

from ..models import TempoJSON
from .errors import N_, ShownError
from .tempo import DEFAULT_DURATION, parse_deadlines

HOUR = 3600


class PresetError(ShownError):
    """An unknown preset name; the message lists the known ones (pages translate it)."""


@dataclass(frozen=True)
class Preset:
    name: str
    #: msgids: what people are shown (translated where shown).
    title: str
    description: str
    #: the tempo, without the game's time zone (the organiser's is added: ``tempo_for``).
    tempo: TempoJSON


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "week",
            N_("A week by e-mail"),
            N_(
                "For players who read their mail a few times a day: 12 hours for each decision (3 for cards), votes "
                "close once decided, and the last player everyone waits for gets 8 more hours at most (less for "
                "someone who usually answers quickly). About two weeks."
            ),
            {
                "durations": {"default": 12 * HOUR, "cards": 3 * HOUR},
                "avoid_quiet_hours": True,
                "close_decided_votes": True,
                "last_call": 8 * HOUR,
            },
        ),
        Preset(
            "play-hours",
            N_("Play hours"),
            N_(
                "Everyone meets on their seat page every evening from 20:30 to 22:00 (the organiser's time) and "
                "answers within 10 minutes; between sessions the game waits and mail still works, and someone who "
                "misses a session is waited for until the next one. About four days."
            ),
            {
                "durations": {"default": 24 * HOUR},
                "avoid_quiet_hours": True,
                "close_decided_votes": True,
                "last_call": None,
                "play_hours": {
                    "zone": "UTC",
                    "days": [0, 1, 2, 3, 4, 5, 6],
                    "start": "20:30",
                    "end": "22:00",
                    "deadline": 600,
                },
            },
        ),
        Preset(
            "relaxed",
            N_("Relaxed"),
            N_(
                "A day for each decision, half a day for cards; votes close once decided and the last player "
                "everyone waits for gets 6 more hours at most. Two to three weeks."
            ),
            {
                "durations": {"default": 24 * HOUR, "cards": 12 * HOUR},
                "avoid_quiet_hours": True,
                "close_decided_votes": True,
                "last_call": 6 * HOUR,
            },
        ),
    )
}


def check_preset(name: object) -> str | None:
    """A preset's name, or None for none ("" counts as none); PresetError for any other value."""
    if name is None or name == "":
        return None
    if not isinstance(name, str) or name not in PRESETS:
        raise PresetError(
            N_("%(value)s is not a tempo preset (%(choices)s)"), value=repr(name)[:40], choices=", ".join(PRESETS)
        )
    return name


def explicit_deadlines(specs: Iterable[str]) -> dict[str, int]:
    """The deadlines given (``["vote=6h"]`` -> ``{"vote": 21600}``): unlike ``tempo.parse_deadlines``, no
    ``default`` unless one is given, so that a preset's stays."""
    specs = list(specs)
    durations = parse_deadlines(specs)
    if all("=" in spec for spec in specs):
        del durations["default"]
    return durations


def tempo_for(
    preset: str | None,
    timezone: str,
    deadlines: dict[str, int] | None = None,
    avoid_quiet_hours: bool | None = None,
) -> TempoJSON:
    """The game's tempo: the preset's (or today's plain one: 24 h for everything), overridden by what is given
    explicitly (each deadline given replaces the preset's for its kind), in the organiser's ``timezone`` (also the
    zone of a preset's play hours)."""
    tempo: TempoJSON = {
        "durations": {"default": DEFAULT_DURATION},
        "avoid_quiet_hours": True,
        "close_decided_votes": True,
    }
    if preset is not None:
        tempo = copy.deepcopy(PRESETS[preset].tempo)
        tempo["preset"] = preset
        if "play_hours" in tempo:
            tempo["play_hours"]["zone"] = timezone
    tempo["durations"].update(deadlines or {})
    tempo["timezone"] = timezone
    if avoid_quiet_hours is not None:
        tempo["avoid_quiet_hours"] = avoid_quiet_hours
    return tempo
