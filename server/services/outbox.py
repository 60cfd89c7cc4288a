"""Sending the outbox: claim a row, build its mail, hand it to a transport; retries with back-off kept in the row."""

from __future__ import annotations

import logging
import smtplib
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol

from sqlalchemy import select, update

from ..db import Database
from ..models import Outbox, utcnow
from . import mails

log = logging.getLogger("deadmail.outbox")

MAX_ATTEMPTS = 10
#: a row left in "sending" this long (a worker died mid-send) is tried again.
STUCK_AFTER = timedelta(minutes=10)


class Transport(Protocol):
    def send(self, message: EmailMessage) -> None: ...


class FileTransport:
    """The embedded default: each mail is written to a file, and a page lists them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def send(self, message: EmailMessage) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        name = message["Message-ID"].strip("<>").replace("/", "_")
        tmp = self.folder / f".{name}.tmp"
        tmp.write_bytes(bytes(message))
        tmp.rename(self.folder / f"{name}.eml")


def backoff(attempts: int) -> timedelta:
    """30 s, 1 min, 2 min … at most an hour between tries."""
    return timedelta(seconds=min(3600, 30 * 2 ** max(0, attempts - 1)))


@dataclass(frozen=True)
class MailSettings:
    secret_key: str
    base_url: str
    mail_from: str = "deadmail <deadmail@localhost>"
    #: the domain of signed reply addresses (server/services/reply_address.py); empty: no Reply-To.
    reply_domain: str = ""


def compose(db: Database, row_id: int, settings: MailSettings) -> EmailMessage | None:
    """The mail for one outbox row (server/services/mails.py); None when nothing is left to tell."""
    return mails.compose(db, row_id, settings)


def send_one(
    db: Database, row_id: int, transport: Transport, settings: MailSettings, now: datetime | None = None
) -> str:
    """Claim a due row, send it, record the result: 'sent', 'retry', 'failed' or 'skipped' (not due or taken)."""
    now = now or utcnow()
    with db.session() as session:
        claimed: int = session.execute(  # type: ignore[attr-defined]
            update(Outbox)
            .where(Outbox.id == row_id, Outbox.status == "pending", Outbox.next_attempt_at <= now)
            .values(status="sending", attempts=Outbox.attempts + 1, next_attempt_at=now)
        ).rowcount
    if claimed != 1:
        return "skipped"
    try:
        message = compose(db, row_id, settings)
        if message is None:  # nothing left to tell (re-checked now): never sent
            with db.session() as session:
                session.execute(update(Outbox).where(Outbox.id == row_id).values(status="skipped"))
            return "skipped"
        transport.send(message)
    except (OSError, smtplib.SMTPException) as exc:
        with db.session() as session:
            row = session.get(Outbox, row_id)
            assert row is not None
            row.last_error = f"{type(exc).__name__}: {exc}"[:2000]
            if row.attempts >= MAX_ATTEMPTS:
                row.status = "failed"
                log.error("outbox %s failed for good: %s", row_id, row.last_error)
                return "failed"
            row.status = "pending"
            row.next_attempt_at = now + backoff(row.attempts)
            return "retry"
    with db.session() as session:
        session.execute(update(Outbox).where(Outbox.id == row_id).values(status="sent", sent_at=utcnow()))
        mails.record_sent(session, message)  # the seats told by this mail move their Seat.mailed_seq on
    return "sent"


def due_rows(db: Database, now: datetime, limit: int = 500) -> list[int]:
    """Pending rows whose time has come, after releasing rows stuck in 'sending' by a dead worker."""
    with db.session() as session:
        session.execute(
            update(Outbox)
            .where(Outbox.status == "sending", Outbox.next_attempt_at <= now - STUCK_AFTER)
            .values(status="pending")
        )
        rows = session.execute(
            select(Outbox.id)
            .where(Outbox.status == "pending", Outbox.next_attempt_at <= now)
            .order_by(Outbox.id)
            .limit(limit)
        ).scalars()
        return list(rows)
