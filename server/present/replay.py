"""The after-game replay: every event of a finished game, private ones included with who saw them, grouped by
round, with the answers given and the public board at the end of each round, or as each event was told (a replay
that steps through the events one by one).

Built from the engine's final view (``engine.replay``) and its step-by-step replay (``engine.replay_steps``); both
refuse a game that is not over, and so does ``services.play.games.finished``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from markupsafe import Markup

import engine
from engine.shapes import JSON

from ..services.play.games import Finished
from ..text import glossary
from ..text.i18n import translations
from ..text.sentences import Names, event_text, player_label, told_answer
from .board import MailTable, board_svg, table
from .seat import Standing, game_label, standings, tiebreak_sentence

__all__ = ["ReplayAnswer", "ReplayEvent", "RoundReplay", "replay_page", "rounds"]


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
    answer: JSON
    #: the deadline passed without an answer (not for a voter whose vote was closed once decided).
    timeout: bool
    #: the answer told in the third person: "Ann (Red) voted for Blue."
    text: str
    #: the player as sentences name them ("Ann (Red)", or "Red" for a bot).
    who: str = ""


@dataclass
class RoundReplay:
    round: int
    #: the public board at the end of the round (``engine.replay_steps``).
    board_view: engine.PublicBoard
    events: list[ReplayEvent] = field(default_factory=list)
    answers: list[ReplayAnswer] = field(default_factory=list)


def _seen_by(lang: str, to: list[str] | None) -> str | None:
    if to is None:
        return None
    t = translations(lang)
    if not to:
        return str(t.gettext("seen by nobody until now"))
    names = ", ".join(glossary.colour_name(lang, c) for c in to)
    return str(t.gettext("seen by %(players)s") % {"players": names})


def _answer_text(lang: str, step: engine.ReplayAnswer, names: Names | None) -> str:
    """The answer in the third person ("Ann (Red) voted for Blue."), saying when it was a default or standing one."""
    t = translations(lang)
    values = {"player": player_label(lang, step.player, names)}
    if step.decided:
        return str(t.gettext("%(player)s did not vote: the vote was already decided.") % values)
    if step.timeout and step.answer is None:
        return str(t.gettext("%(player)s did not answer in time: no answer was given for them.") % values)
    said = told_answer(lang, step.request, step.answer, step.player, names)
    if step.timeout:
        said += " " + str(t.gettext("(no answer in time: the default answer)"))
    elif step.standing:
        said += " " + str(t.gettext("(by their standing answers)"))
    return said


def _answer(lang: str, step: engine.ReplayAnswer, names: Names | None = None) -> ReplayAnswer:
    who = player_label(lang, step.player, names)
    if step.standing_order is not None:
        order = ", ".join(glossary.character_name(lang, c) for c in step.standing_order)
        text = str(
            translations(lang).gettext("%(player)s set their standing order: %(characters)s.")
            % {"player": who, "characters": order}
        )
        return ReplayAnswer(step.window, step.player, "standing_order", None, False, text, who)
    text = _answer_text(lang, step, names)
    missed = step.timeout and not step.decided  # a vote closed once decided was not missed
    return ReplayAnswer(step.window, step.player, str(step.kind), step.answer, missed, text, who)


def _events(lang: str, events: list[engine.Event], names: Names | None = None) -> list[list[ReplayEvent]]:
    """The full event log as sentences, one list per round (``round_started`` opens one)."""
    out: list[list[ReplayEvent]] = [[]]
    for index, event in enumerate(events):
        if event["type"] == "round_started":
            out.append([])
        to = event.get("to")
        text = event_text(lang, event, None, names)  # (no sentence reads ``to``)
        if event["type"] == "answer_auto" and event["answer"] is not None:  # what was answered, revealed
            text += " " + told_answer(lang, {"kind": event["kind"]}, event["answer"], event["player"], names)
        out[-1].append(ReplayEvent(index, event["type"], text, None if to is None else list(to), _seen_by(lang, to)))
    return out


def rounds(eng: engine.Game, lang: str, names: Names | None = None) -> list[RoundReplay]:
    """The replay of a finished game, round by round (round 0 is the setup); ValueError while it runs. ``names``:
    the players' names by colour ("Ann (Red)")."""
    # ``engine.replay`` first: the engine's own guarantee, no secret of a running game
    return _rounds(lang, engine.replay(eng)["events"], engine.replay_steps(eng), names)


