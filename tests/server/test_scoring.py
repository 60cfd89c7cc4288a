"""Scoring and standings: the scoring systems, tie-breaks, forfeit rules, substitutes, divisions with
promotion and relegation, and the CSV export, against worked examples computed by hand in the comments."""

from __future__ import annotations

import csv
import io
import random
from fractions import Fraction

import pytest

from server.services.leagues.scoring import (
    Credit,
    Ending,
    GameResult,
    Move,
    Row,
    SeatResult,
    from_outcome,
    promotion_relegation,
    standings,
    standings_by_division,
    standings_csv,
)
from server.services.play.places import placings

COLOURS = ("red", "green", "blue", "yellow", "brown", "black")


def game(
    game_id: int,
    *seats: tuple[int | None, int, int],
    ending: dict[int, Ending] | None = None,
    substitute: dict[int, int] | None = None,
) -> GameResult:
    """A finished game from ``(player, victory points, cards left)`` per seat; the winners are those placed first
    (END-3); ``ending``/``substitute``: player -> how their seat ended / who finished it."""
    ending, substitute = ending or {}, substitute or {}
    best = max((vp, cards) for _, vp, cards in seats)
    return GameResult(
        game_id,
        tuple(
            SeatResult(
                COLOURS[i],
                vp,
                cards,
                (vp, cards) == best,
                player,
                ending.get(player, Ending.PLAYED) if player is not None else Ending.PLAYED,
                substitute.get(player) if player is not None else None,
            )
            for i, (player, vp, cards) in enumerate(seats)
        ),
    )


def table(rows: list[Row]) -> list[tuple[int, int]]:
    """(rank, player) in order."""
    return [(row.rank, row.player) for row in rows]


# Two games of players 1 (A), 2 (B), 3 (C), 4 (D):
# game 10, a table of 4: A 10 VP 2 cards, B 10 VP 2 cards (tied for 1st: both win, END-3), C 7, D 3;
# game 11, a table of 3: A 5 VP 1 card, C 9, D 5 VP 3 cards (D before A on cards).
SEASON = [
    game(10, (1, 10, 2), (2, 10, 2), (3, 7, 0), (4, 3, 0)),
    game(11, (1, 5, 1), (3, 9, 0), (4, 5, 3)),
]


def test_placings_share_a_place_and_keep_the_given_order() -> None:
    # yellow 5 VP 4 cards is 1st; red and green 5 VP 2 cards share the 2nd place (span 2); blue 3 VP is 4th
    scores = {"red": 5, "green": 5, "blue": 3, "yellow": 5}
    cards = {"red": 2, "green": 2, "blue": 9, "yellow": 4}
    assert placings(["red", "green", "blue", "yellow"], scores, cards) == [
        ("yellow", 1, 1),
        ("red", 2, 2),
        ("green", 2, 2),
        ("blue", 4, 1),
    ]
    assert placings(["green", "red", "blue", "yellow"], scores, cards)[1:3] == [("green", 2, 2), ("red", 2, 2)]


def test_placement_points_worked_example() -> None:
    # placement: (n - place) / (n - 1), tied seats on their average place.
    # game 10 (n = 4): A and B tied for 1st span places 1 and 2 -> place 1.5 -> (4 - 1.5) / 3 = 5/6 each;
    #   C place 3 -> 1/3; D place 4 -> 0.
    # game 11 (n = 3): C 1st -> 1; D 2nd -> 1/2; A 3rd -> 0.
    # totals: C 1/3 + 1 = 4/3; A 5/6; B 5/6; D 0 + 1/2 = 1/2.
    # A and B are level on points; the first tie-break, victory points, puts A (10 + 5 = 15) before B (10).
    rows = standings(SEASON, "placement", ["victory_points"])
    assert table(rows) == [(1, 3), (2, 1), (3, 2), (4, 4)]
    points = {row.player: row.points for row in rows}
    expected = {3: Fraction(4, 3), 1: Fraction(5, 6), 2: Fraction(5, 6), 4: Fraction(1, 2)}
    assert points == {p: pytest.approx(float(v)) for p, v in expected.items()}
    # without tie-breaks A and B share the 2nd rank, and D is 4th
    assert table(standings(SEASON, "placement", [])) == [(1, 3), (2, 1), (2, 2), (4, 4)]


