"""Write the golden games of ``tests/engine/golden/``: whole bot games, from setup to the end, with their result.

Run from the repository root::

    python -m tests.engine.make_golden            # (re)write every golden file
    python -m tests.engine.make_golden --check    # only say which files differ from what would be written

Each game is played through the Python API by a mix of ``SensibleBot`` and ``RandomBot`` seats, with some
requests left to time out (H-4). The answer log becomes the scenario's ``answers``; the expected result is what
``run_scenario`` gives for that scenario. Regenerate only on purpose (a rule change): ``test_golden.py`` compares
every field exactly, so any change of behaviour shows up as a diff of these files, to be read before accepting.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from engine import new_game, run_scenario
from engine.bots import RandomBot, SensibleBot

GOLDEN = Path(__file__).parent / "golden"

#: name -> how the game is played. ``bots``: one letter per seat, S (SensibleBot) or R (RandomBot).
GAMES: dict[str, dict[str, Any]] = {
    "3p-strict-defaults": {
        "description": "3 players (Little Girls, Cachou closed), strict turn order, default options, few timeouts",
        "players": ["yellow", "red", "blue"],
        "seed": 11,
        "options": {"turn_order": "strict"},
        "bots": "SRS",
        "timeout_rate": 0.05,
    },
    "3p-batched-sprint-after-moves": {
        "description": "3 players, batched, Sprint after all moves, first Chief named, some timeouts",
        "players": ["red", "blue", "yellow"],
        "seed": 23,
        "options": {"turn_order": "batched", "sprint_timing": "after_moves", "first_chief": "blue"},
        "bots": "RSR",
        "timeout_rate": 0.1,
    },
    "4p-batched-timeouts": {
        "description": "4 players, batched (the default), default options, many timeouts",
        "players": ["red", "yellow", "blue", "green"],
        "seed": 5,
        "options": {},
        "bots": "SRSR",
        "timeout_rate": 0.2,
    },
    "4p-strict-tied-pool-every-round": {
        "description": "4 players, strict, random colour among tied colours, zombie players every round",
        "players": ["green", "white", "black", "red"],
        "seed": 31,
        "options": {
            "turn_order": "strict",
            "attack_tie_pool": "tied",
            "zombie_player": "every_round",
            "first_chief": "black",
        },
        "standing_orders": {"white": {"victim": ["gunman", "tough", "pinup"]}},
        "bots": "RRSR",
        "timeout_rate": 0.05,
    },
    "5p-batched-everyone-weapons": {
        "description": "5 players (Cachou open), batched, every player may play attack cards, custom weapons",
        "players": ["black", "red", "yellow", "blue", "green"],
        "seed": 47,
        "options": {"turn_order": "batched", "attack_cards": "everyone", "weapons": {"axe": 2, "chainsaw": 3}},
        "bots": "SRSRS",
        "timeout_rate": 0.05,
    },
    "5p-strict-standing-orders": {
        "description": "5 players, strict, standing victim orders, timeouts",
        "players": ["white", "blue", "green", "red", "yellow"],
        "seed": 59,
        "options": {"turn_order": "strict"},
        "standing_orders": {
            "blue": {"victim": ["gunman", "tough", "pinup"]},
            "red": {"victim": ["tough", "gunman"]},
        },
        "bots": "RSRSR",
        "timeout_rate": 0.1,
    },
    "6p-batched-defaults": {
        "description": "6 players (game ends at 6 characters), batched, default options, few timeouts",
        "players": ["red", "yellow", "blue", "green", "black", "white"],
        "seed": 71,
        "options": {},
        "bots": "SRSRSR",
        "timeout_rate": 0.05,
    },
    "6p-strict-all-options": {
        "description": "6 players, strict, every non-default option (Sprint after moves, everyone, tied, every round)",
        "players": ["white", "black", "green", "blue", "yellow", "red"],
        "seed": 83,
        "options": {
            "turn_order": "strict",
            "sprint_timing": "after_moves",
            "attack_tie_pool": "tied",
            "zombie_player": "every_round",
            "attack_cards": "everyone",
            "first_chief": "green",
            "weapons": {"pistol": 2, "grenade": 1},
        },
        "bots": "RSRSRS",
        "timeout_rate": 0.1,
    },
}


def events_hash(events: list[dict[str, Any]]) -> str:
    text = json.dumps(events, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def play(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Play one bot game through the API; return its answer log (answers and timeouts)."""
    game = new_game(spec["players"], spec["seed"], spec["options"], spec.get("standing_orders"))
    rng = random.Random(spec["seed"] * 7919 + 1)
    bots = {
        p: (SensibleBot if kind == "S" else RandomBot)(rng.randrange(2**32))
        for p, kind in zip(spec["players"], spec["bots"], strict=True)
    }
    steps = 0
    while not game.over:
        req = game.pending()[0]
        if rng.random() < spec["timeout_rate"]:
            game.timeout(req.player, req.kind)
        else:
            game.answer(req.player, req.kind, bots[req.player].decide(game, req))
        steps += 1
        if steps > 5000:
            raise RuntimeError("the game did not end")
    return game.log


def golden(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    scenario: dict[str, Any] = {"players": spec["players"], "seed": spec["seed"], "options": spec["options"]}
    if spec.get("standing_orders"):
        scenario["standing_orders"] = spec["standing_orders"]
    scenario["answers"] = play(spec)
    result = run_scenario(scenario)
    if not result["ok"] or not result["over"]:
        raise RuntimeError(f"{name}: the answer log does not replay to the end: {result['error']}")
    return {
        "name": name,
        "description": spec["description"],
        "bots": spec["bots"],
        "timeout_rate": spec["timeout_rate"],
        "scenario": scenario,
        "expect": {
            "ok": result["ok"],
            "error": result["error"],
            "over": result["over"],
            "outcome": result["outcome"],
            "state": result["state"],
            "pending": result["pending"],
            "events_count": len(result["events"]),
            "events_sha256": events_hash(result["events"]),
            "events": result["events"],
        },
    }


def dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.engine.make_golden", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    args = parser.parse_args(argv)
    GOLDEN.mkdir(exist_ok=True)
    changed = []
    for name, spec in GAMES.items():
        path = GOLDEN / f"{name}.json"
        text = dump(golden(name, spec))
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if text != old:
            changed.append(path.name)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    verb = "would change" if args.check else "written"
    print(f"{len(GAMES)} golden games; {verb}: {', '.join(changed) or 'none'}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
