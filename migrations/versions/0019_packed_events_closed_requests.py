"""storage: events packed; a closed window's requests without their payload

- ``event_batches.events`` becomes binary: the JSON list packed by ``server.packing.pack_events`` (deflate with a
  preset dictionary, about a fifth of the text).
- ``requests.secret`` (new): the request was asked in secret (``engine.asked_in_secret`` of its payload, B-INFO);
  ``requests.payload`` becomes nullable and is emptied for the requests of closed windows: what readers need of
  them is their kind, this mark and the answer; the engine's log gives the request itself (the replay).

The downgrade unpacks the events and gives closed requests their payloads back, as the engine asked them when it
replays each game's log (a request the replay does not find gets ``{"kind": ...}``).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-30 10:00:00
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

import engine
from server.packing import pack_events, unpack_events

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

requests = sa.table(
    "requests",
    sa.column("id", sa.Integer()),
    sa.column("window_id", sa.Integer()),
    sa.column("seat_id", sa.Integer()),
    sa.column("kind", sa.String()),
    sa.column("payload", sa.JSON(none_as_null=True)),
    sa.column("secret", sa.Boolean()),
)
CLOSED = sa.text("window_id IN (SELECT id FROM windows WHERE status = 'closed')")


def _repack(source: str, target: str, convert: Any) -> None:
    """Each batch's ``source`` column converted into its ``target`` column."""
    conn = op.get_bind()
    rows = conn.execute(sa.text(f"SELECT game_id, first_seq, {source} FROM event_batches")).all()
    update = sa.text(f"UPDATE event_batches SET {target} = :value WHERE game_id = :game AND first_seq = :first")
    for game_id, first_seq, value in rows:
        conn.execute(update, {"value": convert(value), "game": game_id, "first": first_seq})


def _swap(old: str, new: str, type_: Any) -> None:
    """``event_batches``: column ``old`` dropped, ``new`` renamed to ``events``."""
    with op.batch_alter_table("event_batches", schema=None) as batch_op:
        batch_op.drop_column(old)
        batch_op.alter_column(new, new_column_name="events", existing_type=type_, nullable=False)


def upgrade() -> None:
    op.add_column("event_batches", sa.Column("packed", sa.LargeBinary(), nullable=True))
    _repack("events", "packed", lambda text: pack_events(json.loads(text)))
    _swap("events", "packed", sa.LargeBinary())
    with op.batch_alter_table("requests", schema=None) as batch_op:
        batch_op.add_column(sa.Column("secret", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.alter_column("payload", existing_type=sa.JSON(), nullable=True)
    conn = op.get_bind()
    asked = conn.execute(
        sa.select(requests.c.id, sa.cast(requests.c.payload, sa.Text)).where(requests.c.kind.in_(("cards", "move")))
    ).all()
    secret = [id_ for id_, payload in asked if engine.asked_in_secret(engine.Request.from_json(json.loads(payload)))]
    if secret:
        conn.execute(requests.update().where(requests.c.id.in_(secret)).values(secret=True))
    conn.execute(requests.update().where(CLOSED).values(payload=None))


def _asked(state: dict[str, Any]) -> dict[tuple[int, str], dict[str, Any]]:
    """(window number, colour) -> the request the engine asked there, by replaying the game's log."""
    found: dict[tuple[int, str], dict[str, Any]] = {}
    try:
        game = engine.Game(engine.Config.from_json(state["config"]))
        for entry in [*state["log"], None]:
            for req in game.pending():
                found.setdefault((game.window_no, req.player), req.to_json())
            if entry is not None:
                game.replay_entry(entry)
    except (engine.ScenarioError, engine.IllegalAnswer, KeyError, TypeError):
        pass  # what was found so far; the rest get their kind only
    return found


def downgrade() -> None:
    conn = op.get_bind()
    emptied = conn.execute(
        sa.text(
            "SELECT r.id, r.kind, w.game_id, w.number, s.colour FROM requests r JOIN windows w ON w.id = r.window_id"
            " JOIN seats s ON s.id = r.seat_id WHERE r.payload IS NULL ORDER BY w.game_id"
        )
    ).all()
    games = sa.table("games", sa.column("id", sa.Integer()), sa.column("state", sa.JSON()))
    asked: dict[tuple[int, str], dict[str, Any]] = {}
    game = None
    for id_, kind, game_id, number, colour in emptied:
        if game_id != game:
            game = game_id
            state = conn.execute(sa.select(games.c.state).where(games.c.id == game_id)).scalar_one()
            asked = _asked(state if isinstance(state, dict) else json.loads(state))
        payload = asked.get((number, colour), {"kind": kind})
        conn.execute(requests.update().where(requests.c.id == id_).values(payload=payload))
    with op.batch_alter_table("requests", schema=None) as batch_op:
        batch_op.alter_column("payload", existing_type=sa.JSON(), nullable=False)
        batch_op.drop_column("secret")
    op.add_column("event_batches", sa.Column("text", sa.Text(), nullable=True))
    _repack("events", "text", lambda packed: json.dumps(unpack_events(bytes(packed)), separators=(",", ":")))
    _swap("events", "text", sa.Text())
