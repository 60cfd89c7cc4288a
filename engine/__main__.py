"""``python -m engine run FILE|-`` and ``python -m engine demo`` (benchmarks: ``python bench/engine_games.py``)."""

from __future__ import annotations

import argparse
import json
import sys

from .errors import ScenarioError
from .scenario import run_scenario


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description="deadmail's Mall of Horror rules engine")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="play a scenario (ENGINE-CONTRACT.md) and print the result as JSON")
    run.add_argument("file", help="scenario file, or - for standard input")
    demo = sub.add_parser("demo", help="play a game of sensible bots and print what everyone saw")
    demo.add_argument("--players", type=int, default=5, choices=range(3, 7))
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--turn-order", choices=("batched", "strict"), default="batched")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from .demo import run_demo

        run_demo(args.players, args.seed, args.turn_order, sys.stdout)
        return 0
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as exc:
        print(f"cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        scenario = json.loads(text)
    except json.JSONDecodeError as exc:
        print(f"the scenario is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", file=sys.stderr)
        return 2
    try:
        result = run_scenario(scenario)
    except ScenarioError as exc:
        print(f"malformed scenario: {exc}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
