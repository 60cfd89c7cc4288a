"""absences applied once: ``absences.applied`` and a partial index on the ones still to apply

The minute sweep applied every absence under way at each pass (a query and a transaction per away player, each
minute); it now applies each absence once, when it begins, and finds the begun ones through
``ix_absences_unapplied`` (``starts_at`` where ``NOT applied``), so a pass with nothing due reads nothing. The
upgrade marks the absences already over as applied; those under way or to come are applied (again, harmlessly:
applying is idempotent) by the next sweep.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-24 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UNAPPLIED = sa.text("NOT applied")


def upgrade() -> None:
    with op.batch_alter_table("absences") as batch:
        batch.add_column(sa.Column("applied", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.execute(
        sa.text("UPDATE absences SET applied = :yes WHERE ends_at <= :now").bindparams(yes=True, now=_naive_now())
    )
    op.create_index(
        "ix_absences_unapplied", "absences", ["starts_at"], postgresql_where=UNAPPLIED, sqlite_where=UNAPPLIED
    )


def downgrade() -> None:
    op.drop_index("ix_absences_unapplied", table_name="absences")
    with op.batch_alter_table("absences") as batch:
        batch.drop_column("applied")


def _naive_now() -> datetime:
    """Now as the tables store instants: naive UTC (``server.models.UTCDateTime``)."""
    return datetime.now(UTC).replace(tzinfo=None)
