"""Reminders and digests (server/services/mailflow/reminders.py): the ladder, the instants reminders go out, never to
someone who answered or to a bot, never inside quiet hours (across midnight and daylight-saving changes), one mail per
player per sweep across games, once each even with concurrent sweeps; digests merged once, on time, sooner when a
decision would be missed. The services are called directly, with injected clocks."""

from __future__ import annotations

import threading
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa

from server.db import Database
from server.models import Outbox, Player, RequestRow, Seat, Window
from server.services.attendance import prefs
from server.services.mailflow.reminders import ladder, plan_reminders, release_digests, still_owed
from server.services.play import games, turns
from tests.conftest import Stack
from tests.support import T0, add_player, request_of, utc

ANN, BOB, CY = "ann@example.org", "bob@example.org", "cy@example.org"
PEOPLE = ("Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>")
H, M, S = timedelta(hours=1), timedelta(minutes=1), timedelta(seconds=1)


# --- helpers -----------------------------------------------------------------------------------------------------


#: the settings form as a player on a four-hour digest fills it.
PREFS = {
    "language": "en",
    "timezone": "UTC",
    "quiet_start": "",
    "quiet_end": "",
    "mail_mode": "digest",
    "digest_hours": 4,
}


def player_id(db: Database, email: str) -> int:
    with db.session() as session:
        return session.execute(sa.select(Player.id).where(Player.email == email)).scalar_one()


def set_player(db: Database, email: str, **fields: Any) -> None:
    with db.session() as session:
        player = session.execute(sa.select(Player).where(Player.email == email)).scalar_one()
        for name, value in fields.items():
            setattr(player, name, value)


def new_game(
    db: Database, now: datetime, window: timedelta = 24 * H, people: tuple[str, ...] = PEOPLE
) -> dict[str, int]:
    """A game whose first window (placements, owed by every person) closes exactly ``window`` after ``now``;
    returns the seat ids by player e-mail (and by "bot<position>" for bots)."""
    spec = games.GameSpec(
        players=[games.parse_player(p) for p in people],
        deadlines={"default": int(window.total_seconds())},
        avoid_quiet_hours=False,
        seed=7,
    )
    game_id = games.create_game(db, spec, now=now).game_id
    with db.session() as session:
        seats = session.execute(sa.select(Seat).where(Seat.game_id == game_id)).scalars()
        return {seat.player.email if seat.player else f"bot{seat.position}": seat.id for seat in seats}


def reminders(db: Database, ids: list[int]) -> dict[str, list[dict[str, Any]]]:
    """The reminder rows ``ids`` by player e-mail (checking each is a player-level, pending reminder)."""
    out: dict[str, list[dict[str, Any]]] = {}
    with db.session() as session:
        for row_id in ids:
            row = session.get(Outbox, row_id)
            assert row is not None
            assert (row.kind, row.game_id, row.seat_id, row.status) == ("reminder", None, None, "pending")
            assert row.player.email not in out  # one mail per player per sweep
            out[row.player.email] = row.payload["items"]
    return out


def steps(db: Database, ids: list[int]) -> dict[str, list[int]]:
    return {email: [item["step"] for item in items] for email, items in reminders(db, ids).items()}


def answer(db: Database, seat_id: int, now: datetime) -> None:
    """The seat answers its open request with its first option."""
    found = request_of(db, seat_id)
    assert found is not None
    _, row = found
    turns.submit_answer(db, seat_id, row.kind, row.payload["options"][0], now=now)


def outbox_count(db: Database, kind: str) -> int:
    with db.session() as session:
        return session.execute(sa.select(sa.func.count()).where(Outbox.kind == kind)).scalar_one()


def held_rows(db: Database, email: str) -> list[int]:
    with db.session() as session:
        return list(
            session.execute(
                sa.select(Outbox.id).join(Player).where(Player.email == email, Outbox.status == "held")
            ).scalars()
        )


def row(db: Database, row_id: int) -> dict[str, Any]:
    """An outbox row's fields (and its player's e-mail)."""
    with db.session() as session:
        found = session.get(Outbox, row_id)
        assert found is not None
        fields = ("kind", "game_id", "seat_id", "status", "payload", "next_attempt_at")
        return {name: getattr(found, name) for name in fields} | {"email": found.player.email}


