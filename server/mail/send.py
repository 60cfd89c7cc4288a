"""Sending one outbox row: claim it, compose its mail, hand it to a transport, record the result.

The row's state is kept by ``services.outbox`` (claimed once, retried with back-off, failed after too many tries);
a mail with nothing left to tell when it is composed is skipped and never sent.

At least once, never silently lost: the row is marked sent as soon as the transport has the mail (the transport
calls back after the SMTP server accepted DATA, before QUIT). When that mark cannot be written (the database
failed, or the worker died just then) the row stays ``sending``, is released after ``outbox.STUCK_AFTER`` and sent
again, with the same Message-ID (``compose.message_id``), so mail clients show the copy as the same mail. Every
attempt counts toward ``outbox.MAX_ATTEMPTS``, whatever failed (a bug in composing too).
"""

from __future__ import annotations

import logging
import smtplib
from datetime import datetime

from sqlalchemy.exc import SQLAlchemyError

from ..config import Settings
from ..db import Database
from ..models import utcnow
from ..services import outbox
from .compose import Mail, compose
from .transports import Transport

log = logging.getLogger("deadmail.mail")


def send_one(db: Database, row_id: int, transport: Transport, settings: Settings, now: datetime | None = None) -> str:
    """Claim a due row, send it, record the result: 'sent', 'retry', 'failed' or 'skipped' (not due or taken);
    'unrecorded' when the mail went out but marking it sent failed (it is sent again later, same Message-ID)."""
    now = now or utcnow()
    if not outbox.claim(db, row_id, now):
        return "skipped"
    recorded: list[bool] = []
    try:
        mail = compose(db, row_id, settings, now)
        if mail is None:  # nothing left to tell (re-checked now): never sent
            outbox.skipped(db, row_id)
            return "skipped"
        transport.send(mail.message, lambda: recorded.append(_record(db, row_id, mail)))
    except (OSError, smtplib.SMTPException) as exc:
        return outbox.failed(db, row_id, f"{type(exc).__name__}: {exc}", now)
    except Exception as exc:  # a bug (say in composing): a failed attempt like any other, never a loop for ever
        log.exception("outbox %s: could not be sent", row_id)
        return outbox.failed(db, row_id, f"{type(exc).__name__}: {exc}", now)
    return "sent" if recorded == [True] else "unrecorded"


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


def send_due(db: Database, transport: Transport, settings: Settings, now: datetime) -> int:
    """Send every row whose time has come (the sweep); returns how many were sent."""
    return sum(send_one(db, row_id, transport, settings, now) == "sent" for row_id in outbox.due_rows(db, now))
