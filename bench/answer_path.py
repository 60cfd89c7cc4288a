"""The answer path in one process: ``--answers`` answers (1,000) POSTed to ``/api/seat/<token>/answer`` through
Flask's test client, as an HTTP client sends them (each from its seat's own address: the rate limiter counts them),
on PostgreSQL (``DEADMAIL_TEST_PG``) and SQLite, with the limiter counting in Redis (``DEADMAIL_TEST_REDIS``) or
in memory. ``--games`` 5-player games wait at their first decision; four seats of each answer it again and again
(two legal answers in turn: most answers change the stored one), the fifth never does, so no window completes and
every answer is the same work.

Per answer: ``cpu_ms`` (this process's CPU time: Flask, the services, the database driver and the limiter; the
database server's own work is not in it), ``wall_ms`` (one client, one answer after the other: the round trips to
the database and Redis in it), ``statements`` (SQL statements sent) and ``commits``; then the same run with the
limiter off, interleaved, whose differences are ``limiter_cpu_ms`` and ``limiter_wall_ms``. Median of ``--runs``.
``python_calls``: the Python function calls per answer in one more run, under cProfile (``limiter_python_calls``:
the limiter's share): the CPU's work counted, the same whatever else the machine is doing (on a shared machine the
times vary by a third from run to run).
``--profile FILE`` writes a cProfile of one run on each database (``FILE.postgresql``, ``FILE.sqlite``). Prints one
JSON object.

    DEADMAIL_TEST_PG=postgresql+psycopg://postgres@127.0.0.1:5432/test DEADMAIL_TEST_REDIS=redis://127.0.0.1:6379/11 \\
        python bench/answer_path.py [--answers 1000] [--games 60] [--runs 5] [--profile FILE] [--tiny]
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import json
import os
import pstats
import statistics
import time
from pathlib import Path
from typing import Any

from _stack import SECRET, databases, migrated, redis_db, say
from sqlalchemy import event

from server.config import Settings
from server.db import Database
from server.services.links import seat_token
from server.services.play import games, seats, turns
from server.web.app import create_app

#: the seats of a game that answer (the fifth never does: no window completes).
ANSWERING = 4


def _answers(db: Database, count: int) -> list[tuple[str, str, int, list[Any]]]:
    """(token, kind, window, [two legal answers]) of the answering seats of ``count`` new games."""
    people = [games.PlayerSpec(name=f"P{i}", email=f"p{i}@example.org") for i in range(5)]
    found = []
    for n in range(count):
        game_id = games.create_game(db, games.GameSpec(players=people, seed=n)).game_id
        with db.session() as session:
            window = seats.open_window(session, game_id)
            assert window is not None
            rows = [(row.seat_id, row.kind) for row in window.requests][:ANSWERING]
            number = window.number
        for seat_id, kind in rows:
            two = [turns.bot_choice(db, seat_id, "random", seed) for seed in (n, n + 1000)]
            found.append((seat_token(SECRET, seat_id, 1), kind, number, two))
    return found


def _run(app: Any, answers: list[tuple[str, str, int, list[Any]]], count: int, db: Database) -> dict[str, float]:
    client = app.test_client()
    counted = {"statements": 0, "commits": 0}

    def statement(*_: Any) -> None:
        counted["statements"] += 1

    def commit(*_: Any) -> None:
        counted["commits"] += 1

    event.listen(db.engine, "before_cursor_execute", statement)
    event.listen(db.engine, "commit", commit)
    sends = list(itertools.islice(itertools.cycle(enumerate(answers)), count))
    try:
        started, wall = time.process_time(), time.perf_counter()
        for i, (seat, (token, kind, window, two)) in enumerate(sends):
            response = client.post(
                f"/api/seat/{token}/answer",
                json={"kind": kind, "answer": two[i // len(answers) % 2], "window": window},
                environ_base={"REMOTE_ADDR": f"10.0.{seat // 250}.{seat % 250}"},
            )
            if response.status_code != 200:
                raise SystemExit(f"answer refused: {response.status_code} {response.get_data(as_text=True)[:200]}")
        cpu, wall = time.process_time() - started, time.perf_counter() - wall
    finally:
        event.remove(db.engine, "before_cursor_execute", statement)
        event.remove(db.engine, "commit", commit)
    return {"cpu_ms": cpu * 1000 / count, "wall_ms": wall * 1000 / count, **{k: v / count for k, v in counted.items()}}


def measure(name: str, url: str, workdir: Path, broker: str, args: argparse.Namespace) -> dict[str, Any]:
    db = migrated(url)
    try:
        answers = _answers(db, args.games)
        apps = {}
        for limited in (True, False):
            settings = Settings(
                database_url=url,
                broker_url=broker,
                secret_key=SECRET,
                base_url="http://127.0.0.1:8080",
                api_token="bench-api-token",
                data_dir=workdir,
                answers_per_minute=10**6,
            )
            app = create_app(settings, db)
            for limiter in app.extensions["limiter"]:
                limiter.enabled = limited
            apps[limited] = app
        _run(apps[True], answers, min(len(answers), 100), db)  # warm: the checker cache, the templates, the pool
        runs: dict[bool, list[dict[str, float]]] = {True: [], False: []}
        for _ in range(args.runs):
            for limited in (True, False):
                runs[limited].append(_run(apps[limited], answers, args.answers, db))
        # the Python function calls an answer makes: CPU work counted, the same from run to run whatever else the
        # machine is doing (a run under the profiler; its times are not used)
        calls = {}
        for limited in (False, True):
            profile = cProfile.Profile()
            profile.runcall(_run, apps[limited], answers, args.answers, db)
            calls[limited] = pstats.Stats(profile).total_calls / args.answers  # type: ignore[attr-defined]
        if args.profile:
            profile.dump_stats(f"{args.profile}.{name}")
        on = {key: statistics.median(r[key] for r in runs[True]) for key in runs[True][0]}
        off_cpu = statistics.median(r["cpu_ms"] for r in runs[False])
        off_wall = statistics.median(r["wall_ms"] for r in runs[False])
        each = ", ".join(f"{r['cpu_ms']:.2f}" for r in runs[True])
        say(f"  cpu ms per answer: {each} (limiter off: {off_cpu:.2f})")
        return {
            "cpu_ms": round(on["cpu_ms"], 2),
            "statements": round(on["statements"], 2),
            "commits": round(on["commits"], 2),
            "wall_ms": round(on["wall_ms"], 2),
            "limiter_cpu_ms": round(on["cpu_ms"] - off_cpu, 2),
            "limiter_wall_ms": round(on["wall_ms"] - off_wall, 2),
            "runs_cpu_ms": [round(r["cpu_ms"], 2) for r in runs[True]],
            "python_calls": round(calls[True]),
            "limiter_python_calls": round(calls[True] - calls[False]),
        }
    finally:
        db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=1000)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--profile", type=Path)
    parser.add_argument("--tiny", action="store_true", help="a run of seconds (CI checks that it works)")
    args = parser.parse_args()
    if args.tiny:
        args.answers, args.games, args.runs = 40, 3, 1
    redis_url = os.environ.get("DEADMAIL_TEST_REDIS")
    out: dict[str, Any] = {"answers": args.answers, "games": args.games, "runs": args.runs}
    for name, url_for in databases().items():
        say(f"{name} ...")
        with url_for() as (url, workdir):
            if redis_url:
                with redis_db(redis_url) as broker:
                    out[name] = measure(name, url, workdir, broker, args)
            else:
                out[name] = measure(name, url, workdir, "memory://", args)
    out["limiter"] = "redis" if redis_url else "memory"
    print(json.dumps(out))


if __name__ == "__main__":
    main()
