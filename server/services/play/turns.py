"""The async loop: secret answers per window, and advancing a window exactly once (docs/ARCHITECTURE.md).

- ``submit_answer`` stores one seat's answer (checked by the engine) while its window is open; it may be changed
  until the window closes. The answer that completes the window kicks its advance once the transaction commits.
- ``advance_window`` claims an open window that is complete or past its deadline (a conditional claim on the
  window row), applies its answers through the engine (H-4 defaults for the missing ones), and stores in the same
  transaction the new state, the events, the next window and the outbox rows. A duplicate or concurrent call finds
  the window no longer open and does nothing; a lost call is made again by the sweep.
- ``set_standing_order`` gives the engine a seat's standing victim order (H-5); it answers the seat's open victim
  request like any answer.

Whether a window is complete is decided in one place, ``_complete_if_done``, for people's and bots' answers alike
(called by ``_store`` for each answer, and when a window opens with bots' answers): when every request is answered,
or, with the tempo's ``close_decided_votes`` (on unless false), when the votes still missing cannot change a vote's
outcome (``engine.vote_decided``). The voters still missing then did not vote: the engine applies their abstention
as ``vote_not_cast``, not as a missed deadline, and nobody may vote or change a vote any more.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any, Protocol, cast

from sqlalchemy import ColumnElement, Table, and_, bindparam, delete, select, update
from sqlalchemy.orm import Session, load_only, selectinload, undefer
from sqlalchemy.orm.attributes import set_committed_value

import engine
from engine.bots import RandomBot, SensibleBot
from engine.shapes import JSON

from ...db import Database, advance_after_commit
from ...models import (
    WINDOW_OPEN,
    EventBatch,
    Game,
    GameStatus,
    MailKind,
    Outbox,
    RequestRow,
    Seat,
    TempoJSON,
    Window,
    WindowStatus,
    utcnow,
)
from ...packing import pack_events
from ..errors import N_, ShownError
from ..links import LinkError, check_generation
from ..mailflow import outbox, reminders
from ..tempo import PlayHours, Quiet, closes_decided_votes, deadline_quiet, quiet_of, window_deadline
from . import archive, autopilot, hooks, policy, reliability, standing_answers
from .engines import CACHE

log = logging.getLogger("deadmail.turns")

BOT_KINDS = ("sensible", "random")


class AnswerError(ShownError):
    """An answer refused; ``status`` is the HTTP status that fits, the message is for the player (pages translate
    it, engine refusals included)."""

    def __init__(self, message: str, status: int = 422, **params: Any) -> None:
        super().__init__(message, **params)
        self.status = status

    @classmethod
    def refused_by_engine(cls, exc: engine.IllegalAnswer) -> AnswerError:
        """The engine's refusal, its msgid and parameters kept (pages translate it like any other)."""
        return cls(exc.msgid, **exc.params)


@dataclass(frozen=True)
class Submitted:
    window_id: int
    window_number: int
    changed: bool
    #: every request of the window is answered (its advance was kicked by the answer that completed it).
    complete: bool


# --- bots ------------------------------------------------------------------------------------------------------


def bot_answer(game: Game, seat: Seat, eng: engine.Game, req: engine.Request) -> JSON:
    """The answer of the seat's bot (``engine.bots``), the same for the same game, window and seat."""
    return decide_as_bot(seat.bot or "sensible", game.seed * 1_000_003 + eng.window_no * 7 + seat.position, eng, req)


def decide_as_bot(kind: str, seed: int, eng: engine.Game, req: engine.Request) -> JSON:
    bot = RandomBot(seed) if kind == "random" else SensibleBot(seed)
    return bot.decide(eng, req)


# --- storing what the engine did -------------------------------------------------------------------------------


