"""The async loop: secret answers per window, and advancing a window exactly once (docs/DESIGN.md).

- ``submit_answer`` stores one seat's answer (checked by the engine) while its window is open; it may be changed
  until the window closes; the caller kicks an advance when it was the last one owed.
- ``advance_window`` claims an open window that is complete or past its deadline (a conditional claim on the
  window row), applies its answers through the engine (H-4 defaults for the missing ones), and stores in the same
  transaction the new state, the events, the next window and the outbox rows. A duplicate or concurrent call finds
  the window no longer open and does nothing; a lost call is made again by the sweep.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, select
from sqlalchemy.orm import Session, load_only

import engine
from engine.bots import RandomBot, SensibleBot
from engine.requests import by_standing_order

from ..db import Database
from ..models import Event, Game, Outbox, RequestRow, Seat, Window, utcnow
from .errors import N_, ShownError
from .games import CACHE
from .links import LinkError
from .reminders import quiet_of
from .seats import check_generation
from .tempo import window_deadline

log = logging.getLogger("deadmail.turns")

Kick = Callable[[int], None]


class AnswerError(ShownError):
    """An answer refused; ``status`` is the HTTP status that fits, the message is for the player (pages translate
    it; an engine refusal passes through in English)."""

    def __init__(self, message: str, status: int = 422, **params: Any) -> None:
        super().__init__(message, **params)
        self.status = status


@dataclass(frozen=True)
class Submitted:
    window_id: int
    window_number: int
    changed: bool
    #: every request of the window is answered: the caller kicks an advance after the commit.
    complete: bool


# --- storing what the engine did -------------------------------------------------------------------------------


def bot_answer(game: Game, seat: Seat, eng: engine.Game, req: engine.Request) -> Any:
    seed = game.seed * 1_000_003 + eng.window_no * 7 + seat.position
    bot = RandomBot(seed) if seat.bot == "random" else SensibleBot(seed)
    return bot.decide(eng, req)


#: notifications a player on a digest receives together (server/services/reminders.py sends the digest).
DIGESTED = frozenset({"turn", "update", "game_over"})


def notice(seat: Seat, kind: str, key: str, payload: dict[str, Any], now: datetime) -> Outbox:
    """A notification for the seat's player; ``key`` makes it unique, so a repeated advance cannot queue it twice.
    Held for the digest when the player asked for one."""
    assert seat.player_id is not None and seat.player is not None
    held = kind in DIGESTED and seat.player.mail_mode == "digest"
    return Outbox(
        status="held" if held else "pending",
        key=key,
        game_id=seat.game_id,
        player_id=seat.player_id,
        seat_id=seat.id,
        kind=kind,
        payload=payload,
        created_at=now,
        next_attempt_at=now,
    )


def _standing_answer(seat: Seat, req: engine.Request) -> str | None:
    """RULES.md H-5: the victim a seat's standing order gives up, if it has one that fits."""
    if req.kind != "victim" or not seat.standing_order:
        return None
    return by_standing_order(req.options or [], seat.standing_order)


def _automatic(game: Game, seat: Seat, eng: engine.Game, req: engine.Request) -> Any:
    """The answer given without asking (a bot's, or a standing order's), else None."""
    if seat.bot is not None:
        return bot_answer(game, seat, eng, req)
    return _standing_answer(seat, req)


