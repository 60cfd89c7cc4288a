"""storage: a game's closed windows and their requests folded into one packed archive on the game

- ``games.archive`` (new): the game's closed windows and their requests (``services.archive``), packed as
  ``games.state`` is (``server.packing.pack``, the saved games' dictionary); their ``windows`` and ``requests`` rows
  are deleted.
- ``ledgers`` (new table): per person, the requests counted for their reliability over every game
  (``services.reliability``): how many, and the newest 50 (opened, deadline, answered, defaulted, window id).

The downgrade gives back a row per archived window (with its id) and request (closed, payload null; what the
archive does not keep starts again from its default: a request's id is new, ``reminded`` and ``deadline_revision``
are 0), and drops the archives and the ledgers.

Revision ID: 0022
Revises: 0021
Create Date: 2027-01-02 10:00:00
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from alembic import op

from server.packing import GAMES, pack, unpack

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: an archived window's and request's fields, in order (``services.archive``).
W = ("id", "number", "round", "phase", "opened_at", "deadline", "completed_at", "closed_at")
R = ("number", "seat_id", "player_id", "position", "kind", "secret", "answer", "answered_at", "defaulted",
     "standing", "autopilot")  # fmt: skip
INSTANTS = {"opened_at", "deadline", "completed_at", "closed_at", "answered_at"}
LAST = 50
#: games (and people) read at a time.
CHUNK = 500

windows = sa.table(
    "windows",
    sa.column("id", sa.Integer()),
    sa.column("game_id", sa.Integer()),
    sa.column("status", sa.String()),
    *(sa.column(c, sa.DateTime() if c in INSTANTS else sa.Integer()) for c in W if c not in ("id", "phase")),
    sa.column("phase", sa.String()),
)
requests = sa.table(
    "requests",
    sa.column("id", sa.Integer()),
    sa.column("window_id", sa.Integer()),
    sa.column("payload", sa.JSON(none_as_null=True)),
    sa.column("kind", sa.String()),
    sa.column("answer", sa.JSON(none_as_null=True)),
    sa.column("answered_at", sa.DateTime()),
    *(sa.column(c, sa.Boolean()) for c in ("secret", "defaulted", "standing", "autopilot")),
    *(sa.column(c, sa.Integer()) for c in ("seat_id", "player_id", "position")),
)
games = sa.table("games", sa.column("id", sa.Integer()), sa.column("archive", sa.LargeBinary()))
ledgers = sa.table(
    "ledgers",
    sa.column("player_id", sa.Integer()),
    sa.column("counted", sa.Integer()),
    sa.column("newest", sa.LargeBinary()),
)


EPOCH = datetime(1970, 1, 1)  # naive UTC, as the rows read here


def _stamp(at: datetime | None) -> int | None:
    """Microseconds since the epoch (``services.archive.stamp``)."""
    return None if at is None else (at - EPOCH) // timedelta(microseconds=1)


def _at(micros: int | None) -> datetime | None:
    return None if micros is None else EPOCH + timedelta(microseconds=micros)


def _values(row: Any, fields: Sequence[str]) -> list[Any]:
    """A row's ``fields`` as the archive keeps them."""
    return [_stamp(row._mapping[c]) if c in INSTANTS else row._mapping[c] for c in fields]


def _autoincrement(on: bool) -> None:
    """SQLite: ``windows`` and ``requests`` ids never given again once their rows are deleted (mail keys carry
    them); PostgreSQL's sequences never give one again."""
    conn = op.get_bind()
    if conn.dialect.name == "sqlite":
        # rebuilding ``windows`` drops the old table: with foreign keys on, that would delete every request
        assert not conn.exec_driver_sql("PRAGMA foreign_keys").scalar(), "run migrations with foreign keys off"
        for table in ("windows", "requests"):
            with op.batch_alter_table(table, recreate="always", table_kwargs={"sqlite_autoincrement": on}):
                pass


