"""a season's standings stored row by row

- ``season_standing_rows``: one ranked row per player and table of a season's standings (``tab``: the division from
  the highest, 0, 1, …, the substitutes' appearances last; ``position``: the order in that table), so that the
  standings page reads one page of rows and the reader's own row by index, not the whole season's document.
- ``season_standings.rows`` now holds only the tables' outline (names and row counts); every stored document of
  0012 is dropped, so each season's standings are computed again at their next read.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-20 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("DELETE FROM season_standings")
    op.create_table(
        "season_standing_rows",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("tab", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("position", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("points", sa.Float(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("victory_points", sa.Integer(), nullable=False),
        sa.Column("average_place", sa.Float(), nullable=True),
        sa.Column("division", sa.String(length=40), nullable=True),
        sa.ForeignKeyConstraint(
            ["season_id"], ["seasons.id"], name=op.f("fk_season_standing_rows_season_id_seasons"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("season_id", "tab", "position", name=op.f("pk_season_standing_rows")),
    )
    with op.batch_alter_table("season_standing_rows", schema=None) as batch_op:
        batch_op.create_index("ix_season_standing_rows_season_id_player_id", ["season_id", "player_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("season_standing_rows", schema=None) as batch_op:
        batch_op.drop_index("ix_season_standing_rows_season_id_player_id")
    op.drop_table("season_standing_rows")
    op.execute("DELETE FROM season_standings")