def open_windows(session: Session, game: Game, eng: engine.Game, events_before: int, now: datetime) -> None:
    """After the engine moved: let bots answer what nobody else owes, then store events, state, the next window and
    the notifications (sent once the transaction has committed)."""
    seats = {seat.colour: seat for seat in game.seats}
    away = autopilot.away_until(session, (s.player_id for s in game.seats if s.bot is None and s.player_id), now)
    automatic = _answer_for_bots(game, seats, eng, away)
    _store_events(session, game, eng, events_before, now)
    store_state(game, eng, now)
    if eng.over:
        game.status = GameStatus.OVER
        game.outcome = eng.outcome
        hooks.game_over(session, game, now)
        people = [seat for seat in game.seats if seat.bot is None]
        outbox.add(session, (outbox.notice(s, MailKind.GAME_OVER, f"over:{game.id}:{s.id}", {}, now) for s in people))
        return
    owing = [req for req, (value, _source) in automatic if value is None]
    window = _new_window(session, game, seats, eng, [req for req, _ in automatic], now, away=away, owing=owing)
    rows = []
    for i, (req, (value, source)) in enumerate(automatic):
        seat = seats[req.player]
        row = RequestRow(
            window_id=window.id,
            seat_id=seat.id,
            player_id=seat.player_id if seat.bot is None else None,
            position=i,
            kind=req.kind,
            payload=req.to_json(),
        )
        if value is not None:  # bots, standing answers and the autopilot answer through the same rows, at once
            row.answer = value
            row.answered_at = now
            row.standing = source == "standing"
            row.autopilot = source == "autopilot"
            if seat.bot is None:
                _log_automatic(game, eng, seat, req, source)
        session.add(row)
        rows.append(row)
    # the automatic votes may have decided a vote already: then nobody is asked
    early = _complete_if_done(session, game, window, rows, now)
    if not early:
        _last_call(session, game, window, rows, now, opening=True)
    window.remind_at = None if early else reminders.next_remind_at(window.opened_at, window.deadline, now)
    mail: list[Outbox] = []
    held_until = _on_the_page(game, window, now)
    for req, (value, _source) in automatic:
        if value is None and not early:
            seat = seats[req.player]
            payload: dict[str, Any] = {"window": window.number}
            turn = outbox.notice(seat, MailKind.TURN, f"turn:{window.id}:{seat.id}", payload, now, window.deadline)
            if held_until is not None:  # dropped when due if answered on the page by then (compose.notice)
                turn.payload = {**payload, "unless_answered": True}
                turn.next_attempt_at = held_until
            mail.append(turn)
    owes = {req.player for req, (value, _source) in automatic if value is None}  # an automatic answer owes nothing
    for seat in game.seats:  # the others hear what changed, if they saw anything change
        if seat.bot is None and seat.colour not in owes and _saw_news(eng.events[events_before:], seat.colour):
            mail.append(
                outbox.notice(seat, MailKind.UPDATE, f"update:{window.id}:{seat.id}", {"window": window.number}, now)
            )
    outbox.add(session, mail)


#: during a session of play hours, the turn mail of a new window waits this long (or half the window, if shorter).
ON_THE_PAGE = timedelta(minutes=5)


def _on_the_page(game: Game, window: Window, now: datetime) -> datetime | None:
    """During a session of the game's play hours, when a new window's turn mails are due: players are expected on
    their pages, and a mail about a decision already answered there is not sent. None outside sessions."""
    hours = PlayHours.of(game.tempo)
    if hours is None or hours.session_at(now) is None:
        return None
    return now + min(ON_THE_PAGE, (window.deadline - now) / 2)


#: an automatic answer and where it came from: "bot", "standing" (the person's standing answers), "autopilot"; a
#: person who is asked has (None, None).
Automatic = tuple[JSON, str | None]


def _answer_for_bots(
    game: Game, seats: dict[str, Seat], eng: engine.Game, away: dict[int, datetime]
) -> list[tuple[engine.Request, Automatic]]:
    """Apply bots' answers, people's standing answers (``standing_answers.answer_for``) and the autopilot's while nobody
    else is asked; return the open requests, each with its automatic answer (None for a person who is asked)."""
    automatic: list[tuple[engine.Request, Automatic]] = []
    while not eng.over:
        automatic = [(req, _automatic(game, seats[req.player], eng, req, away)) for req in eng.pending()]
        if any(value is None for _, (value, _source) in automatic):
            break
        for req, (value, source) in automatic:
            if seats[req.player].bot is None:
                _log_automatic(game, eng, seats[req.player], req, source)
            eng.answer(req.player, req.kind, value, standing=source == "standing")
    return automatic


def _automatic(game: Game, seat: Seat, eng: engine.Game, req: engine.Request, away: dict[int, datetime]) -> Automatic:
    """The bot's answer; the person's standing answer; on autopilot (``autopilot.flies``), the standing answer or
    else the sensible bot's. (None, None) when the person is asked."""
    if seat.bot:
        return bot_answer(game, seat, eng, req), "bot"
    if autopilot.flies(seat, game.tempo, away):
        chosen = standing_answers.answer_for(seat, eng, req)
        return (bot_answer(game, seat, eng, req) if chosen is None else chosen), "autopilot"
    chosen = standing_answers.answer_for(seat, eng, req)
    return (chosen, None) if chosen is None else (chosen, "standing")


