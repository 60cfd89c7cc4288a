"""A game in progress: the state, the flow driving it, the answer log and the JSON round trip.

A game is fully determined by its :class:`Config` and its log of answers, timeouts and standing-order changes;
``Game.from_json`` replays that log, and checks the result against the stored snapshot. ``Game.snapshot`` is the
state at the start of the latest round, from which ``Game.restore`` replays only the log entries after it.
"""

from __future__ import annotations

from typing import TypeVar, cast

from mypy_extensions import mypyc_attr

from . import flow
from .config import Config
from .data import CACHOU, CHARACTERS, KINDS, Kind, Phase, characters_for, full_deck
from .errors import N_, IllegalAnswer, ScenarioError
from .requests import ParsedAnswer, Request, answer_json, asked_in_secret, by_standing_order, default, parse, shown
from .rng import Rng
from .rules import vote_decided
from .shapes import JSON, Answered, Event, LogEntry, Outcome, Position, SavedGame, SnapshotJSON
from .state import State

_Snapshot = tuple[SnapshotJSON, list[LogEntry], list[Event]]

FORMAT = "deadmail-engine/1"
SNAPSHOT_FORMAT = "deadmail-snapshot/1"


@mypyc_attr(allow_interpreted_subclasses=True)  # the tests' BoardKeeper
class Game(State):
    __slots__ = (
        "config",
        "options",
        "rng",
        "_dice",
        "_dice_used",
        "standing",
        "events",
        "log",
        "outcome",
        "window",
        "window_no",
        "_answers",
        "_given",
        "_flow",
        "_snapshot",
    )

    def __init__(self, config: Config, *, snapshot: _Snapshot | None = None) -> None:
        """A game of ``config``: dealt (SET-1 to SET-4), or set to ``config.position``; or (``restore``'s
        ``snapshot``: the snapshot, the log and the events up to it) set to a snapshot of it, at its window."""
        self._begin(config)
        if snapshot is not None:
            self._load_snapshot(*snapshot)
            self._start(flow.play(self, Phase.TRUCK))
            return
        if config.position is None:
            self._deal()
        else:
            self._load(config.position)
        self._start(flow.play(self))

    def _begin(self, config: Config) -> None:
        super().__init__(config.players)
        self.config = config
        self.options = config.options
        self.rng = Rng(config.seed)
        self._dice = config.dice
        self._dice_used = 0
        self.standing: dict[str, list[str]] = {p: list(o) for p, o in config.standing_orders.items()}
        self.events: list[Event] = []
        self.log: list[LogEntry] = []
        self.outcome: Outcome | None = None
        #: the open window: requests asked at the same time (H-1); ``window_no`` counts windows opened.
        self.window: list[Request] = []
        self.window_no = 0
        self._answers: dict[str, ParsedAnswer] = {}
        #: the answers of the open window given without asking (H-2, H-5: ``flow.forced_answers``).
        self._given: dict[str, ParsedAnswer] = {}
        self._snapshot: SnapshotJSON | None = None

    def _start(self, play: flow.Flow) -> None:
        self._flow = play
        self._resume(None)

    # --- starting ----------------------------------------------------------------------------------------------

    def _deal(self) -> None:
        """SET-1 to SET-4: shuffle, deal one card each, close Cachou with 3-4 players, choose the first Chief."""
        deck = full_deck()
        self.rng.shuffle(deck)
        self.emit("deck_shuffled", to=(), deck=list(deck))
        for p in self.players:
            card = deck.pop(0)
            self.hands[p].append(card)
            self.emit("card_dealt", to=(p,), player=p, card=card)
        self.deck = deck
        if len(self.players) <= 4:
            self.closed.add(CACHOU)
        first = self.options.first_chief
        self.chief = self.rng.choice(self.players) if first == "random" else first
        self.emit("first_chief", chief=self.chief, drawn=first == "random")
        chars = characters_for(len(self.players))
        self.unplaced = {p: list(chars) for p in self.players}

    def _load(self, pos: Position) -> None:
        self.round = pos["round"]
        self.phase = Phase(pos["phase"])
        self.chief = pos["chief"]
        self.chief_elected = pos["chief_elected"]
        self.closed = set(pos["closed"])
        self.chars = {p: dict(pos["characters"][p]) for p in self.players}
        self.recount()
        for key, n in pos["zombies"].items():
            self.zombies[int(key)] = n
        self.hands = {p: list(pos["hands"][p]) for p in self.players}
        self.deck = list(pos["deck"])
        self.eliminated = dict(pos["eliminated"])

    # --- used by the flow --------------------------------------------------------------------------------------

    def roll(self) -> int:
        """One die: the scenario's forced dice first, then the seeded generator."""
        forced = self._dice_used < len(self._dice)
        value = self._dice[self._dice_used] if forced else int(self.rng.random() * 6) + 1
        self._dice_used += 1
        return value

    def emit(self, type_: str, to: tuple[str, ...] | None = None, **fields: object) -> None:
        """Record an event; ``to`` lists who may see it now (absent: everyone; empty: only the replay)."""
        event = {"type": type_, **fields}
        if to is not None:
            event["to"] = list(to)
        self.events.append(event)  # type: ignore[arg-type]  # each type's fields come from the flow (``engine.shapes``)

    # --- the API -----------------------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.phase == "over"  # Phase.OVER (a plain string: looking an enum member up is slow)

    def pending(self) -> list[Request]:
        """Requests of the open window still unanswered, in order from the Chief."""
        answers = self._answers
        if not answers:
            return list(self.window)  # nothing answered yet (the usual case): the whole window, without a test each
        return [r for r in self.window if r.player not in answers]

    def request_for(self, player: str, kind: str | None = None) -> Request:
        # the request first: found, its player and kind are a player's and a kind (checked below when it is not)
        for req in self.window:
            if req.player == player and (kind is None or req.kind == kind):
                if req.player in self._answers:
                    raise IllegalAnswer(
                        N_("%(colour)s has already answered this %(kind)s request."), colour=player, kind=req.kind
                    )
                return req
        self._check_player(player)
        if kind is not None and kind not in KINDS:
            raise IllegalAnswer(
                N_("%(value)s is not a kind of request (%(kinds)s)."), value=shown(kind), kinds=list(KINDS)
            )
        if kind:
            raise IllegalAnswer(
                N_("There is no %(kind)s request waiting for %(colour)s now."), kind=kind, colour=player
            )
        raise IllegalAnswer(N_("There is no request waiting for %(colour)s now."), colour=player)

    def _check_player(self, player: str) -> None:
        if player not in self.players:
            raise IllegalAnswer(N_("%(value)s is not a player of this game."), value=shown(player))

    def answered(self, player: str) -> Answered | None:
        """What ``player`` answered in the open window, not yet applied (for that player's own view only)."""
        for req in self.window:
            if req.player == player and player in self._answers:
                return {"kind": req.kind, "answer": answer_json(req.kind, self._answers[player])}
        return None

    def check(self, player: str, kind: str, answer: JSON) -> ParsedAnswer:
        """Validate an answer without applying it; return the parsed value or raise IllegalAnswer."""
        return parse(self, self.request_for(player, kind), answer)

    def answer(self, player: str, kind: str, answer: JSON, *, standing: bool = False) -> None:
        """Apply a player's answer; raise IllegalAnswer (and change nothing) when it is not legal. ``standing``: the
        answer came from the player's standing answers (``engine.standing_answer``); logged as such, and told to
        that player alone by an ``answer_standing`` event (H-6)."""
        req = self.request_for(player, kind)
        value = parse(self, req, answer)
        entry: LogEntry = {"player": player, "kind": kind, "answer": _copy(answer)}
        if standing:
            entry["standing"] = True
            self.emit("answer_standing", to=(player,), player=player, kind=kind, answer=answer_json(kind, value))
        self.log.append(entry)
        self._accept(req, value)

    def timeout(self, player: str, kind: str, *, decided: bool = False) -> None:
        """The deadline passed: apply the H-4 default, logged as defaulted.

        With ``decided``, a vote closed before its deadline because the votes still missing could not change its
        outcome (``vote_decided``): the H-4 default applies (an abstention), but the player missed nothing: the
        public event is ``vote_not_cast``. IllegalAnswer when the request is not a vote or the vote is not decided
        (with the abstentions already given)."""
        req = self.request_for(player, kind)
        if decided and not (req.kind == Kind.VOTE and self.open_vote_decided()):
            raise IllegalAnswer(
                N_("The vote is not decided yet: the vote of %(colour)s may still change its outcome."), colour=player
            )
        value = default(self, req, self.standing)
        entry: LogEntry = {"player": player, "kind": kind, "timeout": True}
        if decided:
            entry["decided"] = True
        self.log.append(entry)
        if decided:  # votes are public (H-6), and so is who was asked to vote
            self.emit("vote_not_cast", player=player, location=req.info.get("location"), revote=req.info.get("revote"))
        else:
            secret = asked_in_secret(req)  # being asked at all tells what the player holds (H-2)
            self.emit("answer_defaulted", to=(player,) if secret else None, player=player, kind=kind)
        self._accept(req, value)

    def open_vote_decided(self) -> bool:
        """The open window is a vote whose outcome the votes still missing cannot change (``engine.vote_decided``);
        a voter who abstained (H-4) counts as having voted for nobody."""
        abstained = {p for p, value in self._answers.items() if value is None}
        votes = {p: str(value) for p, value in self._answers.items() if value is not None}
        return vote_decided([r for r in self.window if r.player not in abstained], votes)

    def set_standing_order(self, player: str, order: list[str], *, answer_open: bool = True) -> None:
        """H-5: the order in which ``player`` gives up characters, for every victim request from now on. A pending
        victim request of the player is answered from it at once, unless ``answer_open`` is False: then the caller
        answers it (``standing_answer`` says with what), as a server does that collects a window's answers before
        applying them. The log keeps which it was, so a replay does the same."""
        self._check_player(player)
        if not isinstance(order, list) or not all(c in CHARACTERS for c in order) or len(set(order)) != len(order):
            raise IllegalAnswer(
                N_("The standing order must list distinct characters: %(characters)s."), characters=list(CHARACTERS)
            )
        entry: LogEntry = {"player": player, "standing_order": list(order)}
        if not answer_open:
            entry["answer_open"] = False
        self.log.append(entry)
        self.standing[player] = list(order)
        chosen = self.standing_answer(player) if answer_open else None
        if chosen is not None:
            self.emit("answer_auto", to=(player,), player=player, kind=Kind.VICTIM, answer=chosen)
            self._accept(self.request_for(player, Kind.VICTIM), chosen)

    def standing_answer(self, player: str) -> str | None:
        """H-5: the character ``player``'s standing order gives up for their pending victim request; None when they
        have no such request, no order, or an order that names none of the candidates."""
        for req in self.pending():
            if req.player == player and req.kind == Kind.VICTIM:
                return by_standing_order(req.names(), self.standing.get(player))
        return None

    def _accept(self, req: Request, value: ParsedAnswer) -> None:
        """Record an answer of the open window; the last one closes it: the flow is sent all of its answers."""
        answers = self._answers
        answers[req.player] = value
        if len(answers) == len(self.window):
            self._given.update(answers)
            self._resume(self._given)

    def _resume(self, answers: dict[str, ParsedAnswer] | None) -> None:
        """Send the flow the answers of the window just closed (None: start it) and open its next window; the
        flow's windows whose every request is answered without asking (or that have none) are sent their answers
        at once, and open no window."""
        play = self._flow
        try:
            given, window = flow.forced_answers(self, play.send(answers))  # type: ignore[arg-type]
            while not window:
                given, window = flow.forced_answers(self, play.send(given))
        except StopIteration:
            given, window = {}, []
        self.window = window
        self._given = given
        self._answers = {}
        if window:
            self.window_no += 1

    # --- snapshots ---------------------------------------------------------------------------------------------

    def round_starts(self) -> None:
        """Called by the flow at the start of each round, where ``flow.play(g, Phase.TRUCK)`` restarts it exactly:
        record the state there (``snapshot``)."""
        self._snapshot = {
            "format": SNAPSHOT_FORMAT,
            "log": len(self.log),
            "events": len(self.events),
            "window_no": self.window_no,
            "rng": self.rng.drawn,
            "dice_used": self._dice_used,
            "standing": {p: list(order) for p, order in self.standing.items()},
            "state": {
                **self.position(),
                "played": list(self.played),
                "hidden": sorted([p, c] for p, c in self.hidden),
                "hardware": self.hardware,
                "threats": dict(self.threats),
                "destinations": dict(self.destinations),
                "moved": dict(self.moved),
            },
        }

    def snapshot(self) -> SnapshotJSON | None:
        """The state at the start of the latest round (plain JSON, no events), or None before the first round:
        ``"log"`` says how many log entries it covers and ``"events"`` how many events came before it."""
        snap = self._snapshot
        return None if snap is None else _copy(snap)

    @classmethod
    def restore(cls, data: SavedGame, snapshot: SnapshotJSON | None, events: list[Event]) -> Game:
        """The game ``data`` (``to_json``) restored from ``snapshot`` (one of its own ``snapshot()``s) and the game's
        first ``snapshot["events"]`` events, replaying only the log entries after it; the same game as
        ``from_json(data)``. Without a snapshot, ``from_json(data)``. ScenarioError when they do not fit."""
        if snapshot is None:
            return cls.from_json(data)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ScenarioError(f"not a saved game of format {FORMAT}")
        if snapshot.get("format") != SNAPSHOT_FORMAT or not 0 <= snapshot["log"] <= len(data["log"]):
            raise ScenarioError("snapshot: not a snapshot of this game")
        if len(events) != snapshot["events"]:
            raise ScenarioError(f"snapshot: {snapshot['events']} events expected, {len(events)} given")
        game = cls(Config.from_json(data["config"]), snapshot=(snapshot, data["log"][: snapshot["log"]], events))
        game._replay(data, snapshot["log"])
        return game

    def _load_snapshot(self, snap: SnapshotJSON, log: list[LogEntry], events: list[Event]) -> None:
        state = snap["state"]
        self._load(state)
        dice = state["dice"]
        self.dice = None if dice is None else {"values": list(dice["values"]), "seen_by": list(dice["seen_by"])}
        unplaced = state.get("unplaced")
        self.unplaced = None if unplaced is None else {p: list(c) for p, c in unplaced.items()}
        self.played = list(state["played"])
        self.hidden = {(p, c) for p, c in state["hidden"]}
        self.hardware = state["hardware"]
        self.threats = dict(state["threats"])
        self.destinations = dict(state["destinations"])
        self.moved = dict(state["moved"])
        self.standing = {p: list(order) for p, order in snap["standing"].items()}
        self.rng.skip(snap["rng"])
        self._dice_used = snap["dice_used"]
        self.window_no = snap["window_no"]
        self.events = list(events)
        self.log = [_copy(entry) for entry in log]

    # --- JSON --------------------------------------------------------------------------------------------------

    def to_json(self) -> SavedGame:
        """Everything needed to restore the game exactly: how it started and what was answered since."""
        return {
            "format": FORMAT,
            "config": self.config.to_json(),
            "log": [_copy(entry) for entry in self.log],
            "snapshot": {"state": self.position(), "events": len(self.events), "window_no": self.window_no},
        }

    @classmethod
    def from_json(cls, data: SavedGame) -> Game:
        """Restore a game by replaying its log; ScenarioError if the data is not a game this engine made."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ScenarioError(f"not a saved game of format {FORMAT}")
        game = cls(Config.from_json(data["config"]))
        game._replay(data, 0)
        return game

    def _replay(self, data: SavedGame, start: int) -> None:
        """Replay the log of ``data`` from entry ``start``, and check the result against its snapshot."""
        for i, entry in enumerate(data["log"][start:], start=start):
            try:
                self.replay_entry(entry)
            except IllegalAnswer as exc:
                raise ScenarioError(f"saved game: log entry {i} does not apply: {exc}") from None
        snapshot = data.get("snapshot")
        if snapshot is not None and snapshot != {
            "state": self.position(),
            "events": len(self.events),
            "window_no": self.window_no,
        }:
            raise ScenarioError("saved game: the replayed log does not give the saved state")

    def replay_entry(self, entry: LogEntry) -> None:
        if "standing_order" in entry:
            self.set_standing_order(
                entry["player"], entry["standing_order"], answer_open=entry.get("answer_open", True) is not False
            )
        elif entry.get("timeout"):
            self.timeout(entry["player"], entry["kind"], decided=entry.get("decided") is True)
        else:
            self.answer(entry["player"], entry["kind"], entry["answer"], standing=entry.get("standing") is True)


_Value = TypeVar("_Value")
#: JSON values that are never containers (exactly these classes; subclasses take the general way)
_ATOMS = frozenset({str, int, float, bool, type(None)})


def _copy(value: _Value) -> _Value:
    """A deep copy of JSON data, so the log never shares objects with the caller."""
    if value.__class__ in _ATOMS:
        return value  # the usual case, said at once
    # (atoms inside are kept without a call each: most answers are flat objects or lists of flat objects)
    if isinstance(value, dict):
        return cast(_Value, {k: v if v.__class__ in _ATOMS else _copy(v) for k, v in value.items()})
    if isinstance(value, list):
        return cast(_Value, [v if v.__class__ in _ATOMS else _copy(v) for v in value])
    return value