# --- the ladder --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("window", "expected"),
    [
        (24 * H, [12 * H, 2 * H, 20 * M]),
        (7 * 24 * H, [84 * H, 14 * H, 2 * H + 20 * M]),
        (2 * H, [H, 10 * M]),  # 1/72 would be 100 s before the deadline: too late to be useful
        (6 * H, [3 * H, 30 * M, 5 * M]),
        (20 * M, [10 * M]),
        (10 * M, [5 * M]),
        (9 * M, []),
        (30 * S, []),
    ],
)
def test_the_ladder_is_scaled_to_the_window(window: timedelta, expected: list[timedelta]) -> None:
    assert ladder(window) == expected


# --- reminders ---------------------------------------------------------------------------------------------------


def test_each_step_goes_out_at_its_instant_once(stack: Stack) -> None:
    db = stack.db
    seats = new_game(db, T0)
    assert plan_reminders(db, T0 + 12 * H - S) == []
    first = plan_reminders(db, T0 + 12 * H)
    assert reminders(db, first) == {e: [{"seat": seats[e], "window": 1, "step": 1}] for e in (ANN, BOB, CY)}
    with db.session() as session:
        due = session.execute(sa.select(Outbox.next_attempt_at).where(Outbox.id.in_(first))).scalars()
        assert set(due) == {T0 + 12 * H}
    assert plan_reminders(db, T0 + 12 * H) == []  # the same instant again: nothing
    assert plan_reminders(db, T0 + 22 * H - S) == []
    assert steps(db, plan_reminders(db, T0 + 22 * H)) == {ANN: [2], BOB: [2], CY: [2]}
    assert plan_reminders(db, T0 + 23 * H + 40 * M - S) == []
    assert steps(db, plan_reminders(db, T0 + 23 * H + 40 * M)) == {ANN: [3], BOB: [3], CY: [3]}
    assert plan_reminders(db, T0 + 23 * H + 59 * M) == []
    assert plan_reminders(db, T0 + 24 * H) == []  # the deadline: the sweep closes the window instead
    with db.session() as session:
        assert set(session.execute(sa.select(RequestRow.reminded)).scalars()) == {3}
        assert len(set(session.execute(sa.select(Outbox.key).where(Outbox.kind == "reminder")).scalars())) == 9


def test_missed_steps_are_skipped_only_the_latest_is_sent(stack: Stack) -> None:
    db = stack.db
    new_game(db, T0)
    assert steps(db, plan_reminders(db, T0 + 23 * H)) == {ANN: [2], BOB: [2], CY: [2]}
    assert plan_reminders(db, T0 + 23 * H + 39 * M) == []
    assert steps(db, plan_reminders(db, T0 + 23 * H + 50 * M)) == {ANN: [3], BOB: [3], CY: [3]}
    assert outbox_count(db, "reminder") == 6


def test_no_reminder_for_a_decision_answered_meanwhile(stack: Stack) -> None:
    db = stack.db
    seats = new_game(db, T0)
    first = reminders(db, plan_reminders(db, T0 + 12 * H))
    answer(db, seats[ANN], T0 + 13 * H)
    assert steps(db, plan_reminders(db, T0 + 22 * H)) == {BOB: [2], CY: [2]}
    # the reminder already written is re-checked when sent: Ann's item is no longer owed, Bob's is
    with db.session() as session:
        assert still_owed(session, first[ANN]) == []
        assert still_owed(session, first[BOB]) == first[BOB]
        assert still_owed(session, first[ANN] + first[CY]) == first[CY]
    answer(db, seats[BOB], T0 + 22 * H + M)
    assert steps(db, plan_reminders(db, T0 + 23 * H + 40 * M)) == {CY: [3]}


def test_still_owed_drops_closed_windows_and_malformed_items(stack: Stack) -> None:
    db = stack.db
    seats = new_game(db, T0)
    items = reminders(db, plan_reminders(db, T0 + 12 * H))[CY]
    with db.session() as session:
        junk: list[Any] = [
            5,
            "seat",
            {"seat": str(seats[CY]), "window": 1, "step": 1},
            {"seat": True, "window": 1, "step": 1},
            {"seat": seats[CY], "window": 2, "step": 1},  # not its window
            {"seat": seats[CY] + 1000, "window": 1, "step": 1},
            {"seat": seats[CY], "window": 1},
        ]
        assert still_owed(session, junk + items) == items
        window_id = session.execute(sa.select(Window.id).where(Window.status == "open")).scalar_one()
    assert turns.advance_window(db, window_id, now=T0 + 24 * H) is True  # the deadline: closed with defaults
    with db.session() as session:
        assert still_owed(session, items) == []


