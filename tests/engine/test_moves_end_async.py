"""Phases D and E, the end of the game, asynchronous play (H-1 to H-6) and the options of section G.

Every expected value is worked out by hand from RULES.md; the comments show the arithmetic.
Capacities (A1): 1 Restroom 3, 2 Cachou 4, 3 Megatoys 4, 4 Parking unlimited, 5 Security HQ 3, 6 Supermarket 6.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine import Config, Game, ScenarioError, new_game, spectator_view, view

from .support import FIVE, FOUR, SIX, THREE, check, events, kinds, position, run, scenario

# A 4-player layout (Cachou closed). Counts: 1 = 3 (full), 3 = 4 (full), 4 = 1, 5 = 0, 6 = 4 of 6.
BASE = {
    "red": {"pinup": 1, "tough": 3, "gunman": 6},
    "yellow": {"pinup": 1, "tough": 1, "gunman": 3},
    "blue": {"pinup": 6, "tough": 6, "gunman": 3},
    "green": {"pinup": 3, "tough": 6, "gunman": 4},
}
ALL_OPEN_4 = [1, 3, 4, 5, 6]


def arrival(characters: dict[str, dict[str, int]] | None = None, **kw: Any) -> dict[str, Any]:
    """A position at the start of phase C (the zombie dice are rolled from ``dice=``)."""
    return position(characters or BASE, phase="arrival", **kw)


def game_at(
    pos: dict[str, Any],
    *,
    options: dict[str, Any] | None = None,
    dice: list[int] | None = None,
    standing_orders: dict[str, Any] | None = None,
) -> Game:
    """A Game object (Python API) started from a position."""
    sc = scenario(pos, options=options, dice=dice, standing_orders=standing_orders)
    del sc["answers"]
    return Game(Config.from_json(sc))


def pending_kinds(game: Game) -> list[str]:
    return [f"{r.player}:{r.kind}" for r in game.pending()]


def by_type(game_or_events: Any, type_: str) -> list[dict[str, Any]]:
    evs = game_or_events.events if isinstance(game_or_events, Game) else game_or_events
    return [e for e in evs if e["type"] == type_]


def dests(*pairs: tuple[str, int]) -> list[tuple[str, str, int]]:
    return [(p, "destination", loc) for p, loc in pairs]


def mv(player: str, character: str, **extra: Any) -> tuple[str, str, dict[str, Any]]:
    return (player, "move", {"character": character, **extra})


BOTH = pytest.mark.parametrize("turn_order", ["strict", "batched"])


# =============================================================================================================
# D. Choose destinations
# =============================================================================================================


@BOTH
@pytest.mark.rule("D-1", "R-28", "H-3")
def test_elected_chief_announces_first_in_a_window_of_its_own(turn_order: str) -> None:
    """D-1/H-3: an elected Chief announces alone first, publicly; then the others choose in one window."""
    pos = arrival(elected=True)
    first = run(pos, [], dice=[6, 6, 6, 6], options={"turn_order": turn_order})
    check(
        first, [["ok", "==", True], ["pending_kinds", "==", ["red:announce"]], ["pending[0].options", "==", ALL_OPEN_4]]
    )
    after = run(pos, [("red", "announce", 5)], dice=[6, 6, 6, 6], options={"turn_order": turn_order})
    check(after, [["pending_kinds", "==", ["yellow:destination", "blue:destination", "green:destination"]]])
    announced = events(after, "destination_announced")
    assert len(announced) == 1
    assert announced[0]["player"] == "red" and announced[0]["location"] == 5
    assert "to" not in announced[0] or set(announced[0]["to"]) >= set(FOUR), "the announcement is public"


@pytest.mark.rule("D-1", "R-28", "E-1")
def test_announced_destination_is_binding_and_seen_by_everyone() -> None:
    """R-28: the elected Chief's announcement is a public, binding declaration used as its destination."""
    pos = arrival(elected=True)
    g = game_at(pos, dice=[6, 6, 6, 6])
    g.answer("red", "announce", 5)
    for colour in ("yellow", "blue", "green"):
        seen = [e for e in view(g, colour)["events"] if e["type"] == "destination_announced"]
        assert [(e["player"], e["location"]) for e in seen] == [("red", 5)]
    g.answer("yellow", "destination", 3)
    g.answer("blue", "destination", 1)
    g.answer("green", "destination", 1)
    revealed = by_type(g, "destinations_revealed")
    assert revealed[0]["destinations"] == {"red": 5, "yellow": 3, "blue": 1, "green": 1}
    assert pending_kinds(g) == ["red:move"]
    assert g.pending()[0].to_json()["destination"] == 5


@BOTH
@pytest.mark.rule("D-1", "D-2")
def test_unelected_chief_chooses_secretly_with_everyone(turn_order: str) -> None:
    """D-1: a Chief not elected this round chooses at the same time as everyone else."""
    result = run(arrival(elected=False), [], dice=[6, 6, 6, 6], options={"turn_order": turn_order})
    check(
        result,
        [
            ["pending_kinds", "==", ["red:destination", "yellow:destination", "blue:destination", "green:destination"]],
            ["state.phase", "==", "destinations"],
        ],
    )
    assert events(result, "destination_announced") == []


@pytest.mark.rule("D-2", "D-3")
def test_destination_options_are_every_open_location_full_ones_included() -> None:
    """D-2/D-3: a destination is one open location number; full locations (1 and 3 here) are allowed."""
    result = run(arrival(), [], dice=[6, 6, 6, 6])
    for req in result["pending"]:
        assert req["options"] == ALL_OPEN_4, req  # 1 and 3 are full, 2 is closed
    # Location 5 condemned earlier: no longer a destination.
    closed5 = run(arrival(closed=[2, 5]), [], dice=[6, 6, 6, 6])
    for req in closed5["pending"]:
        assert req["options"] == [1, 3, 4, 6]
    # Five players: Cachou is open and may be chosen.
    five = {**BASE, "black": {"pinup": 2, "tough": 5, "gunman": 5}}
    result5 = run(arrival(five), [], dice=[6, 6, 6, 6])
    assert [r["player"] for r in result5["pending"]] == FIVE
    for req in result5["pending"]:
        assert req["options"] == [1, 2, 3, 4, 5, 6]


@pytest.mark.rule("D-2", "D-3")
def test_destination_answer_must_be_an_open_location_number() -> None:
    """D-2: players pick a location number, not a character; a closed location is refused."""
    character = run(arrival(), [("red", "destination", {"character": "pinup"})], dice=[6, 6, 6, 6])
    check(character, [["ok", "==", False], ["error.answer", "==", 0], ["pending_kinds", "contains", "red:destination"]])
    closed = run(arrival(), [("red", "destination", 2)], dice=[6, 6, 6, 6])
    check(closed, [["ok", "==", False], ["error.answer", "==", 0]])
    assert closed["error"]["message"]


@pytest.mark.rule("D-4", "R-15")
def test_cannot_choose_the_location_where_all_own_characters_stand() -> None:
    """D-4/R-15: a location holding all of the player's characters is not a legal destination."""
    chars = {
        "red": {"pinup": 6, "tough": 6, "gunman": 6},
        "yellow": {"pinup": 1, "tough": 6, "gunman": 3},
        "blue": {"pinup": 5, "tough": 5, "gunman": 5},
        "green": {"pinup": 3, "tough": 4, "gunman": 4},
    }
    result = run(arrival(chars), [], dice=[1, 1, 1, 1])
    check(
        result,
        [
            ["pending[player=red].options", "==", [1, 3, 4, 5]],
            ["pending[player=yellow].options", "==", [1, 3, 4, 5, 6]],  # split: 6 and 1 stay legal
            ["pending[player=blue].options", "==", [1, 3, 4, 6]],
            ["pending[player=green].options", "==", [1, 3, 4, 5, 6]],  # not all at the Parking
        ],
    )
    refused = run(arrival(chars), [("red", "destination", 6)], dice=[1, 1, 1, 1])
    check(refused, [["ok", "==", False], ["error.answer", "==", 0]])


@pytest.mark.rule("R-19", "D-4", "E-2")
def test_player_with_no_legal_destination_skips_the_move() -> None:
    """R-19: all characters at the Parking and every other location closed: no destination, no move."""
    everyone = {p: {"pinup": 4, "tough": 4, "gunman": 4} for p in FOUR}
    pos = arrival(everyone, closed=[1, 2, 3, 5, 6])
    result = run(pos, [], dice=[1, 3, 5, 6])
    assert [e["player"] for e in events(result, "no_destination")] == FOUR
    assert events(result, "moved") == []
    # All dice show closed locations (ignored, E-2). F-1: Parking has the most characters (12) and Pin-Ups (4):
    # 2 zombies; every zombie feeds there, so the vote among the four colours is pending.
    check(
        result,
        [
            ["state.phase", "==", "attack"],
            ["state.zombies", "==", {"1": 0, "2": 0, "3": 0, "4": 2, "5": 0, "6": 0}],
            ["pending_kinds", "==", ["red:vote", "yellow:vote", "blue:vote", "green:vote"]],
        ],
    )


# A 5-player table with two zombie players (eliminated in round 2), Chief green:
# order from the Chief is green, black, red, yellow, blue; the zombie players in that order are black, blue.
FIVE_Z = {
    "red": {"pinup": 1, "tough": 3, "gunman": 6},
    "yellow": {"pinup": 1, "tough": 6, "gunman": 3},
    "blue": {},
    "green": {"pinup": 6, "tough": 5, "gunman": 4},
    "black": {},
}


