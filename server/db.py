"""The database: one SQLAlchemy engine and session factory, usable from Flask, Celery and the CLI alike."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker


class Database:
    def __init__(self, url: str, **engine_options: Any) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        if self.is_sqlite:
            path = url.split("///", 1)[-1]
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            engine_options.setdefault("connect_args", {"timeout": 30, "check_same_thread": False})
        else:
            # no ping per checkout (a round trip per request); connections are recycled instead
            engine_options.setdefault("pool_recycle", 1800)
            engine_options.setdefault("pool_size", 10)
            engine_options.setdefault("max_overflow", 20)
        self.engine: Engine = create_engine(url, **engine_options)
        if self.is_sqlite:
            _sqlite_setup(self.engine)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One transaction: committed when the block ends, rolled back on an exception."""
        with self.sessions() as session, session.begin():
            yield session

    def dispose(self) -> None:
        self.engine.dispose()


def _sqlite_setup(engine: Engine) -> None:
    """WAL for concurrent readers; BEGIN IMMEDIATE so writers queue instead of failing on a stale snapshot."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
