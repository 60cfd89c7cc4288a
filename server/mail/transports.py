"""Transports: where a composed mail goes. The embedded default writes each mail to a file (``FileTransport``, read
by the mailbox page); production sends it over SMTP (``SMTPTransport``, configured by ``DEADMAIL_SMTP_URL``, see
``server/config.py``). Every failure is raised as ``OSError`` or ``smtplib.SMTPException``, so the outbox puts the
row back with a later try.

A transport calls ``accepted`` once the mail is taken (written, or accepted by the SMTP server after DATA) and before
it sends anything else: the outbox marks the row sent there, so the gap in which a mail can be taken but not
recorded (and sent again later, with the same Message-ID) is as narrow as it can be.

``transport.session()`` sends many mails over one connection (a batch of the outbox, ``send.send_batch``);
``transport.send`` is a session of one mail. A refusal of one mail (a recipient, the sender or the data) leaves the
SMTP connection usable for the next mail; any other SMTP failure ends the batch (``ends_batch``).
"""

from __future__ import annotations

import contextlib
import logging
import smtplib
import ssl
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol

from ..config import Settings, SMTPConfig, parse_smtp_url, private_dir, write_private

log = logging.getLogger("deadmail.mailer")


#: the server refused this one mail (and answered: the connection can take the next one).
REFUSED = (smtplib.SMTPRecipientsRefused, smtplib.SMTPSenderRefused, smtplib.SMTPDataError)


def ends_batch(sender: Sender, exc: BaseException) -> bool:
    """The failure is the connection's, not the mail's own (refused): the next mails of the session would fail
    alike. Only a sender over a connection (``connected``, SMTP) has one to lose; a file not written is the mail's."""
    return bool(getattr(sender, "connected", False)) and not isinstance(exc, REFUSED)


class Sender(Protocol):
    def send(self, message: EmailMessage, accepted: Callable[[], None]) -> None:
        """Hand the mail on; call ``accepted`` once it is taken, before anything else. Raise when it was not taken."""
        ...


class Transport(Sender, Protocol):
    def session(self) -> contextlib.AbstractContextManager[Sender]:
        """A sender of many mails over one connection (opened at the first mail), closed at the end."""
        ...


def session_of(transport: Sender) -> contextlib.AbstractContextManager[Sender]:
    """The transport's session; a sender without one (say, a test's) sends each mail on its own."""
    session = getattr(transport, "session", None)
    return contextlib.nullcontext(transport) if session is None else session()


class FileTransport:
    """The embedded default: each mail is written to a file, and a page lists them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @contextlib.contextmanager
    def session(self) -> Iterator[FileTransport]:
        yield self

    def send(self, message: EmailMessage, accepted: Callable[[], None]) -> None:
        """Named after its Message-ID: a mail written again (its row sent twice) replaces the first copy. The mail
        folder is checked here, not when the transport is made: a folder that cannot be made fails this mail, which
        is tried again later, never the sweep that sends it."""
        private_dir(self.folder.parent, self.folder.name)  # the mail folder of the data folder: 0700
        name = message["Message-ID"].strip("<>").replace("/", "_")
        tmp = self.folder / f".{name}.tmp"
        write_private(tmp, bytes(message))  # 0600: a mail holds working links
        tmp.rename(self.folder / f"{name}.eml")
        accepted()


class SMTPTransport:
    """Connect, (STARTTLS), (AUTH), then per mail MAIL, RCPT, DATA, ``accepted()``; QUIT once the session ends.

    A failure before the server accepted a mail raises, so the outbox tries it again later. Once the server answered
    DATA with 250, ``accepted()`` records it (before the next mail, while nothing else can fail) and nothing raises
    for that mail any more (a failing QUIT is only logged). Left: the server's 250 lost on the way back, or the worker
    dying before ``accepted()`` has committed; the mail is then sent again, with the same Message-ID
    (docs/OPERATIONS.md).
    """

    def __init__(
        self, config: SMTPConfig, ssl_context: ssl.SSLContext | None = None, local_hostname: str | None = None
    ) -> None:
        self.config = config
        self.ssl_context = ssl_context
        self.local_hostname = local_hostname

    @classmethod
    def from_url(
        cls, url: str, ssl_context: ssl.SSLContext | None = None, local_hostname: str | None = None
    ) -> SMTPTransport:
        return cls(parse_smtp_url(url), ssl_context, local_hostname)

    def __repr__(self) -> str:
        return f"SMTPTransport({self.config!r})"

    def _context(self) -> ssl.SSLContext:
        return self.ssl_context or ssl.create_default_context()

    def connect(self) -> smtplib.SMTP:
        """A connection ready for MAIL: greeted, (STARTTLS), (logged in)."""
        c = self.config
        smtp: smtplib.SMTP
        if c.implicit_tls:
            smtp = smtplib.SMTP_SSL(
                c.host, c.port, local_hostname=self.local_hostname, timeout=c.timeout, context=self._context()
            )
        else:
            smtp = smtplib.SMTP(c.host, c.port, local_hostname=self.local_hostname, timeout=c.timeout)
        try:
            smtp.ehlo()
            if c.starttls:
                smtp.starttls(context=self._context())
                smtp.ehlo()
            if c.user:
                smtp.login(c.user, c.password)
        except BaseException:
            smtp.close()
            raise
        return smtp

    @contextlib.contextmanager
    def session(self) -> Iterator[SMTPSession]:
        session = SMTPSession(self)
        try:
            yield session
        finally:
            session.close()

    def send(self, message: EmailMessage, accepted: Callable[[], None]) -> None:
        with self.session() as session:
            session.send(message, accepted)


class SMTPSession:
    """One SMTP connection for many mails, opened at the first one (and again after a connection was lost)."""

    #: mails go over a connection, which a failure can lose (``ends_batch``).
    connected = True

    def __init__(self, transport: SMTPTransport) -> None:
        self.transport = transport
        self.smtp: smtplib.SMTP | None = None

    def send(self, message: EmailMessage, accepted: Callable[[], None]) -> None:
        if self.smtp is None or self.smtp.sock is None:
            self.smtp = self.transport.connect()
        try:
            refused = self.smtp.send_message(message)
        except BaseException as exc:
            if not isinstance(exc, REFUSED):  # the connection's state is unknown: never used again
                self.smtp.close()
                self.smtp = None
            raise
        # accepted (DATA answered 250): record it at once, before anything else; nothing from here on may raise
        if refused:
            log.warning("%s: some recipients refused: %s", message["Message-ID"], refused)
        accepted()

    def close(self) -> None:
        """QUIT; a failure is only logged (every mail sent was accepted)."""
        smtp, self.smtp = self.smtp, None
        if smtp is None or smtp.sock is None:
            return
        try:
            smtp.quit()
        except (OSError, smtplib.SMTPException) as exc:
            log.info("QUIT failed (the mails sent were accepted): %s", exc)
            smtp.close()


def transport_for(settings: Settings) -> Transport:
    """SMTP when ``DEADMAIL_SMTP_URL`` is set, else the embedded default: files in ``<data dir>/mail``."""
    smtp = settings.smtp
    return FileTransport(settings.mail_dir) if smtp is None else SMTPTransport(smtp)