def test_placement_ties_share_the_average_of_their_places() -> None:
    # a table of 5 where three seats tie for 2nd: they span places 2, 3, 4 -> average 3 -> (5 - 3) / 4 = 1/2 each;
    # 1st scores 1 and 5th 0. A table's points always add up to n / 2, ties or not (here 1 + 3 * 1/2 + 0 = 5/2).
    shared = game(1, (1, 9, 0), (2, 5, 1), (3, 5, 1), (4, 5, 1), (5, 0, 0))
    points = {row.player: row.points for row in standings([shared], "placement")}
    assert points == {1: 1.0, 2: 0.5, 3: 0.5, 4: 0.5, 5: 0.0}
    rng = random.Random(14)
    for _ in range(200):
        size = rng.randint(3, 6)
        results = game(1, *((p, rng.randint(0, 3), rng.randint(0, 1)) for p in range(size)))
        assert sum(row.points for row in standings([results], "placement")) == pytest.approx(size / 2)


def test_victory_points_worked_example() -> None:
    # victory points: A 10 + 5 = 15, B 10, C 7 + 9 = 16, D 3 + 5 = 8
    rows = standings(SEASON, "victory_points")
    assert table(rows) == [(1, 3), (2, 1), (3, 2), (4, 4)]
    assert [row.points for row in rows] == [16, 15, 10, 8]
    assert [row.victory_points for row in rows] == [16, 15, 10, 8]


def test_wins_count_shared_victories_fully_and_tie_breaks_follow_the_order() -> None:
    # wins: A and B shared the victory of game 10 (1 each), C won game 11 -> A 1, B 1, C 1, D 0.
    # average places: A (1.5 + 3) / 2 = 2.25; B 1.5; C (3 + 1) / 2 = 2; D (4 + 2) / 2 = 3.
    # by victory points first: C 16, A 15, B 10; by average placement first: B 1.5, C 2, A 2.25.
    by_vp = standings(SEASON, "wins", ["victory_points", "average_placement"])
    assert table(by_vp) == [(1, 3), (2, 1), (3, 2), (4, 4)]
    assert [row.wins for row in by_vp] == [1, 1, 1, 0]
    assert table(standings(SEASON, "wins", ["average_placement", "victory_points"])) == [(1, 2), (2, 3), (3, 1), (4, 4)]
    # "wins" as a tie-break under victory points changes nothing here (no tie on VP); with no tie-break the three
    # winners share rank 1
    assert table(standings(SEASON, "wins", [])) == [(1, 1), (1, 2), (1, 3), (4, 4)]
    averages = {row.player: row.average_place for row in by_vp}
    assert averages == {1: 2.25, 2: 1.5, 3: 2.0, 4: 3.0}


# Head to head: players 1, 2, 3 each win one game of three (None: a bot seat).
# game 1: P1 8, P2 6, P3 4   -> P1 before P2 and P3, P2 before P3
# game 2: P2 9, P3 7, bot 1  -> P2 before P3
# game 3: P3 10, P1 5, bot 0 -> P3 before P1
# pairs: P1-P2 1:0; P1-P3 1:1; P2-P3 2:0 -> head to head among all three: P1 +1, P2 -1 + 2 = +1, P3 -2.
# victory points: P1 13, P2 15, P3 21. average places: P1 (1 + 2) / 2 = 1.5, P2 (2 + 1) / 2 = 1.5, P3 2.
HEAD = [
    game(1, (1, 8, 0), (2, 6, 0), (3, 4, 0)),
    game(2, (2, 9, 0), (3, 7, 0), (None, 1, 0)),
    game(3, (3, 10, 0), (1, 5, 0), (None, 0, 0)),
]


def test_head_to_head_first_then_victory_points() -> None:
    # head to head: P1 and P2 level at +1, P3 last at -2; victory points then put P2 (15) before P1 (13)
    assert table(standings(HEAD, "wins", ["head_to_head", "victory_points"])) == [(1, 2), (2, 1), (3, 3)]
    # head to head alone: P1 and P2 share the 1st rank
    assert table(standings(HEAD, "wins", ["head_to_head"])) == [(1, 1), (1, 2), (3, 3)]


