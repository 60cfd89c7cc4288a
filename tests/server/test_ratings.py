"""Ratings: OpenSkill Plackett–Luce on each finished game's placements, checked against openskill called
directly: ties, 3- and 6-player games, bots left out with their places kept, a substitute's partial play, the
finish order, "new" under 5 games, the history, and a person absent from a game left unchanged."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from openskill.models import PlackettLuce, PlackettLuceRating

from server.services.leagues.ratings import (
    NEW_BELOW,
    Rating,
    Shown,
    rate_games,
    shown,
)
from server.services.play.places import FinishedGame, SeatResult, Tenure

T0 = datetime(2025, 3, 1, 12, tzinfo=UTC)
OS = PlackettLuce()


def game(
    id: int, *seats: tuple[int, int | tuple[tuple[int | None, float], ...] | None], hours: int = 0
) -> FinishedGame:
    """A game from (placement, player id, or None for a bot, or ((player id, share), ...)) per seat."""
    results = []
    for placement, who in seats:
        tenures = tuple(Tenure(p, s) for p, s in who) if isinstance(who, tuple) else (Tenure(who),)
        results.append(SeatResult(placement, tenures))
    return FinishedGame(id, T0 + timedelta(hours=hours or id), tuple(results))


def direct(ratings: dict[int, PlackettLuceRating], players: list[int], ranks: list[int]) -> None:
    """Rate one game of one-player seats with openskill itself, updating ``ratings``."""
    teams = [[ratings.setdefault(p, OS.rating())] for p in players]
    for p, [after] in zip(players, OS.rate(teams, ranks=[float(r) for r in ranks]), strict=True):
        ratings[p] = after


def same(ours: dict[int, Rating], theirs: dict[int, PlackettLuceRating]) -> None:
    assert ours.keys() == theirs.keys()
    for p, r in theirs.items():
        assert ours[p].mu == pytest.approx(r.mu, abs=1e-12), p
        assert ours[p].sigma == pytest.approx(r.sigma, abs=1e-12), p
        assert ours[p].ordinal == pytest.approx(r.ordinal(), abs=1e-12), p


def test_games_with_ties_three_and_six_players_equal_openskill():
    games = [
        game(1, (1, 1), (2, 2), (3, 3)),
        game(2, (2, 1), (1, 2), (2, 3), (4, 4)),  # a tie for 2nd
        game(3, (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6)),
        game(4, (3, 4), (1, 5), (1, 6)),  # a tie for 1st
        game(5, (6, 6), (5, 5), (4, 4), (3, 3), (3, 2), (1, 1)),
    ]
    theirs: dict[int, PlackettLuceRating] = {}
    direct(theirs, [1, 2, 3], [1, 2, 3])
    direct(theirs, [1, 2, 3, 4], [2, 1, 2, 4])
    direct(theirs, [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6])
    direct(theirs, [4, 5, 6], [3, 1, 1])
    direct(theirs, [6, 5, 4, 3, 2, 1], [6, 5, 4, 3, 3, 1])
    ours = rate_games(games)
    same(ours, theirs)
    assert ours[1].games == 4 and ours[6].games == 3
    # the tie is a tie: equal ratings going in, equal placements, equal ratings out
    assert ours[5].mu != ours[6].mu  # (they differed before game 4)
    tied = rate_games([game(1, (1, 7), (1, 8), (3, 9))])
    assert tied[7].mu == tied[8].mu > tied[9].mu


def test_bots_are_left_out_with_their_places_kept():
    # bots 1st and 4th; people 2nd, 3rd and 5th
    ours = rate_games([game(1, (1, None), (2, 1), (3, 2), (4, None), (5, 3))])
    theirs: dict[int, PlackettLuceRating] = {}
    direct(theirs, [1, 2, 3], [2, 3, 5])
    same(ours, theirs)
    # the same as ranking the people 1, 2, 3 among themselves: openskill only compares ranks
    plain: dict[int, PlackettLuceRating] = {}
    direct(plain, [1, 2, 3], [1, 2, 3])
    same(ours, plain)


def test_a_game_with_one_person_and_bots_is_not_rated():
    ours = rate_games([game(1, (1, 1), (2, None), (3, None)), game(2, (1, None), (2, None), (3, 2))])
    assert ours == {}


def test_a_substitute_moves_by_their_share_of_the_seat():
    # seat played by 1 (0.7 of the game) then 2 (0.3); 3 and 4 played whole seats. 1 and 2 come in with history.
    warmup = [game(1, (1, 1), (2, 5), (3, 6)), game(2, (3, 2), (1, 5), (2, 6))]
    shared = game(3, (2, ((1, 0.7), (2, 0.3))), (1, 3), (3, 4))
    ours = rate_games([*warmup, shared])

    theirs: dict[int, PlackettLuceRating] = {}
    direct(theirs, [1, 5, 6], [1, 2, 3])
    direct(theirs, [2, 5, 6], [3, 1, 2])
    one, two = theirs[1], theirs[2]
    # the seat plays as one player: the share-weighted mix of its people
    seat = OS.rating(mu=0.7 * one.mu + 0.3 * two.mu, sigma=math.sqrt(0.7 * one.sigma**2 + 0.3 * two.sigma**2))
    three, four = OS.rating(), OS.rating()
    [[seat_after], [three_after], [four_after]] = OS.rate([[seat], [three], [four]], ranks=[2.0, 1.0, 3.0])
    assert ours[3].mu == pytest.approx(three_after.mu) and ours[3].sigma == pytest.approx(three_after.sigma)
    assert ours[4].mu == pytest.approx(four_after.mu) and ours[4].sigma == pytest.approx(four_after.sigma)
    for person, before, share in ((1, one, 0.7), (2, two, 0.3)):
        assert ours[person].mu == pytest.approx(before.mu + share * (seat_after.mu - seat.mu))
        assert ours[person].sigma == pytest.approx(before.sigma * (seat_after.sigma / seat.sigma) ** share)
        assert ours[person].games == 2
    assert ours[1].history[-1].game_id == ours[2].history[-1].game_id == 3

    # partial play: of two fresh people sharing a seat, the one who played more moves more
    fresh = rate_games([game(1, (1, ((7, 0.75), (8, 0.25))), (2, 9), (3, 10))])
    assert fresh[7].mu - 25 > fresh[8].mu - 25 > 0
    assert fresh[7].sigma < fresh[8].sigma < 25 / 3
    # and the other seats are rated as against one fresh player: a substitution elsewhere changes nothing for them
    alone = rate_games([game(1, (1, 7), (2, 9), (3, 10))])
    assert fresh[9].mu == pytest.approx(alone[9].mu) and fresh[10].sigma == pytest.approx(alone[10].sigma)


def test_a_bot_taking_over_leaves_the_person_their_share():
    ours = rate_games([game(1, (1, ((1, 0.6), (None, 0.4))), (2, 2), (3, 3))])
    theirs: dict[int, PlackettLuceRating] = {}
    direct(theirs, [1, 2, 3], [1, 2, 3])
    assert ours[1].mu == pytest.approx(25 + 0.6 * (theirs[1].mu - 25))
    assert ours[2].mu == pytest.approx(theirs[2].mu)


def test_games_are_applied_in_finish_order():
    early = game(1, (1, 1), (2, 2), (3, 3), hours=1)
    late = game(2, (3, 1), (1, 2), (2, 3), hours=2)
    in_order = rate_games([early, late])
    assert rate_games([late, early]) == in_order  # given in any order, applied as they finished
    theirs: dict[int, PlackettLuceRating] = {}
    direct(theirs, [1, 2, 3], [1, 2, 3])
    direct(theirs, [1, 2, 3], [3, 1, 2])
    same(in_order, theirs)
    # and the order matters: the other way round gives other ratings
    backwards: dict[int, PlackettLuceRating] = {}
    direct(backwards, [1, 2, 3], [3, 1, 2])
    direct(backwards, [1, 2, 3], [1, 2, 3])
    assert any(abs(backwards[p].mu - in_order[p].mu) > 1e-6 for p in (1, 2, 3))
    assert [point.game_id for point in in_order[1].history] == [1, 2]


def test_new_under_five_games_and_shown_as_unknown():
    games = [game(i, (1 + i % 3, 1), (1 + (i + 1) % 3, 2), (1 + (i + 2) % 3, 3)) for i in range(1, NEW_BELOW + 1)]
    assert NEW_BELOW == 5
    before = rate_games(games[:-1])
    assert before[1].games == 4 and before[1].new
    assert shown(before[1]) == shown(None) == Shown(None, None, True)
    after = rate_games(games)
    assert after[1].games == 5 and not after[1].new
    page = shown(after[1])
    assert page.new is False
    assert page.ordinal == round(after[1].mu - 3 * after[1].sigma)
    assert page.uncertainty == round(2 * after[1].sigma)


def test_a_low_new_rating_is_not_shown_as_low():
    # four last places: a low ordinal, but new, so unknown
    ours = rate_games([game(i, (1, 2), (2, 3), (3, 1)) for i in range(1, 5)])
    assert ours[1].ordinal < ours[2].ordinal
    assert shown(ours[1]).ordinal is None


def test_history_has_one_point_per_game_ending_at_the_current_ordinal():
    games = [
        game(1, (1, 1), (2, 2), (3, 3)),
        game(2, (1, 2), (2, 3), (3, 4)),  # 1 absent
        game(3, (2, 1), (1, 4), (3, 5), (4, None)),
    ]
    ours = rate_games(games)
    assert [(p.game_id, p.finished_at) for p in ours[1].history] == [
        (1, games[0].finished_at),
        (3, games[2].finished_at),
    ]
    for rating in ours.values():
        assert len(rating.history) == rating.games
        assert rating.history[-1].ordinal == rating.ordinal
    assert len(ours[2].history) == 2 and len(ours[5].history) == 1


def test_a_person_absent_from_a_game_is_unchanged():
    first = game(1, (1, 1), (2, 2), (3, 3))
    without_1 = game(2, (1, 2), (2, 3), (3, 4))
    before = rate_games([first])
    after = rate_games([first, without_1])
    assert (after[1].mu, after[1].sigma, after[1].games) == (before[1].mu, before[1].sigma, 1)
    assert after[2].mu != before[2].mu


def test_per_league_and_across_all_games_are_the_same_function():
    league = [game(1, (1, 1), (2, 2), (3, 3)), game(3, (2, 1), (1, 2), (3, 3))]
    other = [game(2, (1, 3), (2, 1), (3, 4))]
    in_league = rate_games(league)
    overall = rate_games(league + other)
    assert in_league[1].games == 2 and overall[1].games == 3
    assert 4 not in in_league
    assert [p.game_id for p in overall[1].history] == [1, 2, 3]


def test_one_person_in_two_seats_is_refused():
    with pytest.raises(ValueError):
        rate_games([game(1, (1, 1), (2, 1), (3, 2))])