@pytest.mark.rule("D-5", "H-3", "R-16")
def test_zombie_players_place_after_destinations_one_at_a_time_in_strict_order() -> None:
    """D-5/H-3 strict: at the end of D each zombie player places a zombie, in order from the Chief."""
    pos = arrival(FIVE_Z, chief="green", eliminated={"blue": 2, "black": 2})
    d = dests(("green", 3), ("red", 5), ("yellow", 5))
    start = run(pos, [], dice=[6, 6, 6, 6])
    check(start, [["pending_kinds", "==", ["green:destination", "red:destination", "yellow:destination"]]])
    after_d = run(pos, d, dice=[6, 6, 6, 6])
    check(after_d, [["pending_kinds", "==", ["black:zombie"]], ["pending[0].options", "==", [1, 2, 3, 4, 5, 6]]])
    after_black = run(pos, [*d, ("black", "zombie", 1)], dice=[6, 6, 6, 6])
    check(after_black, [["pending_kinds", "==", ["blue:zombie"]], ["state.zombies.1", "==", 1]])
    done = run(pos, [*d, ("black", "zombie", 1), ("blue", "zombie", 4)], dice=[6, 6, 6, 6])
    placed = events(done, "zombie_placed")
    assert [(e["player"], e["location"]) for e in placed] == [("black", 1), ("blue", 4)]
    assert all("to" not in e for e in placed), "zombie placement is public"
    # Dice 6,6,6,6 then the moves begin with the Chief; zombies 1 = 1, Parking = 1, 6 = 4.
    check(
        done,
        [
            ["state.phase", "==", "moves"],
            ["state.zombies.1", "==", 1],
            ["state.zombies.4", "==", 1],
            ["state.zombies.6", "==", 4],
            ["pending_kinds", "==", ["green:move"]],
        ],
    )


@pytest.mark.rule("D-5", "H-3")
def test_zombie_players_asked_at_once_in_batched_order_and_applied_from_the_chief() -> None:
    """H-3 batched: all zombie players are asked at once; placements are applied in order from the Chief."""
    pos = arrival(FIVE_Z, chief="green", eliminated={"blue": 2, "black": 2})
    opts = {"turn_order": "batched"}
    d = dests(("green", 3), ("red", 5), ("yellow", 5))
    after_d = run(pos, d, dice=[6, 6, 6, 6], options=opts)
    assert kinds(after_d) == ["black:zombie", "blue:zombie"]
    done = run(pos, [*d, ("blue", "zombie", 4), ("black", "zombie", 1)], dice=[6, 6, 6, 6], options=opts)
    assert [(e["player"], e["location"]) for e in events(done, "zombie_placed")] == [("black", 1), ("blue", 4)]
    check(done, [["state.zombies.1", "==", 1], ["state.zombies.4", "==", 1], ["state.phase", "==", "moves"]])


# 4 players, blue eliminated in round 2 (a zombie player in round 3); nobody at 5.
FOUR_Z = {
    "red": {"pinup": 1, "tough": 3, "gunman": 6},
    "yellow": {"pinup": 1, "tough": 6, "gunman": 3},
    "blue": {},
    "green": {"pinup": 6, "tough": 3, "gunman": 4},
}
FOUR_Z_D = dests(("red", 3), ("yellow", 3), ("green", 1))


@pytest.mark.rule("D-5", "R-8")
def test_zombie_player_places_at_open_locations_parking_included() -> None:
    """D-5: the zombie goes to an open location of the player's choice; the Parking is allowed, closed ones not."""
    pos = arrival(FOUR_Z, closed=[2, 5], eliminated={"blue": 2})
    asked = run(pos, FOUR_Z_D, dice=[1, 1, 1, 1])
    check(asked, [["pending_kinds", "==", ["blue:zombie"]], ["pending[0].options", "==", [1, 3, 4, 6]]])
    refused = run(pos, [*FOUR_Z_D, ("blue", "zombie", 5)], dice=[1, 1, 1, 1])
    check(refused, [["ok", "==", False], ["error.answer", "==", 3], ["pending_kinds", "==", ["blue:zombie"]]])
    placed = run(pos, [*FOUR_Z_D, ("blue", "zombie", 4)], dice=[1, 1, 1, 1])
    check(placed, [["ok", "==", True], ["state.zombies.4", "==", 1], ["state.zombies.1", "==", 4]])


@pytest.mark.rule("D-5", "R-16", "G")
@pytest.mark.parametrize(
    ("option", "eliminated_in", "asked"),
    [
        ("next_round", 2, True),  # eliminated last round: places this round
        ("next_round", 1, False),  # two rounds ago: only once, in the round after elimination
        ("every_round", 1, True),  # option: every later round
        ("every_round", 2, True),
    ],
)
def test_zombie_player_option_next_round_or_every_round(option: str, eliminated_in: int, asked: bool) -> None:
    """R-16/G zombie_player: next_round places once in the round after elimination; every_round every later round."""
    pos = arrival(FOUR_Z, eliminated={"blue": eliminated_in})
    result = run(pos, FOUR_Z_D, dice=[6, 6, 6, 6], options={"zombie_player": option})
    if asked:
        assert kinds(result) == ["blue:zombie"]
    else:
        assert result["state"]["phase"] == "moves"
        assert "blue:zombie" not in kinds(result)
        assert events(result, "zombie_placed") == []


# =============================================================================================================
# E. Move characters
# =============================================================================================================


@pytest.mark.rule("E-1", "H-1", "H-6")
def test_destinations_are_secret_until_revealed_together() -> None:
    """E-1/H-1: nobody sees another destination before the window closes; then all are revealed at once."""
    g = game_at(arrival(), dice=[6, 6, 6, 6])
    g.answer("red", "destination", 5)
    g.answer("yellow", "destination", 5)
    for colour in ("blue", "green"):
        assert view(g, colour)["destinations"] == {}
    for colour in ("blue", "green", "yellow"):
        v = view(g, colour)
        assert "red" not in v["destinations"]
        assert by_type(v["events"], "destinations_revealed") == []
    assert by_type(g, "destinations_revealed") == []
    g.answer("blue", "destination", 1)
    g.answer("green", "destination", 5)
    revealed = by_type(g, "destinations_revealed")
    assert len(revealed) == 1
    assert revealed[0]["destinations"] == {"red": 5, "yellow": 5, "blue": 1, "green": 5}
    for colour in FOUR:
        seen = by_type(view(g, colour)["events"], "destinations_revealed")
        assert seen and seen[0]["destinations"] == {"red": 5, "yellow": 5, "blue": 1, "green": 5}


@pytest.mark.rule("E-2", "R-8")
@pytest.mark.parametrize(
    ("closed", "dice", "expect"),
    [
        ([2], [2, 2, 5, 6], {"1": 0, "2": 0, "3": 0, "4": 0, "5": 1, "6": 1}),
        ([2, 5], [2, 5, 5, 6], {"1": 0, "2": 0, "3": 0, "4": 0, "5": 0, "6": 1}),  # 5 condemned earlier
        ([2], [1, 4, 4, 3], {"1": 1, "2": 0, "3": 1, "4": 2, "5": 0, "6": 0}),
    ],
)
def test_dice_place_one_zombie_each_and_closed_locations_are_ignored(
    closed: list[int], dice: list[int], expect: dict[str, int]
) -> None:
    """E-2: one zombie per die; a die showing Cachou (3-4 players) or a condemned location is ignored."""
    d = dests(("red", 5), ("yellow", 6), ("blue", 1), ("green", 1))
    if 5 in closed:
        d = dests(("red", 4), ("yellow", 6), ("blue", 1), ("green", 1))
    result = run(arrival(closed=closed), d, dice=dice)
    check(result, [["ok", "==", True], ["state.phase", "==", "moves"], ["state.zombies", "==", expect]])
    check(result, [["state.dice", "==", None]])
    revealed = events(result, "zombie_dice_revealed")
    assert len(revealed) == 1 and revealed[0]["values"] == dice
    assert "to" not in revealed[0]


# red 1,1,6  yellow 6,6,1  blue 6,6 ; green eliminated in round 1 (no zombie this round). Empty: 3, 4 and 5.
CONDEMN = {
    "red": {"pinup": 1, "tough": 1, "gunman": 6},
    "yellow": {"pinup": 6, "tough": 6, "gunman": 1},
    "blue": {"pinup": 6, "tough": 6},
    "green": {},
}


@pytest.mark.rule("E-3", "R-18", "A1")
def test_condemnation_of_an_empty_location_with_eight_zombies_after_the_dice() -> None:
    """E-3: an empty open location with >= 8 zombies after the dice closes for good and loses its zombies."""
    pos = arrival(CONDEMN, zombies={1: 7, 3: 6, 4: 9, 5: 6}, eliminated={"green": 1})
    d = dests(("red", 3), ("yellow", 3), ("blue", 3))
    # Dice 5,5,1,3: 5 -> 8 empty: condemned. 1 -> 8 but occupied: not. 3 -> 7: not. Parking 9: never condemned.
    result = run(pos, d, dice=[5, 5, 1, 3])
    check(
        result,
        [
            ["state.closed", "==", [2, 5]],
            ["state.zombies", "==", {"1": 8, "2": 0, "3": 7, "4": 9, "5": 0, "6": 0}],
            ["state.phase", "==", "moves"],
        ],
    )
    assert [e["location"] for e in events(result, "condemned")] == [5]


@pytest.mark.rule("E-3", "R-18")
def test_seven_zombies_do_not_condemn_and_an_occupied_location_never_is() -> None:
    """E-3: the threshold is 8 and the location must be empty."""
    pos = arrival(CONDEMN, zombies={5: 5, 6: 10}, eliminated={"green": 1})
    result = run(pos, dests(("red", 3), ("yellow", 3), ("blue", 3)), dice=[5, 5, 6, 1])
    check(result, [["state.closed", "==", [2]], ["state.zombies.5", "==", 7], ["state.zombies.6", "==", 11]])
    assert events(result, "condemned") == []


