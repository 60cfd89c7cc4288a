"""The sweep (DESIGN.md "the database is the clock"): a lost advance is recovered within one sweep period,
a window past its deadline is closed with the H-4 defaults, mail is sent with retries and back-off kept in the row,
rows stuck in "sending" are released; and the sweep (fanned out into parts) writes a heartbeat. Time is injected,
never slept."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from email.message import EmailMessage

import pytest
from celery import Celery
from sqlalchemy import select

from server.db import Database
from server.mail.send import send_one
from server.models import Game, Heartbeat, Outbox
from server.services import claims, heartbeat
from server.services.mailflow import outbox
from server.services.play import archive, turns
from server.services.sweeps import PARTS
from tests.conftest import Stack
from tests.support import (
    IDLE,
    T0,
    check_game,
    create,
    mail_files,
    open_window,
    outbox_ids,
    seat_ids,
    snapshot,
    stored_events,
    sweep,
)

from .conftest import TaskLog


def outbox_rows(db: Database, game_id: int) -> dict[int, tuple[str, int, datetime, str | None]]:
    with db.session() as session:
        rows = session.execute(select(Outbox).where(Outbox.game_id == game_id)).scalars()
        return {r.id: (r.status, r.attempts, r.next_attempt_at, r.last_error) for r in rows}


def test_a_lost_advance_is_recovered_by_the_next_sweep(
    stack: Stack, worker: Celery, task_log: TaskLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    beat_at = T0 + timedelta(days=3)  # the heartbeat's own clock (the wall clock in production)
    monkeypatch.setattr(heartbeat, "utcnow", lambda: beat_at)
    created = create(stack.db, 3, seed=31)
    window = open_window(stack.db, created.game_id)
    assert window is not None
    ids = seat_ids(stack.db, created.game_id)
    answered_at = T0 + timedelta(minutes=5)
    for row in window.requests:  # the advance the last answer asks for is lost: stack.db has no task queue
        done = turns.submit_answer(stack.db, ids[row.seat.colour], row.kind, row.payload["options"][0], now=answered_at)
    assert done.complete
    assert turns.due_windows(stack.db, answered_at) == [window.id]  # complete: due before its deadline
    period = timedelta(seconds=stack.settings.sweep_every)

    result = sweep(worker, task_log, answered_at + period)

    new = open_window(stack.db, created.game_id)
    assert new is not None and new.number == 2
    assert new.opened_at == answered_at + period
    eng = check_game(stack.db, created.game_id)
    assert not any(e["type"] == "answer_defaulted" for e in eng.events)
    # the three creation mails and one per request of the new window, all due at the sweep's instant; a creation
    # mail whose window closed before it went out is skipped when a newer mail to the same seat waits (mail/send.py)
    statuses = [status for status, *_ in outbox_rows(stack.db, created.game_id).values()]
    assert len(statuses) == 3 + len(new.requests) and statuses.count("pending") == 0
    sent = statuses.count("sent")
    assert sent >= len(new.requests) and statuses.count("skipped") == 3 + len(new.requests) - sent
    assert result == IDLE | {"advanced": 1, "sent": sent}
    assert len(mail_files(stack.settings.mail_dir)) == sent
    with stack.db.session() as session:
        beat = session.get(Heartbeat, "sweep")
        assert beat is not None
        assert (beat.info, beat.beat_at) == ({"now": (answered_at + period).isoformat(), "parts": list(PARTS)}, beat_at)
    assert task_log.of("deadmail.advance_window") == []  # recovered by the sweep itself

    # the next sweep finds nothing to do, and sends nothing twice
    after = snapshot(stack.db, created.game_id)
    assert sweep(worker, task_log, answered_at + 2 * period) == IDLE
    assert snapshot(stack.db, created.game_id) == after
    assert len(mail_files(stack.settings.mail_dir)) == sent


def test_the_sweep_defaults_missing_answers_at_the_deadline_and_leaves_other_windows(stack: Stack) -> None:
    late = create(stack.db, 3, seed=32, deadlines={"default": 3600}, avoid_quiet_hours=False)
    other = create(stack.db, 3, seed=33, deadlines={"default": 7200}, avoid_quiet_hours=False)
    window, others_window = open_window(stack.db, late.game_id), open_window(stack.db, other.game_id)
    assert window is not None and others_window is not None
    assert window.deadline == T0 + timedelta(hours=1)
    assert others_window.deadline == T0 + timedelta(hours=2)
    ids = seat_ids(stack.db, late.game_id)
    rows = list(window.requests)
    assert len(rows) == 3
    missing = rows[1].seat.colour
    for row in (rows[0], rows[2]):
        turns.submit_answer(stack.db, ids[row.seat.colour], row.kind, row.payload["options"][0], now=T0)
    before = {g: snapshot(stack.db, g) for g in (late.game_id, other.game_id)}

    assert turns.due_windows(stack.db, T0 + timedelta(minutes=59, seconds=59)) == []
    assert turns.sweep_windows(stack.db, T0 + timedelta(minutes=59, seconds=59)) == 0
    assert {g: snapshot(stack.db, g) for g in before} == before

    assert turns.sweep_windows(stack.db, T0 + timedelta(hours=1)) == 1

    assert snapshot(stack.db, other.game_id) == before[other.game_id]
    eng = check_game(stack.db, late.game_id)
    with stack.db.session() as session:
        game = session.get(Game, late.game_id)
        assert game is not None
        closed = [r for r in archive.requests_of(game.id, game.archive) if r.window.number == window.number]
        assert {r.closed_at for r in closed} == {T0 + timedelta(hours=1)}
        colours = {seat.id: seat.colour for seat in game.seats}
        got = [(colours[r.seat_id], r.defaulted, r.answer is None) for r in closed]
        defaulted = [e for e in stored_events(session, late.game_id) if e["type"] == "answer_defaulted"]
        assert defaulted == [{"type": "answer_defaulted", "player": missing, "kind": rows[1].kind}]
    assert got == [(r.seat.colour, r.seat.colour == missing, r.seat.colour == missing) for r in rows]
    assert eng.log[1] == {"player": missing, "kind": rows[1].kind, "timeout": True}
    second = open_window(stack.db, late.game_id)
    assert second is not None and second.deadline == T0 + timedelta(hours=2)

    # two hours in, both games' windows are due: the other game's is closed with every answer defaulted
    assert turns.sweep_windows(stack.db, T0 + timedelta(hours=2)) == 2
    check_game(stack.db, late.game_id)
    eng = check_game(stack.db, other.game_id)
    assert eng.log[:3] == [{"player": e["player"], "kind": e["kind"], "timeout": True} for e in eng.log[:3]]
    assert [e["player"] for e in eng.events if e["type"] == "answer_defaulted"] == [e["player"] for e in eng.log[:3]]


class Flaky:
    """A transport that fails ``failures`` times, then delivers (keeping what it delivered)."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.sent: list[EmailMessage] = []

    def send(self, message: EmailMessage, accepted: Callable[[], None]) -> None:
        if self.failures > 0:
            self.failures -= 1
            raise ConnectionRefusedError("mail server down")
        self.sent.append(message)
        accepted()


