"""missed deadlines and absences: autopilot, absences, substitutes, reliability

- ``seats.missed``: public requests defaulted in a row; ``seats.autopilot_at``: on autopilot since (null: off);
  ``seats.extended``: seconds of deadline extension the seat's absences used in its game.
- ``requests.autopilot``: answered by the autopilot; ``requests.player_id``: the person who owed it.
- ``absences``: a player's declared absences; ``invitations``: seats offered to substitutes.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("missed", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("autopilot_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("extended", sa.Integer(), server_default="0", nullable=False))
    with op.batch_alter_table("requests", schema=None) as batch_op:
        batch_op.add_column(sa.Column("autopilot", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column("player_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_requests_player_id"), ["player_id"], unique=False)
        batch_op.create_foreign_key(batch_op.f("fk_requests_player_id_players"), "players", ["player_id"], ["id"])
    # requests made before: owed by the seat's person now (the best known; earlier tenures are not told apart)
    op.execute(
        "UPDATE requests SET player_id = "
        "(SELECT seats.player_id FROM seats WHERE seats.id = requests.seat_id AND seats.bot IS NULL)"
    )
    op.create_table(
        "absences",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.DateTime(), nullable=False),
        sa.Column("ends_at", sa.DateTime(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_absences_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_absences")),
    )
    op.create_index(op.f("ix_absences_player_id"), "absences", ["player_id"], unique=False)
    op.create_table(
        "invitations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("seat_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=True),
        sa.Column("used_by", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["seat_id"], ["seats.id"], name=op.f("fk_invitations_seat_id_seats"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["used_by"], ["players.id"], name=op.f("fk_invitations_used_by_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_invitations")),
        sa.UniqueConstraint("key", name=op.f("uq_invitations_key")),
    )
    op.create_index(op.f("ix_invitations_seat_id"), "invitations", ["seat_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_invitations_seat_id"), table_name="invitations")
    op.drop_table("invitations")
    op.drop_index(op.f("ix_absences_player_id"), table_name="absences")
    op.drop_table("absences")
    with op.batch_alter_table("requests", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_requests_player_id_players"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_requests_player_id"))
        batch_op.drop_column("player_id")
        batch_op.drop_column("autopilot")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("extended")
        batch_op.drop_column("autopilot_at")
        batch_op.drop_column("missed")
