"""Game options (RULES.md section G): defaults, validation and JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .data import DEFAULT_WEAPONS
from .errors import ScenarioError
from .shapes import OptionsJSON

CHOICES: dict[str, tuple[str, ...]] = {
    "turn_order": ("batched", "strict"),
    "sprint_timing": ("on_move", "after_moves"),
    "attack_tie_pool": ("present", "tied"),
    "zombie_player": ("next_round", "every_round"),
    "attack_cards": ("present", "everyone"),
}


@dataclass(frozen=True)
class Options:
    turn_order: str = "batched"
    sprint_timing: str = "on_move"
    attack_tie_pool: str = "present"
    zombie_player: str = "next_round"
    attack_cards: str = "present"
    first_chief: str = "random"
    weapons: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_WEAPONS))

    @property
    def strict(self) -> bool:
        return self.turn_order == "strict"

    def to_json(self) -> OptionsJSON:
        return {
            "turn_order": self.turn_order,
            "sprint_timing": self.sprint_timing,
            "attack_tie_pool": self.attack_tie_pool,
            "zombie_player": self.zombie_player,
            "attack_cards": self.attack_cards,
            "first_chief": self.first_chief,
            "weapons": dict(self.weapons),
        }

    @classmethod
    def from_json(cls, raw: object, players: list[str]) -> Options:
        """Validate ``raw`` (a JSON object, possibly partial); raise ScenarioError naming the problem."""
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise ScenarioError("options must be an object")
        values: dict[str, Any] = {}
        for name, value in raw.items():
            if name in CHOICES:
                if value not in CHOICES[name]:
                    allowed = ", ".join(CHOICES[name])
                    raise ScenarioError(f"option {name}: {value!r} is not one of {allowed}")
                values[name] = value
            elif name == "first_chief":
                if value != "random" and value not in players:
                    raise ScenarioError(f"option first_chief: {value!r} is neither 'random' nor a player's colour")
                values[name] = value
            elif name == "weapons":
                values[name] = _weapons(value)
            else:
                raise ScenarioError(f"unknown option {name!r}")
        return cls(**values)


def _weapons(value: object) -> dict[str, int]:
    if not isinstance(value, dict):
        raise ScenarioError("option weapons must be an object of weapon name to kills")
    weapons = dict(DEFAULT_WEAPONS)
    for name, kills in value.items():
        if name not in DEFAULT_WEAPONS:
            raise ScenarioError(f"option weapons: unknown weapon {name!r}")
        if not isinstance(kills, int) or isinstance(kills, bool) or not 1 <= kills <= 4:
            raise ScenarioError(f"option weapons: {name} must kill 1 to 4 zombies, not {kills!r}")
        weapons[name] = kills
    return weapons
