"""Play hours and the last call as pure functions, on an injected clock: sessions inside,
outside, just before, across midnight, across a daylight-saving change and on chosen days of the week."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from server.services.tempo import (
    PlayHours,
    Quiet,
    TempoError,
    last_call_deadline,
    parse_play_hours,
    waking_seconds,
    window_deadline,
)
from tests.support import utc

ROME = "Europe/Rome"
EVENINGS = parse_play_hours("Mon-Sun 20:30-22:00 Europe/Rome", "10m")
TEN = timedelta(minutes=10)


def tempo(play_hours: dict[str, Any] | None = EVENINGS) -> dict[str, Any]:
    t: dict[str, Any] = {"durations": {"default": 86400}, "timezone": "UTC", "avoid_quiet_hours": True}
    if play_hours is not None:
        t["play_hours"] = play_hours
    return t


def rome(*args: int) -> datetime:
    return datetime(*args, tzinfo=ZoneInfo(ROME))  # type: ignore[misc]


# --- reading the setting ----------------------------------------------------------------------------------------


def test_play_hours_are_read_from_a_text_and_a_deadline() -> None:
    assert EVENINGS == {"zone": ROME, "days": [0, 1, 2, 3, 4, 5, 6], "start": "20:30", "end": "22:00", "deadline": 600}
    assert parse_play_hours("Sat,Sun 9:00-12:30 UTC", "5m")["days"] == [5, 6]
    assert parse_play_hours("fri-mon 23:00-01:00 Asia/Tokyo", "1h")["days"] == [0, 4, 5, 6]  # wraps past Sunday
    assert parse_play_hours("Mon-Fri,Sun 20:00 - 21:00 UTC")["days"] == [0, 1, 2, 3, 4, 6]
    assert parse_play_hours("daily 20:00-21:00 UTC")["deadline"] == 600  # ten minutes unless told


@pytest.mark.parametrize(
    ("text", "deadline", "message"),
    [
        ("20:30-22:00 Europe/Rome", "10m", "'20:30-22:00 Europe/Rome' are not play hours such as Mon-Sun 20:30-22:00"),
        ("Mon-Sun 20:30-22:00", "10m", "are not play hours such as"),
        ("Moon 20:30-22:00 UTC", "10m", "'Moon' are not play hours such as"),
        ("Mon-Sun 25:00-26:00 UTC", "10m", "'25:00' is not a time of day such as 22:30"),
        ("Mon-Sun 20:30-20:30 UTC", "10m", "must end at another time than it starts"),
        ("Mon-Sun 20:30-22:00 Mars/Olympus", "10m", "'Mars/Olympus' is not an IANA time zone"),
        ("Mon-Sun 20:30-22:00 UTC", "soon", "'soon' is not a duration"),
        ("Mon-Sun 20:30-22:00 UTC", "2d", "from 1 second to 24 hours"),
    ],
)
def test_bad_play_hours_are_refused_with_a_clear_message(text: str, deadline: str, message: str) -> None:
    with pytest.raises(TempoError) as refused:
        parse_play_hours(text, deadline)
    assert message in str(refused.value)


@pytest.mark.parametrize(
    "stored",
    [
        {"zone": ROME, "days": [], "start": "20:30", "end": "22:00", "deadline": 600},
        {"zone": ROME, "days": [7], "start": "20:30", "end": "22:00", "deadline": 600},
        {"zone": ROME, "days": [True], "start": "20:30", "end": "22:00", "deadline": 600},
        {"zone": ROME, "days": [0], "start": "20:30", "end": "22:00", "deadline": "10m"},
        {"zone": ROME, "days": [0], "start": "20:30", "end": "22:00"},
        "Mon 20:30",
    ],
)
def test_play_hours_objects_are_checked(stored: object) -> None:
    with pytest.raises(TempoError):
        PlayHours.from_json(stored)
    # unreadable stored play hours are ignored (logged), never a crash while a window opens
    assert PlayHours.of({"play_hours": stored}) is None


# --- deadlines ------------------------------------------------------------------------------------------------------


def test_a_window_opened_inside_a_session_has_the_short_deadline() -> None:
    now = rome(2026, 2, 3, 21, 0)
    assert window_deadline(now, ["vote"], tempo()) == now + TEN
    start = rome(2026, 2, 3, 20, 30)  # the first instant of the session is in it
    assert window_deadline(start, ["vote"], tempo()) == start + TEN
    late = rome(2026, 2, 3, 21, 59)  # the short deadline may end a little after the session
    assert window_deadline(late, ["vote"], tempo()) == late + TEN


def test_a_window_opened_outside_a_session_waits_for_the_next_one() -> None:
    next_start = rome(2026, 2, 3, 20, 30)
    for now in (rome(2026, 2, 3, 9, 0), rome(2026, 2, 3, 20, 29, 59), rome(2026, 2, 2, 22, 0), rome(2026, 2, 3, 0, 1)):
        assert window_deadline(now, ["vote"], tempo()) == next_start + TEN, now
    # quiet hours never move a play-hours deadline: the session is the agreed time
    sleeper = Quiet(ROME, time(20, 0), time(23, 0))
    assert window_deadline(rome(2026, 2, 3, 9, 0), ["vote"], tempo(), [sleeper]) == next_start + TEN


def test_without_play_hours_the_quiet_hours_logic_is_kept() -> None:
    now = utc(2026, 6, 9, 20, 30)  # + 24 h = 22:30 in Rome
    sleeper = Quiet(ROME, time(22, 0), time(7, 0))
    assert window_deadline(now, ["vote"], tempo(None), [sleeper]) == utc(2026, 6, 11, 5)  # 07:00 in Rome


def test_sessions_across_midnight() -> None:
    late = PlayHours.from_json(parse_play_hours("Fri 23:00-01:00 Europe/Rome", "10m"))
    friday_night, saturday_early = rome(2026, 2, 6, 23, 30), rome(2026, 2, 7, 0, 45)
    assert (
        late.session_at(friday_night)
        == late.session_at(saturday_early)
        == (
            rome(2026, 2, 6, 23, 0).astimezone(ZoneInfo("UTC")),
            rome(2026, 2, 7, 1, 0).astimezone(ZoneInfo("UTC")),
        )
    )
    assert late.deadline_from(saturday_early) == saturday_early + TEN
    # the session belongs to the day it starts: Saturday 23:00 is no session, the next is the next Friday
    assert late.session_at(rome(2026, 2, 7, 23, 30)) is None
    assert late.session_at(rome(2026, 2, 7, 1, 0)) is None  # its end is not in it
    assert late.deadline_from(rome(2026, 2, 7, 23, 30)) == rome(2026, 2, 13, 23, 0) + TEN


def test_sessions_only_on_their_days_of_the_week() -> None:
    weekends = PlayHours.from_json(parse_play_hours("Sat-Sun 20:30-22:00 Europe/Rome", "10m"))
    monday_evening = rome(2026, 2, 2, 21, 0)  # a Monday
    assert weekends.session_at(monday_evening) is None
    assert weekends.deadline_from(monday_evening) == rome(2026, 2, 7, 20, 30) + TEN
    assert weekends.session_at(rome(2026, 2, 8, 21, 0)) is not None  # Sunday
    assert weekends.deadline_from(rome(2026, 2, 8, 22, 0)) == rome(2026, 2, 14, 20, 30) + TEN  # after Sunday's


def test_sessions_across_daylight_saving_changes() -> None:
    # Rome: 2026-03-29 02:00 CET -> 03:00 CEST; a 20:30 session is at 19:30 UTC before and 18:30 UTC after
    hours = PlayHours.from_json(EVENINGS)
    assert hours.next_start(utc(2026, 3, 28, 21)) == utc(2026, 3, 29, 18, 30)
    assert hours.next_start(utc(2026, 3, 27, 21)) == utc(2026, 3, 28, 19, 30)
    assert hours.session_at(utc(2026, 3, 29, 18, 45)) is not None
    assert hours.session_at(utc(2026, 3, 28, 18, 45)) is None  # 19:45 CET: before the session
    # 2026-10-25 03:00 CEST -> 02:00 CET: a session across the repeated hour lasts one hour more in UTC
    night = PlayHours.from_json(parse_play_hours("Sat 23:00-04:00 Europe/Rome", "10m"))
    found = night.session_at(utc(2026, 10, 25, 1, 30))
    assert found == (utc(2026, 10, 24, 21), utc(2026, 10, 25, 3))
    # a window opened a minute after a session ends waits for next week's, at the new offset
    assert night.deadline_from(utc(2026, 10, 25, 3, 1)) == utc(2026, 10, 31, 22) + TEN


# --- the last call ---------------------------------------------------------------------------------------------


def test_the_last_call_is_the_earlier_of_the_deadline_and_now_plus_the_call() -> None:
    now, deadline, four = utc(2026, 6, 1, 12), utc(2026, 6, 2, 12), 4 * 3600
    assert last_call_deadline(now, deadline, four) == utc(2026, 6, 1, 16)
    assert last_call_deadline(now, utc(2026, 6, 1, 13), four) == utc(2026, 6, 1, 13)  # never later


def test_the_last_call_never_ends_in_the_players_quiet_hours_and_counts_their_waking_hours_only() -> None:
    now, four = utc(2026, 6, 1, 18), 4 * 3600  # 20:00 in Rome (CEST): 3 h awake, then the night, then 1 h
    night = Quiet(ROME, time(23, 0), time(7, 0))
    assert last_call_deadline(now, utc(2026, 6, 2, 18), four, night) == utc(2026, 6, 2, 6)  # 08:00 in Rome
    # called while the player sleeps (01:00 in Rome): the four hours start when they wake
    assert last_call_deadline(utc(2026, 6, 1, 23), utc(2026, 6, 3), four, night) == utc(2026, 6, 2, 9)
    # a call longer than a day of waking hours spans two nights
    assert last_call_deadline(now, utc(2026, 6, 5), 20 * 3600, night) == utc(2026, 6, 3, 6)
    # but never later than the deadline it had
    assert last_call_deadline(now, utc(2026, 6, 2, 3), four, night) == utc(2026, 6, 2, 3)
    awake = Quiet(ROME, time(1, 0), time(7, 0))
    assert last_call_deadline(now, utc(2026, 6, 2, 18), four, awake) == utc(2026, 6, 1, 22)


def test_waking_seconds_leave_out_the_quiet_hours() -> None:
    night = Quiet(ROME, time(23, 0), time(7, 0))
    start = utc(2026, 6, 1, 18)  # 20:00 in Rome: 3 h to 23:00, the night, then 07:00-09:00
    assert waking_seconds(start, utc(2026, 6, 2, 7), night) == 5 * 3600
    assert waking_seconds(start, utc(2026, 6, 2, 7)) == 13 * 3600  # no quiet hours: all of it
    assert waking_seconds(utc(2026, 6, 1, 22), utc(2026, 6, 2, 4), night) == 0  # asleep throughout
    assert waking_seconds(start, start, night) == 0
