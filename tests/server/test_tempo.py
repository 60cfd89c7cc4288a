"""Deadlines: durations, a duration per request kind (the longest of a window's kinds wins), and quiet hours of the
players who owe an answer, across midnight, time zones and daylight-saving changes."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa

from server.db import Database
from server.models import Player, Window
from server.services.play import games, turns
from server.services.tempo import (
    DEFAULT_DURATION,
    Quiet,
    TempoError,
    parse_deadlines,
    parse_duration,
    window_deadline,
)
from tests.conftest import Stack
from tests.support import add_player, open_window, utc

ROME = "Europe/Rome"
NEW_YORK = "America/New_York"
NIGHT = (time(22, 0), time(7, 0))


def night(zone: str) -> Quiet:
    return Quiet(zone, *NIGHT)


def tempo(avoid: bool = True, **durations: int) -> dict[str, Any]:
    return {"durations": {"default": DEFAULT_DURATION, **durations}, "timezone": "UTC", "avoid_quiet_hours": avoid}


def in_quiet(q: Quiet, at: datetime) -> bool:
    return q.end_of_quiet(at) is not None


# --- durations -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("24h", 86400),
        ("90m", 5400),
        ("2d", 172800),
        ("30s", 30),
        ("1s", 1),
        ("30d", 30 * 86400),
        ("1.5h", 5400),
        (" 6 h ", 21600),
        ("12", 43200),  # a bare number means hours
    ],
)
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "h", "-1h", "5x", "1w", "24hours", "1e3s", "h24", "2 d 3h", "1,5h"])
def test_unreadable_durations_are_refused_with_an_example(text: str) -> None:
    with pytest.raises(TempoError) as refused:
        parse_duration(text)
    assert str(refused.value) == f"{text!r} is not a duration such as 24h, 90m, 2d or 30s"


@pytest.mark.parametrize("text", ["0s", "0h", "0.1s", "31d", "721h"])
def test_durations_out_of_range_are_refused(text: str) -> None:
    with pytest.raises(TempoError) as refused:
        parse_duration(text)
    assert str(refused.value) == f"{text!r}: a deadline must be between 1 second and 30 days"


def test_deadlines_per_kind() -> None:
    assert parse_deadlines([]) == {"default": 86400}
    assert parse_deadlines(["12h"]) == {"default": 43200}
    assert parse_deadlines(["24h", "vote=6h"]) == {"default": 86400, "vote": 21600}
    assert parse_deadlines(["vote=6h", "cards = 90m", "2d"]) == {"default": 172800, "vote": 21600, "cards": 5400}
    assert parse_deadlines(["vote=6h", "vote=2h"]) == {"default": 86400, "vote": 7200}


def test_bad_deadlines_name_the_problem() -> None:
    with pytest.raises(TempoError, match=r"^'votes' is not a request kind \(place, cards, vote, "):
        parse_deadlines(["votes=6h"])
    with pytest.raises(TempoError, match=r"^'soon' is not a duration"):
        parse_deadlines(["vote=soon"])
    with pytest.raises(TempoError, match=r"^'' is not a request kind"):
        parse_deadlines(["=6h"])


def test_a_window_lasts_the_longest_duration_of_its_kinds() -> None:
    now = utc(2026, 6, 10, 12)
    t = tempo(vote=6 * 3600, cards=90 * 60)
    assert window_deadline(now, ["vote"], t) == now + timedelta(hours=6)
    assert window_deadline(now, ["vote", "vote"], t) == now + timedelta(hours=6)
    assert window_deadline(now, ["cards"], t) == now + timedelta(minutes=90)
    assert window_deadline(now, ["cards", "vote"], t) == now + timedelta(hours=6)
    assert window_deadline(now, ["vote", "place"], t) == now + timedelta(hours=24)  # place: the default
    assert window_deadline(now, [], t) == now + timedelta(hours=24)
    assert window_deadline(now, ["vote"], {}) == now + timedelta(hours=24)
    short = {"durations": {"default": 30, "move": 120}}
    assert window_deadline(now, ["destination", "move"], short) == now + timedelta(seconds=120)


# --- quiet hours -----------------------------------------------------------------------------------------------


def test_quiet_hours_within_a_day() -> None:
    siesta = Quiet("UTC", time(13, 0), time(15, 0))
    assert siesta.end_of_quiet(utc(2026, 6, 10, 12, 59)) is None
    assert siesta.end_of_quiet(utc(2026, 6, 10, 13, 0)) == utc(2026, 6, 10, 15)
    assert siesta.end_of_quiet(utc(2026, 6, 10, 14, 30)) == utc(2026, 6, 10, 15)
    assert siesta.end_of_quiet(utc(2026, 6, 10, 15, 0)) is None
    assert Quiet("UTC", time(9, 0), time(9, 0)).end_of_quiet(utc(2026, 6, 10, 9)) is None  # empty


def test_quiet_hours_over_midnight() -> None:
    q = night("UTC")
    assert q.end_of_quiet(utc(2026, 6, 10, 21, 59)) is None
    assert q.end_of_quiet(utc(2026, 6, 10, 22, 0)) == utc(2026, 6, 11, 7)
    assert q.end_of_quiet(utc(2026, 6, 10, 23, 30)) == utc(2026, 6, 11, 7)
    assert q.end_of_quiet(utc(2026, 6, 11, 0, 0)) == utc(2026, 6, 11, 7)
    assert q.end_of_quiet(utc(2026, 6, 11, 6, 59)) == utc(2026, 6, 11, 7)
    assert q.end_of_quiet(utc(2026, 6, 11, 7, 0)) is None
    # the same across a month and a year end
    assert q.end_of_quiet(utc(2026, 12, 31, 23, 0)) == utc(2027, 1, 1, 7)


def test_a_deadline_in_a_players_night_moves_to_the_morning_in_their_zone() -> None:
    t = tempo()
    now = utc(2026, 6, 9, 21)  # + 24h = 23:00 in Rome (summer time, UTC+2)
    assert window_deadline(now, ["place"], t, [night(ROME)]) == utc(2026, 6, 11, 5)  # 07:00 in Rome
    assert window_deadline(now, ["place"], t, [night("UTC")]) == now + timedelta(hours=24)  # 21:00 there
    assert window_deadline(now, ["place"], t, [Quiet("UTC", time(20, 0), time(7, 0))]) == utc(2026, 6, 11, 7)
    assert window_deadline(now, ["place"], t, [night(NEW_YORK)]) == now + timedelta(hours=24)  # 17:00 there
    assert window_deadline(now, ["place"], t, []) == now + timedelta(hours=24)


def test_avoid_quiet_hours_false_keeps_the_raw_deadline() -> None:
    now = utc(2026, 6, 9, 21)
    raw = now + timedelta(hours=24)
    assert window_deadline(now, ["place"], tempo(avoid=False), [night(ROME), night(NEW_YORK)]) == raw
    assert window_deadline(now, ["place"], tempo(avoid=True), [night(ROME)]) != raw


def test_several_players_in_different_zones_the_latest_morning_wins() -> None:
    t = tempo()
    now = utc(2026, 6, 9, 4)  # + 24h = 06:00 in Rome, midnight in New York
    expected = utc(2026, 6, 10, 11)  # 07:00 in New York; 13:00 in Rome
    assert window_deadline(now, ["vote"], t, [night(ROME), night(NEW_YORK)]) == expected
    assert window_deadline(now, ["vote"], t, [night(NEW_YORK), night(ROME)]) == expected


def test_moving_out_of_one_night_into_anothers_quiet_hours_moves_again() -> None:
    t = tempo()
    now = utc(2026, 6, 9, 3)  # + 24h = 05:00 in Rome (night until 05:00 UTC), 12:00 in Tokyo
    tokyo_siesta = Quiet("Asia/Tokyo", time(13, 0), time(15, 0))  # 04:00-06:00 UTC
    for quiet in ([night(ROME), tokyo_siesta], [tokyo_siesta, night(ROME)]):
        deadline = window_deadline(now, ["vote"], t, quiet)
        assert deadline == utc(2026, 6, 10, 6)
        assert not any(in_quiet(q, deadline) for q in quiet)


# --- a deadline moves once, by at most 12 h ----------------------------------------------------------------------

FOUR_ZONES = ["Europe/Rome", "America/New_York", "America/Los_Angeles", "Asia/Tokyo"]


def awake(quiet: list[Quiet], at: datetime) -> int:
    return sum(not in_quiet(q, at) for q in quiet)


def best_in_range(quiet: list[Quiet], raw: datetime) -> tuple[int, datetime]:
    """By brute force, minute by minute: the most players awake in [raw, raw + 12 h], and its earliest instant."""
    best = max(awake(quiet, raw + timedelta(minutes=m)) for m in range(12 * 60 + 1))
    first = next(m for m in range(12 * 60 + 1) if awake(quiet, raw + timedelta(minutes=m)) == best)
    return best, raw + timedelta(minutes=first)


def test_nights_that_cover_the_whole_day_move_a_deadline_by_at_most_12_hours() -> None:
    """Rome, New York, Los Angeles and Tokyo, each quiet 23:00-07:00: together asleep around the clock. A 6 h
    deadline used to be pushed about 8 days; now it moves once, at most 12 h, to the earliest instant at which the
    most of them are awake."""
    quiet = [Quiet(zone, time(23, 0), time(7, 0)) for zone in FOUR_ZONES]
    t = tempo(vote=6 * 3600)
    for hour in range(24):
        now = utc(2026, 6, 9, hour)
        raw = now + timedelta(hours=6)
        deadline = window_deadline(now, ["vote"], t, quiet)
        assert raw <= deadline <= raw + timedelta(hours=12), (hour, deadline)
        best, first = best_in_range(quiet, raw)
        assert (awake(quiet, deadline), deadline) == (best, first), hour
        assert best == 3  # somebody is always asleep


@pytest.mark.parametrize(
    "now",
    [utc(2026, 3, 28, 22), utc(2026, 3, 8, 3), utc(2026, 10, 24, 23), utc(2026, 11, 1, 3), utc(2026, 3, 29, 0, 30)],
    ids=["rome-spring", "new-york-spring", "rome-fall", "new-york-fall", "in-rome's-gap"],
)
def test_the_12_hour_move_across_daylight_saving_changes(now: datetime) -> None:
    """The same rule on the nights the clocks change in Europe (last Sundays of March and October) and in the USA
    (second Sunday of March, first of November): the instant found is the brute-force one, minute by minute."""
    quiet = [Quiet(zone, time(23, 0), time(7, 0)) for zone in FOUR_ZONES]
    raw = now + timedelta(hours=6)
    deadline = window_deadline(now, ["vote"], tempo(vote=6 * 3600), quiet)
    assert raw <= deadline <= raw + timedelta(hours=12)
    assert (awake(quiet, deadline), deadline) == best_in_range(quiet, raw)
    rome = [Quiet(ROME, time(23, 0), time(7, 0))]  # one player: the end of their night, in their own clock
    alone = window_deadline(now, ["vote"], tempo(vote=6 * 3600), rome)
    assert not in_quiet(rome[0], alone)
    assert alone == raw or alone.astimezone(ZoneInfo(ROME)).strftime("%H:%M") == "07:00"


# --- daylight saving ----------------------------------------------------------------------------------------------


def test_rome_spring_forward_the_morning_is_an_hour_earlier_in_utc() -> None:
    # 2026-03-29 (last Sunday of March): 02:00 CET -> 03:00 CEST, at 01:00 UTC
    t = tempo()
    now = utc(2026, 3, 28, 0, 30)  # + 24h = 01:30 CET on the 29th
    deadline = window_deadline(now, ["place"], t, [night(ROME)])
    assert deadline == utc(2026, 3, 29, 5)  # 07:00 CEST, not 06:00 UTC (07:00 CET)
    assert deadline.astimezone(ZoneInfo(ROME)).hour == 7
    # the evening before the change: 23:30 CET -> the morning after it
    assert window_deadline(utc(2026, 3, 27, 22, 30), ["place"], t, [night(ROME)]) == utc(2026, 3, 29, 5)


def test_rome_fall_back_the_morning_is_an_hour_later_in_utc() -> None:
    # 2026-10-25 (last Sunday of October): 03:00 CEST -> 02:00 CET, at 01:00 UTC
    t = tempo()
    for now in (utc(2026, 10, 24, 0, 30), utc(2026, 10, 24, 1, 30)):  # 02:30 CEST, then 02:30 CET on the 25th
        deadline = window_deadline(now, ["place"], t, [night(ROME)])
        assert deadline == utc(2026, 10, 25, 6)  # 07:00 CET
        assert deadline.astimezone(ZoneInfo(ROME)).hour == 7


def test_quiet_hours_ending_in_the_repeated_hour_cover_both_of_its_passes() -> None:
    # on 2026-10-25 Rome's clocks show 02:00-03:00 twice; quiet hours 00:00-02:30 end at the second 02:30 at the
    # latest, and a deadline at the second 02:10 (01:10 UTC) is in them by the player's clock
    q = Quiet(ROME, time(0, 0), time(2, 30))
    second_pass = utc(2026, 10, 25, 1, 10)
    assert second_pass.astimezone(ZoneInfo(ROME)).strftime("%H:%M %Z") == "02:10 CET"
    end = q.end_of_quiet(second_pass)
    assert end is not None
    assert end > second_pass
    deadline = window_deadline(second_pass - timedelta(hours=24), ["place"], tempo(), [q])
    assert deadline == utc(2026, 10, 25, 1, 30)  # 02:30 CET


def test_quiet_hours_ending_in_the_skipped_hour_end_once_the_clock_is_past_it() -> None:
    # on 2026-03-29 Rome's clocks skip 02:00-03:00; quiet hours 23:00-02:30 end when the clock jumps to 03:00
    # (01:00 UTC) or, by zoneinfo's reading of 02:30 with the old offset, at 03:30 CEST (01:30 UTC)
    q = Quiet(ROME, time(23, 0), time(2, 30))
    deadline = window_deadline(utc(2026, 3, 28, 0, 30), ["place"], tempo(), [q])  # raw: 01:30 CET
    assert utc(2026, 3, 29, 1) <= deadline <= utc(2026, 3, 29, 1, 30)
    assert not in_quiet(q, deadline)


def test_new_york_spring_forward_and_fall_back() -> None:
    t = tempo()
    # 2026-03-08: 02:00 EST -> 03:00 EDT (07:00 UTC). 01:00 EST -> 07:00 EDT = 11:00 UTC
    assert window_deadline(utc(2026, 3, 7, 6), ["vote"], t, [night(NEW_YORK)]) == utc(2026, 3, 8, 11)
    # 2026-11-01: 02:00 EDT -> 01:00 EST (06:00 UTC). 01:30 EDT and 01:30 EST -> 07:00 EST = 12:00 UTC
    assert window_deadline(utc(2026, 10, 31, 5, 30), ["vote"], t, [night(NEW_YORK)]) == utc(2026, 11, 1, 12)
    assert window_deadline(utc(2026, 10, 31, 6, 30), ["vote"], t, [night(NEW_YORK)]) == utc(2026, 11, 1, 12)
    # and a week later, standard time all night: still 07:00 local
    assert window_deadline(utc(2026, 11, 7, 6), ["vote"], t, [night(NEW_YORK)]) == utc(2026, 11, 8, 12)


def test_rome_and_new_york_across_their_different_change_dates() -> None:
    # 2026-03-09: New York already on EDT (UTC-4), Rome still on CET (UTC+1)
    t = tempo()
    now = utc(2026, 3, 8, 5)  # + 24h = 06:00 CET in Rome, 01:00 EDT in New York
    deadline = window_deadline(now, ["vote"], t, [night(ROME), night(NEW_YORK)])
    assert deadline == utc(2026, 3, 9, 11)  # 07:00 EDT; 12:00 CET
    assert not in_quiet(night(ROME), deadline)


# --- through the server ----------------------------------------------------------------------------------------


def current(db: Database, game_id: int) -> Window:
    """The game's open window, with its request rows."""
    window = open_window(db, game_id)
    assert window is not None
    return window


