"""standing orders kept by the engine; mails count the events of a seat's own view

Two columns of ``seats`` change meaning and are replaced:

- ``standing_order`` (RULES.md H-5): the engine keeps a seat's standing victim order in the game's answer log
  (``engine.Game.set_standing_order``). Each running game's stored orders are given to its engine here, without
  answering anything (an open window keeps the answers stored on its rows, applied when it closes), then the column
  goes. A downgrade fills the column again from the engines' orders (they stay in the games' logs).
- ``mailed_seq`` (the last event, numbered in the whole game, told to a seat by mail) becomes ``told_events``: how
  many events of the seat's own view it was told, so that a mail never needs the numbering of events the seat
  cannot see. The count is the number of events up to ``mailed_seq`` that the seat's colour may see.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 21:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _table(name: str, **columns: sa.types.TypeEngine[object]) -> sa.TableClause:
    return sa.table(name, *(sa.column(key, kind) for key, kind in columns.items()))


games = _table("games", id=sa.Integer(), status=sa.String(), state=sa.JSON(), version=sa.Integer())
seats = _table(
    "seats",
    id=sa.Integer(),
    game_id=sa.Integer(),
    colour=sa.String(),
    standing_order=sa.JSON(),
    mailed_seq=sa.Integer(),
    told_events=sa.Integer(),
)
events = _table("events", game_id=sa.Integer(), seq=sa.Integer(), visible_to=sa.JSON())


def _visible(conn: sa.Connection, game_id: int, colour: str) -> list[int]:
    """The numbers of the game's events the colour may see, in order (what its ``engine.view`` lists)."""
    rows = conn.execute(
        sa.select(events.c.seq, events.c.visible_to).where(events.c.game_id == game_id).order_by(events.c.seq)
    ).all()
    return [seq for seq, to in rows if to is None or colour in to]


def _orders_to_engine(conn: sa.Connection) -> None:
    import engine  # the engine of this release replays the stored log and adds the orders to it

    rows = conn.execute(
        sa.select(seats.c.game_id, seats.c.colour, seats.c.standing_order)
        .join(games, games.c.id == seats.c.game_id)
        .where(seats.c.standing_order.is_not(None), games.c.status == "running")
        .order_by(seats.c.game_id, seats.c.id)
    ).all()
    by_game: dict[int, list[tuple[str, list[str]]]] = {}
    for game_id, colour, order in rows:
        if order:
            by_game.setdefault(game_id, []).append((colour, list(order)))
    for game_id, orders in by_game.items():
        state, version = conn.execute(sa.select(games.c.state, games.c.version).where(games.c.id == game_id)).one()
        eng = engine.Game.from_json(state)
        for colour, order in orders:
            eng.set_standing_order(colour, order, answer_open=False)
        conn.execute(games.update().where(games.c.id == game_id).values(state=eng.to_json(), version=version + 1))


def _count_told(conn: sa.Connection) -> None:
    told = conn.execute(
        sa.select(seats.c.id, seats.c.game_id, seats.c.colour, seats.c.mailed_seq).where(
            seats.c.mailed_seq.is_not(None)
        )
    ).all()
    for seat_id, game_id, colour, mailed_seq in told:
        count = sum(1 for seq in _visible(conn, game_id, colour) if seq <= mailed_seq)
        conn.execute(seats.update().where(seats.c.id == seat_id).values(told_events=count))


def upgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("told_events", sa.Integer(), nullable=True))
    conn = op.get_bind()
    _orders_to_engine(conn)
    _count_told(conn)
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("mailed_seq")
        batch_op.drop_column("standing_order")


def _orders_from_engine(conn: sa.Connection) -> None:
    import engine

    running = conn.execute(sa.select(games.c.id, games.c.state).where(games.c.status == "running")).all()
    for game_id, state in running:
        eng = engine.Game.from_json(state)
        for colour in eng.players:
            order = engine.view(eng, colour)["standing_order"]
            if order:
                conn.execute(
                    seats.update()
                    .where(seats.c.game_id == game_id, seats.c.colour == colour)
                    .values(standing_order=list(order))
                )


def downgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("standing_order", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("mailed_seq", sa.Integer(), nullable=True))
    conn = op.get_bind()
    _orders_from_engine(conn)
    told = conn.execute(
        sa.select(seats.c.id, seats.c.game_id, seats.c.colour, seats.c.told_events).where(
            seats.c.told_events.is_not(None)
        )
    ).all()
    for seat_id, game_id, colour, count in told:
        mine = _visible(conn, game_id, colour)
        mailed = mine[count - 1] if 0 < count <= len(mine) else -1
        conn.execute(seats.update().where(seats.c.id == seat_id).values(mailed_seq=mailed))
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("told_events")
