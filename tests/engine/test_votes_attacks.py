"""Votes (B-VOT), the attack of the zombies (B-F) and eliminated players (B-ELM), with their resolutions.

Every position starts at the *start* of its phase: an ``attack`` position first gets the extra zombies of F-1.
Each test states that computation in a comment ("F-1: ..."); every number expected is derived from RULES.md.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from engine import Game, spectator_view, view
from engine.scenario import parse_scenario

from .support import FIVE, check, events, kinds, position, run, scenario

# --- helpers ---------------------------------------------------------------------------------------------------


def attacked(result: dict[str, Any]) -> list[int]:
    """Locations of the ``attack`` events, in order."""
    return [e["location"] for e in events(result, "attack")]


def revealed(result: dict[str, Any], *, revote: bool | None = None) -> list[dict[str, Any]]:
    return [e for e in events(result, "votes_revealed") if revote is None or e["revote"] is revote]


def requests_of(result: dict[str, Any], player: str) -> list[dict[str, Any]]:
    return [r for r in result["pending"] if r["player"] == player]


def game_at(pos: dict[str, Any], **kwargs: Any) -> Game:
    """A live Game object for ``pos`` (to look at per-player views)."""
    config, _ = parse_scenario(scenario(pos, **kwargs))
    return Game(config)


# ================================================================================================================
# B-VOT: who votes, with what weight, for whom
# ================================================================================================================

# F-1 for this layout: tokens 1:3 (red pinup, red gunman, yellow tough), 3:2, 5:2, 6:4 -> +1 at 6 (strength there
# 1+2+1+2 = 6, threshold min(6, 4) = 4 > 1 zombie); Pin-Ups 1:1, 3:1, 5:1, 6:1 -> tie, none.
# Location 1: strength pinup 1 + gunman 1 + tough 2 = 4; 4 zombies >= 4 -> attack.
VOTE_LAYOUT = {
    "red": {"pinup": 1, "gunman": 1, "tough": 5},
    "yellow": {"tough": 1, "pinup": 3, "gunman": 6},
    "blue": {"pinup": 5, "tough": 6},
    "green": {"gunman": 3, "pinup": 6, "tough": 6},
}


@pytest.mark.rule("VOT-1", "VOT-2", "DEF-5b")
def test_attack_vote_targets_only_colours_present_and_weights_count_characters_plus_gunman() -> None:
    """Only colours present at L may be voted for (own included); weight = characters there + 1 for a Gunman."""
    r = run(position(VOTE_LAYOUT, zombies={1: 4}))
    check(
        r,
        [
            ["ok", "==", True],
            ["pending_kinds", "==", ["red:vote", "yellow:vote"]],
            ["pending[player=red].options", "set==", ["red", "yellow"]],
            ["pending[player=yellow].options", "set==", ["red", "yellow"]],
            ["pending[player=red].weight", "==", 3],  # Pin-Up + Gunman + Gunman bonus
            ["pending[player=yellow].weight", "==", 1],  # Tough Guy (strength 2, but one vote)
            ["pending[player=red].location", "==", 1],
            ["pending[player=red].revote", "==", False],
            ["state.zombies.6", "==", 1],
        ],
    )
    # a colour with no character at L (blue, green) is not a legal vote
    bad = run(position(VOTE_LAYOUT, zombies={1: 4}), [("red", "vote", "blue")])
    check(bad, [["ok", "==", False], ["error.answer", "==", 0], ["pending_kinds", "==", ["red:vote", "yellow:vote"]]])


@pytest.mark.rule("VOT-1", "VOT-3", "VOT-4", "VOT-9", "F-4")
def test_voting_for_oneself_counts_and_the_loser_chooses_a_victim_among_characters_there() -> None:
    """A player may vote for their own colour; all their weight goes to it; the loser picks a victim at L."""
    r = run(position(VOTE_LAYOUT, zombies={1: 4}), [("red", "vote", "red"), ("yellow", "vote", "red")])
    check(
        r,
        [
            ["ok", "==", True],
            ["pending_kinds", "==", ["red:victim"]],
            ["pending[0].options", "set==", ["pinup", "gunman"]],  # not the Tough Guy at 5
            ["pending[0].location", "==", 1],
        ],
    )
    (vote,) = revealed(r)
    assert vote["votes"] == {"red": "red", "yellow": "red"}
    assert vote["weights"] == {"red": 3, "yellow": 1}
    assert vote["totals"].get("red") == 4
    assert vote["totals"].get("yellow", 0) == 0
    done = run(
        position(VOTE_LAYOUT, zombies={1: 4}),
        [("red", "vote", "red"), ("yellow", "vote", "red"), ("red", "victim", "gunman")],
    )
    check(
        done,
        [
            ["ok", "==", True],
            ["state.characters.red", "==", {"pinup": 1, "tough": 5}],
            ["state.characters.yellow.tough", "==", 1],
            ["state.zombies.1", "==", 0],  # F-4: every zombie at L leaves after the attack
        ],
    )
    assert [(e["player"], e["character"], e["location"]) for e in events(done, "eaten")] == [("red", "gunman", 1)]


@pytest.mark.rule("VOT-4", "VOT-3")
def test_the_strictly_highest_total_wins() -> None:
    """3 votes against 1: the colour with the strictly highest total loses the attack vote."""
    r = run(position(VOTE_LAYOUT, zombies={1: 4}), [("red", "vote", "yellow"), ("yellow", "vote", "red")])
    check(
        r,
        [
            ["ok", "==", True],
            ["state.characters.yellow.tough", "absent", None],  # yellow's only character at L, chosen for it
            ["state.characters.red", "==", {"pinup": 1, "gunman": 1, "tough": 5}],
            ["state.zombies.1", "==", 0],
        ],
    )
    assert revealed(r, revote=True) == []
    assert revealed(r)[0]["totals"] == {"yellow": 3, "red": 1}


@pytest.mark.rule("VOT-5", "H-2")
def test_single_eligible_colour_loses_without_a_vote() -> None:
    """With one eligible colour at L it is the only legal choice: no vote is asked, its owner picks a victim."""
    # F-1: tokens 1:2, 3:3, 5:2, 6:4 -> +1 at 6; Pin-Ups 1:1, 3:1, 6:2 -> +1 at 6. Location 6: 2 zombies against
    # threshold min(1+1+2+1, 4) = 4 -> safe. Location 1: red Pin-Up + Gunman, strength 2, 2 zombies -> attack.
    pos = position(
        {
            "red": {"pinup": 1, "gunman": 1, "tough": 3},
            "yellow": {"pinup": 3, "tough": 5, "gunman": 6},
            "blue": {"pinup": 6, "tough": 6},
            "green": {"gunman": 5, "pinup": 6, "tough": 3},
        },
        zombies={1: 2},
    )
    r = run(pos)
    check(r, [["ok", "==", True], ["pending_kinds", "==", ["red:victim"]], ["state.zombies.6", "==", 2]])
    assert revealed(r) == []
    assert [(e["location"], e["colour"]) for e in events(r, "vote_uncontested")] == [(1, "red")]


# --- VOT-6: the card window before a vote ---------------------------------------------------------------------

# F-1: tokens 1:2, 3:3, 5:1, 6:4 -> +1 at 6 (threshold min(1+2+1+1, 4) = 4 > 1); Pin-Ups one each at 1, 3, 5, 6
# -> none. Location 3: yellow Pin-Up, blue Tough Guy, green Gunman: strength 4, 4 zombies -> attack.
# Red (the Chief) is not at 3.
WINDOW_LAYOUT = {
    "red": {"pinup": 1, "tough": 1, "gunman": 6},
    "yellow": {"pinup": 3, "tough": 6, "gunman": 6},
    "blue": {"tough": 3, "pinup": 6},
    "green": {"gunman": 3, "pinup": 5},
}
WINDOW_HANDS = {"red": ["axe"], "yellow": ["threat"], "blue": ["camera"], "green": ["bat"]}


@pytest.mark.rule("VOT-6", "R-1", "R-2", "F-4", "VOT-2")
def test_attack_card_window_strict_goes_once_around_from_first_present_player() -> None:
    """Strict: the window starts at the first present player after the Chief, skips players with nothing playable."""
    pos = position(WINDOW_LAYOUT, zombies={3: 4}, hands=WINDOW_HANDS)
    r = run(pos)
    check(
        r,
        [
            ["ok", "==", True],
            ["pending_kinds", "==", ["yellow:cards"]],  # red (Chief) is not at 3: not entitled
            ["pending[0].window", "==", "attack"],
            ["pending[0].location", "==", 3],
            ["pending[0].playable", "==", ["threat"]],
        ],
    )
    r = run(pos, [("yellow", "cards", [{"card": "threat"}])])
    # blue holds only a Security Camera: skipped (H-2)
    check(r, [["ok", "==", True], ["pending_kinds", "==", ["green:cards"]], ["pending[0].playable", "==", ["bat"]]])
    r = run(pos, [("yellow", "cards", [{"card": "threat"}]), ("green", "cards", [])])
    # once around: after green passes the vote follows; yellow is not asked again, red never
    check(
        r,
        [
            ["ok", "==", True],
            ["pending_kinds", "==", ["yellow:vote", "blue:vote", "green:vote"]],
            ["pending[player=yellow].weight", "==", 2],  # Pin-Up + 1 Threat
            ["pending[player=blue].weight", "==", 1],
            ["pending[player=green].weight", "==", 2],  # Gunman + bonus
            ["pending[player=yellow].options", "set==", ["yellow", "blue", "green"]],
            ["state.hands.red", "==", ["axe"]],
            ["state.hands.yellow", "==", []],
            ["state.hands.green", "==", ["bat"]],
            ["state.zombies.3", "==", 4],
        ],
    )


@pytest.mark.rule("VOT-6", "R-2", "H-3")
def test_attack_card_window_batched_asks_every_present_player_with_playable_cards_at_once() -> None:
    """Batched: all present players holding a playable card are asked together, listed from the Chief."""
    r = run(position(WINDOW_LAYOUT, zombies={3: 4}, hands=WINDOW_HANDS), options={"turn_order": "batched"})
    check(r, [["ok", "==", True], ["pending_kinds", "==", ["yellow:cards", "green:cards"]]])


@pytest.mark.rule("VOT-2")
def test_several_threats_played_at_once_each_add_a_vote() -> None:
    """Every Threat card played for the vote adds 1 to the player's weight; several may be played together."""
    pos = position(WINDOW_LAYOUT, zombies={3: 4}, hands={"yellow": ["threat", "threat", "axe"]})
    r = run(pos, [("yellow", "cards", [{"card": "threat"}, {"card": "threat"}])])
    check(
        r,
        [
            ["ok", "==", True],
            ["pending_kinds", "==", ["yellow:vote", "blue:vote", "green:vote"]],
            ["pending[player=yellow].weight", "==", 3],
            ["state.hands.yellow", "==", ["axe"]],
        ],
    )


