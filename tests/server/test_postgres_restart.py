"""A restart of PostgreSQL costs no request: the pool's connections to the old server are found dead by
``pool_pre_ping`` (server/db.py) and replaced before use. On a cluster of the test's own (tests/own_postgres.py),
never the shared one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import OperationalError

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


def test_the_first_query_after_a_postgresql_restart_succeeds(cluster: OwnPostgres) -> None:
    db = Database(cluster.url)
    unpinged = Database(cluster.url, pool_pre_ping=False)  # what the pool did before: the contrast
    try:
        assert db.engine.pool._pre_ping  # type: ignore[attr-defined]
        assert first_query(db) == first_query(unpinged) == 1  # each pool now holds a connection

        cluster.restart()

        assert first_query(db) == 1
        with pytest.raises(OperationalError):  # without the ping, the stale connection fails the first request
            first_query(unpinged)
        assert first_query(unpinged) == 1
    finally:
        db.dispose()
        unpinged.dispose()


def test_sqlite_needs_no_ping(tmp_path: object) -> None:
    db = Database(f"sqlite:///{tmp_path}/ping.db")
    try:
        assert not db.engine.pool._pre_ping  # type: ignore[attr-defined]
        assert first_query(db) == 1
    finally:
        db.dispose()
