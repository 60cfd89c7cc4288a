"""Votes close once decided: ``engine.vote_decided`` and ``Game.timeout(decided=True)``.

A vote's outcome is its winner (VOT-4), or the set of colours tied for first (the re-vote among exactly those
colours, VOT-7; after a re-vote, VOT-8). A vote is decided when no way of putting each missing voter's whole weight
on one candidate (VOT-3) can change that outcome. The property tests check it against a brute force over every
assignment, both ways: decided means every assignment (and the abstentions the early close gives, H-4) has the
outcome of the votes cast; not decided means two assignments differ.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Game, IllegalAnswer, Request, vote_decided
from engine.scenario import parse_scenario
from tests.profile import examples

from .support import COLOURS, FIVE, events, position, scenario

# --- the brute force -----------------------------------------------------------------------------------------------


def outcome(candidates: list[str], totals: dict[str, int]) -> str | frozenset[str]:
    """VOT-4 written out again: the strictly highest total wins, else the set of colours tied for first."""
    best = max(totals.get(c, 0) for c in candidates)
    top = [c for c in candidates if totals.get(c, 0) == best]
    return top[0] if len(top) == 1 else frozenset(top)


def totals_of(votes: dict[str, str | None], weights: dict[str, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for voter, colour in votes.items():
        if colour is not None:
            out[colour] = out.get(colour, 0) + weights[voter]
    return out


def every_outcome(candidates: list[str], weights: dict[str, int], cast: dict[str, str]) -> set[Any]:
    """The outcome of every assignment of each missing voter to one candidate."""
    missing = [v for v in weights if v not in cast]
    found = set()
    for choice in itertools.product(candidates, repeat=len(missing)):
        votes: dict[str, str | None] = {**cast, **dict(zip(missing, choice, strict=True))}
        found.add(outcome(candidates, totals_of(votes, weights)))
    return found


def requests_for(candidates: list[str], weights: dict[str, int], revote: bool = False) -> list[Request]:
    """One vote window's requests, from the contract's JSON."""
    return [
        Request.from_json(
            {"player": p, "kind": "vote", "options": list(candidates), "location": 4, "revote": revote, "weight": w}
        )
        for p, w in weights.items()
    ]


def check_exact(candidates: list[str], weights: dict[str, int], cast: dict[str, str]) -> bool:
    decided = vote_decided(requests_for(candidates, weights), cast)
    outcomes = every_outcome(candidates, weights, cast)
    abstained: dict[str, str | None] = dict(cast)  # the early close: the missing voters count for nobody
    now = outcome(candidates, totals_of(abstained, weights))
    if decided:
        assert outcomes == {now}, (candidates, weights, cast, outcomes, now)
    else:
        assert len(outcomes) > 1, (candidates, weights, cast, outcomes)
    return decided


@st.composite
def votes(draw: st.DrawFn) -> tuple[list[str], dict[str, int], dict[str, str]]:
    """1 to 6 candidates; 1 to 6 voters of weight 1 to 5 (a Gunman's +1 and Threat cards included), at most 4 of
    them still missing (the brute force tries candidates ** missing assignments); random votes of the others."""
    candidates = draw(st.lists(st.sampled_from(COLOURS), min_size=1, max_size=6, unique=True))
    voters = draw(st.lists(st.sampled_from(COLOURS), min_size=1, max_size=6, unique=True))
    weights = {v: draw(st.integers(1, 5)) for v in voters}
    answered = draw(st.lists(st.booleans(), min_size=len(voters), max_size=len(voters)))
    missing = [v for v, done in zip(voters, answered, strict=True) if not done]
    for v in missing[4:]:
        answered[voters.index(v)] = True
    cast = {v: draw(st.sampled_from(candidates)) for v, done in zip(voters, answered, strict=True) if done}
    return candidates, weights, cast


@pytest.mark.rule("VOT-3", "VOT-4", "VOT-7", "H-4")
@settings(max_examples=examples(1000), deadline=None)
@given(votes())
def test_vote_decided_is_exact_against_every_assignment_of_the_missing_votes(
    case: tuple[list[str], dict[str, int], dict[str, str]],
) -> None:
    """Property (hypothesis): decided <=> every assignment of the missing weight gives the outcome of the votes
    cast (a winner, or the same set of tied colours)."""
    check_exact(*case)


@pytest.mark.rule("VOT-2", "VOT-3", "VOT-4", "VOT-7", "H-4")
def test_vote_decided_is_exact_on_thousands_of_seeded_random_votes() -> None:
    """The same property on 5000 votes from a seeded generator (the same cases every run), both answers common."""
    rng = random.Random(11)
    decided = 0
    for _ in range(5000):
        candidates = rng.sample(COLOURS, rng.randint(1, 6))
        voters = rng.sample(COLOURS, rng.randint(1, 6))
        weights = {v: rng.choice([1, 1, 2, 2, 3, 4, 5]) for v in voters}  # a Pin-Up; Gunman +1; Threats
        missing = rng.sample(voters, min(4, rng.randint(0, len(voters))))
        cast = {v: rng.choice(candidates) for v in voters if v not in missing}
        decided += check_exact(candidates, weights, cast)
    assert 500 < decided < 4500  # both sides of the property are exercised


@pytest.mark.rule("VOT-4", "VOT-7")
def test_vote_decided_examples() -> None:
    """A lead above the missing weight decides; a lead equal to it does not (a tie is a different outcome); a tie
    is never decided while any weight is missing; everything cast decides."""
    two = ["red", "yellow"]
    assert vote_decided(requests_for(two, {"red": 3, "yellow": 1, "blue": 1}), {"red": "red"})  # 3 > 0 + 2
    assert not vote_decided(requests_for(two, {"red": 2, "yellow": 1, "blue": 1}), {"red": "red"})  # 2 = 0 + 2
    assert not vote_decided(requests_for(two, {"red": 2, "yellow": 2, "blue": 1}), {"red": "red", "yellow": "yellow"})
    assert vote_decided(requests_for(two, {"red": 2, "yellow": 2}), {"red": "red", "yellow": "yellow"})  # a tie
    assert vote_decided(requests_for(["red"], {"red": 1, "blue": 1}), {})  # one candidate (VOT-5)
    # a re-vote among the tied colours: outsiders weigh 1 (VOT-7)
    revote = requests_for(two, {"red": 3, "yellow": 3, "blue": 1, "green": 1}, revote=True)
    assert vote_decided(revote, {"red": "yellow", "yellow": "yellow"})
    assert not vote_decided(revote, {"red": "yellow", "blue": "yellow"})


def test_vote_decided_is_false_for_windows_that_are_not_votes() -> None:
    cards = [Request.from_json({"player": "red", "kind": "cards", "options": None, "window": "truck", "location": 4})]
    assert not vote_decided(cards, {})
    assert not vote_decided([], {})


# --- real games ----------------------------------------------------------------------------------------------------


def game_at(pos: dict[str, Any], answers: list[tuple[str, str, Any]], **kwargs: Any) -> Game:
    config, _ = parse_scenario(scenario(pos, **kwargs))
    game = Game(config)
    for player, kind, answer in answers:
        game.answer(player, kind, answer)
    return game


def weights(game: Game) -> dict[str, int]:
    return {r.player: r.info["weight"] for r in game.pending() if r.kind == "vote"}


def close_decided(game: Game) -> list[str]:
    """What the server does when a vote window closes as decided: the voters still missing did not vote."""
    missing = [r.player for r in game.pending()]
    assert game.open_vote_decided()
    for player in missing:
        game.timeout(player, "vote", decided=True)
    return missing


def replays_the_same(game: Game) -> None:
    again = Game.from_json(game.to_json())
    assert again.position() == game.position() and again.events == game.events
    assert [e for e in game.log if e.get("decided")]  # logged as closed by a decided vote


def not_cast(game: Game) -> list[str]:
    return [e["player"] for e in events({"events": game.events}, "vote_not_cast")]


# Phase A: at the Parking red has Pin-Up, Gunman and Tough Guy (3 + Gunman 1 = 4), yellow and blue a Pin-Up each.
TRUCK = {
    "red": {"pinup": 4, "gunman": 4, "tough": 4},
    "yellow": {"pinup": 4, "tough": 1, "gunman": 3},
    "blue": {"pinup": 4, "tough": 6, "gunman": 1},
    "green": {"pinup": 6, "tough": 3, "gunman": 5},
    "black": {"pinup": 6, "tough": 3, "gunman": 5},
}


@pytest.mark.rule("VOT-2", "VOT-4", "A-3", "H-4")
def test_truck_vote_closes_once_red_alone_outweighs_the_missing_votes() -> None:
    """Red's 4 votes for red beat 0 + the 2 still missing: yellow and blue did not vote, red searches the truck."""
    pos = position(TRUCK, phase="truck", deck=["hidden", "bat", "sprint"])
    game = game_at(pos, [])
    assert weights(game) == {"red": 4, "yellow": 1, "blue": 1}
    game.answer("red", "vote", "red")
    assert close_decided(game) == ["yellow", "blue"]
    assert [f"{r.player}:{r.kind}" for r in game.pending()] == ["red:truck"]
    assert not_cast(game) == ["yellow", "blue"]
    assert events({"events": game.events}, "answer_defaulted") == []
    (vote,) = events({"events": game.events}, "votes_revealed")
    assert vote["votes"] == {"red": "red", "yellow": None, "blue": None} and vote["totals"] == {"red": 4}
    replays_the_same(game)


@pytest.mark.rule("VOT-4", "H-4")
def test_a_vote_not_decided_cannot_be_closed_as_decided() -> None:
    """Blue's 1 vote against 4 + 1 missing: nothing is decided, the engine refuses and changes nothing."""
    game = game_at(position(TRUCK, phase="truck", deck=["hidden", "bat", "sprint"]), [("blue", "vote", "blue")])
    assert not game.open_vote_decided()
    with pytest.raises(IllegalAnswer):
        game.timeout("red", "vote", decided=True)
    assert [r.player for r in game.pending()] == ["red", "yellow"] and len(game.log) == 1
    game.answer("red", "vote", "yellow")  # 4 for yellow against 1 + 1 missing: now decided
    close_decided(game)
    assert not_cast(game) == ["yellow"]
    with pytest.raises(IllegalAnswer):  # and a card window is no vote
        game_at(position(TRUCK, phase="truck", hands={"red": ["threat"]}), []).timeout("red", "cards", decided=True)


@pytest.mark.rule("VOT-2", "VOT-4", "B-2", "H-4")
def test_chief_vote_closes_early_and_the_winner_is_chief() -> None:
    """Phase B at Security: yellow (Gunman: 2) alone is not enough against 2 missing; with blue's 1, 3 > 0 + 1."""
    layout = {
        "red": {"pinup": 1, "tough": 3, "gunman": 6},
        "yellow": {"gunman": 5, "pinup": 6, "tough": 3},
        "blue": {"pinup": 5, "tough": 6, "gunman": 1},
        "green": {"pinup": 5, "tough": 1, "gunman": 6},
        "black": {"pinup": 6, "tough": 3, "gunman": 4},
    }
    game = game_at(position(layout, phase="chief"), [])
    assert weights(game) == {"yellow": 2, "blue": 1, "green": 1}
    game.answer("yellow", "vote", "yellow")
    assert not game.open_vote_decided()  # 2 against 0 + 2 missing: a tie is still possible
    game.answer("blue", "vote", "yellow")
    assert close_decided(game) == ["green"]
    assert game.chief == "yellow" and game.chief_elected
    assert not_cast(game) == ["green"]
    replays_the_same(game)


# Attack at 3 (five players): red Gunman + Pin-Up there (2 + Gunman 1 = 3), yellow Pin-Up (1) plays a Threat (2),
# blue Tough Guy (1). F-1: tokens 1:2, 3:4, 4:1, 5:2, 6:6 -> +1 at 6; Pin-Ups 1:1, 3:2, 5:1, 6:1 -> +1 at 3:
# 4 + 1 = 5 zombies against strength 1 + 1 + 1 + 2 (Tough Guy) = 5 -> attack.
ATTACK = {
    "red": {"gunman": 3, "pinup": 3, "tough": 5},
    "yellow": {"pinup": 3, "tough": 6, "gunman": 6},
    "blue": {"tough": 3, "pinup": 5, "gunman": 1},
    "green": {"pinup": 6, "tough": 6, "gunman": 6},
    "black": {"pinup": 1, "tough": 6, "gunman": 4},
}


@pytest.mark.rule("VOT-2", "VOT-4", "VOT-9", "F-4", "H-4")
def test_attack_vote_with_a_threat_and_a_gunman_closes_once_decided() -> None:
    """Red's 3 (Gunman bonus) for blue do not decide against yellow's 2 (Threat) + blue's 1 still missing; with
    yellow's 2 for blue, 5 > 0 + 1: blue did not vote and loses its Tough Guy."""
    pos = position(ATTACK, zombies={3: 4}, hands={"yellow": ["threat"]})
    game = game_at(pos, [("yellow", "cards", [{"card": "threat"}])], players=FIVE)
    assert weights(game) == {"red": 3, "yellow": 2, "blue": 1}
    game.answer("red", "vote", "blue")
    assert not game.open_vote_decided()  # without the Threat it would be: 3 > 0 + 1 + 1
    game.answer("yellow", "vote", "blue")
    assert close_decided(game) == ["blue"]
    assert not_cast(game) == ["blue"]
    assert [(e["player"], e["character"]) for e in events({"events": game.events}, "eaten")] == [("blue", "tough")]
    replays_the_same(game)


@pytest.mark.rule("VOT-7", "VOT-4", "H-4")
def test_revote_closes_once_decided_among_the_tied_colours() -> None:
    """Truck vote 2 - 2 (red and yellow), then the re-vote: red 2 + yellow 2 for yellow = 4 > 0 + blue 1 + green 1
    + black 1 (outsiders weigh 1, VOT-7)."""
    layout = {
        "red": {"pinup": 4, "tough": 4, "gunman": 3},
        "yellow": {"pinup": 4, "tough": 4, "gunman": 3},
        "blue": {"pinup": 6, "tough": 6, "gunman": 1},
        "green": {"pinup": 6, "tough": 3, "gunman": 6},
        "black": {"pinup": 6, "tough": 3, "gunman": 1},
    }
    pos = position(layout, phase="truck", deck=["hidden", "bat", "sprint"])
    game = game_at(pos, [("red", "vote", "red"), ("yellow", "vote", "yellow")])
    assert weights(game) == {"red": 2, "yellow": 2, "blue": 1, "green": 1, "black": 1}
    assert all(r.info["revote"] for r in game.pending())
    game.answer("red", "vote", "yellow")
    assert not game.open_vote_decided()  # 2 against 0 with 5 missing
    game.answer("yellow", "vote", "yellow")
    assert close_decided(game) == ["blue", "green", "black"]
    assert [f"{r.player}:{r.kind}" for r in game.pending()] == ["yellow:truck"]
    assert not_cast(game) == ["blue", "green", "black"]
    replays_the_same(game)
