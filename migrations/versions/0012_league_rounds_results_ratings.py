"""league rounds, results, standings and ratings

- ``league_rounds``: a season's rounds, their tables (a preview until started), status and fixed start.
- ``games.round_id``: the round a game is a table of.
- ``league_results``: one row per seat of a finished (or organiser-recorded) league game: what standings read.
- ``season_standings``: the standings as last computed, fresh while their version is the season's
  ``results_version``.
- ``ratings`` and ``rating_points``: each person's OpenSkill rating per scope (a league, or 0: all games) and its
  history, updated as games end.
- ``seasons``: ``max_players``, ``divisions``, ``promote``, ``previous_id``, ``results_version``.
- ``season_players``: ``applicant`` (what a pending sign-up gave, applied at confirmation), ``skips`` (rounds the
  player will miss), ``knows`` (declared acquaintances' addresses).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-15 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine[object]:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_ratings_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ratings")),
        sa.UniqueConstraint("player_id", "scope", name=op.f("uq_ratings_player_id")),
    )
    op.create_table(
        "league_rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("starts_at", sa.DateTime(), nullable=True),
        sa.Column("tables", _json(), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("over_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["season_id"], ["seasons.id"], name=op.f("fk_league_rounds_season_id_seasons"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_league_rounds")),
        sa.UniqueConstraint("season_id", "number", name=op.f("uq_league_rounds_season_id")),
    )
    with op.batch_alter_table("league_rounds", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_league_rounds_starts_at"), ["starts_at"], unique=False)

    op.create_table(
        "season_standings",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("rows", _json(), nullable=False),
        sa.Column("computed_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["season_id"], ["seasons.id"], name=op.f("fk_season_standings_season_id_seasons"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("season_id", name=op.f("pk_season_standings")),
    )
    op.create_table(
        "league_results",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("colour", sa.String(length=8), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("ending", sa.String(length=16), nullable=False),
        sa.Column("substitute_id", sa.Integer(), nullable=True),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("cards", sa.Integer(), nullable=False),
        sa.Column("winner", sa.Boolean(), nullable=False),
        sa.Column("recorded", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_league_results_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_league_results_player_id_players")),
        sa.ForeignKeyConstraint(
            ["round_id"],
            ["league_rounds.id"],
            name=op.f("fk_league_results_round_id_league_rounds"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["season_id"], ["seasons.id"], name=op.f("fk_league_results_season_id_seasons"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["substitute_id"], ["players.id"], name=op.f("fk_league_results_substitute_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_league_results")),
        sa.UniqueConstraint("game_id", "colour", name=op.f("uq_league_results_game_id")),
    )
    with op.batch_alter_table("league_results", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_league_results_season_id"), ["season_id"], unique=False)

    op.create_table(
        "rating_points",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_rating_points_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_rating_points_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_points")),
        sa.UniqueConstraint("player_id", "scope", "game_id", name=op.f("uq_rating_points_player_id")),
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("round_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_games_round_id"), ["round_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_games_round_id_league_rounds"), "league_rounds", ["round_id"], ["id"], ondelete="SET NULL"
        )

    with op.batch_alter_table("season_players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("applicant", _json(), nullable=True))
        batch_op.add_column(sa.Column("skips", _json(), nullable=True))
        batch_op.add_column(sa.Column("knows", _json(), nullable=True))

    with op.batch_alter_table("seasons", schema=None) as batch_op:
        batch_op.add_column(sa.Column("max_players", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("divisions", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("promote", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("previous_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("results_version", sa.Integer(), server_default="0", nullable=False))
        batch_op.create_foreign_key(
            batch_op.f("fk_seasons_previous_id_seasons"), "seasons", ["previous_id"], ["id"], ondelete="SET NULL"
        )


def downgrade() -> None:
    with op.batch_alter_table("seasons", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_seasons_previous_id_seasons"), type_="foreignkey")
        batch_op.drop_column("results_version")
        batch_op.drop_column("previous_id")
        batch_op.drop_column("promote")
        batch_op.drop_column("divisions")
        batch_op.drop_column("max_players")

    with op.batch_alter_table("season_players", schema=None) as batch_op:
        batch_op.drop_column("knows")
        batch_op.drop_column("skips")
        batch_op.drop_column("applicant")

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_games_round_id_league_rounds"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_games_round_id"))
        batch_op.drop_column("round_id")

    op.drop_table("rating_points")
    with op.batch_alter_table("league_results", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_league_results_season_id"))

    op.drop_table("league_results")
    op.drop_table("season_standings")
    with op.batch_alter_table("league_rounds", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_league_rounds_starts_at"))

    op.drop_table("league_rounds")
    op.drop_table("ratings")