def spec(*people: str, avoid: bool = True, deadlines: tuple[str, ...] = ()) -> games.GameSpec:
    return games.GameSpec(
        players=[games.parse_player(p) for p in people],
        deadlines=parse_deadlines(deadlines),
        avoid_quiet_hours=avoid,
        seed=7,
        absences={"autopilot_after": 0},  # deadlines pass on purpose here
    )


def test_create_game_pushes_the_first_deadline_out_of_a_players_quiet_hours(embedded: Stack) -> None:
    db = embedded.db
    add_player(db, "ann@example.org", timezone=ROME, quiet_start="22:00", quiet_end="07:00")
    now = utc(2026, 6, 9, 19, 30)  # + 2h for placements = 23:30 in Rome
    people = ("Ann <ann@example.org>", "bot", "Bob <bob@example.org>")

    pushed = games.create_game(db, spec(*people, deadlines=("place=2h",)), now=now)
    assert current(db, pushed.game_id).deadline == utc(2026, 6, 10, 5)  # 07:00 in Rome

    raw = games.create_game(db, spec(*people, avoid=False, deadlines=("place=2h",)), now=now)
    assert current(db, raw.game_id).deadline == now + timedelta(hours=2)

    # a bot's seat and a player without quiet hours never move a deadline
    bots = games.create_game(db, spec("bot", "Bob <bob@example.org>", "bot", deadlines=("place=2h",)), now=now)
    assert current(db, bots.game_id).deadline == now + timedelta(hours=2)


