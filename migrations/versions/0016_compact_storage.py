"""storage: events and requests stored compactly

- ``events.data``, ``events.visible_to`` and ``requests.payload`` become JSON on PostgreSQL (JSONB before): their
  many small values take about half the bytes as text (written without spaces, ``server.db.compact_json``); a public
  event's ``visible_to`` becomes SQL NULL instead of a JSON null (read back the same: None).
- ``windows.game_id``, ``requests.window_id`` and ``events.game_id`` each lead a unique constraint (``(game_id,
  number)``, ``(window_id, seat_id)``, ``(game_id, seq)``) whose index serves every query by that column alone: their
  own indexes are dropped.

On PostgreSQL the type change rewrites both tables (minutes for millions of rows).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-28 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: (table, column) of each dropped index (named ``ix_<table>_<column>``).
COVERED = (("windows", "game_id"), ("requests", "window_id"), ("events", "game_id"))
#: (table, column) of each JSONB column that becomes JSON on PostgreSQL.
TEXT_JSON = (("events", "data"), ("events", "visible_to"), ("requests", "payload"))


def _retype(to: str) -> None:
    for table, column in TEXT_JSON:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} TYPE {to} USING {column}::{to}")


def upgrade() -> None:
    for table, column in COVERED:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(f"ix_{table}_{column}")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("UPDATE events SET visible_to = NULL WHERE jsonb_typeof(visible_to) = 'null'")
        _retype("json")
    else:
        op.execute(sa.text("UPDATE events SET visible_to = NULL WHERE visible_to = 'null'"))


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _retype("jsonb")
    for table, column in COVERED:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.create_index(f"ix_{table}_{column}", [column], unique=False)