def test_head_to_head_counts_only_the_players_still_tied() -> None:
    # average placement first: P1 and P2 level at 1.5, P3 third (2). Head to head between P1 and P2 alone: P1 was
    # placed before P2 in game 1 -> P1 first. (Among all three, P1 and P2 would still be level at +1.)
    assert table(standings(HEAD, "wins", ["average_placement", "head_to_head"])) == [(1, 1), (2, 2), (3, 3)]


def test_victory_points_first_leaves_head_to_head_unused() -> None:
    assert table(standings(HEAD, "wins", ["victory_points", "head_to_head"])) == [(1, 3), (2, 2), (3, 1)]


# A table of 4: player 1 (A) 12 VP, 1st, ended on autopilot; player 2 (B) 8 VP, 2nd, finished by substitute 5;
# player 3 (C) 5 VP, 3rd; player 4 (D) 2 VP, 4th. Placement points as played: 1, 2/3, 1/3, 0.
ABSENT = game(
    7,
    (1, 12, 0),
    (2, 8, 0),
    (3, 5, 0),
    (4, 2, 0),
    ending={1: Ending.AUTOPILOT, 2: Ending.SUBSTITUTED},
    substitute={2: 5},
)


def test_forfeit_as_played() -> None:
    rows = standings([ABSENT], "placement", forfeit="as_played")
    assert table(rows) == [(1, 1), (2, 2), (3, 3), (4, 4)]
    assert [row.points for row in rows] == pytest.approx([1, 2 / 3, 1 / 3, 0])
    assert rows[0].wins == 1
    assert rows[0].victory_points == 12


def test_forfeit_last() -> None:
    # A and B are scored as the table's last place (alone: place 4): 0 points, no win, the lowest VP at the table
    # (2). C keeps 1/3. A, B and D are then level on everything (0 points, 2 VP, no win, place 4, no head to head
    # difference), so they share the 2nd rank.
    rows = standings([ABSENT], "placement", forfeit="last")
    assert table(rows) == [(1, 3), (2, 1), (2, 2), (2, 4)]
    by = {row.player: row for row in rows}
    assert (by[1].points, by[1].wins, by[1].victory_points, by[1].average_place) == (0, 0, 2, 4)
    assert by[3].points == pytest.approx(1 / 3)
    assert standings([ABSENT], "victory_points", forfeit="last")[0].player == 3  # C 5 VP; A and B only 2


def test_forfeit_zero() -> None:
    # A and B get nothing and no place: 0 points, 0 VP, no average place; the game still counts as played.
    # C 1/3 first; D 0 points but 2 VP is 2nd; A and B level on everything share the 3rd rank.
    rows = standings([ABSENT], "placement", forfeit="zero")
    assert table(rows) == [(1, 3), (2, 4), (3, 1), (3, 2)]
    by = {row.player: row for row in rows}
    assert (by[1].points, by[1].wins, by[1].victory_points, by[1].average_place) == (0, 0, 0, None)
    assert (by[1].games, by[1].game_ids, by[1].places) == (1, [7], {})


def test_substitutes_are_counted_apart() -> None:
    for forfeit in ("last", "zero", "as_played"):
        assert 5 not in {row.player for row in standings([ABSENT], forfeit=forfeit)}
    # the substitute's own table: B's seat as it ended, 2nd of 4 -> 2/3 point, 8 VP
    (row,) = standings([ABSENT, *SEASON], "placement", substitutes=True)
    assert (row.player, row.rank, row.substitute, row.game_ids) == (5, 1, True, [7])
    assert (row.points, row.victory_points, row.average_place) == (pytest.approx(2 / 3), 8, 2.0)


def test_rows_list_their_games() -> None:
    rows = {row.player: row for row in standings([*SEASON, *HEAD])}
    assert rows[1].game_ids == [10, 11, 1, 3]
    assert rows[1].games == 4
    assert rows[2].game_ids == [10, 1, 2]


def test_from_outcome_reads_the_engine_outcome() -> None:
    outcome = {"scores": {"red": 7, "blue": 7, "green": 1}, "cards": {"red": 2, "blue": 2, "green": 0}}
    outcome["winners"] = ["red", "blue"]
    credits = {"red": Credit(1), "blue": Credit(2, Ending.SUBSTITUTED, 9)}
    result = from_outcome(3, outcome, credits)
    assert result.table_size == 3
    assert result.seats[1] == SeatResult("blue", 7, 2, True, 2, Ending.SUBSTITUTED, 9)
    assert result.seats[2].player is None  # no credit: a bot
    assert [row.player for row in standings([result], forfeit="as_played")] == [1, 2]