# Phase A: Parking = yellow Pin-Up, blue Pin-Up; red (Chief) and green are elsewhere.
TRUCK_LAYOUT = {
    "red": {"pinup": 1, "tough": 3, "gunman": 6},
    "yellow": {"pinup": 4, "tough": 1, "gunman": 3},
    "blue": {"pinup": 4, "tough": 6, "gunman": 1},
    "green": {"pinup": 6, "tough": 3, "gunman": 5},
}


@pytest.mark.rule("VOT-6", "R-5", "A-2")
@pytest.mark.parametrize("turn_order", ["strict", "batched"])
def test_truck_threat_window_is_for_the_voters_only(turn_order: str) -> None:
    """Phase A: only players at the Parking may play Threat; outsiders holding Threat are not asked."""
    pos = position(
        TRUCK_LAYOUT,
        phase="truck",
        deck=["hidden", "bat", "sprint"],
        hands={"red": ["threat"], "yellow": ["threat"], "blue": ["axe"], "green": ["threat"]},
    )
    r = run(pos, options={"turn_order": turn_order})
    check(r, [["ok", "==", True], ["pending_kinds", "==", ["yellow:cards"]], ["pending[0].window", "==", "truck"]])
    r = run(pos, [("yellow", "cards", [{"card": "threat"}])], options={"turn_order": turn_order})
    check(
        r,
        [
            ["ok", "==", True],
            ["pending_kinds", "==", ["yellow:vote", "blue:vote"]],
            ["pending[player=yellow].weight", "==", 2],
            ["pending[player=blue].weight", "==", 1],
            ["state.hands.red", "==", ["threat"]],
            ["state.hands.green", "==", ["threat"]],
        ],
    )


@pytest.mark.rule("VOT-6", "R-5", "B-2")
def test_chief_threat_window_is_for_the_voters_at_security_only() -> None:
    """Phase B: the Threat window is for players at location 5, from the first of them after the Chief."""
    layout = {
        "red": {"pinup": 1, "tough": 3, "gunman": 6},
        "yellow": {"pinup": 5, "tough": 1, "gunman": 3},
        "blue": {"pinup": 5, "tough": 6, "gunman": 1},
        "green": {"pinup": 6, "tough": 3, "gunman": 6},
    }
    hands = {"red": ["threat"], "yellow": ["camera"], "blue": ["threat"], "green": ["threat"]}
    pos = position(layout, phase="chief", hands=hands)
    r = run(pos)
    check(r, [["ok", "==", True], ["pending_kinds", "==", ["blue:cards"]], ["pending[0].window", "==", "chief"]])
    r = run(pos, [("blue", "cards", [{"card": "threat"}])])
    check(
        r,
        [
            ["ok", "==", True],
            ["pending_kinds", "==", ["yellow:vote", "blue:vote"]],
            ["pending[player=blue].weight", "==", 2],
            ["pending[player=yellow].weight", "==", 1],
        ],
    )


# --- VOT-7: the re-vote -----------------------------------------------------------------------------------------

# Five players (Cachou open). F-1: tokens 1:2, 3:3, 5:2, 6:3 -> tie, none; Pin-Ups 1:1, 3:2, 6:1 -> +1 at 3.
# Location 3: red Gunman, yellow Pin-Up, blue Pin-Up: strength 3, 2 + 1 = 3 zombies -> attack. Black is eliminated.
REVOTE_LAYOUT = {
    "red": {"gunman": 3, "pinup": 1, "tough": 1},
    "yellow": {"pinup": 3, "tough": 6, "gunman": 6},
    "blue": {"pinup": 3, "tough": 5},
    "green": {"pinup": 6, "tough": 5},
    "black": {},
}
REVOTE_HANDS = {
    "red": ["axe"],
    "yellow": ["threat"],
    "blue": ["hidden"],
    "green": ["threat", "bat"],
    "black": ["pistol"],
}
REVOTE_OPENING = [
    ("red", "cards", []),
    ("yellow", "cards", [{"card": "threat"}]),
    ("blue", "cards", [{"card": "hidden", "character": "pinup"}]),
]


@pytest.mark.rule("VOT-7", "VOT-H", "R-3", "R-5", "R-6", "ELM-2", "VOT-6")
def test_revote_every_player_votes_outsiders_one_present_keep_weight_hidden_only_zero() -> None:
    """Re-vote: all players vote; outsiders and eliminated 1; present keep first weight with Threat; hidden-only 0."""
    pos = position(REVOTE_LAYOUT, zombies={3: 2}, hands=REVOTE_HANDS)
    first = run(pos, REVOTE_OPENING)
    check(
        first,
        [
            ["ok", "==", True],
            # green is not present: not asked in the window; blue's only character there is hidden:
            # weight 0, not asked, and blue is no longer a target (VOT-H)
            ["pending_kinds", "==", ["red:vote", "yellow:vote"]],
            ["pending[player=red].weight", "==", 2],
            ["pending[player=yellow].weight", "==", 2],
            ["pending[player=red].options", "set==", ["red", "yellow"]],
            ["state.zombies.3", "==", 3],  # Hidden does not weaken the defence
        ],
    )
    tie = run(pos, [*REVOTE_OPENING, ("red", "vote", "yellow"), ("yellow", "vote", "red")])
    check(
        tie,
        [
            ["ok", "==", True],
            # no card window between the votes: straight to the re-vote, although red, green, black hold cards
            ["pending_kinds", "==", ["red:vote", "yellow:vote", "green:vote", "black:vote"]],
            ["pending[player=red].revote", "==", True],
            ["pending[player=red].weight", "==", 2],
            ["pending[player=yellow].weight", "==", 2],  # the Threat still counts
            ["pending[player=green].weight", "==", 1],
            ["pending[player=black].weight", "==", 1],
            ["pending[player=green].options", "set==", ["red", "yellow"]],
            ["pending[player=black].options", "set==", ["red", "yellow"]],
        ],
    )
    done = run(
        pos,
        [
            *REVOTE_OPENING,
            ("red", "vote", "yellow"),
            ("yellow", "vote", "red"),
            ("red", "vote", "yellow"),
            ("yellow", "vote", "red"),
            ("green", "vote", "yellow"),
            ("black", "vote", "yellow"),
        ],
    )
    check(
        done,
        [
            ["ok", "==", True],
            ["state.characters.yellow", "==", {"tough": 6, "gunman": 6}],
            ["state.characters.blue.pinup", "==", 3],
            ["state.zombies.3", "==", 0],
            ["state.hands.green", "==", ["threat", "bat"]],
            ["state.hands.black", "==", ["pistol"]],
            ["state.hands.red", "==", ["axe"]],
        ],
    )
    (again,) = revealed(done, revote=True)
    assert again["weights"] == {"red": 2, "yellow": 2, "green": 1, "black": 1}
    assert again["totals"] == {"yellow": 4, "red": 2}
    assert not [e for e in done["events"] if e["type"] == "card_played" and e["player"] in ("green", "black")]


# F-1: tokens 1:2, 3:3 (red Gunman, yellow Pin-Up, blue Pin-Up), 5:2, 6:2 -> +1 at 3; Pin-Ups 1:1, 3:2, 6:1 -> +1
# at 3. Location 3: strength 3, 1 + 2 = 3 zombies -> attack. Weights: red 2 (Gunman + bonus), yellow 1, blue 1.
THREE_WAY = {
    "red": {"gunman": 3, "pinup": 1, "tough": 1},
    "yellow": {"pinup": 3, "tough": 5},
    "blue": {"pinup": 3, "tough": 6},
    "green": {"pinup": 6, "gunman": 5},
}


@pytest.mark.rule("VOT-7", "R-4", "VOT-4")
def test_revote_candidates_are_only_the_colours_tied_for_first() -> None:
    """Red 2, yellow 2, blue 0: the re-vote is between red and yellow only."""
    pos = position(THREE_WAY, zombies={3: 1})
    r = run(pos, [("red", "vote", "yellow"), ("yellow", "vote", "red"), ("blue", "vote", "red")])
    check(
        r,
        [
            ["ok", "==", True],
            ["state.zombies.3", "==", 3],
            ["pending_kinds", "==", ["red:vote", "yellow:vote", "blue:vote", "green:vote"]],
            ["pending[player=red].weight", "==", 2],
            ["pending[player=blue].weight", "==", 1],
            ["pending[player=green].weight", "==", 1],
            ["pending[player=green].options", "set==", ["red", "yellow"]],
            ["pending[player=blue].options", "set==", ["red", "yellow"]],
        ],
    )
    bad = run(
        pos,
        [("red", "vote", "yellow"), ("yellow", "vote", "red"), ("blue", "vote", "red"), ("green", "vote", "blue")],
    )
    check(bad, [["ok", "==", False], ["error.answer", "==", 3]])


# --- VOT-8: a tie in the re-vote --------------------------------------------------------------------------------


