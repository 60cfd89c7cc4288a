"""``deadmail demo --auto``: bots play a whole game through the real path and the timings are reported.

Every answer (decided by ``engine.bots`` for the seat's request) goes over HTTP to the web app, every advance
through the broker to a worker, everything is stored in the database: the same path as people's answers. Prints
one JSON object (see ``run_auto``).
"""

from __future__ import annotations

import itertools
import json
import socket
import statistics
import threading
import time
import urllib.error
import urllib.request
from dataclasses import replace
from typing import Any, TextIO

import waitress
from sqlalchemy import select

from ..config import Settings
from ..db import Database
from ..models import Game, Window
from ..services import games, turns
from ..services.links import read_token
from ..services.tempo import parse_duration
from ..web.app import create_app
from .migrate import upgrade
from .processes import start_worker, stop
from .queue import Queue


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _call(url: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def latencies(db: Database, game_id: int) -> list[float]:
    """Seconds from a window's last answer to the next window being open, for every window closed that way."""
    with db.session() as session:
        windows = session.execute(select(Window).where(Window.game_id == game_id).order_by(Window.number)).scalars()
        rows = list(windows)
    return [
        (nxt.opened_at - cur.completed_at).total_seconds()
        for cur, nxt in itertools.pairwise(rows)
        if cur.completed_at is not None
    ]


def run_auto(
    settings: Settings,
    players: int,
    deadline: str,
    seed: int | None,
    progress: TextIO | None = None,
    limit_s: float = 900,
) -> dict[str, Any]:
    def say(text: str) -> None:
        if progress is not None:
            print(text, file=progress, flush=True)

    port = _free_port()
    # its own server on loopback, answering at machine speed from one address: no rate limits
    settings = replace(
        settings, base_url=f"http://127.0.0.1:{port}", sweep_every=1.0, answers_per_minute=10**9, links_per_minute=10**9
    )
    upgrade(settings.database_url)
    db = Database(settings.database_url, tasks=Queue(settings))
    server = waitress.create_server(create_app(settings, db), host="127.0.0.1", port=port, threads=8)
    threading.Thread(target=server.run, daemon=True).start()
    worker = start_worker(settings)
    try:
        spec = games.GameSpec(
            players=[
                games.PlayerSpec(name=f"Bot {i + 1}", email=f"bot{i + 1}.{port}@demo.invalid") for i in range(players)
            ],
            deadlines={"default": parse_duration(deadline)},
            avoid_quiet_hours=False,
            seed=seed,
        )
        created = games.create_game(db, spec)
        seats = games.seat_links(db, created.game_id, settings.secret_key, settings.base_url)
        say(f"game {created.game_id}: {players} bots answering over HTTP at {settings.base_url}")
        seed = seed if seed is not None else port
        answered: set[tuple[str, int]] = set()
        started = time.monotonic()
        status = "running"
        while status == "running" and time.monotonic() - started < limit_s:
            if worker.poll() is not None:
                raise RuntimeError(f"the worker stopped (exit status {worker.returncode}); see the messages above")
            for seat in seats:
                token = seat["link"].rsplit("/", 1)[1]
                code, data = _call(f"{settings.base_url}/api/seat/{token}")
                status = data["game"]["status"]
                window = data["window"]
                if window is None or window["request"] is None or (token, window["number"]) in answered:
                    continue
                seat_id = read_token(settings.secret_key, token, settings.link_max_age)[0]
                body = {
                    "kind": window["request"]["kind"],
                    "window": window["number"],
                    "answer": turns.bot_choice(db, seat_id, "random", seed * 1009 + window["number"] * 7 + seat_id),
                }
                code, _reply = _call(f"{settings.base_url}/api/seat/{token}/answer", body)
                if code in {200, 409}:  # 409: the window closed meanwhile
                    answered.add((token, window["number"]))
            time.sleep(0.02)
        with db.session() as session:
            game = session.get(Game, created.game_id)
            assert game is not None
            outcome, final = game.outcome, game.status
            windows = len(session.execute(select(Window.id).where(Window.game_id == game.id)).all())
        times = latencies(db, created.game_id)
        return {
            "game": created.game_id,
            "status": final,
            "outcome": outcome,
            "windows": windows,
            "latency_median_s": round(statistics.median(times), 3) if times else None,
            "latency_p95_s": round(percentile(times, 0.95), 3) if times else None,
            "seconds": round(time.monotonic() - started, 1),
        }
    finally:
        stop(worker)
        server.close()
        db.dispose()
