"""Text that comes from outside (pages, the JSON API, replies by mail, the command line), checked before it is
stored or put in a mail.

- No database stores a NUL byte (PostgreSQL refuses it in text) or a lone surrogate (``"\\ud800"``: not UTF-8 at
  all), and no mail encodes one: what comes in holding one is refused (``BAD_CHARACTERS``); ``storable`` drops
  NULs and replaces lone surrogates (U+FFFD), for mail replies, which are taken as they come.
- A person's name and their address are kept apart from input to delivery: ``person_name`` is one line without
  control characters (a CR/LF would start a new mail header), ``email_address`` one bare address (never
  ``"Name <address>"``, never two); mails build their headers from both with ``email.headerregistry.Address``.
- JSON from outside (``parse_json``): nesting deeper than ``MAX_DEPTH`` is refused before parsing, so a deep text
  never reaches the recursive parser (RecursionError); then the text is parsed and, by default, checked as above.
- Dates and instants from outside (``instant``, ``local_instant``, ``day``, ``in_range``; ``iso_day`` reads a day):
  read as ISO 8601 and taken only in the years ``YEARS`` (2000 to 2999, in the text's own zone), so that every one is
  an instant in UTC and in every zone (Python's calendar ends at years 1 and 9999: ``9999-12-31T23:59:59-14:00`` is
  not one in UTC, and converting it raised OverflowError); anything else is refused with a message naming the field
  (``OUT_OF_RANGE``). Every date a page, the API, the command line or a reply gives goes through them.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, tzinfo
from typing import TypeVar

from engine.shapes import JSON

from .errors import N_, ShownError

#: what no database stores: NUL and lone surrogates.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
#: a lone surrogate (half of a UTF-16 pair): never UTF-8.
SURROGATE = re.compile("[\ud800-\udfff]")
#: what a one-line text (a name) may not hold: control characters (C0, DEL, C1), line and paragraph separators.
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
#: what structures an address header (quotes, a name's brackets, lists, groups, routes): never in a bare address.
ADDRESS_SYNTAX = frozenset('@<>,;:"()[]\\')
#: the longest e-mail address taken (RFC 5321's path limit is shorter; the column holds 320).
MAX_EMAIL = 320

#: the deepest JSON taken (every body deadmail reads is two or three levels deep).
MAX_DEPTH = 32
#: a JSON string (escapes included), and every byte but a bracket: what the depth check skips.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")

TOO_DEEP = N_("The JSON is nested too deeply (at most %(depth)s levels).")
NOT_JSON = N_("The body is not valid JSON.")
BAD_CHARACTERS = N_("A text contains a character that cannot be stored (a NUL byte or invalid Unicode).")
BAD_NAME = N_("%(name)s: a name is one line, without line breaks or other control characters.")
BAD_EMAIL = N_("%(email)s is not an e-mail address.")


class InputError(ShownError):
    """Text from outside that cannot be taken; the message says which and why."""


def unstorable(text: str) -> bool:
    """True when ``text`` holds a NUL or a lone surrogate."""
    return UNSTORABLE.search(text) is not None


def storable(text: str) -> str:
    """``text`` without NULs, lone surrogates replaced by U+FFFD: what a database stores and a mail encodes."""
    return SURROGATE.sub("\ufffd", text.replace("\x00", "")) if unstorable(text) else text


def shown(text: str, limit: int = 80) -> str:
    """A refused text quoted in a message: one line, control characters and surrogates as ``\\x..`` escapes."""
    return repr(text[:limit])


def one_line(text: str) -> str:
    """``text`` on one line: every control character (CR/LF too) a space, runs of spaces one (for stored names
    put into mails, whatever their age)."""
    return " ".join(CONTROL.sub(" ", text).split())


def person_name(name: str) -> str:
    """A person's display name, stripped; InputError when it holds a control character (CR/LF included), a NUL or a
    lone surrogate."""
    name = name.strip()
    if CONTROL.search(name):
        raise InputError(BAD_NAME, name=shown(name))
    return name


def email_address(text: str) -> str:
    """One bare e-mail address (``local@domain``), lower-cased; InputError for anything else (a name with it, two
    addresses, a control character, a space, a character that structures an address header)."""
    address = text.strip()
    local, at, domain = address.partition("@")
    plain = local and at and domain and len(address) <= MAX_EMAIL and not CONTROL.search(address)
    if not plain or any(c in ADDRESS_SYNTAX or c.isspace() for c in local + domain):
        raise InputError(BAD_EMAIL, email=shown(address))
    return address.lower()


# --- JSON ------------------------------------------------------------------------------------------------------------


def small_int(text: str, digits: int) -> int | None:
    """``text`` as a number when it is 1 to ``digits`` ASCII digits, else None (``int()`` would also read other
    scripts' digits, signs, underscores and spaces)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= digits else None


def _depth(data: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets in strings skipped), up to ``MAX_DEPTH + 1``."""
    depth = deepest = 0
    for byte in _STRING.sub(b"", data).translate(None, _NOT_BRACKETS):
        depth += 1 if byte in b"[{" else -1
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            break
    return deepest


def _storable(value: object) -> bool:
    """True when every text of a parsed JSON value (object keys too) can be stored."""
    if isinstance(value, str):
        return not unstorable(value)
    if isinstance(value, list):
        return all(_storable(v) for v in value)
    if isinstance(value, dict):
        return all(_storable(k) and _storable(v) for k, v in value.items())
    return True


def parse_json(data: bytes | str, strict: bool = True) -> JSON:
    """JSON from outside, parsed once its depth is known to be sane (``MAX_DEPTH``); InputError when it is too
    deep, not JSON, or (``strict``) holds a text that cannot be stored."""
    if _depth(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data) > MAX_DEPTH:
        raise InputError(TOO_DEEP, depth=MAX_DEPTH)
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):  # RecursionError: never, at this depth
        raise InputError(NOT_JSON) from None
    if strict and not _storable(value):
        raise InputError(BAD_CHARACTERS)
    return value


# --- dates and instants ----------------------------------------------------------------------------------------------

#: the years a date or an instant from outside may name, both included (beyond them a date is a typing error, and
#: near the calendar's ends, years 1 and 9999, an instant with an offset is not one in UTC or in some zone).
YEARS = (2000, 2999)

BAD_INSTANT = N_("%(field)s must be a date and time with its zone, such as 2031-03-11T18:00:00+01:00.")
BAD_DAY = N_("%(field)s must be a date such as 2031-03-11.")
OUT_OF_RANGE = N_(
    "%(field)s is out of range: %(value)s is not in the years %(first)s to %(last)s. Nothing was changed."
)

D = TypeVar("D", date, datetime)

_ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
#: a ``datetime-local`` value: ASCII digits, seconds optional.
_LOCAL = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2})?")


def in_range(when: D, field: str, text: str | None = None) -> D:
    """``when`` (a date, or a datetime in its own zone) when its year is one of ``YEARS``; InputError
    (``OUT_OF_RANGE``, naming ``field`` and quoting ``text``, the value as given) else. An aware datetime that passes
    is an instant in UTC and in every zone."""
    if not YEARS[0] <= when.year <= YEARS[1]:
        value = shown(when.isoformat() if text is None else text, 40)
        raise InputError(OUT_OF_RANGE, field=field, value=value, first=YEARS[0], last=YEARS[1])
    return when


def instant(text: object, field: str, naive: tzinfo | None = None) -> datetime:
    """An ISO 8601 date and time from outside, in UTC. Without an offset it is read in ``naive`` (when given; else
    refused). InputError: not such a text (``BAD_INSTANT``), or not in ``YEARS`` (``OUT_OF_RANGE``)."""
    raw = text.strip()[:80] if isinstance(text, str) else ""
    try:
        when = datetime.fromisoformat(raw)
    except ValueError:
        raise InputError(BAD_INSTANT, field=field) from None
    if when.utcoffset() is None:
        if naive is None:
            raise InputError(BAD_INSTANT, field=field)
        when = when.replace(tzinfo=naive)
    return in_range(when, field, raw).astimezone(UTC)


def local_instant(text: object, field: str, zone: tzinfo) -> datetime | None:
    """A form's ``datetime-local`` value (``2031-03-11T18:00``, seconds optional) read in ``zone``, in UTC; None when
    it is not one; InputError (``OUT_OF_RANGE``) when it is not in ``YEARS``."""
    raw = text.strip()[:40] if isinstance(text, str) else ""
    if not _LOCAL.fullmatch(raw):
        return None
    try:
        local = datetime.fromisoformat(raw)
    except ValueError:
        return None
    return in_range(local.replace(tzinfo=zone), field, raw).astimezone(UTC)


def iso_day(text: object) -> date | None:
    """``2031-03-11`` (ASCII digits, a day of the calendar) as a date, whatever its year; None for any other text."""
    raw = text.strip()[:40] if isinstance(text, str) else ""
    if not _ISO_DAY.fullmatch(raw):
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        return None


def day(text: object, field: str) -> date:
    """A day from outside, ``2031-03-11``; InputError: not such a text (``BAD_DAY``), or not in ``YEARS``."""
    found = iso_day(text)
    if found is None:
        raise InputError(BAD_DAY, field=field)
    return in_range(found, field, str(text).strip())