def _log_automatic(game: Game, eng: engine.Game, seat: Seat, req: engine.Request, source: str | None) -> None:
    """A log line for an answer given by standing answers or the autopilot: never the answer, and for a request
    whose being asked tells what its player holds (a card window, B-INFO) not even the seat."""
    by = "the autopilot" if source == "autopilot" else "standing answers"
    if engine.asked_in_secret(req):
        log.info("game %s window %s: a request answered by %s", game.id, eng.window_no, by)
    else:
        log.info(
            "game %s window %s: seat %s answered a %s request by %s", game.id, eng.window_no, seat.id, req.kind, by
        )


def _store_events(session: Session, game: Game, eng: engine.Game, events_before: int, now: datetime) -> None:
    """The events of this advance (the engine's from ``events_before`` on), in one ``EventBatch`` row."""
    events = eng.events[events_before:]
    if events:
        session.add(
            EventBatch(
                game_id=game.id, first_seq=events_before, count=len(events), events=pack_events(events), created_at=now
            )
        )


def store_state(game: Game, eng: engine.Game, now: datetime) -> None:
    """The engine's saved game and its latest snapshot (``services.play.engines`` restores from them); the game's events
    are stored by ``_store_events``, as the snapshot needs them."""
    game.state = eng.to_json()
    game.snapshot = eng.snapshot()
    game.version += 1
    game.round = eng.round
    game.phase = eng.phase
    game.updated_at = now


def _new_window(
    session: Session,
    game: Game,
    seats: dict[str, Seat],
    eng: engine.Game,
    pending: list[engine.Request],
    now: datetime,
    *,
    away: dict[int, datetime],
    owing: list[engine.Request],
) -> Window:
    def quiet_for(colour: str) -> Quiet | None:
        seat = seats[colour]
        return quiet_of(seat.player) if seat.bot is None and seat.player is not None else None

    quiet = deadline_quiet(pending, seats, quiet_for)
    window = Window(
        game_id=game.id,
        number=eng.window_no,
        status=WindowStatus.OPEN,
        round=eng.round,
        phase=eng.phase,
        opened_at=now,
        deadline=window_deadline(now, [r.kind for r in pending], game.tempo, quiet),
    )
    secret = any(engine.asked_in_secret(r) for r in pending)
    autopilot.extend_for_absence(game, window, [seats[r.player] for r in owing], secret, away)
    session.add(window)
    session.flush()
    return window


def _saw_news(events: list[engine.Event], colour: str) -> bool:
    return any(event.get("to") is None or colour in event["to"] for event in events)


# --- answering ---------------------------------------------------------------------------------------------------

# Built once: answering is the hot path, and building a statement costs more than running it.
# Only the columns it needs: the rest (the game's JSON, each request's payload) would be decoded for nothing. A
# person's answer reads plain rows (no ORM objects: loading them cost an answer a third of its CPU, issue 29).
_SEATS, _WINDOWS, _GAMES, _REQUESTS = (cast(Table, model.__table__) for model in (Seat, Window, Game, RequestRow))
_SEAT_COLUMNS = (_SEATS.c.id, _SEATS.c.game_id, _SEATS.c.colour, _SEATS.c.player_id, _SEATS.c.link_generation)
_SEAT = select(*_SEAT_COLUMNS).where(_SEATS.c.id == bindparam("seat_id"))
#: an answer's first read: its seat, with the game's open window locked (one statement; none when no window is
#: open). The window's rows are read after the lock is taken (``_GAME_AND_ROWS``): a statement's rows all come from
#: the moment it starts, so rows read with the lock could miss an answer committed while it waited.
_SEAT_AND_WINDOW = (
    select(
        *_SEAT_COLUMNS,
        _WINDOWS.c.id.label("window_id"),
        _WINDOWS.c.number.label("window_number"),
        _WINDOWS.c.completed_at,
    )
    .join(_WINDOWS, and_(_WINDOWS.c.game_id == _SEATS.c.game_id, _WINDOWS.c.status == WindowStatus.OPEN))
    .where(_SEATS.c.id == bindparam("seat_id"))
    .with_for_update(of=_WINDOWS)
)
_OPEN_WINDOW = (
    select(Window).where(Window.game_id == bindparam("game_id"), Window.status == WindowStatus.OPEN).with_for_update()
)
#: what ``_store`` reads of the window's rows (no column it compares is left to a lazy load: one more query each).
_ROW_COLUMNS = load_only(
    RequestRow.seat_id,
    RequestRow.kind,
    RequestRow.secret,
    RequestRow.answer,
    RequestRow.answered_at,
    RequestRow.standing,
    RequestRow.autopilot,
)
_WINDOW_ROWS = select(RequestRow).options(_ROW_COLUMNS).where(RequestRow.window_id == bindparam("window_id"))
#: an answer's read once the window's row is locked, in one statement: what it reads of the game (the checker is
#: cached by the game's version: ``CACHE.checker``; the state is of that window: an advance cannot commit in
#: between) and the window's rows.
_GAME_AND_ROWS = (
    select(
        _GAMES.c.version,
        _GAMES.c.created_at,
        _GAMES.c.tempo,
        *(
            _REQUESTS.c[c]
            for c in ("id", "seat_id", "kind", "secret", "answer", "answered_at", "standing", "autopilot")
        ),
    )
    .join(_REQUESTS, _REQUESTS.c.window_id == bindparam("window_id"))
    .where(_GAMES.c.id == bindparam("game_id"))
)


