"""Standing answers: the answer each setting gives, from the player's own view only, accepted by
``Game.check``; logged as such, told to that player alone, and replayed the same."""

from __future__ import annotations

from typing import Any

import pytest

from engine import Game, Request, replay_steps, standing_answer, view
from engine.bots import SensibleBot
from engine.config import Config

from .support import position


def at(pos: dict[str, Any], **options: str) -> Game:
    players = list(pos["characters"])
    return Game(
        Config.from_json({"players": players, "options": {"turn_order": "batched", **options}, "position": pos})
    )


def request_of(game: Game, colour: str) -> Request:
    (req,) = [r for r in game.pending() if r.player == colour]
    return req


def given(game: Game, colour: str, standing: dict[str, Any]) -> Any:
    """The standing answer for ``colour``'s open request, checked by the engine like any answer."""
    req = request_of(game, colour)
    answer = standing_answer(view(game, colour), req, standing)
    if answer is not None:
        game.check(colour, req.kind, answer)
    return answer


# an attack at the Restroom (1): red and yellow there, blue and green elsewhere
ATTACK = {
    "red": {"pinup": 1, "tough": 1, "gunman": 3},
    "yellow": {"pinup": 1, "tough": 5, "gunman": 6},
    "blue": {"pinup": 6, "tough": 6, "gunman": 6},
    "green": {"pinup": 3, "tough": 3, "gunman": 5},
}


@pytest.mark.rule("F-4", "H-3")
def test_attack_if_needed_plays_weapons_hardware_and_one_hidden_on_the_best_character_never_threat() -> None:
    hands = {"red": ["axe", "hardware", "hidden", "hidden", "threat", "grenade"], "yellow": ["threat"]}
    game = at(position(ATTACK, zombies={1: 6}, hands=hands))
    assert request_of(game, "red").info["window"] == "attack"
    plays = given(game, "red", {"attack": "if_needed"})
    assert plays == [
        {"card": "hardware", "if_needed": True},
        {"card": "axe", "if_needed": True},
        {"card": "grenade", "if_needed": True},
        {"card": "hidden", "character": "pinup", "if_needed": True},  # the Pin-Up is worth the most
    ]
    # a hand with only a Threat passes; without the setting, the player is asked
    assert given(game, "yellow", {"attack": "if_needed"}) == []
    assert given(game, "red", {}) is None
    assert given(game, "red", {"attack": "ask", "cards": "pass"}) is None


@pytest.mark.rule("C-3")
def test_camera_look_plays_the_security_camera_in_the_arrival_window() -> None:
    hands = {"red": ["camera", "camera"], "yellow": ["camera"]}
    game = at(position(ATTACK, phase="arrival", hands=hands))
    assert request_of(game, "red").info["window"] == "arrival"
    assert given(game, "red", {"camera": "look"}) == [{"card": "camera"}]
    assert given(game, "yellow", {"cards": "pass"}) is None  # "cards" is not about the camera
    game.answer("red", "cards", [{"card": "camera"}], standing=True)
    game.answer("yellow", "cards", [])
    assert view(game, "red")["dice"] is not None


@pytest.mark.rule("VOT-6", "H-3")
def test_cards_pass_answers_the_threat_window_before_the_truck_vote() -> None:
    chars = {"red": {"pinup": 4, "tough": 4, "gunman": 3}, "yellow": {"pinup": 4, "tough": 5, "gunman": 6}}
    chars |= {"blue": {"pinup": 6, "tough": 6, "gunman": 6}, "green": {"pinup": 3, "tough": 3, "gunman": 5}}
    game = at(position(chars, phase="truck", hands={"red": ["threat"]}, deck=["axe", "bat", "camera"]))
    req = request_of(game, "red")
    assert (req.kind, req.info["window"]) == ("cards", "truck")
    assert given(game, "red", {"cards": "pass"}) == []
    assert given(game, "red", {"camera": "look", "attack": "if_needed"}) is None


