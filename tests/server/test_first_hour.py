"""Paper cuts of a new user's first hour (issue 25), server side: the board says in words which location is under
attack and which are in danger, and why Cachou is closed; the legend does not say "you" twice; time zones are
offered by region and city; the tempo presets describe themselves; the estimate says how long it took."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.data import Phase
from engine.view import spectator_view
from server.present import board, public

from .test_board import figure_of, legend_text, locations, played_until, texts, title

FIVE = ["red", "yellow", "blue", "green", "black"]


def attack_views(players: list[str], seeds: range) -> list[dict[str, Any]]:
    """Spectator views of real games of sensible bots at each window of phase F whose attack is under way."""
    from engine.bots import SensibleBot

    found = []
    for seed in seeds:
        game = engine.new_game(players, seed=seed)
        bots = {p: SensibleBot(seed + i) for i, p in enumerate(game.players)}
        while not game.over and game.round <= 3:
            if game.phase == Phase.ATTACK:
                view = spectator_view(game)
                if public.attack_under_way(view) is not None:
                    found.append(view)
            req = game.pending()[0]
            game.answer(req.player, req.kind, bots[req.player].decide(game, req))
    return found


@pytest.mark.rule("F-2", "F-3")
def test_every_location_in_danger_and_the_one_under_attack_say_so_in_words() -> None:
    """Each location in danger says "IN DANGER" in the room, whatever its width (the shops' half rooms once showed
    only a sign); the location whose attack is fought says "UNDER ATTACK", in the picture, its title and the mail's
    table, and the legend explains it."""
    seen = {"half": 0, "attacked": 0}
    for view in attack_views(FIVE, range(8)):
        root = figure_of(view, reader=None)
        current = public.attack_under_way(view)
        rows = {row["number"]: row for row in board.table("en", view)["rows"]}
        for loc, group in locations(root).items():
            classes = (group.get("class") or "").split()
            danger = public.in_danger(view, loc)
            assert ("IN DANGER" in texts(group, "danger-text")) == danger, loc
            assert ("in danger" in rows[loc]["marks"]) == danger
            attacked = loc == current
            assert ("attacked" in classes) == attacked
            assert ("UNDER ATTACK" in texts(group, "attack-text")) == attacked
            assert ("under attack now" in title(group)) == attacked
            assert ("under attack now" in rows[loc]["marks"]) == attacked
            seen["half"] += danger and loc in (1, 2, 3, 5)
            seen["attacked"] += attacked
        assert "under attack now" in legend_text(root)
    assert all(seen.values()), seen


@pytest.mark.rule("SET-4")
@pytest.mark.parametrize(
    ("lang", "words", "why"),
    [
        ("en", "closed with 3 or 4 players", "with 3 or 4 players"),
        ("it", "chiusa con 3 o 4 giocatori", "con 3 o 4 giocatori"),
        ("pl", "zamknięta przy 3 lub 4 graczach", "przy 3 lub 4 graczach"),
    ],
)
def test_cachou_closed_with_few_players_says_why_on_the_board_and_in_the_mail_table(
    lang: str, words: str, why: str
) -> None:
    view = spectator_view(played_until(["red", "yellow", "blue", "green"], 3, 1, Phase.DESTINATIONS))
    cachou = locations(figure_of(view, lang, reader=None))[2]
    assert texts(cachou, "closed-why") == [why]
    assert words in title(cachou)
    row = board.table(lang, view)["rows"][1]
    assert row["number"] == 2 and row["closed"] and row["closed_text"] == words
    # with five players Cachou is open; a location the zombies closed says so (E-3)
    five = spectator_view(played_until(FIVE, 3, 1, Phase.DESTINATIONS))
    assert not texts(locations(figure_of(five, lang, reader=None))[2], "closed-why")


@pytest.mark.parametrize("name", ["You", "you", " YOU "])
def test_the_legend_does_not_say_you_twice_for_a_player_named_you(name: str) -> None:
    view = engine.view(played_until(["red", "yellow", "blue"], 3, 1, Phase.DESTINATIONS), "red")
    legend = legend_text(figure_of_named(view, {"red": name, "yellow": "Ann"}))
    assert "(Red)" in legend and "(you)" not in legend
    legend = legend_text(figure_of_named(view, {"red": "Bruno", "yellow": "You"}))
    assert "Bruno (Red) (you)" in legend  # another player named You does not hide the reader's mark


def figure_of_named(view: dict[str, Any], names: dict[str, str]) -> Any:
    import xml.etree.ElementTree as ET

    return ET.fromstring(str(board.board_svg(view, "en", "red", names)))