def _unanswered(session: Session, window: Window, seat: Seat) -> tuple[list[RequestRow], RequestRow | None]:
    """The window's request rows, and the seat's among them while it is unanswered (else None)."""
    rows = list(session.execute(_WINDOW_ROWS, {"window_id": window.id}).scalars())
    return rows, next((r for r in rows if r.seat_id == seat.id and r.answered_at is None), None)


#: an answer written on its request row (``_store``, ``submit_answer``).
_ANSWER_ROW = (
    update(_REQUESTS)
    .where(_REQUESTS.c.id == bindparam("row_id"))
    .values({name: bindparam(name) for name in ("answer", "answered_at", "standing", "autopilot")})
)
#: a window marked complete by a person's answer (``submit_answer``; ``_complete_if_done`` for the ORM's windows).
_COMPLETE_WINDOW = update(_WINDOWS).where(_WINDOWS.c.id == bindparam("window_id")).values(completed_at=bindparam("at"))

#: the request rows' payloads (the engine's requests: a vote's candidates and weights), read only for a vote.
_PAYLOADS = select(RequestRow.id, RequestRow.payload).where(RequestRow.window_id == bindparam("window_id"))


class _Asked(Protocol):
    """A request row as answering reads it: a ``RequestRow``, or a plain row of ``_GAME_AND_ROWS``."""

    @property
    def id(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def answer(self) -> Any: ...
    @property
    def answered_at(self) -> datetime | None: ...
    @property
    def standing(self) -> bool: ...
    @property
    def autopilot(self) -> bool: ...
    @property
    def seat_id(self) -> int: ...
    @property
    def secret(self) -> bool: ...


def _changes(row: _Asked, answer: JSON) -> bool:
    """An answer changes its row unless the row holds that very answer, given by the player."""
    return row.answered_at is None or row.answer != answer or row.standing or row.autopilot


def _answered(answer: JSON, now: datetime) -> dict[str, Any]:
    """What an answer writes on its row (``_ANSWER_ROW``)."""
    return {"answer": answer, "answered_at": now, "standing": False, "autopilot": False}


def _store(
    session: Session,
    game: Game,
    window: Window,
    rows: list[RequestRow],
    row: RequestRow,
    answer: JSON,
    *,
    now: datetime,
) -> bool:
    """Store an answer (already checked by the engine) on its row, and complete the window when it is done
    (``_complete_if_done``), else call the last call when one answer is left. True when the answer changed
    anything."""
    first = row.answered_at is None
    changed = _changes(row, answer)
    if changed:
        # one UPDATE of its own, the row told what it now holds as if it had been read so: the ORM's flush of a
        # changed row costs an answer more CPU than the rest of its writing (issue 29)
        values = _answered(answer, now)
        session.execute(_ANSWER_ROW, {"row_id": row.id, **values})
        for name, value in values.items():
            set_committed_value(row, name, value)
    if not _complete_if_done(session, game, window, rows, now) and first:
        _last_call(session, game, window, rows, now)
    return changed


def _complete_if_done(session: Session, game: Game, window: Window, rows: list[RequestRow], now: datetime) -> bool:
    """Marks the window complete when it is done (``_done``) and kicks its advance once the transaction commits;
    True when the window is complete."""
    if window.completed_at is not None:
        return True
    answers = {i: r.answer for i, r in enumerate(rows) if r.answered_at is not None}
    if not _done(session, game.tempo, window.id, rows, answers):
        return False
    window.completed_at = now
    advance_after_commit(session, window.id)
    return True


def _done(
    session: Session, tempo: TempoJSON | None, window_id: int, rows: Sequence[_Asked], answers: dict[int, JSON]
) -> bool:
    """The one place that decides that a window is complete: every one of its request ``rows`` is answered
    (``answers``: the answered rows' answers by their places in ``rows``), or they are a vote that the answers so
    far have decided (``close_decided_votes``, ``engine.vote_decided``)."""
    if len(answers) == len(rows):
        return True
    if not answers or rows[0].kind != engine.Kind.VOTE or not closes_decided_votes(tempo):
        return False
    payloads = {i: p for i, p in session.execute(_PAYLOADS, {"window_id": window_id})}  # (new rows are flushed first)
    votes = {str(payloads[rows[i].id]["player"]): str(answer) for i, answer in answers.items()}
    return engine.vote_decided([engine.Request.from_json(payloads[r.id]) for r in rows], votes)


def _last_call(
    session: Session, game: Game, window: Window, rows: list[RequestRow], now: datetime, *, opening: bool = False
) -> None:
    """``_call_last`` when the window has a last call to call (``_last_one``)."""
    seat_id = _last_one(game.tempo, rows, [r.seat_id for r in rows if r.answered_at is None], opening=opening)
    if seat_id is not None:
        _call_last(session, game, window, seat_id, now, opening=opening)


def _last_one(tempo: TempoJSON, rows: Sequence[_Asked], left: list[int], *, opening: bool) -> int | None:
    """The seat the window's last call calls, when one request of its ``rows`` is left unanswered (``left``: the
    seats that owe one) and the game has a last call (``policy.last_called``); else None."""
    secret = any(r.secret for r in rows)
    return left[0] if policy.last_called(tempo, len(rows), len(left), secret=secret, opening=opening) else None


def _call_last(session: Session, game: Game, window: Window, seat_id: int, now: datetime, *, opening: bool) -> None:
    """The last call to the seat whose answer the window still waits for: that player's deadline becomes the
    earlier of the deadline and the end of the last call (``policy.last_call_end``, shorter for a player who usually
    answers quickly), and they get one "everyone is waiting for you" mail. A window that opens (``opening``) asking
    one request only is its own last call (the turn mail is the call). Never in a window asked in secret: it would
    tell the last card holder that others were asked (B-INFO; ``policy.last_called``)."""
    seat = session.get(Seat, seat_id)  # the game's seats are loaded when the window opens: no query then
    assert seat is not None
    if seat.bot is not None or seat.player is None:
        return
    if policy.absence_mode(game.tempo) == "extend" and autopilot.away_until(session, [seat.player.id], now):
        return  # their deadline waits for the end of their absence (``autopilot.extend_for_absence``)
    paces = [
        (r.opened_at, r.answered_at)
        for r in archive.requests_of(game.id, game.archive)
        if r.seat_id == seat.id
        and r.answered_at is not None
        and not r.standing
        and not r.autopilot
        and r.player_id == seat.player_id  # not a former player's of the seat
    ]
    window.deadline = policy.last_call_end(game.tempo, now, window.deadline, quiet_of(seat.player), paces)
    outbox.look_at_held(session, Outbox.seat_id == seat.id)  # a digest asking for this decision may be due sooner
    if not opening:
        key = f"lastcall:{window.id}"
        outbox.add(session, [outbox.notice(seat, MailKind.LAST_CALL, key, {"window": window.number}, now)])


def submit_answer(
    db: Database,
    seat_id: int,
    kind: str,
    answer: JSON,
    *,
    generation: int | None = None,
    window_number: int | None = None,
    now: datetime | None = None,
) -> Submitted:
    """Store a seat's answer to its open request; AnswerError (nothing changed) when it cannot be taken.

    ``generation``: the link generation the answer came with (LinkError when the link was revoked). The answer that
    completes the window kicks its advance after the commit (once per window; the sweep covers a lost kick).

    Everything the answer is checked against is read under the open window's row lock: the window, the seat's
    request and the game's state (an advance takes the same lock, so none can commit in between). With
    ``window_number`` (the window the caller saw) an answer to a window that has closed since is refused; without
    it, the answer is to the window open when the lock is taken, checked against that window's state.
    """
    now = now or utcnow()
    with db.session() as session:
        conn = session.connection()  # Core statements: no ORM objects, no ORM execution (issue 29)
        found_open = conn.execute(_SEAT_AND_WINDOW, {"seat_id": seat_id}).first()
        seat = found_open or conn.execute(_SEAT, {"seat_id": seat_id}).first()
        if seat is None:  # a well-signed link to a seat that is gone
            raise LinkError(N_("This link is not valid."))
        if generation is not None:
            check_generation(seat, generation)
        if found_open is None or (window_number is not None and window_number != found_open.window_number):
            raise AnswerError(
                N_("This decision is closed: the game has moved on. Open your link to see what is new."), 409
            )
        window_id, number, completed_at = found_open.window_id, found_open.window_number, found_open.completed_at
        rows = conn.execute(_GAME_AND_ROWS, {"game_id": seat.game_id, "window_id": window_id}).all()
        game = rows[0]  # (an open window has its requests; each row carries the game's columns)
        row = next((r for r in rows if r.seat_id == seat.id), None)
        if row is None:
            raise AnswerError(N_("There is nothing for you to decide right now."), 409)
        if _closed_as_decided(completed_at, rows):
            raise AnswerError(VOTE_DECIDED, 409)
        if row.kind != kind:
            raise AnswerError(
                N_("You are asked for a %(asked)s now, not a %(given)s."), 409, asked=row.kind, given=str(kind)[:20]
            )
        # checking needs the state, not the events; the game is read whole only when no checker holds its version
        key = (seat.game_id, game.created_at)
        eng = CACHE.checker_at(key, game.version) or CACHE.checker(_whole_game(session, seat.game_id))
        if eng.window_no != number:  # should never happen: the state and the window are read under one lock
            raise AnswerError(MOVING_ON, 409)
        try:
            eng.check(seat.colour, kind, answer)
        except engine.IllegalAnswer as exc:
            raise AnswerError.refused_by_engine(exc) from None
        changed = _changes(row, answer)
        if changed:
            conn.execute(_ANSWER_ROW, {"row_id": row.id, **_answered(answer, now)})
        complete = completed_at is not None
        if not complete:
            answered = (i for i, r in enumerate(rows) if r is row or r.answered_at is not None)
            answers = {i: answer if rows[i] is row else rows[i].answer for i in answered}
            complete = _done(session, game.tempo, window_id, rows, answers)
            if complete:
                conn.execute(_COMPLETE_WINDOW, {"window_id": window_id, "at": now})
                advance_after_commit(session, window_id)
            elif row.answered_at is None:  # the player's first answer to it may leave one request for the last call
                left = [r.seat_id for i, r in enumerate(rows) if i not in answers]
                if (last := _last_one(game.tempo, rows, left, opening=False)) is not None:
                    window = session.get(Window, window_id)  # locked already
                    assert window is not None
                    _call_last(session, _whole_game(session, seat.game_id), window, last, now, opening=False)
        return Submitted(window_id, number, changed, complete)


def _whole_game(session: Session, game_id: int) -> Game:
    game = session.get(Game, game_id)
    assert game is not None
    return game


def answer_as_bot(session: Session, game: Game, seat: Seat, window: Window, now: datetime) -> bool:
    """A seat just given to a bot, or a person's seat just put on autopilot (their standing answer first), answers
    its open request at once, through ``_store`` like a person's answer. False when the seat owes nothing unanswered
    in the window."""
    rows, row = _unanswered(session, window, seat)
    if row is None or _closed_as_decided(window.completed_at, rows):  # a vote closed as decided: the seat does not vote
        return False
    eng = CACHE.fresh(game)  # a private copy: this transaction may still roll back
    req = next((r for r in eng.pending() if r.player == seat.colour and r.kind == row.kind), None)
    if eng.window_no != window.number or req is None:
        raise AnswerError(MOVING_ON, 409)
    chosen = None if seat.bot else standing_answers.answer_for(seat, eng, req)
    answer = bot_answer(game, seat, eng, req) if chosen is None else chosen
    try:
        eng.check(seat.colour, row.kind, answer)  # a bot's answer is checked like anyone's
    except engine.IllegalAnswer as exc:
        raise AnswerError.refused_by_engine(exc) from None
    _store(session, game, window, rows, row, answer, now=now)
    row.autopilot = seat.bot is None
    return True


# --- standing orders (H-5) -------------------------------------------------------------------------------------


#: a change that found the game between two windows (an advance was closing the one it locked).
MOVING_ON = N_("The game is moving on right now: try again in a moment.")
#: a vote or a change of vote after the vote was closed as decided (``close_decided_votes``).
VOTE_DECIDED = N_("This vote is closed: the votes still missing could not change its outcome.")


def _closed_as_decided(completed_at: datetime | None, rows: Sequence[_Asked]) -> bool:
    """The window (completed at ``completed_at``) was completed with requests unanswered: a vote closed once
    decided."""
    return completed_at is not None and any(r.answered_at is None for r in rows)


def set_standing_order(db: Database, seat_id: int, order: list[str], now: datetime | None = None) -> bool:
    """RULES.md H-5: give the engine the seat's standing victim order (an empty one clears it), for every victim
    request from now on. When the seat owes the open window's victim request and has not answered it yet, the order
    answers it: its choice is stored like any answer (``_store``: the window completes, and advances as after any
    answer, not during a pause). True when it answered. AnswerError (409) when an advance was closing the window.

    Checked by the caller (``prefs``): the seat is a person's and its game is running."""
    now = now or utcnow()
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None
        window = session.execute(_OPEN_WINDOW, {"game_id": seat.game_id}).scalar_one_or_none()
        game = session.get(Game, seat.game_id)
        assert game is not None
        eng = CACHE.fresh(game)
        if window is None or window.number != eng.window_no:
            raise AnswerError(MOVING_ON, 409)
        eng.set_standing_order(seat.colour, order, answer_open=False)  # the window's answers apply when it closes
        store_state(game, eng, now)
        rows, row = _unanswered(session, window, seat)
        choice = None if row is None else eng.standing_answer(seat.colour)
        if row is not None and choice is not None:
            _store(session, game, window, rows, row, choice, now=now)
    CACHE.put(game, eng)
    return choice is not None


# --- advancing ---------------------------------------------------------------------------------------------------


def advance_window(db: Database, window_id: int, now: datetime | None = None) -> bool:
    """Close the window if it is open and complete or due, and open the next one; False when this call did nothing
    (not open, not due, or paused). It waits for the window's row lock (an answer or a reminder holds it briefly; a
    concurrent advance, then found closed); the sweep takes only windows its batch leased (``claim_windows``)."""
    now = now or utcnow()
    with db.session() as session:
        window = session.execute(
            select(Window).where(Window.id == window_id, Window.status == WindowStatus.OPEN).with_for_update()
        ).scalar_one_or_none()
        if window is None:
            return False
        rows = list(window.requests)
        complete = window.completed_at is not None or all(r.answered_at is not None for r in rows)
        if not complete and window.deadline > now:
            return False
        # the seats and their players at once: the rows' seats and the players' settings are then read without a
        # query each
        game = session.get(
            Game, window.game_id, options=[selectinload(Game.seats).joinedload(Seat.player), undefer(Game.archive)]
        )
        assert game is not None
        if game.paused_at(now):
            return False  # paused by the organiser: the sweep advances it once the pause is over
        if not complete and _wait_for_absent(session, game, window, rows, now):
            return False
        window.status = WindowStatus.RESOLVING
        session.flush()
        eng = CACHE.fresh(game)
        events_before = len(eng.events)
        if eng.window_no == window.number:
            _apply(game, window, rows, eng)
            autopilot.count_missed(session, game, rows, now)
        else:  # should never happen: resynchronise rather than leave the game stuck
            log.error("game %s: window %s does not match the engine's window %s", game.id, window.number, eng.window_no)
            session.execute(delete(Window).where(Window.game_id == game.id, Window.number == eng.window_no))
        reliability.record(session, reliability.counted_of(window, rows))
        archive.fold(session, game, [(window, rows)], now)  # closed: its rows go, the game's archive keeps it
        open_windows(session, game, eng, events_before, now)
    CACHE.put(game, eng)  # committed: later checks start from the new state
    return True


def _wait_for_absent(session: Session, game: Game, window: Window, rows: list[RequestRow], now: datetime) -> bool:
    """Play hours: the short deadline is for the players at the table. When it passes, a window waits once more,
    until the short deadline of the next session, if someone who owes an answer has not been on their page since
    it opened (absent from the session: they answer by mail or at the next session); each of them is told. A
    player who was on their page and did not answer gets the default as usual. In a window asked in secret, anyone
    away from the table makes it wait (B-INFO). A seat on autopilot or whose player declared an absence is not
    waited for: the table knows (``policy.absence_wait``). True when the window waits."""

    def absent(seat: Seat) -> bool:
        """A person not on their page since the window opened."""
        return (
            seat.bot is None and seat.player is not None and (seat.seen_at is None or seat.seen_at < window.opened_at)
        )

    @cache
    def elsewhere() -> dict[int, datetime]:
        """The players in a declared absence (read once, if asked)."""
        return autopilot.away_until(session, (s.player_id for s in game.seats if s.player_id), now)

    def known(seat: Seat) -> bool:
        """On autopilot, or in a declared absence: the table knows (not waited for)."""
        return seat.autopilot_at is not None or seat.player_id in elsewhere()

    owing = [r.seat for r in rows if r.answered_at is None]
    deadline = policy.absence_wait(
        PlayHours.of(game.tempo),
        now,
        waited=window.extended_at is not None,
        secret=any(r.secret for r in rows),
        table=game.seats,
        owing=owing,
        absent=absent,
        known=known,
    )
    if deadline is None:
        return False
    told = [seat for seat in owing if absent(seat) and not known(seat)]
    window.deadline = deadline
    window.extended_at = now
    payload = {"window": window.number, "absent": True}
    outbox.add(
        session,
        [outbox.notice(seat, MailKind.LAST_CALL, f"absent:{window.id}:{seat.id}", payload, now) for seat in told],
    )
    log.info("game %s: window %s waits for %d absent from the session", game.id, window.number, len(told))
    return True


def _apply(game: Game, window: Window, rows: list[RequestRow], eng: engine.Game) -> None:
    """The window's answers through the engine, in order; an H-4 default for each one missing. In a vote closed as
    decided, the answers first, then the voters still missing, who did not vote (not defaulted: they missed
    nothing)."""
    decided = _closed_as_decided(window.completed_at, rows)
    for row in sorted(rows, key=lambda r: r.answered_at is None) if decided else rows:
        colour = row.seat.colour
        if row.answered_at is not None:
            try:
                eng.answer(colour, row.kind, row.answer, standing=row.standing)
                continue
            except engine.IllegalAnswer as exc:  # checked when stored, against this same state: should not happen
                # the message id only: the refusal's parameters may name the (secret) answer
                log.error(
                    "game %s: a stored answer of %s no longer applies (%s); defaulted", game.id, colour, exc.msgid
                )
        if decided:
            try:
                eng.timeout(colour, row.kind, decided=True)
                continue
            except engine.IllegalAnswer as exc:  # decided when stored, against this same state: should not happen
                log.error("game %s: a vote closed as decided is not decided (%s); defaulted", game.id, exc.msgid)
        eng.timeout(colour, row.kind)
        row.defaulted = True


#: a sweep batch's claim on a window (``Window.claimed_until``): no other batch takes it before this has passed.
LEASE = timedelta(minutes=2)


def _due(now: datetime) -> list[ColumnElement[bool]]:
    """Open windows that are due, as two conditions each read through its own index: past their deadline, and
    complete (their kick may have been lost)."""
    return [Window.deadline <= now, Window.completed_at.is_not(None)]


def due_windows(db: Database, now: datetime, limit: int = 200) -> list[int]:
    """Open windows of games not paused that are complete or past their deadline, claimed or not."""
    with db.session() as session:
        found: set[int] = set()
        for due in _due(now):
            found.update(
                session.execute(
                    select(Window.id)
                    .join(Game, Game.id == Window.game_id)
                    .where(WINDOW_OPEN, due, Game.unpaused_at(now))
                    .limit(limit)
                ).scalars()
            )
        return sorted(found)[:limit]


def claim_windows(db: Database, now: datetime, limit: int) -> list[int]:
    """Claim up to ``limit`` due windows not claimed by another batch (earliest deadline first): each gets a lease
    (``claimed_until``) in one UPDATE over rows locked with ``SKIP LOCKED`` (ignored by SQLite, whose writes are
    serialized). Returns their ids; each is then advanced by ``advance_window``, whose own claim is exactly-once."""
    free = Window.claimed_until.is_(None) | (Window.claimed_until <= now)
    claimed: list[int] = []
    with db.session() as session:
        for due in _due(now):
            if len(claimed) >= limit:
                break
            # a CTE, computed once (a subquery under IN may be run again by PostgreSQL's plan, claiming more)
            chosen = (
                select(Window.id)
                .join(Game, Game.id == Window.game_id)
                .where(WINDOW_OPEN, due, free, Game.unpaused_at(now))
                .order_by(Window.deadline)
                .limit(limit - len(claimed))
                .with_for_update(skip_locked=True, of=Window)
                .cte("chosen")
                .prefix_with("MATERIALIZED", dialect="postgresql")
            )
            claimed += session.execute(
                update(Window)
                .where(Window.id.in_(select(chosen.c.id)), free)
                .values(claimed_until=now + LEASE)
                .returning(Window.id)
                .execution_options(synchronize_session=False)
            ).scalars()
    return claimed


def sweep_windows(db: Database, now: datetime | None = None, limit: int = 200) -> int:
    """Claim up to ``limit`` due windows and advance them; returns how many were applied by this call."""
    now = now or utcnow()
    return sum(advance_window(db, wid, now) for wid in claim_windows(db, now, limit))


def bot_choice(db: Database, seat_id: int, kind: str, seed: int) -> JSON:
    """The answer a bot of ``kind`` would give to the seat's open request now (None when it owes none): the demo's
    bots answer through the web like people, deciding with ``engine.bots`` like every bot of the server."""
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None
        eng = CACHE.get(seat.game)
        req = next((r for r in eng.pending() if r.player == seat.colour), None)
        return None if req is None else decide_as_bot(kind, seed, eng, req)
