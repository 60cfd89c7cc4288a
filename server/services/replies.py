"""Replies by mail, the operations: a message claimed once, a reply address checked against its seat, an answer
applied through the web's own path, the outcome recorded and answered by mail (within limits).

Reading the message itself (headers, body, quotes, the command) is ``server/mail/replies.py``'s job.

- A message delivered twice is applied once and answered once: ``InboundMail.message_id`` is unique, and a message
  is claimed (status ``received``) before anything is applied; a claim left behind by a crash is taken over by a
  later delivery after ``STALE_CLAIM``.
- Answers about replies are limited per seat, window and result (``REPLY_LIMITS``), so a loop with a badly behaved
  auto-responder stops.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypedDict

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

import engine
from engine.shapes import JSON

from ..db import Database
from ..models import GameStatus, InboundMail, MailKind, Seat
from .attendance import absences, prefs
from .errors import ShownError
from .links import LinkError
from .mailflow import outbox
from .mailflow.reply_address import ReplyTo
from .notify import nudges
from .play import autopilot, turns
from .play.seats import seat_state

log = logging.getLogger("deadmail.replies")

#: a claim older than this was left by a crash: a new delivery of the message takes it over.
STALE_CLAIM = timedelta(minutes=2)
#: answers per seat, window and result at most: a loop with a badly behaved auto-responder stops here.
REPLY_LIMITS = {
    "applied": 20,
    "error": 5,
    "closed": 3,
    "wrong_sender": 1,
    "chat_error": 3,
    "away": 20,
    "back": 20,
    "refused": 5,
}
#: answers about a reply without a window (table talk) are counted over this much time instead.
WINDOWLESS_PERIOD = timedelta(hours=1)
#: the longest command kept with an outcome.
MAX_COMMAND = 300


class Unavailable(RuntimeError):
    """The database could not be used: nothing was recorded, the sender should try again later."""


@dataclass
class Outcome:
    """What became of one inbound message."""

    #: applied, error, closed, wrong_sender, forged, ignored
    status: str
    detail: str = ""
    recipient: str = ""
    seat_id: int | None = None
    window: int | None = None
    #: the result told by mail ("applied" …), or None: no answer mail.
    reply: str | None = None
    command: str = ""
    #: more for the answer mail's payload: an absence's span, a refusal (``refusal_of``).
    extra: dict[str, Any] = field(default_factory=dict)


def claim(db: Database, message_id: str, sender: str, recipient: str, now: datetime, digest: str = "") -> int | None:
    """Record the message as received; None when it already was (by another delivery, now or before).

    A message without a Message-ID (``message_id`` "") is known by ``digest`` (``mail.replies.digest``) and by the
    sender's message before it (``_digest_key``)."""
    key = message_id or _digest_key(db, digest, sender)
    try:
        with db.session() as session:
            row = InboundMail(
                message_id=key,
                received_at=now,
                sender=sender[:320],
                recipient=recipient[:320],
                status="received",
                detail="",
            )
            session.add(row)
            session.flush()
            return row.id
    except IntegrityError:
        pass
    with db.session() as session:  # taken over only when a crash left the claim behind
        taken: int = session.execute(  # type: ignore[attr-defined]
            update(InboundMail)
            .where(
                InboundMail.message_id == key,
                InboundMail.status == "received",
                InboundMail.received_at < now - STALE_CLAIM,
            )
            .values(received_at=now)
        ).rowcount
        if taken != 1:
            return None
        return session.execute(select(InboundMail.id).where(InboundMail.message_id == key)).scalar_one()


def _digest_key(db: Database, digest: str, sender: str) -> str:
    """The key of a message without a Message-ID: its digest and the sender's message before it. The same message
    delivered again follows itself, so it finds its own key (taken: a duplicate); sent again after another message
    (answers A, B, A), it is a new one, and the last answer stands."""
    prefix = f"sha256:{digest}:"
    with db.session() as session:
        last = session.execute(
            select(InboundMail.id, InboundMail.message_id)
            .where(InboundMail.sender == sender[:320])
            .order_by(InboundMail.id.desc())
            .limit(1)
        ).first()
    if last is not None and last.message_id.startswith(prefix):
        return str(last.message_id)
    return f"{prefix}{0 if last is None else last.id}"


def release(db: Database, inbound_id: int) -> None:
    """Forget a claim (best effort) so the sender's next try is not taken for a duplicate."""
    try:
        with db.session() as session:
            session.execute(delete(InboundMail).where(InboundMail.id == inbound_id, InboundMail.status == "received"))
    except SQLAlchemyError:
        log.warning("inbound %s: could not release the claim; a new delivery takes it over later", inbound_id)


