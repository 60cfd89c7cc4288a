"""``deadmail demo --auto``: bots play a whole game through the real path and the timings are reported.

Every answer (decided by ``engine.bots`` for the seat's request) goes over HTTP to the web app, every advance
through the broker to a worker, everything is stored in the database: the same path as people's answers. When a
``deadmail up`` serves the same data folder, the bots play there, through its web server and worker (its game is on
its pages); otherwise the demo starts its own on a free port and stops them at the end. Prints one JSON object (see
``run_auto``).

The bots' addresses are at ``DEMO_DOMAIN``: their mail is written like any other, and the mailbox page leaves it out.
"""

from __future__ import annotations

import http.client
import itertools
import json
import re
import secrets
import socket
import statistics
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, TextIO, TypedDict
from urllib.parse import urlsplit

import waitress
from sqlalchemy import select
from sqlalchemy.orm import Session

import engine

from ..config import Settings
from ..db import Database
from ..mail.folder import DEMO_DOMAIN
from ..models import Game, Window
from ..services.links import organiser_token, read_token
from ..services.play import archive, games, turns
from ..services.tempo import parse_duration
from ..web.app import create_app
from .migrate import upgrade
from .processes import running_up, start_worker, stop
from .queue import Queue

#: the name of a demo's player whose address says nothing better (``player_name``).
PLAYER = "Player"
#: local parts of an address that are no one's name ("you@example.org" must not greet "Hello You,").
NOT_NAMES = {"you", "me", "player", "test", "user", "demo"}

#: the longest a bot waits when the server says "too many requests" (seconds)
MAX_WAIT = 30.0


def player_name(email: str) -> str:
    """The name of ``deadmail demo``'s player, from their address: "ann.smith@example.org" plays as "Ann Smith";
    an address that names nobody ("you@example.org") as "Player". Mails greet them by it and the story tells of them
    in the third person ("Ann Smith (Red) rolls …"), so it is never a pronoun."""
    words = [word for word in re.split(r"[^A-Za-z]+", email.partition("@")[0]) if word]
    name = " ".join(word.capitalize() for word in words)[:40]
    return PLAYER if not name or name.lower() in NOT_NAMES else name


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _call(url: str, body: object = None, source: str | None = None) -> tuple[int, Any, float]:
    """(status, JSON answer, seconds to wait before asking again) of a GET (or, with ``body``, a POST) from the local
    address ``source`` (None: any)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(
        parts.hostname or "127.0.0.1", parts.port, timeout=30, source_address=None if source is None else (source, 0)
    )
    try:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        conn.request("GET" if data is None else "POST", parts.path, body=data, headers=headers)
        reply = conn.getresponse()
        raw = reply.read()
        wait = reply.getheader("Retry-After") or "1"
        answer = json.loads(raw or b"{}") if reply.getheader("Content-Type", "").startswith("application/json") else {}
        return reply.status, answer, min(MAX_WAIT, float(wait)) if wait.isdigit() else 1.0
    finally:
        conn.close()


@dataclass
class Bot:
    """A seat played by the demo, and when it may next look at its seat and answer."""

    token: str
    seat_id: int
    source: str | None
    look_at: float = 0.0
    answer_at: float = 0.0


def _sources(url: str, players: int) -> list[str | None]:
    """A loopback address of its own for each bot when the server is at 127.0.0.1 (Linux answers on all of
    127.0.0.0/8): a running ``deadmail up`` counts each address's requests apart, as it would players at their own
    machines, and no bot uses up the count of the person playing in a browser at 127.0.0.1. Where such an address
    cannot be used (or the server is elsewhere) the bots share one."""
    if urlsplit(url).hostname != "127.0.0.1":
        return [None] * players
    sources: list[str | None] = []
    for i in range(players):
        address = f"127.0.0.{10 + i}"
        try:
            with socket.socket() as s:
                s.bind((address, 0))
        except OSError:
            return [None] * players
        sources.append(address)
    return sources


@dataclass
class Table:
    """The bots of one game, answering over HTTP at ``url``, each below the server's limits for one address."""

    db: Database
    settings: Settings
    url: str
    bots: list[Bot]
    seed: int
    status: str = "running"
    answered: set[tuple[str, int]] = field(default_factory=set)

    def play(self) -> None:
        """Each bot whose time has come looks at its seat and answers its request, when it has one."""
        for bot in self.bots:
            self._turn(bot)

    def _turn(self, bot: Bot) -> None:
        now = time.monotonic()
        if now < bot.look_at:
            return
        code, data, wait = _call(f"{self.url}/api/seat/{bot.token}", source=bot.source)
        bot.look_at = now + (wait if code == 429 else 63 / self.settings.links_per_minute)
        if code != 200:
            return
        self.status = data["game"]["status"]
        window = data["window"]
        if window is None or window["request"] is None or (bot.token, window["number"]) in self.answered:
            return
        if now < bot.answer_at:
            bot.look_at = min(bot.look_at, bot.answer_at)
            return
        number = window["number"]
        body = {
            "kind": window["request"]["kind"],
            "window": number,
            "answer": turns.bot_choice(self.db, bot.seat_id, "random", self.seed * 1009 + number * 7 + bot.seat_id),
        }
        code, _reply, wait = _call(f"{self.url}/api/seat/{bot.token}/answer", body, bot.source)
        bot.answer_at = now + (wait if code == 429 else 63 / self.settings.answers_per_minute)
        if code in {200, 409}:  # 409: the window closed meanwhile
            self.answered.add((bot.token, number))