@pytest.mark.rule("E-3", "D-5")
@pytest.mark.parametrize(("zombie_at", "condemned"), [(5, True), (1, False)])
def test_zombie_player_zombie_counts_for_condemnation(zombie_at: int, condemned: bool) -> None:
    """E-3: zombies placed by zombie players in D count: 6 + 1 (zombie player) + 1 (die) = 8 condemns 5."""
    pos = arrival(FOUR_Z, zombies={5: 6}, eliminated={"blue": 2})
    result = run(pos, [*FOUR_Z_D, ("blue", "zombie", zombie_at)], dice=[5, 1, 1, 1])
    if condemned:
        check(result, [["state.closed", "==", [2, 5]], ["state.zombies.5", "==", 0], ["state.zombies.1", "==", 3]])
    else:
        check(result, [["state.closed", "==", [2]], ["state.zombies.5", "==", 7], ["state.zombies.1", "==", 4]])


@pytest.mark.rule("R-18", "E-4", "E-6", "H-3")
def test_destination_condemned_in_the_same_phase_sends_the_mover_to_the_parking() -> None:
    """R-18: a destination condemned in E-3 is unavailable: Parking; it counts as full for sprint_if_full."""
    hands = {"yellow": ["sprint"], "blue": ["sprint"]}
    pos = arrival(zombies={5: 6}, hands=hands)
    d = dests(("red", 5), ("yellow", 5), ("blue", 1), ("green", 5))
    answers = [
        *d,
        mv("red", "pinup"),  # 5 condemned -> Parking
        mv("yellow", "tough", sprint=6, sprint_if_full=True),  # condemned counts as full: Sprint used -> 6
    ]
    result = run(pos, answers, dice=[5, 5, 6, 6])
    check(
        result,
        [
            ["ok", "==", True],
            ["state.closed", "==", [2, 5]],
            ["state.characters.red.pinup", "==", 4],
            ["state.characters.yellow.tough", "==", 6],
            ["state.hands.yellow", "==", []],
            ["pending_kinds", "==", ["blue:move"]],
        ],
    )
    # E-6: a Sprint to the location condemned this phase is refused.
    refused = run(pos, [*answers, mv("blue", "pinup", sprint=5)], dice=[5, 5, 6, 6])
    check(refused, [["ok", "==", False], ["error.answer", "==", 6], ["state.hands.blue", "==", ["sprint"]]])


@pytest.mark.rule("E-4", "H-3")
def test_moves_are_made_one_at_a_time_from_the_chief_clockwise_in_strict_order() -> None:
    """E-4/H-3 strict: one move request at a time, Chief first then clockwise; each sees earlier moves."""
    pos = arrival(chief="blue")
    d = dests(("blue", 5), ("green", 5), ("red", 5), ("yellow", 5))
    moves = [mv("blue", "pinup"), mv("green", "pinup"), mv("red", "pinup"), mv("yellow", "pinup")]
    seen = []
    for i in range(4):
        r = run(pos, [*d, *moves[:i]], dice=[6, 6, 6, 6])
        seen.append(kinds(r))
    assert seen == [["blue:move"], ["green:move"], ["red:move"], ["yellow:move"]]
    done = run(pos, [*d, *moves], dice=[6, 6, 6, 6])
    # 5 holds 3: blue, green and red get in; yellow finds it full and goes to the Parking.
    check(
        done,
        [
            ["state.characters.blue.pinup", "==", 5],
            ["state.characters.green.pinup", "==", 5],
            ["state.characters.red.pinup", "==", 5],
            ["state.characters.yellow.pinup", "==", 4],
        ],
    )
    assert [e["player"] for e in events(done, "moved")] == ["blue", "green", "red", "yellow"]


@pytest.mark.rule("E-4", "E-5", "H-3")
def test_batched_moves_are_asked_at_once_and_applied_from_the_chief() -> None:
    """H-3 batched: every mover is asked at once; moves are applied in order from the Chief."""
    pos = arrival(chief="blue")
    opts = {"turn_order": "batched"}
    d = dests(("blue", 5), ("green", 5), ("red", 5), ("yellow", 5))
    asked = run(pos, d, dice=[6, 6, 6, 6], options=opts)
    assert kinds(asked) == ["blue:move", "green:move", "red:move", "yellow:move"]
    # Answered in reverse order; still applied blue, green, red, yellow.
    moves = [mv("yellow", "pinup"), mv("red", "pinup"), mv("green", "pinup"), mv("blue", "pinup")]
    done = run(pos, [*d, *moves], dice=[6, 6, 6, 6], options=opts)
    check(
        done,
        [
            ["state.characters.blue.pinup", "==", 5],
            ["state.characters.green.pinup", "==", 5],
            ["state.characters.red.pinup", "==", 5],
            ["state.characters.yellow.pinup", "==", 4],
        ],
    )
    assert [e["player"] for e in events(done, "moved")] == ["blue", "green", "red", "yellow"]


@pytest.mark.rule("E-4")
def test_mover_must_choose_a_character_not_already_at_the_destination() -> None:
    """E-4 (a): the moved character must not already stand at the revealed destination."""
    d = dests(("red", 3), ("yellow", 1), ("blue", 6), ("green", 6))
    result = run(arrival(), d, dice=[1, 1, 1, 1])
    check(
        result,
        [
            ["pending_kinds", "==", ["red:move"]],
            ["pending[0].destination", "==", 3],
            ["pending[0].options", "==", [{"character": "pinup"}, {"character": "gunman"}]],
        ],
    )
    refused = run(arrival(), [*d, mv("red", "tough")], dice=[1, 1, 1, 1])
    check(refused, [["ok", "==", False], ["error.answer", "==", 4], ["state.characters.red.tough", "==", 3]])


@pytest.mark.rule("E-4", "E-5", "H-2")
def test_fullness_is_checked_at_each_move_after_earlier_moves() -> None:
    """E-5: a full destination can be entered once an earlier mover left; a free one can fill up before you."""
    # 1 is full (red P, yellow P, yellow T). red leaves 1 for 5; yellow (only movable: gunman, H-2 automatic)
    # enters 1; now 1 is full again, so blue's Pin-Up goes to the Parking. green enters 5 (2 of 3).
    d = dests(("red", 5), ("yellow", 1), ("blue", 1), ("green", 5))
    answers = [*d, mv("red", "pinup"), mv("blue", "pinup"), mv("green", "pinup")]
    result = run(arrival(), answers, dice=[6, 6, 6, 6])
    check(
        result,
        [
            ["ok", "==", True],
            ["state.characters.red.pinup", "==", 5],
            ["state.characters.yellow.gunman", "==", 1],
            ["state.characters.blue.pinup", "==", 4],
            ["state.characters.green.pinup", "==", 5],
        ],
    )
    auto = [e for e in events(result, "answer_auto") if e["kind"] == "move"]
    assert [(e["player"], e["answer"]) for e in auto] == [("yellow", {"character": "gunman"})]
    blue_move = next(e for e in events(result, "moved") if e["player"] == "blue")
    assert (blue_move["origin"], blue_move["target"], blue_move["location"]) == (6, 1, 4)


@pytest.mark.rule("E-4")
def test_a_full_target_sends_the_character_to_the_parking() -> None:
    """E-4 (c): a target full at the moment of the move sends the character to the Parking."""
    d = dests(("red", 5), ("yellow", 3), ("blue", 5), ("green", 5))
    result = run(arrival(), [*d, mv("red", "gunman"), mv("yellow", "pinup")], dice=[6, 6, 6, 6])
    # 3 holds 4 of 4 (red T, yellow G, blue G, green P): yellow's Pin-Up goes to the Parking.
    check(result, [["state.characters.yellow.pinup", "==", 4], ["pending_kinds", "==", ["blue:move"]]])


@pytest.mark.rule("R-14", "E-4")
def test_character_already_at_the_parking_with_a_full_target_stays_and_has_moved() -> None:
    """R-14: a character at the Parking whose target is full stays there; that is the player's move."""
    d = dests(("red", 5), ("yellow", 5), ("blue", 5), ("green", 3))
    answers = [*d, mv("red", "pinup"), mv("yellow", "pinup"), mv("blue", "pinup"), mv("green", "gunman")]
    result = run(arrival(), answers, dice=[6, 6, 6, 6])
    check(result, [["ok", "==", True], ["state.characters.green.gunman", "==", 4], ["state.phase", "==", "attack"]])
    green = [e for e in events(result, "moved") if e["player"] == "green"]
    assert len(green) == 1
    assert (green[0]["character"], green[0]["origin"], green[0]["target"], green[0]["location"]) == ("gunman", 4, 3, 4)


@pytest.mark.rule("E-4", "E-5", "R-13")
@pytest.mark.parametrize(
    ("destination", "move", "where"),
    [
        (5, {"character": "pinup", "sprint": 6}, 6),  # any open location instead of the destination
        (5, {"character": "tough", "sprint": 3}, 3),  # back to the origin, although 3 counts 4 of 4
        (5, {"character": "pinup", "sprint": 1}, 1),  # back to the full origin 1
        (5, {"character": "pinup", "sprint": 3}, 4),  # to a full location: the Parking
    ],
)
def test_sprint_on_the_move_changes_the_target(destination: int, move: dict[str, Any], where: int) -> None:
    """E-4 (b): one Sprint replaces the target with any open location, even the one the character leaves."""
    pos = arrival(hands={"red": ["sprint"]})
    d = dests(("red", destination), ("yellow", 6), ("blue", 1), ("green", 1))
    result = run(pos, [*d, ("red", "move", move)], dice=[6, 6, 6, 6])
    check(
        result,
        [
            ["ok", "==", True],
            [f"state.characters.red.{move['character']}", "==", where],
            ["state.hands.red", "==", []],
            ["pending_kinds", "==", ["yellow:move"]],
        ],
    )
    played = [e for e in events(result, "card_played") if e["card"] == "sprint"]
    assert len(played) == 1 and played[0]["player"] == "red"