@pytest.mark.rule("VOT-8", "VOT-7", "A-6")
def test_truck_revote_tie_means_no_search() -> None:
    """Phase A: a tied re-vote means nobody searches the truck; deck and hands are unchanged."""
    layout = {
        "red": {"pinup": 4, "tough": 1, "gunman": 3},
        "yellow": {"pinup": 4, "tough": 1, "gunman": 3},
        "blue": {"pinup": 6, "tough": 6, "gunman": 1},
        "green": {"pinup": 6, "tough": 3, "gunman": 6},
    }
    deck = ["hidden", "bat", "sprint"]
    pos = position(layout, phase="truck", deck=deck)
    first = run(pos, [("red", "vote", "yellow"), ("yellow", "vote", "red")])
    check(first, [["ok", "==", True], ["pending_kinds", "==", ["red:vote", "yellow:vote", "blue:vote", "green:vote"]]])
    r = run(
        pos,
        [
            ("red", "vote", "yellow"),
            ("yellow", "vote", "red"),
            ("red", "vote", "yellow"),
            ("yellow", "vote", "red"),
            ("blue", "vote", "red"),
            ("green", "vote", "yellow"),
        ],
    )
    check(
        r,
        [
            ["ok", "==", True],
            ["state.deck", "==", deck],
            ["state.hands", "==", {"red": [], "yellow": [], "blue": [], "green": []}],
            ["pending_kinds", "not_contains", "red:truck"],
            ["pending_kinds", "not_contains", "yellow:truck"],
        ],
    )
    assert [e.get("reason") for e in events(r, "truck_skipped")] == ["tie"]
    assert events(r, "truck_searched") == []


@pytest.mark.rule("VOT-8", "VOT-7", "B-3")
def test_a_tied_chief_revote_in_a_five_player_game_keeps_the_incumbent_not_elected() -> None:
    """Phase B: a tied re-vote leaves the incumbent Chief in place, not elected (nobody sees the dice)."""
    layout = {
        "red": {"pinup": 5, "tough": 1, "gunman": 3},
        "yellow": {"pinup": 5, "tough": 1, "gunman": 3},
        "blue": {"pinup": 6, "tough": 6, "gunman": 1},
        "green": {"pinup": 6, "tough": 3, "gunman": 6},
    }
    pos = position(layout, phase="chief", chief="green")
    first = run(pos, [("red", "vote", "yellow"), ("yellow", "vote", "red")])
    # the re-vote is asked of everyone, listed from the Chief
    check(first, [["ok", "==", True], ["pending_kinds", "==", ["green:vote", "red:vote", "yellow:vote", "blue:vote"]]])
    r = run(
        pos,
        [
            ("red", "vote", "yellow"),
            ("yellow", "vote", "red"),
            ("green", "vote", "red"),
            ("red", "vote", "yellow"),
            ("yellow", "vote", "red"),
            ("blue", "vote", "yellow"),
        ],
    )
    check(
        r,
        [
            ["ok", "==", True],
            ["state.chief", "==", "green"],
            ["state.chief_elected", "==", False],
            ["state.dice.seen_by", "==", []],
            [
                "pending_kinds",
                "set==",
                ["green:destination", "red:destination", "yellow:destination", "blue:destination"],
            ],
        ],
    )
    assert events(r, "chief_elected") == []


# F-1: tokens 1:2, 3:2, 5:2, 6:3 -> +1 at 6; Pin-Ups 1:1, 6:3 -> +1 at 6. Location 6: red, yellow, blue Pin-Ups,
# strength 3, 1 + 2 = 3 zombies -> attack; weights 1 each, green is outside.
RANDOM_LAYOUT = {
    "red": {"pinup": 6, "tough": 5},
    "yellow": {"pinup": 6, "gunman": 5},
    "blue": {"pinup": 6, "tough": 3},
    "green": {"pinup": 1, "tough": 1, "gunman": 3},
}
# first vote 1-1-1 (all tied), re-vote red 2 (yellow + blue), yellow 2 (red + green), blue 0
RANDOM_VOTES = [
    ("red", "vote", "yellow"),
    ("yellow", "vote", "blue"),
    ("blue", "vote", "red"),
    ("red", "vote", "yellow"),
    ("yellow", "vote", "red"),
    ("blue", "vote", "red"),
    ("green", "vote", "yellow"),
]


def random_attack(seed: int, pool: str | None = None) -> dict[str, Any]:
    options = {} if pool is None else {"attack_tie_pool": pool}
    return run(position(RANDOM_LAYOUT, zombies={6: 1}), RANDOM_VOTES, options=options, seed=seed)


@pytest.mark.rule("VOT-8", "R-10", "G")
def test_attack_revote_tie_draws_a_random_colour_among_all_eligible_colours_by_default() -> None:
    """Phase F, second tie: a colour is drawn among all eligible colours at L (default pool), and it loses."""
    r = random_attack(1)
    check(r, [["ok", "==", True], ["state.zombies.6", "==", 0]])
    assert revealed(r, revote=True)[0]["totals"] == {"yellow": 2, "red": 2}
    (draw,) = events(r, "random_colour")
    assert draw["location"] == 6
    assert sorted(draw["pool"]) == ["blue", "red", "yellow"]
    assert draw["colour"] in ("red", "yellow", "blue")
    assert [(e["player"], e["location"]) for e in events(r, "eaten")] == [(draw["colour"], 6)]


@pytest.mark.rule("VOT-8", "R-10", "G")
def test_attack_tie_pool_tied_draws_only_among_the_tied_colours() -> None:
    """Option attack_tie_pool=tied: the random colour is drawn among the colours tied in the re-vote only."""
    drawn = set()
    for seed in range(1, 31):
        r = random_attack(seed, "tied")
        (draw,) = events(r, "random_colour")
        assert sorted(draw["pool"]) == ["red", "yellow"]
        assert [e["player"] for e in events(r, "eaten")] == [draw["colour"]]
        drawn.add(draw["colour"])
    assert drawn == {"red", "yellow"}


@pytest.mark.rule("VOT-8", "R-10")
def test_random_colour_is_uniform_over_colours() -> None:
    """Each eligible colour has the same chance, whatever its number of characters (here 1/3 each)."""
    seen: Counter[str] = Counter()
    for seed in range(120):
        (draw,) = events(random_attack(seed), "random_colour")
        seen[draw["colour"]] += 1
    assert set(seen) == {"red", "yellow", "blue"}
    assert all(20 <= n <= 60 for n in seen.values()), seen


# --- VOT-H / R-6: hidden characters ---------------------------------------------------------------------------

# F-1: tokens 1:3, 3:3, 5:2, 6:4 -> +1 at 6 (threshold 4 > 1); Pin-Ups 1:2, 3:1, 6:1 -> +1 at 1.
# Location 1: red Pin-Up + Gunman, yellow Pin-Up: strength 3, 2 + 1 = 3 zombies -> attack.
HIDDEN_LAYOUT = {
    "red": {"pinup": 1, "gunman": 1, "tough": 5},
    "yellow": {"pinup": 1, "tough": 6, "gunman": 6},
    "blue": {"pinup": 3, "tough": 3, "gunman": 5},
    "green": {"pinup": 6, "tough": 6, "gunman": 3},
}


@pytest.mark.rule("VOT-H", "R-6", "VOT-9", "R-34", "F-4")
def test_hidden_gunman_gives_neither_vote_nor_bonus_and_cannot_be_the_victim() -> None:
    """A hidden Gunman casts no vote (no bonus either) and cannot be eaten; the colour keeps its other votes."""
    pos = position(HIDDEN_LAYOUT, zombies={1: 2}, hands={"red": ["hidden"]})
    hide = [("red", "cards", [{"card": "hidden", "character": "gunman"}])]
    r = run(pos, hide)
    check(
        r,
        [
            ["ok", "==", True],
            ["pending_kinds", "==", ["red:vote", "yellow:vote"]],
            ["pending[player=red].weight", "==", 1],  # only the Pin-Up votes
            ["pending[player=red].options", "set==", ["red", "yellow"]],
        ],
    )
    votes = [
        ("red", "vote", "yellow"),
        ("yellow", "vote", "red"),
        ("red", "vote", "yellow"),
        ("yellow", "vote", "red"),
        ("blue", "vote", "red"),
        ("green", "vote", "red"),
    ]
    r = run(pos, hide + votes)
    check(
        r,
        [
            ["ok", "==", True],
            # red's only possible victim is the Pin-Up: chosen without asking
            ["state.characters.red", "==", {"gunman": 1, "tough": 5}],
            ["state.zombies.1", "==", 0],
            ["state.hands.red", "==", []],
        ],
    )
    assert revealed(r, revote=True)[0]["weights"] == {"red": 1, "yellow": 1, "blue": 1, "green": 1}
    assert [(e["player"], e["character"]) for e in events(r, "eaten")] == [("red", "pinup")]


@pytest.mark.rule("VOT-H", "DEF-5b", "VOT-5")
def test_colour_with_only_hidden_characters_is_not_a_target() -> None:
    """Red hides its only character at L: yellow is the only eligible colour and loses without a vote."""
    # F-1: tokens 1:2, 3:4, 5:2, 6:4 -> tie, none; Pin-Ups 1:2, 3:1, 6:1 -> +1 at 1. Location 1: red Pin-Up,
    # yellow Pin-Up, strength 2, 1 + 1 = 2 zombies -> attack.
    pos = position(
        {
            "red": {"pinup": 1, "tough": 5, "gunman": 6},
            "yellow": {"pinup": 1, "tough": 6, "gunman": 3},
            "blue": {"pinup": 3, "tough": 3, "gunman": 5},
            "green": {"pinup": 6, "tough": 6, "gunman": 3},
        },
        zombies={1: 1},
        hands={"red": ["hidden"]},
    )
    r = run(pos, [("red", "cards", [{"card": "hidden", "character": "pinup"}])])
    check(
        r,
        [
            ["ok", "==", True],
            ["state.characters.red.pinup", "==", 1],
            ["state.characters.yellow.pinup", "absent", None],
            ["state.zombies.1", "==", 0],
        ],
    )
    assert revealed(r) == []
    assert [(e["location"], e["colour"]) for e in events(r, "vote_uncontested")] == [(1, "yellow")]


