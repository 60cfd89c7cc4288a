"""standing answers

- ``players.standing``: the player's default standing answers (``engine.standing_answer``), null: none;
- ``seats.standing``: a game's standing answers, per setting over the player's defaults, null: none;
- ``requests.standing``: the answer was given at once by standing answers (existing rows: false).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24 01:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine[object]:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("standing", _json(), nullable=True))
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("standing", _json(), nullable=True))
    with op.batch_alter_table("requests", schema=None) as batch_op:
        batch_op.add_column(sa.Column("standing", sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("requests", schema=None) as batch_op:
        batch_op.drop_column("standing")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("standing")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("standing")
