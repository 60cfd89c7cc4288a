"""Sending outbox rows: claim them, compose each mail, hand it to a transport, record the result. A batch
(``send_batch``: due rows; ``send_rows``: the rows a transaction wrote) is claimed in one statement and sent over one
connection of the transport, mail after mail.

The row's state is kept by ``services.mailflow.outbox`` (claimed once, retried with back-off, failed after too many
tries); a mail with nothing left to tell when it is composed is skipped and never sent.

At least once, never silently lost: the row is marked sent as soon as the transport has the mail (the transport
calls back after the SMTP server accepted DATA, before the next mail or QUIT). When that mark cannot be written (the
database failed, or the worker died just then) the row stays ``sending``, is released after ``outbox.STUCK_AFTER``
and sent again, with the same Message-ID (``headers.message_id``), so mail clients show the copy as the same mail.
Every attempt counts toward ``outbox.MAX_ATTEMPTS``, whatever failed (a bug in composing too). When the connection
fails (not one mail), the batch stops there and its rows not yet tried are released at once (``outbox.release``)."""

from __future__ import annotations

import logging
import smtplib
from datetime import datetime

from sqlalchemy.exc import SQLAlchemyError

from ..config import Settings
from ..db import Database
from ..models import utcnow
from ..services.mailflow import outbox
from . import signing
from .compose import Mail, compose_batch
from .transports import Sender, ends_batch, session_of

log = logging.getLogger("deadmail.mail")


def send_one(db: Database, row_id: int, transport: Sender, settings: Settings, now: datetime | None = None) -> str:
    """Claim a due row, send it, record the result: 'sent', 'retry', 'failed' or 'skipped' (not due or taken);
    'unrecorded' when the mail went out but marking it sent failed (it is sent again later, same Message-ID)."""
    return send_rows(db, [row_id], transport, settings, now).get(row_id, "skipped")


def send_rows(
    db: Database, ids: list[int], transport: Sender, settings: Settings, now: datetime | None = None
) -> dict[int, str]:
    """Claim those of ``ids`` that are due (one statement) and send them over one connection: each row's result as
    ``send_one`` gives it (rows not claimed are left out; rows never tried because the connection failed first are
    released: 'released')."""
    now = now or utcnow()
    return _send_claimed(db, outbox.claim_many(db, now, ids=ids), transport, settings, now)


def send_batch(db: Database, transport: Sender, settings: Settings, now: datetime, limit: int = 100) -> dict[int, str]:
    """Claim up to ``limit`` due rows at once (first releasing rows stuck in 'sending'), send them over one
    connection, record each: each claimed row's result (run it again while ``limit`` rows were claimed and none was
    'released' by a failed connection)."""
    return _send_claimed(db, outbox.claim_many(db, now, limit=limit), transport, settings, now)


def full(results: dict[int, str], limit: int) -> bool:
    """A batch claimed ``limit`` rows and its connection held: more rows may be due."""
    return len(results) == limit and "released" not in results.values()


def send_due(db: Database, transport: Sender, settings: Settings, now: datetime, limit: int = 100) -> int:
    """Send every row whose time has come, batch after batch; returns how many were sent."""
    sent = 0
    while True:
        results = send_batch(db, transport, settings, now, limit)
        sent += sum(result == "sent" for result in results.values())
        if not full(results, limit):  # all sent, or the connection failed
            return sent


def _send_claimed(db: Database, ids: list[int], transport: Sender, settings: Settings, now: datetime) -> dict[int, str]:
    """Send claimed rows in order over one session of the transport, composed together as far as they can be
    (``compose.compose_batch``), each recorded as soon as the transport took it; a failure of the connection (not
    of one mail) stops there and releases the rows not tried yet."""
    results: dict[int, str] = {}
    todo = list(ids)
    with session_of(transport) as sender:
        while todo:
            composed = compose_batch(db, todo, settings, now)
            todo = todo[len(composed) :]
            for n, (row_id, mail) in enumerate(composed):
                results[row_id], go_on = _send(db, row_id, mail, sender, settings, now)
                if not go_on:
                    rest = [later for later, _ in composed[n + 1 :]] + todo
                    outbox.release(db, rest)
                    results.update((later, "released") for later in rest)
                    return results
    return results


def _send(
    db: Database, row_id: int, mail: Mail | Exception | None, sender: Sender, settings: Settings, now: datetime
) -> tuple[str, bool]:
    """Send one claimed row's composed mail and record it the moment the transport took it (a crash can then repeat
    at most this one mail), or record why not; and whether the session can take the next mail."""
    recorded: list[bool] = []
    try:
        if isinstance(mail, Exception):
            raise mail
        if mail is None:  # nothing left to tell (re-checked now): never sent
            outbox.skipped(db, row_id)
            return "skipped", True
        sender.send(signing.sign(mail.message, settings), lambda: recorded.append(_record(db, row_id, mail)))
    except (OSError, smtplib.SMTPException) as exc:
        return outbox.failed(db, row_id, f"{type(exc).__name__}: {exc}", now), not ends_batch(sender, exc)
    except Exception as exc:  # a bug (say in composing): a failed attempt like any other, never a loop for ever
        log.exception("outbox %s: could not be sent", row_id)
        return outbox.failed(db, row_id, f"{type(exc).__name__}: {exc}", now), True
    return ("sent" if recorded == [True] else "unrecorded"), True


def _record(db: Database, row_id: int, mail: Mail) -> bool:
    """Mark the row sent, right after the transport took the mail; a database error is logged, not raised (the mail
    is out: the row stays claimed and is sent again later, with the same Message-ID)."""
    try:
        outbox.sent(db, row_id, mail.told, mail.chat)
    except SQLAlchemyError:
        mid = mail.message["Message-ID"]
        log.exception("outbox %s: sent as %s but not recorded: it will be sent again, the same", row_id, mid)
        return False
    return True
