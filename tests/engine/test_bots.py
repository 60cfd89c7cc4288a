"""Bots answer through the same API as people, legally, and the sensible one plays sensibly."""

from __future__ import annotations

import pytest

from engine import Game, new_game
from engine.bots import RandomBot, SensibleBot, play_game
from engine.config import Config

from .support import position


def at(pos: dict, **options: str) -> Game:
    """A game at a position, strict turn order unless told otherwise."""
    players = list(pos["characters"])
    return Game(Config.from_json({"players": players, "options": {"turn_order": "strict", **options}, "position": pos}))


@pytest.mark.rule("H-1", "H-2")
@pytest.mark.parametrize("bot", [RandomBot, SensibleBot])
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_bots_play_whole_games_through_the_public_api(bot: type, players: int) -> None:
    """Every answer a bot gives is accepted by Game.answer, and the game reaches its end."""
    colours = ["red", "yellow", "blue", "green", "black", "white"][:players]
    for seed in range(5):
        game = new_game(colours, seed=seed, options={"turn_order": "strict" if seed % 2 else "batched"})
        play_game(game, {p: bot(seed * 10 + i) for i, p in enumerate(colours)})
        assert game.over
        assert game.outcome is not None
        assert len(game.log) > players * 3  # at least the setup placements were answered by the bots


@pytest.mark.rule("END-2")
def test_sensible_bot_beats_random_bots() -> None:
    """Over 100 four-player games, one sensible bot among three random ones wins far more than its share."""
    wins = 0
    for seed in range(100):
        game = new_game(["red", "yellow", "blue", "green"], seed=seed)
        bots = {p: RandomBot(seed * 10 + i) for i, p in enumerate(game.players)}
        smart = game.players[seed % 4]
        bots[smart] = SensibleBot(seed)
        play_game(game, bots)
        assert game.outcome is not None
        wins += smart in game.outcome["winners"]
    assert wins >= 40  # a random seat wins about 25 % of the time; measured: about 60 %


@pytest.mark.rule("VOT-1")
def test_sensible_bot_votes_against_the_leader() -> None:
    """At a contested vote it votes for the other colour with the most points, not for itself."""
    pos = position(
        {
            "red": {"gunman": 4},
            "yellow": {"pinup": 4, "tough": 1},
            "blue": {"girl": 4, "gunman": 1},
        },
        phase="truck",
        deck=["axe", "bat", "sprint"],
    )
    game = at(pos)
    vote = next(r for r in game.pending() if r.player == "red")
    assert vote.kind == "vote"
    assert SensibleBot(0).decide(game, vote) == "yellow"  # yellow leads with 12 points


@pytest.mark.rule("F-4")
def test_sensible_bot_plays_a_weapon_that_saves_its_character() -> None:
    """Facing an attack it can stop, it plays enough weapons, marked if_needed, and keeps the rest."""
    # Location 1: red Pin-Up + yellow Pin-Up (strength 2) and 2 zombies; F-1: most characters tied (2 at 1, 3 and
    # 6), most Pin-Ups at 1 (2): 3 zombies. A Grenade (2) leaves 1 < 2; the Axe is not needed.
    pos = position(
        {"red": {"pinup": 1, "tough": 3}, "yellow": {"pinup": 1, "gunman": 6}, "blue": {"pinup": 3, "gunman": 6}},
        zombies={1: 2},
        hands={"red": ["grenade", "axe"]},
        closed=[2],
    )
    game = at(pos)
    req = game.pending()[0]
    assert (req.player, req.kind, req.info["location"]) == ("red", "cards", 1)
    plays = SensibleBot(0).decide(game, req)
    assert plays == [{"card": "grenade", "if_needed": True}]
    game.answer(req.player, req.kind, plays)
    assert game.zombies[1] == 1
    assert game.hands["red"] == ["axe"]
    assert game.chars["red"]["pinup"] == 1


@pytest.mark.rule("D-2")
def test_sensible_bot_moves_away_from_danger() -> None:
    """It does not walk into a location whose zombies already outnumber anyone who could hold it."""
    pos = position(
        {"red": {"pinup": 4, "tough": 3}, "yellow": {"pinup": 6, "gunman": 6}, "blue": {"pinup": 3, "gunman": 6}},
        phase="arrival",
        zombies={1: 5, 3: 2, 5: 0, 6: 1},
    )
    game = Game(
        Config.from_json(
            {
                "players": ["red", "yellow", "blue"],
                "options": {"turn_order": "strict"},
                "position": pos,
                "dice": [1, 1, 3, 3],
            }
        )
    )
    req = next(r for r in game.pending() if r.player == "red")
    assert req.kind == "destination"
    assert req.options == [1, 3, 4, 5, 6]
    assert SensibleBot(0).decide(game, req) in (5, 6)  # 1 has 5 zombies; 3 and 4 hold red's own characters