@pytest.mark.rule("E-6", "E-4")
def test_sprint_never_goes_to_a_closed_location() -> None:
    """E-6: a Sprint to a closed location (Cachou, or a condemned one) is refused and changes nothing."""
    pos = arrival(hands={"red": ["sprint"]}, closed=[2, 5])
    d = dests(("red", 3), ("yellow", 6), ("blue", 1), ("green", 1))
    for target in (2, 5):
        result = run(pos, [*d, mv("red", "pinup", sprint=target)], dice=[6, 6, 6, 6])
        check(
            result,
            [
                ["ok", "==", False],
                ["error.answer", "==", 4],
                ["state.hands.red", "==", ["sprint"]],
                ["state.characters.red.pinup", "==", 1],
                ["pending_kinds", "==", ["red:move"]],
            ],
        )


@BOTH
@pytest.mark.rule("H-3", "E-4")
@pytest.mark.parametrize(
    ("destination", "used", "where"),
    [
        (5, False, 5),  # 5 has room: the Sprint stays in hand, the Pin-Up enters 5
        (3, True, 6),  # 3 is full: the Sprint is used, the Pin-Up goes to 6
    ],
)
def test_sprint_if_full_is_used_only_when_the_destination_is_full(
    turn_order: str, destination: int, used: bool, where: int
) -> None:
    """H-3: sprint_if_full plays the Sprint only if the revealed destination is full when the move is made."""
    pos = arrival(hands={"red": ["sprint"]})
    d = dests(("red", destination), ("yellow", 6), ("blue", 1), ("green", 1))
    others = [mv("yellow", "pinup"), mv("blue", "pinup"), mv("green", "pinup")]
    result = run(
        pos,
        [*d, mv("red", "pinup", sprint=6, sprint_if_full=True), *others],
        dice=[6, 6, 6, 6],
        options={"turn_order": turn_order},
    )
    check(
        result,
        [
            ["ok", "==", True],
            ["state.characters.red.pinup", "==", where],
            ["state.hands.red", "==", [] if used else ["sprint"]],
        ],
    )


@pytest.mark.rule("H-3", "E-5")
def test_batched_sprint_if_full_sees_the_destination_as_it_is_when_the_move_is_applied() -> None:
    """H-3 batched: fullness for sprint_if_full is judged when the move is applied, after earlier moves."""
    pos = arrival(hands={"blue": ["sprint"], "green": ["sprint"]})
    opts = {"turn_order": "batched"}
    # 1 is full at the reveal, but red (applied first) leaves it: blue's Sprint is kept and blue enters 1.
    d = dests(("red", 5), ("yellow", 5), ("blue", 1), ("green", 5))
    answers = [
        *d,
        mv("green", "pinup", sprint=6, sprint_if_full=True),
        mv("blue", "pinup", sprint=6, sprint_if_full=True),
        mv("yellow", "gunman"),
        mv("red", "pinup"),
    ]
    result = run(pos, answers, dice=[6, 6, 6, 6], options=opts)
    # Applied red (1 -> 5), yellow (3 -> 5), blue (6 -> 1: room since red left, Sprint kept), green (3 -> 5:
    # 2 of 3, room, Sprint kept).
    check(
        result,
        [
            ["ok", "==", True],
            ["state.characters.red.pinup", "==", 5],
            ["state.characters.yellow.gunman", "==", 5],
            ["state.characters.blue.pinup", "==", 1],
            ["state.characters.green.pinup", "==", 5],
            ["state.hands.blue", "==", ["sprint"]],
            ["state.hands.green", "==", ["sprint"]],
        ],
    )
    # Now blue goes to 5 as well, so 5 is full by green's turn.
    d2 = dests(("red", 5), ("yellow", 5), ("blue", 5), ("green", 5))
    answers2 = [
        *d2,
        mv("green", "pinup", sprint=6, sprint_if_full=True),
        mv("blue", "pinup", sprint=6, sprint_if_full=True),
        mv("yellow", "gunman"),
        mv("red", "pinup"),
    ]
    result2 = run(pos, answers2, dice=[6, 6, 6, 6], options=opts)
    # 5 empty at the reveal. red, yellow, blue fill it (blue's Sprint kept: room at its turn); green finds it
    # full: its Sprint is used and the Pin-Up goes to 6.
    check(
        result2,
        [
            ["state.characters.blue.pinup", "==", 5],
            ["state.hands.blue", "==", ["sprint"]],
            ["state.characters.green.pinup", "==", 6],
            ["state.hands.green", "==", []],
        ],
    )


@BOTH
@pytest.mark.rule("R-13", "G", "H-3", "R-20")
def test_sprint_timing_after_moves_opens_one_sprint_window_after_all_moves(turn_order: str) -> None:
    """G sprint_timing=after_moves: after every move, one Sprint window in turn order (kind cards, window sprint)."""
    hands = {"red": ["sprint", "axe", "threat"], "blue": ["sprint"], "green": ["pistol"]}
    pos = arrival(hands=hands)
    opts = {"turn_order": turn_order, "sprint_timing": "after_moves"}
    d = dests(("red", 5), ("yellow", 5), ("blue", 5), ("green", 5))
    # A Sprint cannot be played with the move under this option.
    refused = run(pos, [*d, mv("red", "pinup", sprint=6)], dice=[1, 1, 1, 1], options=opts)
    check(refused, [["ok", "==", False], ["state.hands.red", "==", ["sprint", "axe", "threat"]]])
    moves = [mv("red", "pinup"), mv("yellow", "gunman"), mv("blue", "pinup"), mv("green", "pinup")]
    after = run(pos, [*d, *moves], dice=[1, 1, 1, 1], options=opts)
    # 5 fills with red, yellow, blue; green goes to the Parking.
    check(after, [["state.characters.green.pinup", "==", 4], ["state.characters.blue.pinup", "==", 5]])
    assert len(events(after, "moved")) == 4
    expected = ["red:cards"] if turn_order == "strict" else ["red:cards", "blue:cards"]
    assert kinds(after) == expected  # yellow and green hold no Sprint
    for req in after["pending"]:
        assert req["window"] == "sprint"
        assert req["location"] is None
        assert req["playable"] == ["sprint"]
    red_sprint = ("red", "cards", [{"card": "sprint", "character": "pinup", "location": 1}])
    blue_sprint = ("blue", "cards", [{"card": "sprint", "character": "pinup", "location": 6}])
    if turn_order == "strict":
        mid = run(pos, [*d, *moves, red_sprint], dice=[1, 1, 1, 1], options=opts)
        assert kinds(mid) == ["blue:cards"]
        done = run(pos, [*d, *moves, red_sprint, blue_sprint], dice=[1, 1, 1, 1], options=opts)
    else:
        done = run(pos, [*d, *moves, blue_sprint, red_sprint], dice=[1, 1, 1, 1], options=opts)
    # red's Pin-Up Sprints back to 1 (room: it left a place), blue's back to 6, where it came from.
    check(
        done,
        [
            ["ok", "==", True],
            ["state.characters.red.pinup", "==", 1],
            ["state.characters.blue.pinup", "==", 6],
            ["state.hands.red", "==", ["axe", "threat"]],
            ["state.hands.blue", "==", []],
            ["state.phase", "==", "attack"],
        ],
    )
    types = [e["type"] for e in done["events"] if e["type"] in ("moved", "card_played")]
    assert types[:4] == ["moved"] * 4


@pytest.mark.rule("H-2", "R-13", "G")
@pytest.mark.parametrize(("timing", "asked"), [("on_move", True), ("after_moves", False)])
def test_single_movable_character_is_moved_automatically_unless_a_sprint_could_go_with_it(
    timing: str, asked: bool
) -> None:
    """H-2: a move with one movable character and no Sprint to play with it is answered automatically."""
    pos = arrival(hands={"yellow": ["sprint"]})
    d = dests(("red", 5), ("yellow", 1), ("blue", 6), ("green", 6))
    result = run(pos, [*d, mv("red", "pinup")], dice=[6, 6, 6, 6], options={"sprint_timing": timing})
    if asked:
        check(
            result, [["pending_kinds", "==", ["yellow:move"]], ["pending[0].options", "==", [{"character": "gunman"}]]]
        )
    else:
        check(result, [["state.characters.yellow.gunman", "==", 1], ["pending_kinds", "!=", ["yellow:move"]]])
        auto = [e["player"] for e in events(result, "answer_auto") if e["kind"] == "move"]
        assert "yellow" in auto


# =============================================================================================================
# END. End of the game and scoring
# =============================================================================================================


@pytest.mark.rule("END-1", "END-2", "R-24")
def test_game_ends_when_every_character_is_at_one_location_other_than_the_parking() -> None:
    """END-1 (a): at the end of the round, all 5 remaining characters at the Supermarket end the game."""
    chars = {"red": {"pinup": 6, "tough": 6}, "yellow": {"pinup": 6}, "blue": {"gunman": 6}, "green": {"tough": 6}}
    # F-1: 6 has the most characters (+1) and the most Pin-Ups (+1): 2 zombies < min(7, 4): no attack.
    result = run(position(chars, phase="attack"), [])
    check(
        result,
        [
            ["over", "==", True],
            ["state.phase", "==", "over"],
            ["outcome.scores", "==", {"red": 12, "yellow": 7, "blue": 3, "green": 5}],
            ["outcome.winners", "==", ["red"]],
            ["pending", "==", []],
        ],
    )
    assert len(events(result, "game_over")) == 1


