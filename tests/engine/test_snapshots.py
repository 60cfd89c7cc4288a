"""Snapshots: a game restored from its latest snapshot plus the log after it is the game a full replay gives.

``Game.snapshot`` records the state at the start of each round; ``Game.restore`` starts the flow there and replays
only the later log entries. Checked at every window of every golden game and of bot games (3 to 6 players, both
turn orders, forced dice, timeouts and standing-order changes): the saved game, position, events, pending requests,
answers held, window number and snapshot are equal, and both games continued with the same answers end the same.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import Config, Game, ScenarioError
from engine.bots import RandomBot, SensibleBot
from engine.rng import Rng

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))
COLOURS = ["red", "yellow", "blue", "green", "black", "white"]


def stored(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events as a server stores and reads them back (JSON)."""
    loaded: list[dict[str, Any]] = json.loads(json.dumps(events))
    return loaded


def restored(game: Game) -> Game:
    snap = game.snapshot()
    events = [] if snap is None else stored(game.events[: snap["events"]])
    return Game.restore(json.loads(json.dumps(game.to_json())), snap, events)


def same(a: Game, b: Game) -> None:
    assert a.to_json() == b.to_json()
    assert a.position() == b.position()
    assert stored(a.events) == stored(b.events)
    assert [r.to_json() for r in a.pending()] == [r.to_json() for r in b.pending()]
    assert [a.answered(p) for p in a.players] == [b.answered(p) for p in b.players]
    assert a.window_no == b.window_no
    assert a.outcome == b.outcome
    assert a.snapshot() == b.snapshot()


def check_every_window(config: Config, log: list[dict[str, Any]]) -> int:
    """Replay ``log`` entry by entry; at each point the restored game equals the replayed one, and continuing it
    with the rest of the log ends in the same game. Returns how many restores used a snapshot."""
    full = Game(config)
    points = []
    for i in range(len(log) + 1):
        if i:
            full.replay_entry(log[i - 1])
        copy = restored(full)
        same(full, copy)
        points.append(copy)
    assert full.over
    for i, copy in enumerate(points):
        if i % 7 == 0 or i > len(log) - 3:  # continuing from every point is quadratic: every 7th and the last ones
            for entry in log[i:]:
                copy.replay_entry(entry)
            same(full, copy)
    return sum(p.snapshot() is not None for p in points)


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_game_restored_from_snapshot_equals_replay(path: Path) -> None:
    """Every golden game: at every window, snapshot + log tail gives exactly the full replay."""
    scenario = json.loads(path.read_text(encoding="utf-8"))["scenario"]
    config = Config.from_json({k: v for k, v in scenario.items() if k != "answers"})
    assert check_every_window(config, scenario["answers"]) > len(scenario["answers"]) // 2


def bot_log(config: Config, seed: int) -> list[dict[str, Any]]:
    """A bot game with timeouts and standing-order changes (some answering an open victim request)."""
    game = Game(config)
    rng = random.Random(seed)
    bots = {p: (SensibleBot if i % 2 else RandomBot)(seed + i) for i, p in enumerate(config.players)}
    while not game.over:
        req = game.pending()[0]
        roll = rng.random()
        if roll < 0.03:
            order = rng.sample(["pinup", "tough", "gunman", "girl"], rng.randint(0, 4))
            game.set_standing_order(req.player, order, answer_open=rng.random() < 0.5)
        elif roll < 0.1:
            game.timeout(req.player, req.kind)
        else:
            game.answer(req.player, req.kind, bots[req.player].decide(game, req))
    return game.log


BOT_GAMES = [
    (players, order, dice, seed)
    for seed, (players, order, dice) in enumerate(
        [
            (3, "strict", 0),
            (3, "batched", 12),
            (4, "batched", 0),
            (4, "strict", 30),
            (5, "strict", 0),
            (5, "batched", 40),
            (6, "batched", 0),
            (6, "strict", 8),
        ]
    )
]


