"""The inbound mail listener (``deadmail inbound``): SMTP for an MX, or LMTP behind Postfix, on aiosmtpd.

Only addresses at ``DEADMAIL_REPLY_DOMAIN`` are accepted (550 for any other). Each message goes to
``mail.replies.receive``; its answer mail and the advance it may complete go to the database's tasks once stored.
The sender hears 250 for every message handled, refused or not (the answer goes by mail, forgeries get none), and
451 when the database is unavailable, so it tries again later. Progress lines say the status only: never a body.

Each client address (``DEADMAIL_INBOUND_PER_MINUTE``, default 120) and each sender address
(``DEADMAIL_INBOUND_PER_SENDER``, default 20) may start so many messages a minute, counted in the listener's memory;
beyond, ``MAIL FROM`` is answered ``451 4.7.1`` and the sending server tries again later. Over LMTP the client is the
MTA in front (Postfix), which limits its own clients: only senders are counted there.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session
from limits import parse as parse_limit
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from ..config import Settings
from ..db import Database
from . import replies

log = logging.getLogger("deadmail.inbound")

MAX_RECIPIENTS = 20
OK = "250 2.0.0 OK"
TRY_LATER = "451 4.3.0 temporarily unable to take the message, try again later"
SLOW_DOWN = "451 4.7.1 too many messages, try again later"


class Handler:
    """aiosmtpd hooks: refuse foreign recipients, hand each message to ``replies.receive``."""

    def __init__(
        self, settings: Settings, db: Database, lmtp: bool = False, progress: Callable[[str], None] | None = None
    ) -> None:
        self.settings = settings
        self.db = db
        self.lmtp = lmtp
        self.progress = progress
        self.counts = MovingWindowRateLimiter(MemoryStorage())
        self.per_client = parse_limit(f"{settings.inbound_per_minute}/minute")
        self.per_sender = parse_limit(f"{settings.inbound_per_sender}/minute")

    async def handle_MAIL(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        """A message begins: counted for its sender address and (over SMTP) its client address; over either limit,
        451 and nothing is taken."""
        counted = [(self.per_sender, "sender", address.strip().lower() or "<>")]
        if not self.lmtp:
            peer = session.peer[0] if isinstance(session.peer, tuple) else session.peer
            counted.append((self.per_client, "client", str(peer)))
        if not all(self.counts.test(limit, kind, key) for limit, kind, key in counted):
            if self.progress is not None:
                self.progress("inbound: too many messages (451, the sender will try again)")
            return SLOW_DOWN
        for limit, kind, key in counted:
            self.counts.hit(limit, kind, key)
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        domain = address.rpartition("@")[2].strip().lower()
        if not self.settings.reply_domain or domain != self.settings.reply_domain.lower():
            return "550 5.1.1 not a deadmail reply address"
        if len(envelope.rcpt_tos) >= MAX_RECIPIENTS:
            return "452 4.5.3 too many recipients"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    def receive(self, raw: bytes, recipients: list[str], mail_from: str | None) -> replies.Received:
        return replies.receive(self.db, self.settings, raw, recipients, mail_from=mail_from)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or envelope.content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", errors="surrogateescape")
        recipients = list(envelope.rcpt_tos)
        try:
            received = await asyncio.get_running_loop().run_in_executor(
                None, self.receive, raw, recipients, envelope.mail_from
            )
            status = OK
            line = f"inbound {received.inbound_id or '-'}: {received.status}"
        except replies.Unavailable as exc:
            status = TRY_LATER
            line = f"inbound: {exc} (451, the sender will try again)"
        except Exception:
            log.exception("inbound: unexpected failure")
            status = TRY_LATER
            line = "inbound: unexpected failure (451, the sender will try again)"
        if self.progress is not None:
            self.progress(line)
        if self.lmtp:  # LMTP answers once per recipient
            return "\r\n".join([status] * max(1, len(recipients)))
        return status


class LMTPController(Controller):
    """aiosmtpd's threaded controller speaking LMTP (LHLO, one answer per recipient)."""

    def factory(self) -> SMTP:
        return LMTP(self.handler, **self.SMTP_kwargs)


def controller(
    settings: Settings,
    db: Database,
    address: tuple[str, int],
    lmtp: bool = False,
    progress: Callable[[str], None] | None = None,
) -> Controller:
    """A listener on ``address`` (host, port), not started yet (``.start()`` / ``.stop()``). ``db`` should hand its
    after-commit work to the task queue, so answers advance and answer mails are sent."""
    host, port = address
    # aiosmtpd's own log (``mail.log``) writes every recipient, a signed reply address, at INFO: never below WARNING
    logging.getLogger("mail.log").setLevel(max(logging.WARNING, logging.getLogger("mail.log").getEffectiveLevel()))
    kind = LMTPController if lmtp else Controller
    return kind(
        Handler(settings, db, lmtp, progress),
        hostname=host,
        port=port,
        data_size_limit=replies.MAX_MESSAGE,
        server_hostname=settings.reply_domain or None,
        ident="deadmail inbound",
    )


def serve(
    settings: Settings,
    db: Database,
    address: tuple[str, int],
    lmtp: bool = False,
    progress: Callable[[str], None] | None = None,
) -> None:
    """Listen until interrupted (KeyboardInterrupt)."""
    listener = controller(settings, db, address, lmtp, progress)
    listener.start()
    try:
        if progress is not None:
            host, port = address
            scheme = "lmtp" if lmtp else "smtp"
            progress(f"deadmail inbound listening on {scheme}://{host}:{port} for replies to *@{settings.reply_domain}")
        threading.Event().wait()
    finally:
        listener.stop()
