"""Rules engine: bot games per second and windows per round, as one JSON object.

    python bench/engine_games.py [--games N] [--seed S]

- ``games_per_s`` and ``answers_per_s``: N games of 5 players, ``RandomBot`` in every seat, batched turn order,
  one process, the bots' own time included;
- windows (waits for the players) per round, setup excluded, over N games of 3, 4, 5 and 6 players in turn, for
  both turn orders: with ``SensibleBot`` and the standing victim order a player would set once (H-5), and with
  ``RandomBot`` (``random_bots_*`` keys).

Prints progress on stderr and the JSON object on stdout (recorded in docs/PERFORMANCE.md).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from typing import Any, TextIO

from engine.bots import Bot, RandomBot, SensibleBot
from engine.config import Config
from engine.data import BY_VALUE, COLOURS
from engine.game import Game
from engine.options import Options


def _game(players: int, seed: int, turn_order: str) -> Game:
    return Game(Config(COLOURS[:players], seed, Options(turn_order=turn_order)))


def play_measured(game: Game, bots: dict[str, Bot]) -> tuple[int, dict[int, int]]:
    """Play to the end; return the number of answers and the windows opened in each round (setup excluded)."""
    windows: dict[int, int] = {}
    seen = 0
    answers = 0
    while not game.over:
        if game.window_no != seen:
            seen = game.window_no
            if game.round:
                windows[game.round] = windows.get(game.round, 0) + 1
        for req in game.pending():
            game.answer(req.player, req.kind, bots[req.player].decide(game, req))
            answers += 1
    return answers, windows


def _percentile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])


def speed(games: int, seed: int) -> dict[str, float]:
    """5 players, random legal bots, batched turn order, one process."""
    start = time.perf_counter()
    answers = 0
    for i in range(games):
        game = _game(5, seed + i, "batched")
        bots: dict[str, Bot] = {p: RandomBot(seed * 1000 + i * 10 + k) for k, p in enumerate(game.players)}
        n, _ = play_measured(game, bots)
        answers += n
    elapsed = time.perf_counter() - start
    return {"games_per_s": round(games / elapsed, 1), "answers_per_s": round(answers / elapsed, 1)}


def windows(games: int, seed: int, turn_order: str, bot: type[RandomBot] | type[SensibleBot]) -> dict[str, float]:
    """Windows (waits for the players) per round, over games of 3 to 6 players."""
    per_round: list[int] = []
    per_game: list[int] = []
    rounds: list[int] = []
    rng = random.Random(seed)
    for i in range(games):
        game = _game(3 + i % 4, seed + i, turn_order)
        bots: dict[str, Bot] = {p: bot(rng.randrange(1 << 30)) for p in game.players}
        if bot is SensibleBot:
            for p in game.players:  # what a player would set once to avoid waiting on victim choices (H-5)
                game.set_standing_order(p, list(BY_VALUE))
        _, counts = play_measured(game, bots)
        per_round.extend(counts.get(r, 0) for r in range(1, game.round + 1))
        per_game.append(game.window_no)
        rounds.append(game.round)
    return {
        "median": float(statistics.median(per_round)),
        "p90": _percentile(per_round, 0.9),
        "rounds_median": float(statistics.median(rounds)),
        "game_median": float(statistics.median(per_game)),
    }


def run_bench(games: int = 300, seed: int = 1, progress: TextIO | None = None) -> dict[str, Any]:
    def say(text: str) -> None:
        if progress is not None:
            print(text, file=progress, flush=True)

    say(f"speed: {games} games of 5 random bots ...")
    out: dict[str, Any] = {"games": games, **speed(games, seed)}
    for order in ("batched", "strict"):
        for name, bot in (("", SensibleBot), ("random_bots_", RandomBot)):
            say(f"windows: {games} games, {order}, {bot.__name__} ...")
            figures = windows(games, seed, order, bot)
            out[f"{name}windows_per_round_median_{order}"] = figures["median"]
            out[f"{name}windows_per_round_p90_{order}"] = figures["p90"]
            if not name:
                out[f"rounds_per_game_median_{order}"] = figures["rounds_median"]
                out[f"windows_per_game_median_{order}"] = figures["game_median"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--games", type=int, default=300, help="games per measurement (default 300)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tiny", action="store_true", help="a few games, for CI (--games 5)")
    args = ap.parse_args()
    if args.tiny:
        args.games = 5
    print(json.dumps(run_bench(args.games, args.seed, progress=sys.stderr)))


if __name__ == "__main__":
    main()
