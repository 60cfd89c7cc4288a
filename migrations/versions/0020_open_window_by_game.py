"""a game's open window in one index lookup: ``ix_windows_open_game_id`` on ``windows (game_id)`` where
``status = 'open'``

Finding a game's open window (every answer, page and advance) was planned as the game's windows from the unique
``(game_id, number)`` index ANDed with a scan of a whole open-windows index: one entry per live game, so its cost
grew with the number of live games. This index has one entry per live game and is read for one.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-24 21:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OPEN_ONLY = sa.text("status = 'open'")


def upgrade() -> None:
    op.create_index(
        "ix_windows_open_game_id", "windows", ["game_id"], postgresql_where=OPEN_ONLY, sqlite_where=OPEN_ONLY
    )


def downgrade() -> None:
    op.drop_index("ix_windows_open_game_id", table_name="windows")
