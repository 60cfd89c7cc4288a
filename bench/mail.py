"""Mail throughput: mails per second of one worker process sending a backlog of outbox rows to a local SMTP server.

A backlog of ``--rows`` turn notices over ``--games`` 5-player games (their first window's notices, each copied under
new keys) is sent to an aiosmtpd server in a subprocess that accepts and discards; per database (PostgreSQL when
``DEADMAIL_TEST_PG`` is set, in a throw-away database; SQLite in a temporary folder) and per way of sending:
``batch`` (``send.send_batch`` until the backlog is empty: one claim and one SMTP connection per 100 rows) and
``per_row`` (``send.send_one`` per row, as one task per row did before: a claim and an SMTP connection each).
Statements per mail are counted with a SQLAlchemy ``before_cursor_execute`` listener. Prints one JSON object.

    python bench/mail.py [--rows 3000] [--games 60] [--runs 3] [--tiny]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _stack import LOCAL, databases, free_port, migrated, say
from sqlalchemy import event, insert, select

from server.config import Settings
from server.db import Database
from server.mail import send
from server.mail.transports import SMTPTransport
from server.models import Outbox
from server.services.play import games

NOW = datetime(2031, 3, 4, 12, 0, tzinfo=UTC)


def serve(port: int) -> None:
    """The SMTP sink (run as ``bench/mail.py --serve PORT``): accepts every mail and forgets it."""
    from aiosmtpd.controller import Controller

    class Sink:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            return "250 2.0.0 discarded"

    controller = Controller(Sink(), hostname=LOCAL, port=port)
    controller.start()
    try:
        asyncio.run(asyncio.sleep(10**6))
    finally:
        controller.stop()


@contextmanager
def smtp_sink() -> Iterator[int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--serve", str(port)])
    try:
        for _ in range(200):
            try:
                SMTPTransport.from_url(f"smtp://{LOCAL}:{port}?timeout=2").connect().quit()
                break
            except OSError:
                time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        proc.wait(10)


def backlog(db: Database, rows: int, game_count: int) -> None:
    """``game_count`` games whose first notices are copied until the outbox holds ``rows`` pending rows."""
    people = [games.parse_player(f"P{i} <p{i}@example.org>") for i in range(5)]
    for seed in range(game_count):
        games.create_game(db, games.GameSpec(players=people, seed=seed + 1), now=NOW)
    with db.session() as session:
        first = list(session.execute(select(Outbox)).scalars())
        columns = ("game_id", "player_id", "seat_id", "kind", "payload", "status", "created_at", "next_attempt_at")
        copies = []
        for n in range(rows - len(first)):
            row = first[n % len(first)]
            copies.append({**{c: getattr(row, c) for c in columns}, "key": f"bench:{n}:{row.key}"})
        if copies:
            session.execute(insert(Outbox), copies)


def one_run(url: str, way: str, rows: int, game_count: int, port: int, workdir: Path) -> dict[str, float]:
    db = migrated(url)
    try:
        backlog(db, rows, game_count)
        settings = Settings(
            database_url=url,
            broker_url="memory://",
            secret_key="bench-secret-key",
            base_url="http://127.0.0.1:8080",
            api_token="bench-api-token",
            data_dir=workdir,
            smtp_url=f"smtp://{LOCAL}:{port}?timeout=10",
        )
        settings = replace(settings, mail_from="deadmail <deadmail@example.org>")
        transport = SMTPTransport(settings.smtp)  # type: ignore[arg-type]
        statements = [0]

        def count(*_: Any) -> None:
            statements[0] += 1

        event.listen(db.engine, "before_cursor_execute", count)
        with db.session() as session:
            ids = list(session.execute(select(Outbox.id).order_by(Outbox.id)).scalars())
        statements[0] = 0
        started = time.perf_counter()
        if way == "batch":
            while send.full(send.send_batch(db, transport, settings, NOW), 100):
                pass
        else:
            for row_id in ids:
                send.send_one(db, row_id, transport, settings, NOW)
        seconds = time.perf_counter() - started
        event.remove(db.engine, "before_cursor_execute", count)
        with db.session() as session:
            sent = session.execute(select(Outbox.id).where(Outbox.status == "sent")).scalars().all()
        return {"mails_per_s": len(sent) / seconds, "statements_per_mail": statements[0] / max(1, len(sent))}
    finally:
        db.dispose()


def measure(url_for: Any, way: str, args: argparse.Namespace, port: int) -> dict[str, Any]:
    runs = []
    for _ in range(args.runs):
        with url_for() as (url, workdir):
            runs.append(one_run(url, way, args.rows, args.games, port, workdir))
    rates = [r["mails_per_s"] for r in runs]
    say(f"{way}: {', '.join(f'{r:.0f}' for r in rates)} mails/s")
    return {
        "mails_per_s": round(statistics.median(rates), 1),
        "runs": [round(r, 1) for r in rates],
        "statements_per_mail": round(statistics.median(r["statements_per_mail"] for r in runs), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ways", default="batch,per_row", help="batch, per_row or both")
    parser.add_argument("--tiny", action="store_true", help="a few seconds: 40 rows over 2 games, one run")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve)
    if args.tiny:
        args.rows, args.games, args.runs = 40, 2, 1
    result: dict[str, Any] = {"rows": args.rows, "games": args.games, "runs": args.runs}
    with smtp_sink() as port:
        for name, url_for in databases().items():
            result[name] = {way: measure(url_for, way, args, port) for way in args.ways.split(",")}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
