"""Refusals a player can read in their language (H-1): ``IllegalAnswer(msgid, **params)``.

Every message id is a literal marked with ``N_`` (so ``pybabel extract -k N_`` finds it), its placeholders are
parameter names of the convention in ``engine.errors.PARAMETERS``, and the parameters are data (numbers and ids),
which a caller names in its own language with ``render_params``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from engine import IllegalAnswer, new_game
from engine.errors import ENGLISH, PARAMETERS, Names, render, render_params

from .support import position, run

ENGINE = Path(__file__).resolve().parents[2] / "engine"
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def marked_msgids() -> set[str]:
    """Every literal passed to ``N_`` in the engine; checks that each IllegalAnswer is raised with a marked literal
    and exactly its placeholders as keywords, or with a message of a table (the shapes of JSON answers)."""
    found: set[str] = set()
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            if ast.unparse(node.func) == "N_":
                assert len(node.args) == 1 and isinstance(node.args[0], ast.Constant), ast.unparse(node)
                found.add(node.args[0].value)
            elif ast.unparse(node.func) == "IllegalAnswer":
                first = node.args[0]
                if isinstance(first, ast.Call) and ast.unparse(first.func) == "N_":
                    assert isinstance(first.args[0], ast.Constant)
                    names = {k.arg for k in node.keywords}
                    assert names == set(PLACEHOLDER.findall(first.args[0].value)), ast.unparse(node)
                else:  # a message of a table, marked with N_ where it is written
                    assert isinstance(first, ast.Attribute), ast.unparse(node)
    return found


@pytest.mark.rule("H-1")
def test_every_refusal_is_a_marked_msgid_with_conventional_parameter_names() -> None:
    """Each msgid is an ``N_`` literal, its placeholders are names of the convention, raised with exactly them."""
    msgids = marked_msgids()
    assert len(msgids) >= 36
    for msgid in msgids:
        assert set(PLACEHOLDER.findall(msgid)) <= set(PARAMETERS), msgid
        assert "%" not in PLACEHOLDER.sub("", msgid), msgid


def refusal(game: Any, player: str, kind: str, answer: Any) -> IllegalAnswer:
    with pytest.raises(IllegalAnswer) as caught:
        game.check(player, kind, answer)
    return caught.value


@pytest.mark.rule("H-1", "SET-5")
def test_a_refusal_reads_in_english_and_carries_its_parameters_as_data() -> None:
    """``str(exc)`` is the English sentence; ``params`` hold numbers and ids, named by what they are."""
    game = new_game(["red", "yellow", "blue", "green"], seed=3, options={"turn_order": "strict", "first_chief": "red"})
    req = game.pending()[0]
    spots = sorted({o["location"] for o in req.options})
    exc = refusal(game, "red", "place", {"character": "pinup", "location": 99})
    assert exc.msgid == "You cannot place a character at %(value)s; the dice allow %(locations)s."
    assert exc.params == {"value": "99", "locations": spots}
    names = {1: "Restroom", 2: "Cachou", 3: "Megatoys", 4: "Parking", 5: "Security HQ", 6: "Supermarket"}
    allowed = ", ".join(f"{loc} ({names[loc]})" for loc in spots)
    assert str(exc) == f"You cannot place a character at 99; the dice allow {allowed}."
    exc = refusal(game, "red", "place", {"character": "robot", "location": spots[0]})
    assert str(exc) == (
        "'robot' is not one of your characters still to place: Pin-Up (pinup), Tough Guy (tough), Gunman (gunman)."
    )
    assert exc.params["characters"] == ["pinup", "tough", "gunman"]
    exc = refusal(game, "red", "place", [])
    assert str(exc) == 'A placement must be an object such as {"character": "tough", "location": 3}.'
    with pytest.raises(IllegalAnswer) as caught:
        game.answer("yellow", "place", {"character": "pinup", "location": 4})
    assert caught.value.params == {"kind": "place", "colour": "yellow"}
    assert str(caught.value) == "There is no place request waiting for yellow now."


@pytest.mark.rule("H-1", "A-3")
def test_card_names_in_a_refusal_follow_the_convention() -> None:
    """Cards are ids in ``params`` and names in English (the truck refusals listed ids before)."""
    pos = position(
        {"red": {"tough": 4}, "yellow": {"pinup": 1}, "blue": {"gunman": 3}},
        phase="truck",
        deck=["axe", "sprint", "threat"],
    )
    wrong = {"keep": "pistol", "give": "axe", "to": "blue"}
    result = run(pos, [("red", "truck", wrong)], players=["red", "yellow", "blue"])
    assert result["error"] == {
        "answer": 0,
        "message": "You can only keep one of the cards you drew: Axe, Sprint, Threat.",
    }


@pytest.mark.rule("H-1")
def test_a_caller_names_the_parameters_in_its_own_language() -> None:
    """The same parameters, rendered with another language's names, fill a translated message."""
    italian = Names(
        location=lambda loc: f"{loc} ({ {3: 'Megatoys', 6: 'Supermarket'}[loc] })",
        colour=lambda c: {"red": "Rosso", "blue": "Blu"}[c],
        character=lambda c: {"pinup": "Bionda", "girl": "Bambina"}[c],
        card=lambda c: {"hardware": "Barricata"}[c],
        kind=lambda k: {"vote": "voto"}[k],
        join=" e ".join,
    )
    params = {"locations": [3, 6], "colours": ["red", "blue"], "characters": ["pinup"], "card": "hardware"}
    assert render_params(params, italian) == {
        "locations": "3 (Megatoys) e 6 (Supermarket)",
        "colours": "Rosso e Blu",
        "characters": "Bionda",
        "card": "Barricata",
    }
    assert render_params({"kind": "vote", "value": "'x'", "fields": ["a", "b"]}, ENGLISH) == {
        "kind": "vote",
        "value": "'x'",
        "fields": "a, b",
    }
    assert render("Non hai abbastanza carte %(card)s.", {"card": "hardware"}, italian) == (
        "Non hai abbastanza carte Barricata."
    )
    exc = IllegalAnswer(
        "You cannot vote for %(value)s here; vote for one of %(colours)s.", value="'x'", colours=["red"]
    )
    assert str(exc) == "You cannot vote for 'x' here; vote for one of red."
    assert exc.msgid % render_params(exc.params, ENGLISH) == str(exc)