def _rounds(
    lang: str, events: list[engine.Event], steps: engine.Replay, names: Names | None = None
) -> list[RoundReplay]:
    """``rounds`` from the game's full events (``engine.replay``) and its ``engine.replay_steps``."""
    out = [
        RoundReplay(round=int(board["round"]), events=told, board_view=board)
        for board, told in zip(steps.boards, _events(lang, events, names), strict=True)
    ]
    by_round = {r.round: r for r in out}
    for step in steps.answers:
        if step.round in by_round:
            by_round[step.round].answers.append(_answer(lang, step, names))
    return out


# --- pages ---------------------------------------------------------------------------------------------------------


class ReplayGame(TypedDict):
    id: int
    title: str
    label: str


class ReplayPlayer(TypedDict):
    colour: str
    #: the colour's name.
    name: str
    #: the player's name ("" for a bot).
    player: str
    bot: bool


class EventStep(TypedDict):
    """The event shown, when the replay steps through them one by one (``?step=``)."""

    #: its index among the game's events, and how many there are.
    index: int
    count: int
    text: str
    #: the events before and after it (None: none).
    previous: int | None
    next: int | None


class ReplayPage(TypedDict):
    """What templates/replay.html shows (its context)."""

    game: ReplayGame
    players: list[ReplayPlayer]
    #: the rounds' numbers, the one shown, and the ones before and after it (None: none).
    rounds: list[int]
    round: int
    previous: int | None
    next: int | None
    step: RoundReplay
    #: the event the board is shown after (None: the board at the end of the round).
    event: EventStep | None
    #: the first event of the round shown (where stepping through it starts).
    first_event: int
    board: engine.PublicBoard
    table: MailTable
    svg: Markup
    phase: str
    standings: list[Standing]
    tiebreak: str
    winners: list[str]


def _told(events: list[engine.Event], upto: int) -> list[engine.Event]:
    """The public events among the first ``upto`` (what the board draws from: moves, votes)."""
    return [e for e in events[:upto] if e.get("to") is None]


def replay_page(lang: str, game: Finished, round_no: int | None, event_no: int | None = None) -> ReplayPage:
    """What templates/replay.html shows of a finished game: round ``round_no`` (the first when absent or unknown)
    with its board at the round's end, or, given ``event_no`` (an index among the game's events), that event's
    round with the board as that event was told, the place it names framed."""
    eng = game.engine
    names: Names = {c: n or None for c, n in game.people.items()}  # player_label keeps a name to MAX_NAME
    events = engine.replay(eng)["events"]  # (refuses a game that is not over)
    replayed = engine.replay_steps(eng)
    steps = _rounds(lang, events, replayed, names)
    outcome = eng.outcome
    assert outcome is not None
    numbers = [r.round for r in steps]
    shown: EventStep | None = None
    if event_no is not None and 0 <= event_no < len(events):
        board = replayed.event_boards[event_no]
        chosen = int(board["round"])
        place = events[event_no].get("location")
        shown = {
            "index": event_no,
            "count": len(events),
            "text": next(e.text for r in steps for e in r.events if e.index == event_no),
            "previous": event_no - 1 if event_no > 0 else None,
            "next": event_no + 1 if event_no + 1 < len(events) else None,
        }
        board = {**board, "events": _told(events, event_no + 1)}
    else:
        chosen = round_no if round_no in numbers else numbers[0]
        place = None
    pos = numbers.index(chosen)
    step = steps[pos]
    if shown is None:
        board = {**step.board_view, "events": _told(events, step.events[-1].index + 1)}
    players = list(eng.players)
    return {
        "game": {"id": game.game_id, "title": game.title, "label": game_label(lang, game.game_id, game.title or "")},
        "players": [
            {
                "colour": c,
                "name": glossary.colour_name(lang, c),
                "player": (game.people.get(c) or "")[:80],
                "bot": c in game.bots,
            }
            for c in players
        ],
        "rounds": numbers,
        "round": chosen,
        "previous": numbers[pos - 1] if pos > 0 else None,
        "next": numbers[pos + 1] if pos + 1 < len(numbers) else None,
        "step": step,
        "event": shown,
        "first_event": step.events[0].index,
        "board": board,
        "table": table(lang, board),
        "svg": board_svg(board, lang, None, names, asked=place if isinstance(place, int) else None),
        "phase": glossary.phase_name(lang, board["phase"]),
        "standings": standings(lang, outcome, players, None, names),
        "tiebreak": tiebreak_sentence(lang),
        "winners": [player_label(lang, c, names) for c in outcome["winners"]],
    }