@pytest.mark.rule("R-34", "F-4")
def test_hidden_names_one_of_the_players_own_characters_at_the_location() -> None:
    """Hidden protects an own, non-hidden character at the attacked location; any other choice is refused."""
    pos = position(HIDDEN_LAYOUT, zombies={1: 2}, hands={"red": ["hidden", "hidden"]})
    check(run(pos), [["pending_kinds", "==", ["red:cards"]], ["pending[0].playable", "==", ["hidden"]]])
    elsewhere = run(pos, [("red", "cards", [{"card": "hidden", "character": "tough"}])])  # red's Tough Guy is at 5
    check(elsewhere, [["ok", "==", False], ["error.answer", "==", 0], ["state.hands.red", "==", ["hidden", "hidden"]]])
    twice = run(
        pos,
        [("red", "cards", [{"card": "hidden", "character": "pinup"}, {"card": "hidden", "character": "pinup"}])],
    )
    check(twice, [["ok", "==", False], ["error.answer", "==", 0]])
    # red does not have a Little Girl at all
    girl = run(pos, [("red", "cards", [{"card": "hidden", "character": "girl"}])])
    check(girl, [["ok", "==", False]])
    # yellow has no Hidden card and no card at all: the window is red's only
    assert "yellow:cards" not in kinds(run(pos))


# --- VOT-10: private information ------------------------------------------------------------------------------


@pytest.mark.rule("VOT-10", "VOT-3", "H-6")
def test_votes_and_hands_are_never_shown_to_other_players() -> None:
    """Sealed votes stay secret until all are in; hands are private (only their sizes are public)."""
    game = game_at(position(VOTE_LAYOUT, zombies={1: 4}, hands={"red": ["camera"], "yellow": ["sprint"]}))
    assert sorted((r.player, r.kind) for r in game.pending()) == [("red", "vote"), ("yellow", "vote")]
    game.answer("red", "vote", "yellow")
    mine, theirs, public = view(game, "red"), view(game, "yellow"), spectator_view(game)
    assert mine["answered"] == {"kind": "vote", "answer": "yellow"}
    assert theirs["answered"] is None
    assert [r["kind"] for r in theirs["requests"]] == ["vote"]
    for seen in (theirs, public):
        assert not [e for e in seen["events"] if e["type"] == "votes_revealed"]
        assert "camera" not in str(seen.get("hand")) and "hands" not in seen
        assert seen["hand_sizes"] == {"red": 1, "yellow": 1, "blue": 0, "green": 0}
    assert theirs["hand"] == ["sprint"]
    game.answer("yellow", "vote", "red")
    revealed_to_yellow = [e for e in view(game, "yellow")["events"] if e["type"] == "votes_revealed"]
    assert revealed_to_yellow and revealed_to_yellow[0]["votes"] == {"red": "yellow", "yellow": "red"}


# ================================================================================================================
# B-F: the attack of the zombies
# ================================================================================================================


@pytest.mark.rule("F-1", "R-30")
def test_extra_zombies_parking_counts_and_one_location_can_get_both() -> None:
    """Most characters (Parking included) and most Pin-Ups may both be the Parking: it gets 2 zombies."""
    # tokens 4:4, 1:3, 3:3, 6:2 -> Parking; Pin-Ups 4:2, 1:1, 3:1 -> Parking.
    pos = position(
        {
            "red": {"pinup": 4, "tough": 4, "gunman": 4},
            "yellow": {"pinup": 4, "tough": 1, "gunman": 1},
            "blue": {"pinup": 1, "tough": 3, "gunman": 3},
            "green": {"pinup": 3, "tough": 6, "gunman": 6},
        }
    )
    r = run(pos)
    check(
        r,
        [
            ["ok", "==", True],
            ["state.zombies.4", "==", 2],
            ["state.zombies.1", "==", 0],
            ["state.zombies.3", "==", 0],
            ["pending_kinds", "==", ["red:vote", "yellow:vote"]],
            ["pending[player=red].weight", "==", 4],
        ],
    )
    (extra,) = events(r, "extra_zombies")
    assert (extra["most_characters"], extra["most_pinups"]) == (4, 4)
    assert events(r, "attack")[0]["zombies"] == 2


@pytest.mark.rule("F-1", "R-30", "A2")
def test_extra_zombies_count_tokens_and_a_tied_maximum_places_none() -> None:
    """A Tough Guy counts 1 in the character count; a tie for most Pin-Ups places no Pin-Up zombie."""
    # tokens 1:3 (three Tough Guys; 6 if they counted 2), 3:4, 5:2, 6:3 -> +1 at 3; Pin-Ups 3:2, 6:2 -> none.
    pos = position(
        {
            "red": {"tough": 1, "pinup": 3, "gunman": 5},
            "yellow": {"tough": 1, "pinup": 3, "gunman": 5},
            "blue": {"tough": 1, "gunman": 3, "pinup": 6},
            "green": {"gunman": 3, "pinup": 6, "tough": 6},
        }
    )
    r = run(pos)
    check(
        r,
        [
            ["ok", "==", True],
            ["state.zombies", "==", {"1": 0, "2": 0, "3": 1, "4": 0, "5": 0, "6": 0}],
        ],
    )
    (extra,) = events(r, "extra_zombies")
    assert (extra["most_characters"], extra["most_pinups"]) == (3, None)
    assert attacked(r) == []


@pytest.mark.rule("F-1")
def test_extra_zombies_none_when_characters_tie_and_no_pinup_is_left() -> None:
    """Two characters everywhere (tie) and no Pin-Up alive (maximum 0): no extra zombie at all."""
    pos = position(
        {
            "red": {"tough": 1, "gunman": 1},
            "yellow": {"tough": 3, "gunman": 3},
            "blue": {"tough": 5, "gunman": 5},
            "green": {"tough": 6, "gunman": 6},
        },
        zombies={1: 1},
    )
    r = run(pos)
    check(r, [["ok", "==", True], ["state.zombies", "==", {"1": 1, "2": 0, "3": 0, "4": 0, "5": 0, "6": 0}]])
    (extra,) = events(r, "extra_zombies")
    assert (extra["most_characters"], extra["most_pinups"]) == (None, None)


@pytest.mark.rule("F-1")
def test_extra_zombies_pinups_unique_but_characters_tied() -> None:
    """Only the Pin-Up zombie is placed when the character maximum is shared."""
    # tokens 1:3, 3:3, 5:3, 6:3 -> tie; Pin-Ups 6:2, 3:1, 5:1 -> +1 at 6 (threshold min(4, 4) = 4 > 1).
    pos = position(
        {
            "red": {"pinup": 6, "tough": 3, "gunman": 1},
            "yellow": {"pinup": 6, "tough": 3, "gunman": 1},
            "blue": {"pinup": 3, "tough": 6, "gunman": 5},
            "green": {"pinup": 5, "tough": 1, "gunman": 5},
        }
    )
    r = run(pos)
    (extra,) = events(r, "extra_zombies")
    assert (extra["most_characters"], extra["most_pinups"]) == (None, 6)
    check(r, [["state.zombies", "==", {"1": 0, "2": 0, "3": 0, "4": 0, "5": 0, "6": 1}]])


@pytest.mark.rule("F-2", "F-7")
def test_locations_are_resolved_from_1_to_6_with_the_parking_in_its_place() -> None:
    """Five players, one colour per location: attacks run 1, 2, 4 (Parking), 5, 6; 3 has nobody."""
    # F-1: 2 tokens and 1 Pin-Up at each of 1, 2, 4, 5, 6 -> ties, none.
    pos = position(
        {
            "red": {"pinup": 1, "gunman": 1},
            "yellow": {"pinup": 2, "gunman": 2},
            "blue": {"pinup": 4, "gunman": 4},
            "green": {"pinup": 5, "gunman": 5},
            "black": {"pinup": 6, "gunman": 6},
        },
        zombies={1: 2, 2: 2, 4: 1, 5: 2, 6: 2},
    )
    orders = {p: {"victim": ["gunman"]} for p in FIVE}
    r = run(pos, players=FIVE, standing_orders=orders)
    check(r, [["ok", "==", True], ["state.zombies", "==", {"1": 0, "2": 0, "3": 0, "4": 0, "5": 0, "6": 0}]])
    assert attacked(r) == [1, 2, 4, 5, 6]
    assert [(e["player"], e["location"]) for e in events(r, "eaten")] == [
        ("red", 1),
        ("yellow", 2),
        ("blue", 4),
        ("green", 5),
        ("black", 6),
    ]
    assert {p: c for p, c in r["state"]["characters"].items()} == {
        "red": {"pinup": 1},
        "yellow": {"pinup": 2},
        "blue": {"pinup": 4},
        "green": {"pinup": 5},
        "black": {"pinup": 6},
    }


# F-1: tokens 1:2, 3:2, 5:3, 6:5 -> +1 at 6 (threshold min(6, 4) = 4 > 1); Pin-Ups one each at 1, 3, 5, 6 -> none.
# Location 1: red Tough Guy + yellow Pin-Up, strength 3. Location 3: blue Tough Guy + green Pin-Up, strength 3.
EQUAL_LAYOUT = {
    "red": {"tough": 1, "pinup": 5, "gunman": 6},
    "yellow": {"pinup": 1, "tough": 6, "gunman": 5},
    "blue": {"tough": 3, "pinup": 6, "gunman": 6},
    "green": {"pinup": 3, "tough": 5, "gunman": 6},
}


