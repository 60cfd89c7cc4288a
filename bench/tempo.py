"""Tempo: how many calendar days a game takes, per tempo preset, as one JSON object (issue 11).

    python bench/tempo.py --players 5 --turn-order batched --preset week --reading 3h --games 400 --seed 1
    python bench/tempo.py --all [--games 400] [--seed 1]

The model of players is ``server.services.estimate``'s (its docstring): each seat is a person in one of
Europe/Rome, Europe/Warsaw, America/New_York, America/Los_Angeles, Asia/Tokyo (drawn at random per seat and game),
quiet hours 23:00-07:00 local, checking mail while awake on average every ``--reading``, answering at the first
check, missing 5 % of requests; careful standing answers (victim order, Camera "look", weapons and Hidden "if
needed"), none for votes or Threat; in play-hours sessions present with probability 0.8 and answering within 5
minutes. Deadlines come from the server's ``services.tempo.window_deadline``, votes close by
``engine.vote_decided``. Games start at a random moment of the week of Monday 2 March 2026 (UTC).

``--preset`` is a name of ``server.services.presets.PRESETS`` or ``today``: the tempo before issue 11 (24 h for
everything, no standing answers at all, no early closing of votes, no last call), to compare defaulted shares.
Prints progress on stderr and the JSON object on stdout (recorded in docs/PERFORMANCE.md).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from server.services import estimate, presets
from server.services.tempo import parse_duration

ZONES = ("Europe/Rome", "Europe/Warsaw", "America/New_York", "America/Los_Angeles", "Asia/Tokyo")
#: the tempo before issue 11: 24 h for everything, no early closing, no last call (and no standing answers).
TODAY = {"durations": {"default": 24 * 3600}, "avoid_quiet_hours": True, "close_decided_votes": False}
MONDAY = datetime(2026, 3, 2, tzinfo=UTC)


def tempo_of(preset: str) -> dict[str, Any]:
    return dict(TODAY) if preset == "today" else presets.tempo_for(preset, "Europe/Rome")


def run(
    players: int, turn_order: str, preset: str, reading: str, *, games: int, seed: int, progress: bool = False
) -> dict[str, Any]:
    """One combination: ``games`` games of ``players`` people."""
    rng = random.Random(seed)
    model = estimate.Model(reading=parse_duration(reading), standing={} if preset == "today" else estimate.CAREFUL)
    started = time.perf_counter()
    played = []
    for i in range(games):  # a new table each game: zones drawn per seat
        seats = [estimate.person(rng.choice(ZONES)) for _ in range(players)]
        start = MONDAY + timedelta(seconds=rng.uniform(0, 7 * 86400))
        played.append(
            estimate.play(
                seats, {"turn_order": turn_order}, tempo_of(preset), model, rng.randrange(2**31), start, shifts=True
            )
        )
        if progress and (i + 1) % 50 == 0:
            print(f"  {i + 1}/{games}", file=sys.stderr, flush=True)
    return {
        "players": players,
        "turn_order": turn_order,
        "preset": preset,
        "reading": reading,
        "seed": seed,
        **estimate.summary(played),
        "seconds": round(time.perf_counter() - started, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--players", type=int, default=5, choices=range(3, 7))
    ap.add_argument("--turn-order", default="batched", choices=("batched", "strict"))
    ap.add_argument("--preset", default="week", choices=(*presets.PRESETS, "today"))
    ap.add_argument("--reading", default="3h", help="mean interval between mail checks while awake (3h, 1h, 90m)")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--all", action="store_true", help="every combination: 3-6 players, both orders, presets, 3h/1h")
    args = ap.parse_args()
    if not args.all:
        print(f"{args.games} games ...", file=sys.stderr, flush=True)
        result = run(
            args.players, args.turn_order, args.preset, args.reading, games=args.games, seed=args.seed, progress=True
        )
        print(json.dumps(result))
        return
    results = []
    for players in range(3, 7):
        for order in ("batched", "strict"):
            for preset in (*presets.PRESETS, "today"):
                for reading in ("3h", "1h"):
                    print(f"{players} players, {order}, {preset}, {reading} ...", file=sys.stderr, flush=True)
                    results.append(run(players, order, preset, reading, games=args.games, seed=args.seed))
    print(json.dumps({"games": args.games, "seed": args.seed, "results": results}))


if __name__ == "__main__":
    main()
