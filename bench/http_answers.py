"""Answers per second through HTTP: gunicorn + PostgreSQL (+ Redis as the broker the web app kicks).

    python bench/http_answers.py [--workers 2,3,4] [--threads 4] [--games 60] [--seats 5] [--clients 8] [--duration 20]
                                 [--rate 100] [--rate-duration 20]

What it does, on 127.0.0.1 only:

1. creates a fresh PostgreSQL database ``dm_bench_<random>`` (dropped at the end) and runs the migrations;
2. for each gunicorn worker count: starts ``gunicorn 'server.run.wsgi:app' -w N --threads 4`` as a subprocess (as
   docs/OPERATIONS.md runs it: threads keep the clients' connections alive and overlap the round trips to the
   database; ``--threads 1`` gives sync workers, a connection per answer);
3. (first time only) creates ``--games`` games of ``--seats`` people through POST /api/games, deadlines of 30 days so
   nothing times out, and reads every seat's request with GET /api/seat/<token>; each seat's candidate answers are
   chosen by the engine's random bot (``_stack.bot_answer``: legal ones, several per seat);
4. warms up, then (a) ``--clients`` processes POST answers as fast as they can for ``--duration`` seconds ->
   ``answers_per_s``; (b) answers on an open-loop schedule of ``--rate`` per second for ``--rate-duration`` seconds;
   latency is measured from each answer's *scheduled* send time to its reply (so a late server is not hidden by
   a waiting client) -> ``p50_ms``, ``p99_ms``.

No worker runs: the first answers complete each game's first window (five simultaneous ``place`` requests), then
every further answer changes an answer (or repeats it, a no-op) while the window stays open -- the same path as a
player changing their mind: signed link, row lock on the open window, engine check, write, commit. The answer that
completes a window kicks its advance to Redis, once per window (the queue is emptied at the end);
``--incomplete`` leaves one seat per game silent so that no answer ever kicks. Only POST answers are counted;
every one must get HTTP 200. On a shared machine each phase first waits (``--wait-idle``) until the machine is
idle, and the cores used by gunicorn, PostgreSQL, Redis, the clients and everything else are reported (``cores_used``);
``--profile DIR`` records every gunicorn worker with py-spy during the max phase.

Repetitions: ``--workers 2,2,2,2,2,2`` restarts gunicorn six times on the same database and Redis (the answers of
the earlier runs kept); ``answers_per_s_runs`` lists each run's throughput, in order.

Prints progress on stderr and one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import multiprocessing.queues
import os
import random
import subprocess
import tempfile
import threading
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import _stack
from _stack import Client, say


def prepare(
    port: int, db: Any, games: int, seats: int, seed: int, *, choices: int, incomplete: bool = False
) -> list[tuple[str, list[bytes]]]:
    """Create the games; for every seat with a request, a few legal answers as ready JSON bodies. ``incomplete``:
    leave each game's last seat out, so no window is ever complete and no answer kicks an advance."""
    t0 = time.monotonic()
    created = _stack.create_games(port, games, seats, "30d", seed)
    say(f"created {games} games x {seats} seats in {time.monotonic() - t0:.1f} s")
    client = Client(port)
    targets: list[tuple[str, list[bytes]]] = []
    for game in created:
        for seat in game["seats"][: -1 if incomplete else None]:
            token = _stack.token_of(seat)
            status, data = client.json("GET", f"/api/seat/{token}")
            if status != 200:
                raise RuntimeError(f"GET seat: HTTP {status} {data}")
            window = data["window"]
            if window is None or window["request"] is None:
                continue
            request = window["request"]
            bodies = {
                json.dumps(
                    {
                        "kind": request["kind"],
                        "window": window["number"],
                        "answer": _stack.bot_answer(db, token, seed * 1009 + k),
                    }
                ).encode()
                for k in range(choices)
            }
            targets.append((f"/api/seat/{token}/answer", sorted(bodies)))
    client.close()
    say(f"{len(targets)} seats have a request; {sum(len(b) for _, b in targets)} distinct legal answers")
    return targets


Targets = list[tuple[str, list[bytes]]]


