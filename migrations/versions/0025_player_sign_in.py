"""players sign in by mail

- ``signin_links`` (new): a sign-in link mailed to a player, opened once, for a short time.
- ``player_sessions`` (new): a browser signed in by such a link; the session cookie carries only its id.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-29 23:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "signin_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_signin_links_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_signin_links")),
        sqlite_autoincrement=True,  # never an id twice: its outbox row's key names it
    )
    op.create_index(op.f("ix_signin_links_player_id"), "signin_links", ["player_id"], unique=False)
    op.create_table(
        "player_sessions",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("agent", sa.String(120), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("seen_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_player_sessions_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_sessions")),
    )
    op.create_index(op.f("ix_player_sessions_player_id"), "player_sessions", ["player_id"], unique=False)


def downgrade() -> None:
    op.drop_table("player_sessions")
    op.drop_table("signin_links")
