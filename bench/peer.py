"""Deadmail's answers against boardgame.io 0.50 (Node.js) on the same secret simultaneous decision, interleaved.

    python bench/peer.py [--rounds 3] [--seconds 20] [--games 60] [--seats 5] [--clients 8] [--workers 2]
                         [--threads 4]

The peer is optional: it needs ``node`` (18 or later) and ``npm``; without them, or when the npm install fails, it
prints ``{"skipped": "..."}`` and exits 0. boardgame.io is never part of the repository: ``bench/peer/package.json``
(boardgame.io 0.50.2; node-persist 3.1.0, its FlatFile's store, and koa-compose 4.1.0, as boardgame.io's own lock
file at v0.50.2 has them) is installed into ``~/.cache/deadmail-bench/peer/`` (``$XDG_CACHE_HOME`` if set) the first
time, and again only when that file changes. The game, server and client scripts in ``bench/peer/`` are ours.

The decision, on both sides: ``--games`` games of ``--seats`` players, all at their first decision, where every
player secretly picks a room and may change the pick again and again while the window is open; ``--clients``
closed-loop clients each send an answer (a move) to a random seat and wait for its acknowledgement before the next.

- deadmail: as ``bench/http_answers.py`` (its functions): gunicorn with ``--workers`` workers of ``--threads`` threads
  (as docs/OPERATIONS.md runs it) + PostgreSQL + Redis, the games created through the API, each seat's legal answers
  chosen by the engine's bot, ``--clients`` client processes POSTing ``/api/seat/<token>/answer`` (signed link, row lock
  on the open window, engine check, write, commit). The first answers complete each window (one advance kick each to
  Redis, no worker runs); every later one changes or repeats an answer. One gunicorn for the whole run (an answer
  overwrites its row: its state does not grow), warmed once.
- boardgame.io (``bench/peer/game.js``): every player active at once (``ActivePlayers.ALL``), the ``place`` move
  stores the player's room in ``G.players[id]`` (``PlayerView.STRIP_SECRETS`` hides it from the others, ``redact``
  hides its arguments in their log), ``ignoreStaleStateID`` so a pick is not refused because another player moved,
  nothing ends the turn. Its stock server (``Server``: Koa, lobby API, socket.io; ``NODE_ENV=production``) with
  ``InMemory`` or ``FlatFile`` storage; the client (``bench/peer/client.js``, one Node process) creates the matches
  and joins every seat through the lobby API, opens one socket.io connection per seat and syncs it with the seat's
  credentials, as each player's page would, then ``--clients`` loops emit the move as boardgame.io's own client does
  and wait for the server's update to that seat that carries it. Each move: the match's metadata and state read,
  credentials checked, the reducer, the update sent to the 5 connected seats (each its own player view), the state,
  log and metadata written (boardgame.io sends the update before it writes, and FlatFile writes without fsync,
  where deadmail replies after its commit, fsynced by PostgreSQL). A fresh server (empty FlatFile folder, new matches)
  every round: every move appends to the match's log, which FlatFile reads and writes whole on every move, so a
  long-running server would slow down round after round.

- the floor (``bench/peer/floor.py``): what the stack itself costs, under the same gunicorn and clients: a Flask
  endpoint at the same address that increments the seat's count in Redis, locks the seat's row in PostgreSQL,
  overwrites its answer and commits, and nothing else (no signed link, no game, no rules). ``floor_ratio_*``: its
  answers/s over the peer's moves/s, the most any answer on this stack could reach; ``deadmail_over_floor``: how
  close deadmail comes to it.

Each round runs deadmail, the floor, then boardgame.io InMemory, then FlatFile, ``--seconds`` each (after
``--warmup``), so the four see the same machine; ``ratio_flatfile`` and ``ratio_inmemory`` are the medians of the
rounds' ratios (deadmail's answers/s over the peer's moves/s). CPU per move: the server processes' CPU while
measuring (gunicorn, and with PostgreSQL and Redis; the Node server) over the moves; ``cpu_ratio_*`` is the peer's
over deadmail's (all three of its processes), the same direction as the ratios and less moved by other programs on a
shared machine.
Redis database 10 is deadmail's broker (emptied). Progress on stderr, one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _stack
import http_answers
import sqlalchemy as sa
from _stack import say

PEER = Path(__file__).resolve().parent / "peer"
TARGETS = {"ratio_flatfile": 1.5, "ratio_inmemory": 0.3}


class Skipped(Exception):
    """The peer cannot run here (no Node, no npm, the install failed)."""


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "deadmail-bench" / "peer"


def install(cache: Path) -> Path:
    """boardgame.io and node-persist in ``cache`` (npm, from the registry); returns its ``node_modules``."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        raise Skipped("node or npm is not installed")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=False).stdout.strip()
    if not version.startswith("v") or int(version[1:].split(".")[0]) < 18:
        raise Skipped(f"node {version or '?'}: the peer's client needs node 18 or later")
    wanted = (PEER / "package.json").read_text()
    stamp = cache / "installed-package.json"
    modules = cache / "node_modules"
    if stamp.exists() and stamp.read_text() == wanted and (modules / "boardgame.io" / "package.json").exists():
        return modules
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "package.json").write_text(wanted)
    say(f"npm install into {cache}")
    try:
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--omit=dev", "--loglevel=error", "--fetch-retries=1"],
            cwd=cache,
            stdout=sys.stderr,
            stderr=sys.stderr,
            timeout=300,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise Skipped("npm install took more than 5 minutes") from None
    if done.returncode != 0 or not (modules / "boardgame.io" / "package.json").exists():
        raise Skipped(f"npm install failed (status {done.returncode})")
    stamp.write_text(wanted)
    return modules