def open_windows(session: Session, game: Game, eng: engine.Game, events_before: int, now: datetime) -> list[Outbox]:
    """After the engine moved: let bots and standing orders answer what nobody else owes, then store events,
    state, the next window and the notifications; returns the outbox rows added (to be sent after the commit)."""
    mail: list[Outbox] = []
    seats = {seat.colour: seat for seat in game.seats}
    automatic: list[tuple[engine.Request, Any]] = []  # the open requests, each with its automatic answer or None
    while not eng.over:
        automatic = [(req, _automatic(game, seats[req.player], eng, req)) for req in eng.pending()]
        if any(value is None for _, value in automatic):
            break
        for req, value in automatic:
            eng.answer(req.player, req.kind, value)
    current = game.round
    for seq, event in enumerate(eng.events[events_before:], start=events_before):
        if event["type"] == "round_started":
            current = event["round"]
        data = {k: v for k, v in event.items() if k not in ("type", "to")}
        session.add(
            Event(
                game_id=game.id,
                seq=seq,
                round=current,
                type=event["type"],
                data=data,
                visible_to=event.get("to"),
                created_at=now,
            )
        )
    game.state = eng.to_json()
    game.version += 1
    game.round = eng.round
    game.phase = eng.phase
    game.updated_at = now
    if eng.over:
        game.status = "over"
        game.outcome = eng.outcome
        mail = [
            notice(seat, "game_over", f"over:{game.id}:{seat.id}", {}, now) for seat in game.seats if seat.bot is None
        ]
        session.add_all(mail)
        return mail
    pending = [req for req, _ in automatic]
    owing = [seats[r.player].player for r in pending if seats[r.player].bot is None]
    quiet = [q for p in owing if p is not None and (q := quiet_of(p)) is not None]
    window = Window(
        game_id=game.id,
        number=eng.window_no,
        status="open",
        round=eng.round,
        phase=eng.phase,
        opened_at=now,
        deadline=window_deadline(now, [r.kind for r in pending], game.tempo, quiet),
    )
    session.add(window)
    session.flush()
    for i, (req, value) in enumerate(automatic):
        seat = seats[req.player]
        row = RequestRow(window_id=window.id, seat_id=seat.id, position=i, kind=req.kind, payload=req.to_json())
        if value is not None:  # bots and standing orders answer through the same rows as people, at once
            row.answer = value
            row.answered_at = now
        else:
            mail.append(notice(seat, "turn", f"turn:{window.id}:{seat.id}", {"window": window.number}, now))
        session.add(row)
    owes = {req.player for req in pending}
    for seat in game.seats:  # the others hear what changed, if they saw anything change
        if seat.bot is None and seat.colour not in owes and _saw_news(eng.events[events_before:], seat.colour):
            mail.append(notice(seat, "update", f"update:{window.id}:{seat.id}", {"window": window.number}, now))
    session.add_all(mail)
    return mail


def _saw_news(events: list[dict[str, Any]], colour: str) -> bool:
    return any(event.get("to") is None or colour in event["to"] for event in events)


# --- answering ---------------------------------------------------------------------------------------------------

# Built once: answering is the hot path, and building a statement costs more than running it.
# Only the columns it needs: the rest (the game's JSON, each request's payload) would be decoded for nothing.
_SEAT_AND_GAME = (
    select(Seat, Game)
    .join(Seat.game)
    .options(load_only(Game.id, Game.version, Game.created_at))
    .where(Seat.id == bindparam("seat_id"))
)
_OPEN_WINDOW = select(Window).where(Window.game_id == bindparam("game_id"), Window.status == "open").with_for_update()
_WINDOW_ROWS = (
    select(RequestRow)
    .options(load_only(RequestRow.seat_id, RequestRow.kind, RequestRow.answer, RequestRow.answered_at))
    .where(RequestRow.window_id == bindparam("window_id"))
)


def submit_answer(
    db: Database,
    seat_id: int,
    kind: str,
    answer: Any,
    *,
    generation: int | None = None,
    window_number: int | None = None,
    now: datetime | None = None,
    kick: Kick | None = None,
) -> Submitted:
    """Store a seat's answer to its open request; AnswerError (nothing changed) when it cannot be taken.

    ``generation``: the link generation the answer came with (LinkError when the link was revoked). ``kick`` is
    called after the commit when this answer completed the window (once per window; the sweep covers a lost one).
    """
    now = now or utcnow()
    with db.session() as session:
        found = session.execute(_SEAT_AND_GAME, {"seat_id": seat_id}).first()
        if found is None:  # a well-signed link to a seat that is gone
            raise LinkError(N_("This link is not valid."))
        seat, game = found
        if generation is not None:
            check_generation(seat, generation)
        window = session.execute(_OPEN_WINDOW, {"game_id": seat.game_id}).scalar_one_or_none()
        if window is None or (window_number is not None and window_number != window.number):
            raise AnswerError(
                N_("This decision is closed: the game has moved on. Open your link to see what is new."), 409
            )
        rows = session.execute(_WINDOW_ROWS, {"window_id": window.id}).scalars().all()
        row = next((r for r in rows if r.seat_id == seat.id), None)
        if row is None:
            raise AnswerError(N_("There is nothing for you to decide right now."), 409)
        if row.kind != kind:
            raise AnswerError(
                N_("You are asked for a %(asked)s now, not a %(given)s."), 409, asked=row.kind, given=kind
            )
        try:
            CACHE.get(game).check(seat.colour, kind, answer)
        except engine.IllegalAnswer as exc:
            raise AnswerError(str(exc)) from None
        changed = row.answered_at is None or row.answer != answer
        if changed:
            row.answer = answer
            row.answered_at = now
        complete = all(r.answered_at is not None for r in rows)
        completed_now = complete and window.completed_at is None
        if completed_now:
            window.completed_at = now
        result = Submitted(window.id, window.number, changed, complete)
    if completed_now and kick is not None:
        kick(result.window_id)
    return result