@pytest.mark.rule("F-3", "R-22", "DEF-3", "F-6", "F-5")
def test_zombies_equal_to_strength_attack_one_fewer_do_not() -> None:
    """3 zombies vs strength 3 attack; 2 zombies vs a Tough Guy (2) + Pin-Up (1) do not, and no window opens."""
    pos = position(EQUAL_LAYOUT, zombies={1: 3, 3: 2}, hands={"blue": ["axe"], "green": ["hardware"]})
    r = run(pos)
    check(r, [["ok", "==", True], ["pending_kinds", "==", ["red:vote", "yellow:vote"]]])
    r = run(pos, [("red", "vote", "yellow"), ("yellow", "vote", "yellow")])
    check(
        r,
        [
            ["ok", "==", True],
            ["state.characters.yellow.pinup", "absent", None],
            ["state.zombies.1", "==", 0],
            ["state.zombies.3", "==", 2],  # not attacked: the zombies stay outside
            ["state.hands.blue", "==", ["axe"]],
            ["state.hands.green", "==", ["hardware"]],
            ["state.characters.blue.tough", "==", 3],
            ["state.characters.green.pinup", "==", 3],
        ],
    )
    assert attacked(r) == [1]
    assert not [e for e in r["events"] if e["type"] == "card_played"]


@pytest.mark.rule("F-5", "F-1")
def test_zombies_at_a_location_without_characters_stay() -> None:
    """Nobody at location 1: its 5 zombies are not resolved and stay there."""
    # EQUAL_LAYOUT without red's Tough Guy and yellow's Pin-Up. F-1: tokens 3:2, 5:3, 6:5 -> +1 at 6 (threshold 4);
    # Pin-Ups 3:1, 5:1, 6:1 -> none.
    layout = {**EQUAL_LAYOUT, "red": {"pinup": 5, "gunman": 6}, "yellow": {"tough": 6, "gunman": 5}}
    pos = position(layout, zombies={1: 5})
    r = run(pos)
    check(r, [["ok", "==", True], ["state.zombies.1", "==", 5], ["state.zombies.6", "==", 1]])
    assert attacked(r) == []


# F-1: tokens 6:6 -> +1 at 6; Pin-Ups 6:3 -> +1 at 6. Location 6: red, yellow, blue Pin-Up + Tough Guy each,
# strength 9, threshold min(9, 4) = 4.
SUPERMARKET_LAYOUT = {
    "red": {"pinup": 6, "tough": 6, "gunman": 1},
    "yellow": {"pinup": 6, "tough": 6, "gunman": 1},
    "blue": {"pinup": 6, "tough": 6, "gunman": 3},
    "green": {"pinup": 3, "tough": 5, "gunman": 5},
}


@pytest.mark.rule("F-3", "DEF-4", "R-21")
@pytest.mark.parametrize(("before", "attacks"), [(2, True), (1, False)])
def test_supermarket_lets_four_zombies_in_whatever_the_strength(before: int, attacks: bool) -> None:
    """Strength 9 at the Supermarket: 4 zombies attack (threshold capped at 4), 3 do not."""
    r = run(position(SUPERMARKET_LAYOUT, zombies={6: before}))
    assert r["ok"]
    if attacks:
        check(r, [["pending_kinds", "==", ["red:vote", "yellow:vote", "blue:vote"]], ["state.zombies.6", "==", 4]])
        assert attacked(r) == [6]
    else:
        check(r, [["state.zombies.6", "==", 3]])
        assert attacked(r) == []


@pytest.mark.rule("F-4", "R-21")
def test_weapons_reduce_the_zombies_at_the_supermarket() -> None:
    """4 zombies at the Supermarket, an Axe kills one: 3 < 4, the location holds and 3 zombies stay."""
    r = run(
        position(SUPERMARKET_LAYOUT, zombies={6: 2}, hands={"yellow": ["axe"]}),
        [("yellow", "cards", [{"card": "axe"}])],
    )
    check(r, [["ok", "==", True], ["state.zombies.6", "==", 3], ["state.hands.yellow", "==", []]])
    assert events(r, "eaten") == []
    assert [e["location"] for e in events(r, "attack_held")] == [6]


# F-1: tokens 1:3, 3:4, 5:3, 6:2 -> +1 at 3 (strength 6 > 1); Pin-Ups one each at 1, 3, 5, 6 -> none.
# Location 6: red Pin-Up + Gunman, strength 2.
HARDWARE_LAYOUT = {
    "red": {"pinup": 6, "gunman": 6, "tough": 1},
    "yellow": {"pinup": 1, "tough": 3, "gunman": 3},
    "blue": {"pinup": 3, "tough": 5, "gunman": 5},
    "green": {"pinup": 5, "tough": 3, "gunman": 1},
}


@pytest.mark.rule("R-21", "F-4", "DEF-4")
def test_hardware_at_the_supermarket_raises_the_threshold_up_to_four() -> None:
    """3 zombies, strength 2, two Hardware: threshold min(4, 4) = 4 > 3, the Supermarket holds; zombies stay."""
    pos = position(HARDWARE_LAYOUT, zombies={6: 3}, hands={"red": ["hardware", "hardware"]})
    r = run(pos, [("red", "cards", [{"card": "hardware"}, {"card": "hardware"}])])
    check(
        r,
        [
            ["ok", "==", True],
            ["state.zombies.6", "==", 3],
            ["state.zombies.3", "==", 1],
            ["state.characters.red", "==", {"pinup": 6, "gunman": 6, "tough": 1}],
            ["state.hands.red", "==", []],
        ],
    )
    assert [e["location"] for e in events(r, "attack_held")] == [6]


@pytest.mark.rule("R-21", "F-4", "DEF-4", "F-10")
def test_hardware_cannot_lift_the_supermarket_threshold_above_four() -> None:
    """4 zombies, strength 2 + 3 Hardware = 5, threshold still 4: the attack happens and the cards are spent."""
    pos = position(HARDWARE_LAYOUT, zombies={6: 4}, hands={"red": ["hardware", "hardware", "hardware"]})
    r = run(pos, [("red", "cards", [{"card": "hardware"}] * 3)])
    check(
        r,
        [
            ["ok", "==", True],
            ["pending_kinds", "==", ["red:victim"]],
            ["pending[0].options", "set==", ["pinup", "gunman"]],
            ["state.hands.red", "==", []],
        ],
    )
    assert events(r, "attack_held") == []


# F-1: tokens 1:2, 3:2, 4:2, 5:2, 6:4 -> +1 at 6 (threshold min(5, 4) = 4 > 1); Pin-Ups 4:2, 6:2 -> none.
# The Parking: red Pin-Up, yellow Pin-Up.
PARKING_PAIR = {
    "red": {"pinup": 4, "tough": 1, "gunman": 3},
    "yellow": {"pinup": 4, "tough": 3, "gunman": 1},
    "blue": {"pinup": 6, "tough": 6, "gunman": 5},
    "green": {"pinup": 6, "tough": 5, "gunman": 6},
}


@pytest.mark.rule("R-33", "F-7", "F-4", "VOT-6")
def test_hardware_is_not_playable_at_the_parking_but_weapons_are() -> None:
    """At the Parking Hardware cannot be played (a player holding only Hardware is skipped); a Weapon can."""
    pos = position(PARKING_PAIR, zombies={4: 1}, hands={"red": ["hardware", "axe"], "yellow": ["hardware"]})
    r = run(pos)
    check(r, [["ok", "==", True], ["pending_kinds", "==", ["red:cards"]], ["pending[0].playable", "==", ["axe"]]])
    bad = run(pos, [("red", "cards", [{"card": "hardware"}])])
    check(bad, [["ok", "==", False], ["error.answer", "==", 0], ["state.hands.red", "==", ["hardware", "axe"]]])
    r = run(pos, [("red", "cards", [{"card": "axe"}])])
    check(
        r,
        [
            ["ok", "==", True],
            ["state.zombies.4", "==", 0],
            ["state.hands.red", "==", ["hardware"]],
            ["state.hands.yellow", "==", ["hardware"]],
            ["state.characters.red.pinup", "==", 4],
            ["state.characters.yellow.pinup", "==", 4],
        ],
    )
    assert revealed(r) == []
    played = [e for e in r["events"] if e["type"] == "card_played"]
    assert [(e["card"], e.get("killed")) for e in played] == [("axe", 1)]


@pytest.mark.rule("F-4", "R-33", "G")
def test_a_two_kill_weapon_never_takes_the_zombies_below_zero() -> None:
    """A Grenade (kills 2) against the one zombie at the Parking kills 1; nobody is eaten."""
    pos = position(PARKING_PAIR, zombies={4: 1}, hands={"red": ["grenade"]})
    r = run(pos, [("red", "cards", [{"card": "grenade"}])])
    check(r, [["ok", "==", True], ["state.zombies.4", "==", 0], ["state.hands.red", "==", []]])
    played = [e for e in r["events"] if e["type"] == "card_played"]
    assert [(e["card"], e.get("killed")) for e in played] == [("grenade", 1)]
    assert events(r, "eaten") == []


# F-1 (WINDOW_LAYOUT): +1 at 6 only. Location 1: red Pin-Up + Tough Guy, strength 3.
@pytest.mark.rule("F-4", "A3", "G")
def test_default_weapons_kill_one_or_two_and_a_held_location_keeps_its_zombies() -> None:
    """Grenade kills 2, Axe 1: 5 - 3 = 2 < 3, the location holds and its 2 zombies stay."""
    pos = position(WINDOW_LAYOUT, zombies={1: 5}, hands={"red": ["grenade", "axe"]})
    r = run(pos, [("red", "cards", [{"card": "grenade"}, {"card": "axe"}])])
    check(r, [["ok", "==", True], ["state.zombies.1", "==", 2], ["state.hands.red", "==", []]])
    played = [(e["card"], e.get("killed")) for e in r["events"] if e["type"] == "card_played"]
    assert played == [("grenade", 2), ("axe", 1)]
    assert events(r, "eaten") == []