@pytest.mark.rule("END-1", "R-24")
def test_all_remaining_characters_at_the_parking_do_not_end_the_game() -> None:
    """END-1 (a) excludes the Parking: 7 characters all at the Parking play on."""
    chars = {p: {"pinup": 4, "tough": 4, "gunman": 4} for p in ("red", "yellow", "blue")}
    chars |= {"green": {}, "black": {}}
    # F-1: Parking has most characters and Pin-Ups: 2 zombies, 2 votes; weights 4 each (3 + Gunman).
    answers = [
        ("red", "vote", "red"),
        ("yellow", "vote", "red"),
        ("blue", "vote", "red"),
        ("red", "victim", "gunman"),
        ("red", "vote", "red"),
        ("yellow", "vote", "red"),
        ("blue", "vote", "red"),
        ("red", "victim", "tough"),
    ]
    result = run(position(chars, phase="attack"), answers, dice=[1, 3, 5, 6])
    # 7 remain, all at the Parking: round 4 begins (no deck, nobody at 5), and D asks for destinations.
    check(
        result,
        [
            ["ok", "==", True],
            ["over", "==", False],
            ["state.round", "==", 4],
            ["state.characters.red", "==", {"pinup": 4}],
            ["pending_kinds", "==", ["red:destination", "yellow:destination", "blue:destination"]],
        ],
    )
    assert events(result, "game_over") == []


@pytest.mark.rule("END-1", "R-24")
@pytest.mark.parametrize(
    ("chars", "over"),
    [
        ({"red": {"tough": 1}, "yellow": {"tough": 3}, "blue": {"tough": 5}, "green": {"tough": 6}}, True),  # 4
        ({"red": {"tough": 1}, "yellow": {"tough": 3}, "blue": {"tough": 5}, "green": {}}, True),  # 3: <= 4
        (
            {"red": {"tough": 1, "gunman": 6}, "yellow": {"tough": 3}, "blue": {"tough": 5}, "green": {"tough": 6}},
            False,
        ),
    ],
)
def test_game_ends_with_four_or_fewer_characters(chars: dict[str, dict[str, int]], over: bool) -> None:
    """END-1 (b)/R-24: with 3-5 players the game ends at the end of a round with <= 4 characters left."""
    # No attack: with 5 characters, 6 has the most (2) and gets 1 zombie < strength 3.
    result = run(position(chars, phase="attack"), [], dice=[1, 1, 1, 1])
    check(result, [["over", "==", over]])
    if not over:
        # Round 4: blue alone at 5 is elected uncontested and announces first.
        check(result, [["state.round", "==", 4], ["pending_kinds", "==", ["blue:announce"]]])


@pytest.mark.rule("END-1")
@pytest.mark.parametrize("extra", [False, True])
def test_six_player_game_ends_with_six_or_fewer(extra: bool) -> None:
    """END-1 (b): with six players the game ends at <= 6 remaining characters."""
    chars = {
        "red": {"tough": 1},
        "yellow": {"tough": 3},
        "blue": {"tough": 5},
        "green": {"tough": 6},
        "black": {"gunman": 1},
        "white": {"gunman": 3},
    }
    assert list(chars) == SIX
    if extra:
        chars["yellow"] = {"tough": 3, "gunman": 5}  # 7 characters; counts 2,2,2,1: no extra zombie
    result = run(position(chars, phase="attack"), [], dice=[1, 1, 1, 1])
    check(result, [["over", "==", not extra]])
    if extra:
        check(result, [["state.round", "==", 4]])
    else:
        check(
            result, [["outcome.scores", "==", {"red": 5, "yellow": 5, "blue": 5, "green": 5, "black": 3, "white": 3}]]
        )


@pytest.mark.rule("END-1", "R-24")
def test_game_never_ends_in_the_middle_of_a_round() -> None:
    """END-1: even with 4 characters left after one attack, the round's later attacks still happen."""
    chars = {"red": {"pinup": 1, "gunman": 6}, "yellow": {"tough": 6}, "blue": {"gunman": 1}, "green": {"tough": 3}}
    # F-1: counts 1:2, 6:2, 3:1 (tie, none); Pin-Ups only at 1: +1 -> 3 zombies at 1 >= strength 2.
    pos = position(chars, phase="attack", zombies={1: 2, 6: 3})
    answers = [("red", "vote", "blue"), ("blue", "vote", "red")]  # red 1 vote on blue, blue 2 on red
    result = run(pos, answers)
    # red's Pin-Up (the only candidate) is eaten: 4 characters remain, but 6 (3 zombies >= min(3, 4)) attacks.
    check(
        result,
        [
            ["ok", "==", True],
            ["state.characters.red", "==", {"gunman": 6}],
            ["over", "==", False],
            ["pending_kinds", "==", ["red:vote", "yellow:vote"]],
            ["pending[0].location", "==", 6],
        ],
    )


@pytest.mark.rule("END-2", "END-1")
def test_scores_are_seven_five_three_one() -> None:
    """END-2: a player's score is 7 per Pin-Up, 5 per Tough Guy, 3 per Gunman, 1 per Little Girl."""
    chars = {"yellow": {"pinup": 1, "girl": 3}, "red": {"tough": 1}, "blue": {"gunman": 6}}
    # F-1: 1 has most characters and Pin-Ups: 2 zombies < strength 3. 4 characters left: over.
    result = run(position(chars, phase="attack"), [])
    check(
        result,
        [
            ["over", "==", True],
            ["outcome.scores", "==", {"yellow": 8, "red": 5, "blue": 3}],
            ["outcome.winners", "==", ["yellow"]],
        ],
    )
    assert result["state"]["characters"].keys() == set(THREE)


@pytest.mark.rule("END-3", "R-25", "END-2")
@pytest.mark.parametrize(
    ("hands", "winners"),
    [
        ({"red": ["axe"], "yellow": ["pistol", "bat"], "blue": ["shotgun", "grenade", "chainsaw"]}, ["yellow"]),
        ({"red": ["axe"], "yellow": ["pistol"], "blue": ["shotgun", "grenade", "chainsaw"]}, ["red", "yellow"]),
    ],
)
def test_score_ties_go_to_most_cards_then_the_win_is_shared(hands: dict[str, list[str]], winners: list[str]) -> None:
    """END-3/R-25: equal scores are split by cards in hand; still equal, the victory is shared."""
    chars = {"red": {"pinup": 6}, "yellow": {"pinup": 6}, "blue": {}, "green": {"tough": 6}}
    # F-1: 2 zombies at 6 < min(1 + 1 + 2, 4) = 4: no attack. blue (eliminated) scores 0 whatever its cards.
    result = run(position(chars, phase="attack", hands=hands), [])
    check(
        result,
        [
            ["over", "==", True],
            ["outcome.scores", "==", {"red": 7, "yellow": 7, "blue": 0, "green": 5}],
            ["outcome.winners", "set==", winners],
            ["outcome.cards", "==", {p: len(hands.get(p, [])) for p in FOUR}],
        ],
    )


@pytest.mark.rule("END-4", "END-3", "H-2")
def test_no_survivors_every_score_is_zero_and_cards_decide() -> None:
    """END-4: when nobody survives every score is 0 and END-3 (cards, then shared) decides."""
    chars = {"red": {"pinup": 4}, "yellow": {}, "blue": {}, "green": {}}
    hands = {"yellow": ["axe"], "blue": ["pistol", "bat"], "green": ["shotgun", "grenade"]}
    # F-1: 2 zombies at the Parking; red is the only colour (no vote) and the Pin-Up the only victim.
    result = run(position(chars, phase="attack", hands=hands), [])
    check(
        result,
        [
            ["over", "==", True],
            ["state.characters.red", "==", {}],
            ["outcome.scores", "==", {"red": 0, "yellow": 0, "blue": 0, "green": 0}],
            ["outcome.winners", "set==", ["blue", "green"]],
        ],
    )
    assert [(e["player"], e["character"]) for e in events(result, "eaten")] == [("red", "pinup")]


# =============================================================================================================
# H. Asynchronous play
# =============================================================================================================


@pytest.mark.rule("H-2")
def test_a_destination_with_one_legal_location_is_chosen_automatically() -> None:
    """H-2: a request with exactly one legal answer is never shown; it is logged as answer_auto."""
    chars = {
        "red": {"pinup": 6, "tough": 6, "gunman": 6},  # only 4 is legal
        "yellow": {"pinup": 6, "tough": 6, "gunman": 4},  # 4 or 6
        "blue": {"pinup": 4, "tough": 4, "gunman": 4},  # only 6
        "green": {"pinup": 4, "tough": 4, "gunman": 6},  # 4 or 6
    }
    result = run(arrival(chars, closed=[1, 2, 3, 5]), [], dice=[6, 6, 6, 6])
    check(result, [["pending_kinds", "==", ["yellow:destination", "green:destination"]]])
    auto = [(e["player"], e["answer"]) for e in events(result, "answer_auto") if e["kind"] == "destination"]
    assert auto == [("red", 4), ("blue", 6)]
    done = run(arrival(chars, closed=[1, 2, 3, 5]), dests(("yellow", 4), ("green", 4)), dice=[6, 6, 6, 6])
    revealed = events(done, "destinations_revealed")
    assert revealed[0]["destinations"] == {"red": 4, "yellow": 4, "blue": 6, "green": 4}


