"""play hours: a window waits once for players absent from the session

- ``windows.extended_at``: when the window's deadline was moved to the next session's, once, because players who owe
  an answer had not been on their page since it opened (``turns._wait_for_absent``). Null: never moved.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-08 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("windows", schema=None) as batch_op:
        batch_op.add_column(sa.Column("extended_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("windows", schema=None) as batch_op:
        batch_op.drop_column("extended_at")