# --- advancing ---------------------------------------------------------------------------------------------------


def advance_window(db: Database, window_id: int, now: datetime | None = None, wait: bool = True) -> list[int] | None:
    """Close the window if it is open and complete or due. None when this call did nothing (not open, not due,
    or, with ``wait=False``, locked by someone else); else the ids of the outbox rows it added, to send after the
    commit. A kicked advance waits for the row lock (a submit holds it briefly); the sweep skips locked windows."""
    now = now or utcnow()
    with db.session() as session:
        window = session.execute(
            select(Window).where(Window.id == window_id, Window.status == "open").with_for_update(skip_locked=not wait)
        ).scalar_one_or_none()
        if window is None:
            return None
        rows = list(window.requests)
        if any(r.answered_at is None for r in rows) and window.deadline > now:
            return None
        game = session.get(Game, window.game_id)
        assert game is not None
        if game.paused_at(now):
            return None  # paused by the organiser: the sweep advances it once the pause is over
        window.status = "resolving"
        session.flush()
        eng = CACHE.fresh(game)
        events_before = len(eng.events)
        if eng.window_no != window.number:  # should never happen: resynchronise rather than leave the game stuck
            log.error("game %s: window %s does not match the engine's window %s", game.id, window.number, eng.window_no)
            window.status = "closed"
            window.closed_at = now
            session.execute(delete(Window).where(Window.game_id == game.id, Window.number == eng.window_no))
            mail = open_windows(session, game, eng, events_before, now)
            session.flush()
            return [m.id for m in mail]
        for row in rows:
            colour = row.seat.colour
            if row.answered_at is not None:
                try:
                    eng.answer(colour, row.kind, row.answer)
                    continue
                except engine.IllegalAnswer:  # checked when stored, against this same state: should not happen
                    log.exception("game %s: stored answer of %s no longer applies; defaulting", game.id, colour)
            eng.timeout(colour, row.kind)
            row.defaulted = True
        window.status = "closed"
        window.closed_at = now
        mail = open_windows(session, game, eng, events_before, now)
        session.flush()
        mail_ids = [m.id for m in mail]
    CACHE.put(game, eng)  # committed: later checks start from the new state
    return mail_ids


def due_windows(db: Database, now: datetime, limit: int = 200) -> list[int]:
    """Open windows of games not paused that are complete (their kick may have been lost) or past their deadline."""
    with db.session() as session:
        rows = session.execute(
            select(Window.id)
            .join(Game, Game.id == Window.game_id)
            .where(
                Window.status == "open",
                (Window.deadline <= now) | Window.completed_at.is_not(None),
                Game.unpaused_at(now),  # a paused game's window is due once the pause is over
            )
            .order_by(Window.deadline)
            .limit(limit)
        ).scalars()
        return list(rows)


def sweep_windows(db: Database, now: datetime | None = None) -> int:
    """Advance every due window; returns how many were applied by this call (their mail is left to the sweep's
    own outbox pass)."""
    now = now or utcnow()
    return sum(advance_window(db, wid, now, wait=False) is not None for wid in due_windows(db, now))