def test_no_reminder_to_bots(stack: Stack) -> None:
    db = stack.db
    seats = new_game(db, T0, people=("bot", *PEOPLE[1:]))
    with db.session() as session:  # Cy's seat is handed to a bot before it answered
        seat = session.get(Seat, seats[CY])
        assert seat is not None
        seat.bot = "sensible"
        unanswered = session.execute(
            sa.select(sa.func.count()).where(RequestRow.seat_id == seat.id, RequestRow.answered_at.is_(None))
        ).scalar_one()
        assert unanswered == 1
    assert steps(db, plan_reminders(db, T0 + 12 * H)) == {BOB: [1]}


def test_one_mail_per_player_across_their_games(stack: Stack) -> None:
    db = stack.db
    one = new_game(db, T0)
    two = new_game(db, T0 + 5 * M, people=(PEOPLE[0], "Dee <dee@example.org>", PEOPLE[2]))
    assert steps(db, plan_reminders(db, T0 + 12 * H)) == {ANN: [1], BOB: [1], CY: [1]}
    found = reminders(db, plan_reminders(db, T0 + 22 * H + 5 * M))
    assert sorted(found) == sorted([ANN, BOB, CY, "dee@example.org"])
    assert sorted(found[ANN], key=lambda i: i["seat"]) == [
        {"seat": one[ANN], "window": 1, "step": 2},
        {"seat": two[ANN], "window": 1, "step": 2},
    ]
    assert found[BOB] == [{"seat": one[BOB], "window": 1, "step": 2}]
    assert found["dee@example.org"] == [{"seat": two["dee@example.org"], "window": 1, "step": 2}]


def test_concurrent_sweeps_write_each_reminder_once(stack: Stack) -> None:
    db = stack.db
    new_game(db, T0)
    new_game(db, T0 + M, people=(PEOPLE[2], PEOPLE[0], "Dee <dee@example.org>"))
    at = T0 + 12 * H + M
    barrier = threading.Barrier(8)
    results: list[list[int]] = []
    errors: list[BaseException] = []

    def sweep() -> None:
        try:
            barrier.wait()
            results.append(plan_reminders(db, at))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=sweep) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert len(results) == 8
    ids = [i for result in results for i in result]
    assert len(ids) == len(set(ids)) == 4  # Ann, Bob, Cy, Dee: one row each, written by one sweep only
    found = steps(db, ids)
    assert found == {ANN: [1, 1], BOB: [1], CY: [1, 1], "dee@example.org": [1]}
    assert outbox_count(db, "reminder") == 4
    assert plan_reminders(db, at) == []


# --- quiet hours -------------------------------------------------------------------------------------------------

NIGHT = ("22:00", "07:00")
#: (zone, deadline of a 24-hour window, [(sweep instant, the step sent to Ann or None)]). The end of her night
#: (07:00 local, just after a change) is checked a minute before and at the instant: the offset from the other side
#: of the change would move it by an hour.
DST = {
    "rome-spring-forward": (  # 2026-03-29 01:00 UTC: 02:00 CET -> 03:00 CEST
        "Europe/Rome",
        utc(2026, 3, 29, 6),  # 08:00 CEST
        [
            (utc(2026, 3, 28, 18), 1),
            (utc(2026, 3, 29, 4), None),
            (utc(2026, 3, 29, 4, 59), None),
            (utc(2026, 3, 29, 5), 2),
            (utc(2026, 3, 29, 5, 40), 3),
        ],
    ),
    "rome-step-due-at-night-across-the-change": (
        "Europe/Rome",
        utc(2026, 3, 29, 10),  # 12:00 CEST; step 1 at 23:00 CET
        [
            (utc(2026, 3, 28, 22), None),
            (utc(2026, 3, 28, 23, 59), None),
            (utc(2026, 3, 29, 1), None),
            (utc(2026, 3, 29, 4, 59), None),
            (utc(2026, 3, 29, 5), 1),
            (utc(2026, 3, 29, 8), 2),
            (utc(2026, 3, 29, 9, 40), 3),
        ],
    ),
    "rome-fall-back": (  # 2026-10-25 01:00 UTC: 03:00 CEST -> 02:00 CET
        "Europe/Rome",
        utc(2026, 10, 25, 7),  # 08:00 CET
        [
            (utc(2026, 10, 24, 19), 1),
            (utc(2026, 10, 25, 5), None),
            (utc(2026, 10, 25, 5, 59), None),
            (utc(2026, 10, 25, 6), 2),
            (utc(2026, 10, 25, 6, 40), 3),
        ],
    ),
    "new-york-spring-forward": (  # 2026-03-08 07:00 UTC: 02:00 EST -> 03:00 EDT
        "America/New_York",
        utc(2026, 3, 8, 12),  # 08:00 EDT
        [
            (utc(2026, 3, 8, 0), 1),
            (utc(2026, 3, 8, 10), None),
            (utc(2026, 3, 8, 10, 59), None),
            (utc(2026, 3, 8, 11), 2),
            (utc(2026, 3, 8, 11, 40), 3),
        ],
    ),
    "new-york-fall-back": (  # 2026-11-01 06:00 UTC: 02:00 EDT -> 01:00 EST
        "America/New_York",
        utc(2026, 11, 1, 13),  # 08:00 EST
        [
            (utc(2026, 11, 1, 1), 1),
            (utc(2026, 11, 1, 11), None),
            (utc(2026, 11, 1, 11, 59), None),
            (utc(2026, 11, 1, 12), 2),
            (utc(2026, 11, 1, 12, 40), 3),
        ],
    ),
    "deadline-inside-quiet-hours-no-late-reminder": (
        "UTC",
        utc(2026, 6, 10, 6),
        [
            (utc(2026, 6, 9, 18), 1),
            (utc(2026, 6, 10, 4), None),
            (utc(2026, 6, 10, 5, 40), None),
            (utc(2026, 6, 10, 5, 59), None),
            (utc(2026, 6, 10, 6), None),
            (utc(2026, 6, 10, 7), None),
        ],
    ),
}