@pytest.mark.rule("H-2", "D-1", "R-28")
def test_an_announcement_with_one_legal_location_is_automatic_and_still_public() -> None:
    """H-2: an elected Chief with a single legal destination is not asked; the announcement is still made."""
    chars = {
        "red": {"pinup": 6, "tough": 6, "gunman": 6},  # only the Parking is legal
        "yellow": {"pinup": 6, "tough": 6, "gunman": 4},
        "blue": {"pinup": 4, "tough": 4, "gunman": 6},
        "green": {"pinup": 4, "tough": 4, "gunman": 4},
    }
    result = run(arrival(chars, closed=[1, 2, 3, 5], elected=True), [], dice=[6, 6, 6, 6])
    check(result, [["pending_kinds", "==", ["yellow:destination", "blue:destination"]]])
    announced = events(result, "destination_announced")
    assert [(e["player"], e["location"]) for e in announced] == [("red", 4)]
    assert "to" not in announced[0]
    auto = [(e["player"], e["kind"], e["answer"]) for e in events(result, "answer_auto")]
    assert ("red", "announce", 4) in auto
    assert ("green", "destination", 6) in auto


@pytest.mark.rule("R-13", "G")
def test_on_move_timing_opens_no_sprint_window_after_the_moves() -> None:
    """R-13/G sprint_timing=on_move (default): a Sprint is played with the move or not at all."""
    pos = arrival(hands={"blue": ["sprint"]})
    d = dests(("red", 5), ("yellow", 5), ("blue", 5), ("green", 5))
    moves = [mv("red", "pinup"), mv("yellow", "gunman"), mv("blue", "pinup"), mv("green", "pinup")]
    result = run(pos, [*d, *moves], dice=[1, 1, 1, 1])
    check(result, [["ok", "==", True], ["state.phase", "==", "attack"], ["state.hands.blue", "==", ["sprint"]]])
    assert all(r.get("window") != "sprint" for r in result["pending"])
    assert [e for e in events(result, "card_played") if e["card"] == "sprint"] == []


@pytest.mark.rule("H-2", "H-3", "R-12", "R-20")
@pytest.mark.parametrize("turn_order", ["strict", "batched"])
def test_camera_window_asks_only_camera_holders(turn_order: str) -> None:
    """H-2/H-3: the camera window skips players without a Camera; strict asks one at a time, batched at once."""
    hands = {"red": ["camera", "threat"], "yellow": ["threat", "sprint"], "blue": ["camera"]}
    pos = arrival(hands=hands)
    opts = {"turn_order": turn_order}
    first = run(pos, [], dice=[1, 3, 5, 6], options=opts)
    assert kinds(first) == (["red:cards"] if turn_order == "strict" else ["red:cards", "blue:cards"])
    for req in first["pending"]:
        assert req["window"] == "arrival" and req["location"] is None and req["playable"] == ["camera"]
    answers = [("red", "cards", []), ("blue", "cards", [{"card": "camera"}])]
    if turn_order == "strict":
        assert kinds(run(pos, answers[:1], dice=[1, 3, 5, 6], options=opts)) == ["blue:cards"]
    done = run(pos, answers, dice=[1, 3, 5, 6], options=opts)
    check(
        done,
        [
            ["state.dice.seen_by", "==", ["blue"]],
            ["state.hands.red", "==", ["camera", "threat"]],
            ["state.hands.blue", "==", []],
            ["pending[player=blue].dice", "==", [1, 3, 5, 6]],
            ["pending[player=red].dice", "absent", None],
        ],
    )


@pytest.mark.rule("H-3", "F-6")
@pytest.mark.parametrize(("chief", "kept_by"), [("red", "yellow"), ("yellow", "red")])
def test_batched_attack_cards_are_applied_in_order_from_the_chief(chief: str, kept_by: str) -> None:
    """H-3 batched: card plays are applied from the Chief; an if_needed Weapon is kept once the location is safe."""
    chars = {
        "red": {"pinup": 1, "gunman": 1, "tough": 6},
        "yellow": {"tough": 1, "pinup": 6, "gunman": 6},
        "blue": {"pinup": 3, "tough": 3, "gunman": 5},
        "green": {"pinup": 5, "tough": 5, "gunman": 3},
    }
    # F-1: counts 3/3/3/3 and one Pin-Up each at 1, 3, 5, 6: no extra zombie. 1: 4 zombies >= strength 4.
    hands = {"red": ["axe"], "yellow": ["pistol"]}
    pos = position(chars, phase="attack", chief=chief, zombies={1: 4}, hands=hands)
    opts = {"turn_order": "batched"}
    asked = run(pos, [], options=opts)
    assert sorted(kinds(asked)) == ["red:cards", "yellow:cards"]
    answers = [
        ("yellow", "cards", [{"card": "pistol", "if_needed": True}]),
        ("red", "cards", [{"card": "axe", "if_needed": True}]),
    ]
    done = run(pos, answers, options=opts)
    # The first (from the Chief) kills 1: 3 < 4, safe; the other stays in hand; the 3 zombies stay outside.
    check(done, [["ok", "==", True], ["state.zombies.1", "==", 3], ["state.characters.red.pinup", "==", 1]])
    used_by = "red" if kept_by == "yellow" else "yellow"
    assert done["state"]["hands"][used_by] == []
    assert done["state"]["hands"][kept_by] == hands[kept_by]
    # strict: the first player makes it safe and the window closes before the other is asked.
    strict_first = run(pos, [], options={"turn_order": "strict"})
    assert kinds(strict_first) == [f"{used_by}:cards"]
    strict = run(pos, [(used_by, "cards", [{"card": hands[used_by][0]}])], options={"turn_order": "strict"})
    check(strict, [["state.zombies.1", "==", 3], [f"state.hands.{kept_by}", "==", hands[kept_by]]])
    assert f"{kept_by}:cards" not in kinds(strict)


@pytest.mark.rule("H-3", "G")
def test_setup_placement_strict_one_at_a_time_batched_all_at_once() -> None:
    """H-3: setup placement asks one player at a time in strict order, everyone at once in batched order."""
    strict = new_game(FOUR, seed=5, options={"turn_order": "strict", "first_chief": "blue"})
    assert pending_kinds(strict) == ["blue:place"]
    batched = new_game(FOUR, seed=5, options={"turn_order": "batched", "first_chief": "blue"})
    assert pending_kinds(batched) == ["blue:place", "green:place", "red:place", "yellow:place"]
    default = new_game(FOUR, seed=5, options={"first_chief": "blue"})  # G: turn_order defaults to batched
    assert pending_kinds(default) == ["blue:place", "green:place", "red:place", "yellow:place"]


@pytest.mark.rule("H-3", "SET-5")
def test_batched_setup_placement_falls_back_then_parks() -> None:
    """H-3 batched setup: chosen die if room, else the other die, else the fallback, else the Parking."""
    opts = {"turn_order": "batched", "first_chief": "red"}
    dice = [1, 5] * 8
    round1 = [
        ("green", "place", {"character": "pinup", "location": 5}),
        ("blue", "place", {"character": "pinup", "location": 1}),
        ("yellow", "place", {"character": "pinup", "location": 1}),
        ("red", "place", {"character": "pinup", "location": 1}),
    ]
    # Applied red, yellow, blue (1 now full), green (5). Round 2: 1 is full, so every request offers 5 only.
    round2 = [
        ("green", "place", {"character": "tough", "location": 5}),
        ("blue", "place", {"character": "tough", "location": 5, "fallback": 6}),
        ("yellow", "place", {"character": "tough", "location": 5}),
        ("red", "place", {"character": "tough", "location": 5}),
    ]
    result = run(None, [*round1, *round2], players=FOUR, options=opts, dice=dice)
    # Round 2 applied red (5: 2 of 3), yellow (5: full), blue (5 and 1 full: fallback 6), green (Parking).
    check(
        result,
        [
            ["ok", "==", True],
            ["state.characters.red", "==", {"pinup": 1, "tough": 5}],
            ["state.characters.yellow", "==", {"pinup": 1, "tough": 5}],
            ["state.characters.blue", "==", {"pinup": 1, "tough": 6}],
            ["state.characters.green", "==", {"pinup": 5, "tough": 4}],
        ],
    )


# --- H-4: every timeout default --------------------------------------------------------------------------------


def defaulted(result: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["player"], e["kind"]) for e in events(result, "answer_defaulted")]


TRUCK = {
    "red": {"pinup": 4, "tough": 1, "gunman": 3},
    "yellow": {"pinup": 4, "tough": 5, "gunman": 6},
    "blue": {},
    "green": {"pinup": 1, "tough": 3, "gunman": 6},
}


@pytest.mark.rule("H-4", "VOT-3")
def test_timeout_vote_abstains() -> None:
    """H-4: a vote timeout abstains: the player's weight counts for nobody."""
    pos = position(TRUCK, phase="truck", deck=["sprint", "axe", "camera", "threat"], eliminated={"blue": 1})
    result = run(pos, [("red", "vote"), ("yellow", "vote", "yellow")])
    # red (1) abstains, yellow (1) votes yellow: 1 to 0, yellow searches.
    check(result, [["ok", "==", True], ["pending_kinds", "==", ["yellow:truck"]]])
    assert defaulted(result) == [("red", "vote")]
    revealed = events(result, "votes_revealed")[0]
    assert revealed["totals"].get("red", 0) == 0 and revealed["totals"]["yellow"] == 1