def test_only_the_quiet_hours_of_players_who_owe_an_answer_count(stack: Stack) -> None:
    db = stack.db
    for email in ("ann@example.org", "bob@example.org", "cy@example.org"):
        add_player(db, email, timezone="UTC")
    start = utc(2026, 6, 1, 10)
    game_id = games.create_game(
        db, spec("Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"), now=start
    ).game_id
    for _ in range(3):  # windows 1-3: placements, timed out at 10:00 each day
        window = current(db, game_id)
        assert turns.advance_window(db, window.id, now=window.deadline) is True
    window = current(db, game_id)
    assert (window.number, window.deadline) == (4, utc(2026, 6, 5, 10))
    with db.session() as session:
        # before window 5 opens: Ann (yellow) and Bob (red) get quiet hours around its raw deadline (06-06 10:00)
        for email, end in (("ann@example.org", "11:00"), ("bob@example.org", "10:30")):
            player = session.execute(sa.select(Player).where(Player.email == email)).scalar_one()
            player.quiet_start, player.quiet_end = "09:00", end
    assert turns.advance_window(db, window.id, now=utc(2026, 6, 5, 10)) is True
    window = current(db, game_id)
    owing = sorted(r.seat.colour for r in window.requests)
    assert (window.number, owing, {r.kind for r in window.requests}) == (5, ["blue", "red"], {"vote"})
    # Bob owes a vote: out of his quiet hours; Ann owes nothing: hers do not count
    assert window.deadline == utc(2026, 6, 6, 10, 30)


def test_a_windows_deadline_moves_at_most_12_hours_for_players_asleep_around_the_clock(stack: Stack) -> None:
    """The four zones' nights stored as the players' own: the first window's 6 h deadline opens at every hour of a
    day and never moves by more than 12 h (it used to move by about 8 days)."""
    db = stack.db
    people = [f"P{i} <p{i}@example.org>" for i in range(4)]
    for i, zone in enumerate(FOUR_ZONES):
        add_player(db, f"p{i}@example.org", timezone=zone, quiet_start="23:00", quiet_end="07:00")
    for hour in range(0, 24, 3):
        start = utc(2026, 6, 1, hour)
        game_id = games.create_game(db, spec(*people, deadlines=("6h",)), now=start).game_id
        window = current(db, game_id)
        assert start + timedelta(hours=6) <= window.deadline <= start + timedelta(hours=18), (hour, window.deadline)
