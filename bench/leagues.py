"""Leagues: how fast the fixtures of a round are seated, as one JSON object.

    python bench/leagues.py --players 600 --size 5 --history 5 --runs 7 --seed 1

``fixtures``: a season of ``--players`` players (each in one of Europe/Rome, Europe/Warsaw, Europe/London,
America/New_York, America/Los_Angeles, Asia/Tokyo, asleep 23:00-07:00, 22:00-06:00 or 00:00-08:00 local, one in five
without quiet hours; one in twenty has declared one acquaintance). The history is ``--history`` earlier rounds seated by
``server.services.leagues.seating.seat`` itself, each with a random 90 % of the players available; the round measured
has them
all. ``seconds_median`` (and min, max) is the time of ``seat`` over ``--runs`` runs with the same seed (one process,
wall clock); ``repeats`` the earlier meetings of pairs seated together in the round measured (``random_repeats`` the
same for a random seating of the same table sizes, for scale); ``awake_hours_mean`` the mean of the hours of the day in
which all of a table are awake; ``acquainted`` pairs seated together (always 0). Prints progress on stderr and the JSON
object on stdout (recorded in docs/PERFORMANCE.md).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from datetime import time as clock
from itertools import combinations
from typing import Any

from server.services.leagues.seating import Available, Round, score, seat, table_sizes

ZONES = (
    "Europe/Rome",
    "Europe/Warsaw",
    "Europe/London",
    "America/New_York",
    "America/Los_Angeles",
    "Asia/Tokyo",
)
NIGHTS = ((clock(23), clock(7)), (clock(22), clock(6)), (clock(0), clock(8)))


def season(players: int, history: int, size: int, seed: int) -> Round:
    """The round after ``history`` earlier ones, all players available."""
    rng = random.Random(seed)
    everyone = [
        Available(i, None if rng.random() < 0.2 else rng.choice(NIGHTS), rng.choice(ZONES)) for i in range(players)
    ]
    acquainted = [tuple(rng.sample(range(players), 2)) for _ in range(players // 20)]
    met: Counter[frozenset[int]] = Counter()
    for number in range(history):
        available = [p for p in everyone if rng.random() < 0.9]
        for table in seat(Round(available, size, dict(met), acquainted, seed=seed * 100 + number)):
            met.update(frozenset(pair) for pair in combinations(table, 2))
    return Round(everyone, size, dict(met), acquainted, seed=seed)


def fixtures(players: int, history: int, size: int, runs: int, seed: int) -> dict[str, Any]:
    rnd = season(players, history, size, seed)
    times, tables = [], []
    for _ in range(runs):
        started = time.perf_counter()
        tables = seat(rnd)
        times.append(time.perf_counter() - started)
    figures = score(rnd, tables)
    shuffled = [p.id for p in rnd.players]
    random.Random(seed).shuffle(shuffled)
    at_random, start = [], 0
    for s in table_sizes(len(shuffled), size):
        at_random.append(shuffled[start : start + s])
        start += s
    return {
        "players": players,
        "size": size,
        "history_rounds": history,
        "runs": runs,
        "seconds_median": round(statistics.median(times), 3),
        "seconds_min": round(min(times), 3),
        "seconds_max": round(max(times), 3),
        "tables": len(tables),
        "table_sizes": dict(sorted(Counter(map(len, tables)).items())),
        "repeats": figures.repeats,
        "random_repeats": score(rnd, at_random).repeats,
        "earlier_meetings": sum(rnd.met.values()),
        "awake_hours_mean": round(statistics.mean(figures.awake), 2),
        "acquainted": figures.acquainted,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--players", type=int, default=600)
    ap.add_argument("--size", type=int, default=5, choices=range(3, 7))
    ap.add_argument("--history", type=int, default=5, help="earlier rounds of the season")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tiny", action="store_true", help="a small season, for CI (--players 40 --history 2 --runs 1)")
    args = ap.parse_args()
    if args.tiny:
        args.players, args.history, args.runs = 40, 2, 1
    if args.players < 3 or args.runs < 1 or args.history < 0:
        ap.error("--players must be 3 or more, --runs 1 or more, --history 0 or more")
    print(f"fixtures: {args.players} players after {args.history} rounds, {args.runs} runs ...", file=sys.stderr)
    result = {"seed": args.seed, "fixtures": fixtures(args.players, args.history, args.size, args.runs, args.seed)}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