@pytest.mark.rule("H-4", "A-3", "A-5")
def test_timeout_truck_keeps_top_card_and_gives_the_second_clockwise() -> None:
    """H-4: truck timeout keeps the top card and gives the second to the next player clockwise with characters."""
    pos = position(TRUCK, phase="truck", deck=["sprint", "axe", "camera", "threat"], eliminated={"blue": 1})
    result = run(pos, [("red", "vote"), ("yellow", "vote", "yellow"), ("yellow", "truck")])
    # yellow keeps sprint; next clockwise after yellow is blue (eliminated), then green gets the axe.
    check(
        result,
        [
            ["ok", "==", True],
            ["state.hands.yellow", "==", ["sprint"]],
            ["state.hands.green", "==", ["axe"]],
            ["state.hands.blue", "==", []],
            ["state.deck", "==", ["threat", "camera"]],
        ],
    )
    assert defaulted(result)[-1] == ("yellow", "truck")


@pytest.mark.rule("H-4", "C-3")
def test_timeout_cards_passes() -> None:
    """H-4: a cards timeout passes: the Camera stays in hand and nobody sees the dice."""
    result = run(arrival(hands={"red": ["camera"]}), [("red", "cards")], dice=[1, 3, 5, 6])
    check(
        result,
        [
            ["state.hands.red", "==", ["camera"]],
            ["state.dice.seen_by", "==", []],
            ["pending_kinds", "==", ["red:destination", "yellow:destination", "blue:destination", "green:destination"]],
        ],
    )
    assert defaulted(result) == [("red", "cards")]


@pytest.mark.rule("H-4", "D-1", "D-4")
def test_timeout_announce_and_destination_take_the_quietest_legal_location() -> None:
    """H-4: announce/destination default to the legal location with fewest zombies, ties to the lowest number."""
    chars = {
        "red": {"pinup": 1, "tough": 3, "gunman": 6},
        "yellow": {"pinup": 5, "tough": 5, "gunman": 5},
        "blue": {"pinup": 6, "tough": 6, "gunman": 3},
        "green": {"pinup": 3, "tough": 6, "gunman": 4},
    }
    zombies = {1: 2, 3: 1, 4: 1, 5: 0, 6: 0}
    pos = arrival(chars, elected=True, zombies=zombies)
    # red: legal 1,3,4,5,6; fewest 0 at 5 and 6 -> 5. yellow: all at 5, legal 1,3,4,6 -> 6.
    # blue and green: 5. The dice (1,1,1,1) arrive only in E.
    answers = [("red", "announce"), ("yellow", "destination"), ("blue", "destination"), ("green", "destination")]
    result = run(pos, answers, dice=[1, 1, 1, 1])
    check(result, [["ok", "==", True]])
    assert events(result, "destination_announced")[0]["location"] == 5
    revealed = events(result, "destinations_revealed")[0]
    assert revealed["destinations"] == {"red": 5, "yellow": 6, "blue": 5, "green": 5}
    assert defaulted(result) == [(p, "destination" if p != "red" else "announce") for p in FOUR]


@pytest.mark.rule("H-4", "E-4")
@pytest.mark.parametrize(("destination", "moved"), [(5, "gunman"), (6, "tough")])
def test_timeout_move_takes_the_lowest_value_movable_character_without_sprint(destination: int, moved: str) -> None:
    """H-4: a move timeout moves the lowest-value movable character and plays no Sprint."""
    pos = arrival(hands={"red": ["sprint"]})
    d = dests(("red", destination), ("yellow", 5), ("blue", 1), ("green", 1))
    result = run(pos, [*d, ("red", "move")], dice=[1, 1, 1, 1])
    # red: Pin-Up at 1, Tough at 3, Gunman at 6. To 5: Gunman. To 6 (Gunman already there): Tough.
    check(
        result,
        [
            ["ok", "==", True],
            [f"state.characters.red.{moved}", "==", destination],
            ["state.hands.red", "==", ["sprint"]],
        ],
    )
    assert defaulted(result) == [("red", "move")]


@pytest.mark.rule("H-4", "E-4")
def test_timeout_move_with_three_players_takes_the_little_girl() -> None:
    """H-4: the Little Girl (1 point) is the lowest-value character."""
    chars = {
        "yellow": {"pinup": 1, "tough": 3, "gunman": 6, "girl": 6},
        "red": {"pinup": 3, "tough": 6, "gunman": 1, "girl": 3},
        "blue": {"pinup": 6, "tough": 4, "gunman": 4, "girl": 1},
    }
    pos = arrival(chars)
    d = dests(("yellow", 5), ("red", 5), ("blue", 5))
    result = run(pos, [*d, ("yellow", "move")], dice=[1, 1, 1, 1])
    check(result, [["ok", "==", True], ["state.characters.yellow.girl", "==", 5]])


VICTIM = {
    "red": {"pinup": 1, "tough": 1, "gunman": 6},
    "yellow": {"gunman": 1, "pinup": 6, "tough": 6},
    "blue": {"pinup": 3, "tough": 3, "gunman": 5},
    "green": {"pinup": 5, "tough": 5, "gunman": 3},
}
# F-1: counts 3/3/3/3 and one Pin-Up at each of 1, 3, 5, 6: no extra zombie. 1: 4 zombies >= 1 + 2 + 1.
# red (weight 2) and yellow (2, Gunman) both vote red: red loses and must give up the Pin-Up or the Tough Guy.
VICTIM_VOTES = [("red", "vote", "red"), ("yellow", "vote", "red")]


@pytest.mark.rule("H-4", "VOT-9")
def test_timeout_victim_is_the_lowest_value_candidate() -> None:
    """H-4: a victim timeout (no applicable standing order) gives up the lowest-value candidate."""
    pos = position(VICTIM, phase="attack", zombies={1: 4})
    asked = run(pos, VICTIM_VOTES)
    check(asked, [["pending_kinds", "==", ["red:victim"]], ["pending[0].options", "set==", ["pinup", "tough"]]])
    result = run(pos, [*VICTIM_VOTES, ("red", "victim")])
    check(result, [["state.characters.red", "==", {"pinup": 1, "gunman": 6}], ["state.zombies.1", "==", 0]])
    assert defaulted(result) == [("red", "victim")]
    # A standing order naming only characters that are not candidates does not answer; the default still applies.
    pos_so = run(pos, [*VICTIM_VOTES, ("red", "victim")], standing_orders={"red": {"victim": ["gunman"]}})
    check(pos_so, [["state.characters.red", "==", {"pinup": 1, "gunman": 6}]])
    assert defaulted(pos_so) == [("red", "victim")]


@pytest.mark.rule("H-5", "H-2")
def test_standing_order_answers_the_victim_request_at_once() -> None:
    """H-5: a standing order answers a victim request immediately (first candidate in the order)."""
    pos = position(VICTIM, phase="attack", zombies={1: 4})
    result = run(pos, VICTIM_VOTES, standing_orders={"red": {"victim": ["gunman", "pinup", "tough"]}})
    check(result, [["ok", "==", True], ["state.characters.red", "==", {"tough": 1, "gunman": 6}]])
    assert "red:victim" not in kinds(result)
    auto = [e for e in events(result, "answer_auto") if e["kind"] == "victim"]
    assert [(e["player"], e["answer"]) for e in auto] == [("red", "pinup")]
    assert events(result, "answer_defaulted") == []


@pytest.mark.rule("H-5")
def test_setting_a_standing_order_answers_a_pending_victim_request() -> None:
    """H-5: Game.set_standing_order while a victim request is pending answers it at once."""
    g = game_at(position(VICTIM, phase="attack", zombies={1: 4}))
    g.answer("red", "vote", "red")
    g.answer("yellow", "vote", "red")
    assert pending_kinds(g) == ["red:victim"]
    g.set_standing_order("red", ["tough", "pinup", "gunman"])
    assert "red:victim" not in pending_kinds(g)
    assert g.position()["characters"]["red"] == {"pinup": 1, "gunman": 6}
    # The order stays private: nobody else's view shows it.
    assert view(g, "red")["standing_order"] == ["tough", "pinup", "gunman"]
    assert "standing_order" not in json.dumps(spectator_view(g))
    assert view(g, "yellow").get("standing_order") is None


@pytest.mark.rule("H-5")
def test_a_standing_order_set_without_answering_leaves_the_victim_request_to_its_answer() -> None:
    """H-5, for a server that applies a window's answers when it closes: the order is kept for later victim
    requests, the pending one stays pending and ``standing_answer`` says what the order gives; the answer that
    follows applies, and the log replays exactly (the entry records that it answered nothing)."""
    g = game_at(position(VICTIM, phase="attack", zombies={1: 4}))
    g.answer("red", "vote", "red")
    g.answer("yellow", "vote", "red")
    g.set_standing_order("red", ["tough", "pinup", "gunman"], answer_open=False)
    assert pending_kinds(g) == ["red:victim"]
    assert g.standing_answer("red") == "tough"
    assert g.standing_answer("yellow") is None
    assert view(g, "red")["standing_order"] == ["tough", "pinup", "gunman"]
    g.answer("red", "victim", g.standing_answer("red"))
    assert g.position()["characters"]["red"] == {"pinup": 1, "gunman": 6}
    again = Game.from_json(g.to_json())
    assert again.position() == g.position() and again.log == g.log
    assert [e for e in g.log if "standing_order" in e] == [
        {"player": "red", "standing_order": ["tough", "pinup", "gunman"], "answer_open": False}
    ]


@pytest.mark.rule("H-4", "D-5")
def test_timeout_zombie_places_nothing() -> None:
    """H-4: a zombie-player timeout places no zombie."""
    pos = arrival(FOUR_Z, eliminated={"blue": 2})
    result = run(pos, [*FOUR_Z_D, ("blue", "zombie")], dice=[6, 6, 6, 6])
    check(result, [["ok", "==", True], ["state.zombies", "==", {"1": 0, "2": 0, "3": 0, "4": 0, "5": 0, "6": 4}]])
    assert events(result, "zombie_placed") == []
    assert defaulted(result) == [("blue", "zombie")]


