"""B-INFO / H-2 / H-6: what everyone sees of the table does not depend on what the other players hold.

A card window asks only players holding a card they may play, and a move with one movable character is asked only
of a player holding a Sprint (H-2), so naming who is asked would tell who holds what. The property: two games that
differ only in how the other players' cards are dealt among them give a seat the same public view (everything of
``engine.view`` but its own hand, dice, requests, answer and standing order), window after window, for every kind
of request. The seat answers the same in both games; the others let their deadlines pass (H-4), so nobody's play
makes the games differ on purpose. Where the other hands open a card window in one game and not in the other (a
window of other players only, which the rules let nobody hold up), the games are compared once such windows are
closed: who is asked in them is what must not show.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from engine import Game, Kind, ScenarioError, asked_in_secret, new_game, view
from engine.bots import RandomBot
from engine.config import Config

from .support import COLOURS

#: the keys of a seat's view that are its own; everything else is the public part, except the count of windows
#: opened: a card window of other players only adds one, telling that someone held a card (never who), as the rules
#: have it (such a window is opened, and closes as soon as those asked answer).
OWN = ("you", "hand", "standing_order", "dice", "requests", "answered", "window_no")


def public_part(game: Game, colour: str) -> dict[str, Any]:
    return {k: v for k, v in view(game, colour).items() if k not in OWN}


def starts(setup_seed: int, players: int, strict: bool) -> list[dict[str, Any]]:
    """Positions at which a phase may start (START_PHASES), met in a random bot game."""
    game = new_game(list(COLOURS[:players]), seed=setup_seed, options={"turn_order": "strict" if strict else "batched"})
    bot = RandomBot(setup_seed)
    found = []
    while not game.over:
        if game.phase in ("truck", "chief", "arrival", "attack") and game.window_no % 3 == 0:
            found.append(game.position())
        for req in game.pending():
            game.answer(req.player, req.kind, bot.decide(game, req))
    return found


def twin(game_json: dict[str, Any], position: dict[str, Any], hands: dict[str, list[str]]) -> Game | None:
    pos = {**position, "dice": None, "hands": hands}
    pos.pop("unplaced", None)
    try:
        return Game(Config.from_json({**game_json, "position": pos}))
    except ScenarioError:
        return None


def dealt_otherwise(position: dict[str, Any], colour: str, rng: random.Random) -> dict[str, list[str]] | None:
    """The other players' cards dealt again among them, each keeping their number of cards (public, B-INFO)."""
    hands = position["hands"]
    others = [p for p in hands if p != colour]
    pool = [card for p in others for card in hands[p]]
    rng.shuffle(pool)
    out = {colour: list(hands[colour])}
    for p in others:
        out[p], pool = pool[: len(hands[p])], pool[len(hands[p]) :]
    return None if out == hands else out


def only_others_secretly(game: Game, colour: str) -> bool:
    pending = game.pending()
    return bool(pending) and all(r.player != colour and asked_in_secret(r) for r in pending)


def let_pass(game: Game) -> None:
    for req in list(game.pending()):
        game.timeout(req.player, req.kind)


def step_together(a: Game, b: Game, colour: str, bots: tuple[RandomBot, RandomBot], kinds: set[str]) -> bool:
    """Compare the seat's public views, then answer one window in both games; False once they are over."""
    for game in (a, b):
        while only_others_secretly(game, colour):
            let_pass(game)
    assert public_part(a, colour) == public_part(b, colour), f"{colour} sees the other hands in window {a.window_no}"
    if a.over or b.over:
        assert a.over and b.over
        return False
    kinds.update(r.kind for r in a.pending())
    mine_a = [r for r in a.pending() if r.player == colour]
    mine_b = [r for r in b.pending() if r.player == colour]
    assert [r.to_json() for r in mine_a] == [r.to_json() for r in mine_b]
    answers = {r.kind: bots[0].decide(a, r) for r in mine_a}
    assert answers == {r.kind: bots[1].decide(b, r) for r in mine_b}
    for game in (a, b):
        for req in list(game.pending()):  # the window's requests: the last answer closes it
            if req.player == colour:
                game.answer(colour, req.kind, answers[req.kind])
            else:
                game.timeout(req.player, req.kind)
    return True


@pytest.mark.rule("H-2", "H-6", "VOT-6", "C-3", "E-4")
def test_a_seats_public_view_does_not_depend_on_the_other_hands() -> None:
    """For every window kind, 3 to 6 players, both turn orders: the public part of a seat's view is the same however
    the other players' cards are dealt among them; in particular nothing public names who is asked in a card window
    or a Sprint move."""
    kinds: set[str] = set()
    compared = 0
    for players, strict, seed in itertools.product((3, 4, 5, 6), (False, True), range(6)):
        rng = random.Random(seed)
        game_json = {
            "players": list(COLOURS[:players]),
            "seed": seed,
            "options": {"turn_order": "strict" if strict else "batched"},
        }
        for position in starts(seed, players, strict)[:8]:
            colour = rng.choice(game_json["players"])
            hands = dealt_otherwise(position, colour, rng)
            if hands is None:
                continue
            a, b = twin(game_json, position, position["hands"]), twin(game_json, position, hands)
            if a is None or b is None:
                continue
            bots = (RandomBot(seed), RandomBot(seed))
            for _ in range(40):  # a few rounds from there
                compared += 1
                if not step_together(a, b, colour, bots, kinds):
                    break
    assert compared > 1000
    # every kind but setup placement (SET-5), which comes before anyone may play a card
    assert kinds == set(Kind) - {Kind.PLACE}, kinds


@pytest.mark.rule("H-2", "H-4")
def test_a_card_window_names_nobody_and_its_missed_answers_stay_private() -> None:
    """The waiting list of a card window is empty for everyone, and a card window's missed deadline is told only
    to the player who missed it (naming them would tell that they held a playable card)."""
    for seed in range(40):
        game = new_game(list(COLOURS[:5]), seed=seed)
        bot = RandomBot(seed)
        while not game.over:
            pending = game.pending()
            if any(r.kind == Kind.CARDS for r in pending):
                asked = [r.player for r in pending if r.kind == Kind.CARDS]
                for colour in game.players:
                    waiting = view(game, colour)["waiting_for"]
                    assert all(w["kind"] != Kind.CARDS for w in waiting), waiting
                before = len(game.events)
                let_pass(game)
                missed = [e for e in game.events[before:] if e["type"] == "answer_defaulted"]
                assert [(e["player"], e["to"]) for e in missed] == [(p, [p]) for p in asked]
                return
            for req in pending:
                game.answer(req.player, req.kind, bot.decide(game, req))
    pytest.fail("no card window in 40 games")
