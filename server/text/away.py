"""Absences and "I'm back" in words: the reply commands, in English, Italian and Polish. Pure Python.

- ``AWAY 3 DEC - 6 DEC`` · it ``ASSENTE 3 DIC - 6 DIC`` · pl ``NIEOBECNY 3 GRU - 6 GRU``: away from the start of the
  first day to the end of the last, in the player's own time zone. Months by name or abbreviation in the player's
  language or in English (``3 DECEMBER``, ``3 DICEMBRE``, ``3 GRUDNIA``, ``DEC 3``), with or without a year
  (``3 DEC 2026``), or ISO dates (``2026-12-03``). A date without a year is the next one not in the past; a last
  day without a year the first one from the first day on. ``FROM``/``TO`` words may join them (``AWAY FROM 3 DEC
  TO 6 DEC``; it ``DAL … AL``; pl ``OD … DO``); one day alone is that day.
- ``BACK`` · it ``TORNATO``, ``SONO TORNATO`` · pl ``WRACAM``, ``JESTEM``.

Every language also accepts the English words. ``read_away`` and ``is_back`` look at the reply's first line (quotes
and signature stripped first); a line that starts with the absence word but gives no dates is refused with
``DatesError``, a ``ShownError`` translated where it is shown; days not in ``inputs.YEARS`` (``AWAY 9999-12-31``)
with ``inputs.InputError`` (``absences.between``).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime

from ..models import pick_language
from ..services.attendance import absences
from ..services.errors import N_, ShownError
from .grammar import MAX_LINE, MAX_LINES, MAX_TEXT, strip_reply

__all__ = ["DatesError", "example", "is_back", "parse_away", "read_away"]

#: the command words, shown form first.
AWAY_WORDS = {
    "en": ["AWAY", "ABSENT", "ABSENCE"],
    "it": ["ASSENTE", "ASSENZA"],
    "pl": ["NIEOBECNY", "NIEOBECNA", "NIEOBECNOŚĆ"],
}
BACK_WORDS = {
    "en": ["BACK", "I AM BACK", "I'M BACK", "IM BACK"],
    "it": ["TORNATO", "TORNATA", "SONO TORNATO", "SONO TORNATA", "RIENTRATO", "RIENTRATA"],
    "pl": ["WRACAM", "JESTEM", "WRÓCIŁEM", "WRÓCIŁAM", "JUŻ JESTEM"],
}
#: words that may stand before the first day, and between the days.
FROM_WORDS = {"en": ["FROM", "ON"], "it": ["DAL", "DALL", "DA", "IL"], "pl": ["OD"]}
TO_WORDS = {
    "en": ["-", "TO", "UNTIL", "TILL", "THROUGH", "THRU"],
    "it": ["-", "AL", "ALL", "A", "FINO", "FINO AL", "FINO ALL"],
    "pl": ["-", "DO"],
}
#: month names and abbreviations, January first; the first abbreviation is the one shown.
MONTHS = {
    "en": [
        ["JAN", "JANUARY"],
        ["FEB", "FEBRUARY"],
        ["MAR", "MARCH"],
        ["APR", "APRIL"],
        ["MAY"],
        ["JUN", "JUNE"],
        ["JUL", "JULY"],
        ["AUG", "AUGUST"],
        ["SEP", "SEPT", "SEPTEMBER"],
        ["OCT", "OCTOBER"],
        ["NOV", "NOVEMBER"],
        ["DEC", "DECEMBER"],
    ],
    "it": [
        ["GEN", "GENNAIO"],
        ["FEB", "FEBBRAIO"],
        ["MAR", "MARZO"],
        ["APR", "APRILE"],
        ["MAG", "MAGGIO"],
        ["GIU", "GIUGNO"],
        ["LUG", "LUGLIO"],
        ["AGO", "AGOSTO"],
        ["SET", "SETTEMBRE"],
        ["OTT", "OTTOBRE"],
        ["NOV", "NOVEMBRE"],
        ["DIC", "DICEMBRE"],
    ],
    "pl": [
        ["STY", "STYCZEŃ", "STYCZNIA"],
        ["LUT", "LUTY", "LUTEGO"],
        ["MAR", "MARZEC", "MARCA"],
        ["KWI", "KWIECIEŃ", "KWIETNIA"],
        ["MAJ", "MAJA"],
        ["CZE", "CZERWIEC", "CZERWCA"],
        ["LIP", "LIPIEC", "LIPCA"],
        ["SIE", "SIERPIEŃ", "SIERPNIA"],
        ["WRZ", "WRZESIEŃ", "WRZEŚNIA"],
        ["PAŹ", "PAŹDZIERNIK", "PAŹDZIERNIKA"],
        ["LIS", "LISTOPAD", "LISTOPADA"],
        ["GRU", "GRUDZIEŃ", "GRUDNIA"],
    ],
}

NOT_UNDERSTOOD = N_(
    "“%(command)s”: write the first and the last day of your absence, as in “%(example)s”. Nothing was changed."
)
NO_SUCH_DAY = N_("“%(date)s” is not a day of the calendar. Nothing was changed.")

#: how far a date without a year is looked for (29 February).
_YEARS = 8


class DatesError(ShownError):
    """An absence command whose dates cannot be read; nothing was changed."""


def _plain(text: str) -> str:
    """Upper case without accents (ł included), dashes as "-", apostrophes as spaces."""
    text = text.replace("ł", "l").replace("Ł", "L")
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).upper()
    return re.sub(r"[\u2010-\u2015\u2212]", "-", bare).replace("'", " ").replace("\u2019", " ")


_TOKEN = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d+|[A-Z]+|-")
_ORDINAL = re.compile(r"^(ST|ND|RD|TH)$")


def _tokens(line: str) -> list[str]:
    out: list[str] = []
    for token in _TOKEN.findall(_plain(line)):
        if _ORDINAL.match(token) and out and out[-1].isdigit():
            continue  # 3RD
        out.append(token)
    return out


def _phrases(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(_tokens(w)) for w in words}


def _langs(language: str) -> tuple[str, ...]:
    lang = pick_language(language)
    return ("en",) if lang == "en" else ("en", lang)


def _table(table: dict[str, list[str]], language: str) -> set[tuple[str, ...]]:
    return {p for lang in _langs(language) for p in _phrases(table[lang])}


def _months(language: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for lang in reversed(_langs(language)):
        for number, names in enumerate(MONTHS[lang], start=1):
            for name in names:
                out[_tokens(name)[0]] = number
    return out


def example(language: str) -> str:
    """``AWAY 3 DEC - 6 DEC`` in the player's words."""
    lang = pick_language(language)
    month = MONTHS[lang][11][0]
    return f"{AWAY_WORDS[lang][0]} 3 {month} - 6 {month}"


