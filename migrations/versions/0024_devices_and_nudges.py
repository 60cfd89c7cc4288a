"""devices and their notifications (Web Push, chat apps), and how a player is told

- ``devices`` (new): where a player's notifications reach them besides mail (a browser's push subscription, or a
  chat app's address); an endpoint belongs to one player.
- ``nudges`` (new): a notification to one device, written with the change it tells, sent after commit (the outbox's
  discipline: claimed once, retried, never sent twice for one row).
- ``players.notify_mode`` (new, "both"), ``players.mail_after`` (new, 30 minutes): mail and the devices at once,
  the devices first and the mail only if still unanswered after ``mail_after`` minutes, or mail only;
  ``players.reached_via``/``reached_at`` (new, nullable): the channel that last reached the player; ``players.reach``
  (new, nullable JSON): per channel, the seconds it took the newest notifications to reach the player.

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-29 07:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine[object]:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("notify_mode", sa.String(8), server_default="both", nullable=False))
        batch.add_column(sa.Column("mail_after", sa.Integer(), server_default="30", nullable=False))
        batch.add_column(sa.Column("reached_via", sa.String(8), nullable=True))
        batch.add_column(sa.Column("reached_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("reach", _json(), nullable=True))
    op.create_table(
        "devices",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("endpoint", sa.String(1000), nullable=False),
        sa.Column("p256dh", sa.String(100), nullable=True),
        sa.Column("auth", sa.String(40), nullable=True),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("reached_at", sa.DateTime(), nullable=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_devices_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_devices")),
        sa.UniqueConstraint("endpoint", name=op.f("uq_devices_endpoint")),
    )
    op.create_index(op.f("ix_devices_player_id"), "devices", ["player_id"], unique=False)
    op.create_table(
        "nudges",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(160), nullable=False),
        sa.Column("device_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("seat_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("window_number", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("sent_at", sa.DateTime(), nullable=True),
        sa.Column("opened_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["device_id"], ["devices.id"], name=op.f("fk_nudges_device_id_devices"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_nudges_player_id_players"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["seat_id"], ["seats.id"], name=op.f("fk_nudges_seat_id_seats"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_nudges")),
        sa.UniqueConstraint("key", name=op.f("uq_nudges_key")),
    )
    op.create_index(op.f("ix_nudges_device_id"), "nudges", ["device_id"], unique=False)
    op.create_index("ix_nudges_status_next", "nudges", ["status", "next_attempt_at"], unique=False)


def downgrade() -> None:
    op.drop_table("nudges")
    op.drop_table("devices")
    with op.batch_alter_table("players") as batch:
        for column in ("reach", "reached_at", "reached_via", "mail_after", "notify_mode"):
            batch.drop_column(column)