def test_bad_names_are_refused() -> None:
    with pytest.raises(ValueError, match="scoring system"):
        standings(SEASON, "elo")
    with pytest.raises(ValueError, match="tie-breaks"):
        standings(SEASON, tie_breaks=["coin"])
    with pytest.raises(ValueError, match="tie-breaks"):
        standings(SEASON, tie_breaks=["wins", "wins"])
    with pytest.raises(ValueError, match="forfeit"):
        standings(SEASON, forfeit="never")


# Three divisions of four: players 1-4 in "A" (the highest), 5-8 in "B", 9-12 in "C"; one game each, where the
# lower id scores more (so each division ranks by id). Player 13 has no division.
DIVISIONS = {p: "ABC"[(p - 1) // 4] for p in range(1, 13)}
LEAGUE = [
    game(100, (1, 9, 0), (2, 7, 0), (3, 5, 0), (4, 3, 0)),
    game(101, (5, 9, 0), (6, 7, 0), (7, 5, 0), (8, 3, 0)),
    game(102, (9, 9, 0), (10, 7, 0), (11, 5, 0), (12, 3, 0), (13, 0, 0)),
]


def test_standings_per_division() -> None:
    by = standings_by_division(LEAGUE, DIVISIONS)
    assert list(by) == ["A", "B", "C", None]
    assert table(by["B"]) == [(1, 5), (2, 6), (3, 7), (4, 8)]
    assert table(by["C"]) == [(1, 9), (2, 10), (3, 11), (4, 12)]
    assert table(by[None]) == [(1, 13)]
    assert {row.division for row in by["A"]} == {"A"}


def test_promotion_and_relegation() -> None:
    by = standings_by_division(LEAGUE, DIVISIONS)
    del by[None]
    # n = 1: the bottom of A goes down to B; the top of B up to A and its bottom down to C; the top of C up to B
    assert promotion_relegation(by, 1) == [
        Move(5, "B", "A"),
        Move(9, "C", "B"),
        Move(4, "A", "B"),
        Move(8, "B", "C"),
    ]
    # n = 3 in divisions of 4: B promotes 5, 6, 7 and only 8 is left to relegate
    moves = promotion_relegation(by, 3)
    assert [m.player for m in moves if m.source == "B"] == [5, 6, 7, 8]
    assert [m.destination for m in moves if m.source == "B"] == ["A", "A", "A", "C"]
    # an explicit order, highest first, overrides the mapping's
    assert promotion_relegation(by, 1, order=["C", "B", "A"])[0] == Move(5, "B", "C")
    assert promotion_relegation(by, 0) == []


def test_csv_round_trip() -> None:
    rows = standings([*SEASON, ABSENT], "placement", forfeit="zero")
    names = {1: 'Ann "the, first"', 2: "=HYPERLINK(1)", 3: "Carla", 4: "Dario"}
    text = standings_csv(rows, names)
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert [int(r["player"]) for r in parsed] == [row.player for row in rows]
    assert [int(r["rank"]) for r in parsed] == [row.rank for row in rows]
    for line, row in zip(parsed, rows, strict=True):
        assert float(line["points"]) == pytest.approx(row.points, abs=1e-4)
        assert int(line["games"]) == row.games
        assert int(line["wins"]) == row.wins
        assert int(line["victory_points"]) == row.victory_points
        assert [int(g) for g in line["game_ids"].split()] == row.game_ids
        assert line["substitute"] == "no"
        if row.average_place is None:
            assert line["average_place"] == ""
        else:
            assert float(line["average_place"]) == pytest.approx(row.average_place, abs=1e-4)
    by_player = {int(r["player"]): r for r in parsed}
    assert by_player[1]["name"] == 'Ann "the, first"'
    assert by_player[2]["name"] == "'=HYPERLINK(1)"  # kept as text in a spreadsheet, not a formula
    # game 7 (a "zero" forfeit for player 1) is listed with the games it played
    assert by_player[1]["game_ids"] == "10 11 7"
