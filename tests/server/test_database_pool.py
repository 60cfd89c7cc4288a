"""The suite's PostgreSQL pool (``tests.conftest.PostgresPool``): a database given back after a test is handed to the
next one as a new copy of the migrated template is, whatever the test left (rows in many tables, used sequences, a
connection in an open transaction holding locks)."""

from __future__ import annotations

import sqlalchemy as sa

from server.db import Database
from tests.conftest import PostgresPool, _create_database, _drop_database, _pg_url
from tests.support import T0, create, play_window


def state(url: str) -> tuple[dict[str, int], dict[str, tuple[int, bool]]]:
    """Every table's row count and every sequence's position."""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            tables = conn.exec_driver_sql("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").scalars()
            counts = {t: conn.exec_driver_sql(f'SELECT count(*) FROM "{t}"').scalar_one() for t in list(tables)}
            positions = conn.exec_driver_sql(
                "SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'"
            ).scalars()
            sequences = {
                s: tuple(conn.exec_driver_sql(f'SELECT last_value, is_called FROM "{s}"').one())
                for s in list(positions)
            }
    finally:
        engine.dispose()
    return counts, sequences  # type: ignore[return-value]


def test_a_database_given_back_is_handed_on_as_a_new_copy_of_the_template(postgres_pool: PostgresPool) -> None:
    copy = _create_database(postgres_pool.template)
    try:
        new = state(_pg_url(copy))
    finally:
        _drop_database(copy)
    assert new[0]["alembic_version"] == 1 and sum(new[0].values()) == 1 and new[1]

    name = postgres_pool.take()
    db = Database(_pg_url(name))
    game = create(db, 4, seed=3)
    play_window(db, game.game_id, seed=3, now=T0)
    used = state(_pg_url(name))
    assert sum(used[0].values()) > 20 and any(called for _, called in used[1].values())
    holder = sa.create_engine(_pg_url(name), poolclass=sa.pool.NullPool)
    locked = holder.connect()
    locked.exec_driver_sql("SELECT * FROM games FOR UPDATE").all()  # an open transaction holding row locks
    try:
        postgres_pool.give_back(name)
    finally:
        locked.invalidate()
        holder.dispose()
        db.dispose()

    again = postgres_pool.take()
    assert again == name  # the same database, handed on
    try:
        assert state(_pg_url(again)) == new
        db = Database(_pg_url(again))
        assert create(db, 3, seed=4).game_id == 1  # ids start again, as in a new copy
        db.dispose()
    finally:
        postgres_pool.give_back(again)
