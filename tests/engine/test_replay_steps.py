"""``engine.replay_steps`` (H-6): a finished game's answer log step by step, and the public board between rounds.

The expected values are derived here the way the server's replay page derived them before the engine offered
them: a fresh game replays the log, keeps the public board (``spectator_view`` without its events) just before
each ``round_started`` event, and for each log entry reads the request it answered and the checked answer (the
H-4 default for a timeout).
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import Game, Kind, Replay, ReplayAnswer, new_game, replay, replay_steps, spectator_view
from engine.bots import RandomBot
from engine.config import Config
from engine.requests import answer_json, default

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


def played(scenario: dict[str, Any]) -> Game:
    """The game a golden scenario plays, through the Python API."""
    game = Game(Config.from_json({k: v for k, v in scenario.items() if k != "answers"}))
    for entry in scenario["answers"]:
        game.replay_entry(entry)
    return game


def public_board(game: Game) -> dict[str, Any]:
    board = spectator_view(game)
    del board["events"]
    return board


class BoardKeeper(Game):
    """A game keeping the public board each time a round is about to start (with the round that ended)."""

    def __init__(self, config: Config) -> None:
        self.boards: list[dict[str, Any]] = []
        super().__init__(config)

    def emit(self, type_: str, to: tuple[str, ...] | None = None, **fields: Any) -> None:
        if type_ == "round_started":
            board = public_board(self)
            board["round"] = int(fields.get("round", self.round)) - 1
            self.boards.append(board)
        super().emit(type_, to, **fields)


def reference(game: Game) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The answers and boards of a finished game, read step by step from a replay of its saved log."""
    saved = game.to_json()
    again = BoardKeeper(Config.from_json(saved["config"]))
    answers = []
    for entry in saved["log"]:
        row: dict[str, Any] = {"round": again.round, "window": again.window_no, "player": entry["player"]}
        if "standing_order" in entry:
            row["standing_order"] = list(entry["standing_order"])
        else:
            req = again.request_for(entry["player"], entry["kind"])
            timeout = bool(entry.get("timeout"))
            value = (
                default(again, req, again.standing) if timeout else again.check(req.player, req.kind, entry["answer"])
            )
            row["kind"] = entry["kind"]
            row["request"] = req.to_json()
            row["answer"] = None if value is None else answer_json(req.kind, value)
            row["timeout"] = timeout
        answers.append(row)
        again.replay_entry(entry)
    return answers, [*again.boards, public_board(again)]


def rows(steps: Replay) -> list[dict[str, Any]]:
    """``replay_steps``'s answers in the reference's shape."""
    out = []
    for step in steps.answers:
        row: dict[str, Any] = {"round": step.round, "window": step.window, "player": step.player}
        if step.standing_order is not None:
            assert step.kind is None and step.request is None and step.answer is None and not step.timeout
            row["standing_order"] = list(step.standing_order)
        else:
            row.update(kind=step.kind, request=step.request, answer=step.answer, timeout=step.timeout)
        out.append(row)
    return out


