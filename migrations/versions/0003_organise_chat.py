"""organising and table talk

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 01:51:38.585190
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chat_channels",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_chat_channels_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_channels")),
        sa.UniqueConstraint("game_id", "key", name=op.f("uq_chat_channels_game_id")),
    )
    with op.batch_alter_table("chat_channels", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_chat_channels_game_id"), ["game_id"], unique=False)

    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("colour", sa.String(length=8), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["chat_channels.id"],
            name=op.f("fk_chat_messages_channel_id_chat_channels"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_messages")),
    )
    with op.batch_alter_table("chat_messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_chat_messages_channel_id"), ["channel_id"], unique=False)

    op.create_table(
        "seat_tenures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("seat_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("bot", sa.String(length=16), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_seat_tenures_player_id_players")),
        sa.ForeignKeyConstraint(
            ["seat_id"], ["seats.id"], name=op.f("fk_seat_tenures_seat_id_seats"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seat_tenures")),
    )
    with op.batch_alter_table("seat_tenures", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seat_tenures_seat_id"), ["seat_id"], unique=False)

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("paused_until", sa.DateTime(), nullable=True))

    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("chat_mailed_id", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("chat_mailed_id")

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("paused_until")

    with op.batch_alter_table("seat_tenures", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seat_tenures_seat_id"))

    op.drop_table("seat_tenures")
    with op.batch_alter_table("chat_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chat_messages_channel_id"))

    op.drop_table("chat_messages")
    with op.batch_alter_table("chat_channels", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chat_channels_game_id"))

    op.drop_table("chat_channels")