@pytest.mark.rule("G", "F-4", "A3")
@pytest.mark.parametrize(("weapons", "held"), [(None, False), ({"axe": 2}, True)])
def test_weapons_option_sets_the_kills_of_each_weapon(weapons: dict[str, int] | None, held: bool) -> None:
    """4 zombies vs strength 3: an Axe killing 1 (default) leaves 3 (attack); with axe=2 it leaves 2 (held)."""
    options = {} if weapons is None else {"weapons": weapons}
    pos = position(WINDOW_LAYOUT, zombies={1: 4}, hands={"red": ["axe"]})
    r = run(pos, [("red", "cards", [{"card": "axe"}])], options=options)
    assert r["ok"]
    played = [(e["card"], e.get("killed")) for e in r["events"] if e["type"] == "card_played"]
    if held:
        assert played == [("axe", 2)]
        check(r, [["state.zombies.1", "==", 2], ["state.characters.red.pinup", "==", 1]])
    else:
        assert played == [("axe", 1)]
        check(r, [["pending_kinds", "==", ["red:victim"]], ["pending[0].options", "set==", ["pinup", "tough"]]])


@pytest.mark.rule("G", "F-4")
def test_weapons_option_can_lower_a_weapon_to_one_kill() -> None:
    """With grenade=1 a Grenade kills only 1: 4 - 1 = 3 >= 3, the attack goes on."""
    pos = position(WINDOW_LAYOUT, zombies={1: 4}, hands={"red": ["grenade"]})
    r = run(pos, [("red", "cards", [{"card": "grenade"}])], options={"weapons": {"grenade": 1}})
    check(r, [["ok", "==", True], ["pending_kinds", "==", ["red:victim"]]])
    played = [(e["card"], e.get("killed")) for e in r["events"] if e["type"] == "card_played"]
    assert played == [("grenade", 1)]


# F-1: tokens 1:3, 3:3, 5:2, 6:4 -> +1 at 6; Pin-Ups 1:1, 3:1, 6:2 -> +1 at 6 (threshold min(6, 4) = 4 > 2).
# Location 1: red Tough Guy, yellow Pin-Up + Gunman, strength 4; yellow is the Chief.
@pytest.mark.rule("R-7", "DEF-3", "F-10", "F-4", "VOT-6")
def test_hidden_characters_still_count_for_strength_and_a_useless_card_is_still_spent() -> None:
    """Yellow hides its Pin-Up, red's Axe leaves 3 zombies < strength 4 (hidden included): held, Hidden spent."""
    pos = position(
        {
            "red": {"tough": 1, "pinup": 3, "gunman": 5},
            "yellow": {"pinup": 1, "gunman": 1, "tough": 6},
            "blue": {"pinup": 6, "tough": 3, "gunman": 5},
            "green": {"pinup": 6, "tough": 6, "gunman": 3},
        },
        chief="yellow",
        zombies={1: 4},
        hands={"yellow": ["hidden"], "red": ["axe"]},
    )
    r = run(pos)
    check(r, [["pending_kinds", "==", ["yellow:cards"]]])  # the Chief first
    r = run(pos, [("yellow", "cards", [{"card": "hidden", "character": "pinup"}])])
    check(r, [["pending_kinds", "==", ["red:cards"]]])
    r = run(pos, [("yellow", "cards", [{"card": "hidden", "character": "pinup"}]), ("red", "cards", [{"card": "axe"}])])
    check(
        r,
        [
            ["ok", "==", True],
            ["state.zombies.1", "==", 3],
            ["state.hands.yellow", "==", []],
            ["state.hands.red", "==", []],
            ["state.characters.yellow", "==", {"pinup": 1, "gunman": 1, "tough": 6}],
            ["state.characters.red.tough", "==", 1],
        ],
    )
    assert events(r, "eaten") == []
    assert [e["location"] for e in events(r, "attack_held")] == [1]


@pytest.mark.rule("F-4", "F-10", "R-7")
def test_location_whose_characters_are_all_hidden_loses_nobody_and_keeps_its_zombies() -> None:
    """The only character at L hides: nobody can be voted for, nobody is eaten, the zombies stay."""
    # F-1: tokens 1:1, 3:3, 5:3, 6:5 -> +1 at 6; Pin-Ups 1:1, 3:1, 6:2 -> +1 at 6 (threshold 4 > 2).
    pos = position(
        {
            "red": {"pinup": 1, "tough": 3, "gunman": 5},
            "yellow": {"pinup": 3, "tough": 6, "gunman": 5},
            "blue": {"pinup": 6, "tough": 3, "gunman": 6},
            "green": {"pinup": 6, "tough": 5, "gunman": 6},
        },
        zombies={1: 2},
        hands={"red": ["hidden"]},
    )
    r = run(pos, [("red", "cards", [{"card": "hidden", "character": "pinup"}])])
    check(
        r,
        [
            ["ok", "==", True],
            ["state.zombies.1", "==", 2],
            ["state.characters.red.pinup", "==", 1],
            ["state.hands.red", "==", []],
            ["state.zombies.6", "==", 2],
        ],
    )
    assert events(r, "eaten") == []
    assert revealed(r) == []


@pytest.mark.rule("F-10", "F-4", "DEF-3")
def test_hardware_lasts_for_the_current_attack_only() -> None:
    """Red's Hardware holds location 1; at location 3 the strength is again the characters' alone."""
    # F-1: tokens 1:1, 3:1, 5:3, 6:6 -> +1 at 6; Pin-Ups 1:1, 5:1, 6:2 -> +1 at 6 (threshold min(9, 4) = 4 > 2).
    pos = position(
        {
            "red": {"pinup": 1, "tough": 5, "gunman": 6},
            "yellow": {"tough": 3, "pinup": 6, "gunman": 5},
            "blue": {"pinup": 5, "tough": 6, "gunman": 6},
            "green": {"pinup": 6, "tough": 6},
        },
        zombies={1: 1, 3: 2},
        hands={"red": ["hardware"]},
    )
    r = run(pos, [("red", "cards", [{"card": "hardware"}])])
    check(
        r,
        [
            ["ok", "==", True],
            ["state.zombies.1", "==", 1],  # held: the zombie stays
            ["state.characters.red.pinup", "==", 1],
            ["state.characters.yellow.tough", "absent", None],  # 2 zombies >= strength 2 at location 3
            ["state.zombies.3", "==", 0],
        ],
    )
    assert attacked(r) == [1, 3]


@pytest.mark.rule("F-4")
def test_an_attack_removes_every_zombie_at_the_location() -> None:
    """Seven zombies attack red's Pin-Up and Tough Guy (strength 3): one victim, and all seven zombies leave."""
    pos = position(WINDOW_LAYOUT, zombies={1: 7})
    r = run(pos, [("red", "victim", "tough")])
    check(
        r, [["ok", "==", True], ["state.zombies.1", "==", 0], ["state.characters.red", "==", {"pinup": 1, "gunman": 6}]]
    )
    assert [e["zombies"] for e in events(r, "attack") if e["location"] == 1] == [7]


# --- F-6 / H-3: closing the attack window -------------------------------------------------------------------------


@pytest.mark.rule("F-6", "H-3", "VOT-6")
def test_strict_attack_window_closes_once_the_location_is_safe() -> None:
    """Strict: yellow's Grenade makes location 3 safe (2 < 4); blue and green are not asked."""
    pos = position(WINDOW_LAYOUT, zombies={3: 4}, hands={"yellow": ["grenade"], "blue": ["axe"], "green": ["bat"]})
    r = run(pos, [("yellow", "cards", [{"card": "grenade"}])])
    check(
        r,
        [
            ["ok", "==", True],
            ["state.zombies.3", "==", 2],
            ["state.hands.blue", "==", ["axe"]],
            ["state.hands.green", "==", ["bat"]],
        ],
    )
    assert "blue:cards" not in kinds(r) and "green:cards" not in kinds(r)
    assert [e["location"] for e in events(r, "attack_held")] == [3]


@pytest.mark.rule("F-6", "H-3", "F-10")
def test_batched_attack_window_skips_if_needed_plays_but_spends_plain_ones() -> None:
    """Batched: applied from the Chief; the if_needed Axe stays in hand, the plain Bat is spent anyway."""
    pos = position(WINDOW_LAYOUT, zombies={3: 4}, hands={"yellow": ["grenade"], "blue": ["axe"], "green": ["bat"]})
    first = run(pos, options={"turn_order": "batched"})
    check(first, [["pending_kinds", "==", ["yellow:cards", "blue:cards", "green:cards"]]])
    r = run(
        pos,
        [
            ("green", "cards", [{"card": "bat"}]),
            ("blue", "cards", [{"card": "axe", "if_needed": True}]),
            ("yellow", "cards", [{"card": "grenade"}]),
        ],
        options={"turn_order": "batched"},
    )
    check(
        r,
        [
            ["ok", "==", True],
            ["state.zombies.3", "==", 1],  # 4 - 2 (grenade) - 1 (bat)
            ["state.hands.yellow", "==", []],
            ["state.hands.blue", "==", ["axe"]],
            ["state.hands.green", "==", []],
        ],
    )
    played = [(e["player"], e["card"]) for e in r["events"] if e["type"] == "card_played"]
    assert played == [("yellow", "grenade"), ("green", "bat")]
    assert events(r, "eaten") == []


@pytest.mark.rule("F-6", "H-3")
def test_batched_if_needed_play_is_used_when_still_needed() -> None:
    """Batched: an if_needed Axe whose turn comes while zombies would still get in is played."""
    pos = position(WINDOW_LAYOUT, zombies={3: 5}, hands={"yellow": ["axe"], "blue": ["pistol"]})
    r = run(
        pos,
        [
            ("yellow", "cards", [{"card": "axe", "if_needed": True}]),
            ("blue", "cards", [{"card": "pistol", "if_needed": True}]),
        ],
        options={"turn_order": "batched"},
    )
    # 5 -> 4 (axe, needed: 5 >= 4) -> 3 (pistol, needed: 4 >= 4) -> 3 < 4 held
    check(
        r,
        [
            ["ok", "==", True],
            ["state.zombies.3", "==", 3],
            ["state.hands.yellow", "==", []],
            ["state.hands.blue", "==", []],
        ],
    )


