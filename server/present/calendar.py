"""Calendar feeds (ICS, RFC 5545) for one reader: a player's deadlines and league round starts, or a league's rounds.

Pure: built from ``services.calendar`` items (plain data), no database. Choices, for Google Calendar, Apple Calendar
and Thunderbird alike:

- Every time is UTC (``…Z``): no VTIMEZONE to get wrong, and each client shows it in its own zone. No
  X-WR-TIMEZONE: it only concerns floating times, and some clients shift UTC times by it.
- A deadline is a timed event of ``EVENT_LENGTH`` *ending* at the deadline (it shows where the last moment to
  answer is), with a DISPLAY alarm ``alarm`` before the deadline (its TRIGGER relative to the start, which every
  client supports). A round start is an event of ``EVENT_LENGTH`` from the start, without alarm.
- UIDs are stable: one per game, window and seat (per league and round), so a moved deadline replaces its event;
  SEQUENCE is the number of times the deadline moved (``Window.deadline_revision``). DTSTAMP is when the feed was
  built (METHOD:PUBLISH).
- X-WR-CALNAME and NAME (RFC 7986) name the calendar; REFRESH-INTERVAL and X-PUBLISHED-TTL ask for a fetch every
  hour (clients may fetch less often: Google does, every few hours).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from icalendar import Alarm, Calendar, Event, vDuration

from ..services.calendar import Deadline, Feed, RoundStart
from ..text import glossary
from ..text.i18n import format_when, translations
from .seat import game_label

PRODID = "-//deadmail//Mall of Horror by mail//EN"
#: how long a deadline's or a round start's event lasts in the calendar.
EVENT_LENGTH = timedelta(minutes=15)
#: how long before a deadline its alarm goes off, by default.
ALARM = timedelta(hours=2)
#: how often clients are asked to fetch the feed again.
REFRESH = timedelta(hours=1)


def _utc(instant: datetime) -> datetime:
    return instant.replace(tzinfo=UTC) if instant.tzinfo is None else instant.astimezone(UTC)


def _calendar(name: str) -> Calendar:
    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", "PUBLISH")
    cal.add("x-wr-calname", name)
    cal.add("name", name)
    cal.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    cal.add("x-published-ttl", vDuration(REFRESH))
    return cal


def deadline_summary(lang: str, item: Deadline, timezone: str, now: datetime) -> str:
    """ "Mall of Horror, game 7: the vote — answer by Sunday, 23 November 2026 at 14:00 CET", in the reader's zone."""
    when, _relative = format_when(item.deadline, now, timezone, lang)
    return translations(lang).gettext("%(game)s: %(decision)s — answer by %(deadline)s") % {
        "game": game_label(lang, item.game_id, item.title),
        "decision": glossary.kind_name(lang, item.kind),
        "deadline": when,
    }


def round_summary(lang: str, item: RoundStart) -> str:
    """ "Friday league: round 2 starts"."""
    return translations(lang).gettext("%(league)s: round %(number)s starts") % {
        "league": item.league,
        "number": item.round,
    }


def _event(uid: str, summary: str, start: datetime, now: datetime, *, revision: int, url: str, text: str) -> Event:
    event = Event()
    event.add("uid", uid)
    event.add("dtstamp", _utc(now))
    event.add("dtstart", _utc(start))
    event.add("dtend", _utc(start) + EVENT_LENGTH)
    event.add("sequence", revision)
    event.add("summary", summary)
    event.add("description", f"{text}\n{url}")
    event.add("url", url)
    event.add("transp", "TRANSPARENT")  # a reminder, not a busy time
    return event


def _rounds(cal: Calendar, lang: str, rounds: Iterable[RoundStart], domain: str, now: datetime) -> None:
    t = translations(lang)
    for item in rounds:
        summary = round_summary(lang, item)
        season = "" if item.season is None else f"season-{item.season}-"
        uid = f"league-{item.league_id}-{season}round-{item.round}@{domain}"
        text = t.gettext("The fixtures of the round are on the league's page:")
        cal.add_component(_event(uid, summary, item.starts, now, revision=item.revision, url=item.url, text=text))


def player_calendar(feed: Feed, domain: str, now: datetime, alarm: timedelta = ALARM) -> bytes:
    """The player's feed: each decision they owe and its deadline (with an alarm ``alarm`` before), and the league
    round starts given; in their language, the deadline written in their time zone. ``domain`` ends the UIDs."""
    lang = feed.language
    t = translations(lang)
    cal = _calendar(t.gettext("deadmail: your deadlines"))
    for item in feed.deadlines:
        summary = deadline_summary(lang, item, feed.timezone, now)
        uid = f"deadline-{item.game_id}-{item.window}-{item.seat_id}@{domain}"
        text = t.gettext("Answer from the link in your latest mail from deadmail.")
        start = item.deadline - EVENT_LENGTH
        event = _event(uid, summary, start, now, revision=item.revision, url=item.url, text=text)
        reminder = Alarm()
        reminder.add("action", "DISPLAY")
        reminder.add("description", summary)
        reminder.add("trigger", -(alarm - EVENT_LENGTH))  # from the start: ``alarm`` before the deadline
        event.add_component(reminder)
        cal.add_component(event)
    _rounds(cal, lang, feed.rounds, domain, now)
    return bytes(cal.to_ical())


def league_calendar(lang: str, league: str, rounds: Iterable[RoundStart], domain: str, now: datetime) -> bytes:
    """A league's feed: its round starts, in ``lang``."""
    t = translations(lang)
    cal = _calendar(t.gettext("deadmail: %(league)s") % {"league": league})
    _rounds(cal, lang, rounds, domain, now)
    return bytes(cal.to_ical())