@pytest.mark.parametrize("case", DST.values(), ids=DST.keys())
def test_never_inside_quiet_hours_then_at_the_first_sweep_after_them(
    stack: Stack, case: tuple[str, datetime, list[tuple[datetime, int | None]]]
) -> None:
    zone, deadline, sweeps = case
    db = stack.db
    add_player(db, ANN, timezone=zone, quiet_start=NIGHT[0], quiet_end=NIGHT[1])
    seats = new_game(db, deadline - 24 * H)
    for at, step in sweeps:
        found = reminders(db, plan_reminders(db, at))
        if step is None:
            assert ANN not in found, at
            continue
        assert found.get(ANN) == [{"seat": seats[ANN], "window": 1, "step": step}], at
        local = at.astimezone(ZoneInfo(zone)).time()
        assert time(7) <= local < time(22), (at, local)  # the player's own clock says it is daytime


def test_quiet_hours_are_each_players_own(stack: Stack) -> None:
    db = stack.db
    add_player(db, ANN, timezone="Europe/Rome", quiet_start="22:00", quiet_end="07:00")
    add_player(db, BOB, timezone="America/New_York", quiet_start="22:00", quiet_end="07:00")
    new_game(db, utc(2026, 6, 10, 2))
    set_player(db, CY, timezone="Asia/Tokyo", quiet_start="25:00", quiet_end="07:00")  # unreadable: ignored
    # 14:00 UTC: 16:00 in Rome, 10:00 in New York
    assert steps(db, plan_reminders(db, utc(2026, 6, 10, 14))) == {ANN: [1], BOB: [1], CY: [1]}
    # 00:00 UTC: 02:00 in Rome (quiet), 20:00 in New York
    assert steps(db, plan_reminders(db, utc(2026, 6, 11, 0))) == {BOB: [2], CY: [2]}
    # 01:40 UTC: 03:40 in Rome (quiet), 21:40 in New York
    assert steps(db, plan_reminders(db, utc(2026, 6, 11, 1, 40))) == {BOB: [3], CY: [3]}


# --- digests -----------------------------------------------------------------------------------------------------


def test_a_digest_merges_the_held_rows_once_when_the_oldest_is_old_enough(stack: Stack) -> None:
    db = stack.db
    add_player(db, ANN, mail_mode="digest", digest_hours=4)
    new_game(db, T0)
    held = held_rows(db, ANN)
    assert len(held) == 1  # her turn notice; Bob's and Cy's are ordinary mail
    assert outbox_count(db, "turn") == 3
    assert release_digests(db, T0 + 4 * H - S) == []
    [digest] = release_digests(db, T0 + 4 * H)
    assert row(db, digest) == {
        "kind": "digest",
        "game_id": None,
        "seat_id": None,
        "status": "pending",
        "payload": {"rows": held},
        "next_attempt_at": T0 + 4 * H,
        "email": ANN,
    }
    assert {row(db, i)["status"] for i in held} == {"merged"}
    assert release_digests(db, T0 + 4 * H) == []
    assert release_digests(db, T0 + 10 * H) == []
    assert outbox_count(db, "digest") == 1


