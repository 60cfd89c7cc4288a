"""players' link generation; organiser sessions kept on the server

- ``players.link_generation``: preferences links carry it; revoking a seat's links raises it, so the player link
  sent with the old seat link stops working too. Existing players start at 1, the generation that links made
  before this revision (a bare player id) are read as.
- ``organiser_sessions``: an organiser's browser session on the server side (logout deletes its row; the
  fingerprint of the organiser token it was made with ends it when the token changes). A downgrade drops the table:
  every organiser logs in again.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("link_generation", sa.Integer(), server_default="1", nullable=False))

    op.create_table(
        "organiser_sessions",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("every_game", sa.Boolean(), nullable=False),
        sa.Column(
            "games", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"), nullable=False
        ),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_organiser_sessions")),
    )


def downgrade() -> None:
    op.drop_table("organiser_sessions")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("link_generation")