def watch_link(settings: Settings, game_id: int) -> str:
    """Where to watch a demo's game: its organiser link, which opens the game's organiser page in a browser: the
    board as a spectator sees it (no hand, no secret answer), who owes what, and the replay at the end. No seat's link
    is printed: the bots' own links stay behind that page, for whoever ran the demo."""
    return f"{settings.base_url}/o/link/{organiser_token(settings.secret_key, game_id)}"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def _windows(session: Session, game_id: int) -> list[archive.ClosedWindow | Window]:
    """Every window of the game, closed (its archive) and open, in order."""
    game = session.get(Game, game_id)
    closed = list(archive.windows_of(None if game is None else game.archive).values())
    unclosed = session.execute(select(Window).where(Window.game_id == game_id).order_by(Window.number)).scalars()
    return sorted([*closed, *unclosed], key=lambda w: w.number)


def latencies(db: Database, game_id: int) -> list[float]:
    """Seconds from a window's last answer to the next window being open, for every window closed that way."""
    with db.session() as session:
        rows = _windows(session, game_id)
    return [
        (nxt.opened_at - cur.completed_at).total_seconds()
        for cur, nxt in itertools.pairwise(rows)
        if cur.completed_at is not None
    ]


class Figures(TypedDict):
    """A played game's figures, as ``deadmail demo --auto`` prints them."""

    game: int
    status: str
    outcome: engine.Outcome | None
    windows: int
    latency_median_s: float | None
    latency_p95_s: float | None


class AutoRun(Figures):
    """``run_auto``'s figures: the game's, how long it took, and the address of the ``deadmail up`` it ran on."""

    seconds: float
    up: str | None


def figures(db: Database, game_id: int) -> Figures:
    """A played game's figures: status, outcome, windows and the latency of its advances."""
    with db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        outcome, final = game.outcome, game.status
        windows = len(_windows(session, game.id))
    times = latencies(db, game_id)
    return {
        "game": game_id,
        "status": final,
        "outcome": outcome,
        "windows": windows,
        "latency_median_s": round(statistics.median(times), 3) if times else None,
        "latency_p95_s": round(percentile(times, 0.95), 3) if times else None,
    }


@contextmanager
def _own_server(settings: Settings) -> Iterator[tuple[Settings, subprocess.Popen[bytes]]]:
    """No ``deadmail up`` is running: a web server of the demo's own on a free loopback port, and a worker. They
    answer at machine speed (its only client is the demo: no rate limits) and sweep every second."""
    port = _free_port()
    settings = replace(
        settings,
        base_url=f"http://127.0.0.1:{port}",
        sweep_every=1.0,
        answers_per_minute=10**9,
        links_per_minute=10**9,
    )
    db = Database(settings.database_url, tasks=Queue(settings))
    server = waitress.create_server(create_app(settings, db), host="127.0.0.1", port=port, threads=8)
    threading.Thread(target=server.run, daemon=True).start()
    worker = start_worker(settings)
    try:
        yield settings, worker
    finally:
        stop(worker)
        server.close()
        db.dispose()


def run_auto(
    settings: Settings,
    players: int,
    deadline: str,
    seed: int | None,
    progress: TextIO | None = None,
    limit_s: float = 900,
) -> AutoRun:
    """Bots play one game to its end (or for ``limit_s`` seconds); its figures, how long it took, and where it was
    played ("up": the address of the running ``deadmail up``; null: the demo served it itself)."""
    upgrade(settings.database_url)
    up = running_up(settings)
    with ExitStack() as running:
        worker = None
        if up is None:
            settings, worker = running.enter_context(_own_server(settings))
        db = Database(settings.database_url, tasks=Queue(settings))
        running.callback(db.dispose)
        tag = secrets.token_hex(4)  # each run its own players
        spec = games.GameSpec(
            players=[
                games.PlayerSpec(name=f"Bot {i + 1}", email=f"bot{i + 1}.{tag}@{DEMO_DOMAIN}") for i in range(players)
            ],
            deadlines={"default": parse_duration(deadline)},
            avoid_quiet_hours=False,
            seed=seed,
        )
        created = games.create_game(db, spec)
        url = up or settings.base_url
        if progress is not None:
            where = f"the running deadmail up at {up}" if up else url
            print(f"game {created.game_id}: {players} bots answering over HTTP at {where}", file=progress, flush=True)
            print(f"watch it: {watch_link(settings, created.game_id)}", file=progress, flush=True)
            if not up:
                print("(this server stops with the demo: run deadmail up first to keep watching)", file=progress)
        bots = []
        seats = games.seat_links(db, created.game_id, settings.secret_key, settings.base_url)
        for seat, source in zip(seats, _sources(url, players), strict=True):
            assert seat["link"] is not None  # (every seat of the demo is a person's)
            token = seat["link"].rsplit("/", 1)[1]
            bots.append(Bot(token, read_token(settings.secret_key, token, settings.link_max_age)[0], source))
        table = Table(db, settings, url, bots, seed if seed is not None else secrets.randbelow(2**31))
        started = time.monotonic()
        while table.status == "running" and time.monotonic() - started < limit_s:
            if worker is not None and worker.poll() is not None:
                raise RuntimeError(f"the worker stopped (exit status {worker.returncode}); see the messages above")
            table.play()
            time.sleep(0.02)
        return {**figures(db, created.game_id), "seconds": round(time.monotonic() - started, 1), "up": up}