def same_json(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def bot_game(seed: int, players: int, turn_order: str) -> Game:
    """A whole bot game with standing orders set and changed along the way, and some timeouts."""
    rng = random.Random(seed)
    game = new_game(["red", "yellow", "blue", "green", "black", "white"][:players], seed, {"turn_order": turn_order})
    bots = {p: RandomBot(seed * 10 + i) for i, p in enumerate(game.players)}
    while not game.over:
        if rng.random() < 0.04:
            order = ["girl", "gunman", "tough", "pinup"]
            rng.shuffle(order)
            game.set_standing_order(rng.choice(game.players), order[: rng.randrange(5)])
            continue
        req = game.pending()[0]
        if rng.random() < 0.15:
            game.timeout(req.player, req.kind)
        else:
            game.answer(req.player, req.kind, bots[req.player].decide(game, req))
    return game


@pytest.mark.rule("H-6", "H-4", "H-1")
@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_replay_steps_give_what_a_step_by_step_reading_of_each_golden_game_gives(path: Path) -> None:
    """Every answer of a golden game with its round, window, request and (defaulted) answer, and every board."""
    game = played(json.loads(path.read_text(encoding="utf-8"))["scenario"])
    answers, boards = reference(game)
    steps = replay_steps(game)
    assert rows(steps) == answers
    assert list(steps.boards) == boards
    assert same_json(list(steps.boards), boards)  # the same JSON too (Kind and Phase are plain strings there)
    assert len(steps.answers) == len(game.log)


@pytest.mark.rule("H-6", "H-5", "H-4")
@pytest.mark.parametrize(("seed", "players", "turn_order"), [(1, 3, "strict"), (2, 4, "batched"), (3, 6, "batched")])
def test_replay_steps_show_standing_orders_and_timeouts(seed: int, players: int, turn_order: str) -> None:
    """A standing-order change is a step of its own; a timeout shows the default answer it stood for (H-4)."""
    game = bot_game(seed, players, turn_order)
    steps = replay_steps(game)
    answers, boards = reference(game)
    assert rows(steps) == answers
    assert list(steps.boards) == boards
    orders = [s for s in steps.answers if s.standing_order is not None]
    timeouts = [s for s in steps.answers if s.timeout]
    assert orders and timeouts
    assert all(isinstance(s.kind, Kind) for s in steps.answers if s.standing_order is None)
    cards = [s for s in timeouts if s.kind == "cards"]
    assert all(s.answer == [] for s in cards)  # H-4: a timed-out card window plays nothing


@pytest.mark.rule("H-6", "RND-1", "END-1")
def test_replay_boards_are_public_one_per_round_from_the_setup_to_the_end() -> None:
    """Board i is the table at the end of round i (0: the setup); the last is the final table; no secret."""
    game = bot_game(4, 5, "batched")
    steps = replay_steps(game)
    assert [b["round"] for b in steps.boards] == list(range(game.round + 1))
    assert steps.boards[0]["phase"] == "setup" and steps.boards[0]["zombies"] != {}
    assert steps.boards[-1] == public_board(game)
    assert steps.boards[-1]["over"] is True
    for board in steps.boards:
        assert not {"events", "hand", "hands", "deck", "dice", "requests", "answered"} & set(board)
        assert board["waiting_for"] == []  # taken between rounds, when no one is asked anything


@pytest.mark.rule("H-6")
def test_replay_steps_refuse_a_running_game_and_are_frozen() -> None:
    """Nothing of a running game is revealed (like ``engine.replay``); the steps cannot be changed."""
    game = new_game(["red", "yellow", "blue"], seed=3)
    with pytest.raises(ValueError, match="once the game is over"):
        replay_steps(game)
    with pytest.raises(ValueError, match="once the game is over"):
        replay(game)
    step = ReplayAnswer(round=1, window=2, player="red", standing_order=("girl",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.round = 2  # type: ignore[misc]


#: what the events tell of (a phase begins, and a round's marks are cleared, without one).
TOLD = ("characters", "zombies", "closed", "chief", "eliminated", "hand_sizes", "deck_size", "over", "outcome")


@pytest.mark.rule("H-6", "RND-1")
@pytest.mark.parametrize("players", [3, 5])
def test_replay_has_the_public_board_as_each_event_is_told(players: int) -> None:
    """One board per event, in the event's round: after each log entry the board of its last event shows the
    table's pieces as they then stand; each character's place, move and end are on its event's board."""
    game = bot_game(7, players, "strict")
    steps = replay_steps(game)
    events = replay(game)["events"]
    assert len(steps.event_boards) == len(events)
    rounds = [0]
    for event in events[1:]:
        rounds.append(int(event["round"]) if event["type"] == "round_started" else rounds[-1])
    assert [b["round"] for b in steps.event_boards] == rounds
    again = Game(game.config)
    for entry in game.log:
        again.replay_entry(entry)
        told, now = steps.event_boards[len(again.events) - 1], public_board(again)
        assert {k: told[k] for k in TOLD} == {k: now[k] for k in TOLD}  # type: ignore[literal-required]
    assert steps.event_boards[-1] == steps.boards[-1]
    for event, board in zip(events, steps.event_boards, strict=True):
        assert not {"events", "hand", "hands", "deck", "dice", "requests", "answered"} & set(board)
        if event["type"] in ("moved", "placed"):
            assert board["characters"][event["player"]][event["character"]] == event["location"]
        elif event["type"] == "eaten":
            assert event["character"] not in board["characters"].get(event["player"], {})