def test_mail_is_retried_with_back_off_kept_in_the_row_and_sent_once(stack: Stack) -> None:
    created = create(stack.db, 3, seed=34)
    row_id = outbox_ids(stack.db, created.game_id)[0]
    settings = stack.settings
    transport = Flaky(failures=2)

    assert send_one(stack.db, row_id, transport, settings, T0) == "retry"
    error = "ConnectionRefusedError: mail server down"
    assert outbox_rows(stack.db, created.game_id)[row_id] == ("pending", 1, T0 + timedelta(seconds=30), error)
    assert row_id not in outbox.due_rows(stack.db, T0 + timedelta(seconds=29))
    assert send_one(stack.db, row_id, transport, settings, T0 + timedelta(seconds=29)) == "skipped"

    at = T0 + timedelta(seconds=30)
    assert row_id in outbox.due_rows(stack.db, at)
    assert send_one(stack.db, row_id, transport, settings, at) == "retry"
    assert outbox_rows(stack.db, created.game_id)[row_id] == ("pending", 2, at + timedelta(seconds=60), error)

    at += timedelta(seconds=60)
    assert send_one(stack.db, row_id, transport, settings, at) == "sent"
    status, attempts, _, _ = outbox_rows(stack.db, created.game_id)[row_id]
    assert (status, attempts) == ("sent", 3)
    assert len(transport.sent) == 1
    assert send_one(stack.db, row_id, transport, settings, at + timedelta(hours=2)) == "skipped"
    assert row_id not in outbox.due_rows(stack.db, at + timedelta(days=1))
    assert len(transport.sent) == 1


def test_mail_failing_every_time_is_given_up_after_the_last_attempt(stack: Stack) -> None:
    created = create(stack.db, 3, seed=35)
    row_id = outbox_ids(stack.db, created.game_id)[0]
    settings = stack.settings
    transport = Flaky(failures=outbox.MAX_ATTEMPTS)
    at = T0
    for attempt in range(1, outbox.MAX_ATTEMPTS):
        assert send_one(stack.db, row_id, transport, settings, at) == "retry"
        status, attempts, next_at, _ = outbox_rows(stack.db, created.game_id)[row_id]
        assert (status, attempts, next_at) == ("pending", attempt, at + claims.backoff(attempt))
        at = next_at
    assert claims.backoff(1) == timedelta(seconds=30)
    assert claims.backoff(outbox.MAX_ATTEMPTS) == timedelta(hours=1)
    assert send_one(stack.db, row_id, transport, settings, at) == "failed"
    assert outbox_rows(stack.db, created.game_id)[row_id][:2] == ("failed", outbox.MAX_ATTEMPTS)
    assert row_id not in outbox.due_rows(stack.db, at + timedelta(days=30))
    assert transport.sent == []


