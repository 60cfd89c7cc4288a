"""Bad input — malformed, hostile or huge answers — gets a clear IllegalAnswer and changes nothing (H-1)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import IllegalAnswer, new_game
from engine.bots import RandomBot
from engine.data import CARDS, CHARACTERS, COLOURS
from engine.errors import PARAMETERS, render
from engine.game import Game
from tests.profile import examples

NAMES = st.sampled_from([*COLOURS, *CHARACTERS, *CARDS, "x" * 10_000, "<script>alert(1)</script>", ""])
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 10), st.floats(allow_nan=False), NAMES, st.text(max_size=20)
)
KEYS = st.sampled_from(
    ["character", "location", "fallback", "card", "keep", "give", "to", "sprint", "sprint_if_full", "if_needed", "x"]
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)


def snapshot(game: Game) -> str:
    return json.dumps([game.position(), [r.to_json() for r in game.pending()], game.events, game.log], sort_keys=True)


def advanced(seed: int, steps: int, players: int, order: str) -> Game:
    game = new_game(list(COLOURS[:players]), seed=seed, options={"turn_order": order})
    bot = RandomBot(seed)
    for _ in range(steps):
        if game.over:
            break
        req = game.pending()[0]
        game.answer(req.player, req.kind, bot.decide(game, req))
    return game


@pytest.mark.rule("H-1", "H-6")
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 150),
    players=st.integers(3, 6),
    order=st.sampled_from(["strict", "batched"]),
    answer=JSON,
)
def test_any_json_answer_is_accepted_or_refused_cleanly(
    seed: int, steps: int, players: int, order: str, answer: Any
) -> None:
    """Whatever JSON a player sends, the engine accepts it or raises IllegalAnswer (a msgid and parameters named
    by the convention of engine.errors) and changes nothing."""
    game = advanced(seed, steps, players, order)
    if game.over:
        return
    req = game.pending()[0]
    before = snapshot(game)
    sent = copy.deepcopy(answer)
    try:
        game.check(req.player, req.kind, answer)
    except IllegalAnswer as exc:
        assert snapshot(game) == before
        assert 0 < len(str(exc)) <= 400
        assert "x" * 100 not in str(exc)
        assert set(exc.params) <= set(PARAMETERS) and str(exc) == render(exc.msgid, exc.params)
        with pytest.raises(IllegalAnswer):
            game.answer(req.player, req.kind, answer)
        assert snapshot(game) == before
    else:
        game.answer(req.player, req.kind, answer)
    assert answer == sent  # the engine never mutates what it was given


@pytest.mark.rule("H-1")
def test_answers_for_someone_else_or_the_wrong_kind_are_refused() -> None:
    """Only a pending request can be answered: another player's or another kind is refused with a message."""
    game = new_game(["red", "yellow", "blue", "green"], seed=3, options={"turn_order": "strict", "first_chief": "red"})
    before = snapshot(game)
    with pytest.raises(IllegalAnswer, match="There is no place request waiting for yellow now"):
        game.answer("yellow", "place", {"character": "pinup", "location": 4})
    with pytest.raises(IllegalAnswer, match="There is no vote request waiting for red now"):
        game.answer("red", "vote", "red")
    with pytest.raises(IllegalAnswer):
        game.answer("purple", "place", {})
    assert snapshot(game) == before


@pytest.mark.rule("H-1")
def test_an_answer_cannot_be_given_twice_in_one_window() -> None:
    """In a batched window a player who answered is not asked again until the window closes."""
    game = new_game(["red", "yellow", "blue", "green"], seed=3, options={"turn_order": "batched", "first_chief": "red"})
    req = game.pending()[0]
    choice = req.options[0]
    game.answer(req.player, "place", choice)
    with pytest.raises(IllegalAnswer, match="already answered"):
        game.answer(req.player, "place", choice)
