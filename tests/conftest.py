"""Shared pytest configuration and fixtures for the server and worker tests.

Two setups, as deadmail runs: ``embedded`` (SQLite in WAL mode, kombu's filesystem broker) and ``production``
(PostgreSQL and Redis). Production tests need the services at DEADMAIL_TEST_PG and DEADMAIL_TEST_REDIS
(defaults: 127.0.0.1, database ``test``, user postgres). Each service is probed once per session; when one is
missing its tests skip quietly and the summary says so in one line per service (not one per test), except when
DEADMAIL_REQUIRE_SERVICES=1 (set by .ci/run), where they fail.
"""

from __future__ import annotations

import functools
import gc
import itertools
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.routing import Rule

from server.config import Settings, prepare_data_dir
from server.db import Database
from server.run.migrate import upgrade
from server.run.queue import Queue
from server.web.app import create_app

PG_URL = os.environ.get("DEADMAIL_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("DEADMAIL_TEST_REDIS", "redis://127.0.0.1:6379/15")
REQUIRED = os.environ.get("DEADMAIL_REQUIRE_SERVICES") == "1"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rule(*ids): the RULES.md rule IDs a test checks")
    config.addinivalue_line("markers", "long(seconds): a test that takes about that long in a whole run (run first)")
    config.addinivalue_line(
        "markers",
        "alone: a test of timing that four parallel workers disturb (a Ctrl+C that stops at once): skipped in an xdist "
        "worker, run by the test command's second part, `python -m pytest -n 0 -m alone`",
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("alone") is not None and hasattr(item.config, "workerinput"):
        pytest.skip("runs alone: `python -m pytest -n 0 -m alone` (the test command's second part)")


# --- the garbage collector --------------------------------------------------------------------------------------------
# Every test builds an app, a database engine and a client, and a test process keeps its modules, its collected tests
# and the shared caches below: CPython's default thresholds (700, 10, 10) made the collector walk that whole heap so
# often that it took about a third of the server tests' CPU (test_api_leagues and test_organise, -n 0: 20-23 s, 12-13
# s with this). It runs less often here, and what exists once the tests are collected is frozen out of its walks.
gc.set_threshold(50_000, 20, 100)


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.collect()
    gc.freeze()


# --- the long tests first ---------------------------------------------------------------------------------------------
# pytest-xdist's work stealing hands each of its N workers one contiguous share of the collection, and an idle worker
# steals from the end of a busy one's share. A test of a minute that comes late ends the run alone, a minute after the
# others. So each share starts with long tests (``long(seconds)``, spread to balance the shares), then the rest in
# order: what is left at the end is short, and stealing evens it out.


def _shares(count: int, workers: int) -> list[int]:
    """The sizes of the shares xdist's ``WorkStealingScheduling`` sends ``workers`` idle workers from ``count``."""
    sizes = []
    for i in range(workers):
        sizes.append((count - sum(sizes)) // (workers - i))
    return sizes


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if not hasattr(config, "workerinput") or workers < 2:
        return  # (not an xdist worker: the order stays)
    weights = {item: marker.args[0] for item in items if (marker := item.get_closest_marker("long")) is not None}
    rest = iter([item for item in items if item not in weights])
    firsts: list[list[pytest.Item]] = [[] for _ in range(workers)]
    loads = [0.0] * workers
    for item in sorted(weights, key=lambda i: -weights[i]):  # (a stable sort: equal weights keep their order)
        least = loads.index(min(loads))
        firsts[least].append(item)
        loads[least] += weights[item]
    ordered: list[pytest.Item] = []
    for first, size in zip(firsts, _shares(len(items), workers), strict=True):
        ordered += first + list(itertools.islice(rest, max(0, size - len(first))))
    items[:] = ordered + list(rest)


class ServiceMissing(pytest.skip.Exception):
    """A test skipped because a service it needs is missing (reported at one place: ``pytest_runtest_makereport``)."""


def need(service: str, error: Exception | str | None) -> None:
    """Skip (or, on CI, fail) when a service the test needs cannot be reached."""
    if error is None:
        return
    if isinstance(error, Exception):
        error = f"{service} is not reachable ({type(error).__name__}: {_first_line(error)})"
    if REQUIRED:
        pytest.fail(f"{error}; DEADMAIL_REQUIRE_SERVICES=1 says it must be", pytrace=False)
    raise ServiceMissing(error)


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [""])[0][:200]


#: the variable that says where each test service is
SERVICES = {"PostgreSQL": ("DEADMAIL_TEST_PG", PG_URL), "Redis": ("DEADMAIL_TEST_REDIS", REDIS_URL)}


@functools.cache
def missing(service: str) -> str | None:
    """Why ``service`` ("PostgreSQL" or "Redis") cannot be used, probed once per session; None when it answers."""
    variable, url = SERVICES[service]
    try:
        if service == "PostgreSQL":
            import sqlalchemy as sa

            engine = sa.create_engine(url, connect_args={"connect_timeout": 3})
            try:
                with engine.connect() as conn:
                    conn.execute(sa.text("SELECT 1"))
            finally:
                engine.dispose()
        else:
            import redis

            client = redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3)
            try:
                client.ping()
            finally:
                client.close()
    except Exception as exc:
        from sqlalchemy.engine import make_url

        where = make_url(url).render_as_string(hide_password=True) if service == "PostgreSQL" else url
        cause = getattr(exc, "orig", None) or exc  # SQLAlchemy's wrapper adds lines of its own
        return f"{service} not reachable at {where} ({type(cause).__name__}: {_first_line(cause)}): set {variable}"
    return None


def need_service(service: str) -> None:
    """Skip (or, on CI, fail) unless ``service`` ("PostgreSQL" or "Redis") answered the session's probe."""
    need(service, missing(service))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A test skipped for a missing service is reported at ``need``, not at the test: pytest's summary then folds
    the skips of one service into one line ("SKIPPED [57] tests/conftest.py:…: PostgreSQL not reachable at …")."""
    report = yield
    if report.skipped and call.excinfo is not None and isinstance(call.excinfo.value, ServiceMissing):
        report.longrepr = (__file__, need.__code__.co_firstlineno, f"Skipped: {call.excinfo.value.msg}")
    return report


#: a file to which each test appends its CPU seconds (this process's and its reaped children's), wall seconds and id:
#: where the suite's CPU goes (docs/PERFORMANCE.md, "The test suite"); unset, nothing is measured
CPU_REPORT = os.environ.get("DEADMAIL_TEST_CPU_REPORT")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    if not CPU_REPORT:
        return (yield)
    before, started = os.times(), time.monotonic()
    try:
        return (yield)
    finally:
        after = os.times()
        cpu = sum(after[:4]) - sum(before[:4])
        with open(CPU_REPORT, "a", encoding="utf-8") as report:
            report.write(f"{cpu:.2f}\t{time.monotonic() - started:.2f}\t{item.nodeid}\n")


def _pg_admin() -> Any:
    import sqlalchemy as sa

    return sa.create_engine(PG_URL, isolation_level="AUTOCOMMIT")


def _pg_url(name: str) -> str:
    return PG_URL.rsplit("/", 1)[0] + f"/{name}"


def _create_database(template: str | None = None) -> str:
    """A new PostgreSQL database (empty, or a copy of ``template``): its name."""
    import sqlalchemy as sa

    need_service("PostgreSQL")
    name = f"dm_test_{uuid.uuid4().hex[:12]}"
    admin = _pg_admin()
    copy = f' TEMPLATE "{template}"' if template else ""
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"{copy}'))
    except Exception as exc:
        need("PostgreSQL", exc)
    finally:
        admin.dispose()
    return name


def _drop_database(name: str) -> None:
    import sqlalchemy as sa

    admin = _pg_admin()
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


@contextmanager
def _pg_database(template: str | None = None) -> Iterator[str]:
    """A new PostgreSQL database (empty, or a copy of ``template``) for one test, dropped afterwards."""
    name = _create_database(template)
    try:
        yield _pg_url(name)
    finally:
        _drop_database(name)


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    with _pg_database() as url:
        yield url


# --- migrated once per session ---------------------------------------------------------------------------------------
# Running every Alembic migration takes about two seconds; a test's database is a copy of one migrated per test
# session (per xdist worker): a file copy for SQLite; for PostgreSQL, ``CREATE DATABASE ... TEMPLATE`` once per
# database of the process's pool, each emptied after its test for the next (``PostgresPool``). That the
# migrations build the models' schema is proved by tests/server/test_migrations.py, which migrates for itself.


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to the latest schema once per session."""
    path = tmp_path_factory.mktemp("template") / "deadmail.db"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    """The name of a PostgreSQL database migrated once per session, copied by each production test (nobody connects
    to it after the migration: PostgreSQL copies only a template without connections)."""
    with _pg_database() as url:
        upgrade(url)
        yield url.rsplit("/", 1)[1]


class PostgresPool:
    """This test process's migrated PostgreSQL databases. A test takes one (a new copy of the template when none is
    free) and gives it back emptied as a new copy is: its other connections ended, the rows of every table but
    ``alembic_version`` deleted, every sequence back at its start. Copying the template cost PostgreSQL 0.1 s of CPU
    per test (``CREATE DATABASE`` writes the whole catalog again); emptying a test's few rows costs milliseconds. A
    database that cannot be emptied is dropped, never handed on."""

    def __init__(self, template: str) -> None:
        self.template = template
        self.free: list[str] = []
        self.made: list[str] = []

    def take(self) -> str:
        if self.free:
            return self.free.pop()
        self.made.append(_create_database(self.template))
        return self.made[-1]

    def give_back(self, name: str) -> None:
        try:
            empty_database(_pg_url(name))
        except Exception:
            self.made.remove(name)
            _drop_database(name)
            raise
        self.free.append(name)

    def close(self) -> None:
        for name in self.made:
            _drop_database(name)


def empty_database(url: str) -> None:
    """End the other connections to the database at ``url``, delete the rows of its tables (but the schema's
    version) and restart its sequences, in one transaction."""
    import sqlalchemy as sa

    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as conn:
            ours = "datname = current_database() AND pid <> pg_backend_pid()"
            conn.exec_driver_sql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE {ours}")
            conn.exec_driver_sql("SET LOCAL session_replication_role = replica")  # (no foreign key checks)
            tables = conn.exec_driver_sql(
                "SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = 'public'"
                " AND tablename <> 'alembic_version'"
            ).scalars()
            for table in list(tables):
                conn.exec_driver_sql(f"DELETE FROM {table}")
            conn.exec_driver_sql(
                "SELECT setval((quote_ident(schemaname) || '.' || quote_ident(sequencename))::regclass,"
                " start_value, false) FROM pg_sequences WHERE schemaname = 'public'"
            )
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def postgres_pool(postgres_template: str) -> Iterator[PostgresPool]:
    pool = PostgresPool(postgres_template)
    yield pool
    pool.close()


@pytest.fixture
def migrated_postgres_url(postgres_pool: PostgresPool) -> Iterator[str]:
    """A PostgreSQL database at the latest schema for one test, as a new copy of the session's template is (from
    ``PostgresPool``)."""
    name = postgres_pool.take()
    yield _pg_url(name)
    postgres_pool.give_back(name)


def migrated_sqlite_url(template: Path, folder: Path) -> str:
    """A SQLite database at the latest schema in ``folder`` (a copy of the session's template), private as
    ``upgrade`` makes it."""
    path = folder / "deadmail.db"
    shutil.copyfile(template, path)
    path.chmod(0o600)
    return f"sqlite:///{path}"


@pytest.fixture
def redis_url() -> Iterator[str]:
    """Redis database 15 (by default). Never emptied: test runs may share it (each test has its own queue names,
    see ``_stack``); a test's own keys are deleted after it by the ``stack`` fixture."""
    need_service("Redis")
    yield REDIS_URL


# --- one app per test, built cheaply ----------------------------------------------------------------------------------
# Each test builds its own app (its own settings and database). Two parts of that build are the same in every test
# of a process and took a twelfth of the suite's CPU: Werkzeug compiles two URL builder functions for each of the
# ~110 rules, and Jinja compiles each page template again. Both are shared within a test process here; what a test
# sees does not change (the same generated functions, the same compiled templates, checked against their source).


class _SharedBytecode(jinja2.BytecodeCache):
    """Jinja's compiled templates, kept in memory for the test process (a bucket's checksum is its source's)."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


def _share_url_builders() -> None:
    """Werkzeug's builder for a rule depends only on the rule's parsed parts and defaults (it reads the converters
    from the rule it is bound to when called): compile each distinct one once per process."""
    compile_builder = Rule._compile_builder
    built: dict[tuple[Any, ...], Any] = {}

    @functools.wraps(compile_builder)
    def shared(self: Rule, append_unknown: bool = True) -> Any:
        key = (self.rule, tuple(self._trace), repr(sorted((self.defaults or {}).items())), append_unknown)
        if key not in built:
            built[key] = compile_builder(self, append_unknown)
        return built[key]

    Rule._compile_builder = shared  # type: ignore[method-assign]


if hasattr(Rule, "_compile_builder"):  # a Werkzeug without it compiles every app's builders, as before
    _share_url_builders()
Flask.jinja_options = {**Flask.jinja_options, "bytecode_cache": _SharedBytecode()}


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


def _stack(
    name: str, tmp_path: Path, database_url: str, broker_url: str, migrated: bool = False, **overrides: Any
) -> Stack:
    """One installation; its database is migrated here unless ``migrated`` says it is a copy of a migrated one."""
    env = {
        "DEADMAIL_DATA_DIR": str(tmp_path / "data"),
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": broker_url,
        "DEADMAIL_SECRET_KEY": "test-secret-key",
        "DEADMAIL_API_TOKEN": "test-api-token",
        "DEADMAIL_BASE_URL": "http://deadmail.test",
        "DEADMAIL_QUEUE": f"deadmail-test-{uuid.uuid4().hex[:8]}",  # runs sharing a broker never meet
    }
    settings = prepare_data_dir(Settings.from_env(env, **overrides))
    if not migrated:
        upgrade(settings.database_url)
    db = Database(settings.database_url)
    app = create_app(settings, db.with_tasks(Queue(settings)))
    app.config["TESTING"] = True
    return Stack(name, settings, db, app, app.test_client())


@pytest.fixture(params=["embedded", "production"])
def stack(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stack]:
    """The same test on both setups: SQLite + filesystem broker, and PostgreSQL + Redis."""
    if request.param == "embedded":
        url = migrated_sqlite_url(request.getfixturevalue("sqlite_template"), tmp_path)
        built = _stack("embedded", tmp_path, url, "filesystem://", migrated=True)
    else:
        pg = request.getfixturevalue("migrated_postgres_url")
        broker = request.getfixturevalue("redis_url")
        built = _stack("production", tmp_path, pg, broker, migrated=True)
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
def embedded(tmp_path: Path, sqlite_template: Path) -> Iterator[Stack]:
    """Only the embedded setup (fast tests that do not depend on the database or broker kind)."""
    built = _stack("embedded", tmp_path, migrated_sqlite_url(sqlite_template, tmp_path), "filesystem://", migrated=True)
    yield built
    built.db.dispose()


@contextmanager
def running_worker(settings: Settings, concurrency: int = 2) -> Iterator[Any]:
    """A real Celery worker, in-process (celery.contrib.testing), consuming the broker of ``settings`` with
    ``concurrency`` threads."""
    from celery.contrib.testing.worker import start_worker

    from worker.app import make_celery

    app = make_celery(settings)
    with start_worker(
        app, pool="threads", concurrency=concurrency, perform_ping_check=False, loglevel="WARNING", shutdown_timeout=20
    ):
        yield app


@pytest.fixture
def worker(stack: Stack) -> Iterator[Any]:
    """A real Celery worker, in-process, consuming the stack's broker."""
    with running_worker(stack.settings) as app:
        yield app