@pytest.mark.rule("H-4", "SET-5")
@pytest.mark.parametrize(("players", "character"), [(FOUR, "gunman"), (THREE, "girl")])
def test_timeout_place_puts_the_lowest_value_character_at_the_lowest_legal_location(
    players: list[str], character: str
) -> None:
    """H-4: a placement timeout places the lowest-value character at the lowest-numbered legal location."""
    first = players[0]
    result = run(None, [(first, "place")], players=players, options={"first_chief": first}, dice=[6, 3, 5, 5])
    placed = events(result, "placed")
    assert (placed[0]["player"], placed[0]["character"], placed[0]["location"]) == (first, character, 3)
    assert defaulted(result) == [(first, "place")]


# --- H-6: what a request and a view may show -------------------------------------------------------------------


@pytest.mark.rule("H-6", "C-2", "E-2", "R-11")
def test_views_show_the_dice_only_to_those_who_saw_them_until_placed() -> None:
    """H-6: the zombie dice are shown only to the elected Chief and camera users until E-2 places them."""
    hands = {"red": ["threat"], "yellow": ["camera"], "blue": ["sprint"], "green": []}
    g = game_at(arrival(elected=True, hands=hands), dice=[1, 3, 6, 6])
    assert pending_kinds(g) == ["yellow:cards"]
    assert view(g, "red")["dice"] == [1, 3, 6, 6]
    for colour in ("yellow", "blue", "green"):
        v = view(g, colour)
        assert v["dice"] is None
        assert not by_type(v["events"], "zombie_dice_rolled") and not by_type(v["events"], "dice_seen")
    g.answer("yellow", "cards", [{"card": "camera"}])
    assert view(g, "yellow")["dice"] == [1, 3, 6, 6]
    assert view(g, "blue")["dice"] is None
    assert spectator_view(g).get("dice") is None
    assert pending_kinds(g) == ["red:announce"]
    assert g.pending()[0].to_json()["dice"] == [1, 3, 6, 6]
    g.answer("red", "announce", 5)
    reqs = {r.player: r.to_json() for r in g.pending()}
    assert reqs["yellow"]["dice"] == [1, 3, 6, 6]
    assert "dice" not in reqs["blue"] and "dice" not in reqs["green"]
    for p, loc in (("yellow", 3), ("blue", 1), ("green", 1)):
        g.answer(p, "destination", loc)
    # E-2: the dice are placed and public now.
    for colour in FOUR:
        revealed = by_type(view(g, colour)["events"], "zombie_dice_revealed")
        assert revealed and revealed[0]["values"] == [1, 3, 6, 6]


@pytest.mark.rule("H-6", "H-1")
def test_views_never_show_other_hands_or_unrevealed_destinations() -> None:
    """H-6: a view holds the player's own hand and answers only; others' hands and sealed choices stay hidden."""
    hands = {"red": ["camera"], "yellow": ["threat"], "blue": [], "green": []}
    g = game_at(arrival(hands=hands), dice=[1, 3, 6, 6])
    g.answer("red", "cards", [])  # the camera window: red passes
    g.answer("red", "destination", 5)
    yellow = view(g, "yellow")
    assert yellow["hand"] == ["threat"]
    text = json.dumps(yellow)
    assert '"camera"' not in text, "red's hand leaked"
    assert "red" not in yellow["destinations"]
    assert [r["kind"] for r in yellow["requests"]] == ["destination"]
    assert yellow["hand_sizes"] == {"red": 1, "yellow": 1, "blue": 0, "green": 0}
    red = view(g, "red")
    assert '"threat"' not in json.dumps(red), "yellow's hand leaked"
    spectator = json.dumps(spectator_view(g))
    assert '"camera"' not in spectator and '"threat"' not in spectator


@pytest.mark.rule("H-6", "A-3")
def test_truck_cards_are_shown_only_to_the_searcher() -> None:
    """H-6: the three truck cards are in the searcher's request only; the gift is known to giver and receiver."""
    pos = position(TRUCK, phase="truck", deck=["sprint", "camera", "threat", "hidden"], eliminated={"blue": 1})
    g = game_at(pos)
    g.answer("red", "vote", "yellow")
    # Sealed votes: before the window closes nobody sees red's vote.
    assert not by_type(view(g, "yellow")["events"], "votes_revealed")
    assert "yellow" not in json.dumps(view(g, "green")["events"])
    g.answer("yellow", "vote", "yellow")
    assert by_type(view(g, "green")["events"], "votes_revealed")
    assert pending_kinds(g) == ["yellow:truck"]
    assert g.pending()[0].to_json()["cards"] == ["sprint", "camera", "threat"]
    assert view(g, "yellow")["requests"][0]["cards"] == ["sprint", "camera", "threat"]
    for colour in ("red", "green"):
        text = json.dumps(view(g, colour))
        for card in ("sprint", "camera", "threat"):
            assert f'"{card}"' not in text, (colour, card)
    g.answer("yellow", "truck", {"keep": "camera", "give": "threat", "to": "red"})
    red = view(g, "red")
    assert red["hand"] == ["threat"]
    green_text = json.dumps(view(g, "green"))
    for card in ("sprint", "camera", "threat"):
        assert f'"{card}"' not in green_text, card
    assert '"camera"' not in json.dumps(red)
    assert '"sprint"' not in json.dumps(red)


# =============================================================================================================
# Resolutions and options not covered above
# =============================================================================================================


@pytest.mark.rule("R-23", "B-5", "R-16")
def test_chief_role_passes_clockwise_to_a_player_with_characters() -> None:
    """R-23: an eliminated Chief passes the role at once to the next player clockwise who has characters."""
    chars = {
        "red": {"pinup": 4},
        "yellow": {},
        "blue": {"tough": 1, "gunman": 1},
        "green": {"pinup": 6, "tough": 6, "gunman": 3},
    }
    # F-1: counts 1:2, 6:2 (tie); Pin-Ups 4:1, 6:1 (tie): no extra. The Parking's zombie eats red's Pin-Up.
    pos = position(chars, phase="attack", zombies={4: 1}, eliminated={"yellow": 1})
    result = run(pos, [], dice=[1, 1, 1, 1])
    passed = events(result, "chief_passed")
    assert [e["chief"] for e in passed] == ["blue"]  # yellow has no characters: skipped
    # 5 characters remain: round 4 with blue as Chief (not elected, nobody at 5).
    check(
        result,
        [
            ["over", "==", False],
            ["state.round", "==", 4],
            ["state.chief", "==", "blue"],
            ["state.chief_elected", "==", False],
            ["pending_kinds", "==", ["blue:destination", "green:destination"]],
        ],
    )
    # red was eliminated in round 3, so it places a zombie at the end of D in round 4.
    after = run(pos, dests(("blue", 5), ("green", 5)), dice=[1, 1, 1, 1])
    check(after, [["pending_kinds", "==", ["red:zombie"]], ["state.eliminated.red", "==", 3]])


@pytest.mark.rule("R-31")
def test_zombie_supply_is_not_capped() -> None:
    """R-31: more than 30 zombies on the board are all placed; the engine only logs a warning."""
    chars = {
        "red": {"pinup": 6, "tough": 6, "gunman": 6},
        "yellow": {"pinup": 6, "tough": 6, "gunman": 6},
        "blue": {"pinup": 4, "tough": 4, "gunman": 4},
        "green": {"pinup": 4, "tough": 4, "gunman": 4},
        "black": {"pinup": 4, "tough": 4, "gunman": 4},
    }
    pos = arrival(chars, zombies={1: 7, 2: 7, 3: 7, 5: 7})  # 28 on the board
    d = dests(("red", 1), ("yellow", 1), ("blue", 3), ("green", 3), ("black", 5))
    result = run(pos, d, dice=[6, 6, 6, 6])
    check(
        result, [["state.zombies", "==", {"1": 7, "2": 7, "3": 7, "4": 0, "5": 7, "6": 4}], ["state.closed", "==", []]]
    )
    warned = events(result, "zombie_supply_exceeded")
    assert warned and warned[-1]["zombies"] == 32


@pytest.mark.rule("G", "SET-3")
def test_first_chief_option_names_the_first_chief() -> None:
    """G first_chief: a colour makes that player the first Chief; random draws one player."""
    g = new_game(FOUR, seed=11, options={"first_chief": "green", "turn_order": "strict"})
    assert g.chief == "green"
    assert g.position()["chief"] == "green" and g.position()["chief_elected"] is False
    assert [e["chief"] for e in by_type(g, "first_chief")] == ["green"]
    assert pending_kinds(g) == ["green:place"]
    chiefs = set()
    for seed in range(20):
        r = new_game(FOUR, seed=seed, options={"first_chief": "random"})
        assert r.chief in FOUR
        assert [e["chief"] for e in by_type(r, "first_chief")] == [r.chief]
        chiefs.add(r.chief)
    assert len(chiefs) >= 2, "a random first Chief should not always be the same player"
    with pytest.raises(ScenarioError):
        new_game(FOUR, seed=1, options={"first_chief": "white"})


@pytest.mark.rule("G")
def test_option_values_are_validated() -> None:
    """G: turn_order, sprint_timing and zombie_player accept only their listed values."""
    for name, good, bad in (
        ("turn_order", ["batched", "strict"], "fast"),
        ("sprint_timing", ["on_move", "after_moves"], "before_moves"),
        ("zombie_player", ["next_round", "every_round"], "never"),
    ):
        for value in good:
            new_game(FOUR, seed=1, options={name: value})
        with pytest.raises(ScenarioError):
            new_game(FOUR, seed=1, options={name: bad})
