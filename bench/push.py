"""Push throughput: notifications per second of one worker process sending a backlog of turn notifications by Web Push
to the tests' local push service (``tests/push_service.py``) in a subprocess, which checks each request's VAPID token
against the server's key and decrypts each payload (aes128gcm) with the subscription's key, as a vendor's does.

A backlog of ``--rows`` notifications over ``--games`` 5-player games (every player with one subscribed device;
their first window's notifications, copied under new keys) is sent by ``server.mail.push.send_nudges`` in batches of
100 (one claim, one read, a request each over kept-alive connections, one VAPID token per push service), on SQLite
and on PostgreSQL when ``DEADMAIL_TEST_PG`` is set. The sender's own CPU time is measured too (the push service, in
its own process, shares the machine's two cores). Prints one JSON object.

    python bench/push.py [--rows 3000] [--games 60] [--runs 3] [--tiny]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _stack import databases, free_port, migrated, say
from sqlalchemy import insert, select

from server.config import Settings, prepare_data_dir
from server.db import Database
from server.mail.push import Pusher, send_nudges
from server.models import Device, Nudge, OutboxStatus, Player
from server.services.play import games

NOW = datetime(2031, 3, 4, 12, 0, tzinfo=UTC)


def serve(port: int, key: str, count: int, out: Path) -> None:
    """The push service (``bench/push.py --serve PORT KEY COUNT FILE``): ``COUNT`` subscriptions for the server's
    ``KEY`` written to ``FILE`` as JSON, then served until terminated."""
    from tests.push_service import PushService

    service = PushService()
    service.start(port)
    out.write_text(json.dumps([service.subscribe(key) for _ in range(count)]))
    try:
        while True:
            time.sleep(3600)
    finally:
        service.stop()


@contextmanager
def push_service(key: str, count: int, workdir: Path) -> Iterator[tuple[list[dict[str, Any]], subprocess.Popen[bytes]]]:
    port = free_port()
    out = workdir / "subscriptions.json"
    proc = subprocess.Popen([sys.executable, __file__, "--serve", str(port), key, str(count), str(out)])
    try:
        for _ in range(400):
            if out.exists() and out.stat().st_size:
                try:
                    yield json.loads(out.read_text()), proc
                    break
                except json.JSONDecodeError:
                    pass
            time.sleep(0.05)
        else:
            raise RuntimeError("the push service did not start")
    finally:
        proc.terminate()
        proc.wait(10)


def backlog(db: Database, rows: int, game_count: int, subscriptions: list[dict[str, Any]]) -> None:
    """``game_count`` games of 5 players, each player with one device, their first notifications copied until the
    table holds ``rows`` pending notifications."""
    with db.session() as session:
        for n in range(5 * game_count):
            player = Player(email=f"p{n}@example.org", display_name=f"P{n}")
            session.add(player)
            session.flush()
            sub = subscriptions[n]
            session.add(
                Device(
                    player_id=player.id,
                    kind="push",
                    endpoint=sub["endpoint"],
                    p256dh=sub["keys"]["p256dh"],
                    auth=sub["keys"]["auth"],
                    name="bench",
                    created_at=NOW,
                    failures=0,
                )
            )
    for g in range(game_count):
        people = [games.parse_player(f"P{n} <p{n}@example.org>") for n in range(5 * g, 5 * g + 5)]
        games.create_game(db, games.GameSpec(players=people, seed=g + 1), now=NOW)
    with db.session() as session:
        first = list(session.execute(select(Nudge)).scalars())
        columns = ("device_id", "player_id", "seat_id", "kind", "window_number", "status", "attempts", "created_at")
        copies = [
            {**{c: getattr(row, c) for c in columns}, "key": f"bench:{n}", "next_attempt_at": NOW}
            for n, row in ((n, first[n % len(first)]) for n in range(rows - len(first)))
        ]
        if copies:
            session.execute(insert(Nudge), copies)


def one_run(url: str, args: argparse.Namespace, workdir: Path) -> dict[str, float]:
    settings = prepare_data_dir(
        Settings(
            database_url=url,
            broker_url="memory://",
            secret_key="bench-secret-key",
            base_url="http://127.0.0.1:8080",
            api_token="bench-api-token",
            data_dir=workdir,
            mail_from="deadmail <deadmail@example.org>",
        )
    )
    db = migrated(url)
    try:
        with push_service(settings.vapid_public_key, 5 * args.games, workdir) as (subscriptions, _proc):
            backlog(db, args.rows, args.games, subscriptions)
            pusher = Pusher(settings)
            started, cpu = time.perf_counter(), time.process_time()
            while len(send_nudges(db, settings, NOW, limit=100, pusher=pusher)) == 100:
                pass
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            pusher.close()
        with db.session() as session:
            statuses = list(session.execute(select(Nudge.status)).scalars())
        sent = statuses.count(OutboxStatus.SENT)
        assert sent == len(statuses) == args.rows, (sent, len(statuses))
        return {"per_s": sent / seconds, "cpu_ms_per_notification": 1000 * cpu / sent}
    finally:
        db.dispose()


def measure(url_for: Any, args: argparse.Namespace) -> dict[str, Any]:
    runs = []
    for _ in range(args.runs):
        with url_for() as (url, workdir):
            runs.append(one_run(url, args, workdir))
    rates = [r["per_s"] for r in runs]
    say(f"{', '.join(f'{r:.0f}' for r in rates)} notifications/s")
    return {
        "notifications_per_s": round(statistics.median(rates), 1),
        "runs": [round(r, 1) for r in rates],
        "sender_cpu_ms_per_notification": round(statistics.median(r["cpu_ms_per_notification"] for r in runs), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tiny", action="store_true", help="a few seconds: 60 rows over 2 games, one run")
    parser.add_argument("--serve", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        port, key, count, out = args.serve
        return serve(int(port), key, int(count), Path(out))
    if args.tiny:
        args.rows, args.games, args.runs = 60, 2, 1
    result: dict[str, Any] = {"benchmark": "push", "rows": args.rows, "games": args.games, "runs": args.runs}
    for name, url_for in databases().items():
        result[name] = measure(url_for, args)
    print(json.dumps(result))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    main()
