"""Rules engine: bot games per second and windows per round, as one JSON object.

    python bench/engine_games.py [--games N] [--seed S] [--against PATH [--rounds R]]

- ``games_per_s`` and ``answers_per_s``: N games of 5 players, ``RandomBot`` in every seat, batched turn order,
  one process, the bots' own time included;
- windows (waits for the players) per round, setup excluded, over N games of 3, 4, 5 and 6 players in turn, for
  both turn orders: with ``SensibleBot`` and the standing victim order a player would set once (H-5), and with
  ``RandomBot`` (``random_bots_*`` keys).

``--against PATH`` (the root of another checkout, e.g. a ``git worktree`` of an older commit) also measures that
checkout's engine, imported under another module name in this process, in interleaved rounds (its engine, this one,
its engine, ...: the same seeds, so the same games when both engines play them alike), and adds ``against``: the
games per second of each per round, their medians and the median of the rounds' ratios (this engine over that one).

``compiled``: whether the engine measured is compiled (setup.py). To measure the compiled engine, build the wheel as
production does and put it first on the path::

    DEADMAIL_COMPILE=1 pip wheel --no-deps -w /tmp/wheel . && unzip -o -q /tmp/wheel/deadmail-*.whl -d /tmp/compiled
    PYTHONPATH=/tmp/compiled python bench/engine_games.py --against /tmp/wt-engine-base

Prints progress on stderr and the JSON object on stdout (recorded in docs/PERFORMANCE.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from engine import COMPILED
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


def _play_games(games: int, seed: int, eng: ModuleType | None = None) -> tuple[float, int]:
    """Seconds and answers for ``games`` games of 5 players, random legal bots, batched turn order; ``eng``: another
    engine package (``--against``), else this checkout's ``engine``."""
    if eng is None:
        make = _game
        bot: Any = RandomBot
    else:
        config, options, colours, bot = eng.Config, eng.Options, eng.data.COLOURS, eng.bots.RandomBot

        def make(players: int, seed: int, turn_order: str) -> Any:
            return eng.Game(config(colours[:players], seed, options(turn_order=turn_order)))

    start = time.perf_counter()
    answers = 0
    for i in range(games):
        game = make(5, seed + i, "batched")
        bots: dict[str, Bot] = {p: bot(seed * 1000 + i * 10 + k) for k, p in enumerate(game.players)}
        n, _ = play_measured(game, bots)
        answers += n
    return time.perf_counter() - start, answers


def speed(games: int, seed: int) -> dict[str, float]:
    """5 players, random legal bots, batched turn order, one process."""
    elapsed, answers = _play_games(games, seed)
    return {"games_per_s": round(games / elapsed, 1), "answers_per_s": round(answers / elapsed, 1)}


def load_engine(root: str, name: str = "engine_against") -> ModuleType:
    """The ``engine`` package of the checkout at ``root``, imported as ``name`` (its modules import each other
    relatively, so they stay apart from this checkout's ``engine``)."""
    package = Path(root).resolve() / "engine"
    spec = importlib.util.spec_from_file_location(
        name, package / "__init__.py", submodule_search_locations=[str(package)]
    )
    if spec is None or spec.loader is None:
        raise SystemExit(f"no engine package in {root}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    importlib.import_module(f"{name}.bots")
    return module


def against(root: str, games: int, seed: int, rounds: int, say: Any) -> dict[str, Any]:
    """Games per second of the engine at ``root`` and of this one, in interleaved rounds of ``games`` games each."""
    other = load_engine(root)
    _play_games(max(1, games // 10), seed, other)  # warm both up before the first measured round
    _play_games(max(1, games // 10), seed)
    theirs: list[float] = []
    ours: list[float] = []
    same = True
    for r in range(rounds):
        elapsed, answers_there = _play_games(games, seed, other)
        theirs.append(games / elapsed)
        elapsed, answers_here = _play_games(games, seed)
        ours.append(games / elapsed)
        same = same and answers_here == answers_there  # the same games answer as often
        say(f"against: round {r + 1}/{rounds}: {theirs[-1]:.1f} games/s there, {ours[-1]:.1f} here")
    return {
        "path": str(Path(root).resolve()),
        "rounds": rounds,
        "games_per_s_against": [round(x, 1) for x in theirs],
        "games_per_s": [round(x, 1) for x in ours],
        "median_against": round(statistics.median(theirs), 1),
        "median": round(statistics.median(ours), 1),
        "ratio_median": round(statistics.median(o / t for o, t in zip(ours, theirs, strict=True)), 3),
        "same_answer_counts": same,
    }


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


def run_bench(
    games: int = 300,
    seed: int = 1,
    progress: TextIO | None = None,
    against_root: str | None = None,
    rounds: int = 7,
) -> dict[str, Any]:
    def say(text: str) -> None:
        if progress is not None:
            print(text, file=progress, flush=True)

    say(f"speed: {games} games of 5 random bots ...")
    out: dict[str, Any] = {"games": games, "compiled": COMPILED, **speed(games, seed)}
    for order in ("batched", "strict"):
        for name, bot in (("", SensibleBot), ("random_bots_", RandomBot)):
            say(f"windows: {games} games, {order}, {bot.__name__} ...")
            figures = windows(games, seed, order, bot)
            out[f"{name}windows_per_round_median_{order}"] = figures["median"]
            out[f"{name}windows_per_round_p90_{order}"] = figures["p90"]
            if not name:
                out[f"rounds_per_game_median_{order}"] = figures["rounds_median"]
                out[f"windows_per_game_median_{order}"] = figures["game_median"]
    if against_root is not None:
        say(f"against {against_root}: {rounds} interleaved rounds of {games} games ...")
        out["against"] = against(against_root, games, seed, rounds, say)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--games", type=int, default=300, help="games per measurement (default 300)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tiny", action="store_true", help="a few games, for CI (--games 5, --rounds 1)")
    ap.add_argument("--against", metavar="PATH", help="also measure the engine of the checkout at PATH, interleaved")
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds with --against (default 7)")
    args = ap.parse_args()
    if args.tiny:
        args.games = 5
        args.rounds = 1
    print(json.dumps(run_bench(args.games, args.seed, sys.stderr, args.against, args.rounds)))


if __name__ == "__main__":
    main()
