"""Transports: where a composed mail goes. The embedded default writes each mail to a file (``FileTransport``, read
by the mailbox page); production sends it over SMTP (``SMTPTransport``, configured by ``DEADMAIL_SMTP_URL``, see
``server/config.py``). Every failure is raised as ``OSError`` or ``smtplib.SMTPException``, so the outbox puts the
row back with a later try.

A transport calls ``accepted`` once the mail is taken (written, or accepted by the SMTP server after DATA) and before
it lets go of the connection: the outbox marks the row sent there, so the gap in which a mail can be taken but not
recorded (and sent again later, with the same Message-ID) is as narrow as it can be.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol

from ..config import Settings, SMTPConfig, parse_smtp_url, private_dir, write_private

log = logging.getLogger("deadmail.mailer")


class Transport(Protocol):
    def send(self, message: EmailMessage, accepted: Callable[[], None]) -> None:
        """Hand the mail on; call ``accepted`` once it is taken, before closing. Raise when it was not taken."""
        ...


class FileTransport:
    """The embedded default: each mail is written to a file, and a page lists them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

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
    """One connection per mail: connect, (STARTTLS), (AUTH), MAIL, RCPT, DATA, ``accepted()``, QUIT.

    A failure before the server accepted the mail raises, so the outbox tries again later. Once the server answered
    DATA with 250, ``accepted()`` records it (before QUIT, while nothing else can fail) and nothing raises any more
    (a failing QUIT is only logged). Left: the server's 250 lost on the way back, or the worker dying before
    ``accepted()`` has committed; the mail is then sent again, with the same Message-ID (docs/OPERATIONS.md).
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

    def send(self, message: EmailMessage, accepted: Callable[[], None]) -> None:
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
            refused = smtp.send_message(message)
        except BaseException:
            smtp.close()
            raise
        # accepted (DATA answered 250): record it at once, then QUIT; nothing from here on may raise
        if refused:
            log.warning("%s: some recipients refused: %s", message["Message-ID"], refused)
        try:
            accepted()
        finally:
            _quit(smtp, message)


def _quit(smtp: smtplib.SMTP, message: EmailMessage) -> None:
    """QUIT after an accepted mail; a failure is only logged (the mail was accepted)."""
    try:
        smtp.quit()
    except (OSError, smtplib.SMTPException) as exc:
        log.info("QUIT after %s failed (the mail was accepted): %s", message["Message-ID"], exc)
        smtp.close()


def transport_for(settings: Settings) -> Transport:
    """SMTP when ``DEADMAIL_SMTP_URL`` is set, else the embedded default: files in ``<data dir>/mail``."""
    smtp = settings.smtp
    return FileTransport(settings.mail_dir) if smtp is None else SMTPTransport(smtp)
