"""Helpers for engine tests: build scenarios, run them, check results with the examples' expectation format."""

from __future__ import annotations

import json
import re
from typing import Any

from engine import run_scenario

# The rule book's numbers, written out here (not imported from the engine) so the tests check the engine's data.
COLOURS = ["red", "yellow", "blue", "green", "black", "white"]
CAPACITY = {1: 3, 2: 4, 3: 4, 5: 3, 6: 6}  # A1; the Parking (4) has no capacity
PARKING = 4
CARD_COUNTS = {  # A3: 21 cards
    "threat": 3,
    "camera": 3,
    "sprint": 3,
    "hardware": 3,
    "hidden": 3,
    "axe": 1,
    "pistol": 1,
    "bat": 1,
    "shotgun": 1,
    "grenade": 1,
    "chainsaw": 1,
}
VP = {"pinup": 7, "tough": 5, "gunman": 3, "girl": 1}  # A2
WEAPONS = ["axe", "pistol", "bat", "shotgun", "grenade", "chainsaw"]

FOUR = ["red", "yellow", "blue", "green"]
FIVE = ["red", "yellow", "blue", "green", "black"]
SIX = ["red", "yellow", "blue", "green", "black", "white"]
THREE = ["yellow", "red", "blue"]


#: The keys ``position()`` takes besides the characters, with their defaults.
POSITION_DEFAULTS: dict[str, Any] = {
    "phase": "attack",
    "round": 3,
    "chief": None,  # None: the first player listed
    "elected": False,
    "closed": None,  # None: [2] (Cachou) with 3 or 4 players, else []
    "zombies": None,  # {location: zombies}, keys int or str
    "hands": None,  # {colour: cards}; unlisted players hold none
    "deck": None,
    "eliminated": None,  # None: players without characters, eliminated the round before
}


def position(characters: dict[str, dict[str, int]], **given: Any) -> dict[str, Any]:
    """A position for the players listed in ``characters`` (in that order); ``given`` sets any key of
    ``POSITION_DEFAULTS`` (``position(chars, phase="truck", zombies={3: 2})``), the others get plain defaults."""
    unknown = sorted(set(given) - set(POSITION_DEFAULTS))
    if unknown:
        raise TypeError(f"position() got unknown keys {unknown}")
    o = {**POSITION_DEFAULTS, **given}
    players = list(characters)
    closed = o["closed"]
    if closed is None:
        closed = [2] if len(players) <= 4 else []
    eliminated = o["eliminated"]
    if eliminated is None:
        eliminated = {p: max(1, o["round"] - 1) for p, mine in characters.items() if not mine}
    hands = o["hands"] or {}
    return {
        "round": o["round"],
        "phase": o["phase"],
        "chief": o["chief"] or players[0],
        "chief_elected": o["elected"],
        "closed": closed,
        "characters": characters,
        "zombies": {str(k): v for k, v in (o["zombies"] or {}).items()},
        "hands": {p: list(hands.get(p, [])) for p in players},
        "deck": list(o["deck"] or []),
        "eliminated": eliminated,
    }


def scenario(
    pos: dict[str, Any] | None = None,
    *,
    players: list[str] | None = None,
    answers: list[dict[str, Any]] | None = None,
    options: dict[str, Any] | None = None,
    dice: list[int] | None = None,
    seed: int = 1,
    standing_orders: dict[str, Any] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "players": players or (list(pos["characters"]) if pos else FOUR),
        "seed": seed,
        "options": {"turn_order": "strict", **(options or {})},
        "answers": answers or [],
    }
    if pos is not None:
        out["position"] = pos
    if dice is not None:
        out["dice"] = dice
    if standing_orders is not None:
        out["standing_orders"] = standing_orders
    return out


def run(pos: dict[str, Any] | None = None, answers: list[Any] | None = None, **kwargs: Any) -> dict[str, Any]:
    """Run a scenario; answers may be given as (player, kind, answer) tuples, (player, kind) for a timeout."""
    return run_scenario(scenario(pos, answers=[a if isinstance(a, dict) else ans(*a) for a in answers or []], **kwargs))


def ans(player: str, kind: str, *answer: Any) -> dict[str, Any]:
    if not answer:
        return {"player": player, "kind": kind, "timeout": True}
    return {"player": player, "kind": kind, "answer": answer[0]}


def kinds(result: dict[str, Any]) -> list[str]:
    """``player:kind`` of every pending request, in order."""
    return [f"{r['player']}:{r['kind']}" for r in result["pending"]]


def events(result: dict[str, Any], type_: str) -> list[dict[str, Any]]:
    return [e for e in result["events"] if e["type"] == type_]


_ABSENT = object()


def get(result: dict[str, Any], path: str) -> Any:
    """Follow a dotted path (``state.zombies.3``, ``pending[0].kind``, ``pending[player=blue,kind=vote].weight``)."""
    if path == "pending_kinds":
        return kinds(result)
    cur: Any = result
    for part in re.findall(r"[^.\[\]]+|\[[^\]]*\]", path):
        if part.startswith("["):
            inner = part[1:-1]
            if "=" in inner:
                conds = [c.split("=", 1) for c in inner.split(",")]
                cur = next((x for x in cur if all(str(x.get(k)) == v for k, v in conds)), _ABSENT)
            elif isinstance(cur, list) and int(inner) < len(cur):
                cur = cur[int(inner)]
            else:
                return _ABSENT
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return _ABSENT
        if cur is _ABSENT:
            return _ABSENT
    return cur


def check(result: dict[str, Any], expectations: list[list[Any]]) -> None:
    """Assert every ``[PATH, OP, VALUE]`` of the examples' format; the message names the failing one."""
    for path, op, value in expectations:
        got = get(result, path)
        if op == "absent":
            ok = got is _ABSENT
        elif got is _ABSENT:
            ok = False
        elif op == "==":
            ok = got == value
        elif op == "!=":
            ok = got != value
        elif op == "in":
            ok = got in value
        elif op == "contains":
            ok = value in got
        elif op == "not_contains":
            ok = value not in got
        elif op == "len":
            ok = len(got) == value
        elif op == "set==":
            ok = sorted(map(json.dumps, got)) == sorted(map(json.dumps, value))
        elif op == "<=":
            ok = got <= value
        elif op == ">=":
            ok = got >= value
        else:
            raise AssertionError(f"unknown op {op}")
        shown = "<absent>" if got is _ABSENT else json.dumps(got)
        assert ok, f"{path} {op} {json.dumps(value)}: got {shown}; error={result.get('error')}"