@pytest.mark.parametrize(("players", "order", "dice", "seed"), BOT_GAMES)
def test_bot_game_restored_from_snapshot_equals_replay(players: int, order: str, dice: int, seed: int) -> None:
    """Bot games of 3 to 6 players, strict and batched, with and without forced dice (used up mid-game or not)."""
    rng = random.Random(seed)
    config = Config.from_json(
        {
            "players": COLOURS[:players],
            "seed": 1000 + seed,
            "options": {"turn_order": order, "first_chief": "random"},
            "dice": [rng.randint(1, 6) for _ in range(dice)],
        }
    )
    log = bot_log(config, seed)
    assert check_every_window(config, log) > len(log) // 2


def test_game_started_at_a_position_restores_from_its_rounds() -> None:
    """A game started at a position (Config.position) snapshots at its rounds' starts like any other."""
    chars = {"red": {"pinup": 1, "tough": 3}, "yellow": {"gunman": 5, "girl": 6}, "blue": {"tough": 4, "girl": 3}}
    for phase in ("truck", "chief", "attack"):
        config = Config.from_json(
            {
                "players": list(chars),
                "seed": 7,
                "position": {
                    "round": 2,
                    "phase": phase,
                    "chief": "red",
                    "chief_elected": False,
                    "closed": [2],
                    "characters": chars,
                    "zombies": {"1": 1, "3": 2, "4": 0, "5": 1, "6": 0},
                    "hands": {"red": ["axe"], "yellow": ["threat"], "blue": []},
                    "deck": ["camera", "sprint", "hidden", "bat", "pistol"],
                    "eliminated": {},
                },
            }
        )
        check_every_window(config, bot_log(config, 3))


def test_snapshot_is_none_before_the_first_round_and_then_covers_the_round_start() -> None:
    game = Game(Config.from_json({"players": COLOURS[:4], "seed": 5}))
    assert game.snapshot() is None
    assert Game.restore(game.to_json(), None, []).to_json() == game.to_json()  # no snapshot: a full replay
    bot = RandomBot(1)
    while game.snapshot() is None:
        req = game.pending()[0]
        game.answer(req.player, req.kind, bot.decide(game, req))
    snap = game.snapshot()
    assert snap is not None
    assert snap["log"] == len(game.log) and snap["state"]["round"] == 1 and "unplaced" not in snap["state"]
    assert len(json.dumps(snap)) < 3000


def test_restore_refuses_what_does_not_fit() -> None:
    game = Game(Config.from_json({"players": COLOURS[:3], "seed": 9}))
    bot = RandomBot(2)
    while game.snapshot() is None or len(game.log) == game.snapshot()["log"]:  # type: ignore[index]
        req = game.pending()[0]
        game.answer(req.player, req.kind, bot.decide(game, req))
    data, snap = game.to_json(), game.snapshot()
    assert snap is not None
    with pytest.raises(ScenarioError, match="events expected"):
        Game.restore(data, snap, stored(game.events[: snap["events"] - 1]))
    with pytest.raises(ScenarioError, match="not a snapshot"):
        Game.restore(data, {**snap, "log": len(data["log"]) + 1}, stored(game.events[: snap["events"]]))
    with pytest.raises(ScenarioError, match="does not give the saved state"):
        Game.restore(data, {**snap, "state": {**snap["state"], "deck": []}}, stored(game.events[: snap["events"]]))


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**31 - 1])
def test_counting_rng_skips_to_the_same_sequence(seed: int) -> None:
    """Rng counts 32-bit words; seeding and skipping that many gives the same sequence as drawing them."""
    a = Rng(seed)
    for _ in range(50):
        a.shuffle(list(range(21)))
        a.choice(["red", "yellow", "blue", "green", "black"])
        a.random()
        a.getrandbits(70)
    b = Rng(seed)
    b.skip(a.drawn)
    assert b.drawn == a.drawn
    assert [a.random() for _ in range(5)] == [b.random() for _ in range(5)]
    deck_a, deck_b = list(range(21)), list(range(21))
    a.shuffle(deck_a)
    b.shuffle(deck_b)
    assert deck_a == deck_b and a.choice(COLOURS) == b.choice(COLOURS) and a.drawn == b.drawn
