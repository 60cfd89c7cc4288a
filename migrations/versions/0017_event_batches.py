"""storage: events stored one row per advance (``event_batches``); windows' due instants indexed for open
windows only

Each advance's events become one ``event_batches`` row (game, first seq, count, the JSON text of their list in the
engine's own form) instead of one ``events`` row each. The upgrade moves the existing events: consecutive seqs of a
game stored at the same instant make one batch. The downgrade splits them back (the round of each event counted
again from the ``round_started`` events, from 0 as ``turns`` did).

The indexes ``ix_windows_status_<column>`` on (status, deadline | completed_at | remind_at | claimed_until) indexed
every closed window too: they become ``ix_windows_open_<column>`` on (column) ``WHERE status = 'open'``.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-29 10:00:00
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: the windows' columns indexed for open windows only.
DUE = ("deadline", "completed_at", "remind_at", "claimed_until")
OPEN_ONLY = sa.text("status = 'open'")
#: rows written per INSERT while moving events.
CHUNK = 1000

batches = sa.table(
    "event_batches",
    sa.column("game_id", sa.Integer()),
    sa.column("first_seq", sa.Integer()),
    sa.column("count", sa.Integer()),
    sa.column("events", sa.Text()),
    sa.column("created_at", sa.DateTime()),
)
events = sa.table(
    "events",
    sa.column("game_id", sa.Integer()),
    sa.column("seq", sa.Integer()),
    sa.column("round", sa.Integer()),
    sa.column("type", sa.String()),
    sa.column("data", sa.JSON(none_as_null=True)),
    sa.column("visible_to", sa.JSON(none_as_null=True)),
    sa.column("created_at", sa.DateTime()),
)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _chunks(rows: Iterator[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _insert(table: sa.TableClause, rows: Iterator[dict[str, Any]]) -> None:
    for chunk in _chunks(rows):
        op.get_bind().execute(table.insert(), chunk)


def _batched() -> Iterator[dict[str, Any]]:
    """The events rows as batches: consecutive seqs of one game with one created_at."""
    rows = op.get_bind().execute(
        sa.select(
            events.c.game_id,
            events.c.seq,
            events.c.type,
            sa.cast(events.c.data, sa.Text),
            sa.cast(events.c.visible_to, sa.Text),
            events.c.created_at,
        ).order_by(events.c.game_id, events.c.seq)
    )
    batch: dict[str, Any] | None = None
    listed: list[dict[str, Any]] = []
    for game_id, seq, type_, data, to, created_at in rows:
        if batch is None or (game_id, seq, created_at) != (
            batch["game_id"],
            batch["first_seq"] + len(listed),
            batch["created_at"],
        ):
            if batch is not None:
                yield {**batch, "count": len(listed), "events": _compact(listed)}
            batch, listed = {"game_id": game_id, "first_seq": seq, "created_at": created_at}, []
        event = {"type": type_, **json.loads(data)}
        if to is not None and json.loads(to) is not None:
            event["to"] = json.loads(to)
        listed.append(event)
    if batch is not None:
        yield {**batch, "count": len(listed), "events": _compact(listed)}


def _split() -> Iterator[dict[str, Any]]:
    """The event_batches rows as events rows, each with its round (``round_started`` events, from 0)."""
    rows = op.get_bind().execute(
        sa.select(batches.c.game_id, batches.c.first_seq, batches.c.events, batches.c.created_at).order_by(
            batches.c.game_id, batches.c.first_seq
        )
    )
    game, current = None, 0
    for game_id, first_seq, text, created_at in rows:
        if game_id != game:
            game, current = game_id, 0
        for seq, event in enumerate(json.loads(text), start=first_seq):
            if event["type"] == "round_started":
                current = event["round"]
            yield {
                "game_id": game_id,
                "seq": seq,
                "round": current,
                "type": event["type"],
                "data": {k: v for k, v in event.items() if k not in ("type", "to")},
                "visible_to": event.get("to"),
                "created_at": created_at,
            }


def upgrade() -> None:
    op.create_table(
        "event_batches",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("first_seq", sa.Integer(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("events", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_event_batches_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "first_seq", name=op.f("pk_event_batches")),
    )
    _insert(batches, _batched())
    op.drop_table("events")
    with op.batch_alter_table("windows", schema=None) as batch_op:
        for column in DUE:
            batch_op.drop_index(f"ix_windows_status_{column}")
            batch_op.create_index(
                f"ix_windows_open_{column}", [column], postgresql_where=OPEN_ONLY, sqlite_where=OPEN_ONLY
            )


def downgrade() -> None:
    with op.batch_alter_table("windows", schema=None) as batch_op:
        for column in DUE:
            batch_op.drop_index(f"ix_windows_open_{column}")
            batch_op.create_index(f"ix_windows_status_{column}", ["status", column], unique=False)
    json_type = sa.JSON()
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=False),
        sa.Column("data", json_type, nullable=False),
        sa.Column("visible_to", json_type, nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_events_game_id_games"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sa.UniqueConstraint("game_id", "seq", name=op.f("uq_events_game_id")),
    )
    _insert(events, _split())
    op.drop_table("event_batches")
