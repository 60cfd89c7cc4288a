"""players start their own games; a league's or a game's webhook channel

- ``players.suspended_at`` (new, nullable): suspended by the server's organiser: no new games, no joining.
- ``players.no_invitations`` (new, false): the address said "never invite me again".
- ``games.creator_id`` (new, nullable): the player who created the game, with the organiser's powers over it only.
- ``proposals``, ``proposal_seats``, ``proposal_invitations`` (new): a game a player started, taking seats until it
  is full (by invitation, its shareable link or the lobby of open games), then made a game; or cancelled.
- ``channels``, ``channel_posts`` (new): an incoming-webhook address of a league or a game, and the public events
  posted there once each (the outbox discipline).

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-30 01:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FORMING_ONLY = sa.text("status = 'forming'")


def _json() -> sa.types.TypeEngine[object]:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def _fk(table: str, column: str, other: str, ondelete: str | None = None) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{other}.id"], name=op.f(f"fk_{table}_{column}_{other}"), ondelete=ondelete
    )


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("suspended_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("no_invitations", sa.Boolean(), server_default=sa.false(), nullable=False))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("creator_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(op.f("fk_games_creator_id_players"), "players", ["creator_id"], ["id"])
        batch.create_index(op.f("ix_games_creator_id"), ["creator_id"], unique=False)
    op.create_table(
        "proposals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("creator_id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(120), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("options", _json(), nullable=False),
        sa.Column("preset", sa.String(20), nullable=True),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("timezone", sa.String(64), nullable=False),
        sa.Column("listed", sa.Boolean(), nullable=False),
        sa.Column("fill_by", sa.DateTime(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("link_generation", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("webhook_url", sa.String(1000), nullable=True),
        sa.Column("estimate", _json(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        _fk("proposals", "creator_id", "players"),
        _fk("proposals", "game_id", "games", "SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_proposals")),
    )
    op.create_index(op.f("ix_proposals_creator_id"), "proposals", ["creator_id"], unique=False)
    for column in ("fill_by", "listed"):
        op.create_index(
            f"ix_proposals_forming_{column}",
            "proposals",
            [column],
            postgresql_where=FORMING_ONLY,
            sqlite_where=FORMING_ONLY,
        )
    op.create_table(
        "proposal_seats",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("proposal_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("via", sa.String(8), nullable=False),
        sa.Column("joined_at", sa.DateTime(), nullable=False),
        _fk("proposal_seats", "proposal_id", "proposals", "CASCADE"),
        _fk("proposal_seats", "player_id", "players", "CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_proposal_seats")),
        sa.UniqueConstraint("proposal_id", "player_id", name=op.f("uq_proposal_seats_proposal_id")),
    )
    op.create_index(op.f("ix_proposal_seats_player_id"), "proposal_seats", ["player_id"], unique=False)
    op.create_table(
        "proposal_invitations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("proposal_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("asked", sa.Boolean(), nullable=False),
        sa.Column("answer", sa.String(8), nullable=True),
        sa.Column("answered_at", sa.DateTime(), nullable=True),
        _fk("proposal_invitations", "proposal_id", "proposals", "CASCADE"),
        _fk("proposal_invitations", "player_id", "players", "CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_proposal_invitations")),
        sa.UniqueConstraint("proposal_id", "player_id", name=op.f("uq_proposal_invitations_proposal_id")),
        sqlite_autoincrement=True,  # never an id twice: its outbox row's key and its signed link name it
    )
    op.create_index(op.f("ix_proposal_invitations_player_id"), "proposal_invitations", ["player_id"], unique=False)
    op.create_table(
        "channels",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(1000), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=True),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("paused_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        _fk("channels", "league_id", "leagues", "CASCADE"),
        _fk("channels", "game_id", "games", "CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_channels")),
    )
    op.create_index(op.f("ix_channels_league_id"), "channels", ["league_id"], unique=False)
    op.create_index(op.f("ix_channels_game_id"), "channels", ["game_id"], unique=False)
    op.create_table(
        "channel_posts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(160), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("payload", _json(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("sent_at", sa.DateTime(), nullable=True),
        _fk("channel_posts", "channel_id", "channels", "CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_channel_posts")),
        sa.UniqueConstraint("key", name=op.f("uq_channel_posts_key")),
    )
    op.create_index(op.f("ix_channel_posts_channel_id"), "channel_posts", ["channel_id"], unique=False)
    op.create_index("ix_channel_posts_status_next", "channel_posts", ["status", "next_attempt_at"], unique=False)


def downgrade() -> None:
    op.drop_table("channel_posts")
    op.drop_table("channels")
    op.drop_table("proposal_invitations")
    op.drop_table("proposal_seats")
    op.drop_table("proposals")
    with op.batch_alter_table("games") as batch:
        batch.drop_index(op.f("ix_games_creator_id"))
        batch.drop_constraint(op.f("fk_games_creator_id_players"), type_="foreignkey")
        batch.drop_column("creator_id")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("no_invitations")
        batch.drop_column("suspended_at")