def _ledgers(conn: sa.Connection, closed: sa.ColumnElement[bool]) -> None:
    """Each person's ledger from their counted requests in closed windows (as ``services.reliability`` counted
    them), a chunk of people at a time: a window function keeps each one's newest ``LAST``."""
    people = list(conn.execute(sa.select(requests.c.player_id).where(requests.c.player_id.is_not(None)).distinct()))
    for start in range(0, len(people), CHUNK):
        chunk = [p for (p,) in people[start : start + CHUNK]]
        counted = sa.and_(
            closed,
            requests.c.player_id.in_(chunk),
            sa.not_(requests.c.standing),
            sa.not_(requests.c.autopilot),
            sa.or_(requests.c.answered_at.is_not(None), requests.c.defaulted),
            sa.not_(requests.c.secret),
        )
        newest = (windows.c.opened_at.desc(), windows.c.id.desc(), requests.c.id.desc())
        inner = (
            sa.select(
                requests.c.player_id,
                windows.c.opened_at,
                windows.c.deadline,
                requests.c.answered_at,
                requests.c.defaulted,
                windows.c.id.label("window_id"),
                sa.func.row_number().over(partition_by=requests.c.player_id, order_by=newest).label("age"),
                sa.func.count().over(partition_by=requests.c.player_id).label("total"),
            )
            .join(windows, windows.c.id == requests.c.window_id)
            .where(counted)
            .subquery()
        )
        found: dict[int, dict[str, Any]] = {}
        for row in conn.execute(sa.select(inner).where(inner.c.age <= LAST).order_by(inner.c.player_id, inner.c.age)):
            ledger = found.setdefault(row.player_id, {"player_id": row.player_id, "counted": row.total, "newest": []})
            instants = [_stamp(row.opened_at), _stamp(row.deadline), _stamp(row.answered_at)]
            ledger["newest"].append([*instants, bool(row.defaulted), row.window_id])
        if found:
            conn.execute(ledgers.insert(), [{**f, "newest": pack(f["newest"], GAMES)} for f in found.values()])


def _archives(conn: sa.Connection, closed: sa.ColumnElement[bool]) -> None:
    """Each game's closed windows and their requests into its archive, their rows deleted, a chunk of games at a
    time."""
    games_with = list(conn.execute(sa.select(windows.c.game_id).where(closed).distinct()))
    for start in range(0, len(games_with), CHUNK):
        chunk = [g for (g,) in games_with[start : start + CHUNK]]
        mine = sa.and_(closed, windows.c.game_id.in_(chunk))
        archives: dict[int, dict[str, list[Any]]] = defaultdict(lambda: {"w": [], "r": []})
        for row in conn.execute(
            sa.select(windows.c.game_id, *(windows.c[c] for c in W)).where(mine).order_by(windows.c.number)
        ):
            values = _values(row, W)
            if values[W.index("closed_at")] is None:  # closed before windows recorded when: at their deadline
                values[W.index("closed_at")] = values[W.index("deadline")]
            archives[row.game_id]["w"].append(values)
        for row in conn.execute(
            sa.select(requests, windows.c.number, windows.c.game_id)
            .join(windows, windows.c.id == requests.c.window_id)
            .where(mine)
            .order_by(windows.c.number, requests.c.position)
        ):
            archives[row.game_id]["r"].append(_values(row, R))
        for game_id, archive in archives.items():
            conn.execute(games.update().where(games.c.id == game_id).values(archive=pack(archive, GAMES)))
        conn.execute(requests.delete().where(requests.c.window_id.in_(sa.select(windows.c.id).where(mine))))
        conn.execute(windows.delete().where(mine))


def upgrade() -> None:
    _autoincrement(True)
    op.add_column("games", sa.Column("archive", sa.LargeBinary(), nullable=True))
    op.create_table(
        "ledgers",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("counted", sa.Integer(), nullable=False),
        sa.Column("newest", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_ledgers_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_ledgers")),
    )
    conn = op.get_bind()
    closed = windows.c.status == "closed"
    _ledgers(conn, closed)
    _archives(conn, closed)


def downgrade() -> None:
    conn = op.get_bind()
    for game_id, packed in conn.execute(sa.select(games.c.id, games.c.archive).where(games.c.archive.is_not(None))):
        archive = unpack(bytes(packed))
        ids = {}
        for values in archive["w"]:
            fields = {c: _at(v) if c in INSTANTS else v for c, v in zip(W, values, strict=True)}
            conn.execute(windows.insert().values(game_id=game_id, status="closed", **fields))
            ids[fields["number"]] = fields["id"]
        for values in archive["r"]:
            fields = {c: _at(v) if c in INSTANTS else v for c, v in zip(R, values, strict=True)}
            conn.execute(requests.insert().values(window_id=ids[fields.pop("number")], payload=None, **fields))
    op.drop_table("ledgers")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("archive")
    _autoincrement(False)
