"""The mail the file transport wrote (the embedded default, no DEADMAIL_SMTP_URL), read back for the mailbox page:
the files newest first, each listed from its headers alone (read once per version of the file), and a mail's parts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesHeaderParser, BytesParser
from email.utils import parseaddr, parsedate_to_datetime
from functools import cache, lru_cache
from pathlib import Path

from ..text.i18n import LANGUAGES, translations

#: the bots of ``deadmail demo --auto`` have their addresses here (a reserved name, RFC 2606): their mail is not listed.
DEMO_DOMAIN = "demo.invalid"


def mail_files(folder: Path) -> list[Path]:
    """The mail files in ``folder``, newest first."""
    if not folder.is_dir():
        return []
    files = [p for p in folder.iterdir() if is_mail(p)]
    return sorted(files, key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True)


def is_mail(path: Path) -> bool:
    """A mail file the transport finished writing (it writes a hidden file first, then renames it)."""
    return path.suffix == ".eml" and not path.name.startswith(".") and path.is_file()


def headers(path: Path) -> dict[str, str]:
    with path.open("rb") as fp:
        head = BytesHeaderParser(policy=policy.default).parsebytes(fp.read(64 * 1024))  # the headers, not the body
    return {key: str(head.get(key, "")) for key in ("Date", "From", "To", "Subject", "Reply-To")}


@dataclass(frozen=True)
class Listed:
    """A mail of the list: its file, headers, date (the Date header, else the file's time) and game (from the
    subject, which names it in every language; None for a digest of several games)."""

    name: str
    to: str
    address: str
    subject: str
    date: datetime
    game: int | None


@cache
def _game_label() -> re.Pattern[str]:
    """ "Mall of Horror, game 7" in every language (server/present/seat.py ``game_label``), the number caught."""
    marker = "%(number)s"
    labels = {translations(lang).gettext("Mall of Horror, game %(number)s") for lang in LANGUAGES}
    return re.compile("|".join(re.escape(label).replace(re.escape(marker), r"(\d{1,9})") for label in labels))


@lru_cache(maxsize=8192)
def entry(path: Path, mtime_ns: int, size: int) -> Listed:
    """A mail file's entry, read once for each version of the file (its time and size)."""
    found = headers(path)
    try:
        date = parsedate_to_datetime(found["Date"]).astimezone(UTC)
    except (TypeError, ValueError, IndexError, OverflowError):  # none, unreadable, or no instant in UTC (year 9999)
        date = datetime.fromtimestamp(mtime_ns / 1e9, UTC)
    match = _game_label().search(found["Subject"])
    game = None if match is None else int(next(g for g in match.groups() if g is not None))
    address = parseaddr(found["To"])[1].lower()
    return Listed(path.name, found["To"], address, found["Subject"], date, game)


def listed(folder: Path) -> list[Listed]:
    """Every mail of the folder, newest first (mails to the demo's bots too)."""
    entries = []
    for path in mail_files(folder):
        try:
            info = path.stat()
        except OSError:  # removed meanwhile
            continue
        entries.append(entry(path, info.st_mtime_ns, info.st_size))
    return entries


def is_demo(mail: Listed) -> bool:
    return mail.address.endswith(f"@{DEMO_DOMAIN}")


def read(path: Path) -> EmailMessage:
    with path.open("rb") as fp:
        message = BytesParser(policy=policy.default).parse(fp)
    assert isinstance(message, EmailMessage)
    return message


def part(message: EmailMessage, subtype: str) -> str | None:
    found = message.get_body(preferencelist=(subtype,))
    if found is None:
        return None
    content = found.get_content()
    return content if isinstance(content, str) else None


def related(message: EmailMessage, cid: str) -> tuple[bytes, str] | None:
    """The bytes and type of the image part whose Content-ID is ``cid`` (a mail's inline picture); None if none."""
    for found in message.walk():
        if str(found.get("Content-ID", "")).strip("<>") == cid and found.get_content_maintype() == "image":
            data = found.get_payload(decode=True)
            return (data, found.get_content_type()) if isinstance(data, bytes) else None
    return None
