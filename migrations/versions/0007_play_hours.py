"""play hours: when each seat's page was last seen

- ``seats.seen_at``: when the seat's page or its live fragment was last fetched (written at most every few seconds),
  to show who is on their page now during a session of play hours. Null: never seen since this revision.

The tempo's new keys (``last_call``, ``play_hours``) live in the JSON column ``games.tempo``: no change of schema.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("seen_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("seen_at")
