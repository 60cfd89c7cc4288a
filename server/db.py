"""The database: one SQLAlchemy engine and session factory, usable from Flask, Celery and the CLI alike.

A transaction may ask for work to be done once it has committed, and only then: kick the advance of a window
(``advance_after_commit``) or send its mail (``send_after_commit``: one task for all its rows) and notifications
(``push_after_commit``). The work goes to the
:class:`Tasks` the database was given (the task queue); without one it is left to the sweep, which finds every due
window and pending mail in the tables anyway. A transaction that rolls back asks for nothing.
"""

from __future__ import annotations

import json
import os
import select
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import Connection, Engine, create_engine, event, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import Session, sessionmaker


class Tasks(Protocol):
    """Where work asked for after a commit goes (``server/run/queue.py``'s ``Queue`` in every process)."""

    def advance(self, window_id: int) -> None: ...

    def send_mail(self, outbox_ids: list[int]) -> None:
        """Send these rows (a transaction's new mail) over one connection."""
        ...

    def send_push(self, nudge_ids: list[int]) -> None:
        """Send these notifications (a transaction's new ``Nudge`` rows)."""
        ...


@dataclass
class _AfterCommit:
    advance: list[int] = field(default_factory=list)
    mail: list[int] = field(default_factory=list)
    push: list[int] = field(default_factory=list)


def private_sqlite_file(url: str) -> None:
    """A SQLite database file (it holds every hand) is made readable by its owner only, before SQLite makes it:
    0600 in a 0700 folder when missing. SQLite gives its WAL and shared-memory files the database file's mode."""
    path = make_url(url).database if url.startswith("sqlite") else None
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    folder = Path(path).parent
    if not folder.exists():
        folder.mkdir(mode=0o700, parents=True)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))  # an empty file is an empty database


#: a pooled connection left unused longer than this is pinged before it is used again (seconds).
PING_AFTER = 10.0


def _ping_when_in_doubt(engine: Engine) -> None:
    """A connection taken from the pool is pinged first when it is in doubt, so that a restart of PostgreSQL costs
    no request (its dead connections are replaced before use): when it was idle longer than ``PING_AFTER``, or
    when the server wrote to it while it was idle (a server going down ends its connections with a message and
    closes them: the socket is readable). Otherwise it was in use a moment ago and nothing came since. SQLAlchemy's
    ``pool_pre_ping`` pinged every time: one more round trip an answer, and 7 % of its time (issue 29)."""

    @event.listens_for(engine, "checkin")
    def checked_in(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def checked_out(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.pop("idle_since", None)
        try:
            if since is not None and time.monotonic() - since < PING_AFTER and not _readable(dbapi_connection):
                return  # in use a moment ago, and nothing came since
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as exc:  # (a connection that lost its socket has no fileno)
            raise DisconnectionError(f"a pooled connection is dead: {exc}") from exc  # the pool connects anew


def _readable(dbapi_connection: Any) -> bool:
    """Whether something came on the connection's socket (``poll``: ``select`` refuses descriptors above 1023)."""
    poller = select.poll()
    poller.register(dbapi_connection.fileno(), select.POLLIN)
    return bool(poller.poll(0))


def compact_json(value: object) -> str:
    """JSON values as the database stores them: without the spaces after "," and ":" (``models.TextJSON``)."""
    return json.dumps(value, separators=(",", ":"))


class Database:
    def __init__(self, url: str, tasks: Tasks | None = None, **engine_options: Any) -> None:
        self.url = url
        self.tasks = tasks
        self.is_sqlite = url.startswith("sqlite")
        if self.is_sqlite:
            private_sqlite_file(url)
            engine_options.setdefault("connect_args", {"timeout": 30, "check_same_thread": False})
        else:
            engine_options.setdefault("pool_recycle", 1800)
            engine_options.setdefault("pool_size", 10)
            engine_options.setdefault("max_overflow", 20)
        engine_options.setdefault("json_serializer", compact_json)
        self.engine: Engine = create_engine(url, **engine_options)
        if self.is_sqlite:
            _sqlite_setup(self.engine)
        else:
            _ping_when_in_doubt(self.engine)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    def with_tasks(self, tasks: Tasks | None) -> Database:
        """The same database (engine and connections shared) handing its after-commit work to ``tasks``."""
        other = object.__new__(Database)
        other.__dict__.update(self.__dict__)
        other.tasks = tasks
        return other

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One transaction: committed when the block ends, rolled back on an exception. Once committed, the work
        it asked for (``advance_after_commit``, ``send_after_commit``) is handed to the tasks."""
        with self.sessions() as session:
            with session.begin():
                yield session
            later: _AfterCommit | None = session.info.pop("after_commit", None)
        if later is None or self.tasks is None:
            return
        for window_id in later.advance:
            self.tasks.advance(window_id)
        if later.mail:
            self.tasks.send_mail(later.mail)
        if later.push:
            self.tasks.send_push(later.push)

    def dispose(self) -> None:
        self.engine.dispose()


def _after_commit(session: Session) -> _AfterCommit:
    later: _AfterCommit = session.info.setdefault("after_commit", _AfterCommit())
    return later


def advance_after_commit(session: Session, window_id: int) -> None:
    """Kick the advance of ``window_id`` once this transaction has committed (once per window)."""
    later = _after_commit(session)
    if window_id not in later.advance:
        later.advance.append(window_id)


def send_after_commit(session: Session, outbox_ids: Iterable[int]) -> None:
    """Send these outbox rows once this transaction has committed (one task for all of them)."""
    later = _after_commit(session)
    later.mail.extend(i for i in outbox_ids if i not in later.mail)


def push_after_commit(session: Session, nudge_ids: Iterable[int]) -> None:
    """Send these notifications once this transaction has committed (one task for all of them)."""
    later = _after_commit(session)
    later.push.extend(i for i in nudge_ids if i not in later.push)


def _sqlite_setup(engine: Engine) -> None:
    """WAL for concurrent readers; BEGIN IMMEDIATE so writers queue instead of failing on a stale snapshot."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