def test_a_digest_goes_sooner_when_a_decision_closes_within_two_hours(stack: Stack) -> None:
    db = stack.db
    add_player(db, ANN, mail_mode="digest", digest_hours=4)
    add_player(db, BOB, mail_mode="digest", digest_hours=4)
    seats = new_game(db, T0, window=3 * H)
    answer(db, seats[BOB], T0 + M)  # Bob answered by his link: nothing urgent in his digest
    assert release_digests(db, T0 + H - S) == []
    released = release_digests(db, T0 + H)
    assert [row(db, i)["email"] for i in released] == [ANN]
    assert release_digests(db, T0 + 2 * H) == []
    assert [row(db, i)["email"] for i in release_digests(db, T0 + 4 * H)] == [BOB]


def test_a_held_row_is_looked_at_only_when_its_digest_may_be_due(stack: Stack) -> None:
    """The digest sweep reads only the held rows whose instant has come (``next_attempt_at``): the end of
    the digest's span, or two hours before the deadline of the decision a turn notice asks for; a player looked at
    whose digest is not due yet is given the instant of the next look."""
    db = stack.db
    add_player(db, ANN, mail_mode="digest", digest_hours=4)
    add_player(db, BOB, mail_mode="digest", digest_hours=24)
    seats = new_game(db, T0, window=6 * H)
    [ann], [bob] = held_rows(db, ANN), held_rows(db, BOB)
    assert row(db, ann)["next_attempt_at"] == T0 + 4 * H  # her span ends first
    assert row(db, bob)["next_attempt_at"] == T0 + 4 * H  # two hours before his decision closes
    answer(db, seats[BOB], T0 + M)
    prefs.save_prefs(db, player_id(db, ANN), PREFS)  # the same settings again: looked at, and not due
    assert release_digests(db, T0 + 2 * M) == []
    assert row(db, ann)["next_attempt_at"] == T0 + 4 * H
    assert [row(db, i)["email"] for i in release_digests(db, T0 + 4 * H)] == [ANN]
    assert row(db, bob)["next_attempt_at"] == T0 + 24 * H  # answered: nothing urgent left, it waits for its span
    assert release_digests(db, T0 + 24 * H - S) == []
    assert [row(db, i)["email"] for i in release_digests(db, T0 + 24 * H)] == [BOB]


def test_a_digest_waits_for_the_end_of_quiet_hours(stack: Stack) -> None:
    db = stack.db
    add_player(
        db, ANN, mail_mode="digest", digest_hours=4, timezone="Europe/Rome", quiet_start="22:00", quiet_end="07:00"
    )
    new_game(db, utc(2026, 3, 28, 20))  # 21:00 CET; due by age at 01:00 CET, deadline the next day
    assert release_digests(db, utc(2026, 3, 29, 0)) == []
    assert release_digests(db, utc(2026, 3, 29, 4, 59)) == []  # 06:59 CEST
    assert len(release_digests(db, utc(2026, 3, 29, 5))) == 1  # 07:00 CEST


@pytest.mark.parametrize(
    ("window", "not_yet", "released"),
    [
        # deadline 06:30, in her quiet hours: sent when it is two hours away, at night, or she would miss it
        (8 * H, utc(2026, 6, 10, 4, 29), utc(2026, 6, 10, 4, 30)),
        # deadline 07:45: waiting for 07:00 leaves her 45 minutes, so it waits
        (9 * H + 15 * M, utc(2026, 6, 10, 6, 59), utc(2026, 6, 10, 7)),
    ],
)
def test_inside_quiet_hours_a_digest_goes_only_if_waiting_would_miss_a_deadline(
    stack: Stack, window: timedelta, not_yet: datetime, released: datetime
) -> None:
    db = stack.db
    add_player(db, ANN, mail_mode="digest", digest_hours=4, timezone="UTC", quiet_start="22:00", quiet_end="07:00")
    new_game(db, utc(2026, 6, 9, 22, 30), window=window)
    assert release_digests(db, utc(2026, 6, 10, 2, 30)) == []  # old enough, but quiet
    assert release_digests(db, not_yet) == []
    assert len(release_digests(db, released)) == 1


def test_held_rows_of_a_player_who_left_the_digest_go_as_ordinary_mail(stack: Stack) -> None:
    db = stack.db
    add_player(db, ANN, mail_mode="digest", digest_hours=4)
    new_game(db, T0)
    held = held_rows(db, ANN)
    assert release_digests(db, T0 + M) == []  # the digest gathers
    prefs.save_prefs(db, player_id(db, ANN), PREFS | {"mail_mode": "each"})  # tells the digest sweep to look again
    assert release_digests(db, T0 + M) == held
    assert [(row(db, i)["status"], row(db, i)["next_attempt_at"]) for i in held] == [("pending", T0 + M)]
    assert release_digests(db, T0 + 5 * H) == []
    assert outbox_count(db, "digest") == 0
