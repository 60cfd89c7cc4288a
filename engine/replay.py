"""The after-game replay step by step (H-6): every logged answer with the request it answered, and the public
board at the end of each round and after each event.

``engine.replay(game)`` gives every secret of a finished game at once (events, hands, log); ``replay_steps(game)``
adds what a page showing the game round by round needs and cannot read from those: when each answer was given,
the request it answered, the answer a timeout stood for, and the board as it stood between rounds. Both refuse a
game that is not over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from .config import Config
from .data import Kind
from .game import Game
from .requests import answer_json, default, parse
from .shapes import JSON, LogEntry, PublicBoard, RequestJSON
from .view import _public


@dataclass(frozen=True, slots=True)
class ReplayAnswer:
    """One entry of the game's answer log, in the order given.

    A standing-order change (H-5) has ``standing_order`` and no ``kind``, ``request`` or ``answer``; an answer or
    a timeout has ``kind``, ``request`` (``Request.to_json()`` of the request it answered) and ``answer`` in the
    contract's JSON form (for a timeout, the H-4 default that was applied; None for an abstention). ``decided``: the
    timeout closed a vote already decided (the voter did not vote, nothing was missed).
    """

    #: the round (0: the setup) and the window (``Game.window_no``) in which it was given.
    round: int
    window: int
    player: str
    standing_order: tuple[str, ...] | None = None
    kind: Kind | None = None
    request: RequestJSON | None = None
    answer: JSON = None
    timeout: bool = False
    #: the answer came from the player's standing answers (``engine.standing_answer``).
    standing: bool = False
    #: a timeout given because the vote was already decided (``Game.timeout(decided=True)``): not a missed deadline.
    decided: bool = False


@dataclass(frozen=True, slots=True)
class Replay:
    """What ``replay_steps`` gives: the answer log step by step and the boards between rounds."""

    answers: tuple[ReplayAnswer, ...]
    #: the public board (``engine.spectator_view`` without its events) at the end of each round, taken just before
    #: the next round starts and with ``round`` set to the round that ended: round 0 (the setup) first; the last
    #: one is the board at the end of the game.
    boards: tuple[PublicBoard, ...]
    #: the public board as each event (``engine.replay``'s ``events[i]``) is told, the changes it tells of made,
    #: its ``round`` the event's: a replay that steps through the events one by one shows these.
    event_boards: tuple[PublicBoard, ...] = ()


def replay_steps(game: Game) -> Replay:
    """Replay a finished game's log on a fresh game; ValueError unless the game is over (like ``engine.replay``)."""
    if not game.over:
        raise ValueError("the replay is shown once the game is over")
    again = _BoardRecorder(game.config)
    answers = tuple(_replay_entry(again, entry) for entry in game.log)
    if again.position() != game.position() or len(again.events) != len(game.events):
        raise ValueError("the replayed log does not give the game's final state")
    return Replay(answers, (*again.boards, _board(again, again.round)), tuple(again.event_boards))


def _replay_entry(game: Game, entry: LogEntry) -> ReplayAnswer:
    """Apply one log entry to ``game``; return it as it was given."""
    at_round, window, player = game.round, game.window_no, str(entry["player"])
    if "standing_order" in entry:
        step = ReplayAnswer(at_round, window, player, standing_order=tuple(entry["standing_order"]))
    else:
        kind = Kind(entry["kind"])
        req = game.request_for(player, kind)
        timeout = bool(entry.get("timeout"))
        value = default(game, req, game.standing) if timeout else parse(game, req, entry["answer"])
        step = ReplayAnswer(
            at_round,
            window,
            player,
            kind=kind,
            request=req.to_json(),
            answer=answer_json(kind, value),
            timeout=timeout,
            standing=entry.get("standing") is True,
            decided=timeout and entry.get("decided") is True,
        )
    game.replay_entry(entry)
    return step


def _board(game: Game, round_: int) -> PublicBoard:
    board = _public(game)
    board["round"] = round_
    return board


class _BoardRecorder(Game):
    """A game that keeps the public board each time a round is about to start, and each time an event is told (the
    flow makes the changes an event tells of, then tells it)."""

    __slots__ = ("boards", "event_boards")

    def __init__(self, config: Config) -> None:
        self.boards: list[PublicBoard] = []
        self.event_boards: list[PublicBoard] = []
        super().__init__(config)  # the flow starts here: setup ends and round 1 starts

    def emit(self, type_: str, to: tuple[str, ...] | None = None, **fields: object) -> None:
        if type_ == "round_started":
            self.boards.append(_board(self, cast(int, fields["round"]) - 1))  # the round that just ended
        super().emit(type_, to, **fields)
        # the flow sets the new round just before telling ``round_started``, no event between: every event is told
        # in ``self.round``
        self.event_boards.append(_board(self, self.round))
