"""Storage: bytes per live game and per finished game on PostgreSQL, per table, as one JSON object.

    DEADMAIL_TEST_PG=postgresql+psycopg://postgres@127.0.0.1:5432/test python bench/storage.py [--games 6] [--tiny]

Plays ``--games`` 5-seat games (3 people, 2 random bots) through the services in a fresh database ``dm_bench_<random>``
(dropped at the end): half stopped in their middle (live), half to their end (finished); every answer is given
at once, every due mail is composed and sent (discarded) after each advance, the sweep's reminders are not run.
``--prune`` prunes the outbox (``services.mailflow.outbox.prune``) as it would be once its keep time has passed. Then
the games' rows are copied ``--copies`` times (99: 30 games become 3,000), so that what a table costs whatever its rows
(an index's first pages) is shared as it would be at scale.

:func:`measure` measures any deadmail database (``bench/scale.py`` uses it): each table's
``pg_total_relation_size`` (rows, indexes, TOAST) after ``VACUUM FULL ANALYZE``, shared among games by the size
of each game's rows (``pg_column_size``), rows that belong to no game shared evenly.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/storage.py` from a checkout that is not installed
    sys.path.insert(0, str(ROOT))

import sqlalchemy as sa  # noqa: E402

#: how a table's rows reach their game (a SQL expression over the row ``t``, and the joins it needs).
GAME_OF = {
    "games": ("t.id", ""),
    "seats": ("t.game_id", ""),
    "windows": ("t.game_id", ""),
    "event_batches": ("t.game_id", ""),
    "outbox": ("t.game_id", ""),
    "chat_channels": ("t.game_id", ""),
    "requests": ("w.game_id", "JOIN windows w ON w.id = t.window_id"),
    "seat_tenures": ("s.game_id", "JOIN seats s ON s.id = t.seat_id"),
    "invitations": ("s.game_id", "JOIN seats s ON s.id = t.seat_id"),
    "chat_messages": ("c.game_id", "JOIN chat_channels c ON c.id = t.channel_id"),
}


def _settled(conn: sa.Connection, seconds: float = 60) -> None:
    """Waits (at most ``seconds``) until no other transaction, in any database of the server, is older than now:
    PostgreSQL keeps the rows they might still see, so ``VACUUM FULL`` would count this database's dead rows too
    when other programs (tests, benchmarks) use the same server."""
    mark = conn.execute(sa.text("SELECT (pg_current_xact_id()::text::bigint % 4294967296)::text::xid")).scalar_one()
    older = sa.text(
        "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
        " AND (age(backend_xmin) >= age(CAST(:mark AS xid)) OR age(backend_xid) >= age(CAST(:mark AS xid)))"
    )
    end = time.monotonic() + seconds
    while conn.execute(older, {"mark": mark}).scalar_one() and time.monotonic() < end:
        time.sleep(0.2)


def measure(url: str) -> dict[str, Any]:
    """Bytes per live game (running) and per finished game (over or abandoned) in the database at ``url``, in all
    and per table (``bytes``, ``rows`` and ``row_bytes``: the mean ``pg_column_size`` of a row)."""
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            _settled(conn)
            conn.execute(sa.text("VACUUM FULL ANALYZE"))
            tables = conn.execute(sa.text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).scalars()
            counts = dict(
                conn.execute(sa.text("SELECT status = 'running', count(*) FROM games GROUP BY 1")).all()  # type: ignore[arg-type]
            )
            live, finished = counts.get(True, 0), counts.get(False, 0)
            per_table: dict[str, Any] = {}
            totals = {"live": 0.0, "finished": 0.0}
            for table in sorted(set(tables) - {"alembic_version"}):
                total = conn.execute(sa.text(f"SELECT pg_total_relation_size('{table}')")).scalar_one()
                game, join = GAME_OF.get(table, ("NULL", ""))
                parts = conn.execute(
                    sa.text(
                        f"SELECT g.status = 'running', count(*), sum(pg_column_size(t.*)) FROM {table} t {join}"
                        f" LEFT JOIN games g ON g.id = {game} GROUP BY 1"
                    )
                ).all()
                rows = sum(int(p[1]) for p in parts)
                size = {p[0]: float(p[2] or 0) for p in parts}
                whole = sum(size.values()) or 1.0
                shared = total * size.get(None, 0.0) / whole / max(1, live + finished)  # per game, whatever its state
                entry = {"bytes": total, "rows": rows, "row_bytes": round(whole / rows) if rows else 0}
                for name, running, count in (("live", True, live), ("finished", False, finished)):
                    if count:
                        share = total * size.get(running, 0.0) / whole / count + shared
                        entry[f"{name}_bytes_per_game"] = round(share)
                        totals[name] += share
                per_table[table] = entry
    finally:
        engine.dispose()
    return {
        "live_games": live,
        "finished_games": finished,
        "bytes_per_live_game": round(totals["live"]),
        "bytes_per_finished_game": round(totals["finished"]),
        "tables": per_table,
    }


class _Discard:
    """A transport that takes every mail and keeps none."""

    def send(self, message: EmailMessage, accepted: Callable[[], None]) -> None:
        accepted()


def play(url: str, games: int, seed: int, prune: bool) -> None:
    """``games`` games of 3 people and 2 bots, the first half stopped after about half their windows, the rest to
    the end; mail sent after each advance."""
    import engine.bots
    from server.config import Settings, prepare_data_dir
    from server.db import Database
    from server.mail.send import send_due
    from server.models import Game, Window
    from server.run.migrate import upgrade
    from server.services.mailflow import outbox
    from server.services.play import games as game_service
    from server.services.play import turns
    from server.services.play.engines import CACHE

    upgrade(url)
    db = Database(url)
    folder = tempfile.mkdtemp(prefix="dm-storage-")
    settings = prepare_data_dir(
        Settings.from_env(
            {"DEADMAIL_DATA_DIR": folder, "DATABASE_URL": url, "DEADMAIL_SECRET_KEY": "s", "DEADMAIL_API_TOKEN": "t"}
        )
    )
    now = datetime(2031, 3, 4, 12, 0, tzinfo=UTC)
    for i in range(games):
        players = [game_service.PlayerSpec(name=f"P{p}", email=f"p{p}.{i}@bench.invalid") for p in range(3)]
        players += [game_service.PlayerSpec(bot="random") for _ in range(2)]
        spec = game_service.GameSpec(players=players, seed=seed + i)
        game_id = game_service.create_game(db, spec, now=now).game_id
        stop_at = 30 if i < games // 2 else None  # about half of a game's windows
        while stop_at is None or stop_at > 0:
            with db.session() as session:
                window = session.execute(
                    sa.select(Window).where(Window.game_id == game_id, Window.status == "open")
                ).scalar_one_or_none()
                if window is None:
                    break
                game = session.get(Game, game_id)
                assert game is not None
                eng = CACHE.get(game)
                owed = [(r.seat_id, r.seat.colour, r.kind) for r in window.requests if r.answered_at is None]
                window_id, number, done = window.id, window.number, window.completed_at is not None
            for seat_id, colour, kind in [] if done else owed:
                req = next(r for r in eng.pending() if r.player == colour)
                value = engine.bots.RandomBot(seed * 31 + number).decide(eng, req)
                if turns.submit_answer(db, seat_id, kind, value, window_number=number, now=now).complete:
                    break
            now += timedelta(minutes=7)
            turns.advance_window(db, window_id, now=now)
            send_due(db, _Discard(), settings, now)
            stop_at = None if stop_at is None else stop_at - 1
    if prune:
        later = now + timedelta(days=365)
        while outbox.prune(db, later) == 1000:
            pass
    db.dispose()


def copy(url: str, copies: int) -> None:
    """Every game's rows copied ``copies`` times (``bench.scale.Cloner``: ``INSERT … SELECT``), so each table's pages
    that do not grow with its rows (an index's metapage and root, a relation's last page, partly filled) weigh per
    game what they weigh at scale, not a fifteenth of a table's size each as with 30 games. A copy's packed values
    (its archive, events) are its template's, byte for byte."""
    from bench.scale import Cloner

    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            games = list(conn.execute(sa.text("SELECT id FROM games ORDER BY id")).scalars())
            Cloner(conn).clone(conn, games, copies, "interval '0 seconds'", sent=False)
    finally:
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--tiny", action="store_true", help="2 games: checks the benchmark runs (its figures are mostly whole pages)"
    )
    parser.add_argument("--prune", action="store_true", help="prune the outbox before measuring")
    parser.add_argument(
        "--copies", type=int, default=99, help="copies of the games played, measured with them (0 with --tiny)"
    )
    args = parser.parse_args()
    import os

    from bench._stack import postgres_database

    server = os.environ.get("DEADMAIL_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test").rsplit("/", 1)[0]
    games = 2 if args.tiny else args.games
    with postgres_database(server) as url:
        play(url, games, args.seed, args.prune)
        copies = 0 if args.tiny else args.copies
        if copies:
            copy(url, copies)
        result = measure(url)
    print(json.dumps({"games": games, "copies": copies, "seed": args.seed, "pruned": args.prune, **result}, indent=1))


if __name__ == "__main__":
    main()