class _Words:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.i = 0

    def take(self, phrases: set[tuple[str, ...]]) -> bool:
        for n in range(min(4, len(self.tokens) - self.i), 0, -1):
            if tuple(self.tokens[self.i : self.i + n]) in phrases:
                self.i += n
                return True
        return False

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def next(self) -> str:
        token = self.peek()
        if token is None:
            raise _Unreadable
        self.i += 1
        return token


class _Unreadable(Exception):
    pass


#: a date as written: (year or None, month, day, its words)
Written = tuple[int | None, int, int, str]


def _date(words: _Words, months: dict[str, int]) -> Written:
    first = words.next()
    iso = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", first)
    if iso:
        return int(iso[1]), int(iso[2]), int(iso[3]), first
    if first.isdigit() and len(first) <= 2:  # 3 DEC [2026]; or 3 alone, its month the other day's ("3 - 6 DEC")
        following = words.peek()
        if following is None or following not in months:
            return None, 0, int(first), first
        month = months[words.next()]
        day_, shown = int(first), f"{first} {following}"
    elif first in months:  # DEC 3 [2026]
        month, token = months[first], words.next()
        if not token.isdigit() or len(token) > 2:
            raise _Unreadable
        day_, shown = int(token), f"{first} {token}"
    else:
        raise _Unreadable
    year = None
    following = words.peek()
    if following is not None and following.isdigit() and len(following) == 4:
        year = int(words.next())
        shown += f" {year}"
    return year, month, day_, shown


def _real(year: int, month: int, day_: int, shown: str) -> date:
    try:
        return date(year, month, day_)
    except ValueError:
        raise DatesError(NO_SUCH_DAY, date=shown) from None


