"""The same advance run twice is applied once, through the broker and called directly; a duplicate mail task sends
one mail (issue 3: "a test where the same advance task runs twice: applied once")."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from sqlalchemy import select

from server.models import Outbox, utcnow
from server.queue import ADVANCE, SEND
from server.services import outbox, turns

from .conftest import TaskLog
from .support import T0, check_game, create, open_window, seat_ids, snapshot


def answer_all(db: Any, game_id: int) -> int:
    """Every seat gives its first legal choice, with no kick sent; returns the (now complete) window's id."""
    window = open_window(db, game_id)
    ids = seat_ids(db, game_id)
    for row in window.requests:
        done = turns.submit_answer(db, ids[row.seat.colour], row.kind, row.payload["options"][0], now=T0, kick=None)
    assert done.complete
    return int(window.id)


def mail_files(stack: Any) -> list[Path]:
    folder = stack.settings.mail_dir
    return sorted(folder.glob("*.eml")) if folder.exists() else []


def test_the_same_advance_task_twice_through_the_broker_is_applied_once(
    stack: Any, worker: Any, task_log: TaskLog
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
    assert len(new_mail) == len(open_window(stack.db, created.game_id).requests) >= 1
    # the advance that applied queued one mail task per new row; the duplicate queued none
    sends = task_log.wait(SEND, len(new_mail))
    assert sorted(r.retval for r in sends) == ["sent"] * len(new_mail)
    assert len(mail_files(stack)) == len(new_mail)

    # and once more, called directly: the task function and the service do nothing
    assert worker.tasks[ADVANCE](window_id) is None
    assert turns.advance_window(stack.db, window_id, T0) is None
    assert snapshot(stack.db, created.game_id) == after
    assert len(task_log.of(SEND)) == len(new_mail)


def test_the_advance_service_called_twice_applies_once(stack: Any) -> None:
    created = create(stack.db, 3, seed=22)
    window_id = answer_all(stack.db, created.game_id)
    before = snapshot(stack.db, created.game_id)

    first = turns.advance_window(stack.db, window_id, T0)
    middle = snapshot(stack.db, created.game_id)
    second = turns.advance_window(stack.db, window_id, T0)

    assert first is not None and len(first) >= 1
    assert second is None
    assert snapshot(stack.db, created.game_id) == middle
    assert middle["version"] == before["version"] + 1
    assert len(middle["events"]) > len(before["events"])
    assert [w[:2] for w in middle["windows"]] == [(1, "closed"), (2, "open")]
    check_game(stack.db, created.game_id)


def test_two_advances_of_one_window_at_the_same_instant_apply_it_once(stack: Any) -> None:
    created = create(stack.db, 5, seed=23)
    window_id = answer_all(stack.db, created.game_id)
    barrier = threading.Barrier(8)

    def advance(_: int) -> list[int] | None:
        barrier.wait(timeout=30)
        return turns.advance_window(stack.db, window_id, T0)

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(advance, range(8)))

    assert sum(r is not None for r in results) == 1
    after = snapshot(stack.db, created.game_id)
    assert after["version"] == 2
    assert [w[:2] for w in after["windows"]] == [(1, "closed"), (2, "open")]
    check_game(stack.db, created.game_id)


def test_a_duplicate_mail_task_sends_one_mail(stack: Any, worker: Any, task_log: TaskLog) -> None:
    created = create(stack.db, 3, seed=24, now=utcnow())  # its mail is due now, for the worker's clock
    row_id = created.outbox_ids[0]

    worker.send_task(SEND, args=[row_id])
    worker.send_task(SEND, args=[row_id])
    runs = task_log.wait(SEND, 2)

    assert sorted(r.retval for r in runs) == ["sent", "skipped"]
    assert len(mail_files(stack)) == 1
    with stack.db.session() as session:
        row = session.get(Outbox, row_id)
        assert row is not None
        assert (row.status, row.attempts, row.last_error) == ("sent", 1, None)
        pending = session.execute(select(Outbox.id).where(Outbox.status == "pending")).scalars().all()
    assert sorted(pending) == sorted(created.outbox_ids[1:])


def test_send_one_called_twice_sends_once(stack: Any) -> None:
    created = create(stack.db, 3, seed=25)
    row_id = created.outbox_ids[0]
    transport = outbox.FileTransport(stack.settings.mail_dir)
    settings = outbox.MailSettings(stack.settings.secret_key, stack.settings.base_url)

    assert outbox.send_one(stack.db, row_id, transport, settings, T0) == "sent"
    assert outbox.send_one(stack.db, row_id, transport, settings, T0) == "skipped"
    assert len(mail_files(stack)) == 1
    assert outbox.due_rows(stack.db, T0) == sorted(created.outbox_ids[1:])


def test_a_window_out_of_step_with_the_engine_is_replaced_not_left_stuck(embedded: Any) -> None:
    """Should a stored window ever disagree with the engine's state, the advance reopens the engine's window."""
    from sqlalchemy import select, update

    from server.models import Window
    from server.services import games, turns

    spec = games.GameSpec(players=[games.parse_player(f"P{i} <p{i}@example.org>") for i in range(3)], seed=3)
    game_id = games.create_game(embedded.db, spec).game_id
    with embedded.db.session() as session:
        window = session.execute(select(Window).where(Window.game_id == game_id)).scalar_one()
        session.execute(update(Window).where(Window.id == window.id).values(number=99))  # out of step
        window_id, deadline = window.id, window.deadline
    assert turns.advance_window(embedded.db, window_id, now=deadline) is not None
    with embedded.db.session() as session:
        rows = session.execute(select(Window).where(Window.game_id == game_id).order_by(Window.id)).scalars().all()
        assert [(w.number, w.status) for w in rows] == [(99, "closed"), (1, "open")]
        assert len(rows[1].requests) == 3
