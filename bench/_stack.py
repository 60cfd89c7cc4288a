"""Shared pieces of the turn-server benchmarks: a throw-away PostgreSQL database, the web server as a subprocess,
a small keep-alive HTTP client, and game creation through the JSON API. Only 127.0.0.1 is ever contacted."""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/NAME.py` from a checkout that is not installed
    sys.path.insert(0, str(ROOT))

from server.db import Database  # noqa: E402 - needs the path above
from server.run.demo import percentile  # noqa: E402 - the benchmarks' percentile
from server.run.migrate import upgrade  # noqa: E402
from server.run.processes import stop  # noqa: E402

__all__ = [
    "API_TOKEN",
    "LOCAL",
    "ROOT",
    "SECRET",
    "Client",
    "bot_answer",
    "check_local",
    "cpu_by_group",
    "cpu_snapshot",
    "create_games",
    "free_port",
    "machine_busy",
    "measure_cpu",
    "migrated",
    "percentile",
    "postgres_database",
    "redis_db",
    "say",
    "server_env",
    "start_web",
    "stop",
    "token_of",
    "wait_quiet",
]

SECRET = "bench-secret-key"
API_TOKEN = "bench-api-token"
LOCAL = "127.0.0.1"


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOCAL, 0))
        return int(s.getsockname()[1])


def check_local(url: str) -> None:
    """The benchmarks only talk to this machine."""
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname
    if host not in {LOCAL, "localhost"}:
        raise SystemExit(f"{url}: only 127.0.0.1 targets are allowed")


@contextmanager
def postgres_database(server_url: str) -> Iterator[str]:
    """A fresh database ``dm_bench_<random>`` on the server (``postgresql+psycopg://postgres@127.0.0.1:5432``),
    dropped at the end."""
    import sqlalchemy as sa

    check_local(server_url)
    server_url = server_url.rstrip("/")
    name = f"dm_bench_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(f"{server_url}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    say(f"created PostgreSQL database {name}")
    try:
        yield f"{server_url}/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
        say(f"dropped PostgreSQL database {name}")


@contextmanager
def redis_db(url: str) -> Iterator[str]:
    """A Redis database for the broker, emptied before and after (the benchmark's own database number)."""
    import redis

    check_local(url)
    client = redis.Redis.from_url(url)
    other = client.get(CLAIM)
    if other is not None and int(other) != os.getpid() and _alive(int(other)):
        raise SystemExit(f"{url} is the broker of another benchmark run (process {int(other)}): wait for it to end")
    client.flushdb()
    client.set(CLAIM, os.getpid())  # emptying it under a running benchmark would lose that run's tasks
    try:
        yield url
    finally:
        client.flushdb()
        client.close()


#: the key naming the process whose benchmark uses a Redis database as its broker.
CLAIM = "deadmail:bench:pid"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def server_env(data_dir: Path, database_url: str, broker_url: str, base_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": broker_url,
        "DEADMAIL_SECRET_KEY": SECRET,
        "DEADMAIL_API_TOKEN": API_TOKEN,
        "DEADMAIL_DATA_DIR": str(data_dir),
        "DEADMAIL_BASE_URL": base_url,
        # the load comes from one address by design: the per-client rate limits would measure themselves
        "DEADMAIL_ANSWERS_PER_MINUTE": str(10**9),
        "DEADMAIL_LINKS_PER_MINUTE": str(10**9),
    }


def start_web(
    kind: str, env: dict[str, str], port: int, workers: int = 2, threads: int = 1, app: str = "server.run.wsgi:app"
) -> subprocess.Popen[bytes]:
    """``gunicorn 'server.run.wsgi:app' -w N`` (production), or ``waitress-serve`` with 8 threads (``deadmail up``);
    ``app``: another WSGI app for gunicorn (``bench/peer/floor.py``)."""
    if kind == "gunicorn":
        args = [sys.executable, "-m", "gunicorn", app, "-w", str(workers), "-b", f"{LOCAL}:{port}"]
        if threads > 1:
            args += ["--threads", str(threads)]
        args += ["--log-level", "warning"]
    else:
        args = [sys.executable, "-m", "waitress", f"--listen={LOCAL}:{port}", "--threads=8", "server.run.wsgi:app"]
    process = subprocess.Popen(args, env=env, cwd=ROOT, stdout=sys.stderr)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{kind} exited with status {process.returncode}")
        try:
            with socket.create_connection((LOCAL, port), timeout=0.5):
                break
        except OSError:
            time.sleep(0.1)
    else:
        stop(process)
        raise RuntimeError(f"{kind} did not start listening on port {port}")
    client = Client(port)
    for _ in range(workers * 4):  # let every worker process import and connect once
        client.call("GET", "/api/games/0", headers={"Authorization": f"Bearer {API_TOKEN}"})
    client.close()
    return process


class Client:
    """One keep-alive connection (http.client reconnects by itself when the server closes it, as gunicorn's sync
    workers do after every response)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection(LOCAL, port, timeout=30)

    def call(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        head = {"Content-Type": "application/json"} if body is not None else {}
        head.update(headers or {})
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=body, headers=head)
                resp = self.conn.getresponse()
                return resp.status, resp.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # a kept-alive connection the server had already closed: nothing was processed, send it again
                self.conn.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def json(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        status, data = self.call(method, path, None if body is None else json.dumps(body).encode(), headers)
        try:
            return status, json.loads(data or b"{}")
        except ValueError:
            raise RuntimeError(f"{method} {path}: HTTP {status}, not JSON: {data[:300]!r}") from None

    def close(self) -> None:
        self.conn.close()


def create_games(port: int, count: int, seats: int, deadline: str, seed: int, threads: int = 4) -> list[dict[str, Any]]:
    """``count`` games of ``seats`` people each, through POST /api/games (several at once); returns the replies."""
    from concurrent.futures import ThreadPoolExecutor

    def one(i: int) -> dict[str, Any]:
        client = Client(port)
        body = {
            "players": [f"Player {s + 1} <p{s + 1}.g{i}@bench.invalid>" for s in range(seats)],
            "deadlines": [deadline],
            "avoid_quiet_hours": False,
            "seed": seed + i,
            "title": f"bench {i}",
        }
        status, reply = client.json("POST", "/api/games", body, {"Authorization": f"Bearer {API_TOKEN}"})
        client.close()
        if status != 201:
            raise RuntimeError(f"creating game {i}: HTTP {status} {reply}")
        return reply

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(one, range(count)))


def token_of(seat: dict[str, Any]) -> str:
    return str(seat["link"]).rsplit("/", 1)[1]


def cpu_snapshot() -> dict[int, tuple[str, float]]:
    """CPU seconds (user + system) used so far by every process on the machine, with its command name."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[int, tuple[str, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        comm, rest = raw[raw.index("(") + 1 : raw.rindex(")")], raw[raw.rindex(")") + 2 :].split()
        out[int(entry.name)] = (cmd or comm, (int(rest[11]) + int(rest[12])) / tick)
    return out


def machine_busy() -> float:
    """CPU seconds (all cores, everything but idle and I/O wait) the machine has used since boot."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def cpu_by_group(
    before: tuple[float, dict[int, tuple[str, float]]],
    after: tuple[float, dict[int, tuple[str, float]]],
    seconds: float,
    groups: dict[str, Any],
) -> dict[str, float]:
    """Cores used on average between two ``(machine_busy(), cpu_snapshot())`` pairs, by group: ``groups`` maps a
    name to a predicate on (pid, command line); "other" is the rest of the machine's busy time (other programs,
    processes that ended meanwhile, the kernel)."""
    used: dict[str, float] = dict.fromkeys(groups, 0.0)
    for pid, (cmd, cpu) in after[1].items():
        delta = cpu - before[1].get(pid, (cmd, 0.0))[1]
        name = next((n for n, match in groups.items() if match(pid, cmd)), None)
        if delta > 0 and name is not None:
            used[name] += delta
    used["other"] = max(0.0, after[0] - before[0] - sum(used.values()))
    return {name: round(value / seconds, 2) for name, value in used.items()}


def measure_cpu() -> tuple[float, dict[int, tuple[str, float]]]:
    return machine_busy(), cpu_snapshot()


def idle_options(ap: argparse.ArgumentParser, wait_s: float) -> None:
    """``--wait-idle`` and ``--max-other``: how a benchmark waits for the machine to be idle (``wait_quiet``)."""
    ap.add_argument(
        "--wait-idle",
        type=float,
        default=wait_s,
        metavar="S",
        help="before each phase wait up to S seconds for the machine to be idle (0: do not wait)",
    )
    ap.add_argument("--max-other", type=float, default=0.3, help="cores busy that still count as idle")


def wait_quiet(max_other: float, limit_s: float) -> float:
    """On a shared machine: wait (at most ``limit_s``) until the machine is nearly idle (under ``max_other``
    cores busy for 3 s in a row) before measuring; returns the seconds waited."""
    t0 = time.monotonic()
    quiet = 0
    last = machine_busy()
    while quiet < 3 and time.monotonic() - t0 < limit_s:
        time.sleep(1)
        now = machine_busy()
        quiet = quiet + 1 if now - last <= max_other else 0
        last = now
    waited = time.monotonic() - t0
    if quiet < 3:
        say(f"  the machine stayed busy for {waited:.0f} s; measuring anyway (see cores_used.other)")
    elif waited > 4:
        say(f"  waited {waited:.0f} s for the machine to be idle")
    return round(waited, 1)


def migrated(database_url: str) -> Database:
    """The database at ``database_url``, brought to the latest schema."""
    upgrade(database_url)
    return Database(database_url)


def bot_answer(db: Any, token: str, seed: int) -> Any:
    """A legal answer to the open request of the seat a link opens, decided by the engine's random bot (as every bot
    of deadmail decides, ``services.play.turns.bot_choice``); None when the seat owes nothing."""
    from server.services.links import read_token
    from server.services.play.turns import bot_choice

    return bot_choice(db, read_token(SECRET, token, 10**9)[0], "random", seed)


@contextmanager
def sqlite_url() -> Iterator[tuple[str, Path]]:
    """A throw-away SQLite database's URL and its folder."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        yield f"sqlite:///{folder}/bench.db", Path(folder)


def postgres_url(server: str) -> Any:
    """A context of a throw-away database on the PostgreSQL of ``server`` (``DEADMAIL_TEST_PG``): its URL and a
    folder."""

    @contextmanager
    def url() -> Iterator[tuple[str, Path]]:
        import tempfile

        base = server.rsplit("/", 1)[0] if server.count("/") > 2 else server
        with postgres_database(base) as db_url, tempfile.TemporaryDirectory() as folder:
            yield db_url, Path(folder)

    return url


def databases() -> dict[str, Any]:
    """The databases a benchmark runs on: PostgreSQL when ``DEADMAIL_TEST_PG`` is set, and SQLite."""
    found: dict[str, Any] = {}
    if os.environ.get("DEADMAIL_TEST_PG"):
        found["postgresql"] = postgres_url(os.environ["DEADMAIL_TEST_PG"])
    found["sqlite"] = sqlite_url
    return found
