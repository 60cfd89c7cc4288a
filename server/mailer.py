"""Sending mail over SMTP, configured by one URL; the outbox keeps the retries and their back-off.

``DEADMAIL_SMTP_URL`` forms:

| URL | connection | default port |
|---|---|---|
| ``smtp://host`` | plain SMTP | 25 |
| ``smtp://user:pass@host:587?starttls=1`` | plain, then STARTTLS before AUTH | 587 |
| ``smtps://user:pass@host`` | implicit TLS from the first byte | 465 |

User and password are percent-encoded (``p%40ss`` for ``p@ss``). ``?timeout=`` sets the socket timeout in
seconds (default 30). Every failure is raised as ``OSError`` or ``smtplib.SMTPException``, so the outbox
(:func:`server.services.outbox.send_one`) puts the row back with a later try.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, unquote, urlsplit

from .services.outbox import FileTransport, Transport

if TYPE_CHECKING:
    from .config import Settings

log = logging.getLogger("deadmail.mailer")

DEFAULT_TIMEOUT = 30.0
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


@dataclass(frozen=True)
class SMTPConfig:
    """What a ``DEADMAIL_SMTP_URL`` says."""

    host: str
    port: int
    implicit_tls: bool = False
    starttls: bool = False
    user: str = ""
    password: str = ""
    timeout: float = DEFAULT_TIMEOUT

    def __repr__(self) -> str:  # never print the password
        scheme = "smtps" if self.implicit_tls else "smtp"
        who = f"{self.user}:***@" if self.user else ""
        return f"SMTPConfig({scheme}://{who}{self.host}:{self.port}, starttls={self.starttls}, timeout={self.timeout})"


def parse_smtp_url(url: str) -> SMTPConfig:
    """``smtp://user:pass@host:port[?starttls=1][&timeout=30]`` or ``smtps://…``; ValueError says what is wrong."""
    where = "DEADMAIL_SMTP_URL"
    parts = urlsplit(url.strip())
    if parts.scheme not in ("smtp", "smtps"):
        raise ValueError(f"{where}: the scheme must be smtp:// or smtps://, not {parts.scheme or 'nothing'!r}")
    if not parts.hostname:
        raise ValueError(f"{where}: no host (expected smtp://user:pass@host:port)")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{where}: the port must be a number from 1 to 65535") from None
    if port == 0:
        raise ValueError(f"{where}: the port must be a number from 1 to 65535")
    if parts.path not in ("", "/"):
        raise ValueError(f"{where}: unexpected path {parts.path!r} (expected smtp://user:pass@host:port)")
    try:
        query = parse_qs(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError:
        raise ValueError(f"{where}: cannot read the query {parts.query!r}") from None
    unknown = sorted(set(query) - {"starttls", "timeout"})
    if unknown:
        raise ValueError(f"{where}: unknown parameter {unknown[0]!r} (known: starttls, timeout)")
    starttls = False
    if "starttls" in query:
        value = query["starttls"][-1].lower()
        if value not in _TRUE | _FALSE:
            raise ValueError(f"{where}: starttls must be 1 or 0, not {value!r}")
        starttls = value in _TRUE
    implicit = parts.scheme == "smtps"
    if implicit and starttls:
        raise ValueError(f"{where}: smtps:// is already TLS; starttls=1 is for smtp:// only")
    timeout = DEFAULT_TIMEOUT
    if "timeout" in query:
        try:
            timeout = float(query["timeout"][-1])
        except ValueError:
            timeout = 0.0
        if not 0 < timeout <= 3600:
            raise ValueError(f"{where}: timeout must be a number of seconds above 0, not {query['timeout'][-1]!r}")
    user = unquote(parts.username) if parts.username else ""
    password = unquote(parts.password) if parts.password is not None else ""
    if parts.password is not None and not user:
        raise ValueError(f"{where}: a password is given without a user")
    if user and parts.password is None:
        raise ValueError(f"{where}: the user {user!r} has no password (smtp://user:pass@host)")
    if not (user + password).isascii():  # smtplib sends AUTH in ASCII only
        raise ValueError(f"{where}: user and password must be ASCII")
    if port is None:
        port = 465 if implicit else 587 if starttls else 25
    return SMTPConfig(parts.hostname, port, implicit, starttls, user, password, timeout)


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
    if settings.smtp_url:
        return SMTPTransport.from_url(settings.smtp_url)
    return FileTransport(settings.mail_dir)
