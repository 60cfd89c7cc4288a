"""Latency from a window's last answer to the next window being open, through the real path.

    python bench/latency.py [--broker redis|embedded|both] [--games 4] [--players 5] [--max-windows 400]
                            [--limit 240] [--seed 1]

For each broker, on 127.0.0.1 only:

- ``redis``: a fresh PostgreSQL database ``dm_bench_<random>`` (dropped at the end), Redis database 13 as the
  broker (emptied before and after), ``gunicorn 'server.run.wsgi:app' -w 2``;
- ``embedded``: SQLite (WAL) in a temporary folder, kombu's ``filesystem://`` broker, ``waitress`` with 8 threads
  (the ``deadmail up`` setup);

and in both a real worker subprocess (``server.run.processes.start_worker``: ``celery worker --pool=solo -B``, the
sweep every 60 s as in production, so it cannot hide a lost kick within the measured figures). Once the worker
answers a task, ``--games`` games of ``--players`` people are created through POST /api/games (deadlines of one
hour, so no window closes by its deadline), and one bot thread per game plays it over HTTP: GET /api/seat/<token>
for every seat, a legal answer (the engine's random bot, ``_stack.bot_answer``) POSTed for every request, then it
polls one seat every 50 ms until the next window is open. The latencies come from the database rows, as
``server.run.demo.latencies`` computes them: ``windows.completed_at`` (the commit of the last answer, set by the
web process) to the next window's ``opened_at`` (set by the worker), so the bots' polling does not enter the
figures.

Prints progress on stderr and one JSON object on stdout: per broker the number of windows measured, median,
p95 and max in seconds, how many games reached their end, and how often the worker exited (it is restarted, and
its lost message waits for the sweep).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import _stack
from _stack import Client, say

REDIS = "redis://127.0.0.1:6379/13"


class Timed(Client):
    """The client, keeping each call's duration by method (the bots' view of the web server)."""

    def __init__(self, port: int, times: dict[str, list[float]]) -> None:
        super().__init__(port)
        self.times = times

    def call(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        t0 = time.monotonic()
        try:
            return super().call(method, path, body, headers)
        finally:
            self.times[method].append(time.monotonic() - t0)


def play(
    port: int,
    game: dict[str, Any],
    *,
    seed: int,
    halt: threading.Event,
    db: Any,
    answers: list[int],
    times: dict[str, list[float]],
) -> str:
    """One game's bots, over HTTP, until the game is over or ``halt`` is set; returns the last status seen."""
    client = Timed(port, times)
    tokens = [_stack.token_of(seat) for seat in game["seats"]]
    status = "running"
    try:
        while status == "running" and not halt.is_set():
            seen = set()  # window numbers met in this pass over the seats
            for token in tokens:
                code, data = client.json("GET", f"/api/seat/{token}")
                if code != 200:
                    raise RuntimeError(f"GET seat: HTTP {code} {data}")
                status, window = data["game"]["status"], data["window"]
                if status != "running" or window is None:
                    continue
                seen.add(window["number"])
                if window["request"] is None or window["answer"] is not None:
                    continue
                body = {
                    "kind": window["request"]["kind"],
                    "window": window["number"],
                    "answer": _stack.bot_answer(db, token, seed * 1009 + window["number"]),
                }
                code, reply = client.json("POST", f"/api/seat/{token}/answer", body)
                if code == 409:  # the window closed meanwhile (by the last answer of another seat)
                    continue
                if code != 200:
                    raise RuntimeError(f"answer {body}: HTTP {code} {reply}")
                answers[0] += 1
            if len(seen) != 1:  # the window moved on during the pass (or none is open): look again at once
                time.sleep(0.01)
                continue
            number = seen.pop()
            while status == "running" and not halt.is_set():  # until the next window is open
                time.sleep(0.05)
                _code, data = client.json("GET", f"/api/seat/{tokens[0]}")
                status, window = data["game"]["status"], data["window"]
                if window is not None and window["number"] > number:
                    break
    finally:
        client.close()
    return status


@contextlib.contextmanager
def installation(broker: str, pg: str, tmp: Path) -> Iterator[tuple[str, str, str]]:
    """(database URL, broker URL, web server kind) for one setup; cleaned up at the end."""
    if broker == "embedded":
        yield f"sqlite:///{tmp / 'deadmail.db'}", "filesystem://", "waitress"
        return
    with _stack.postgres_database(pg) as database_url, _stack.redis_db(REDIS) as broker_url:
        yield database_url, broker_url, "gunicorn"


def wait_for_worker(settings: Any, db: Any, worker: Any, limit: float = 60) -> float:
    """Send one sweep task and wait for a heartbeat row (whichever part of the sweep writes it): the worker is up
    and consuming. Returns seconds."""
    from sqlalchemy import func, select

    from server.models import Heartbeat
    from server.run.queue import Queue

    def beaten() -> bool:
        with db.session() as session:
            return bool(session.execute(select(func.count()).select_from(Heartbeat)).scalar_one())

    t0 = time.monotonic()
    Queue(settings).celery.send_task("deadmail.sweep", ignore_result=True)
    while not beaten():
        if worker.poll() is not None:
            raise RuntimeError(f"the worker exited with status {worker.returncode}")
        if time.monotonic() - t0 > limit:
            raise RuntimeError("the worker did not run a task within 60 s")
        time.sleep(0.1)
    return time.monotonic() - t0


