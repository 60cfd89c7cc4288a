"""The fault test's mail half (PostgreSQL + Redis, a real worker, a real SMTP server): the sender is cut
off between the SMTP server's acceptance of a mail and the mark that records it. Here the database goes down just
as the server accepts (the SMTP server stops the test's own PostgreSQL cluster before it answers DATA with 250;
the shared PostgreSQL is never touched). The mail is not lost; it is sent again after ``outbox.STUCK_AFTER``, with
the same Message-ID, once the database is back (its restart costs the worker nothing: a pooled connection in doubt
is pinged before use, server/db.py)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest
import redis
from aiosmtpd.controller import Controller
from celery.contrib.testing.worker import start_worker

from server.models import OutboxStatus, utcnow
from server.run.queue import SEND
from server.services.mailflow import outbox
from tests.conftest import _stack
from tests.own_postgres import OwnPostgres, own_postgres
from tests.support import FROM, create, free_port, outbox_ids, rows_of, sweep
from worker.app import make_celery

from .conftest import TaskLog

HOST = "127.0.0.1"


class CuttingOffHandler:
    """Accepts every mail; the first time, it stops the database before it answers 250 to DATA."""

    def __init__(self, cluster: OwnPostgres) -> None:
        self.cluster = cluster
        self.accepted: list[bytes] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.accepted.append(envelope.content)
        if len(self.accepted) == 1:
            self.cluster.stop()  # the worker's mark, right after this 250, finds no database
        return "250 2.0.0 queued"


@pytest.fixture
def cluster() -> Iterator[OwnPostgres]:
    with own_postgres() as started:
        yield started


def message_id(raw: bytes) -> str:
    return str(message_from_bytes(raw, policy=policy.default)["Message-ID"])


def test_a_sender_cut_off_between_smtp_accept_and_the_mark_sends_again_with_the_same_message_id(
    tmp_path: Path, cluster: OwnPostgres, redis_url: str, task_log: TaskLog
) -> None:
    handler = CuttingOffHandler(cluster)
    smtp = Controller(handler, hostname=HOST, port=free_port())
    smtp.start()
    stack = _stack("production", tmp_path, cluster.url, redis_url)
    settings = replace(stack.settings, smtp_url=f"smtp://{HOST}:{smtp.port}?timeout=10", mail_from=FROM)
    db = stack.db
    now = utcnow()  # the worker's tasks use the wall clock
    ids = outbox_ids(db, create(db, 3, seed=61, now=now).game_id)
    app = make_celery(settings)
    try:
        with start_worker(app, pool="threads", concurrency=1, perform_ping_check=False, loglevel="CRITICAL"):
            app.send_task(SEND, args=[ids[0]])
            (sent,) = task_log.wait(SEND, 1)
            assert sent.retval == "unrecorded"  # accepted by the server, not recorded: the database was down
            assert len(handler.accepted) == 1
            cluster.start()
            status = {r.id: (r.status, r.attempts) for r in rows_of(db, ids)}
            assert status == {ids[0]: ("sending", 1), ids[1]: ("pending", 0), ids[2]: ("pending", 0)}

            at = utcnow() + outbox.STUCK_AFTER + timedelta(minutes=1)
            swept = sweep(app, task_log, at)
        assert swept["sent"] == 3 and swept["advanced"] == 0
        statuses = [(r.status, r.attempts) for r in rows_of(db, ids)]
    finally:
        smtp.stop()
        db.dispose()
        client = redis.Redis.from_url(redis_url)
        keys = list(client.scan_iter(match=f"*{settings.queue}*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()
    assert statuses == [(OutboxStatus.SENT, 2), (OutboxStatus.SENT, 1), (OutboxStatus.SENT, 1)]
    first, *others = [message_id(raw) for raw in handler.accepted]
    assert len(others) == 3
    assert others.count(first) == 1  # the one copy: the same Message-ID
    assert len(set(others)) == 3
