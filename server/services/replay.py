"""The after-game replay (issue 5): every event of a finished game, private ones included with who saw them,
grouped by round, with the answers given and the public board at the end of each round.

Only a finished game is replayed (``engine.replay`` refuses a running one, and so does everything here). The
boards are rebuilt by replaying the game's answer log step by step on a fresh engine game, and taking the public
board (``engine.spectator_view`` without its events) just before each ``round_started`` event, that is when the
round changes, and once more at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import engine
from engine.config import Config
from engine.requests import answer_json, default

from .. import i18n, narrate
from ..board import board_svg
from ..db import Database
from ..models import Game, Seat
from . import mails
from .games import CACHE

__all__ = [
    "ReplayAnswer",
    "ReplayEvent",
    "ReplayRefused",
    "RoundReplay",
    "public_board",
    "replay_page_context",
    "rounds",
]


class ReplayRefused(ValueError):
    """The game is not over: nothing of it is revealed."""


@dataclass
class ReplayEvent:
    index: int
    type: str
    text: str
    #: who saw it when it happened: None for a public event, else the colours (empty: nobody, the replay only).
    seen_by: list[str] | None
    #: "seen by Red, Blue" / "seen by nobody until now"; None for a public event.
    seen_by_text: str | None


@dataclass
class ReplayAnswer:
    window: int
    player: str
    kind: str
    #: the answer in the contract's JSON form (the default one for a timeout; None for a standing order).
    answer: Any
    timeout: bool
    text: str
    #: the player's colour as a name ("Red", "Rosso").
    who: str = ""


@dataclass
class RoundReplay:
    round: int
    events: list[ReplayEvent] = field(default_factory=list)
    answers: list[ReplayAnswer] = field(default_factory=list)
    #: the public board at the end of the round, shaped like the public part of ``engine.view``.
    board_view: dict[str, Any] = field(default_factory=dict)


def public_board(game: engine.Game) -> dict[str, Any]:
    """The table as everyone sees it now: ``engine.spectator_view`` without the events."""
    board = engine.spectator_view(game)
    del board["events"]
    return board


class _Recorder(engine.Game):
    """An engine game that keeps the public board each time a round is about to start (the end of the last)."""

    def __init__(self, config: Config) -> None:
        self.boards: list[dict[str, Any]] = []
        super().__init__(config)

    def emit(self, type_: str, to: tuple[str, ...] | None = None, **fields: Any) -> None:
        if type_ == "round_started":
            board = public_board(self)
            board["round"] = int(fields.get("round", self.round)) - 1  # the round that just ended
            self.boards.append(board)
        super().emit(type_, to, **fields)


def _seen_by(lang: str, to: list[str] | None) -> str | None:
    if to is None:
        return None
    t = i18n.translations(lang)
    if not to:
        return str(t.gettext("seen by nobody until now"))
    names = ", ".join(narrate.colour_name(lang, c) for c in to)
    return str(t.gettext("seen by %(players)s") % {"players": names})


def _answer_text(lang: str, request: dict[str, Any] | None, answer: Any, timeout: bool) -> str:
    t = i18n.translations(lang)
    if timeout:
        said = str(t.gettext("no answer in time: the default answer was used"))
        if request is not None and answer is not None:
            said += " (" + mails.describe_answer(lang, request, answer) + ")"
        return said
    if request is None or answer is None:
        return str(t.gettext("no answer"))
    return mails.describe_answer(lang, request, answer)


def rounds(eng: engine.Game, lang: str) -> list[RoundReplay]:
    """The replay of a finished game, round by round (round 0 is the setup); ReplayRefused while it runs."""
    try:
        full = engine.replay(eng)  # the engine's own guarantee: no secret of a running game
    except ValueError:
        raise ReplayRefused("the replay is shown once the game is over") from None
    saved = eng.to_json()
    game = _Recorder(Config.from_json(saved["config"]))
    answers: list[tuple[int, ReplayAnswer]] = []
    t = i18n.translations(lang)
    for entry in saved["log"]:
        at_round, window = game.round, game.window_no
        player = str(entry["player"])
        who = narrate.colour_name(lang, player)
        if "standing_order" in entry:
            order = ", ".join(narrate.character_name(lang, c) for c in entry["standing_order"])
            text = str(t.gettext("sets the standing order: %(characters)s") % {"characters": order})
            answers.append((at_round, ReplayAnswer(window, player, "standing_order", None, False, text, who)))
        else:
            kind = str(entry["kind"])
            req = game.request_for(player, kind)
            timeout = bool(entry.get("timeout"))
            value = default(game, req, game.standing) if timeout else game.check(player, kind, entry["answer"])
            shown = None if value is None else answer_json(kind, value)
            text = _answer_text(lang, req.to_json(), shown, timeout)
            answers.append((at_round, ReplayAnswer(window, player, kind, shown, timeout, text, who)))
        game.replay_entry(entry)
    if game.position() != eng.position() or len(game.events) != len(full["events"]):
        raise ReplayRefused("the replayed log does not give the game's final state")
    boards = [*game.boards, public_board(game)]

    out: list[RoundReplay] = []
    current = RoundReplay(round=int(boards[0]["round"]))
    for index, event in enumerate(full["events"]):
        if event["type"] == "round_started":
            out.append(current)
            current = RoundReplay(round=int(event.get("round", current.round + 1)))
        to = event.get("to")
        shown_event = {k: v for k, v in event.items() if k != "to"}
        text = narrate.event_text(lang, shown_event, None)
        if event["type"] == "answer_auto" and event.get("answer") is not None:  # what was answered, revealed
            text += " (" + mails.describe_answer(lang, {"kind": event.get("kind")}, event["answer"]) + ")"
        current.events.append(
            ReplayEvent(
                index=index,
                type=str(event["type"]),
                text=text,
                seen_by=None if to is None else list(to),
                seen_by_text=_seen_by(lang, to),
            )
        )
    out.append(current)
    assert len(out) == len(boards), "one board per round"
    for replay, board in zip(out, boards, strict=True):
        replay.board_view = board
    by_round = {r.round: r for r in out}
    for at_round, answer in answers:
        if at_round in by_round:
            by_round[at_round].answers.append(answer)
    return out


# --- pages ---------------------------------------------------------------------------------------------------------


def _scores(lang: str, outcome: dict[str, Any] | None, players: list[str]) -> list[dict[str, Any]]:
    if not outcome:
        return []
    scores = outcome.get("scores") or {}
    cards = outcome.get("cards") or {}
    winners = set(outcome.get("winners") or [])
    rows = [
        {
            "colour": colour,
            "name": narrate.colour_name(lang, colour),
            "points": int(scores.get(colour) or 0),
            "cards": int(cards.get(colour) or 0),
            "winner": colour in winners,
        }
        for colour in players
    ]
    return sorted(rows, key=lambda r: (-r["points"], -r["cards"], players.index(r["colour"])))


def _context(game: Game, round_no: int | None, lang: str) -> dict[str, Any]:
    eng = CACHE.get(game)
    steps = rounds(eng, lang)
    numbers = [r.round for r in steps]
    chosen = round_no if round_no in numbers else numbers[0]
    pos = numbers.index(chosen)
    step = steps[pos]
    people = {seat.colour: seat.player.display_name if seat.player else None for seat in game.seats}
    bots = {seat.colour for seat in game.seats if seat.bot}
    players = list(eng.players)
    return {
        "game": {"id": game.id, "title": game.title, "label": mails.game_label(lang, game.id, game.title or "")},
        "players": [
            {
                "colour": c,
                "name": narrate.colour_name(lang, c),
                "player": (people.get(c) or "")[:80],
                "bot": c in bots,
            }
            for c in players
        ],
        "rounds": numbers,
        "round": chosen,
        "previous": numbers[pos - 1] if pos > 0 else None,
        "next": numbers[pos + 1] if pos + 1 < len(numbers) else None,
        "step": step,
        "board": step.board_view,
        "table": mails.board(lang, step.board_view),
        "svg": board_svg(step.board_view, lang, None),
        "phase": narrate.phase_name(lang, str(step.board_view.get("phase"))),
        "scores": _scores(lang, eng.outcome, players),
        "winners": [narrate.colour_name(lang, c) for c in (eng.outcome or {}).get("winners") or []],
    }


def replay_page_context(db: Database, game_id: int, round: int | None, lang: str) -> dict[str, Any]:
    """What templates/replay.html shows of round ``round`` (the first when absent or unknown) of a finished game;
    ReplayRefused while the game runs, LookupError for no such game. Usable by any page that may show it."""
    with db.session() as session:
        game = session.get(Game, game_id)
        if game is None:
            raise LookupError(f"there is no game {game_id}")
        return _context(game, round, lang)


def game_of_seat(db: Database, seat_id: int) -> int:
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        if seat is None:
            raise LookupError(f"there is no seat {seat_id}")
        return seat.game_id
