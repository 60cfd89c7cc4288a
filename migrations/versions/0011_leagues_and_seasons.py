"""leagues and seasons: a league's rules and revocable links, its seasons, and who signed up

- ``leagues``: name, language, time zone, table size, game options, tempo preset, scoring system, tie-breaks,
  forfeit rule, public standings, and a generation per link (invitation, organiser, public).
- ``seasons``: number within the league, sign-up close, rounds, schedule ("fixed" with its rule, or "when_over"),
  status.
- ``season_players``: a player's entry (pending until confirmed by the mailed link, confirmed, withdrawn), division,
  the confirmation link's generation.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-08 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine[object]:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "leagues",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("language", sa.String(length=8), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("table_size", sa.Integer(), server_default="5", nullable=False),
        sa.Column("options", _json(), nullable=False),
        sa.Column("preset", sa.String(length=20), nullable=True),
        sa.Column("scoring", sa.String(length=20), nullable=False),
        sa.Column("tie_breaks", _json(), nullable=False),
        sa.Column("forfeit", sa.String(length=16), nullable=False),
        sa.Column("standings_public", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("invite_generation", sa.Integer(), server_default="1", nullable=False),
        sa.Column("organiser_generation", sa.Integer(), server_default="1", nullable=False),
        sa.Column("public_generation", sa.Integer(), server_default="1", nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_leagues")),
    )
    op.create_table(
        "seasons",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("signup_closes", sa.DateTime(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("schedule", sa.String(length=16), nullable=False),
        sa.Column("schedule_rule", _json(), nullable=True),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["league_id"], ["leagues.id"], name=op.f("fk_seasons_league_id_leagues"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seasons")),
        sa.UniqueConstraint("league_id", "number", name=op.f("uq_seasons_league_id")),
    )
    op.create_table(
        "season_players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("division", sa.String(length=40), nullable=True),
        sa.Column("confirm_generation", sa.Integer(), server_default="1", nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("confirmed_at", sa.DateTime(), nullable=True),
        sa.Column("withdrawn_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_season_players_player_id_players"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["season_id"], ["seasons.id"], name=op.f("fk_season_players_season_id_seasons"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_season_players")),
        sa.UniqueConstraint("season_id", "player_id", name=op.f("uq_season_players_season_id")),
    )
    op.create_index(op.f("ix_season_players_player_id"), "season_players", ["player_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_season_players_player_id"), table_name="season_players")
    op.drop_table("season_players")
    op.drop_table("seasons")
    op.drop_table("leagues")
