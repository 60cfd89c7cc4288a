"""Live pages: what open seat pages cost when nothing changes, and how soon a change reaches them.

``--pages`` seat pages (5 per game) listen to the live server (``server/run/live.py``, in a subprocess: its CPU is
its own) over Server-Sent Events, as ``static/deadmail.js`` does. Idle: the live server's CPU over ``--idle``
seconds with every page open and nothing changing, plus the web's share of the pages' safety-net poll (each page asks
for its live part every ``seat.LIVE_POLL`` seconds; that part's CPU is measured here by rendering it through the
app). Changes: ``--changes`` times, one game's deadline moves (``organise.extend_deadline``, as an organiser does),
and the time until each of its five pages has the event is taken; a page then fetches its live part (the fragment's
time, measured above, is added). On SQLite, or PostgreSQL when ``DEADMAIL_TEST_PG`` is set. Prints one JSON object.

    python bench/live.py [--pages 1000] [--idle 30] [--changes 40] [--tiny]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from _stack import LOCAL, cpu_snapshot, databases, free_port, migrated, percentile, say
from sqlalchemy import select

from server.config import Settings
from server.db import Database
from server.models import Seat, utcnow
from server.services.links import seat_token
from server.services.play import games, organise
from server.web import seat as seat_pages

SECRET = "bench-secret-key"


def settings_for(url: str, folder: Path) -> Settings:
    return Settings(
        database_url=url,
        broker_url="memory://",
        secret_key=SECRET,
        base_url="http://127.0.0.1:8080",
        api_token="bench-api-token",
        data_dir=folder,
    )


def serve(url: str, port: int, folder: str) -> None:
    """The live server (``bench/live.py --serve URL PORT FOLDER``)."""
    from server.run import live

    settings = settings_for(url, Path(folder))
    live.serve(settings, Database(url), LOCAL, port)


@contextmanager
def live_server(url: str, folder: Path) -> Iterator[tuple[int, int]]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--serve", url, str(port), str(folder)])
    try:
        import requests

        for _ in range(400):
            try:
                requests.get(f"http://{LOCAL}:{port}/live-healthz", timeout=1)
                break
            except requests.RequestException:
                time.sleep(0.05)
        yield port, proc.pid
    finally:
        proc.terminate()
        proc.wait(10)


def cpu_of(pid: int) -> float:
    return cpu_snapshot().get(pid, ("", 0.0))[1]


def make_games(db: Database, pages: int) -> list[tuple[int, list[str]]]:
    """Games of five people: each game's id and its seats' link tokens."""
    made = []
    for g in range((pages + 4) // 5):
        people = [games.parse_player(f"P{n} <p{g}.{n}@example.org>") for n in range(5)]
        game_id = games.create_game(db, games.GameSpec(players=people, seed=g + 1), now=utcnow()).game_id
        with db.session() as session:
            seat_ids = session.execute(select(Seat.id).where(Seat.game_id == game_id).order_by(Seat.position))
            made.append((game_id, [seat_token(SECRET, seat_id, 1) for seat_id in seat_ids.scalars()]))
    return made


async def listen(session: Any, url: str, ready: asyncio.Event, events: asyncio.Queue[tuple[str, float]]) -> None:
    async with session.get(url) as reply:
        assert reply.status == 200, reply.status
        async for raw in reply.content:
            line = raw.decode().strip()
            if line.startswith("event: stamp"):
                ready.set()
            elif line.startswith("event: change"):
                events.put_nowait((url, time.monotonic()))


async def measure(
    db: Database, port: int, pid: int, made: list[tuple[int, list[str]]], args: argparse.Namespace
) -> dict[str, Any]:
    import aiohttp

    urls = {game_id: [f"http://{LOCAL}:{port}/live/{t}" for t in tokens] for game_id, tokens in made}
    flat = [u for found in urls.values() for u in found][: args.pages]
    events: asyncio.Queue[tuple[str, float]] = asyncio.Queue()
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        readies = [asyncio.Event() for _ in flat]
        tasks = [asyncio.create_task(listen(session, u, r, events)) for u, r in zip(flat, readies, strict=True)]
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 120)
        say(f"{len(flat)} pages open; idle for {args.idle} s")
        await asyncio.sleep(2)
        cpu0, t0 = cpu_of(pid), time.monotonic()
        await asyncio.sleep(args.idle)
        idle_cores = (cpu_of(pid) - cpu0) / (time.monotonic() - t0)
        delays: list[float] = []
        listened = [g for g in urls if all(u in flat for u in urls[g])]
        loop = asyncio.get_running_loop()
        for n in range(args.changes):
            game_id = random.Random(n).choice(listened)
            while not events.empty():
                events.get_nowait()
            started = time.monotonic()
            await loop.run_in_executor(None, lambda g=game_id: organise.extend_deadline(db, g, by=timedelta(minutes=1)))
            got = 0
            while got < len(urls[game_id]):
                url, at = await asyncio.wait_for(events.get(), 10)
                if url in urls[game_id]:
                    delays.append(at - started)
                    got += 1
        for task in tasks:
            task.cancel()
    return {"idle_cores": idle_cores, "delays": delays}


def fragment_ms(db: Database, settings: Settings, token: str, runs: int = 20) -> tuple[float, float]:
    """Wall and CPU ms to render one seat page's live part through the app (median of ``runs``)."""
    from server.web.app import create_app

    app = create_app(settings, db)
    client = app.test_client()
    walls, cpus = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        assert client.get(f"/s/{token}/live").status_code == 200
        walls.append(1000 * (time.perf_counter() - w))
        cpus.append(1000 * (time.process_time() - c))
    return statistics.median(walls), statistics.median(cpus)


def one(url: str, folder: Path, args: argparse.Namespace) -> dict[str, Any]:
    db = migrated(url)
    try:
        made = make_games(db, args.pages)
        wall_ms, cpu_ms = fragment_ms(db, settings_for(url, folder), made[0][1][0])
        with live_server(url, folder) as (port, pid):
            found = asyncio.run(measure(db, port, pid, made, args))
        polls = args.pages / seat_pages.LIVE_POLL * cpu_ms / 1000
        shown = [d + wall_ms / 1000 for d in found["delays"]]
        return {
            "pages": args.pages,
            "idle_cores_live_server": round(found["idle_cores"], 3),
            "idle_cores_web_polls": round(polls, 3),
            "idle_cores_total": round(found["idle_cores"] + polls, 3),
            "changes": args.changes,
            "event_p50_s": round(statistics.median(found["delays"]), 3),
            "event_p95_s": round(percentile(found["delays"], 95), 3),
            "shown_p95_s": round(percentile(shown, 95), 3),
            "fragment_ms": round(wall_ms, 1),
        }
    finally:
        db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--idle", type=float, default=30.0)
    parser.add_argument("--changes", type=int, default=40)
    parser.add_argument("--tiny", action="store_true", help="a few seconds: 20 pages, 3 s idle, 3 changes")
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve[0], int(args.serve[1]), args.serve[2])
    if args.tiny:
        args.pages, args.idle, args.changes = 20, 3.0, 3
    result: dict[str, Any] = {"benchmark": "live"}
    for name, url_for in databases().items():
        with url_for() as (url, folder):
            result[name] = one(url, folder, args)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
