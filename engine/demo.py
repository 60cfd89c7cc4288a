"""``python -m engine demo``: a game of sensible bots, told through its public events."""

from __future__ import annotations

from typing import TextIO

from .bots import Bot, SensibleBot, play_game
from .config import Config
from .data import COLOURS, LOCATION_NAMES
from .game import Game
from .options import Options
from .shapes import Event
from .view import spectator_view

QUIET = {"placement_dice", "answer_auto", "round_started"}


def describe(event: Event) -> str:
    """One line for a public event: its type, then its fields (locations with their names)."""
    parts = []
    for key, value in event.items():
        if key == "type":
            continue
        if key in ("location", "origin", "target") and isinstance(value, int):
            parts.append(f"{key}={value} {LOCATION_NAMES[value]}")
        else:
            parts.append(f"{key}={value}")
    return f"{event['type'].replace('_', ' ')}: {', '.join(parts)}"


def run_demo(players: int, seed: int, turn_order: str, out: TextIO) -> None:
    game = Game(Config(COLOURS[:players], seed, Options(turn_order=turn_order)))
    bots: dict[str, Bot] = {p: SensibleBot(seed + i) for i, p in enumerate(game.players)}
    play_game(game, bots)
    current = -1
    for event in spectator_view(game)["events"]:
        if event["type"] == "round_started":
            current = event["round"]
            print(f"\n== round {current}", file=out)
        if event["type"] not in QUIET:
            print("  " + describe(event), file=out)
    winners = ", ".join(game.outcome["winners"] if game.outcome else [])
    print(f"\n{game.window_no} windows; winners: {winners}", file=out)