@pytest.mark.rule("VOT-1", "VOT-7")
def test_vote_policies_in_the_truck_vote_vote_for_me_else_the_colour_with_the_fewest_points() -> None:
    chars = {"red": {"pinup": 4, "tough": 4, "gunman": 3}, "yellow": {"pinup": 4, "tough": 5, "gunman": 6}}
    chars |= {"blue": {"gunman": 4}, "green": {"pinup": 3, "tough": 3, "gunman": 5}}
    game = at(position(chars, phase="truck", deck=["axe", "bat", "camera"]))
    for policy in ("against_leader", "against_most_here"):
        assert given(game, "red", {"vote": policy}) == "red"
    assert given(game, "red", {"vote": "ask"}) is None
    for colour in ("red", "yellow", "blue"):  # red 2, blue 2 (the Gunman's bonus), yellow 1: a tie
        game.answer(colour, "vote", colour)
    req = request_of(game, "yellow")
    assert (req.info["revote"], sorted(req.options or [])) == (True, ["blue", "red"])
    for policy in ("against_leader", "against_most_here"):
        assert given(game, "yellow", {"vote": policy}) == "blue"  # yellow cannot: blue has 3 points, red 15


# an attack at the Supermarket (6)
VOTE = {
    "red": {"pinup": 6, "girl": 6},
    "yellow": {"pinup": 6, "tough": 1, "gunman": 1},  # 15 points, one character there
    "blue": {"gunman": 6, "girl": 6, "tough": 3},  # 9 points, two characters there
}


@pytest.mark.rule("VOT-1", "F-4")
def test_attack_vote_policies_against_the_most_points_or_the_most_characters_there_never_mine() -> None:
    game = at(position(VOTE, zombies={6: 6}))
    assert request_of(game, "red").kind == "vote"
    assert given(game, "red", {"vote": "against_leader"}) == "yellow"
    assert given(game, "red", {"vote": "against_most_here"}) == "blue"
    assert given(game, "yellow", {"vote": "against_leader"}) == "blue"  # never mine
    assert given(game, "blue", {"vote": "against_most_here"}) == "red"
    # a tie goes to the colour first in seating order from the Chief
    tied = at(position({**VOTE, "blue": {"pinup": 6, "tough": 5, "gunman": 5}}, zombies={6: 6}, chief="blue"))
    assert given(tied, "red", {"vote": "against_leader"}) == "blue"


@pytest.mark.rule("H-5")
def test_victim_order_gives_the_first_character_that_can_be_eaten() -> None:
    game = at(position(VOTE, zombies={6: 6}))
    game.answer("red", "vote", "red")
    game.answer("yellow", "vote", "red")
    game.answer("blue", "vote", "red")
    assert request_of(game, "red").kind == "victim"
    assert given(game, "red", {"victim": ["tough", "girl", "pinup"]}) == "girl"
    assert given(game, "red", {"victim": ["tough"]}) is None
    assert given(game, "red", {"vote": "against_leader"}) is None


@pytest.mark.rule("H-6")
def test_a_standing_answer_is_told_to_its_player_alone_and_replayed_the_same() -> None:
    game = at(position(VOTE, zombies={6: 6}))
    game.answer("red", "vote", "yellow", standing=True)
    (event,) = [e for e in game.events if e["type"] == "answer_standing"]
    assert event == {"type": "answer_standing", "to": ["red"], "player": "red", "kind": "vote", "answer": "yellow"}
    assert any(e["type"] == "answer_standing" for e in view(game, "red")["events"])
    assert not any(e["type"] == "answer_standing" for e in view(game, "yellow")["events"])
    again = Game.from_json(game.to_json())  # the log keeps it: the same events on replay
    assert again.events == game.events
    assert game.log[-1]["standing"] is True


@pytest.mark.rule("H-6")
def test_a_whole_game_with_standing_answers_replays_step_by_step() -> None:
    """A game answered partly from standing answers: each passes the engine's check, and the replay marks it."""
    g = at(position(VOTE, zombies={6: 6}))
    settings = {"cards": "pass", "camera": "look", "attack": "if_needed", "vote": "against_leader"}
    bot = SensibleBot(3)
    standing_count = 0
    while not g.over:
        for req in list(g.pending()):
            answer = standing_answer(view(g, req.player), req, settings)
            if answer is None:
                g.answer(req.player, req.kind, bot.decide(g, req))
            else:
                g.answer(req.player, req.kind, answer, standing=True)
                standing_count += 1
    assert standing_count > 0
    steps = replay_steps(g)
    assert sum(step.standing for step in steps.answers) == standing_count


def test_only_the_players_own_request_is_answered() -> None:
    game = at(position(VOTE, zombies={6: 6}))
    assert standing_answer(view(game, "yellow"), request_of(game, "red"), {"vote": "against_leader"}) is None