# --- the Parking (F-7, F-8, R-17) -------------------------------------------------------------------------------

# F-1: tokens 1:2, 3:2, 4:4, 5:2, 6:2 -> +1 at the Parking; Pin-Ups 4:2, 6:2 -> none.
PARKING_LAYOUT = {
    "red": {"pinup": 4, "gunman": 4, "tough": 1},
    "yellow": {"pinup": 4, "tough": 4, "gunman": 1},
    "blue": {"pinup": 6, "tough": 3, "gunman": 5},
    "green": {"pinup": 6, "tough": 5, "gunman": 3},
}


@pytest.mark.rule("F-7", "F-8", "R-17", "VOT-2")
def test_parking_one_vote_per_zombie_threat_for_one_vote_eaten_do_not_vote() -> None:
    """Two zombies, two votes; red's Threat counts in the first only; yellow's eaten Tough Guy no longer votes."""
    pos = position(PARKING_LAYOUT, zombies={4: 1}, hands={"red": ["threat", "threat"]})
    opening = [
        ("red", "cards", [{"card": "threat"}]),
        ("red", "vote", "yellow"),
        ("yellow", "vote", "red"),
        ("yellow", "victim", "tough"),
    ]
    r = run(pos, opening[:1])
    check(r, [["pending[player=red].weight", "==", 4], ["pending[player=yellow].weight", "==", 2]])
    r = run(pos, opening)
    # second zombie: a new window (red still holds a Threat), then a new vote
    check(r, [["ok", "==", True], ["state.zombies.4", "==", 1], ["pending_kinds", "==", ["red:cards"]]])
    r = run(pos, [*opening, ("red", "cards", [])])
    check(
        r,
        [
            ["ok", "==", True],
            ["pending_kinds", "==", ["red:vote", "yellow:vote"]],
            ["pending[player=red].weight", "==", 3],  # the Threat counted for one vote only
            ["pending[player=yellow].weight", "==", 1],  # the eaten Tough Guy no longer votes
        ],
    )
    r = run(pos, [*opening, ("red", "cards", []), ("red", "vote", "yellow"), ("yellow", "vote", "red")])
    check(
        r,
        [
            ["ok", "==", True],
            ["state.zombies.4", "==", 0],
            ["state.characters.yellow", "==", {"gunman": 1}],
            ["state.characters.red", "==", {"pinup": 4, "gunman": 4, "tough": 1}],
            ["state.hands.red", "==", ["threat"]],
        ],
    )
    assert [e["character"] for e in events(r, "eaten")] == ["tough", "pinup"]


@pytest.mark.rule("F-7", "F-8", "R-17")
def test_parking_surplus_zombies_are_removed_when_nobody_is_left() -> None:
    """Three zombies, one character: one vote (uncontested), the Pin-Up is eaten, the other zombies are removed."""
    # F-1: tokens 1:2, 3:3, 4:1, 5:3, 6:3 -> tie; Pin-Ups 1:1, 3:1, 4:1, 5:1 -> tie: none.
    pos = position(
        {
            "red": {"pinup": 4, "tough": 1, "gunman": 3},
            "yellow": {"pinup": 1, "tough": 3, "gunman": 5},
            "blue": {"pinup": 3, "tough": 5, "gunman": 6},
            "green": {"pinup": 5, "tough": 6, "gunman": 6},
        },
        zombies={4: 3},
    )
    r = run(pos)
    check(
        r,
        [
            ["ok", "==", True],
            ["state.zombies.4", "==", 0],
            ["state.characters.red", "==", {"tough": 1, "gunman": 3}],
        ],
    )
    assert attacked(r) == [4]
    assert [(e["player"], e["character"]) for e in events(r, "eaten")] == [("red", "pinup")]


@pytest.mark.rule("F-8", "F-5")
def test_parking_zombies_are_removed_even_with_nobody_there() -> None:
    """No character at the Parking: its zombies are removed at the end of phase F (unlike other locations)."""
    pos = position(
        {
            "red": {"tough": 1, "gunman": 3},
            "yellow": {"pinup": 1, "tough": 3, "gunman": 5},
            "blue": {"pinup": 3, "tough": 5, "gunman": 6},
            "green": {"pinup": 5, "tough": 6, "gunman": 6},
        },
        zombies={4: 2},
    )
    # F-1: tokens 1:2, 3:3, 5:3, 6:3 -> tie; Pin-Ups 1:1, 3:1, 5:1 -> tie: none.
    r = run(pos)
    check(r, [["ok", "==", True], ["state.zombies.4", "==", 0]])
    assert attacked(r) == []
    assert events(r, "eaten") == []


@pytest.mark.rule("F-7", "F-10", "VOT-H", "R-35", "VOT-9")
def test_hidden_lasts_for_every_parking_vote_of_the_round() -> None:
    """Red hides its Pin-Up at the first Parking vote: it is still hidden for the second vote."""
    pos = position(PARKING_LAYOUT, zombies={4: 1}, hands={"red": ["hidden"]})
    opening = [("red", "cards", [{"card": "hidden", "character": "pinup"}])]
    r = run(pos, opening)
    check(r, [["pending[player=red].weight", "==", 2], ["pending[player=yellow].weight", "==", 2]])
    # red (Gunman 2 votes) votes for itself, yellow votes red: red loses
    r = run(pos, [*opening, ("red", "vote", "red"), ("yellow", "vote", "red")])
    # red's victim can only be the Gunman (Pin-Up hidden): chosen without asking; then the second zombie:
    # red's Pin-Up is still hidden, so yellow is the only target and loses without a vote
    check(
        r,
        [
            ["ok", "==", True],
            ["pending_kinds", "==", ["yellow:victim"]],
            ["pending[0].options", "set==", ["pinup", "tough"]],
            ["state.characters.red", "==", {"pinup": 4, "tough": 1}],
            ["state.zombies.4", "==", 1],
        ],
    )
    assert len(revealed(r)) == 1
    assert [(e["location"], e["colour"]) for e in events(r, "vote_uncontested")] == [(4, "yellow")]


@pytest.mark.rule("R-34", "F-7", "F-10", "VOT-H")
def test_an_already_hidden_character_cannot_be_hidden_again() -> None:
    """Second Parking vote: red's Pin-Up is still hidden, so only its Gunman can be hidden with the second card."""
    pos = position(PARKING_LAYOUT, zombies={4: 1}, hands={"red": ["hidden", "hidden"]})
    opening = [
        ("red", "cards", [{"card": "hidden", "character": "pinup"}]),
        ("red", "vote", "yellow"),
        ("yellow", "vote", "yellow"),
        ("yellow", "victim", "tough"),
    ]
    r = run(pos, opening)
    check(r, [["ok", "==", True], ["pending_kinds", "==", ["red:cards"]], ["pending[0].playable", "==", ["hidden"]]])
    again = run(pos, [*opening, ("red", "cards", [{"card": "hidden", "character": "pinup"}])])
    check(again, [["ok", "==", False], ["error.answer", "==", 4], ["state.hands.red", "==", ["hidden"]]])
    # hiding the Gunman leaves red with no visible character: yellow is the only target, without a vote
    r = run(pos, [*opening, ("red", "cards", [{"card": "hidden", "character": "gunman"}])])
    check(
        r,
        [
            ["ok", "==", True],
            ["state.characters.red", "==", {"pinup": 4, "gunman": 4, "tough": 1}],
            ["state.characters.yellow", "==", {"gunman": 1}],
            ["state.zombies.4", "==", 0],
            ["state.hands.red", "==", []],
        ],
    )
    assert len(revealed(r)) == 1


@pytest.mark.rule("R-35", "F-10", "VOT-2")
def test_hidden_expires_at_the_end_of_the_round() -> None:
    """A character hidden in round 3 votes again in round 4's truck vote."""
    # F-1: tokens 1:2 (toughs), 3:2, 4:4, 5:2, 6:2 -> +1 at the Parking; Pin-Ups 4:2, 6:2 -> none.
    layout = {
        "red": {"pinup": 4, "gunman": 4, "tough": 1},
        "yellow": {"pinup": 4, "gunman": 4, "tough": 1},
        "blue": {"pinup": 6, "tough": 3, "gunman": 5},
        "green": {"pinup": 6, "tough": 5, "gunman": 3},
    }
    pos = position(layout, hands={"red": ["hidden"]}, deck=["axe", "bat", "pistol"])
    # red: Gunman 2 votes (Pin-Up hidden); yellow 3; red loses 3 to 2 and loses its Gunman
    r = run(
        pos,
        [
            ("red", "cards", [{"card": "hidden", "character": "pinup"}]),
            ("red", "vote", "yellow"),
            ("yellow", "vote", "red"),
        ],
    )
    check(
        r,
        [
            ["ok", "==", True],
            ["state.round", "==", 4],
            ["state.phase", "==", "truck"],
            ["state.characters.red", "==", {"pinup": 4, "tough": 1}],
            ["pending_kinds", "==", ["red:vote", "yellow:vote"]],
            ["pending[player=red].weight", "==", 1],  # the Pin-Up is no longer hidden
            ["pending[player=red].options", "set==", ["red", "yellow"]],
            ["pending[player=yellow].weight", "==", 3],
        ],
    )


# ================================================================================================================
# F-9 / B-ELM: eliminated players
# ================================================================================================================

