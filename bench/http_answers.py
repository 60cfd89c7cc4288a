"""Answers per second through HTTP: gunicorn + PostgreSQL (+ Redis as the broker the web app kicks).

    python bench/http_answers.py [--workers 2,3,4] [--games 60] [--seats 5] [--clients 8] [--duration 20]
                                 [--rate 100] [--rate-duration 20]

What it does, on 127.0.0.1 only:

1. creates a fresh PostgreSQL database ``dm_bench_<random>`` (dropped at the end) and runs the migrations;
2. for each gunicorn worker count: starts ``gunicorn 'server.wsgi:app' -w N`` as a subprocess;
3. (first time only) creates ``--games`` games of ``--seats`` people through POST /api/games, deadlines of 30 days so
   nothing times out, and reads every seat's request with GET /api/seat/<token>; each seat's candidate answers are
   chosen with ``server.demo.bot_answer`` (legal ones, several per seat);
4. warms up, then (a) ``--clients`` threads POST answers as fast as they can for ``--duration`` seconds ->
   ``answers_per_s``; (b) answers on an open-loop schedule of ``--rate`` per second for ``--rate-duration`` seconds;
   latency is measured from each answer's *scheduled* send time to its reply (so a late server is not hidden by
   a waiting client) -> ``p50_ms``, ``p99_ms``.

No worker runs: the first answers complete each game's first window (five simultaneous ``place`` requests), then
every further answer changes an answer (or repeats it, a no-op) while the window stays open -- the same path as a
player changing their mind: signed link, row lock on the open window, engine check, write, commit, and the advance
kick to Redis (every answer to a complete window sends one; the queue is emptied at the end). Only POST answers
are counted; every one must get HTTP 200.

Prints progress on stderr and one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import _stack
from _stack import Client, say


def prepare(port: int, games: int, seats: int, seed: int, choices: int) -> list[tuple[str, list[bytes]]]:
    """Create the games; for every seat with a request, a few legal answers as ready JSON bodies."""
    from server.demo import bot_answer

    t0 = time.monotonic()
    created = _stack.create_games(port, games, seats, "30d", seed)
    say(f"created {games} games x {seats} seats in {time.monotonic() - t0:.1f} s")
    rng = random.Random(seed)
    client = Client(port)
    targets: list[tuple[str, list[bytes]]] = []
    for game in created:
        for seat in game["seats"]:
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
                    {"kind": request["kind"], "window": window["number"], "answer": bot_answer(request, data["view"], rng)}
                ).encode()
                for _ in range(choices)
            }
            targets.append((f"/api/seat/{token}/answer", sorted(bodies)))
    client.close()
    say(f"{len(targets)} seats have a request; {sum(len(b) for _, b in targets)} distinct legal answers")
    return targets


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ok = 0
        self.changed = 0
        self.errors: dict[str, int] = {}

    def add(self, status: int, body: bytes) -> None:
        with self.lock:
            if status == 200:
                self.ok += 1
                self.changed += b'"changed":true' in body
            else:
                key = f"{status} {body[:120].decode(errors='replace')}"
                self.errors[key] = self.errors.get(key, 0) + 1


def hammer(port: int, targets: list[tuple[str, list[bytes]]], clients: int, seconds: float, limit: int) -> dict[str, Any]:
    """Closed loop: every client sends its next answer as soon as the last one is answered."""
    tally = Tally()
    sent = itertools.count()
    stop_at = time.monotonic() + seconds

    def run(i: int) -> None:
        rng = random.Random(i)
        client = Client(port)
        while time.monotonic() < stop_at and next(sent) < limit:
            path, bodies = rng.choice(targets)
            tally.add(*client.call("POST", path, rng.choice(bodies)))
        client.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    t0, cpu0 = time.monotonic(), time.process_time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed, cpu = time.monotonic() - t0, time.process_time() - cpu0
    return {
        "answers": tally.ok,
        "seconds": round(elapsed, 2),
        "answers_per_s": round(tally.ok / elapsed, 1),
        "changed": tally.changed,
        "errors": tally.errors,
        "client_cpu_s": round(cpu, 1),
    }


def fixed_rate(
    port: int, targets: list[tuple[str, list[bytes]]], rate: float, seconds: float, clients: int
) -> dict[str, Any]:
    """Open loop: answer i is due at t0 + i/rate whatever happened before; latency counts from that instant."""
    tally = Tally()
    total = int(rate * seconds)
    slots = itertools.count()
    lock = threading.Lock()
    latencies: list[float] = []
    service: list[float] = []
    t0 = time.monotonic() + 0.2

    def run(i: int) -> None:
        rng = random.Random(1000 + i)
        client = Client(port)
        while True:
            with lock:
                slot = next(slots)
            if slot >= total:
                break
            due = t0 + slot / rate
            if (wait := due - time.monotonic()) > 0:
                time.sleep(wait)
            path, bodies = rng.choice(targets)
            start = time.monotonic()
            result = client.call("POST", path, rng.choice(bodies))
            end = time.monotonic()
            tally.add(*result)
            with lock:
                latencies.append(end - due)
                service.append(end - start)
        client.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    ms = [x * 1000 for x in latencies]
    return {
        "rate": rate,
        "answers": tally.ok,
        "seconds": round(elapsed, 2),
        "achieved_per_s": round(tally.ok / elapsed, 1),
        "p50_ms": round(_stack.percentile(ms, 0.50), 1),
        "p90_ms": round(_stack.percentile(ms, 0.90), 1),
        "p99_ms": round(_stack.percentile(ms, 0.99), 1),
        "max_ms": round(max(ms), 1) if ms else None,
        "service_p99_ms": round(_stack.percentile([x * 1000 for x in service], 0.99), 1),
        "errors": tally.errors,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432", help="PostgreSQL server URL")
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/14", help="broker (this Redis database is emptied)")
    ap.add_argument("--workers", default="2,3,4", help="gunicorn worker counts to try, comma separated")
    ap.add_argument("--threads", type=int, default=1, help="gunicorn --threads (1: sync workers)")
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seats", type=int, default=5)
    ap.add_argument("--clients", type=int, default=8, help="client threads for the max-throughput phase")
    ap.add_argument("--duration", type=float, default=20.0, help="seconds of the max-throughput phase")
    ap.add_argument("--max-answers", type=int, default=40_000, help="cap on answers in the max-throughput phase")
    ap.add_argument("--rate", type=float, default=100.0, help="answers per second of the latency phase")
    ap.add_argument("--rate-duration", type=float, default=20.0)
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    counts = [int(x) for x in args.workers.split(",")]
    if not (3 <= args.seats <= 6 and 1 <= args.games <= 500 and args.duration <= 120 and args.rate_duration <= 120):
        raise SystemExit("--seats 3..6, --games at most 500, phases at most 120 s")

    from server.migrate import upgrade

    runs: list[dict[str, Any]] = []
    with (
        _stack.postgres_database(args.pg) as database_url,
        _stack.redis_db(args.redis) as broker_url,
        tempfile.TemporaryDirectory(prefix="dm-bench-") as tmp,
    ):
        upgrade(database_url)
        targets: list[tuple[str, list[bytes]]] = []
        for workers in counts:
            port = _stack.free_port()
            env = _stack.server_env(Path(tmp), database_url, broker_url, f"http://127.0.0.1:{port}")
            say(f"gunicorn -w {workers} --threads {args.threads} on port {port}")
            web = _stack.start_web("gunicorn", env, port, workers, args.threads)
            try:
                if not targets:
                    targets = prepare(port, args.games, args.seats, args.seed, choices=6)
                hammer(port, targets, args.clients, args.warmup, 10_000)  # every process restores every game once
                say(f"  max throughput: {args.clients} clients for {args.duration:.0f} s")
                peak = hammer(port, targets, args.clients, args.duration, args.max_answers)
                say(f"  -> {peak['answers_per_s']} answers/s ({peak['answers']} answers, errors {peak['errors']})")
                say(f"  fixed rate: {args.rate:.0f}/s for {args.rate_duration:.0f} s")
                steady = fixed_rate(port, targets, args.rate, args.rate_duration, clients=16)
                say(f"  -> p50 {steady['p50_ms']} ms, p99 {steady['p99_ms']} ms, errors {steady['errors']}")
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
        "p50_ms": best["fixed_rate"]["p50_ms"],
        "p99_ms": best["fixed_rate"]["p99_ms"],
        "worker": "none (answers complete windows, which then stay open)",
        "runs": runs,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
