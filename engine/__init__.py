"""deadmail's rules engine for Mall of Horror: pure, deterministic, no I/O.

The JSON contract (``run_scenario``) and the Python API the server uses (``new_game``, ``Game``, ``view``).
"""

from __future__ import annotations

from typing import Any

from .config import Config
from .errors import IllegalAnswer, ScenarioError
from .game import Game
from .options import Options
from .requests import Request
from .scenario import run_scenario
from .view import replay, spectator_view, view

__all__ = [
    "Config",
    "Game",
    "IllegalAnswer",
    "Options",
    "Request",
    "ScenarioError",
    "new_game",
    "replay",
    "run_scenario",
    "spectator_view",
    "view",
]


def new_game(
    players: list[str],
    seed: int = 0,
    options: dict[str, Any] | None = None,
    standing_orders: dict[str, dict[str, list[str]]] | None = None,
) -> Game:
    """Create a game at setup; ScenarioError names any bad argument."""
    return Game(
        Config.from_json({"players": players, "seed": seed, "options": options, "standing_orders": standing_orders})
    )
