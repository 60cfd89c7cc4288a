"""mail preferences, reminders, inbound replies

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 01:12:05.374536
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "inbound_mail",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(length=255), nullable=False),
        sa.Column("received_at", sa.DateTime(), nullable=False),
        sa.Column("sender", sa.String(length=320), nullable=False),
        sa.Column("recipient", sa.String(length=320), nullable=False),
        sa.Column("seat_id", sa.Integer(), nullable=True),
        sa.Column("window_number", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["seat_id"], ["seats.id"], name=op.f("fk_inbound_mail_seat_id_seats"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inbound_mail")),
        sa.UniqueConstraint("message_id", name=op.f("uq_inbound_mail_message_id")),
    )
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("mail_mode", sa.String(length=8), server_default="each", nullable=False))
        batch_op.add_column(sa.Column("digest_hours", sa.Integer(), server_default="4", nullable=False))

    with op.batch_alter_table("requests", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reminded", sa.Integer(), server_default="0", nullable=False))

    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("mailed_seq", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column(
                "standing_order",
                sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
                nullable=True,
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("standing_order")
        batch_op.drop_column("mailed_seq")

    with op.batch_alter_table("requests", schema=None) as batch_op:
        batch_op.drop_column("reminded")

    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("digest_hours")
        batch_op.drop_column("mail_mode")

    op.drop_table("inbound_mail")