def finish(db: Database, inbound_id: int, outcome: Outcome, now: datetime) -> None:
    """Store the outcome and its answer mail (sent after the commit) in one transaction."""
    with db.session() as session:
        row = session.get(InboundMail, inbound_id)
        assert row is not None
        row.status = outcome.status
        row.detail = outcome.detail[:2000]
        row.recipient = (outcome.recipient or row.recipient)[:320]
        row.seat_id = outcome.seat_id
        row.window_number = outcome.window
        if outcome.reply is None or outcome.seat_id is None:
            return
        same_window = (
            InboundMail.window_number == outcome.window
            if outcome.window is not None
            else (InboundMail.window_number.is_(None) & (InboundMail.received_at > now - WINDOWLESS_PERIOD))
        )
        earlier = session.execute(
            select(func.count(InboundMail.id)).where(
                InboundMail.seat_id == outcome.seat_id,
                same_window,
                InboundMail.status == outcome.status,
                InboundMail.id != inbound_id,
            )
        ).scalar_one()
        if earlier >= REPLY_LIMITS.get(outcome.reply, 1):
            log.warning("inbound %s: not answered (%s answers of %s already)", inbound_id, earlier, outcome.reply)
            row.detail = (row.detail + " (not answered: too many)")[:2000]
            return
        seat = session.get(Seat, outcome.seat_id)
        assert seat is not None and seat.player_id is not None
        payload = {
            "inbound": inbound_id,
            "result": outcome.reply,
            "window": outcome.window,
            "command": outcome.command[:MAX_COMMAND],
            **outcome.extra,
        }
        outbox.add(session, [outbox.notice(seat, MailKind.REPLY, f"reply:{inbound_id}", payload, now)])


# --- answers by mail -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Addressee:
    """The seat a signed reply address speaks for, checked: ``refused`` is "" when the reply may be applied, else
    the outcome status ("forged", "wrong_sender", "closed") with ``detail`` saying why."""

    refused: str
    detail: str = ""
    seat_id: int | None = None
    language: str = "en"
    #: the seat's player's time zone (absences are days in it).
    timezone: str = "UTC"
    #: the open request the reply answers, and the seat's view (``seat_state``), when it may be applied.
    request: engine.RequestJSON | None = None
    view: engine.PlayerView | None = None


def addressee(db: Database, to: ReplyTo, sender: str) -> Addressee:
    """Check a reply to ``to`` sent by ``sender`` against the seat now: its player, link generation and window."""
    with db.session() as session:
        seat = session.get(Seat, to.seat_id)
        player = seat.player if seat is not None else None
        if seat is None or player is None:
            return Addressee("forged", "no such seat")
        if seat.link_generation != to.generation:
            return Addressee("forged", "revoked address", seat.id)
        if sender != player.email.strip().lower():
            return Addressee("wrong_sender", f"from {sender}", seat.id)
        state = seat_state(session, seat)
        window = state["window"]
        zone = player.timezone or "UTC"
        if state["game"]["status"] != GameStatus.RUNNING or window is None or window["number"] != to.window:
            return Addressee("closed", "window not open", seat.id, player.language, zone)
        if window["request"] is None:
            return Addressee("closed", "nothing owed", seat.id, player.language, zone)
        return Addressee("", "", seat.id, player.language, zone, window["request"], state["view"])


def apply_answer(db: Database, to: ReplyTo, kind: str, answer: JSON, now: datetime) -> str:
    """Store an answer read from a reply, through the web's own path: "applied", "closed" (the window moved on),
    "error" (refused) or "forged" (the address was revoked meanwhile)."""
    try:
        done = turns.submit_answer(
            db, to.seat_id, kind, answer, generation=to.generation, window_number=to.window, now=now
        )
    except LinkError:
        return "forged"
    except turns.AnswerError as exc:
        return "closed" if exc.status == 409 else "error"
    nudges.answered_by_mail(db, to.seat_id, done.window_id, now)
    return "applied"


def set_standing(db: Database, to: ReplyTo, changes: object) -> str:
    """Standing answers read from a reply (``AUTO CAMERA LOOK``), stored like the seat page's: "applied", or
    "error" (refused: nothing changed)."""
    try:
        prefs.set_seat_standing(db, to.seat_id, changes)
    except ShownError:
        return "error"
    return "applied"


# --- absences and "I'm back" by mail -------------------------------------------------------------------------------


class Refusal(TypedDict):
    """A refusal as an answer mail's payload keeps it: its msgid and its parameters as texts."""

    msgid: str
    params: dict[str, str]


def refusal_of(exc: ShownError) -> Refusal:
    """A refusal as the answer mail's payload keeps it (``{"msgid", "params"}``), translated when composed."""
    return {"msgid": exc.msgid, "params": {k: str(v) for k, v in exc.params.items()}}


def declare_absence(db: Database, to: ReplyTo, starts: datetime, ends: datetime, now: datetime) -> tuple[str, Any]:
    """An absence read from a reply (``AWAY 3 DEC - 6 DEC``), declared for the seat's player: ("applied", the
    absence's span as ISO instants), ("error", ``refusal_of``: nothing changed) or ("forged", None)."""
    with db.session() as session:
        seat = session.get(Seat, to.seat_id)
        if seat is None or seat.player_id is None or seat.link_generation != to.generation:
            return "forged", None
        player_id = seat.player_id
    try:
        absences.declare(db, player_id, starts, ends, now=now)
    except LinkError:
        return "forged", None
    except ShownError as exc:
        return "error", refusal_of(exc)
    return "applied", {"from": max(starts, now).isoformat(), "to": ends.isoformat()}


def back(db: Database, to: ReplyTo, now: datetime) -> tuple[str, Any]:
    """An "I'm back" read from a reply (``BACK``): ("applied", whether the autopilot was on), ("error",
    ``refusal_of``: nothing changed) or ("forged", None: the address was revoked)."""
    try:
        was_on = autopilot.back(db, to.seat_id, generation=to.generation, now=now)
    except LinkError:
        return "forged", None
    except ShownError as exc:
        return "error", refusal_of(exc)
    return "applied", was_on
