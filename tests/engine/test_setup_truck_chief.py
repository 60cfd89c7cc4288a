"""Setup (B-SET), round structure (B-RND), phases A to C (B-A, B-B, B-C) and the definitions of B-DEF.

Every expected number is worked out by hand from RULES.md; the comments show the arithmetic.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from .support import CARD_COUNTS, FIVE, FOUR, SIX, THREE, check, events, kinds, position, run

CHARS = ["pinup", "tough", "gunman"]
CHARS3 = [*CHARS, "girl"]
FULL_DECK = Counter(CARD_COUNTS)  # A3: 21 action cards
PLAYERS = {3: THREE, 4: FOUR, 5: FIVE, 6: SIX}


def clockwise(players: list[str], first: str) -> list[str]:
    i = players.index(first)
    return players[i:] + players[:i]


def options(chars: list[str], locations: list[int]) -> list[dict[str, Any]]:
    return [{"character": c, "location": loc} for c in chars for loc in locations]


def same(got: list[Any], want: list[Any]) -> bool:
    return sorted(map(json.dumps, got)) == sorted(map(json.dumps, want))


def strict_setup(
    players: list[str], chief: str, spots: list[tuple[int, int, int]]
) -> tuple[list[int], list[tuple[str, str, dict[str, Any]]], dict[str, dict[str, int]]]:
    """Dice and answers for strict placements: spots[i] = (die, die, chosen location) of the i-th placement.

    SET-5: placements go round the table from the Chief, one character per turn; each player here places
    Pin-Up, then Tough Guy, then Gunman (then Little Girl). Also returns where everyone ends up.
    """
    order = clockwise(players, chief)
    chars = CHARS3 if len(players) == 3 else CHARS
    done = dict.fromkeys(players, 0)
    dice: list[int] = []
    answers: list[tuple[str, str, dict[str, Any]]] = []
    where: dict[str, dict[str, int]] = {p: {} for p in players}
    for i, (a, b, loc) in enumerate(spots):
        p = order[i % len(order)]
        ch = chars[done[p]]
        done[p] += 1
        dice += [a, b]
        answers.append((p, "place", {"character": ch, "location": loc}))
        where[p][ch] = loc
    return dice, answers, where


def all_at_parking(players: list[str], chief: str) -> tuple[list[int], list[Any], dict[str, dict[str, int]]]:
    per = 4 if len(players) == 3 else 3
    return strict_setup(players, chief, [(4, 6, 4)] * (per * len(players)))


# --- B-SET: setup -----------------------------------------------------------------------------------------------


@pytest.mark.rule("SET-1", "SET-2", "SET-4", "A2", "A3", "A5", "DEF-1")
@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_setup_deals_one_card_each_and_sets_up_the_table_for_the_player_count(n: int) -> None:
    """SET-1/2/4, A5: 1 card each, deck 18/17/16/15 of 21, Cachou closed with 3-4, a Little Girl only with 3."""
    players = PLAYERS[n]
    result = run(players=players, options={"first_chief": players[1]}, dice=[1, 3])
    state = result["state"]
    assert result["ok"]
    assert state["phase"] == "setup"
    assert state["round"] == 0
    for p in players:
        assert len(state["hands"][p]) == 1
    assert len(state["deck"]) == {3: 18, 4: 17, 5: 16, 6: 15}[n]
    dealt = Counter(state["deck"]) + Counter(c for p in players for c in state["hands"][p])
    assert dealt == FULL_DECK
    assert sum(dealt.values()) == 21
    assert state["closed"] == ([2] if n <= 4 else [])
    want = CHARS3 if n == 3 else CHARS
    for p in players:
        assert sorted(state["unplaced"][p]) == sorted(want)
        assert state["characters"][p] == {}
    # A5: 12, 12, 15, 18 characters in all.
    assert sum(len(state["unplaced"][p]) for p in players) == {3: 12, 4: 12, 5: 15, 6: 18}[n]
    assert state["zombies"] == {str(loc): 0 for loc in range(1, 7)}


@pytest.mark.rule("SET-2")
def test_deck_is_shuffled_differently_by_different_seeds() -> None:
    """SET-2: the 21 cards are shuffled before the deal, so the order depends on the seed."""
    orders = set()
    for seed in range(6):
        state = run(players=FOUR, seed=seed, options={"first_chief": "red"})["state"]
        orders.add(tuple(state["deck"]) + tuple(state["hands"][p][0] for p in FOUR))
    assert len(orders) > 1


@pytest.mark.rule("SET-3", "DEF-7", "G")
def test_first_chief_option_names_the_chief_who_places_first() -> None:
    """SET-3: the named first Chief is Chief, not elected, and places first."""
    result = run(players=FOUR, options={"first_chief": "green"}, dice=[3, 5])
    check(
        result,
        [
            ["state.chief", "==", "green"],
            ["state.chief_elected", "==", False],
            ["pending_kinds", "==", ["green:place"]],
        ],
    )


@pytest.mark.rule("SET-3", "G")
def test_random_first_chief_is_drawn_among_the_players() -> None:
    """SET-3 [R]: with first_chief random the first Chief is drawn; different seeds give different Chiefs."""
    chiefs = set()
    for seed in range(20):
        result = run(players=FOUR, seed=seed, options={"first_chief": "random"})
        chief = result["state"]["chief"]
        assert chief in FOUR
        assert result["state"]["chief_elected"] is False
        assert kinds(result) == [f"{chief}:place"]
        chiefs.add(chief)
    assert len(chiefs) > 1


@pytest.mark.rule("SET-5", "SET-7", "A1")
def test_placement_options_come_from_the_two_dice() -> None:
    """SET-5: the player places any unplaced character at the location shown by either die."""
    result = run(players=FIVE, options={"first_chief": "red"}, dice=[3, 6])
    assert kinds(result) == ["red:place"]
    req = result["pending"][0]
    assert sorted(req["dice"]) == [3, 6]
    assert same(req["options"], options(CHARS, [3, 6]))


@pytest.mark.rule("SET-5")
def test_a_double_gives_one_location() -> None:
    """SET-5: a double shows one location, so the choice is only which character goes there."""
    result = run(players=FOUR, options={"first_chief": "red"}, dice=[5, 5])
    assert same(result["pending"][0]["options"], options(CHARS, [5]))


@pytest.mark.rule("SET-5", "R-27", "DEF-1", "SET-4")
def test_a_die_showing_closed_cachou_is_unusable_so_the_other_die_is_used() -> None:
    """R-27: with 4 players a die showing location 2 (closed) counts as full; only the other die can be used."""
    result = run(players=FOUR, options={"first_chief": "red"}, dice=[2, 6])
    assert same(result["pending"][0]["options"], options(CHARS, [6]))


@pytest.mark.rule("SET-5", "R-27", "DEF-1")
def test_both_dice_closed_allows_any_open_location_with_room() -> None:
    """SET-5/R-27: a double on closed location 2 leaves no usable die: any open location (not 2) may be chosen."""
    result = run(players=FOUR, options={"first_chief": "red"}, dice=[2, 2])
    assert same(result["pending"][0]["options"], options(CHARS, [1, 3, 4, 5, 6]))


@pytest.mark.rule("SET-4", "DEF-1", "SET-5", "A5")
def test_cachou_is_open_with_five_players() -> None:
    """SET-4/A5: with 5 players location 2 is open, so a die showing 2 can be used."""
    result = run(players=FIVE, options={"first_chief": "red"}, dice=[2, 2])
    assert result["state"]["closed"] == []
    assert same(result["pending"][0]["options"], options(CHARS, [2]))


@pytest.mark.rule("DEF-2", "A1", "SET-5")
@pytest.mark.parametrize(("loc", "capacity"), [(1, 3), (2, 4), (3, 4), (5, 3), (6, 6)])
def test_location_becomes_full_at_its_capacity(loc: int, capacity: int) -> None:
    """DEF-2/A1: capacities 3,4,4,-,3,6; a location holding its capacity is full and its die unusable."""
    # 6 players (all locations open): the first placements put one Pin-Up each at ``loc``.
    almost = strict_setup(SIX, "red", [(loc, loc, loc)] * (capacity - 1))
    result = run(players=SIX, options={"first_chief": "red"}, dice=[*almost[0], loc, loc], answers=almost[1])
    assert result["ok"], result["error"]
    nxt = SIX[(capacity - 1) % 6]
    assert kinds(result) == [f"{nxt}:place"]
    assert same(result["pending"][0]["options"], options(CHARS, [loc]))  # one place left: not full

    full = strict_setup(SIX, "red", [(loc, loc, loc)] * capacity)
    result = run(players=SIX, options={"first_chief": "red"}, dice=[*full[0], loc, loc], answers=full[1])
    assert result["ok"], result["error"]
    nxt = SIX[capacity % 6]
    chars = CHARS if capacity < 6 else ["tough", "gunman"]  # with capacity 6, red places again
    assert kinds(result) == [f"{nxt}:place"]
    others = [x for x in range(1, 7) if x != loc]
    assert same(result["pending"][0]["options"], options(chars, others))


@pytest.mark.rule("SET-5", "DEF-2", "A1")
def test_a_full_die_location_is_unusable_so_the_other_die_is_used() -> None:
    """SET-5 [PL]: a die showing a full location must not be used; the player uses the other die."""
    # Restroom (capacity 3) filled by red, yellow and blue; green then rolls 1 and 5.
    dice, answers, _ = strict_setup(FOUR, "red", [(1, 1, 1)] * 3)
    result = run(players=FOUR, options={"first_chief": "red"}, dice=[*dice, 1, 5], answers=answers)
    assert kinds(result) == ["green:place"]
    assert same(result["pending"][0]["options"], options(CHARS, [5]))


@pytest.mark.rule("SET-5", "DEF-2", "R-27")
def test_full_and_closed_dice_allow_any_open_location_with_room() -> None:
    """SET-5: die 1 (full) and die 2 (closed) are both unusable: any open location with room (3, 4, 5, 6)."""
    dice, answers, _ = strict_setup(FOUR, "red", [(1, 1, 1)] * 3)
    result = run(players=FOUR, options={"first_chief": "red"}, dice=[*dice, 1, 2], answers=answers)
    assert same(result["pending"][0]["options"], options(CHARS, [3, 4, 5, 6]))


@pytest.mark.rule("SET-5", "DEF-2", "A1")
def test_the_parking_always_has_room() -> None:
    """DEF-2/SET-5: the Parking is never full: with 7 characters there a double 4 still places at the Parking."""
    dice, answers, _ = strict_setup(FOUR, "red", [(4, 4, 4)] * 7)
    result = run(players=FOUR, options={"first_chief": "red"}, dice=[*dice, 4, 4], answers=answers)
    assert result["ok"], result["error"]
    assert sum(1 for p in FOUR for at in result["state"]["characters"][p].values() if at == 4) == 7
    # 8th placement: green, who placed the Pin-Up in the first turn.
    assert kinds(result) == ["green:place"]
    assert same(result["pending"][0]["options"], options(["tough", "gunman"], [4]))


@pytest.mark.rule("SET-5")
def test_a_placement_not_shown_by_the_dice_is_refused() -> None:
    """SET-5: a location shown by neither die (while one is usable) cannot be chosen."""
    result = run(
        players=FOUR,
        options={"first_chief": "red"},
        dice=[3, 5],
        answers=[("red", "place", {"character": "pinup", "location": 6})],
    )
    check(result, [["ok", "==", False], ["error.answer", "==", 0], ["pending_kinds", "==", ["red:place"]]])
    assert result["state"]["characters"]["red"] == {}


@pytest.mark.rule("SET-5", "DEF-6", "R-29")
def test_strict_placement_goes_one_at_a_time_clockwise_from_the_chief() -> None:
    """SET-5/R-29: placement turns start with the Chief and go clockwise, one character per turn, round again."""
    spots = [(1, 3, 3), (1, 3, 3), (1, 3, 1), (1, 3, 1), (5, 6, 6)]
    dice, answers, _ = strict_setup(FOUR, "blue", spots)
    seen = []
    for i in range(len(answers) + 1):
        result = run(players=FOUR, options={"first_chief": "blue"}, dice=[*dice, 6, 5], answers=answers[:i])
        assert result["ok"], result["error"]
        seen.append(kinds(result))
    assert seen == [
        ["blue:place"],
        ["green:place"],
        ["red:place"],
        ["yellow:place"],
        ["blue:place"],
        ["green:place"],
    ]
    check(
        result,
        [
            ["state.characters.blue", "==", {"pinup": 3, "tough": 6}],
            ["state.characters.green", "==", {"pinup": 3}],
            ["state.characters.red", "==", {"pinup": 1}],
            ["state.characters.yellow", "==", {"pinup": 1}],
            ["state.unplaced.blue", "==", ["gunman"]],
        ],
    )


@pytest.mark.rule("SET-5", "DEF-6", "R-29", "H-3")
def test_batched_placement_round_asks_everyone_at_once_in_order_from_the_chief() -> None:
    """H-3 batched: in a placement round every player rolls two dice (in order from the Chief) and is asked at once."""
    result = run(
        players=FOUR,
        options={"first_chief": "blue", "turn_order": "batched"},
        dice=[1, 3, 5, 6, 3, 6, 1, 5],
    )
    assert kinds(result) == ["blue:place", "green:place", "red:place", "yellow:place"]
    assert [sorted(r["dice"]) for r in result["pending"]] == [[1, 3], [5, 6], [3, 6], [1, 5]]
    assert same(result["pending"][1]["options"], options(CHARS, [5, 6]))


def batched_round_one(green_dice: list[int], green_answer: dict[str, Any]) -> dict[str, Any]:
    """Batched round 1 (Chief red): red, yellow and blue roll 1-3 and take the Restroom (capacity 3)."""
    answers = [("red", "place", {"character": "pinup", "location": 1})]
    answers += [("yellow", "place", {"character": "pinup", "location": 1})]
    answers += [("blue", "place", {"character": "pinup", "location": 1})]
    answers += [("green", "place", green_answer)]
    return run(
        players=FOUR,
        options={"first_chief": "red", "turn_order": "batched"},
        dice=[1, 3, 1, 3, 1, 3, *green_dice],
        answers=answers,
    )


@pytest.mark.rule("SET-5", "H-3", "DEF-2")
def test_batched_chosen_die_full_falls_to_the_other_die_before_the_fallback() -> None:
    """H-3: the chosen die's location is full when applied -> the other die's location, not the fallback."""
    result = batched_round_one([1, 6], {"character": "pinup", "location": 1, "fallback": 3})
    assert result["ok"], result["error"]
    check(
        result,
        [
            ["state.characters.red", "==", {"pinup": 1}],
            ["state.characters.yellow", "==", {"pinup": 1}],
            ["state.characters.blue", "==", {"pinup": 1}],
            ["state.characters.green", "==", {"pinup": 6}],
        ],
    )


@pytest.mark.rule("SET-5", "H-3", "DEF-2")
def test_batched_both_dice_full_use_the_fallback() -> None:
    """H-3: both dice locations full when applied -> the fallback location, if it has room."""
    result = batched_round_one([1, 1], {"character": "tough", "location": 1, "fallback": 5})
    assert result["ok"], result["error"]
    check(result, [["state.characters.green", "==", {"tough": 5}]])


@pytest.mark.rule("SET-5", "H-3", "DEF-2")
def test_batched_both_dice_full_and_no_fallback_go_to_the_parking() -> None:
    """H-3: with no fallback named the default fallback is the Parking."""
    result = batched_round_one([1, 1], {"character": "gunman", "location": 1})
    assert result["ok"], result["error"]
    check(result, [["state.characters.green", "==", {"gunman": 4}]])


@pytest.mark.rule("SET-5", "H-3", "DEF-2")
def test_batched_full_fallback_goes_to_the_parking() -> None:
    """H-3: chosen die, other die and fallback all full -> the Parking."""
    answers: list[tuple[str, str, dict[str, Any]]] = []
    # Round 1: red, yellow, blue fill Security HQ (capacity 3); green goes to 3.
    for p in ["red", "yellow", "blue"]:
        answers.append((p, "place", {"character": "pinup", "location": 5}))
    answers.append(("green", "place", {"character": "pinup", "location": 3}))
    # Round 2: red, yellow, blue fill the Restroom; green's double 1 with fallback 5 (full) -> Parking.
    for p in ["red", "yellow", "blue"]:
        answers.append((p, "place", {"character": "tough", "location": 1}))
    answers.append(("green", "place", {"character": "tough", "location": 1, "fallback": 5}))
    dice = [5, 6, 5, 6, 5, 6, 3, 6] + [1, 3, 1, 3, 1, 3, 1, 1] + [3, 6] * 4  # round 3: two usable dice each
    result = run(players=FOUR, options={"first_chief": "red", "turn_order": "batched"}, dice=dice, answers=answers)
    assert result["ok"], result["error"]
    check(
        result,
        [
            ["state.characters.red", "==", {"pinup": 5, "tough": 1}],
            ["state.characters.green", "==", {"pinup": 3, "tough": 4}],
            ["pending_kinds", "==", ["red:place", "yellow:place", "blue:place", "green:place"]],
        ],
    )


@pytest.mark.rule("SET-5", "H-3", "DEF-2")
def test_strict_placement_never_offers_a_location_filled_by_earlier_players() -> None:
    """SET-5 strict: each player sees earlier placements, so a die location filled before the turn is unusable."""
    dice, answers, _ = strict_setup(FOUR, "red", [(1, 3, 1)] * 3)
    result = run(players=FOUR, options={"first_chief": "red"}, dice=[*dice, 1, 6], answers=answers)
    assert same(result["pending"][0]["options"], options(CHARS, [6]))
    result = run(players=FOUR, options={"first_chief": "red"}, dice=[*dice, 1, 1], answers=answers)
    assert same(result["pending"][0]["options"], options(CHARS, [3, 4, 5, 6]))


@pytest.mark.rule("SET-5", "DEF-1", "H-3")
def test_a_closed_fallback_is_refused() -> None:
    """H-3/DEF-1: a fallback must be an open location; Cachou is closed with 4 players."""
    result = run(
        players=FOUR,
        options={"first_chief": "red", "turn_order": "batched"},
        dice=[1, 3, 1, 3, 1, 3, 1, 3],
        answers=[("red", "place", {"character": "pinup", "location": 1, "fallback": 2})],
    )
    check(result, [["ok", "==", False], ["error.answer", "==", 0]])


@pytest.mark.rule("SET-7")
def test_setup_rolls_are_public() -> None:
    """SET-7: placement dice and the initial zombie roll are public (events with no restricted audience)."""
    dice, answers, _ = all_at_parking(FOUR, "red")
    result = run(players=FOUR, options={"first_chief": "red"}, dice=[*dice, 1, 3, 5, 6], answers=answers)
    assert result["ok"], result["error"]
    rolls = events(result, "placement_dice")
    assert len(rolls) == 12
    assert all("to" not in e for e in rolls)
    assert [e["dice"] for e in rolls] == [[4, 6]] * 12
    initial = events(result, "initial_zombies")
    assert len(initial) == 1
    assert "to" not in initial[0]
    assert initial[0]["dice"] == [1, 3, 5, 6]


@pytest.mark.rule("SET-6", "R-9", "R-8", "DEF-1")
@pytest.mark.parametrize(
    ("n", "roll", "zombies"),
    [
        # 4 players: the die on closed location 2 is ignored.
        (4, [2, 3, 3, 6], {3: 2, 6: 1}),
        # 3 players: three dice on location 2 are ignored.
        (3, [2, 1, 2, 2], {1: 1}),
        # 5 players: location 2 is open and takes its zombies.
        (5, [2, 2, 4, 5], {2: 2, 4: 1, 5: 1}),
        (6, [6, 6, 6, 6], {6: 4}),
    ],
)
def test_initial_zombies_one_per_die_ignoring_closed_locations(
    n: int, roll: list[int], zombies: dict[int, int]
) -> None:
    """SET-6/R-9: 1 zombie per die at the location shown; a die on a closed location is ignored."""
    players = PLAYERS[n]
    dice, answers, where = all_at_parking(players, players[0])
    result = run(players=players, options={"first_chief": players[0]}, dice=[*dice, *roll], answers=answers)
    assert result["ok"], result["error"]
    state = result["state"]
    assert state["zombies"] == {str(loc): zombies.get(loc, 0) for loc in range(1, 7)}
    assert state["characters"] == where
    assert state["round"] == 1
    assert "unplaced" not in state


@pytest.mark.rule("R-11", "C-1", "C-2", "B-1", "A-1", "SET-3", "SET-6", "RND-1")
def test_first_round_the_initial_chief_is_not_elected_and_does_not_see_the_dice() -> None:
    """R-11/C-2: after setup the first Chief is not elected; with nobody at 5 or the Parking nobody sees the dice."""
    # Chief yellow; order yellow, blue, green, red. Six to the Supermarket, four to Megatoys, two to the Restroom.
    spots = [(6, 1, 6)] * 6 + [(3, 1, 3)] * 4 + [(1, 5, 1)] * 2
    dice, answers, where = strict_setup(FOUR, "yellow", spots)
    result = run(
        players=FOUR,
        options={"first_chief": "yellow"},
        dice=[*dice, 1, 1, 3, 5, 6, 6, 6, 6],
        answers=answers,
    )
    assert result["ok"], result["error"]
    assert where["yellow"] == {"pinup": 6, "tough": 6, "gunman": 3}
    assert where["red"] == {"pinup": 6, "tough": 3, "gunman": 1}
    check(
        result,
        [
            ["state.round", "==", 1],
            ["state.chief", "==", "yellow"],
            ["state.chief_elected", "==", False],
            ["state.characters", "==", where],
            ["state.zombies", "==", {"1": 2, "2": 0, "3": 1, "4": 0, "5": 1, "6": 0}],
            ["state.dice", "==", {"values": [6, 6, 6, 6], "seen_by": []}],
        ],
    )
    assert [e["reason"] for e in events(result, "truck_skipped")] == ["parking_empty"]
    assert len(events(result, "no_election")) == 1
    assert not events(result, "chief_elected")
    rolled = events(result, "zombie_dice_rolled")
    assert len(rolled) == 1
    assert rolled[0]["to"] == []
    assert result["pending"], "play should wait for cameras or destinations"
    assert all("dice" not in r for r in result["pending"])


# --- B-A: the truck ---------------------------------------------------------------------------------------------

# Parking: red Pin-Up + Gunman (weight 1 + 1 + 1 = 3), yellow Pin-Up (weight 1). Nobody at 5.
TRUCK = {
    "red": {"pinup": 4, "gunman": 4, "tough": 1},
    "yellow": {"pinup": 4, "tough": 6, "gunman": 6},
    "blue": {"pinup": 6, "tough": 3, "gunman": 3},
    "green": {"pinup": 3, "tough": 6, "gunman": 1},
}


def truck_pos(**kw: Any) -> dict[str, Any]:
    chars = kw.pop("characters", TRUCK)
    return position(chars, phase="truck", **kw)


@pytest.mark.rule("A-1", "RND-1")
def test_truck_skipped_when_the_deck_is_empty() -> None:
    """A-1: no cards in the deck -> no truck vote, no Threat window; play goes on to phase B."""
    result = run(truck_pos(deck=[], hands={"red": ["threat"], "yellow": ["threat"]}))
    assert [e["reason"] for e in events(result, "truck_skipped")] == ["deck_empty"]
    assert not events(result, "votes_revealed")
    assert len(events(result, "no_election")) == 1
    check(
        result,
        [
            ["state.hands.red", "==", ["threat"]],
            ["state.hands.yellow", "==", ["threat"]],
            ["state.phase", "==", "destinations"],
            ["pending_kinds", "==", ["red:destination", "yellow:destination", "blue:destination", "green:destination"]],
        ],
    )


@pytest.mark.rule("A-1")
def test_truck_skipped_when_nobody_is_at_the_parking() -> None:
    """A-1 [R]: no character at the Parking -> nobody can vote, no search, the deck is unchanged."""
    chars = {
        "red": {"pinup": 3, "gunman": 3, "tough": 1},
        "yellow": {"pinup": 1, "tough": 6, "gunman": 6},
        "blue": {"pinup": 6, "tough": 3, "gunman": 1},
        "green": {"pinup": 6, "tough": 6, "gunman": 3},
    }
    result = run(truck_pos(characters=chars, deck=["sprint", "axe", "bat"], hands={"red": ["threat"]}))
    assert [e["reason"] for e in events(result, "truck_skipped")] == ["parking_empty"]
    assert not events(result, "truck_searched")
    check(
        result,
        [
            ["state.deck", "==", ["sprint", "axe", "bat"]],
            ["state.hands.red", "==", ["threat"]],
            ["state.phase", "==", "destinations"],
        ],
    )


@pytest.mark.rule("A-2", "A-3", "DEF-5b", "RND-1")
def test_truck_searcher_keeps_one_gives_one_and_puts_the_third_at_the_bottom() -> None:
    """A-3: the winner sees the top 3 cards, keeps 1, gives 1 to another player (anywhere), third to the bottom."""
    result = run(
        truck_pos(deck=["sprint", "axe", "camera", "hidden", "bat"]),
        [
            ("red", "vote", "red"),
            ("yellow", "vote", "yellow"),
        ],
    )
    # Only colours at the Parking may be voted for.
    assert kinds(result) == ["red:truck"]
    assert result["pending"][0]["cards"] == ["sprint", "axe", "camera"]
    assert result["state"]["phase"] == "truck"
    result = run(
        truck_pos(deck=["sprint", "axe", "camera", "hidden", "bat"]),
        [
            ("red", "vote", "red"),
            ("yellow", "vote", "yellow"),
            ("red", "truck", {"keep": "axe", "give": "camera", "to": "blue"}),
        ],
    )
    assert result["ok"], result["error"]
    check(
        result,
        [
            ["state.hands.red", "==", ["axe"]],
            ["state.hands.blue", "==", ["camera"]],
            ["state.hands.yellow", "==", []],
            ["state.hands.green", "==", []],
            # 5 - 3 + 1: the deck shrinks by 2, the third card at the bottom.
            ["state.deck", "==", ["hidden", "bat", "sprint"]],
            # Blue now holds a camera: the phase C camera window asks blue.
            ["pending_kinds", "==", ["blue:cards"]],
            ["pending[0].window", "==", "arrival"],
        ],
    )
    gift = events(result, "gift_received")
    assert len(gift) == 1
    assert gift[0]["card"] == "camera"
    assert sorted(gift[0]["to"]) == ["blue", "red"]


@pytest.mark.rule("A-2", "DEF-5", "DEF-5b", "R-12")
def test_truck_vote_options_are_the_colours_at_the_parking() -> None:
    """A-2/DEF-5b: the Parking vote chooses among colours there; a Camera is not playable before it (R-12)."""
    result = run(truck_pos(deck=["sprint", "axe", "bat"], hands={"red": ["camera"], "yellow": ["camera"]}))
    assert kinds(result) == ["red:vote", "yellow:vote"]
    for req in result["pending"]:
        assert sorted(req["options"]) == ["red", "yellow"]
        assert req["location"] == 4
        assert req["revote"] is False
    assert result["pending"][0]["weight"] == 3
    assert result["pending"][1]["weight"] == 1


@pytest.mark.rule("A-2", "A-6", "DEF-5", "DEF-6")
def test_truck_threat_window_then_revote_tie_means_no_search() -> None:
    """A-2: Threat window (present players, from the Chief) before the vote; A-6: a re-vote tie -> no search."""
    # Parking: red Pin-Up + Tough Guy (weight 2), yellow Pin-Up (weight 1). Blue holds a Threat but is not there.
    chars = {
        "red": {"pinup": 4, "tough": 4, "gunman": 1},
        "yellow": {"pinup": 4, "tough": 6, "gunman": 6},
        "blue": {"pinup": 6, "tough": 3, "gunman": 3},
        "green": {"pinup": 3, "tough": 6, "gunman": 1},
    }
    pos = truck_pos(
        characters=chars,
        deck=["sprint", "axe", "camera"],
        hands={"red": ["threat"], "yellow": ["threat"], "blue": ["threat"]},
    )
    result = run(pos)
    check(
        result,
        [
            ["pending_kinds", "==", ["red:cards"]],
            ["pending[0].window", "==", "truck"],
            ["pending[0].location", "==", 4],
            ["pending[0].playable", "==", ["threat"]],
        ],
    )
    result = run(pos, [("red", "cards", [])])
    assert kinds(result) == ["yellow:cards"]
    result = run(pos, [("red", "cards", []), ("yellow", "cards", [{"card": "threat"}])])
    # Blue is never asked. Yellow: 1 + 1 Threat = 2; red 2.
    check(
        result,
        [
            ["pending_kinds", "==", ["red:vote", "yellow:vote"]],
            ["pending[player=red].weight", "==", 2],
            ["pending[player=yellow].weight", "==", 2],
            ["state.hands.yellow", "==", []],
        ],
    )
    answers = [
        ("red", "cards", []),
        ("yellow", "cards", [{"card": "threat"}]),
        ("red", "vote", "red"),
        ("yellow", "vote", "yellow"),
    ]
    result = run(pos, answers)
    # 2-2: re-vote among red and yellow; everyone votes, outsiders with 1.
    check(
        result,
        [
            ["pending_kinds", "==", ["red:vote", "yellow:vote", "blue:vote", "green:vote"]],
            ["pending[player=yellow].weight", "==", 2],
            ["pending[player=blue].weight", "==", 1],
            ["pending[player=green].options", "set==", ["red", "yellow"]],
            ["pending[0].revote", "==", True],
        ],
    )
    answers += [
        ("red", "vote", "red"),
        ("yellow", "vote", "yellow"),
        ("blue", "vote", "red"),
        ("green", "vote", "yellow"),
    ]
    result = run(pos, answers)
    assert result["ok"], result["error"]
    # 2 + 1 = 3 against 2 + 1 = 3: a second tie, no search.
    assert not events(result, "truck_searched")
    assert [e["reason"] for e in events(result, "truck_skipped")] == ["tie"]
    check(
        result,
        [
            ["state.deck", "==", ["sprint", "axe", "camera"]],
            ["state.hands.red", "==", ["threat"]],
            ["state.hands.yellow", "==", []],
            ["state.hands.blue", "==", ["threat"]],
            ["state.hands.green", "==", []],
            ["pending_kinds", "==", ["red:destination", "yellow:destination", "blue:destination", "green:destination"]],
        ],
    )


TRUCK_ORDER = {
    "red": {"pinup": 4, "tough": 1, "gunman": 1},
    "yellow": {"pinup": 4, "tough": 6, "gunman": 6},
    "blue": {"pinup": 6, "tough": 3, "gunman": 3},
    "green": {"pinup": 4, "tough": 6, "gunman": 3},
}


@pytest.mark.rule("A-2", "DEF-6", "R-29", "DEF-5")
def test_truck_threat_window_strict_starts_at_first_present_player_clockwise_from_the_chief() -> None:
    """DEF-6/VOT-6: Chief blue is not at the Parking, so the window runs green, red, yellow, one at a time."""
    pos = truck_pos(
        characters=TRUCK_ORDER,
        chief="blue",
        deck=["sprint", "axe", "bat"],
        hands={"red": ["threat"], "yellow": ["threat"], "green": ["threat"], "blue": ["camera"]},
    )
    seen = []
    answers: list[Any] = []
    for p in ["green", "red", "yellow"]:
        result = run(pos, answers)
        seen.append(kinds(result))
        answers.append((p, "cards", []))
    assert seen == [["green:cards"], ["red:cards"], ["yellow:cards"]]
    result = run(pos, answers)
    assert kinds(result) == ["green:vote", "red:vote", "yellow:vote"]


@pytest.mark.rule("A-2", "DEF-6", "R-29", "H-3")
def test_truck_threat_window_batched_asks_present_players_at_once_in_order_from_the_chief() -> None:
    """H-3 batched: the Threat window asks every present Threat holder at once, listed from the Chief."""
    pos = truck_pos(
        characters=TRUCK_ORDER,
        chief="blue",
        deck=["sprint", "axe", "bat"],
        hands={"red": ["threat"], "yellow": ["threat"], "green": ["threat"], "blue": ["camera"]},
    )
    result = run(pos, options={"turn_order": "batched"})
    assert kinds(result) == ["green:cards", "red:cards", "yellow:cards"]
    result = run(
        pos,
        [("green", "cards", []), ("red", "cards", [{"card": "threat"}]), ("yellow", "cards", [])],
        options={"turn_order": "batched"},
    )
    # red: Pin-Up 1 + Threat 1 = 2; green and yellow 1 each.
    check(
        result,
        [
            ["pending_kinds", "==", ["green:vote", "red:vote", "yellow:vote"]],
            ["pending[player=red].weight", "==", 2],
            ["pending[player=green].weight", "==", 1],
        ],
    )


@pytest.mark.rule("A-2", "A-3")
def test_truck_with_one_colour_at_the_parking_needs_no_vote_nor_threat_window() -> None:
    """A-2/VOT-5: a single colour at the Parking searches at once; no Threat window (H-2)."""
    chars = {
        "red": {"pinup": 4, "gunman": 4, "tough": 1},
        "yellow": {"pinup": 3, "tough": 6, "gunman": 6},
        "blue": {"pinup": 6, "tough": 3, "gunman": 3},
        "green": {"pinup": 6, "tough": 6, "gunman": 1},
    }
    result = run(truck_pos(characters=chars, deck=["sprint", "axe", "bat", "hidden"], hands={"red": ["threat"]}))
    check(
        result,
        [
            ["pending_kinds", "==", ["red:truck"]],
            ["pending[0].cards", "==", ["sprint", "axe", "bat"]],
            ["state.hands.red", "==", ["threat"]],
        ],
    )


@pytest.mark.rule("A-4", "R-26")
def test_truck_with_two_cards_keep_one_give_one() -> None:
    """A-4: with 2 cards in the deck the searcher keeps 1 and gives 1; the deck is then empty."""
    pos = truck_pos(deck=["sprint", "axe"])
    answers = [("red", "vote", "red"), ("yellow", "vote", "yellow")]
    result = run(pos, answers)
    check(result, [["pending_kinds", "==", ["red:truck"]], ["pending[0].cards", "==", ["sprint", "axe"]]])
    result = run(pos, [*answers, ("red", "truck", {"keep": "sprint", "give": "axe", "to": "green"})])
    assert result["ok"], result["error"]
    check(
        result,
        [
            ["state.deck", "==", []],
            ["state.hands.red", "==", ["sprint"]],
            ["state.hands.green", "==", ["axe"]],
        ],
    )


@pytest.mark.rule("A-4", "R-26")
def test_truck_with_one_card_the_searcher_keeps_it() -> None:
    """A-4: with 1 card the searcher keeps it; nothing is given; the deck is empty."""
    result = run(truck_pos(deck=["grenade"]), [("red", "vote", "red"), ("yellow", "vote", "yellow")])
    assert result["ok"], result["error"]
    assert len(events(result, "truck_searched")) == 1
    assert not events(result, "gift_received")
    check(
        result,
        [
            ["state.deck", "==", []],
            ["state.hands.red", "==", ["grenade"]],
            ["state.hands.yellow", "==", []],
            ["state.hands.blue", "==", []],
            ["state.hands.green", "==", []],
            ["state.phase", "==", "destinations"],
        ],
    )


@pytest.mark.rule("A-5", "A-3")
def test_truck_gift_cannot_go_to_an_eliminated_player_or_to_the_searcher() -> None:
    """A-3/A-5: the gift goes to *another* player who still has characters."""
    chars = {
        "red": {"pinup": 4, "gunman": 4, "tough": 1},
        "yellow": {"pinup": 4, "tough": 6, "gunman": 6},
        "blue": {"pinup": 6, "tough": 3, "gunman": 3},
        "green": {},
    }
    pos = truck_pos(characters=chars, deck=["sprint", "axe", "camera"])
    votes = [("red", "vote", "red"), ("yellow", "vote", "yellow")]
    for bad in ["green", "red"]:
        result = run(pos, [*votes, ("red", "truck", {"keep": "sprint", "give": "axe", "to": bad})])
        check(
            result,
            [
                ["ok", "==", False],
                ["error.answer", "==", 2],
                ["pending_kinds", "==", ["red:truck"]],
                ["state.deck", "==", ["sprint", "axe", "camera"]],
                ["state.hands.green", "==", []],
            ],
        )
    # A player at the Parking is a fine recipient too.
    result = run(pos, [*votes, ("red", "truck", {"keep": "sprint", "give": "axe", "to": "yellow"})])
    assert result["ok"], result["error"]
    check(result, [["state.hands.yellow", "==", ["axe"]], ["state.deck", "==", ["camera"]]])


@pytest.mark.rule("A-3")
def test_truck_cannot_keep_and_give_the_same_single_card() -> None:
    """A-3: keep one card and give *another* of the three drawn."""
    pos = truck_pos(deck=["sprint", "axe", "camera"])
    answers = [
        ("red", "vote", "red"),
        ("yellow", "vote", "yellow"),
        ("red", "truck", {"keep": "axe", "give": "axe", "to": "blue"}),
    ]
    check(run(pos, answers), [["ok", "==", False], ["error.answer", "==", 2]])
    answers[2] = ("red", "truck", {"keep": "hidden", "give": "axe", "to": "blue"})
    check(run(pos, answers), [["ok", "==", False], ["error.answer", "==", 2]])


# --- B-B: electing the Chief ------------------------------------------------------------------------------------

# Nobody at the Parking, so a position at phase "truck" skips A; location 5 varies.
BASE = {
    "red": {"pinup": 1, "tough": 3},
    "yellow": {"pinup": 6, "gunman": 6},
    "blue": {"pinup": 3, "tough": 6},
    "green": {"pinup": 1, "gunman": 1},
}


def with_at_five(**at_five: list[str]) -> dict[str, dict[str, int]]:
    chars = {p: dict(mine) for p, mine in BASE.items()}
    for p, names in at_five.items():
        for name in names:
            chars[p][name] = 5
    return chars


@pytest.mark.rule("B-1", "C-2", "DEF-7")
@pytest.mark.parametrize("closed", [[2], [2, 5]])
def test_no_election_when_security_is_empty_or_closed(closed: list[int]) -> None:
    """B-1: location 5 empty or closed -> no vote, the incumbent stays, not elected; C-2: nobody sees the dice."""
    pos = position(BASE, phase="chief", chief="blue", closed=closed, hands={"yellow": ["threat"]})
    result = run(pos, dice=[1, 3, 6, 6])
    assert len(events(result, "no_election")) == 1
    assert not events(result, "votes_revealed")
    check(
        result,
        [
            ["state.chief", "==", "blue"],
            ["state.chief_elected", "==", False],
            ["state.dice", "==", {"values": [1, 3, 6, 6], "seen_by": []}],
            ["state.closed", "==", closed],
            ["pending_kinds", "==", ["blue:destination", "green:destination", "red:destination", "yellow:destination"]],
        ],
    )
    assert all("dice" not in r for r in result["pending"])


@pytest.mark.rule("DEF-7", "B-1")
def test_elected_flag_is_reset_at_the_start_of_every_round() -> None:
    """DEF-7: elected last round does not carry over; with no election this round the Chief is not elected."""
    pos = position(BASE, phase="truck", chief="yellow", elected=True, deck=["sprint"])
    result = run(pos, dice=[1, 3, 6, 6])
    check(
        result,
        [
            ["state.chief", "==", "yellow"],
            ["state.chief_elected", "==", False],
            ["state.dice.seen_by", "==", []],
            ["pending_kinds", "==", ["yellow:destination", "blue:destination", "green:destination", "red:destination"]],
        ],
    )
    assert all("dice" not in r for r in result["pending"])


@pytest.mark.rule("DEF-7")
def test_elected_flag_is_false_during_the_truck_vote_of_the_next_round() -> None:
    """DEF-7: the flag is reset at the start of phase A, before anything else happens."""
    pos = position(TRUCK, phase="truck", chief="red", elected=True, deck=["sprint", "axe", "bat"])
    result = run(pos)
    check(result, [["pending_kinds", "==", ["red:vote", "yellow:vote"]], ["state.chief_elected", "==", False]])


@pytest.mark.rule("B-2", "B-4", "C-1", "C-2", "DEF-7", "RND-1")
def test_elected_chief_takes_the_badge_sees_the_dice_and_leads_the_order() -> None:
    """B-2: the winner at 5 becomes Chief, elected; C-2: sees the dice; B-4: leads the order from then on."""
    # At 5: yellow Gunman (weight 2) and blue Pin-Up (weight 1).
    chars = with_at_five(yellow=[], blue=[])
    chars["yellow"] = {"pinup": 6, "gunman": 5}
    chars["blue"] = {"pinup": 5, "tough": 6}
    pos = position(chars, phase="chief", chief="red")
    result = run(pos)
    check(
        result,
        [
            ["state.phase", "==", "chief"],
            ["pending_kinds", "==", ["yellow:vote", "blue:vote"]],
            ["pending[player=yellow].weight", "==", 2],
            ["pending[player=blue].weight", "==", 1],
            ["pending[0].options", "set==", ["yellow", "blue"]],
        ],
    )
    votes = [("yellow", "vote", "yellow"), ("blue", "vote", "blue")]
    result = run(pos, votes, dice=[1, 3, 6, 6])
    assert result["ok"], result["error"]
    assert [e["chief"] for e in events(result, "chief_elected")] == ["yellow"]
    rolled = events(result, "zombie_dice_rolled")
    assert [e["to"] for e in rolled] == [["yellow"]]
    check(
        result,
        [
            ["state.chief", "==", "yellow"],
            ["state.chief_elected", "==", True],
            ["state.dice", "==", {"values": [1, 3, 6, 6], "seen_by": ["yellow"]}],
            ["pending_kinds", "==", ["yellow:announce"]],
            ["pending[0].dice", "==", [1, 3, 6, 6]],
        ],
    )
    result = run(pos, [*votes, ("yellow", "announce", 3)], dice=[1, 3, 6, 6])
    assert result["ok"], result["error"]
    # From yellow clockwise: blue, green, red; none of them may see the dice.
    assert kinds(result) == ["blue:destination", "green:destination", "red:destination"]
    assert all("dice" not in r for r in result["pending"])


@pytest.mark.rule("B-2", "DEF-7")
def test_re_electing_the_incumbent_counts_as_elected() -> None:
    """B-2/DEF-7: the incumbent who wins the vote at 5 is elected this round and sees the dice."""
    chars = {p: dict(mine) for p, mine in BASE.items()}
    chars["red"] = {"pinup": 1, "gunman": 5}
    chars["blue"] = {"pinup": 5, "tough": 6}
    pos = position(chars, phase="chief", chief="red")
    result = run(pos, [("red", "vote", "red"), ("blue", "vote", "blue")], dice=[6, 6, 1, 1])
    assert result["ok"], result["error"]
    assert [e["chief"] for e in events(result, "chief_elected")] == ["red"]
    check(
        result,
        [
            ["state.chief", "==", "red"],
            ["state.chief_elected", "==", True],
            ["state.dice.seen_by", "==", ["red"]],
            ["pending_kinds", "==", ["red:announce"]],
            ["pending[0].dice", "==", [6, 6, 1, 1]],
        ],
    )


@pytest.mark.rule("B-2", "DEF-5b")
def test_single_colour_at_security_is_elected_without_a_vote() -> None:
    """B-2/VOT-5: only one colour at 5 -> it wins without a vote (no Threat window) and is elected."""
    chars = {p: dict(mine) for p, mine in BASE.items()}
    chars["green"] = {"pinup": 5, "gunman": 5}
    pos = position(chars, phase="chief", chief="red", hands={"green": ["threat"], "red": ["threat"]})
    result = run(pos, dice=[1, 1, 1, 1])
    assert not events(result, "votes_revealed")
    check(
        result,
        [
            ["state.chief", "==", "green"],
            ["state.chief_elected", "==", True],
            ["state.hands.green", "==", ["threat"]],
            ["pending_kinds", "==", ["green:announce"]],
        ],
    )


@pytest.mark.rule("B-2", "DEF-5", "DEF-6")
def test_chief_vote_threat_window_is_for_the_players_at_security() -> None:
    """B-2: a Threat window for the voters at 5 (from the Chief) precedes the vote; Threats add weight."""
    chars = {p: dict(mine) for p, mine in BASE.items()}
    chars["yellow"] = {"pinup": 6, "gunman": 5}
    chars["blue"] = {"pinup": 5, "tough": 6}
    pos = position(
        chars,
        phase="chief",
        chief="red",
        hands={"red": ["hardware"], "blue": ["threat", "threat"], "green": ["threat"]},
    )
    result = run(pos)
    check(
        result,
        [
            ["pending_kinds", "==", ["blue:cards"]],
            ["pending[0].window", "==", "chief"],
            ["pending[0].location", "==", 5],
            ["pending[0].playable", "==", ["threat"]],
        ],
    )
    answers = [("blue", "cards", [{"card": "threat"}, {"card": "threat"}])]
    result = run(pos, answers)
    # blue: Pin-Up 1 + 2 Threats = 3; yellow: Gunman 1 + 1 = 2.
    check(
        result,
        [
            ["pending_kinds", "==", ["yellow:vote", "blue:vote"]],
            ["pending[player=blue].weight", "==", 3],
            ["pending[player=yellow].weight", "==", 2],
        ],
    )
    result = run(pos, [*answers, ("yellow", "vote", "yellow"), ("blue", "vote", "blue")], dice=[3, 3, 3, 3])
    assert result["ok"], result["error"]
    check(
        result,
        [
            ["state.chief", "==", "blue"],
            ["state.chief_elected", "==", True],
            ["state.hands.red", "==", ["hardware"]],
            ["state.hands.green", "==", ["threat"]],
            ["state.hands.blue", "==", []],
        ],
    )


@pytest.mark.rule("B-3", "DEF-7", "C-2", "RND-1")
def test_chief_revote_tie_keeps_the_incumbent_not_elected() -> None:
    """B-3: a second tie at 5 -> the incumbent stays Chief, not elected (even if elected last round); no dice seen."""
    chars = {p: dict(mine) for p, mine in BASE.items()}
    chars["yellow"] = {"pinup": 5, "gunman": 6}
    chars["blue"] = {"pinup": 5, "tough": 6}
    pos = position(chars, phase="truck", chief="red", elected=True, deck=[])
    first = [("yellow", "vote", "yellow"), ("blue", "vote", "blue")]
    result = run(pos, first)
    check(
        result,
        [
            ["pending_kinds", "==", ["red:vote", "yellow:vote", "blue:vote", "green:vote"]],
            ["pending[0].revote", "==", True],
            ["pending[player=red].options", "set==", ["yellow", "blue"]],
        ],
    )
    second = [
        ("red", "vote", "yellow"),
        ("yellow", "vote", "yellow"),
        ("blue", "vote", "blue"),
        ("green", "vote", "blue"),
    ]
    result = run(pos, first + second, dice=[1, 3, 5, 6])
    assert result["ok"], result["error"]
    assert not events(result, "chief_elected")
    check(
        result,
        [
            ["state.chief", "==", "red"],
            ["state.chief_elected", "==", False],
            ["state.dice", "==", {"values": [1, 3, 5, 6], "seen_by": []}],
            ["pending_kinds", "==", ["red:destination", "yellow:destination", "blue:destination", "green:destination"]],
        ],
    )
    assert all("dice" not in r for r in result["pending"])


@pytest.mark.rule("B-4", "C-3", "R-29", "DEF-6")
def test_new_chief_leads_the_camera_window_and_the_destinations() -> None:
    """B-4: after yellow is elected the camera window runs from yellow (blue before red), then yellow announces."""
    chars = {p: dict(mine) for p, mine in BASE.items()}
    chars["yellow"] = {"pinup": 5, "gunman": 6}
    pos = position(chars, phase="chief", chief="red", hands={"red": ["camera"], "blue": ["camera"]})
    result = run(pos, dice=[1, 1, 3, 6])
    check(
        result,
        [
            ["state.chief", "==", "yellow"],
            ["pending_kinds", "==", ["blue:cards"]],
            ["pending[0].window", "==", "arrival"],
        ],
    )
    result = run(pos, [("blue", "cards", [])], dice=[1, 1, 3, 6])
    assert kinds(result) == ["red:cards"]
    result = run(pos, [("blue", "cards", []), ("red", "cards", [{"card": "camera"}])], dice=[1, 1, 3, 6])
    check(
        result,
        [
            ["state.dice.seen_by", "set==", ["yellow", "red"]],
            ["pending_kinds", "==", ["yellow:announce"]],
            ["pending[0].dice", "==", [1, 1, 3, 6]],
        ],
    )
    result = run(
        pos,
        [("blue", "cards", []), ("red", "cards", [{"card": "camera"}]), ("yellow", "announce", 1)],
        dice=[1, 1, 3, 6],
    )
    check(
        result,
        [
            ["pending_kinds", "==", ["blue:destination", "green:destination", "red:destination"]],
            ["pending[player=red].dice", "==", [1, 1, 3, 6]],
        ],
    )
    assert "dice" not in result["pending"][0]
    assert "dice" not in result["pending"][1]


@pytest.mark.rule("B-4", "H-3", "C-3")
def test_new_chief_leads_the_batched_camera_window() -> None:
    """B-4/H-3: batched requests are listed in seating order from the new Chief."""
    chars = {p: dict(mine) for p, mine in BASE.items()}
    chars["yellow"] = {"pinup": 5, "gunman": 6}
    pos = position(chars, phase="chief", chief="red", hands={"red": ["camera"], "blue": ["camera"]})
    result = run(pos, dice=[1, 1, 3, 6], options={"turn_order": "batched"})
    assert kinds(result) == ["blue:cards", "red:cards"]


# --- B-C: zombie dice and cameras -------------------------------------------------------------------------------

CAMS = {
    "red": {"pinup": 1, "tough": 3},
    "yellow": {"pinup": 6, "gunman": 6},
    "blue": {"pinup": 3, "tough": 6},
    "green": {"pinup": 4, "gunman": 1},
}


@pytest.mark.rule("C-1", "C-3", "R-12", "DEF-6", "R-29")
@pytest.mark.parametrize(("chief", "order"), [("red", ["yellow", "green"]), ("blue", ["green", "yellow"])])
def test_cameras_once_around_from_the_chief_only_for_holders_anywhere(chief: str, order: list[str]) -> None:
    """C-3: once around from the Chief, only camera holders, wherever they stand; a camera shows the dice."""
    pos = position(
        CAMS,
        phase="arrival",
        chief=chief,
        hands={"yellow": ["camera"], "blue": ["threat"], "green": ["camera", "axe"]},
    )
    result = run(pos, dice=[1, 3, 6, 6])
    rolled = events(result, "zombie_dice_rolled")
    assert [e["to"] for e in rolled] == [[]]  # C-1: secret, and an unelected Chief does not look
    check(
        result,
        [
            ["state.phase", "==", "arrival"],
            ["state.dice", "==", {"values": [1, 3, 6, 6], "seen_by": []}],
            ["pending_kinds", "==", [f"{order[0]}:cards"]],
            ["pending[0].window", "==", "arrival"],
            ["pending[0].location", "==", None],
            ["pending[0].playable", "==", ["camera"]],
        ],
    )
    answers: list[Any] = [(order[0], "cards", [{"card": "camera"}] if order[0] == "yellow" else [])]
    result = run(pos, answers, dice=[1, 3, 6, 6])
    assert kinds(result) == [f"{order[1]}:cards"]
    answers.append((order[1], "cards", [{"card": "camera"}] if order[1] == "yellow" else []))
    result = run(pos, answers, dice=[1, 3, 6, 6])
    assert result["ok"], result["error"]
    dest = [p for p in clockwise(FOUR, chief)]
    check(
        result,
        [
            ["state.dice.seen_by", "==", ["yellow"]],
            ["state.hands.yellow", "==", []],
            ["state.hands.green", "==", ["camera", "axe"]],
            ["pending_kinds", "==", [f"{p}:destination" for p in dest]],
            ["pending[player=yellow].dice", "==", [1, 3, 6, 6]],
        ],
    )
    for req in result["pending"]:
        if req["player"] != "yellow":
            assert "dice" not in req
    seen = events(result, "dice_seen")
    assert len(seen) == 1
    assert seen[0]["to"] == ["yellow"]
    assert seen[0]["values"] == [1, 3, 6, 6]


@pytest.mark.rule("C-3", "H-3")
def test_batched_camera_window_asks_all_holders_at_once() -> None:
    """C-3/H-3: batched, every camera holder is asked at once, in order from the Chief."""
    pos = position(CAMS, phase="arrival", chief="red", hands={"yellow": ["camera"], "green": ["camera"]})
    result = run(pos, dice=[1, 3, 6, 6], options={"turn_order": "batched"})
    assert kinds(result) == ["yellow:cards", "green:cards"]
    result = run(
        pos,
        [("yellow", "cards", []), ("green", "cards", [{"card": "camera"}])],
        dice=[1, 3, 6, 6],
        options={"turn_order": "batched"},
    )
    check(result, [["state.dice.seen_by", "==", ["green"]], ["pending[player=green].dice", "==", [1, 3, 6, 6]]])


@pytest.mark.rule("C-3", "DEF-6")
def test_eliminated_player_is_skipped_in_the_camera_window() -> None:
    """DEF-6/ELM-1: a player with no characters is skipped (cannot play cards)."""
    chars = dict(CAMS)
    chars["green"] = {}
    chars["red"] = {"pinup": 1, "tough": 3, "gunman": 4}
    pos = position(chars, phase="arrival", chief="red", hands={"green": ["camera"], "blue": ["camera"]})
    result = run(pos, dice=[1, 3, 6, 6])
    assert kinds(result) == ["blue:cards"]
    result = run(pos, [("blue", "cards", [])], dice=[1, 3, 6, 6])
    assert kinds(result) == ["red:destination", "yellow:destination", "blue:destination"]


@pytest.mark.rule("R-8", "DEF-1", "C-1")
@pytest.mark.parametrize(
    ("players", "closed", "roll", "placed"),
    [
        # 4 players, Megatoys condemned: dice on 2 and 3 are ignored.
        (FOUR, [2, 3], [2, 3, 1, 6], {1: 1, 6: 1}),
        # 5 players, Security condemned: dice on 5 ignored, the die on open Cachou counts.
        (FIVE, [5], [2, 5, 5, 1], {1: 1, 2: 1}),
    ],
)
def test_zombie_dice_on_closed_locations_are_ignored(
    players: list[str], closed: list[int], roll: list[int], placed: dict[int, int]
) -> None:
    """R-8/E-2: a zombie die showing any closed location places nothing; closed stays closed (DEF-1)."""
    chars = {
        "red": {"pinup": 1, "tough": 6},
        "yellow": {"pinup": 6, "gunman": 6},
        "blue": {"pinup": 4, "tough": 4},
        "green": {"pinup": 1, "gunman": 6},
        "black": {"pinup": 4, "gunman": 6},
    }
    chars = {p: chars[p] for p in players}
    pos = position(chars, phase="arrival", chief="red", closed=closed)
    answers = [(p, "destination", 4 if p != "blue" else 1) for p in players]
    result = run(pos, answers, dice=roll)
    assert result["ok"], result["error"]
    check(
        result,
        [
            ["state.phase", "==", "moves"],
            ["state.closed", "==", closed],
            ["state.zombies", "==", {str(loc): placed.get(loc, 0) for loc in range(1, 7)}],
        ],
    )
    revealed = events(result, "zombie_dice_revealed")
    assert revealed[0]["values"] == roll
    assert sorted(revealed[0]["ignored"]) == sorted(d for d in roll if d in closed)


# --- B-RND: the round -------------------------------------------------------------------------------------------

ROUND = {
    "red": {"pinup": 4, "tough": 1},
    "yellow": {"pinup": 6, "gunman": 6},
    "blue": {"pinup": 5, "tough": 6},
    "green": {"pinup": 3, "gunman": 3, "tough": 6},
}
ROUND_ANSWERS: list[Any] = [
    # A: red alone at the Parking searches (4 cards: the deck keeps one).
    ("red", "truck", {"keep": "sprint", "give": "axe", "to": "yellow"}),
    # B: blue alone at 5 is elected; C: dice 2,2,2,2 all on closed Cachou; D: blue announces, the others choose.
    ("blue", "announce", 3),
    ("green", "destination", 1),
    ("red", "destination", 5),
    ("yellow", "destination", 4),
    # E: from blue clockwise.
    ("blue", "move", {"character": "pinup"}),
    ("green", "move", {"character": "gunman"}),
    ("red", "move", {"character": "tough"}),
    ("yellow", "move", {"character": "pinup"}),
]


@pytest.mark.rule("RND-1", "RND-2", "B-4", "DEF-7", "R-8")
def test_a_round_runs_phases_a_to_f_in_order_then_the_next_round() -> None:
    """RND-1: A truck, B chief, C arrival, D destinations, E moves, F attack, then the next round starts."""
    pos = position(ROUND, phase="truck", chief="red", deck=["sprint", "axe", "bat"])
    result = run(pos, ROUND_ANSWERS, dice=[2, 2, 2, 2])
    assert result["ok"], result["error"]
    order = [
        e["type"]
        for e in result["events"]
        if e["type"]
        in {
            "round_started",
            "truck_searched",
            "chief_elected",
            "zombie_dice_rolled",
            "destination_announced",
            "destinations_revealed",
            "zombie_dice_revealed",
            "moved",
            "extra_zombies",
        }
    ]
    assert order == [
        "round_started",
        "truck_searched",
        "chief_elected",
        "zombie_dice_rolled",
        "destination_announced",
        "destinations_revealed",
        "zombie_dice_revealed",
        "moved",
        "moved",
        "moved",
        "moved",
        "extra_zombies",
        "round_started",
    ]
    # B-4: moves from the new Chief blue, clockwise.
    assert [e["player"] for e in events(result, "moved")] == ["blue", "green", "red", "yellow"]
    # F-1: after the moves 6 holds 3 characters (unique maximum) -> +1; Pin-Ups tie 2-2 (3, 4) -> none.
    # 1 zombie against min(5, 4) = 4 at the Supermarket: no attack. 9 characters left: next round.
    check(
        result,
        [
            ["state.round", "==", 4],
            ["state.phase", "==", "truck"],
            ["state.chief", "==", "blue"],
            ["state.chief_elected", "==", False],
            ["state.zombies", "==", {"1": 0, "2": 0, "3": 0, "4": 0, "5": 0, "6": 1}],
            ["state.deck", "==", ["bat"]],
            [
                "state.characters",
                "==",
                {
                    "red": {"pinup": 4, "tough": 5},
                    "yellow": {"pinup": 4, "gunman": 6},
                    "blue": {"pinup": 3, "tough": 6},
                    "green": {"pinup": 3, "gunman": 1, "tough": 6},
                },
            ],
            # Round 4, phase A: red and yellow at the Parking vote for the last card (order from blue).
            ["pending_kinds", "==", ["red:vote", "yellow:vote"]],
        ],
    )


@pytest.mark.rule("RND-2")
def test_characters_move_only_in_phase_e() -> None:
    """RND-2: through phases A to D nobody changes location; in E each player moves exactly one character."""
    pos = position(ROUND, phase="truck", chief="red", deck=["sprint", "axe", "bat"])
    before_moves = run(pos, ROUND_ANSWERS[:5], dice=[2, 2, 2, 2])
    assert before_moves["ok"], before_moves["error"]
    assert before_moves["state"]["phase"] == "moves"
    assert before_moves["state"]["characters"] == ROUND
    after = run(pos, ROUND_ANSWERS, dice=[2, 2, 2, 2])["state"]["characters"]
    for p, mine in ROUND.items():
        changed = [c for c in mine if after[p][c] != mine[c]]
        assert len(changed) == 1, (p, changed)


# --- B-DEF: strength, thresholds, presence ----------------------------------------------------------------------


@pytest.mark.rule("DEF-3", "A2")
@pytest.mark.parametrize(("zombies", "attacked"), [(2, False), (3, True)])
def test_tough_guy_counts_two_for_strength(zombies: int, attacked: bool) -> None:
    """DEF-3: Tough Guy 2 + Pin-Up 1 = strength 3: 2 zombies are held off, 3 attack."""
    # F-1: 2 characters at 1, 3 and 6 (tie), one Pin-Up each at 1, 3, 6 (tie): no extra zombie.
    chars = {
        "red": {"tough": 3},
        "yellow": {"pinup": 3},
        "blue": {"pinup": 6, "tough": 6},
        "green": {"pinup": 1, "gunman": 1},
    }
    result = run(position(chars, zombies={3: zombies}))
    assert result["ok"], result["error"]
    if attacked:
        check(
            result,
            [
                ["pending_kinds", "==", ["red:vote", "yellow:vote"]],
                ["pending[0].location", "==", 3],
                ["state.zombies.3", "==", 3],
            ],
        )
    else:
        assert not events(result, "attack")
        check(result, [["state.zombies.3", "==", 2], ["state.round", "==", 4], ["state.characters", "==", chars]])


@pytest.mark.rule("DEF-3", "DEF-5")
def test_hidden_character_still_counts_for_strength() -> None:
    """DEF-3: hidden characters count toward strength: Hidden Pin-Up + Axe leaves 2 zombies against strength 3."""
    # F-1: 2 characters at 3, 6, 1, 5 (tie); one Pin-Up at each (tie): no extra zombie.
    chars = {
        "red": {"pinup": 3, "tough": 3},
        "yellow": {"pinup": 6, "gunman": 6},
        "blue": {"pinup": 1, "tough": 1},
        "green": {"pinup": 5, "gunman": 5},
    }
    pos = position(chars, zombies={3: 3}, hands={"red": ["hidden", "axe"]})
    result = run(pos)
    check(result, [["pending_kinds", "==", ["red:cards"]], ["pending[0].location", "==", 3]])
    result = run(pos, [("red", "cards", [{"card": "hidden", "character": "pinup"}, {"card": "axe"}])])
    assert result["ok"], result["error"]
    # 3 - 1 = 2 zombies < strength 3 (hidden Pin-Up 1 + Tough Guy 2): held, nobody eaten, the zombies stay.
    assert [e["location"] for e in events(result, "attack_held")] == [3]
    assert not events(result, "eaten")
    check(result, [["state.characters.red", "==", {"pinup": 3, "tough": 3}], ["state.zombies.3", "==", 2]])


@pytest.mark.rule("DEF-3")
@pytest.mark.parametrize(("hardware", "held"), [(1, False), (2, True)])
def test_each_hardware_adds_one_strength(hardware: int, held: bool) -> None:
    """DEF-3: Pin-Up + Gunman = 2; 3 zombies get in against 2 + 1 Hardware, not against 2 + 2."""
    chars = {
        "red": {"pinup": 1, "gunman": 1},
        "yellow": {"pinup": 3, "gunman": 3},
        "blue": {"pinup": 6, "tough": 6},
        "green": {"pinup": 5, "tough": 5},
    }
    pos = position(chars, zombies={1: 3}, hands={"red": ["hardware", "hardware"]})
    result = run(pos, [("red", "cards", [{"card": "hardware"}] * hardware)])
    assert result["ok"], result["error"]
    if held:
        assert [e["location"] for e in events(result, "attack_held")] == [1]
        check(result, [["state.characters.red", "==", {"pinup": 1, "gunman": 1}], ["state.zombies.1", "==", 3]])
    else:
        check(
            result,
            [
                ["pending_kinds", "==", ["red:victim"]],
                ["pending[0].options", "set==", ["pinup", "gunman"]],
                ["state.hands.red", "==", ["hardware"]],
            ],
        )


# Supermarket: red and yellow Pin-Up + Tough Guy (strength 6); Megatoys: blue x3 + green Pin-Up (strength 5).
# F-1: 4 characters at 3 and at 6 (tie); 2 Pin-Ups at 3 and at 6 (tie): no extra zombie.
SUPER = {
    "red": {"pinup": 6, "tough": 6},
    "yellow": {"pinup": 6, "tough": 6},
    "blue": {"pinup": 3, "tough": 3, "gunman": 3},
    "green": {"pinup": 3},
}


@pytest.mark.rule("DEF-4", "A1")
def test_four_zombies_always_get_into_the_supermarket_but_not_elsewhere() -> None:
    """DEF-4: threshold(6) = min(6, 4) = 4: 4 zombies attack; at 3 the threshold is the full strength 5."""
    result = run(position(SUPER, zombies={3: 4, 6: 4}))
    assert result["ok"], result["error"]
    assert [e["location"] for e in events(result, "attack")] == [6]
    check(
        result,
        [
            ["pending_kinds", "==", ["red:vote", "yellow:vote"]],
            ["pending[0].location", "==", 6],
            ["state.zombies.3", "==", 4],
        ],
    )


@pytest.mark.rule("DEF-4")
def test_three_zombies_are_held_at_a_strong_supermarket() -> None:
    """DEF-4: 3 zombies < min(6, 4) = 4: no attack at the Supermarket; the zombies stay."""
    result = run(position(SUPER, zombies={6: 3}))
    assert result["ok"], result["error"]
    assert not events(result, "attack")
    check(result, [["state.zombies.6", "==", 3], ["state.characters", "==", SUPER], ["state.round", "==", 4]])


@pytest.mark.rule("DEF-4")
def test_every_zombie_feeds_at_the_parking_whatever_the_strength() -> None:
    """DEF-4: the Parking has no threshold: 1 zombie eats even a Tough Guy (strength 2)."""
    # F-1: 1 at 4 and 1, 2 at 3, 6, 5 (tie); one Pin-Up at 1, 3, 6, 5 (tie): no extra zombie.
    chars = {
        "red": {"tough": 4, "pinup": 1},
        "yellow": {"pinup": 3, "tough": 3},
        "blue": {"pinup": 6, "tough": 6},
        "green": {"pinup": 5, "tough": 5},
    }
    result = run(position(chars, zombies={4: 1}, round=3))
    assert result["ok"], result["error"]
    eaten = events(result, "eaten")
    assert [(e["player"], e["character"], e["location"]) for e in eaten] == [("red", "tough", 4)]
    check(result, [["state.characters.red", "==", {"pinup": 1}], ["state.zombies.4", "==", 0]])


@pytest.mark.rule("DEF-5", "DEF-5b", "DEF-3")
def test_hidden_colour_is_present_but_not_an_eligible_target() -> None:
    """DEF-5: red (hidden) is present and could play; DEF-5b: only yellow and blue may be voted for."""
    # F-1: 3 characters at 3 and 6 (tie); Pin-Ups 3 at 3 vs 1 at 6 -> +1 zombie at 3: 2 + 1 = 3 = strength 3.
    chars = {
        "red": {"pinup": 3},
        "yellow": {"pinup": 3},
        "blue": {"pinup": 3},
        "green": {"pinup": 6, "tough": 6, "gunman": 6},
    }
    pos = position(chars, zombies={3: 2}, hands={"red": ["hidden"], "green": ["axe"]})
    result = run(pos)
    check(result, [["state.zombies.3", "==", 3], ["pending_kinds", "==", ["red:cards"]]])
    result = run(pos, [("red", "cards", [{"card": "hidden", "character": "pinup"}])])
    assert result["ok"], result["error"]
    # Strength still 3 (hidden counts): attack. Red has weight 0 and is not asked; green (not at 3) never asked.
    check(
        result,
        [
            ["pending_kinds", "==", ["yellow:vote", "blue:vote"]],
            ["pending[0].options", "set==", ["yellow", "blue"]],
            ["pending[1].options", "set==", ["yellow", "blue"]],
            ["state.hands.green", "==", ["axe"]],
        ],
    )


@pytest.mark.rule("DEF-6", "B-5", "DEF-7")
def test_chief_eliminated_passes_to_the_next_player_clockwise_with_characters() -> None:
    """B-5: red (Chief) is eaten; yellow has no characters, so blue becomes Chief, not elected, at once."""
    # F-1: 1 at 1, 3 at 3, 2 at 6 -> +1 at 3; Pin-Ups 1 at 1, 2 at 3 -> +1 at 3: 1 + 2 = 3 = strength 3 at 3.
    chars = {
        "red": {"pinup": 1},
        "yellow": {},
        "blue": {"pinup": 3, "gunman": 3},
        "green": {"pinup": 3, "tough": 6, "gunman": 6},
    }
    pos = position(chars, chief="red", elected=True, zombies={1: 1, 3: 1})
    result = run(pos)
    assert result["ok"], result["error"]
    assert [e["chief"] for e in events(result, "chief_passed")] == ["blue"]
    check(
        result,
        [
            ["state.chief", "==", "blue"],
            ["state.chief_elected", "==", False],
            ["state.characters.red", "==", {}],
            ["state.eliminated", "==", {"yellow": 2, "red": 3}],
            ["pending_kinds", "==", ["blue:vote", "green:vote"]],
            ["pending[0].location", "==", 3],
        ],
    )


@pytest.mark.rule("B-5", "DEF-6", "B-4")
def test_passed_chief_leads_the_next_round() -> None:
    """B-5: the Chief role passed to blue stays with blue next round; order starts from blue."""
    # F-1: 1 at 1, 3 at 3, 3 at 6 (tie); Pin-Ups 1, 1, 1 (tie): no extra. Red eaten at 1; 6 left: next round.
    chars = {
        "red": {"pinup": 1},
        "yellow": {},
        "blue": {"pinup": 3, "tough": 3, "gunman": 3},
        "green": {"pinup": 6, "tough": 6, "gunman": 6},
    }
    result = run(position(chars, chief="red", zombies={1: 1}))
    assert result["ok"], result["error"]
    check(
        result,
        [
            ["state.round", "==", 4],
            ["state.chief", "==", "blue"],
            ["state.chief_elected", "==", False],
            ["pending_kinds", "==", ["blue:destination", "green:destination"]],
        ],
    )


@pytest.mark.rule("B-5")
def test_chief_stays_when_nobody_has_characters_left() -> None:
    """B-5 [R]: if no player has characters left, the Chief does not change."""
    # F-1: the Parking has the only character and the only Pin-Up: +2 -> 3 zombies; red is eaten.
    chars: dict[str, dict[str, int]] = {"red": {"pinup": 4}, "yellow": {}, "blue": {}, "green": {}}
    result = run(position(chars, chief="red", zombies={4: 1}))
    assert result["ok"], result["error"]
    assert all(e["chief"] == "red" for e in events(result, "chief_passed"))
    check(result, [["state.chief", "==", "red"], ["over", "==", True], ["state.characters.red", "==", {}]])


@pytest.mark.rule("A5")
@pytest.mark.parametrize(("n", "over"), [(6, True), (5, False)])
def test_game_end_count_depends_on_six_players(n: int, over: bool) -> None:
    """A5: the game ends with <= 6 characters left in a 6-player game, <= 4 otherwise."""
    chars6 = {
        "red": {"tough": 1},
        "yellow": {"gunman": 1},
        "blue": {"tough": 3},
        "green": {"gunman": 3},
        "black": {"tough": 6},
        "white": {"gunman": 6},
    }
    if n == 5:
        chars = {p: chars6[p] for p in FIVE[:4]}
        chars["black"] = {"tough": 6, "gunman": 6}
    else:
        chars = chars6
    # F-1: 2 characters at 1, 3 and 6 (tie); no Pin-Up: no extra zombie, no attack. 6 characters left.
    result = run(position(chars, deck=[]))
    assert result["ok"], result["error"]
    assert result["over"] is over
    if not over:
        assert result["state"]["round"] == 4
