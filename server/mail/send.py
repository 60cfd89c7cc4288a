"""Sending one outbox row: claim it, compose its mail, hand it to a transport, record the result.

The row's state is kept by ``services.outbox`` (claimed once, retried with back-off, failed after too many tries);
a mail with nothing left to tell when it is composed is skipped and never sent.
"""

from __future__ import annotations

import smtplib
from datetime import datetime

from ..config import Settings
from ..db import Database
from ..models import utcnow
from ..services import outbox
from .compose import compose
from .transports import Transport


def send_one(db: Database, row_id: int, transport: Transport, settings: Settings, now: datetime | None = None) -> str:
    """Claim a due row, send it, record the result: 'sent', 'retry', 'failed' or 'skipped' (not due or taken)."""
    now = now or utcnow()
    if not outbox.claim(db, row_id, now):
        return "skipped"
    try:
        mail = compose(db, row_id, settings, now)
        if mail is None:  # nothing left to tell (re-checked now): never sent
            outbox.skipped(db, row_id)
            return "skipped"
        transport.send(mail.message)
    except (OSError, smtplib.SMTPException) as exc:
        return outbox.failed(db, row_id, f"{type(exc).__name__}: {exc}", now)
    outbox.sent(db, row_id, mail.told, mail.chat)
    return "sent"


def send_due(db: Database, transport: Transport, settings: Settings, now: datetime) -> int:
    """Send every row whose time has come (the sweep); returns how many were sent."""
    return sum(send_one(db, row_id, transport, settings, now) == "sent" for row_id in outbox.due_rows(db, now))