def _on_or_after(written: Written, earliest: date) -> date:
    """A date without a year: the first such day from ``earliest`` on."""
    _, month, day_, shown = written
    for year in range(earliest.year, earliest.year + _YEARS):
        try:
            found = date(year, month, day_)
        except ValueError:
            continue
        if found >= earliest:
            return found
    raise DatesError(NO_SUCH_DAY, date=shown)


def _on_or_before(written: Written, latest: date) -> date:
    """A date without a year: the last such day up to ``latest``."""
    _, month, day_, shown = written
    for year in range(latest.year, latest.year - _YEARS, -1):
        try:
            found = date(year, month, day_)
        except ValueError:
            continue
        if found <= latest:
            return found
    raise DatesError(NO_SUCH_DAY, date=shown)


def _days(first: Written, last: Written, today: date) -> tuple[date, date]:
    """The first and last day. Without years, the last day is the next one not in the past and the first the one
    before it ("1 DEC - 6 DEC" on 3 December is this week's absence, under way; "28 DEC - 3 JAN" spans a new year)."""
    if first[0] is not None:
        start = _real(first[0], first[1], first[2], first[3])
        return start, _real(last[0], last[1], last[2], last[3]) if last[0] is not None else _on_or_after(last, start)
    end = _real(last[0], last[1], last[2], last[3]) if last[0] is not None else _on_or_after(last, today)
    return _on_or_before(first, end), end


def _after_day(shown: str) -> str:
    """The words after a date's day ("3 DEC 2026" -> "DEC 2026"); an ISO date has none."""
    return shown.split(" ", 1)[1] if " " in shown else ""


def parse_away(
    line: str, language: str, timezone: str | None, now: datetime, *, command: bool = True
) -> tuple[datetime, datetime] | None:
    """The absence one line declares, as UTC instants (``absences.between``); None when the line does not start with
    the absence word (``command``: it must; else the word is optional). DatesError when its dates cannot be read."""
    tokens = _tokens(line[:MAX_LINE])
    words = _Words(tokens)
    has_command = words.take(_table(AWAY_WORDS, language))
    if command and not has_command:
        return None
    months = _months(language)
    try:
        words.take(_table(FROM_WORDS, language))
        first = _date(words, months)
        last = first
        if words.peek() is not None:
            words.take(_table(TO_WORDS, language))
            words.take(_table(TO_WORDS, language))  # "- TO", "FINO AL"
            last = _date(words, months)
        if words.peek() is not None or (first[1] == 0 and last[1] == 0):
            raise _Unreadable
        if first[1] == 0:  # 3 - 6 DEC
            first = (last[0], last[1], first[2], f"{first[3]} {_after_day(last[3])}".strip())
        elif last[1] == 0:  # 3 DEC - 6
            last = (None, first[1], last[2], f"{last[3]} {_after_day(first[3]).split(' ')[0]}".strip())
    except _Unreadable:
        shown = " ".join(line.split())[:60]
        raise DatesError(NOT_UNDERSTOOD, command=shown, example=example(language)) from None
    start, end = _days(first, last, absences.today(timezone, now))
    word = AWAY_WORDS.get(language, AWAY_WORDS["en"])[0]
    return absences.between(start, end, timezone, (word, word))


def _first_line(text: str) -> str:
    body = strip_reply(str(text)[:MAX_TEXT])
    return next((raw for raw in body.splitlines()[:MAX_LINES] if raw.strip()), "")


def read_away(text: str, language: str, timezone: str | None, now: datetime) -> tuple[datetime, datetime] | None:
    """The absence a reply body declares on its first line (``AWAY 3 DEC - 6 DEC``); None when that line is not
    an absence command; DatesError when its dates cannot be read."""
    line = _first_line(text)
    return parse_away(line, language, timezone, now) if len(line) <= MAX_LINE else None


def is_back(text: str, language: str) -> bool:
    """The reply's first line says "I'm back" (``BACK``, it ``TORNATO``, pl ``WRACAM``), and nothing else."""
    line = _first_line(text)
    return len(line) <= MAX_LINE and tuple(_tokens(line)) in _table(BACK_WORDS, language)