def _client_process(
    index: int, port: int, targets: Targets, plan: dict[str, Any], out: multiprocessing.queues.Queue[Any]
) -> None:
    """One client process (processes, not threads, so the clients' own GIL does not delay replies): a closed loop
    (``plan["mode"] == "max"``) or its share of an open-loop schedule (``"rate"``), with a few threads."""
    rng = random.Random(index)
    lock = threading.Lock()
    ok, changed, errors, latencies, service = [0], [0], Counter[str](), [], []

    def record(status: int, body: bytes) -> None:
        with lock:
            if status == 200:
                ok[0] += 1
                changed[0] += b'"changed":true' in body
            else:
                errors[f"{status} {body[:120].decode(errors='replace')}"] += 1

    def closed_loop() -> None:
        client = Client(port)
        while time.monotonic() < plan["stop_at"] and ok[0] + errors.total() < plan["limit"]:
            path, bodies = rng.choice(targets)
            record(*client.call("POST", path, rng.choice(bodies)))
        client.close()

    slots = iter(range(index, plan["total"], plan["processes"]))  # this process's share of the schedule

    def open_loop() -> None:
        client = Client(port)
        while True:
            with lock:
                slot = next(slots, None)
                path, bodies = rng.choice(targets)
                body = rng.choice(bodies)
            if slot is None:
                break
            due = plan["t0"] + slot / plan["rate"]
            if (wait := due - time.monotonic()) > 0:
                time.sleep(wait)
            start = time.monotonic()
            result = client.call("POST", path, body)
            end = time.monotonic()
            record(*result)
            with lock:
                latencies.append(end - due)
                service.append(end - start)
        client.close()

    cpu0 = time.process_time()
    target = closed_loop if plan["mode"] == "max" else open_loop
    threads = [threading.Thread(target=target) for _ in range(plan["threads"])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put((ok[0], changed[0], dict(errors), latencies, service, time.process_time() - cpu0))


def _run_clients(port: int, targets: Targets, processes: int, plan: dict[str, Any]) -> dict[str, Any]:
    out: multiprocessing.queues.Queue[Any] = multiprocessing.Queue()
    plan = {**plan, "processes": processes}
    procs = [
        multiprocessing.Process(target=_client_process, args=(i, port, targets, plan, out)) for i in range(processes)
    ]
    for p in procs:
        p.start()
    parts = [out.get(timeout=300) for _ in procs]
    for p in procs:
        p.join()
    errors: Counter[str] = Counter()
    for part in parts:
        errors.update(part[2])
    return {
        "ok": sum(p[0] for p in parts),
        "changed": sum(p[1] for p in parts),
        "errors": dict(errors),
        "latencies": [x for p in parts for x in p[3]],
        "service": [x for p in parts for x in p[4]],
        "client_cpu_s": round(sum(p[5] for p in parts), 1),
    }


def hammer(port: int, targets: Targets, clients: int, seconds: float, limit: int) -> dict[str, Any]:
    """Closed loop: ``clients`` processes, each sending its next answer as soon as the last one is answered."""
    t0 = time.monotonic()
    plan = {"mode": "max", "threads": 1, "stop_at": t0 + seconds, "limit": limit // clients, "total": 0}
    got = _run_clients(port, targets, clients, plan)
    elapsed = time.monotonic() - t0
    return {
        "answers": got["ok"],
        "seconds": round(elapsed, 2),
        "answers_per_s": round(got["ok"] / elapsed, 1),
        "changed": got["changed"],
        "errors": got["errors"],
        "client_cpu_s": got["client_cpu_s"],
    }


def fixed_rate(port: int, targets: Targets, rate: float, seconds: float, processes: int = 4) -> dict[str, Any]:
    """Open loop: answer i is due at t0 + i/rate whatever happened before, and its latency counts from that
    instant (a slow reply does not delay the next answers; 4 processes x 4 threads send them)."""
    t0 = time.monotonic() + 0.5
    plan = {"mode": "rate", "threads": 4, "t0": t0, "rate": rate, "total": int(rate * seconds)}
    got = _run_clients(port, targets, processes, plan)
    elapsed = time.monotonic() - t0
    ms = [x * 1000 for x in got["latencies"]]
    return {
        "rate": rate,
        "answers": got["ok"],
        "seconds": round(elapsed, 2),
        "achieved_per_s": round(got["ok"] / elapsed, 1),
        "p50_ms": round(_stack.percentile(ms, 0.50), 1),
        "p90_ms": round(_stack.percentile(ms, 0.90), 1),
        "p99_ms": round(_stack.percentile(ms, 0.99), 1),
        "max_ms": round(max(ms), 1) if ms else None,
        "service_p99_ms": round(_stack.percentile([x * 1000 for x in got["service"]], 0.99), 1),
        "errors": got["errors"],
        "client_cpu_s": got["client_cpu_s"],
    }


def _parent(pid: int) -> int:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(raw[raw.rindex(")") + 2 :].split()[1])


def groups(master: int, database: str) -> dict[str, Any]:
    """Who uses the CPU during the max phase (the rest is "other", e.g. other programs on the machine). PostgreSQL
    counts its own background processes and the connections to the benchmark's database, not other databases."""
    me = os.getpid()

    def postgres(pid: int, cmd: str) -> bool:
        if not cmd.split(" ", maxsplit=1)[0].rsplit("/", 1)[-1].startswith("postgres"):
            return False
        client = "127.0.0.1(" in cmd or "[local]" in cmd
        return not client or f" {database} " in cmd

    return {
        "gunicorn": lambda pid, cmd: pid == master or _parent(pid) == master,
        "postgres": postgres,
        "redis": lambda pid, cmd: cmd.startswith("redis-server"),
        "client": lambda pid, cmd: pid == me or _parent(pid) == me,
    }


def profile(master: int, seconds: float, folder: Path, workers: int) -> list[subprocess.Popen[bytes]]:
    """``py-spy record`` (collapsed stacks) of every gunicorn worker process while the max phase runs."""
    folder.mkdir(parents=True, exist_ok=True)
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [
        subprocess.Popen(
            [
                "py-spy",
                "record",
                "--pid",
                pid,
                "--duration",
                str(int(seconds)),
                "--rate",
                "200",
                "--format",
                "raw",
                "--output",
                str(folder / f"w{workers}-{pid}.txt"),
                "--nonblocking",
                "--idle",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for pid in children
    ]


def measured(
    args: argparse.Namespace, who: dict[str, Any], phase: Any, *params: Any, on_start: Any = None
) -> dict[str, Any]:
    """Run one phase (after waiting for an idle machine) and add the cores each group used meanwhile."""
    waited = _stack.wait_quiet(args.max_other, args.wait_idle) if args.wait_idle else 0.0
    spies = on_start() if on_start else []
    before, t0 = _stack.measure_cpu(), time.monotonic()
    result: dict[str, Any] = phase(*params)
    elapsed = time.monotonic() - t0
    cores = _stack.cpu_by_group(before, _stack.measure_cpu(), elapsed, who)
    # the client processes ended before the second snapshot: their CPU was counted in "other"
    client = result.get("client_cpu_s", 0.0) / elapsed
    cores["client"] = round(cores["client"] + client, 2)
    cores["other"] = round(max(0.0, cores["other"] - client), 2)
    result["cores_used"] = cores
    for spy in spies:
        spy.wait()
    result["waited_for_idle_s"] = waited
    return result


def options() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432", help="PostgreSQL server URL")
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/14", help="broker (this Redis database is emptied)")
    ap.add_argument("--workers", default="2,3,4", help="gunicorn worker counts to try, comma separated")
    ap.add_argument(
        "--threads", type=int, default=4, help="gunicorn --threads, as docs/OPERATIONS.md runs it (1: sync workers)"
    )
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seats", type=int, default=5)
    ap.add_argument("--clients", type=int, default=8, help="client processes for the max-throughput phase")
    ap.add_argument("--duration", type=float, default=20.0, help="seconds of the max-throughput phase")
    ap.add_argument("--max-answers", type=int, default=40_000, help="cap on answers in the max-throughput phase")
    ap.add_argument("--rate", type=float, default=100.0, help="answers per second of the latency phase")
    ap.add_argument("--rate-duration", type=float, default=20.0)
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--incomplete",
        action="store_true",
        help="leave one seat per game silent: windows stay incomplete, no answer kicks an advance",
    )
    _stack.idle_options(ap, 120.0)
    ap.add_argument("--profile", metavar="DIR", help="py-spy record every gunicorn worker during the max phase")
    ap.add_argument("--tiny", action="store_true", help="seconds, for CI: -w 2, 4 games, 2 s phases")
    args = ap.parse_args()
    if args.tiny:
        args.workers, args.games, args.clients, args.duration, args.rate = "2", 4, 2, 2.0, 20.0
        args.rate_duration, args.warmup, args.wait_idle = 2.0, 0.5, 0.0
    return args


def main() -> None:
    args = options()
    counts = [int(x) for x in args.workers.split(",")]
    if not (3 <= args.seats <= 6 and 1 <= args.games <= 500 and args.duration <= 120 and args.rate_duration <= 120):
        raise SystemExit("--seats 3..6, --games at most 500, phases at most 120 s")

    runs: list[dict[str, Any]] = []
    with (
        _stack.postgres_database(args.pg) as database_url,
        _stack.redis_db(args.redis) as broker_url,
        tempfile.TemporaryDirectory(prefix="dm-bench-") as tmp,
    ):
        db = _stack.migrated(database_url)
        targets: list[tuple[str, list[bytes]]] = []
        for workers in counts:
            port = _stack.free_port()
            env = _stack.server_env(Path(tmp), database_url, broker_url, f"http://127.0.0.1:{port}")
            say(f"gunicorn -w {workers} --threads {args.threads} on port {port}")
            web = _stack.start_web("gunicorn", env, port, workers, args.threads)
            try:
                if not targets:
                    targets = prepare(
                        port, db, args.games, args.seats, args.seed, choices=6, incomplete=args.incomplete
                    )
                hammer(port, targets, args.clients, args.warmup, 10_000)  # every process restores every game once
                who = groups(web.pid, database_url.rsplit("/", 1)[1])

                say(f"  max throughput: {args.clients} clients for {args.duration:.0f} s")
                spy = partial(profile, web.pid, args.duration, Path(args.profile or "."), workers)
                peak = measured(
                    args,
                    who,
                    hammer,
                    port,
                    targets,
                    args.clients,
                    args.duration,
                    args.max_answers,
                    on_start=spy if args.profile else None,
                )
                say(
                    f"  -> {peak['answers_per_s']} answers/s ({peak['answers']} answers, errors {peak['errors']}), "
                    f"cores used {peak['cores_used']}"
                )
                say(f"  fixed rate: {args.rate:.0f}/s for {args.rate_duration:.0f} s")
                steady = measured(args, who, fixed_rate, port, targets, args.rate, args.rate_duration)
                say(
                    f"  -> p50 {steady['p50_ms']} ms, p99 {steady['p99_ms']} ms, errors {steady['errors']}, "
                    f"cores used {steady['cores_used']}"
                )
            finally:
                _stack.stop(web)
            runs.append({"workers": workers, "threads": args.threads, "max": peak, "fixed_rate": steady})
    best = max(runs, key=lambda r: r["max"]["answers_per_s"])
    result = {
        "benchmark": "http_answers",
        "server": f"gunicorn -w {best['workers']}" + (f" --threads {args.threads}" if args.threads > 1 else ""),
        "games": args.games,
        "seats": args.seats,
        "clients": args.clients,
        "answers_per_s": best["max"]["answers_per_s"],
        # each run's, in order: the same workers repeated (``--workers 2,2,2,2,2,2``) show a decline if any
        "answers_per_s_runs": [r["max"]["answers_per_s"] for r in runs],
        "p50_ms": best["fixed_rate"]["p50_ms"],
        "p99_ms": best["fixed_rate"]["p99_ms"],
        "worker": "none",
        "windows": "incomplete: no kicks" if args.incomplete else "complete: one advance kick per window",
        "runs": runs,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
