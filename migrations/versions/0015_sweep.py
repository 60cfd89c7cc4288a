"""scale: the due instants of what was live before 0014, filled once

Open windows get ``remind_at = opened_at`` and running games ``session_at = created_at``: due at once, so the first
reminder and session passes compute their real instants (the next ladder step; the next session, or null without
play hours) and nothing live before the upgrade misses a reminder.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-28 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("UPDATE windows SET remind_at = opened_at WHERE status = 'open' AND remind_at IS NULL")
    op.execute("UPDATE games SET session_at = created_at WHERE status = 'running' AND session_at IS NULL")


def downgrade() -> None:
    pass  # data only: the columns go with 0014
