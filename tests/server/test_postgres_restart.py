"""A restart of PostgreSQL costs no request: a pooled connection in doubt is pinged before use and, found dead,
replaced (``_ping_when_in_doubt`` in server/db.py): one that was idle longer than ``PING_AFTER``, or whose socket the
server wrote to while it was idle (a server going down ends its connections so). One used a moment ago is not
pinged: a ping per use was one more round trip an answer (issue 29). On a cluster of the test's own
(tests/own_postgres.py), never the shared one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import OperationalError

import server.db
from server.db import Database
from tests.own_postgres import OwnPostgres, own_postgres


@pytest.fixture
def cluster() -> Iterator[OwnPostgres]:
    with own_postgres() as started:
        yield started


def first_query(db: Database) -> int:
    with db.session() as session:
        value: int = session.execute(sa.text("SELECT 1")).scalar_one()
        return value


def plain_query(engine: sa.Engine) -> int:
    with engine.connect() as conn:
        value: int = conn.execute(sa.text("SELECT 1")).scalar_one()
        return value


def counting_pings(db: Database) -> list[int]:
    """Count the pings of ``db``'s pooled connections (its dialect's ``do_ping``)."""
    pings: list[int] = []
    ping = db.engine.dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pings.append(1)
        return ping(dbapi_connection)

    db.engine.dialect.do_ping = counted  # type: ignore[method-assign]
    return pings


def test_the_first_query_after_a_postgresql_restart_succeeds(
    cluster: OwnPostgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pooled connection was in use a moment before the restart: its socket, which the old server wrote to and
    closed, says it is in doubt (``PING_AFTER`` is an hour here, so idleness does not)."""
    monkeypatch.setattr(server.db, "PING_AFTER", 3600.0)
    db = Database(cluster.url)
    plain = sa.create_engine(cluster.url)  # SQLAlchemy's pool as it comes, nothing checked before use: the contrast
    try:
        assert first_query(db) == plain_query(plain) == 1  # each pool now holds a connection

        cluster.restart()

        assert first_query(db) == 1
        with pytest.raises(OperationalError):  # unchecked, the stale connection fails the first request
            plain_query(plain)
        assert plain_query(plain) == 1
    finally:
        db.dispose()
        plain.dispose()


def test_a_connection_used_a_moment_ago_is_not_pinged_one_left_idle_is(
    cluster: OwnPostgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = Database(cluster.url)
    pings = counting_pings(db)
    try:
        for _ in range(5):
            assert first_query(db) == 1
        assert len(pings) == 1  # the new connection's first use only
        monkeypatch.setattr(server.db, "PING_AFTER", 0.0)  # every connection has now been idle too long
        assert first_query(db) == 1
        assert len(pings) == 2
    finally:
        db.dispose()


def test_sqlite_needs_no_ping(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path}/ping.db")
    pings = counting_pings(db)
    try:
        assert first_query(db) == first_query(db) == 1
        assert pings == []
    finally:
        db.dispose()
