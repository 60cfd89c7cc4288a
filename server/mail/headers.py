"""The headers of deadmail's mails: the policy (each header class made once, header values parsed once), the
Subject's folding, the recipient, Message-IDs and threads.

Message-IDs: a row's mail has the same Message-ID at every attempt (``message_id``), so a copy sent again after a
failure is the same mail to a client. A seat's mails form one thread: the first one's Message-ID is the seat's
``thread_root`` and later ones refer to it; which row starts the thread is decided by the rows alone
(``mail_rows.starts_thread``).
"""

from __future__ import annotations

import hashlib
import hmac
from email import policy
from email.header import Header
from email.headerregistry import Address, BaseHeader, HeaderRegistry, UniqueUnstructuredHeader
from email.message import EmailMessage
from email.policy import Policy
from email.utils import parseaddr
from urllib.parse import urlsplit

from sqlalchemy.orm import Session

from ..config import Settings
from ..models import Outbox, Player
from ..present.seat import cap
from ..services.inputs import one_line
from ..services.mailflow import mail_rows
from .drafts import MAX_USER_TEXT


def host(settings: Settings) -> str:
    """The domain of the mails' Message-IDs: the From address's, else the base URL's host."""
    address = parseaddr(settings.mail_from)[1]
    if "@" in address:
        return address.rsplit("@", 1)[1].strip().lower() or "deadmail"
    return urlsplit(settings.base_url).hostname or "deadmail"


def thread_root(game_id: int, seat_id: int, host: str) -> str:
    """The Message-ID of a seat's first mail: every later mail of the seat points at it (one thread per game)."""
    return f"<deadmail.game-{game_id}.seat-{seat_id}@{host}>"


def thread(message: EmailMessage, game_id: int, seat_id: int, host: str) -> None:
    """A mail about one seat joins the seat's thread (unless it is the mail that starts it)."""
    root = thread_root(game_id, seat_id, host)
    if message["Message-ID"] != root:
        message["In-Reply-To"] = root
        message["References"] = root


def message_id(session: Session, settings: Settings, row: Outbox, batch: mail_rows.Batch) -> str:
    """The Message-ID of the row's mail, the same at every attempt (a copy sent again after a failure is the same
    mail to a client): the seat's thread root for the row that starts the thread, else a keyed digest of the row,
    which tells nothing about the game."""
    domain = host(settings)
    starts = mail_rows.starts_thread(session, row, batch)
    if starts is not None:
        return thread_root(*starts, domain)
    digest = hmac.new(settings.secret_key.encode(), f"deadmail.outbox:{row.id}:{row.key}".encode(), hashlib.sha256)
    return f"<{digest.hexdigest()[:32]}@{domain}>"


class _Subject(UniqueUnstructuredHeader, BaseHeader):  # type: ignore[misc]  # (typeshed: max_count)
    """The Subject, folded into whole encoded words (RFC 2047) when it does not fit one line as plain ASCII: the
    standard folding leaves a space before a fold next to an encoded word, or puts the one space between two encoded
    words, so a long Italian or Polish subject read back had two spaces, or none, where it had one."""

    def fold(self, *, policy: Policy) -> str:
        text = str(self)
        limit = policy.max_line_length  # None: no limit
        if text.isascii() and (limit is None or len(self.name) + 2 + len(text) <= limit):
            return str(super().fold(policy=policy))
        encoded = Header(text, "utf-8", header_name=self.name).encode(linesep=policy.linesep, maxlinelen=limit)
        return f"{self.name}: {encoded}{policy.linesep}"


class _Headers(HeaderRegistry):
    """The standard header classes, each made once (``HeaderRegistry`` makes a new class at every header set), and
    the headers last parsed, each kept for the next mail that sets the same value (a header is an immutable string:
    the From, the MIME headers, the Content-Language and a reader's To are then parsed once, not at every mail)."""

    #: at most this many parsed headers are kept (then all are forgotten at once).
    KEEP = 512

    def __init__(self) -> None:
        super().__init__()
        self.map_to_type("subject", _Subject)
        self._made: dict[str, type[BaseHeader]] = {}
        self._parsed: dict[tuple[str, object], BaseHeader] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        made = self._made.get(name)
        if made is None:
            made = self._made[name] = super().__getitem__(name)
        return made

    def __call__(self, name: str, value: object) -> BaseHeader:
        if isinstance(value, Address):  # a To: keyed by its parts (an Address is not hashable)
            key: tuple[str, object] = (name, (value.display_name, value.username, value.domain))
        elif type(value) is str:
            key = (name, value)
        else:
            return super().__call__(name, value)
        parsed = self._parsed.get(key)
        if parsed is None:
            if len(self._parsed) >= self.KEEP:
                self._parsed.clear()
            parsed = self._parsed[key] = super().__call__(name, value)
        return parsed


#: the mails' policy: the standard one (``email.policy.default``), its header classes made once.
POLICY = policy.default.clone(header_factory=_Headers())


def recipient(player: Player) -> Address:
    """The To of a mail to ``player``: their address, and their name on one line as its display name only (built as
    an ``Address``, never as a string to parse: a name can neither become nor add an address)."""
    local, _, domain = player.email.rpartition("@")
    return Address(display_name=cap(one_line(player.display_name), MAX_USER_TEXT), username=local, domain=domain)