def versions(modules: Path) -> dict[str, str]:
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False)
    found = {"node": node.stdout.strip()}
    for package in ("boardgame.io", "socket.io", "socket.io-client", "koa", "koa-compose", "node-persist"):
        try:
            found[package] = json.loads((modules / package / "package.json").read_text())["version"]
        except (OSError, ValueError, KeyError):
            found[package] = "?"
    return found


def wait_listening(process: subprocess.Popen[bytes], port: int, what: str) -> None:
    import socket

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with status {process.returncode}")
        try:
            with socket.create_connection((_stack.LOCAL, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not start listening on port {port}")


def peer_phase(args: argparse.Namespace, storage: str, modules: Path, folder: Path) -> dict[str, Any]:
    """A fresh boardgame.io server with ``storage``, its matches set up, warmed up and hammered for ``--seconds``."""
    waited = _stack.wait_quiet(args.max_other, args.wait_idle) if args.wait_idle else 0.0
    env = {**os.environ, "NODE_PATH": str(modules), "NODE_ENV": "production"}
    port = _stack.free_port()
    command = ["node", str(PEER / "server.js"), "--port", str(port), "--storage", storage]
    if storage == "flatfile":
        command += ["--dir", str(folder)]
    server = subprocess.Popen(command, env=env, stdout=sys.stderr)
    client: subprocess.Popen[str] | None = None
    try:
        wait_listening(server, port, f"boardgame.io ({storage})")
        client = subprocess.Popen(
            [
                "node",
                str(PEER / "client.js"),
                "--port",
                str(port),
                "--matches",
                str(args.games),
                "--seats",
                str(args.seats),
                "--clients",
                str(args.clients),
                "--warmup",
                str(args.warmup),
                "--seconds",
                str(args.seconds),
                "--seed",
                str(args.seed),
            ],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert client.stdout is not None
        if json.loads(client.stdout.readline() or "{}").get("event") != "start":
            raise RuntimeError(f"the boardgame.io client ({storage}) stopped before measuring")
        before, t0 = _stack.measure_cpu(), time.monotonic()
        line = client.stdout.readline()
        elapsed = time.monotonic() - t0
        after = _stack.measure_cpu()
        if client.wait(timeout=60) != 0 or not line:
            raise RuntimeError(f"the boardgame.io client ({storage}) failed (status {client.returncode})")
        result: dict[str, Any] = json.loads(line)
        me = os.getpid()
        groups = {
            "server": lambda pid, cmd: pid == server.pid,
            "client": lambda pid, cmd: client is not None and pid in {client.pid, me},
        }
        cores = _stack.cpu_by_group(before, after, elapsed, groups)
        result["cores_used"] = cores
        result["server_cpu_ms_per_move"] = per_move(cores["server"] * elapsed, result["moves"])
        result["waited_for_idle_s"] = waited
        return result
    finally:
        if client is not None:
            _stack.stop(client)  # type: ignore[arg-type]
        _stack.stop(server)


def per_move(cpu_s: float, moves: int) -> float | None:
    return round(cpu_s * 1000 / moves, 2) if moves else None


def deadmail_phase(args: argparse.Namespace, port: int, targets: Any, who: dict[str, Any]) -> dict[str, Any]:
    result = http_answers.measured(
        args, who, http_answers.hammer, port, targets, args.clients, args.seconds, args.max_answers
    )
    cores, seconds, answers = result["cores_used"], result["seconds"], result["answers"]
    result["gunicorn_cpu_ms_per_answer"] = per_move(cores["gunicorn"] * seconds, answers)
    result["server_cpu_ms_per_answer"] = per_move(
        (cores["gunicorn"] + cores["postgres"] + cores["redis"]) * seconds, answers
    )
    return result


def start_floor(
    args: argparse.Namespace, env: dict[str, str], port: int, database_url: str, targets: Any
) -> subprocess.Popen[bytes]:
    """``bench/peer/floor.py`` under gunicorn as deadmail runs, its table in the benchmark's database: a row per
    seat of ``targets``, its count in deadmail's Redis database (emptied at the end)."""
    engine = sa.create_engine(database_url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE floor_answers (token text PRIMARY KEY, answer text)"))
        tokens = [{"token": path.split("/")[3]} for path, _ in targets]
        conn.execute(sa.text("INSERT INTO floor_answers (token) VALUES (:token)"), tokens)
    engine.dispose()
    floor_env = {
        **env,
        "PYTHONPATH": str(PEER),
        "FLOOR_DATABASE_URL": database_url,
        "FLOOR_REDIS_URL": args.redis,
    }
    floor = _stack.start_web("gunicorn", floor_env, port, args.workers, args.threads, app="floor:app")
    http_answers.hammer(port, targets, args.clients, args.warmup, 10**6)  # warms it up as deadmail was
    return floor


def median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(statistics.median(known), 3) if known else None


def options() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432", help="PostgreSQL server URL")
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/10", help="deadmail's broker (this database is emptied)")
    ap.add_argument("--workers", type=int, default=2, help="gunicorn -w")
    ap.add_argument("--threads", type=int, default=4, help="gunicorn --threads (1: sync workers)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=20.0, help="measured seconds per server and round")
    ap.add_argument("--warmup", type=float, default=3.0, help="seconds of load before each measurement")
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seats", type=int, default=5)
    ap.add_argument("--clients", type=int, default=8, help="closed-loop clients (deadmail: processes)")
    ap.add_argument("--max-answers", type=int, default=10**7, help="cap on deadmail's answers per phase")
    ap.add_argument("--seed", type=int, default=1)
    _stack.idle_options(ap, 60.0)
    ap.add_argument("--tiny", action="store_true", help="seconds, for CI: 4 games, 2 clients, one round of 1.5 s")
    args = ap.parse_args()
    if args.tiny:
        args.games, args.clients, args.rounds, args.seconds, args.warmup, args.workers = 4, 2, 1, 1.5, 0.5, 2
        args.wait_idle = 0.0
    if not (3 <= args.seats <= 6 and 1 <= args.games <= 500 and args.seconds <= 120 and args.rounds >= 1):
        raise SystemExit("--seats 3..6, --games at most 500, --seconds at most 120, at least one round")
    return args


def main() -> None:
    args = options()
    try:
        modules = install(cache_dir())
    except Skipped as exc:
        say(f"boardgame.io skipped: {exc}")
        print(json.dumps({"benchmark": "peer", "skipped": str(exc)}))
        return
    peer = versions(modules)
    say(f"peer: {peer}")
    load = os.getloadavg()

    rounds: list[dict[str, Any]] = []
    with (
        _stack.postgres_database(args.pg) as database_url,
        _stack.redis_db(args.redis) as broker_url,
        tempfile.TemporaryDirectory(prefix="dm-bench-peer-") as tmp,
    ):
        db = _stack.migrated(database_url)
        port = _stack.free_port()
        env = _stack.server_env(Path(tmp), database_url, broker_url, f"http://127.0.0.1:{port}")
        say(f"deadmail: gunicorn -w {args.workers} --threads {args.threads} on port {port}")
        web = _stack.start_web("gunicorn", env, port, args.workers, args.threads)
        floor = None
        try:
            targets = http_answers.prepare(port, db, args.games, args.seats, args.seed, choices=6)
            http_answers.hammer(port, targets, args.clients, args.warmup, 10**6)  # completes the windows, warms up
            who = http_answers.groups(web.pid, database_url.rsplit("/", 1)[1])
            floor_port = _stack.free_port()
            say(f"the floor (bench/peer/floor.py): gunicorn -w {args.workers} --threads {args.threads} on {floor_port}")
            floor = start_floor(args, env, floor_port, database_url, targets)
            floor_who = http_answers.groups(floor.pid, database_url.rsplit("/", 1)[1])
            for number in range(1, args.rounds + 1):
                say(f"round {number}/{args.rounds}: deadmail for {args.seconds:g} s")
                mine = deadmail_phase(args, port, targets, who)
                say(f"  -> {mine['answers_per_s']} answers/s, errors {mine['errors']}, cores {mine['cores_used']}")
                say(f"round {number}/{args.rounds}: the floor for {args.seconds:g} s")
                least = deadmail_phase(args, floor_port, targets, floor_who)
                say(f"  -> {least['answers_per_s']} answers/s, errors {least['errors']}, cores {least['cores_used']}")
                found: dict[str, Any] = {"round": number, "deadmail": mine, "floor": least}
                for storage in ("inmemory", "flatfile"):
                    say(f"round {number}/{args.rounds}: boardgame.io {storage} for {args.seconds:g} s")
                    theirs = peer_phase(args, storage, modules, Path(tmp) / f"flatfile-{number}")
                    cores = theirs["cores_used"]
                    say(f"  -> {theirs['moves_per_s']} moves/s, errors {theirs['errors']}, cores {cores}")
                    found[storage] = theirs
                    for name, side in (("ratio", mine), ("floor_ratio", least)):
                        moves = theirs["moves_per_s"]
                        found[f"{name}_{storage}"] = round(side["answers_per_s"] / moves, 3) if moves else None
                    ours, peers = mine["server_cpu_ms_per_answer"], theirs["server_cpu_ms_per_move"]
                    found[f"cpu_ratio_{storage}"] = round(peers / ours, 3) if ours and peers else None
                rounds.append(found)
        finally:
            _stack.stop(web)
            if floor is not None:
                _stack.stop(floor)

    def of(side: str, key: str) -> float | None:
        return median([r[side][key] for r in rounds])

    result = {
        "benchmark": "peer",
        "peer": peer,
        "server": f"gunicorn -w {args.workers} --threads {args.threads}, PostgreSQL, Redis; kept running, warmed once",
        "peer_server": "boardgame.io Server (Koa, socket.io), NODE_ENV=production, one process, fresh every round; "
        "one socket.io connection per seat, a move acknowledged by the update it sends that seat",
        "games": args.games,
        "seats": args.seats,
        "clients": args.clients,
        "rounds": args.rounds,
        "seconds": args.seconds,
        "deadmail_answers_per_s": of("deadmail", "answers_per_s"),
        "inmemory_moves_per_s": of("inmemory", "moves_per_s"),
        "flatfile_moves_per_s": of("flatfile", "moves_per_s"),
        "ratio_flatfile": median([r["ratio_flatfile"] for r in rounds]),
        "ratio_inmemory": median([r["ratio_inmemory"] for r in rounds]),
        "targets": TARGETS,
        # the stack's floor (bench/peer/floor.py: the same writes, nothing else) in the same rounds, and its ratios
        "floor_answers_per_s": of("floor", "answers_per_s"),
        "floor_ratio_inmemory": median([r["floor_ratio_inmemory"] for r in rounds]),
        "floor_ratio_flatfile": median([r["floor_ratio_flatfile"] for r in rounds]),
        "deadmail_over_floor": median([r["deadmail"]["answers_per_s"] / r["floor"]["answers_per_s"] for r in rounds]),
        # the same direction, from CPU rather than time (less moved by other programs on a shared machine): the peer's
        # server CPU per move over deadmail's (gunicorn + PostgreSQL + Redis) per answer, median of the rounds
        "cpu_ratio_flatfile": median([r["cpu_ratio_flatfile"] for r in rounds]),
        "cpu_ratio_inmemory": median([r["cpu_ratio_inmemory"] for r in rounds]),
        "cpu_ms_per_move": {
            "deadmail_gunicorn": of("deadmail", "gunicorn_cpu_ms_per_answer"),
            "deadmail_gunicorn_postgres_redis": of("deadmail", "server_cpu_ms_per_answer"),
            "floor_gunicorn": of("floor", "gunicorn_cpu_ms_per_answer"),
            "inmemory_node": of("inmemory", "server_cpu_ms_per_move"),
            "flatfile_node": of("flatfile", "server_cpu_ms_per_move"),
        },
        "load_at_start": [round(x, 2) for x in load],
        "cpus": os.cpu_count(),
        "errors": sum(
            sum(r[side]["errors"].values()) for r in rounds for side in ("deadmail", "floor", "inmemory", "flatfile")
        ),
        "runs": rounds,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
