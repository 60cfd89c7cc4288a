"""Transports: where a composed mail goes. The embedded default writes each mail to a file (``FileTransport``, read
by the mailbox page); production sends it over SMTP (``SMTPTransport``, configured by ``DEADMAIL_SMTP_URL``, see
``server/config.py``). Every failure is raised as ``OSError`` or ``smtplib.SMTPException``, so the outbox puts the
row back with a later try.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol

from ..config import Settings, SMTPConfig, parse_smtp_url, private_dir, write_private

log = logging.getLogger("deadmail.mailer")


class Transport(Protocol):
    def send(self, message: EmailMessage) -> None: ...


class FileTransport:
    """The embedded default: each mail is written to a file, and a page lists them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def send(self, message: EmailMessage) -> None:
        private_dir(self.folder.parent, self.folder.name)  # the mail folder of the data folder: 0700
        name = message["Message-ID"].strip("<>").replace("/", "_")
        tmp = self.folder / f".{name}.tmp"
        write_private(tmp, bytes(message))  # 0600: a mail holds working links
        tmp.rename(self.folder / f"{name}.eml")


class SMTPTransport:
    """One connection per mail: connect, (STARTTLS), (AUTH), send, quit.

    A failure before the server accepted the mail raises, so the outbox tries again later; once the server
    accepted it, nothing raises any more (a failing QUIT is only logged), so an accepted mail is never sent twice.
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

    def send(self, message: EmailMessage) -> None:
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
        # accepted: from here on nothing may raise, or the outbox would send the mail again
        if refused:
            log.warning("%s: some recipients refused: %s", message["Message-ID"], refused)
        try:
            smtp.quit()
        except (OSError, smtplib.SMTPException) as exc:
            log.info("QUIT after %s failed (the mail was accepted): %s", message["Message-ID"], exc)
            smtp.close()


def transport_for(settings: Settings) -> Transport:
    """SMTP when ``DEADMAIL_SMTP_URL`` is set, else the embedded default: files in ``<data dir>/mail``."""
    smtp = settings.smtp
    return FileTransport(settings.mail_dir) if smtp is None else SMTPTransport(smtp)
