"""storage: the engine's saved games and snapshots packed

``games.state`` and ``games.snapshot`` become binary: the JSON packed by ``server.packing.pack`` with the saved
games' dictionary (``models.Packed``), about a fourteenth of the JSON text. The downgrade unpacks them.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-31 10:00:00
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

from server.packing import GAMES, pack, unpack

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = {"state": False, "snapshot": True}  # column -> nullable
JSON_TYPE = sa.JSON().with_variant(JSONB(), "postgresql")


def _convert(type_: Any, read: str, convert: Callable[[Any], Any]) -> None:
    """Each of ``COLUMNS`` replaced by a column of ``type_`` holding ``convert`` of its value read as ``read``."""
    for column in COLUMNS:
        op.add_column("games", sa.Column(f"new_{column}", type_, nullable=True))
    conn = op.get_bind()
    columns = ", ".join(read.format(column) for column in COLUMNS)
    new = sa.table("games", sa.column("id", sa.Integer()), *(sa.column(f"new_{c}", type_) for c in COLUMNS))
    for id_, *values in conn.execute(sa.text(f"SELECT id, {columns} FROM games")).all():
        converted = {f"new_{c}": None if v is None else convert(v) for c, v in zip(COLUMNS, values, strict=True)}
        conn.execute(new.update().where(new.c.id == id_).values(**converted))
    with op.batch_alter_table("games", schema=None) as batch_op:
        for column, nullable in COLUMNS.items():
            batch_op.drop_column(column)
            batch_op.alter_column(f"new_{column}", new_column_name=column, existing_type=type_, nullable=nullable)


def upgrade() -> None:
    _convert(sa.LargeBinary(), "CAST({} AS TEXT)", lambda text: pack(json.loads(text), GAMES))


def downgrade() -> None:
    _convert(JSON_TYPE, "{}", lambda packed: unpack(bytes(packed)))
