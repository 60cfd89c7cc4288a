"""a league's organiser address, and a season's round that could not be seated

- ``leagues.organiser_email`` (new, nullable): where the league's mails to its organiser go (a round that cannot be
  seated); null: the organiser is told on their page only.
- ``seasons.unseated`` (new, nullable JSON): why the season's next round could not be seated when the minute sweep
  tried to start it (``{"round", "msgid", "params", "since"}``), so the organiser is mailed once per stall and their
  season page shows it; cleared once a round of the season is seated.
- ``season_standing_rows.victory_points`` (now nullable): null for a player whose games of the season have no
  victory points (results recorded as a ranking: nothing is invented); the downgrade writes 0 there.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-28 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine[object]:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("leagues") as batch:
        batch.add_column(sa.Column("organiser_email", sa.String(320), nullable=True))
    with op.batch_alter_table("seasons") as batch:
        batch.add_column(sa.Column("unseated", _json(), nullable=True))
    with op.batch_alter_table("season_standing_rows") as batch:
        batch.alter_column("victory_points", existing_type=sa.Integer(), nullable=True)


def downgrade() -> None:
    op.execute("UPDATE season_standing_rows SET victory_points = 0 WHERE victory_points IS NULL")
    with op.batch_alter_table("season_standing_rows") as batch:
        batch.alter_column("victory_points", existing_type=sa.Integer(), nullable=False)
    with op.batch_alter_table("seasons") as batch:
        batch.drop_column("unseated")
    with op.batch_alter_table("leagues") as batch:
        batch.drop_column("organiser_email")
