"""The same advance run twice is applied once, through the broker and called directly; a duplicate mail task sends
one mail."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from celery import Celery
from sqlalchemy import select, update

from server.db import Database
from server.mail.send import send_one
from server.mail.transports import FileTransport
from server.models import Game, Outbox, Window
from server.run.queue import ADVANCE, SEND
from server.services.mailflow import outbox
from server.services.play import turns
from tests.conftest import Stack
from tests.support import T0, check_game, create, every_window, mail_files, open_window, outbox_ids, seat_ids, snapshot

from .conftest import TaskLog

#: an instant long past for any clock: mail written then is due for the worker, which sends at its own "now"
PAST = datetime(2021, 6, 1, 12, 0, tzinfo=UTC)


def answer_all(db: Database, game_id: int) -> int:
    """Every seat gives its first legal choice (``db`` asks for no advance); returns the now complete window's id."""
    window = open_window(db, game_id)
    assert window is not None
    ids = seat_ids(db, game_id)
    for row in window.requests:
        done = turns.submit_answer(db, ids[row.seat.colour], row.kind, row.payload["options"][0], now=T0)
    assert done.complete
    return window.id


def test_the_same_advance_task_twice_through_the_broker_is_applied_once(
    stack: Stack, worker: Celery, task_log: TaskLog
) -> None:
    created = create(stack.db, 4, seed=21)
    window_id = answer_all(stack.db, created.game_id)
    before = snapshot(stack.db, created.game_id)

    worker.send_task(ADVANCE, args=[window_id])
    worker.send_task(ADVANCE, args=[window_id])
    task_log.wait(ADVANCE, 2)

    after = snapshot(stack.db, created.game_id)
    assert after["version"] == before["version"] + 1
    assert [w[:2] for w in after["windows"]] == [(1, "closed"), (2, "open")]
    check_game(stack.db, created.game_id)
    new_mail = [key for (key,) in after["outbox"] if key.startswith("turn:") and (key,) not in before["outbox"]]
    second = open_window(stack.db, created.game_id)
    assert second is not None
    assert len(new_mail) == len(second.requests) >= 1
    # the advance that applied queued one mail task for its new rows (sent over one connection); the duplicate none
    (send,) = task_log.wait(SEND, 1)
    assert sorted(send.retval.values()) == ["sent"] * len(new_mail)
    assert len(mail_files(stack.settings.mail_dir)) == len(new_mail)

    # and once more, called directly: the task function and the service do nothing
    worker.tasks[ADVANCE](window_id)
    assert turns.advance_window(stack.db, window_id, T0) is False
    assert snapshot(stack.db, created.game_id) == after
    assert len(task_log.of(SEND)) == 1


def test_the_advance_service_called_twice_applies_once(stack: Stack) -> None:
    created = create(stack.db, 3, seed=22)
    window_id = answer_all(stack.db, created.game_id)
    before = snapshot(stack.db, created.game_id)

    first = turns.advance_window(stack.db, window_id, T0)
    middle = snapshot(stack.db, created.game_id)
    second = turns.advance_window(stack.db, window_id, T0)

    assert first is True
    assert second is False
    assert snapshot(stack.db, created.game_id) == middle
    assert middle["version"] == before["version"] + 1
    assert len(middle["events"]) > len(before["events"])
    assert len(middle["outbox"]) > len(before["outbox"])  # the new window's turn notices
    assert [w[:2] for w in middle["windows"]] == [(1, "closed"), (2, "open")]
    check_game(stack.db, created.game_id)


def test_two_advances_of_one_window_at_the_same_instant_apply_it_once(stack: Stack) -> None:
    created = create(stack.db, 5, seed=23)
    window_id = answer_all(stack.db, created.game_id)
    barrier = threading.Barrier(8)

    def advance(_: int) -> bool:
        barrier.wait(timeout=30)
        return turns.advance_window(stack.db, window_id, T0)

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(advance, range(8)))

    assert results.count(True) == 1 and results.count(False) == 7
    after = snapshot(stack.db, created.game_id)
    assert after["version"] == 2
    assert [w[:2] for w in after["windows"]] == [(1, "closed"), (2, "open")]
    check_game(stack.db, created.game_id)


def test_a_duplicate_mail_task_sends_one_mail(stack: Stack, worker: Celery, task_log: TaskLog) -> None:
    created = create(stack.db, 3, seed=24, now=PAST)  # its mail is due for the worker's clock
    first, *others = outbox_ids(stack.db, created.game_id)

    worker.send_task(SEND, args=[first])
    worker.send_task(SEND, args=[first])
    runs = task_log.wait(SEND, 2)

    assert sorted(r.retval for r in runs) == ["sent", "skipped"]
    assert len(mail_files(stack.settings.mail_dir)) == 1
    with stack.db.session() as session:
        row = session.get(Outbox, first)
        assert row is not None
        assert (row.status, row.attempts, row.last_error) == ("sent", 1, None)
        pending = session.execute(select(Outbox.id).where(Outbox.status == "pending")).scalars().all()
    assert sorted(pending) == others


def test_send_one_called_twice_sends_once(stack: Stack) -> None:
    created = create(stack.db, 3, seed=25)
    first, *others = outbox_ids(stack.db, created.game_id)
    transport = FileTransport(stack.settings.mail_dir)

    assert send_one(stack.db, first, transport, stack.settings, T0) == "sent"
    assert send_one(stack.db, first, transport, stack.settings, T0) == "skipped"
    assert len(mail_files(stack.settings.mail_dir)) == 1
    assert outbox.due_rows(stack.db, T0) == others


def test_a_window_out_of_step_with_the_engine_is_replaced_not_left_stuck(embedded: Stack) -> None:
    """Should a stored window ever disagree with the engine's state, the advance reopens the engine's window."""
    game_id = create(embedded.db, 3, seed=3).game_id
    window = open_window(embedded.db, game_id)
    assert window is not None
    with embedded.db.session() as session:
        session.execute(update(Window).where(Window.id == window.id).values(number=99))  # out of step
    assert turns.advance_window(embedded.db, window.id, now=window.deadline) is True
    with embedded.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        windows, requests = every_window(session, game)
        assert [(w.number, w.status) for w in windows] == [(99, "closed"), (1, "open")]
        assert len([r for number, r in requests if number == 1]) == 3
