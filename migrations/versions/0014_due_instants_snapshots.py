"""scale: due instants the sweep selects by index, and engine snapshots

- ``windows.remind_at``: when the next step of the reminder ladder is due (null: none left); ``claimed_until``: a
  sweep batch's claim on a window. Indexed with ``status`` like ``deadline``, and ``completed_at`` too, so each part
  of the sweep reads only what is due.
- ``games.session_at``: when the next play-hours session reminder is due; ``games.snapshot``: the engine state at the
  start of the latest phase, so a restore replays only the answers after it.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-27 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine[object]:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("windows", schema=None) as batch_op:
        batch_op.add_column(sa.Column("remind_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("claimed_until", sa.DateTime(), nullable=True))
        batch_op.create_index("ix_windows_status_completed_at", ["status", "completed_at"], unique=False)
        batch_op.create_index("ix_windows_status_remind_at", ["status", "remind_at"], unique=False)
        batch_op.create_index("ix_windows_status_claimed_until", ["status", "claimed_until"], unique=False)
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("snapshot", _json(), nullable=True))
        batch_op.add_column(sa.Column("session_at", sa.DateTime(), nullable=True))
        batch_op.create_index(batch_op.f("ix_games_session_at"), ["session_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_session_at"))
        batch_op.drop_column("session_at")
        batch_op.drop_column("snapshot")
    with op.batch_alter_table("windows", schema=None) as batch_op:
        batch_op.drop_index("ix_windows_status_claimed_until")
        batch_op.drop_index("ix_windows_status_remind_at")
        batch_op.drop_index("ix_windows_status_completed_at")
        batch_op.drop_column("claimed_until")
        batch_op.drop_column("remind_at")
