"""Engine snapshots: restoring a game by full replay vs from its latest snapshot, as one JSON object.

    python bench/snapshots.py [--games N] [--runs R] [--tiny]

For N bot games (``SensibleBot``, 5 players, batched and strict turn order in turn), at the middle of the answer log
and 3 entries before its end: the median ms of ``Game.from_json`` (replays the whole log) and of ``Game.restore``
(the latest snapshot, the events before it as a server reads them back, and the log after it), over R runs each;
and the snapshot's size in bytes (compact JSON) next to the whole saved game's. Engine time only: a server also
reads the events before the snapshot (one query). ``--tiny`` runs in seconds (CI).

Prints progress on stderr and the JSON object on stdout.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from functools import partial
from typing import Any

from engine.bots import SensibleBot
from engine.config import Config
from engine.data import COLOURS
from engine.game import Game
from engine.options import Options


def played(players: int, seed: int, turn_order: str) -> tuple[Config, list[dict[str, Any]]]:
    config = Config(COLOURS[:players], seed, Options(turn_order=turn_order))
    game = Game(config)
    bots = {p: SensibleBot(seed * 10 + i) for i, p in enumerate(config.players)}
    while not game.over:
        req = game.pending()[0]
        game.answer(req.player, req.kind, bots[req.player].decide(game, req))
    return config, game.log


def at(config: Config, log: list[dict[str, Any]], entries: int) -> tuple[dict[str, Any], Any, list[Any]]:
    """The saved game, its snapshot and the events before it (through JSON, as stored) after ``entries`` answers."""
    game = Game(config)
    for entry in log[:entries]:
        game.replay_entry(entry)
    snap = game.snapshot()
    events = game.events[: snap["events"]] if snap is not None else []
    loaded: tuple[dict[str, Any], Any, list[Any]] = json.loads(json.dumps([game.to_json(), snap, events]))
    return loaded


def median_ms(run: Any, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--tiny", action="store_true", help="2 games, 3 runs: seconds")
    args = parser.parse_args()
    games, runs = (2, 3) if args.tiny else (args.games, args.runs)
    out: dict[str, Any] = {"games": games, "runs": runs, "players": 5}
    sizes, state_sizes, logs = [], [], []
    for point in ("middle", "end"):
        full, snap_ms, tails = [], [], []
        for i in range(games):
            config, log = played(5, 100 + i, "batched" if i % 2 == 0 else "strict")
            entries = len(log) // 2 if point == "middle" else len(log) - 3
            data, snap, events = at(config, log, entries)
            assert Game.restore(data, snap, events).to_json() == Game.from_json(data).to_json()
            full.append(median_ms(partial(Game.from_json, data), runs))
            snap_ms.append(median_ms(partial(Game.restore, data, snap, events), runs))
            tails.append(entries - snap["log"])
            sizes.append(len(json.dumps(snap, separators=(",", ":"))))
            state_sizes.append(len(json.dumps(data, separators=(",", ":"))))
            logs.append(entries)
            print(f"{point} game {i}: {entries} entries, {full[-1]:.2f} ms vs {snap_ms[-1]:.2f} ms", file=sys.stderr)
        out[f"{point}_full_replay_ms"] = round(statistics.median(full), 3)
        out[f"{point}_snapshot_ms"] = round(statistics.median(snap_ms), 3)
        out[f"{point}_log_entries"] = statistics.median(logs[-games:])
        out[f"{point}_entries_replayed_after_snapshot"] = statistics.median(tails)
    out["snapshot_bytes_median"] = statistics.median(sizes)
    out["snapshot_bytes_max"] = max(sizes)
    out["state_bytes_median"] = statistics.median(state_sizes)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
