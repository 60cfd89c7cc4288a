"""Shared pytest configuration and fixtures for the server and worker tests.

Two setups, as deadmail runs: ``embedded`` (SQLite in WAL mode, kombu's filesystem broker) and ``production``
(PostgreSQL and Redis). Production tests need the services at DEADMAIL_TEST_PG and DEADMAIL_TEST_REDIS
(defaults: 127.0.0.1, database ``test``, user postgres); they skip with a reason when a service is missing,
except when DEADMAIL_REQUIRE_SERVICES=1 (set by .ci/run), where they fail.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from server.config import Settings
from server.db import Database
from server.run.migrate import upgrade
from server.run.queue import Queue
from server.web.app import create_app

PG_URL = os.environ.get("DEADMAIL_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("DEADMAIL_TEST_REDIS", "redis://127.0.0.1:6379/15")
REQUIRED = os.environ.get("DEADMAIL_REQUIRE_SERVICES") == "1"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rule(*ids): the RULES.md rule IDs a test checks")


def need(service: str, error: Exception | None) -> None:
    """Skip (or, on CI, fail) when a service the test needs cannot be reached."""
    if error is None:
        return
    message = f"{service} is not reachable ({type(error).__name__}: {error})"
    if REQUIRED:
        pytest.fail(f"{message}; DEADMAIL_REQUIRE_SERVICES=1 says it must be", pytrace=False)
    pytest.skip(message)


def _pg_admin() -> Any:
    import sqlalchemy as sa

    return sa.create_engine(PG_URL, isolation_level="AUTOCOMMIT")


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    import sqlalchemy as sa

    name = f"dm_test_{uuid.uuid4().hex[:12]}"
    admin = _pg_admin()
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        admin.dispose()
        need("PostgreSQL", exc)
    url = PG_URL.rsplit("/", 1)[0] + f"/{name}"
    yield url
    with admin.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def redis_url() -> Iterator[str]:
    """Redis database 15 (by default). Never emptied: test runs may share it (each test has its own queue names,
    see ``_stack``); a test's own keys are deleted after it by the ``stack`` fixture."""
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except Exception as exc:
        need("Redis", exc)
    finally:
        client.close()
    yield REDIS_URL


@dataclass
class Stack:
    """One deadmail installation for a test: settings, a migrated database, the web app and its client.

    ``db`` asks for no task after a commit (a service a test calls directly kicks nothing, like a lost message; the
    sweep or the test advances); the app's database (``web_db``) hands its work to the real task queue."""

    name: str
    settings: Settings
    db: Database
    app: Flask
    client: FlaskClient

    @property
    def web_db(self) -> Database:
        db: Database = self.app.extensions["deadmail"].db
        return db


def _stack(name: str, tmp_path: Path, database_url: str, broker_url: str, **overrides: Any) -> Stack:
    env = {
        "DEADMAIL_DATA_DIR": str(tmp_path / "data"),
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": broker_url,
        "DEADMAIL_SECRET_KEY": "test-secret-key",
        "DEADMAIL_API_TOKEN": "test-api-token",
        "DEADMAIL_BASE_URL": "http://deadmail.test",
        "DEADMAIL_QUEUE": f"deadmail-test-{uuid.uuid4().hex[:8]}",  # runs sharing a broker never meet
    }
    settings = Settings.from_env(env, **overrides)
    upgrade(settings.database_url)
    db = Database(settings.database_url)
    app = create_app(settings, db.with_tasks(Queue(settings)))
    app.config["TESTING"] = True
    return Stack(name, settings, db, app, app.test_client())


@pytest.fixture(params=["embedded", "production"])
def stack(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stack]:
    """The same test on both setups: SQLite + filesystem broker, and PostgreSQL + Redis."""
    if request.param == "embedded":
        built = _stack("embedded", tmp_path, f"sqlite:///{tmp_path / 'deadmail.db'}", "filesystem://")
    else:
        pg = request.getfixturevalue("postgres_url")
        broker = request.getfixturevalue("redis_url")
        built = _stack("production", tmp_path, pg, broker)
    yield built
    built.db.dispose()
    if request.param == "production":
        import redis

        client = redis.Redis.from_url(built.settings.broker_url)
        keys = list(client.scan_iter(match=f"*{built.settings.queue}*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[Stack]:
    """Only the embedded setup (fast tests that do not depend on the database or broker kind)."""
    built = _stack("embedded", tmp_path, f"sqlite:///{tmp_path / 'deadmail.db'}", "filesystem://")
    yield built
    built.db.dispose()


@contextmanager
def running_worker(settings: Settings) -> Iterator[Any]:
    """A real Celery worker, in-process (celery.contrib.testing), consuming the broker of ``settings``."""
    from celery.contrib.testing.worker import start_worker

    from worker.app import make_celery

    app = make_celery(settings)
    with start_worker(
        app, pool="threads", concurrency=2, perform_ping_check=False, loglevel="WARNING", shutdown_timeout=20
    ):
        yield app


@pytest.fixture
def worker(stack: Stack) -> Iterator[Any]:
    """A real Celery worker, in-process, consuming the stack's broker."""
    with running_worker(stack.settings) as app:
        yield app