# F-1: tokens 1:1, 3:2, 5:3, 6:4 -> +1 at 6 (threshold min(6, 4) = 4 > 1); Pin-Ups 3:2, 6:1 -> +1 at 3.
# Location 1: red's last character, 1 zombie. Location 3: yellow and blue Pin-Ups, strength 2, 1 + 1 = 2 zombies.
ELIM_LAYOUT = {
    "red": {"gunman": 1},
    "yellow": {"pinup": 3, "tough": 5, "gunman": 6},
    "blue": {"pinup": 3, "tough": 6, "gunman": 5},
    "green": {"pinup": 6, "tough": 6, "gunman": 5},
}


@pytest.mark.rule("F-9", "ELM-1", "ELM-2", "B-5", "VOT-7")
def test_player_eliminated_in_an_attack_votes_one_in_a_later_revote_of_the_same_phase() -> None:
    """Red loses its last character at 1: eliminated, the Chief passes on; at 3 red votes 1 in the re-vote."""
    pos = position(ELIM_LAYOUT, zombies={1: 1, 3: 1}, hands={"red": ["axe"]})
    r = run(pos, [("red", "cards", []), ("yellow", "vote", "blue"), ("blue", "vote", "yellow")])
    check(
        r,
        [
            ["ok", "==", True],
            ["state.characters.red", "==", {}],
            ["state.eliminated", "==", {"red": 3}],
            ["state.chief", "==", "yellow"],
            ["state.chief_elected", "==", False],
            ["pending_kinds", "==", ["yellow:vote", "blue:vote", "green:vote", "red:vote"]],
            ["pending[player=red].weight", "==", 1],
            ["pending[player=red].revote", "==", True],
            ["pending[player=red].options", "set==", ["yellow", "blue"]],  # red cannot be voted for
        ],
    )
    assert [e["player"] for e in events(r, "eliminated")] == ["red"]
    r = run(
        pos,
        [
            ("red", "cards", []),
            ("yellow", "vote", "blue"),
            ("blue", "vote", "yellow"),
            ("yellow", "vote", "blue"),
            ("blue", "vote", "yellow"),
            ("green", "vote", "blue"),
            ("red", "vote", "blue"),
        ],
    )
    check(r, [["ok", "==", True], ["state.characters.blue.pinup", "absent", None], ["state.hands.red", "==", ["axe"]]])
    assert revealed(r, revote=True)[0]["weights"] == {"yellow": 1, "blue": 1, "green": 1, "red": 1}


@pytest.mark.rule("ELM-1", "R-2", "G", "VOT-6")
def test_attack_cards_everyone_lets_outsiders_play_weapons_but_not_threat_or_hidden_and_never_the_eliminated() -> None:
    """attack_cards=everyone: an outsider may play a Weapon (not Threat/Hidden); an eliminated player is never asked."""
    # F-1: tokens 1:2, 3:2, 5:1, 6:4 -> +1 at 6 (threshold 4 > 1); Pin-Ups 1:1, 3:1, 6:1 -> none.
    # Location 3: yellow Pin-Up + blue Tough Guy, strength 3, 3 zombies -> attack. Green is eliminated.
    layout = {
        "red": {"pinup": 1, "tough": 1, "gunman": 6},
        "yellow": {"pinup": 3, "tough": 6, "gunman": 6},
        "blue": {"tough": 3, "pinup": 6, "gunman": 5},
        "green": {},
    }
    hands = {"red": ["threat", "hidden", "axe"], "green": ["grenade"]}
    pos = position(layout, zombies={3: 3}, hands=hands)
    present = run(pos)
    check(present, [["ok", "==", True], ["pending_kinds", "==", ["yellow:vote", "blue:vote"]]])
    everyone = run(pos, options={"attack_cards": "everyone"})
    check(
        everyone, [["ok", "==", True], ["pending_kinds", "==", ["red:cards"]], ["pending[0].playable", "==", ["axe"]]]
    )
    bad = run(pos, [("red", "cards", [{"card": "threat"}])], options={"attack_cards": "everyone"})
    check(bad, [["ok", "==", False]])
    r = run(pos, [("red", "cards", [{"card": "axe"}])], options={"attack_cards": "everyone"})
    check(
        r,
        [
            ["ok", "==", True],
            ["state.zombies.3", "==", 2],
            ["state.hands.red", "==", ["threat", "hidden"]],
            ["state.hands.green", "==", ["grenade"]],
        ],
    )
    assert events(r, "eaten") == []
    batched = run(pos, options={"attack_cards": "everyone", "turn_order": "batched"})
    check(batched, [["pending_kinds", "==", ["red:cards"]]])


@pytest.mark.rule("R-2", "G")
def test_attack_cards_everyone_skips_an_outsider_holding_only_a_threat() -> None:
    """An outsider holding only a Threat has nothing playable in an attack window, even with attack_cards=everyone."""
    pos = position(WINDOW_LAYOUT, zombies={3: 4}, hands={"red": ["threat"], "yellow": ["axe"]})
    r = run(pos, options={"attack_cards": "everyone"})
    check(r, [["ok", "==", True], ["pending_kinds", "==", ["yellow:cards"]]])


@pytest.mark.rule("ELM-3", "ELM-1", "D-5", "F-9")
def test_player_eliminated_in_an_attack_places_a_zombie_at_the_end_of_the_next_rounds_phase_d() -> None:
    """Red, eliminated in round 3, chooses no destination in round 4 but places a zombie after the others chose."""
    # F-1: tokens 1:1, 3:3, 6:6 -> +1 at 6; Pin-Ups 3:1, 6:2 -> +1 at 6 (threshold min(8, 4) = 4 > 2).
    layout = {
        "red": {"gunman": 1},
        "yellow": {"pinup": 3, "tough": 6, "gunman": 6},
        "blue": {"pinup": 6, "tough": 3, "gunman": 3},
        "green": {"pinup": 6, "tough": 6, "gunman": 6},
    }
    pos = position(layout, zombies={1: 1})
    dests = [("yellow", "destination", 1), ("blue", "destination", 1), ("green", "destination", 1)]
    r = run(pos, dice=[3, 3, 6, 6])
    check(
        r,
        [
            ["ok", "==", True],
            ["state.eliminated", "==", {"red": 3}],
            ["state.round", "==", 4],
            ["state.phase", "==", "destinations"],
            ["state.chief", "==", "yellow"],
            ["pending_kinds", "set==", ["yellow:destination", "blue:destination", "green:destination"]],
        ],
    )
    r = run(pos, dests, dice=[3, 3, 6, 6])
    check(
        r,
        [
            ["ok", "==", True],
            ["pending_kinds", "==", ["red:zombie"]],
            ["pending[0].options", "set==", [1, 3, 4, 5, 6]],  # open locations; Cachou (2) is closed
        ],
    )
    r = run(pos, [*dests, ("red", "zombie", 5)], dice=[3, 3, 6, 6])
    check(r, [["ok", "==", True], ["state.zombies.5", "==", 1], ["state.phase", "==", "moves"]])
    types = [e["type"] for e in r["events"]]
    assert types.index("zombie_placed") < types.index("destinations_revealed")
    (placed,) = events(r, "zombie_placed")
    assert (placed["player"], placed["location"]) == ("red", 5)


# Phase D positions: red was eliminated in round `since`; play resumes at the arrival of round 5.
ARRIVAL_LAYOUT = {
    "red": {},
    "yellow": {"pinup": 3, "tough": 6, "gunman": 6},
    "blue": {"pinup": 6, "tough": 3, "gunman": 3},
    "green": {"pinup": 6, "tough": 1, "gunman": 1},
}


def zombie_phase(since: int, option: str | None, closed: list[int] | None = None) -> dict[str, Any]:
    pos = position(ARRIVAL_LAYOUT, phase="arrival", round=5, chief="yellow", eliminated={"red": since}, closed=closed)
    options = {} if option is None else {"zombie_player": option}
    dests = [("yellow", "destination", 1), ("blue", "destination", 1), ("green", "destination", 3)]
    return run(pos, dests, dice=[1, 1, 1, 1], options=options)


@pytest.mark.rule("ELM-3", "R-16", "G")
@pytest.mark.parametrize(
    ("since", "option", "asked"),
    [
        (4, None, True),
        (3, None, False),
        (4, "every_round", True),
        (3, "every_round", True),
        (1, "every_round", True),
        (5, "every_round", False),
    ],
)
def test_zombie_player_places_next_round_only_or_every_round_with_the_option(
    since: int, option: str | None, asked: bool
) -> None:
    """By default only the round after elimination; with zombie_player=every_round every later round."""
    r = zombie_phase(since, option)
    assert r["ok"], r["error"]
    if asked:
        check(r, [["pending_kinds", "==", ["red:zombie"]]])
    else:
        check(r, [["state.phase", "==", "moves"]])
        assert "red:zombie" not in kinds(r)
        assert events(r, "zombie_placed") == [] and events(r, "zombie_not_placed") == []


@pytest.mark.rule("ELM-3", "D-5", "R-8")
def test_zombie_player_places_only_at_an_open_location() -> None:
    """A condemned location (3) and Cachou with 4 players are not offered; the Parking is."""
    pos = position(
        {
            "red": {},
            "yellow": {"pinup": 5, "tough": 6, "gunman": 6},
            "blue": {"pinup": 6, "tough": 1, "gunman": 1},
            "green": {"pinup": 6, "tough": 5, "gunman": 5},
        },
        phase="arrival",
        round=5,
        chief="yellow",
        eliminated={"red": 4},
        closed=[2, 3],
    )
    r = run(
        pos,
        [("yellow", "destination", 1), ("blue", "destination", 5), ("green", "destination", 1)],
        dice=[1, 1, 1, 1],
    )
    check(
        r, [["ok", "==", True], ["pending_kinds", "==", ["red:zombie"]], ["pending[0].options", "set==", [1, 4, 5, 6]]]
    )
    bad = run(
        pos,
        [("yellow", "destination", 1), ("blue", "destination", 5), ("green", "destination", 1), ("red", "zombie", 3)],
        dice=[1, 1, 1, 1],
    )
    check(bad, [["ok", "==", False], ["error.answer", "==", 3]])
