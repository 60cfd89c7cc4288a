"""The scenario contract (ENGINE-CONTRACT.md): malformed scenarios are refused, illegal answers stop play cleanly.

A malformed scenario (not JSON, an unknown key or value, a position that cannot exist) makes ``python -m engine run``
exit 2 with exactly one line on stderr naming the problem, and makes ``run_scenario`` raise ``ScenarioError`` (a
ValueError) with that message. An answer that cannot be applied gives ``ok: false`` with the index of the answer,
a readable message, and the state and pending requests from before that answer; the command then exits 0.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import ScenarioError, run_scenario

from .support import FOUR, kinds, position, scenario

ROOT = Path(__file__).resolve().parents[2]


def command(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "run", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )


# --- a valid base scenario, and ways to break it -----------------------------------------------------------------


def base() -> dict[str, Any]:
    """A legal 4-player attack position (checked by ``test_base_scenarios_are_accepted``)."""
    pos = position(
        {"red": {"pinup": 1, "tough": 3}, "yellow": {"gunman": 1}, "blue": {"pinup": 6}, "green": {"tough": 5}},
        round=2,
        zombies={1: 3},
        hands={"red": ["axe"]},
        deck=["sprint", "camera"],
    )
    return scenario(pos)


def base5() -> dict[str, Any]:
    """A legal 5-player position (Cachou open)."""
    pos = position(
        {
            "red": {"pinup": 2, "tough": 3},
            "yellow": {"gunman": 2},
            "blue": {"pinup": 6},
            "green": {"tough": 5},
            "black": {"gunman": 4},
        },
        phase="truck",
        round=2,
    )
    return scenario(pos)


def base3() -> dict[str, Any]:
    """A legal 3-player position (Little Girls, Cachou closed)."""
    pos = position(
        {"yellow": {"girl": 1, "pinup": 3}, "red": {"girl": 4}, "blue": {"tough": 6, "girl": 5}},
        phase="chief",
        round=3,
    )
    return scenario(pos)


def edit(make: Callable[[], dict[str, Any]], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    s = make()
    change(s)
    return s


def at(loc: int, count: int) -> Callable[[dict[str, Any]], None]:
    """Put ``count`` characters at ``loc`` in a 6-player game (3 each, in seating order)."""

    def change(s: dict[str, Any]) -> None:
        players = ["red", "yellow", "blue", "green", "black", "white"]
        chars: dict[str, dict[str, int]] = {p: {} for p in players}
        slots = [(p, c) for p in players for c in ("pinup", "tough", "gunman")]
        for i, (p, c) in enumerate(slots):
            chars[p][c] = loc if i < count else 4
        s["players"] = players
        pos = s["position"]
        pos["characters"] = chars
        pos["closed"] = []
        pos["chief"] = "red"
        pos["hands"] = {p: [] for p in players}
        pos["eliminated"] = {}
        pos["zombies"] = {}

    return change


def setp(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(s: dict[str, Any]) -> None:
        s["position"][key] = value

    return change


def drop(key: str) -> Callable[[dict[str, Any]], None]:
    def change(s: dict[str, Any]) -> None:
        del s["position"][key]

    return change


def sets(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(s: dict[str, Any]) -> None:
        s[key] = value

    return change


def option(name: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(s: dict[str, Any]) -> None:
        s["options"][name] = value

    return change


def chars(colour: str, mine: dict[str, int]) -> Callable[[dict[str, Any]], None]:
    def change(s: dict[str, Any]) -> None:
        s["position"]["characters"][colour] = mine

    return change


def both(*changes: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def change(s: dict[str, Any]) -> None:
        for c in changes:
            c(s)

    return change


def answers(*entries: Any) -> Callable[[dict[str, Any]], None]:
    return sets("answers", list(entries))


#: id -> (malformed scenario, words of which at least one must appear in the message, case-insensitive)
MALFORMED: dict[str, tuple[dict[str, Any], list[str]]] = {
    "unknown-top-level-key": (edit(base, sets("colours", ["red"])), ["colours"]),
    "unknown-option": (edit(base, option("turbo", True)), ["turbo"]),
    "unknown-turn-order": (edit(base, option("turn_order", "sometimes")), ["sometimes"]),
    "unknown-sprint-timing": (edit(base, option("sprint_timing", "never")), ["never"]),
    "unknown-attack-tie-pool": (edit(base, option("attack_tie_pool", "all")), ["attack_tie_pool"]),
    "unknown-zombie-player": (edit(base, option("zombie_player", "always")), ["always"]),
    "unknown-attack-cards": (edit(base, option("attack_cards", "nobody")), ["nobody"]),
    "first-chief-not-a-player": (edit(base, option("first_chief", "white")), ["white"]),
    "first-chief-unknown-colour": (edit(base, option("first_chief", "purple")), ["purple"]),
    "unknown-weapon": (edit(base, option("weapons", {"laser": 2})), ["laser"]),
    "weapon-kills-nothing": (edit(base, option("weapons", {"axe": 0})), ["axe"]),
    "weapon-kills-text": (edit(base, option("weapons", {"axe": "2"})), ["axe"]),
    "options-not-an-object": (edit(base, sets("options", ["strict"])), ["options"]),
    "unknown-colour": (edit(base, sets("players", ["red", "purple", "blue"])), ["purple"]),
    "too-few-players": (scenario(players=["red", "blue"]), ["2 players", "3 to 6", "too few"]),
    "no-players": (scenario(players=["red"]) | {"players": []}, ["players"]),
    "too-many-players": (
        scenario(players=["red", "yellow", "blue", "green", "black", "white", "red"]),
        ["7", "3 to 6", "twice", "duplicate", "too many"],
    ),
    "duplicated-colour": (scenario(players=["red", "blue", "red", "green"]), ["red", "twice", "duplicate"]),
    "players-missing": (edit(base, lambda s: s.pop("players")), ["players"]),
    "seed-not-a-number": (edit(base, sets("seed", "seven")), ["seed"]),
    "position-not-an-object": (edit(base, sets("position", [1, 2])), ["position"]),
    "unknown-key-in-position": (edit(base, setp("weather", "rain")), ["weather"]),
    "four-at-the-restroom": (edit(base, at(1, 4)), ["location 1", "restroom", "holds 3"]),
    "four-at-security": (edit(base, at(5, 4)), ["location 5", "security", "holds 3"]),
    "five-at-megatoys": (edit(base, at(3, 5)), ["location 3", "megatoys", "holds 4"]),
    "five-at-cachou": (edit(base, at(2, 5)), ["location 2", "cachou", "holds 4"]),
    "seven-at-the-supermarket": (edit(base, at(6, 7)), ["location 6", "supermarket", "holds 6"]),
    "character-at-condemned-location": (
        edit(base, both(setp("closed", [2, 5]), chars("green", {"tough": 5}))),
        ["closed", "location 5"],
    ),
    "character-at-cachou-with-4-players": (edit(base, chars("green", {"tough": 2})), ["closed", "location 2"]),
    "parking-closed": (edit(base, setp("closed", [2, 4])), ["parking", "4"]),
    "cachou-open-with-4-players": (edit(base, setp("closed", [])), ["2", "cachou"]),
    "cachou-open-with-3-players": (edit(base3, setp("closed", [])), ["2", "cachou"]),
    "closed-not-a-location": (edit(base, setp("closed", [2, 7])), ["closed"]),
    "little-girl-with-4-players": (edit(base, chars("green", {"girl": 5})), ["girl"]),
    "little-girl-with-5-players": (edit(base5, chars("green", {"girl": 5})), ["girl"]),
    "unknown-character": (edit(base, chars("green", {"zombie": 5})), ["zombie"]),
    "character-location-7": (edit(base, chars("green", {"tough": 7})), ["7"]),
    "characters-missing-a-player": (
        edit(base, lambda s: s["position"]["characters"].pop("green")),
        ["characters"],
    ),
    "four-threat-cards": (
        edit(
            base,
            both(
                setp("hands", {"red": ["threat", "threat"], "yellow": [], "blue": [], "green": []}),
                setp("deck", ["threat", "threat"]),
            ),
        ),
        ["threat"],
    ),
    "two-grenades": (edit(base, setp("deck", ["grenade", "sprint", "grenade"])), ["grenade"]),
    "four-hidden-in-one-hand": (
        edit(base, setp("hands", {"red": ["hidden"] * 4, "yellow": [], "blue": [], "green": []})),
        ["hidden"],
    ),
    "unknown-card": (edit(base, setp("deck", ["banana"])), ["banana"]),
    "hands-missing-a-player": (edit(base, setp("hands", {"red": [], "yellow": [], "blue": []})), ["hands"]),
    "negative-zombies": (edit(base, setp("zombies", {"1": -1})), ["zombies"]),
    "zombies-at-unknown-location": (edit(base, setp("zombies", {"9": 1})), ["9"]),
    "zombies-at-closed-location": (edit(base, setp("zombies", {"2": 3})), ["2"]),
    "position-dice-not-null": (edit(base, setp("dice", [1, 2, 3, 4])), ["dice"]),
    "phase-moves": (edit(base, setp("phase", "moves")), ["phase", "moves"]),
    "phase-unknown": (edit(base, setp("phase", "lunch")), ["phase", "lunch"]),
    "round-zero": (edit(base, setp("round", 0)), ["round"]),
    "chief-not-a-player": (edit(base, setp("chief", "white")), ["chief"]),
    "chief-elected-not-bool": (edit(base, setp("chief_elected", "yes")), ["chief_elected"]),
    "eliminated-player-with-characters": (edit(base, setp("eliminated", {"green": 1})), ["green"]),
    "player-without-characters-not-eliminated": (edit(base, chars("green", {})), ["green"]),
    "dice-zero": (edit(base, sets("dice", [0])), ["dice"]),
    "dice-seven": (edit(base, sets("dice", [3, 7])), ["dice"]),
    "dice-text": (edit(base, sets("dice", ["3"])), ["dice"]),
    "dice-boolean": (edit(base, sets("dice", [True])), ["dice"]),
    "dice-fraction": (edit(base, sets("dice", [2.5])), ["dice"]),
    "dice-not-a-list": (edit(base, sets("dice", "1234")), ["dice"]),
    "answers-not-a-list": (edit(base, sets("answers", {"player": "red"})), ["answers"]),
    "answer-without-answer-or-timeout": (edit(base, answers({"player": "red", "kind": "cards"})), ["answers[0]"]),
    "answer-with-answer-and-timeout": (
        edit(base, answers({"player": "red", "kind": "cards", "answer": [], "timeout": True})),
        ["answers[0]"],
    ),
    "answer-timeout-false": (
        edit(base, answers({"player": "red", "kind": "cards", "timeout": False})),
        ["answers[0]", "timeout"],
    ),
    "answer-without-player": (edit(base, answers({"kind": "cards", "answer": []})), ["answers[0]", "player"]),
    "answer-not-an-object": (edit(base, answers(["red", "cards", []])), ["answers[0]"]),
    "answer-unknown-key": (
        edit(base, answers({"player": "red", "kind": "cards", "answer": [], "note": "hi"})),
        ["note"],
    ),
    "second-answer-malformed": (
        edit(base, answers({"player": "red", "kind": "cards", "answer": []}, {"player": "red", "kind": "cards"})),
        ["answers[1]"],
    ),
    "standing-order-unknown-character": (
        edit(base, sets("standing_orders", {"red": {"victim": ["dragon"]}})),
        ["standing_orders"],
    ),
    "standing-order-not-a-player": (
        edit(base, sets("standing_orders", {"white": {"victim": ["pinup"]}})),
        ["white"],
    ),
}

#: every key of a position is required (ENGINE-CONTRACT.md "with it, every key shown is required")
POSITION_KEYS = ["round", "phase", "chief", "chief_elected", "closed", "characters", "zombies", "hands", "deck"]
POSITION_KEYS.append("eliminated")
for _key in POSITION_KEYS:
    MALFORMED[f"position-without-{_key}"] = (edit(base, drop(_key)), [_key])


def one_line_naming(stderr: str, words: list[str]) -> str:
    lines = stderr.strip("\n").split("\n")
    assert len(lines) == 1 and lines[0].strip(), f"stderr is not one line: {stderr!r}"
    assert "Traceback" not in stderr
    assert any(w.lower() in lines[0].lower() for w in words), f"{lines[0]!r} names none of {words}"
    return lines[0]


@pytest.mark.rule("G", "A1", "A2", "A3", "A5", "SET-4", "DEF-1")
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_scenario_raises_scenario_error(case: str) -> None:
    """ENGINE-CONTRACT: a scenario that cannot exist raises ScenarioError (a ValueError) naming the problem."""
    bad, words = MALFORMED[case]
    with pytest.raises(ScenarioError) as caught:
        run_scenario(copy.deepcopy(bad))
    assert isinstance(caught.value, ValueError)
    message = str(caught.value)
    assert "\n" not in message.strip()
    assert any(w.lower() in message.lower() for w in words), f"{message!r} names none of {words}"


@pytest.mark.rule("G", "A1", "A2", "A3", "A5", "SET-4", "DEF-1")
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_scenario_command_exits_2_with_one_line(case: str, tmp_path: Path) -> None:
    """``python -m engine run FILE`` exits 2, prints nothing on stdout and one line on stderr naming the problem."""
    bad, words = MALFORMED[case]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    proc = command([str(path)])
    assert proc.returncode == 2, proc.stdout[:300]
    assert proc.stdout == ""
    line = one_line_naming(proc.stderr, words)
    with pytest.raises(ScenarioError) as caught:
        run_scenario(copy.deepcopy(bad))
    assert str(caught.value) in line  # the same message both ways


@pytest.mark.rule("G")
@pytest.mark.parametrize(
    "text",
    ['{"players": ["red", "blue", "green"]', "players: [red, blue, green]", "", '{"players": ["red",]}', "\x00"],
    ids=["unclosed", "yaml", "empty", "trailing-comma", "nul"],
)
def test_text_that_is_not_json_exits_2(text: str) -> None:
    """Text that is not JSON: exit 2, nothing on stdout, one line on stderr saying so."""
    proc = command(["-"], stdin=text)
    assert proc.returncode == 2
    assert proc.stdout == ""
    one_line_naming(proc.stderr, ["json"])


@pytest.mark.rule("G")
@pytest.mark.parametrize("value", [[1, 2], "red", 7, None], ids=["list", "string", "number", "null"])
def test_json_that_is_not_an_object_is_refused(value: Any) -> None:
    """A scenario must be a JSON object: anything else is refused by both the API and the command."""
    with pytest.raises(ScenarioError):
        run_scenario(value)
    proc = command(["-"], stdin=json.dumps(value))
    assert proc.returncode == 2 and proc.stdout == ""
    one_line_naming(proc.stderr, ["object", "scenario"])


@pytest.mark.rule("G")
def test_missing_file_exits_2_with_one_line(tmp_path: Path) -> None:
    """A scenario file that cannot be read is reported in one line, exit 2."""
    proc = command([str(tmp_path / "nowhere.json")])
    assert proc.returncode == 2 and proc.stdout == ""
    one_line_naming(proc.stderr, ["nowhere.json"])


# --- the limits themselves are accepted (so the refusals above are about the limit, not something else) ----------


ACCEPTED: dict[str, Callable[[], dict[str, Any]]] = {
    "base-4p": base,
    "base-5p-cachou-open": base5,
    "base-3p-little-girls": base3,
    "three-at-the-restroom": lambda: edit(base, at(1, 3)),
    "three-at-security": lambda: edit(base, at(5, 3)),
    "four-at-megatoys": lambda: edit(base, at(3, 4)),
    "four-at-cachou-6p": lambda: edit(base, at(2, 4)),
    "six-at-the-supermarket": lambda: edit(base, at(6, 6)),
    "eighteen-at-the-parking": lambda: edit(base, at(4, 18)),
    "5p-cachou-condemned": lambda: edit(
        base5, both(setp("closed", [2]), chars("red", {"pinup": 1, "tough": 3}), chars("yellow", {"gunman": 1}))
    ),
    "position-dice-null": lambda: edit(base, setp("dice", None)),
    "three-threats": lambda: edit(base, setp("deck", ["threat", "threat", "threat"])),
    "every-card": lambda: edit(base, both(setp("hands", {p: [] for p in FOUR}), setp("deck", ALL_CARDS))),
    "dice-one-to-six": lambda: edit(base, sets("dice", [1, 2, 3, 4, 5, 6])),
    "all-options": lambda: edit(base, sets("options", ALL_OPTIONS)),
    "no-position-3p": lambda: scenario(players=["yellow", "red", "blue"]),
    "no-position-6p": lambda: scenario(players=["red", "yellow", "blue", "green", "black", "white"]),
}


@pytest.mark.rule("A1", "A2", "A5", "SET-4", "G")
@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_base_scenarios_are_accepted(name: str) -> None:
    """Positions at exactly the limits of RULES.md A1/A2/A3/A5 are legal and play."""
    result = run_scenario(ACCEPTED[name]())
    assert result["ok"] is True and result["error"] is None


ALL_CARDS = ["threat"] * 3 + ["camera"] * 3 + ["sprint"] * 3 + ["hardware"] * 3 + ["hidden"] * 3
ALL_CARDS += ["axe", "pistol", "bat", "shotgun", "grenade", "chainsaw"]
ALL_OPTIONS = {
    "turn_order": "batched",
    "sprint_timing": "after_moves",
    "attack_tie_pool": "tied",
    "zombie_player": "every_round",
    "attack_cards": "everyone",
    "first_chief": "green",
    "weapons": {"axe": 1, "pistol": 2, "bat": 1, "shotgun": 2, "grenade": 2, "chainsaw": 3},
}


# --- ok: false --------------------------------------------------------------------------------------------------


def setup_scenario(answers_: list[dict[str, Any]], order: str = "strict") -> dict[str, Any]:
    """A new 4-player game; red is the first Chief; red's placement dice are 1 and 3, yellow's 5 and 6."""
    return {
        "players": FOUR,
        "seed": 4,
        "options": {"turn_order": order, "first_chief": "red"},
        "dice": [1, 3, 5, 6, 6, 6, 1, 1],
        "answers": answers_,
    }


def cachou_dice_scenario(answers_: list[dict[str, Any]]) -> dict[str, Any]:
    """Red rolls a double 2: closed Cachou is unusable, so any open location with room is offered (SET-5)."""
    return setup_scenario(answers_) | {"dice": [2, 2]}


def truck_scenario(answers_: list[dict[str, Any]]) -> dict[str, Any]:
    """Truck vote at the Parking between red and yellow (one Pin-Up each), no Threat in hand."""
    pos = position(
        {
            "red": {"pinup": 4, "tough": 1, "gunman": 3},
            "yellow": {"pinup": 4, "gunman": 3, "tough": 1},
            "blue": {"pinup": 6, "tough": 6, "gunman": 6},
            "green": {"pinup": 5, "tough": 5, "gunman": 5},
        },
        phase="truck",
        round=2,
        deck=["sprint", "axe", "camera"],
    )
    return scenario(pos, answers=answers_)


def attack_scenario(answers_: list[dict[str, Any]]) -> dict[str, Any]:
    """Location 1: 3 zombies +1 (F-1, most characters) against strength 2; red holds an Axe."""
    s = base()
    s["answers"] = answers_
    return s


def a(player: str, kind: str, answer: Any) -> dict[str, Any]:
    return {"player": player, "kind": kind, "answer": answer}


RED_PLACE = a("red", "place", {"character": "tough", "location": 3})
VOTES_RED = [a("red", "vote", "red"), a("yellow", "vote", "red")]

#: id -> (scenario builder, the valid answers before the bad one, the bad answer)
ILLEGAL: dict[str, tuple[Callable[[list[dict[str, Any]]], dict[str, Any]], list[dict[str, Any]], dict[str, Any]]] = {
    "wrong-kind": (setup_scenario, [], a("red", "vote", "red")),
    "not-pending-player": (setup_scenario, [], a("yellow", "place", {"character": "tough", "location": 5})),
    "not-a-player": (setup_scenario, [], a("white", "place", {"character": "tough", "location": 1})),
    "timeout-not-pending": (setup_scenario, [], {"player": "blue", "kind": "place", "timeout": True}),
    "place-location-not-on-dice": (setup_scenario, [], a("red", "place", {"character": "tough", "location": 6})),
    "place-closed-cachou": (cachou_dice_scenario, [], a("red", "place", {"character": "tough", "location": 2})),
    "place-unknown-character": (setup_scenario, [], a("red", "place", {"character": "girl", "location": 1})),
    "place-not-an-object": (setup_scenario, [], a("red", "place", "tough at 1")),
    "place-missing-location": (setup_scenario, [], a("red", "place", {"character": "tough"})),
    "place-unknown-field": (setup_scenario, [], a("red", "place", {"character": "tough", "location": 1, "x": 1})),
    "place-fallback-closed": (
        setup_scenario,
        [],
        a("red", "place", {"character": "tough", "location": 1, "fallback": 2}),
    ),
    "second-answer-not-pending": (
        setup_scenario,
        [RED_PLACE],
        a("blue", "place", {"character": "tough", "location": 6}),
    ),
    "placed-character-again": (
        setup_scenario,
        [
            RED_PLACE,
            a("yellow", "place", {"character": "tough", "location": 5}),
            a("blue", "place", {"character": "tough", "location": 6}),
            a("green", "place", {"character": "tough", "location": 1}),
        ],
        a("red", "place", {"character": "tough", "location": 4}),
    ),
    "vote-for-absent-colour": (truck_scenario, [], a("red", "vote", "blue")),
    "vote-for-nonsense": (truck_scenario, [], a("red", "vote", {"colour": "red"})),
    "vote-by-absent-player": (truck_scenario, [], a("blue", "vote", "red")),
    "vote-twice": (truck_scenario, [a("red", "vote", "red")], a("red", "vote", "yellow")),
    "truck-give-to-self": (
        truck_scenario,
        VOTES_RED,
        a("red", "truck", {"keep": "sprint", "give": "axe", "to": "red"}),
    ),
    "truck-keep-card-not-drawn": (
        truck_scenario,
        VOTES_RED,
        a("red", "truck", {"keep": "grenade", "give": "axe", "to": "blue"}),
    ),
    "truck-give-kept-card": (
        truck_scenario,
        VOTES_RED,
        a("red", "truck", {"keep": "axe", "give": "axe", "to": "blue"}),
    ),
    "truck-missing-to": (truck_scenario, VOTES_RED, a("red", "truck", {"keep": "axe", "give": "sprint"})),
    "cards-not-in-hand": (attack_scenario, [], a("red", "cards", [{"card": "grenade"}])),
    "cards-not-a-list": (attack_scenario, [], a("red", "cards", {"card": "axe"})),
    "cards-axe-twice": (attack_scenario, [], a("red", "cards", [{"card": "axe"}, {"card": "axe"}])),
    "cards-axe-with-character": (attack_scenario, [], a("red", "cards", [{"card": "axe", "character": "pinup"}])),
    "cards-unknown-card": (attack_scenario, [], a("red", "cards", [{"card": "banana"}])),
    "cards-if-needed-not-bool": (attack_scenario, [], a("red", "cards", [{"card": "axe", "if_needed": "yes"}])),
}


@pytest.mark.rule("G", "H-1", "SET-5", "VOT-1", "A-3", "A-5", "F-4")
@pytest.mark.parametrize("case", sorted(ILLEGAL))
def test_illegal_answer_gives_ok_false_and_the_state_before_it(case: str) -> None:
    """An illegal answer stops play: ok false, its index, a readable message, state and pending from before it."""
    make, before, bad = ILLEGAL[case]
    expected = run_scenario(make(copy.deepcopy(before)))
    assert expected["ok"] is True and expected["pending"], "the answers before the bad one must be legal"
    later = copy.deepcopy(before[:1]) if before else [RED_PLACE]
    result = run_scenario(make([*copy.deepcopy(before), bad, *later]))
    assert result["ok"] is False
    assert result["error"]["answer"] == len(before)
    message = result["error"]["message"]
    assert isinstance(message, str) and len(message) >= 10
    assert "Traceback" not in message and "Error" not in message and "\n" not in message
    # nothing of the bad answer (nor of anything after it) was applied
    assert result["state"] == expected["state"]
    assert result["pending"] == expected["pending"]
    assert result["events"] == expected["events"]
    assert result["over"] is False and result["outcome"] is None


@pytest.mark.rule("G", "H-3")
def test_illegal_answer_in_a_half_answered_batched_window_keeps_the_window() -> None:
    """Batched setup: red has answered, red answers again: refused, and the three other requests stay pending."""
    first = a("red", "place", {"character": "tough", "location": 3})
    expected = run_scenario(setup_scenario([first], order="batched"))
    assert kinds(expected) == ["yellow:place", "blue:place", "green:place"]
    result = run_scenario(setup_scenario([first, a("red", "place", {"character": "pinup", "location": 1})], "batched"))
    assert result["ok"] is False and result["error"]["answer"] == 1
    assert result["pending"] == expected["pending"]
    assert result["state"] == expected["state"]
    assert result["events"] == expected["events"]


@pytest.mark.rule("G")
def test_ok_false_through_the_command_exits_0() -> None:
    """The command exits 0 when ok is false, and prints the same result as run_scenario."""
    bad = truck_scenario([a("red", "vote", "blue")])
    proc = command(["-"], stdin=json.dumps(bad))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    result = json.loads(proc.stdout)
    assert result["ok"] is False and result["error"]["answer"] == 0
    assert result == run_scenario(bad)


# --- reading, and determinism ------------------------------------------------------------------------------------


@pytest.mark.rule("G")
def test_file_and_stdin_give_the_same_result_as_the_api(tmp_path: Path) -> None:
    """``run FILE`` and ``run -`` print the result of run_scenario for the same scenario, as one JSON document."""
    good = truck_scenario(VOTES_RED)
    path = tmp_path / "good.json"
    path.write_text(json.dumps(good, indent=2), encoding="utf-8")
    from_file = command([str(path)])
    from_stdin = command(["-"], stdin=json.dumps(good))
    for proc in (from_file, from_stdin):
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
    assert from_file.stdout == from_stdin.stdout
    assert json.loads(from_file.stdout) == run_scenario(good)


@pytest.mark.rule("G", "SET-2", "SET-3", "VOT-8")
def test_same_scenario_twice_gives_identical_results() -> None:
    """The same scenario (random deal, random first Chief, seeded dice) always gives the same result."""
    golden = sorted((Path(__file__).parent / "golden").glob("*.json"))
    scenarios = [
        scenario(players=["red", "yellow", "blue", "green", "black"], seed=12345),
        setup_scenario([RED_PLACE], order="batched"),
        *(json.loads(p.read_text(encoding="utf-8"))["scenario"] for p in golden[:2]),
    ]
    for s in scenarios:
        original = copy.deepcopy(s)
        first = run_scenario(s)
        assert s == original, "run_scenario changed its input"
        second = run_scenario(copy.deepcopy(s))
        assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


@pytest.mark.rule("G", "SET-2", "SET-3")
def test_command_twice_prints_identical_output() -> None:
    """The command is deterministic too: two runs of one scenario print byte-identical output."""
    s = json.dumps(scenario(players=["yellow", "red", "blue"], seed=99))
    first, second = command(["-"], stdin=s), command(["-"], stdin=s)
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout


@pytest.mark.rule("G", "SET-2")
def test_different_seeds_deal_differently() -> None:
    """The seed drives the deal: over a few seeds the dealt hands are not all the same (the seed is used)."""
    hands = {
        json.dumps(run_scenario(scenario(players=FOUR, seed=seed))["state"]["hands"], sort_keys=True)
        for seed in range(6)
    }
    assert len(hands) > 1
