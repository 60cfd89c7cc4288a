"""The broker's Redis stops while a game runs: answers arrive through the web for a whole window
and every one is taken, seat pages open, and once Redis is back the window advances and the next one opens.
PostgreSQL, a Redis of the test's own (started, stopped and started again on the same port) and a real worker."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import redis
from sqlalchemy import select

from server.models import RequestRow
from server.run.queue import SEND
from tests.conftest import Stack, _stack, running_worker
from tests.support import api_game, check_game, free_port, open_window, people, seat_ids, stored_events, sweep
from tests.waiting import wait_for

from .conftest import TaskLog


class RedisServer:
    """``redis-server`` on its own port, without persistence; stopped and started again on the same port."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(
            [*args, "--dir", str(self.folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_for(self.answers, 10, f"redis-server on port {self.port}")

    def answers(self) -> bool:
        client = redis.Redis(port=self.port, socket_connect_timeout=1)
        try:
            return bool(client.ping())
        except redis.ConnectionError:
            return False
        finally:
            client.close()

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None
        assert not self.answers()

    def keys(self, pattern: str) -> list[bytes]:
        client = redis.Redis(port=self.port)
        try:
            return list(client.scan_iter(match=pattern))
        finally:
            client.close()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    try:
        subprocess.run(["redis-server", "--version"], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"redis-server cannot be started ({exc})")
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def outage_stack(tmp_path: Path, postgres_url: str, own_redis: RedisServer) -> Iterator[Stack]:
    """PostgreSQL and the test's own Redis, as broker and as the rate limits' storage."""
    stack = _stack("production", tmp_path, postgres_url, own_redis.url)
    yield stack
    stack.db.dispose()


@pytest.fixture
def outage_worker(outage_stack: Stack) -> Iterator[Any]:
    with running_worker(outage_stack.settings) as app:
        yield app


# Celery warns on every lost broker connection while worker_cancel_long_running_tasks_on_connection_loss is False,
# which worker/app.py chooses on purpose; the outage is what this test is about
@pytest.mark.long(11)
@pytest.mark.filterwarnings("ignore:.*worker_cancel_long_running_tasks_on_connection_loss")
def test_answers_are_taken_while_redis_is_down_and_the_window_advances_after(
    outage_stack: Stack, own_redis: RedisServer, outage_worker: Any, task_log: TaskLog
) -> None:
    stack = outage_stack
    made = api_game(stack.client, people(4), seed=11)
    window = open_window(stack.db, made.id)
    assert window is not None and window.number == 1
    token = made.tokens["yellow"]
    assert stack.client.get(f"/s/{token}").status_code == 200
    assert own_redis.keys(f"*{stack.settings.queue}*links*")  # the rate limits are counted in this Redis
    task_log.wait(SEND, 1)  # the game's first mails (one task) are sent before the outage: no task runs across it

    own_redis.stop()

    started = time.monotonic()
    for row in window.requests:
        seat = made.tokens[row.seat.colour]
        assert stack.client.get(f"/s/{seat}").status_code == 200
        assert stack.client.get(f"/api/seat/{seat}").status_code == 200
        body = {"kind": row.kind, "answer": row.payload["options"][0], "window": window.number}
        taken = stack.client.post(f"/api/seat/{seat}/answer", json=body)
        assert taken.status_code == 200, taken.get_data(as_text=True)
        assert taken.json is not None and taken.json["ok"] is True
    assert taken.json["complete"] is True
    assert time.monotonic() - started < 30  # no request waited for the broker
    ids = seat_ids(stack.db, made.id)
    with stack.db.session() as session:
        rows = session.execute(select(RequestRow).where(RequestRow.window_id == window.id)).scalars()
        stored = {r.seat_id: r.answer for r in rows}
    assert stored == {ids[r.seat.colour]: r.payload["options"][0] for r in window.requests}
    still = open_window(stack.db, made.id)
    assert still is not None and still.number == 1  # its kick was lost with the broker: the sweep will advance it
    assert stack.client.get(f"/s/{token}").status_code == 200

    own_redis.start()

    # beat's next sweep, through the broker to the worker once it has reconnected (it retries every few seconds)
    result = sweep(outage_worker, task_log, datetime.now(UTC), timeout=90)
    assert result["advanced"] == 1
    after = open_window(stack.db, made.id)
    assert after is not None and after.number == 2
    eng = check_game(stack.db, made.id)
    assert not any(e["type"] == "answer_defaulted" for e in eng.events)
    with stack.db.session() as session:
        assert not any(e["type"] == "answer_defaulted" for e in stored_events(session, made.id))
    assert stack.client.get(f"/api/seat/{token}").json["window"]["number"] == 2


def _commands(server: RedisServer) -> dict[str, int]:
    client = redis.Redis(port=server.port)
    try:
        return {name: int(stat["calls"]) for name, stat in client.info("commandstats").items()}
    finally:
        client.close()


def test_an_answer_costs_the_shared_redis_one_command(outage_stack: Stack, own_redis: RedisServer) -> None:
    """The answers' rate limit is one increment in Redis per answer (issue 29: the moving window took two scripts,
    the hit and the window read again for the headers): counted by the test's own Redis server."""
    stack = outage_stack
    made = api_game(stack.client, people(3))
    window = open_window(stack.db, made.id)
    assert window is not None
    row = window.requests[0]
    path = f"/api/seat/{made.tokens[row.seat.colour]}/answer"
    options = row.payload["options"]
    stack.client.post(path, json={"kind": row.kind, "answer": options[0], "window": window.number})  # (scripts loaded)
    before = _commands(own_redis)
    for i in range(10):
        answer = options[i % 2] if len(options) > 1 else options[0]
        reply = stack.client.post(path, json={"kind": row.kind, "answer": answer, "window": window.number})
        assert reply.status_code == 200
    after = _commands(own_redis)
    spent = {name: after[name] - before.get(name, 0) for name in after if after[name] != before.get(name, 0)}
    for own in ("cmdstat_info", "cmdstat_hello"):  # (this test's own questions)
        spent.pop(own, None)
    # one round trip an answer: the script, and the increment it runs (counted too)
    assert spent == {"cmdstat_evalsha": 10, "cmdstat_incrby": 10}, spent
