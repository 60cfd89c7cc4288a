"""deadmail's rules engine for Mall of Horror: pure, deterministic, no I/O.

The JSON contract (``run_scenario``) and the Python API the server uses (``new_game``, ``Game``, ``view``,
``replay_steps`` ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from . import game
from .config import Config
from .data import Kind, Phase
from .errors import IllegalAnswer, ScenarioError
from .game import Game
from .options import Options
from .replay import Replay, ReplayAnswer, replay_steps
from .requests import MoveChoice, ParsedAnswer, Placement, Play, Request, TruckChoice, asked_in_secret
from .rules import vote_decided
from .scenario import run_scenario
from .shapes import (
    Asked,
    Event,
    OptionsJSON,
    Outcome,
    PlayerView,
    PublicBoard,
    RequestJSON,
    SavedGame,
    SnapshotJSON,
    SpectatorView,
)
from .standing import VOTE_POLICIES, standing_answer
from .view import replay, spectator_view, view

#: compiled by mypyc (``DEADMAIL_COMPILE=1 pip install .``, setup.py), or pure Python
COMPILED: Final = not game.__file__.endswith(".py")

__all__ = [
    "COMPILED",
    "VOTE_POLICIES",
    "Asked",
    "Config",
    "Event",
    "Game",
    "IllegalAnswer",
    "Kind",
    "MoveChoice",
    "Options",
    "OptionsJSON",
    "Outcome",
    "ParsedAnswer",
    "Phase",
    "Placement",
    "Play",
    "PlayerView",
    "PublicBoard",
    "Replay",
    "ReplayAnswer",
    "Request",
    "RequestJSON",
    "SavedGame",
    "ScenarioError",
    "SnapshotJSON",
    "SpectatorView",
    "TruckChoice",
    "asked_in_secret",
    "new_game",
    "replay",
    "replay_steps",
    "run_scenario",
    "spectator_view",
    "standing_answer",
    "view",
    "vote_decided",
]


def new_game(
    players: list[str],
    seed: int = 0,
    options: Mapping[str, object] | None = None,
    standing_orders: dict[str, dict[str, list[str]]] | None = None,
) -> Game:
    """Create a game at setup; ScenarioError names any bad argument."""
    return Game(
        Config.from_json({"players": players, "seed": seed, "options": options, "standing_orders": standing_orders})
    )