def test_the_sweep_retries_mail_through_the_worker_until_it_works(
    stack: Stack, worker: Celery, task_log: TaskLog
) -> None:
    created = create(stack.db, 3, seed=36)
    folder = stack.settings.mail_dir
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("a file where the mail folder should be: every delivery fails")

    assert sweep(worker, task_log, T0) == IDLE
    rows = outbox_rows(stack.db, created.game_id)
    assert sorted(rows) == outbox_ids(stack.db, created.game_id)
    for status, attempts, next_at, error in rows.values():
        assert (status, attempts, next_at) == ("pending", 1, T0 + timedelta(seconds=30))
        assert error is not None and error.startswith("FileExistsError")

    assert sweep(worker, task_log, T0 + timedelta(seconds=29)) == IDLE
    assert {r[1] for r in outbox_rows(stack.db, created.game_id).values()} == {1}

    folder.unlink()  # the mail server is back
    assert sweep(worker, task_log, T0 + timedelta(seconds=30)) == IDLE | {"sent": 3}
    assert {r[:2] for r in outbox_rows(stack.db, created.game_id).values()} == {("sent", 2)}
    assert len(mail_files(folder)) == 3
    assert sweep(worker, task_log, T0 + timedelta(hours=1)) == IDLE
    assert len(mail_files(folder)) == 3


class WorkerLost(BaseException):
    """Stands for a worker killed mid-send: nothing of ``send_one`` after it runs (an ``Exception`` is a failed try)."""


class Crash:
    """A worker dying in the middle of a send: the row stays claimed ("sending")."""

    def send(self, message: EmailMessage, accepted: Callable[[], None]) -> None:
        raise WorkerLost


def test_rows_stuck_in_sending_are_released_after_ten_minutes(stack: Stack) -> None:
    created = create(stack.db, 3, seed=37)
    row_id, *others = outbox_ids(stack.db, created.game_id)
    settings = stack.settings
    with pytest.raises(WorkerLost):
        send_one(stack.db, row_id, Crash(), settings, T0)
    assert outbox_rows(stack.db, created.game_id)[row_id][:2] == ("sending", 1)

    assert outbox.due_rows(stack.db, T0 + timedelta(minutes=9, seconds=59)) == others
    assert outbox_rows(stack.db, created.game_id)[row_id][:2] == ("sending", 1)
    assert send_one(stack.db, row_id, Flaky(0), settings, T0 + timedelta(minutes=9)) == "skipped"

    at = T0 + timedelta(minutes=10)
    assert outbox.due_rows(stack.db, at) == sorted([row_id, *others])
    assert outbox_rows(stack.db, created.game_id)[row_id][:2] == ("pending", 1)
    transport = Flaky(0)
    assert send_one(stack.db, row_id, transport, settings, at) == "sent"
    assert outbox_rows(stack.db, created.game_id)[row_id][:2] == ("sent", 2)
    assert send_one(stack.db, row_id, transport, settings, at + timedelta(hours=1)) == "skipped"
    assert len(transport.sent) == 1


def test_a_row_that_keeps_dying_in_sending_fails_after_the_attempt_limit(stack: Stack) -> None:
    """Every claim is a try, also one whose worker died: a row stuck in sending at its last try is failed for good
    when it is released, never claimed and released for ever."""
    created = create(stack.db, 3, seed=38)
    row_id = outbox_ids(stack.db, created.game_id)[0]
    at = T0
    for attempt in range(1, outbox.MAX_ATTEMPTS + 1):
        assert row_id in outbox.due_rows(stack.db, at)
        with pytest.raises(WorkerLost):
            send_one(stack.db, row_id, Crash(), stack.settings, at)
        assert outbox_rows(stack.db, created.game_id)[row_id][:2] == ("sending", attempt)
        at += outbox.STUCK_AFTER
    assert row_id not in outbox.due_rows(stack.db, at)
    assert outbox_rows(stack.db, created.game_id)[row_id][::3] == ("failed", outbox.STUCK_ERROR)
    assert send_one(stack.db, row_id, Flaky(0), stack.settings, at + timedelta(days=1)) == "skipped"


class FailsAfterTheMark:
    """A transport that fails after it reported the mail taken (say, its connection breaks at QUIT)."""

    def __init__(self) -> None:
        self.sent: list[EmailMessage] = []

    def send(self, message: EmailMessage, accepted: Callable[[], None]) -> None:
        self.sent.append(message)
        accepted()
        raise ConnectionResetError("gone after the mail was accepted")


def test_a_failure_after_the_mark_leaves_the_row_sent(stack: Stack) -> None:
    created = create(stack.db, 3, seed=39)
    row_id = outbox_ids(stack.db, created.game_id)[0]
    transport = FailsAfterTheMark()
    assert send_one(stack.db, row_id, transport, stack.settings, T0) == "sent"
    assert outbox_rows(stack.db, created.game_id)[row_id][::3] == ("sent", None)
    assert row_id not in outbox.due_rows(stack.db, T0 + timedelta(days=1))
    assert len(transport.sent) == 1
