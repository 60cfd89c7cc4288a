"""Tempo: how many calendar days a game takes, per tempo preset, as one JSON object.

    python bench/tempo.py --players 5 --turn-order batched --preset week --reading 3h --games 400 --seed 1
    python bench/tempo.py --all [--games 400] [--seed 1]
    python bench/tempo.py --players 5 --turn-order batched --preset week --channel push --games 400 [--linger 20m]
    python bench/tempo.py --players 5 --turn-order batched --preset week --channel mixed --push-players 2 --reading 3h
    python bench/tempo.py --players 5 --turn-order batched --preset week --reading 3h --games 400 --seed 1 --vanish

The model of players is ``server.services.play.estimate``'s (its docstring): each seat is a person in one of
Europe/Rome, Europe/Warsaw, America/New_York, America/Los_Angeles, Asia/Tokyo (drawn at random per seat and game),
quiet hours 23:00-07:00 local, checking mail while awake on average every ``--reading``, answering at the first
check, missing 5 % of requests; careful standing answers (victim order, Camera "look", weapons and Hidden "if
needed"), none for votes or Threat; in play-hours sessions present with probability 0.8 and answering within 5
minutes. Deadlines come from the server's ``services.tempo.window_deadline``, votes close by
``engine.vote_decided``. Games start at a random moment of the week of Monday 2 March 2026 (UTC).

``--channel``: how people are told (``estimate``'s docstring): ``mail`` (reading every ``--reading``), ``push``
(told at once while awake, answering after an exponential delay of mean ``--push-delay``, or at their next mail
check if sooner), or ``mixed`` (``--push-players`` by push, the others by mail); ``--linger``: how long a person
stays on the page after answering (the live page hands them the next request at once).

``--preset`` is a name of ``server.services.presets.PRESETS`` or ``today``: the plain tempo (24 h for everything,
no standing answers at all, no early closing of votes, no last call, no autopilot), to compare defaulted shares.

The autopilot is simulated as the server does it (``estimate``'s docstring): after ``--autopilot-after``
public requests defaulted in a row (the server's default when not given: ``services.play.policy.AFTER``; 0: never,
no autopilot) a seat's requests are answered at once until the player is back. ``--vanish``:
each game is played twice with the same seeds, with all present and with one person (drawn per game) vanishing at a
round drawn between the first and the last round of the game with all present; the vanishing person never answers
again nor comes back from the autopilot. The figures are those of the games with one vanishing, with ``present``
(the same games with all present) and the differences in days (``days_median_difference``,
``days_p90_difference``); ``vanished_on_autopilot_share`` is the share of games in which the vanished seat went on
autopilot, ``days_to_autopilot_median`` the median days from the vanishing to the autopilot in those games.
Prints progress on stderr and the JSON object on stdout (recorded in docs/PERFORMANCE.md).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from server.services import presets
from server.services.play import estimate, policy
from server.services.tempo import parse_duration

ZONES = ("Europe/Rome", "Europe/Warsaw", "America/New_York", "America/Los_Angeles", "Asia/Tokyo")
#: the plain tempo: 24 h for everything, no early closing, no last call, no autopilot (and no standing
#: answers).
TODAY = {
    "durations": {"default": 24 * 3600},
    "avoid_quiet_hours": True,
    "close_decided_votes": False,
    "autopilot_after": 0,
}
MONDAY = datetime(2026, 3, 2, tzinfo=UTC)


def tempo_of(preset: str, autopilot_after: int | None = None) -> dict[str, Any]:
    tempo = dict(TODAY) if preset == "today" else presets.tempo_for(preset, "Europe/Rome")
    if autopilot_after is not None:
        tempo["autopilot_after"] = autopilot_after
    return tempo


def run(  # noqa: PLR0913 (the bench's options, one by one)
    players: int,
    turn_order: str,
    preset: str,
    reading: str,
    *,
    games: int,
    seed: int,
    progress: bool = False,
    autopilot_after: int | None = None,
    vanish: bool = False,
    channel: str = "mail",
    push_players: int = 2,
    push_delay: str = "30m",
    linger: str = "0m",
) -> dict[str, Any]:
    """One combination: ``games`` games of ``players`` people (twice with ``vanish``: all present, then one of them
    vanishing, with the same seeds); ``channel``: every person told by mail, by push, or (``mixed``)
    ``push_players`` of them by push (drawn per game) and the others by mail."""
    rng = random.Random(seed)
    model = estimate.Model(
        reading=parse_duration(reading),
        standing={} if preset == "today" else estimate.CAREFUL,
        push_delay=parse_duration(push_delay),
        linger=parse_duration(linger) if linger not in ("0", "0m") else 0.0,
    )
    tempo = tempo_of(preset, autopilot_after)
    options = {"turn_order": turn_order}
    started = time.perf_counter()
    played, vanished = [], []
    for i in range(games):  # a new table each game: zones drawn per seat
        seats = [estimate.person(rng.choice(ZONES)) for _ in range(players)]
        pushed = set(range(players)) if channel == "push" else set()
        if channel == "mixed":
            pushed = set(rng.sample(range(players), min(push_players, players)))
        seats = [replace(seat, channel="push") if n in pushed else seat for n, seat in enumerate(seats)]
        start = MONDAY + timedelta(seconds=rng.uniform(0, 7 * 86400))
        game_seed = rng.randrange(2**31)
        present = estimate.play(seats, options, tempo, model, game_seed, start, shifts=True)
        played.append(present)
        if vanish:  # drawn apart: the games with all present are those of a run without --vanish
            draw = random.Random(game_seed ^ 0x5EED)
            who = draw.randrange(players)
            seats[who] = replace(seats[who], vanishes=draw.randint(1, max(present.rounds, 1)))
            vanished.append(estimate.play(seats, options, tempo, model, game_seed, start, shifts=True))
        if progress and (i + 1) % 50 == 0:
            print(f"  {i + 1}/{games}", file=sys.stderr, flush=True)
    head = {
        "players": players,
        "turn_order": turn_order,
        "preset": preset,
        "reading": reading,
        "seed": seed,
        "autopilot_after": policy.after_of(tempo),
        "channel": channel,
        **({"push_players": push_players} if channel == "mixed" else {}),
        **({"push_delay": push_delay} if channel != "mail" else {}),
        "linger": linger,
    }
    if not vanish:
        return {**head, **estimate.summary(played), "seconds": round(time.perf_counter() - started, 1)}
    gone, present_figures = estimate.summary(vanished), estimate.summary(played)
    to_pilot = [
        (g.vanished_pilot_at - g.vanished_at).total_seconds() / 86400
        for g in vanished
        if g.vanished_at is not None and g.vanished_pilot_at is not None
    ]
    return {
        **head,
        "vanish": True,
        **gone,
        "present": present_figures,
        "days_median_difference": round(gone["days_median"] - present_figures["days_median"], 2),
        "days_p90_difference": round(gone["days_p90"] - present_figures["days_p90"], 2),
        "vanished_on_autopilot_share": round(len(to_pilot) / max(len(vanished), 1), 4),
        "days_to_autopilot_median": round(statistics.median(to_pilot), 2) if to_pilot else None,
        "autopilots_per_game": round(sum(g.autopilots for g in vanished) / max(len(vanished), 1), 2),
        "autopilots_per_game_present": round(sum(g.autopilots for g in played) / max(len(played), 1), 2),
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
    ap.add_argument(
        "--autopilot-after",
        type=int,
        default=None,
        help=f"public defaults in a row that put a seat on autopilot (default {policy.AFTER}; 0: never)",
    )
    ap.add_argument(
        "--vanish",
        type=int,
        nargs="?",
        const=1,
        default=0,
        choices=(0, 1),
        help="one person vanishes at a random round: compared with the same games with all present",
    )
    ap.add_argument(
        "--channel",
        default="mail",
        choices=("mail", "push", "mixed"),
        help="how people are told: mail (read every --reading), push (told at once), mixed (--push-players by push)",
    )
    ap.add_argument("--push-players", type=int, default=2, help="with --channel mixed: how many are told by push")
    ap.add_argument("--push-delay", default="30m", help="mean delay of an answer after a notification while awake")
    ap.add_argument("--linger", default="0m", help="how long people stay on the page after answering (20m)")
    ap.add_argument("--tiny", action="store_true", help="a few games, for CI (--games 5)")
    args = ap.parse_args()
    if args.tiny:
        args.games, args.all = 5, False
    if args.autopilot_after is not None and args.autopilot_after < 0:
        ap.error("--autopilot-after must be 0 or more")
    if not args.all:
        print(f"{args.games} games{' (twice: all present, one vanishing)' if args.vanish else ''} ...", file=sys.stderr)
        result = run(
            args.players,
            args.turn_order,
            args.preset,
            args.reading,
            games=args.games,
            seed=args.seed,
            progress=True,
            autopilot_after=args.autopilot_after,
            vanish=bool(args.vanish),
            channel=args.channel,
            push_players=args.push_players,
            push_delay=args.push_delay,
            linger=args.linger,
        )
        print(json.dumps(result))
        return
    results = []
    for players in range(3, 7):
        for order in ("batched", "strict"):
            for preset in (*presets.PRESETS, "today"):
                for reading in ("3h", "1h"):
                    print(f"{players} players, {order}, {preset}, {reading} ...", file=sys.stderr, flush=True)
                    results.append(
                        run(
                            players,
                            order,
                            preset,
                            reading,
                            games=args.games,
                            seed=args.seed,
                            autopilot_after=args.autopilot_after,
                            vanish=bool(args.vanish),
                        )
                    )
    print(json.dumps({"games": args.games, "seed": args.seed, "results": results}))


if __name__ == "__main__":
    main()
