"""calendar feeds: a revocable calendar address per player, and a revision number per deadline

- ``players.calendar_generation``: the player's calendar address carries it; raising it revokes the address alone.
- ``windows.deadline_revision``: how many times the window's deadline moved (the calendar event's SEQUENCE).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("calendar_generation", sa.Integer(), server_default="1", nullable=False))
    with op.batch_alter_table("windows", schema=None) as batch_op:
        batch_op.add_column(sa.Column("deadline_revision", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("windows", schema=None) as batch_op:
        batch_op.drop_column("deadline_revision")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("calendar_generation")