def drain(db: Any, game_ids: list[int], limit: float = 90) -> None:
    """Let the worker open the windows that follow the last answers (else the slowest would be left out); 90 s
    covers a kick lost with a crashed worker, which the sweep (every 60 s) recovers."""
    from sqlalchemy import func, select

    from server.models import Window

    end = time.monotonic() + limit
    while time.monotonic() < end:
        with db.session() as session:
            waiting = session.execute(
                select(func.count(Window.id)).where(
                    Window.game_id.in_(game_ids), Window.status != "closed", Window.completed_at.is_not(None)
                )
            ).scalar_one()
        if not waiting:
            return
        time.sleep(0.1)
    say(f"  {waiting} complete windows still not advanced after {limit:.0f} s")


class Run:
    """Bots playing the created games over HTTP, one thread each, while the worker (restarted if it exits) advances
    them; stops once enough windows are measured or the time limit passed."""

    def __init__(self, port: int, args: argparse.Namespace, db: Any, settings: Any, worker: Any) -> None:
        self.port, self.args, self.db, self.settings, self.worker = port, args, db, settings, worker
        self.crashes = 0
        self.seconds = 0.0
        self.answers = [0]
        self.calls: dict[str, list[float]] = {"GET": [], "POST": []}
        self.statuses: dict[int, str] = {}

    def play(self, created: list[dict[str, Any]]) -> None:
        from server.run.demo import latencies
        from server.run.processes import start_worker

        t0 = time.monotonic()
        halt = threading.Event()

        def bot(i: int, game: dict[str, Any]) -> None:
            seed = self.args.seed * 100 + i
            self.statuses[game["id"]] = play(
                self.port, game, seed=seed, halt=halt, db=self.db, answers=self.answers, times=self.calls
            )

        threads = [threading.Thread(target=bot, args=(i, g)) for i, g in enumerate(created)]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            time.sleep(1)
            measured = sum(len(latencies(self.db, g["id"])) for g in created)
            if self.worker.poll() is not None:  # counted and restarted; its lost message waits for the sweep
                self.crashes += 1
                say(f"  the worker exited (status {self.worker.returncode}); restarting it (crash {self.crashes})")
                self.worker = start_worker(self.settings)
            if measured >= self.args.max_windows or time.monotonic() - t0 > self.args.limit:
                halt.set()  # the bots stop after their current window
        self.seconds = time.monotonic() - t0
        halt.set()
        for t in threads:
            t.join()


def measure(broker: str, args: argparse.Namespace) -> dict[str, Any]:
    from server.config import Settings, prepare_data_dir
    from server.db import Database
    from server.run.demo import latencies
    from server.run.migrate import upgrade
    from server.run.processes import start_worker, stop

    with tempfile.TemporaryDirectory(prefix="dm-bench-") as folder:
        tmp = Path(folder)
        with installation(broker, args.pg, tmp) as (database_url, broker_url, web_kind):
            port = _stack.free_port()
            env = _stack.server_env(tmp / "data", database_url, broker_url, f"http://127.0.0.1:{port}")
            (tmp / "data").mkdir()  # the worker keeps its beat schedule there
            settings = prepare_data_dir(Settings.from_env(env))  # the filesystem broker's folders in the data dir
            upgrade(database_url)
            db = Database(database_url)
            web = _stack.start_web(web_kind, env, port, workers=2)
            worker = start_worker(settings)
            try:
                say(f"{broker}: {web_kind} on port {port}, worker pid {worker.pid}, broker {broker_url}")
                say(f"  worker ready after {wait_for_worker(settings, db, worker):.1f} s")
                created = _stack.create_games(port, args.games, args.players, "1h", args.seed)
                run = Run(port, args, db, settings, worker)
                run.play(created)
                worker, seconds, crashes = run.worker, run.seconds, run.crashes
                answers, calls, statuses = run.answers, run.calls, run.statuses
                drain(db, [g["id"] for g in created])
                times = [x for g in created for x in latencies(db, g["id"])]
            finally:
                stop(worker)
                _stack.stop(web)
                db.dispose()
    finished = sum(s == "over" for s in statuses.values())
    say(f"  {len(times)} windows in {seconds:.0f} s, {finished}/{len(created)} games to the end, {answers[0]} answers")
    return {
        "web": web_kind,
        "database": "postgresql" if broker == "redis" else "sqlite",
        "broker": "redis" if broker == "redis" else "filesystem",
        "games": len(created),
        "games_finished": finished,
        "answers": answers[0],
        "seconds": round(seconds, 1),
        "windows": len(times),
        "worker_crashes": crashes,
        "median_s": round(statistics.median(times), 3) if times else None,
        "p95_s": round(_stack.percentile(times, 0.95), 3) if times else None,
        "max_s": round(max(times), 3) if times else None,
        "http_ms_median": {m: round(statistics.median(v) * 1000, 1) for m, v in calls.items() if v},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--broker", choices=["redis", "embedded", "both"], default="both")
    ap.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432", help="PostgreSQL server URL")
    ap.add_argument("--games", type=int, default=4, help="games played at the same time")
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--max-windows", type=int, default=400, help="stop once this many windows are measured")
    ap.add_argument("--limit", type=float, default=240.0, help="seconds of play at most, per broker")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tiny", action="store_true", help="seconds, for CI: one game, 5 windows, 30 s at most")
    args = ap.parse_args()
    if args.tiny:
        args.games, args.max_windows, args.limit = 1, 5, 30.0
    if not (3 <= args.players <= 6 and 1 <= args.games <= 20 and args.limit <= 900):
        raise SystemExit("--players 3..6, --games 1..20, --limit at most 900 s")
    brokers = ["redis", "embedded"] if args.broker == "both" else [args.broker]
    result = {"benchmark": "latency", "players": args.players, "games": args.games}
    result.update({broker: measure(broker, args) for broker in brokers})
    print(json.dumps(result))


if __name__ == "__main__":
    main()
