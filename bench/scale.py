"""Scale: N live 5-player games on one PostgreSQL, built fast, and what the sweep, the workers and answers cost.

    DEADMAIL_TEST_PG=… DEADMAIL_TEST_REDIS=… python bench/scale.py [--games 1000,10000] [--templates 20]
                                                                   [--tiny] [--seed 1] [--only answers]

For each N, on 127.0.0.1 only, in a fresh PostgreSQL database ``dm_bench_<random>`` (dropped at the end) with the
Redis server of ``DEADMAIL_TEST_REDIS``, database 12, as the broker (emptied before and after) and an aiosmtpd sink
as the SMTP server:

1. **Templates**: ``--templates`` games are created (``services.play.games.create_game``, deadlines of one day) and
played
   in-process by the engine's random bots (``turns.bot_choice`` → ``turns.submit_answer`` → ``turns.advance_window``)
   to windows spread over the whole game (various rounds and phases); one more is played to its end. For each
   open request a few legal answers are worked out by the bots and kept.
2. **Clones**: the templates' rows of every table of a game (players, games with their ``state``, seats, windows,
   requests, events, outbox, …: found from ``server.models``' foreign keys) are copied with ``INSERT … SELECT``
   and ``generate_series`` until there are N live games: new ids (offsets per copy), distinct player addresses,
   every instant shifted so that each window opened in the last 6 hours (so no deadline nor reminder is due), the
   copied mail recorded as sent. Packed values are copied byte for byte: a copy's archive of closed windows and
   its people's ledgers name the template's seats and windows (their sizes and reads are what matter here). Build
   seconds and database size are reported.
3. **Measures**, with real ``celery -A worker.app worker --pool=solo`` subprocesses (no beat: the benchmark sends
   ``deadmail.sweep`` itself, once a minute while it waits, as beat would) and completion read from the database:
   ``sweep_idle_s`` (one pass of every part of the sweep with nothing due, in the benchmark's process; median of 3);
   ``sweep_due_s`` (1 % of open windows made due: until all of them are closed and no due mail is pending, 2
   workers); ``advance_per_s`` with 1 and 2 workers (a backlog of complete windows: their requests answered in SQL
   with the bots' legal answers, ``completed_at`` set, one ``deadmail.advance_window`` task each; advancing also
   writes and sends their mail); ``answers`` (``turns.submit_answer`` called by 2 client processes, not HTTP: over
   3,000 games and over 60 games (requests with two legal answers or more), every answer changing the stored one
   among the legal ones, each client having run the same plan once untimed (the steady state of web processes that
   have seen these games), and the ratio of the two rates (``answers_spread_ratio``); ``cold``: one answer to each
   of up to 3,000 untouched games, round-robin, from a cold start. Votes are left out (the first answers may decide
   them) and the last request of each window is left unanswered, so no answer kicks an advance; answers/s and CPU
   ms per answer of the client processes, which do the web's work, and of PostgreSQL); ``mails_per_s`` (one worker
   sending a backlog of pending turn mails, one ``deadmail.send_outbox`` task per 100 rows); ``bytes_per_live_game``
   and ``bytes_per_finished_game`` (``pg_total_relation_size`` of the game tables: after the build / N, and the
   growth from copying the finished template / copies).

``--only answers`` builds the games and measures the answers only (the run's entry then has only the build's figures
and ``answers``/``answers_spread_ratio``).

Prints progress on stderr and one JSON object on stdout, one entry per N under ``runs``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import _stack
import sqlalchemy as sa

SEATS = 5
#: the Redis database number emptied and used as the broker (latency.py: 13, http_answers.py: 14).
REDIS_DB = 12
#: windows opened at most this long ago in the copies (a one-day deadline's first reminder is 12 h after opening).
SPREAD = timedelta(hours=6)
#: the time between two windows of a template.
STEP = timedelta(minutes=10)
STARTED = time.monotonic()


def say(text: str) -> None:
    _stack.say(f"[{time.monotonic() - STARTED:5.0f} s] {text}")


#: seconds to wait at most for a measured phase.
LIMIT = 900.0


# --- templates --------------------------------------------------------------------------------------------------


def play(db: Any, game_id: int, windows: int, seed: int, now: datetime) -> None:
    """Play the game's bots in-process until ``windows`` windows have closed or it is over, one every ``STEP``."""
    from sqlalchemy import select

    from server.models import RequestRow, Window, WindowStatus
    from server.services.play import turns
    from server.services.play.turns import AnswerError

    rng = random.Random(seed)
    for _ in range(windows):
        with db.session() as session:
            window = session.execute(
                select(Window).where(Window.game_id == game_id, Window.status == WindowStatus.OPEN)
            ).scalar_one_or_none()
            if window is None:
                return
            owed = session.execute(
                select(RequestRow.seat_id, RequestRow.kind).where(
                    RequestRow.window_id == window.id, RequestRow.answered_at.is_(None)
                )
            ).all()
            window_id, number = window.id, window.number
        now += STEP
        for seat_id, kind in owed:
            answer = turns.bot_choice(db, seat_id, "random", rng.randrange(2**31))
            if answer is not None:
                with contextlib.suppress(AnswerError):  # a vote the answers so far decided takes no more
                    turns.submit_answer(db, seat_id, kind, answer, window_number=number, now=now)
        turns.advance_window(db, window_id, now=now)


def candidates(db: Any, seed: int) -> dict[int, list[Any]]:
    """For every unanswered request of an open window: a few legal answers, by the bots (JSON-equal ones once)."""
    from sqlalchemy import select

    from server.models import RequestRow, Window, WindowStatus
    from server.services.play import turns

    with db.session() as session:
        owed = session.execute(
            select(RequestRow.id, RequestRow.seat_id)
            .join(Window, Window.id == RequestRow.window_id)
            .where(Window.status == WindowStatus.OPEN, RequestRow.answered_at.is_(None))
        ).all()
    out: dict[int, list[Any]] = {}
    for request_id, seat_id in owed:
        answers = {json.dumps(turns.bot_choice(db, seat_id, "random", seed * 7 + k)): None for k in range(4)}
        out[request_id] = [json.loads(a) for a in answers if a != "null"]
    return {k: v for k, v in out.items() if v}


def build_templates(db: Any, count: int, seed: int) -> dict[str, Any]:
    """``count`` games played to windows spread over a game, and one played to its end."""
    from server.models import utcnow
    from server.services.play.games import create_game, spec_from_json

    t0 = time.monotonic()
    end = utcnow().replace(microsecond=0) - timedelta(minutes=1)  # every live template's open window opened then
    ids: list[int] = []
    for i in range(count + 1):
        body = {
            "players": [f"Player {s + 1} <p{s + 1}.t{i}@bench.invalid>" for s in range(SEATS)],
            "deadlines": ["1d"],
            "avoid_quiet_hours": False,
            "seed": seed * 1000 + i,
            "title": f"scale {i}",
        }
        target = 400 if i == count else (i * 60) // max(1, count)  # windows 0..~60 of ~67; the last: to its end
        start = end - target * STEP
        game_id = create_game(db, spec_from_json(body), now=start).game_id
        play(db, game_id, target, seed * 1000 + i, start)
        ids.append(game_id)
    with db.engine.begin() as conn:
        over = conn.execute(sa.text("SELECT id FROM games WHERE status = 'over'")).scalars().all()
        live = [g for g in ids if g not in over]
        phases = conn.execute(sa.text("SELECT round, phase FROM games WHERE status <> 'over' ORDER BY id")).all()
        conn.execute(sa.text("UPDATE outbox SET status = 'sent', sent_at = created_at WHERE status = 'pending'"))
    say(
        f"  {count + 1} templates played in {time.monotonic() - t0:.1f} s: {len(live)} live "
        f"(round/phase {sorted({f'{r}/{p}' for r, p in phases})}), {len(over)} over"
    )
    answers = candidates(db, seed)
    seconds = round(time.monotonic() - t0, 1)
    return {"live": live, "over": list(over), "answers": answers, "end": end, "seconds": seconds}


# --- cloning ------------------------------------------------------------------------------------------------------


#: the tables of the people at a game's table: copied with the game (a copy's players are its own).
PEOPLE = ("players", "ledgers")


def game_tables() -> list[sa.Table]:
    """Every table whose rows belong to a game (a foreign key path to ``games``), and ``PEOPLE``; parents first."""
    from server.models import Base

    belongs = {"games"}
    changed = True
    while changed:
        changed = False
        for table in Base.metadata.sorted_tables:
            if table.name not in belongs and any(fk.column.table.name in belongs for fk in table.foreign_keys):
                belongs.add(table.name)
                changed = True
    return [t for t in Base.metadata.sorted_tables if t.name in belongs or t.name in PEOPLE]


def _owned(table: sa.Table, games: str) -> str:
    """SQL condition: the row of ``table`` belongs to one of ``games`` (an SQL list of ids)."""
    if table.name == "games":
        return f"id IN ({games})"
    if "game_id" in table.c:
        return f"game_id IN ({games})"
    if table.name in PEOPLE:
        column = "id" if table.name == "players" else "player_id"
        return f"{column} IN (SELECT player_id FROM seats WHERE game_id IN ({games}))"
    for fk in sorted(table.foreign_keys, key=lambda fk: fk.parent.name):
        parent = fk.column.table
        if parent.name != "players" and parent in game_tables():
            return f"{fk.parent.name} IN (SELECT id FROM {parent.name} WHERE {_owned(parent, games)})"
    raise AssertionError(f"{table.name}: no path to games")


class Cloner:
    """Copies of template games' rows, ``INSERT … SELECT`` per table over ``generate_series``: copy ``s`` has ids
    ``id + s * span`` (``span``: the largest template id of the table), its own player addresses and mail keys."""

    def __init__(self, conn: sa.Connection) -> None:
        self.tables = game_tables()
        #: the tables with an id of their own (``event_batches`` is keyed by its game and first event)
        self.numbered = [t for t in self.tables if "id" in t.c]
        self.span = {t.name: self._top(conn, t.name) + 1 for t in self.numbered}
        self.next = 1  # the next free copy number

    @staticmethod
    def _top(conn: sa.Connection, table: str) -> int:
        """The highest id the table has given: its sequence's (rows closed windows leave are deleted, their ids are
        never given again: mail keys carry them)."""
        sql = f"SELECT greatest(coalesce(max(id), 0), (SELECT last_value FROM {table}_id_seq)) FROM {table}"
        top: int = conn.execute(sa.text(sql)).scalar_one()
        return top

    def copies_free(self, conn: sa.Connection) -> None:
        """Move ``next`` past every id written since (workers' new rows)."""
        for t in self.numbered:
            self.next = max(self.next, self._top(conn, t.name) // self.span[t.name] + 1)

    def clone(self, conn: sa.Connection, games: list[int], copies: int, shift: str, sent: bool = True) -> range:
        """``copies`` copies of ``games``; every instant moved by the SQL interval ``shift`` (it may use ``s``, the
        copy number). Returns the copy numbers."""
        self.copies_free(conn)
        first, ids = self.next, ",".join(map(str, games))
        names = {t.name for t in self.tables}
        for table in self.tables:
            cols, values = [], []
            for col in table.c:
                cols.append(col.name)
                target = next((fk.column.table.name for fk in col.foreign_keys), None)
                if col.name == "id":
                    values.append(f"{col.name} + s * {self.span[table.name]}")
                elif target in names:
                    values.append(f"{col.name} + s * {self.span[target]}")
                elif isinstance(col.type, sa.types.TypeDecorator) and "DateTime" in type(col.type).__name__:
                    values.append(f"{col.name} + ({shift})")
                elif (table.name, col.name) in {("players", "email")}:
                    values.append("replace(email, '@', '.c' || s || '@')")
                elif col.unique and isinstance(col.type, sa.String):
                    values.append(f"{col.name} || '.c' || s")
                elif (table.name, col.name) == ("outbox", "status") and sent:
                    values.append("CASE WHEN status = 'pending' THEN 'sent' ELSE status END")
                else:
                    values.append(col.name)
            conn.execute(
                sa.text(
                    f"INSERT INTO {table.name} ({', '.join(cols)}) SELECT {', '.join(values)} FROM {table.name}, "
                    f"generate_series({first}, {first + copies - 1}) AS s WHERE {_owned(table, ids)}"
                )
            )
        for table in self.numbered:
            conn.execute(
                sa.text(
                    f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), (SELECT max(id) FROM {table.name}))"
                )
            )
        self.next = first + copies
        return range(first, first + copies)


def game_bytes(conn: sa.Connection) -> int:
    """``pg_total_relation_size`` of every game table (with its indexes and TOAST)."""
    sizes = " + ".join(f"pg_total_relation_size('{t.name}')" for t in game_tables())
    return int(conn.execute(sa.text(f"SELECT {sizes}")).scalar_one())


# --- the services around ------------------------------------------------------------------------------------------


@contextmanager
def smtp_sink() -> Iterator[str]:
    """An SMTP server on 127.0.0.1 that accepts every mail and keeps nothing; yields its ``smtp://`` URL."""
    from aiosmtpd.controller import Controller

    class Sink:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            return "250 OK"

    port = _stack.free_port()
    controller = Controller(Sink(), hostname=_stack.LOCAL, port=port, server_hostname="localhost")
    controller.start()
    try:
        yield f"smtp://{_stack.LOCAL}:{port}"
    finally:
        controller.stop()


class Stack:
    """Settings, the database and the broker; worker subprocesses started and stopped on demand."""

    def __init__(self, database_url: str, broker_url: str, smtp_url: str, data_dir: Path) -> None:
        import redis

        from server.config import Settings, prepare_data_dir
        from server.run.queue import Queue

        env = {
            **_stack.server_env(data_dir, database_url, broker_url, "http://127.0.0.1:1"),
            "DEADMAIL_SMTP_URL": smtp_url,
        }
        self.settings = prepare_data_dir(Settings.from_env(env))
        self.queue = Queue(self.settings)
        self.engine = sa.create_engine(database_url, isolation_level="AUTOCOMMIT")
        self.workers: list[Any] = []
        self.redis = redis.Redis.from_url(broker_url, socket_timeout=10, socket_connect_timeout=10)

    def start(self, count: int) -> None:
        """Exactly ``count`` workers, up and consuming (started or stopped as needed)."""
        from server.run.processes import start_worker, stop

        while len(self.workers) > count:
            stop(self.workers.pop())
        while len(self.workers) < count:
            self.workers.append(start_worker(self.settings, beat=False))
        t0 = time.monotonic()
        while len(self.queue.celery.control.ping(timeout=0.5)) < count:
            if any(w.poll() is not None for w in self.workers) or time.monotonic() - t0 > 60:
                raise RuntimeError("the workers did not start")

    def stop(self) -> None:
        from server.run.processes import stop

        for worker in self.workers:
            stop(worker)
        self.workers = []

    def scalar(self, sql: str, **params: Any) -> Any:
        with self.engine.connect() as conn:
            return conn.execute(sa.text(sql), params).scalar_one()

    def wait(self, done: str, what: str, resweep: bool = False, **params: Any) -> float:
        """Seconds until the SQL count ``done`` is 0 (polled every 50 ms); with ``resweep``, ``deadmail.sweep`` is
        sent again every minute, as beat would."""
        t0 = last = time.monotonic()
        left = self.scalar(done, **params)
        while left:
            if time.monotonic() - t0 > LIMIT:
                raise RuntimeError(f"{what}: {left} left after {LIMIT:.0f} s")
            if any(w.poll() is not None for w in self.workers):
                raise RuntimeError(f"{what}: a worker exited")
            if resweep and time.monotonic() - last >= 60:
                self.sweep()
                last = time.monotonic()
            time.sleep(0.05)
            left = self.scalar(done, **params)
        return time.monotonic() - t0

    def sweep(self) -> None:
        self.queue.celery.send_task("deadmail.sweep", ignore_result=True)

    def backlog(self) -> int:
        """Messages waiting in the worker's queues."""
        from server.run.queue import mail_queue

        return sum(int(self.redis.llen(q)) for q in (self.settings.queue, mail_queue(self.settings)))


# --- measures -----------------------------------------------------------------------------------------------------

OPEN_DUE = "SELECT count(*) FROM windows WHERE status <> 'closed' AND id = ANY(:ids)"
MAIL_DUE = (
    "SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending') AND next_attempt_at <= now() AND id <= :top"
)


def sweep_idle(stack: Stack) -> float:
    """One pass of every part of the sweep (``services.sweeps``; the mail, push and channel parts, which the worker
    sends, by their senders) with nothing due, run here in one process, part after part: the seconds the pass
    costs, whatever the number of workers."""
    from server.db import Database
    from server.mail.channel import send_posts
    from server.mail.push import send_nudges
    from server.mail.send import send_batch
    from server.mail.transports import transport_for
    from server.services import sweeps

    db = Database(stack.settings.database_url)
    keep = timedelta(days=stack.settings.outbox_keep_days)
    now = datetime.now(UTC)
    t0 = time.perf_counter()
    try:
        for part in sweeps.PARTS:
            if part == "mail":
                send_batch(db, transport_for(stack.settings), stack.settings, now, stack.settings.sweep_batch)
            elif part == "push":
                send_nudges(db, stack.settings, now, limit=stack.settings.sweep_batch)
            elif part == "channel":
                send_posts(db, stack.settings, now, limit=stack.settings.sweep_batch)
            else:
                sweeps.run(part, db, now, stack.settings.sweep_batch, lambda: None, keep)
        return time.perf_counter() - t0
    finally:
        db.dispose()


def sweep_due(stack: Stack, share: float, seed: int) -> dict[str, Any]:
    """``share`` of the open windows made due; seconds until all are closed and no due mail is pending."""
    with stack.engine.begin() as conn:
        ids = conn.execute(sa.text("SELECT id FROM windows WHERE status = 'open' ORDER BY id")).scalars().all()
        due = sorted(random.Random(seed).sample(list(ids), max(1, round(len(ids) * share))))
        conn.execute(
            sa.text("UPDATE windows SET deadline = now() - interval '1 minute' WHERE id = ANY(:ids)"), {"ids": due}
        )
        top = conn.execute(sa.text("SELECT max(id) FROM outbox")).scalar_one()
    stack.sweep()
    t0 = time.monotonic()
    seconds = stack.wait(OPEN_DUE, "due windows", resweep=True, ids=due)
    # the mail they wrote: every row above ``top`` that is due now
    mail_top = stack.scalar("SELECT max(id) FROM outbox")
    seconds = max(
        seconds,
        stack.wait(MAIL_DUE.replace("id <=", "id > :low AND id <="), "their mail", resweep=True, low=top, top=mail_top)
        + seconds,
    )
    return {"windows": len(due), "seconds": round(time.monotonic() - t0 if seconds is None else seconds, 2)}


def complete_backlog(stack: Stack, cloner: Cloner, templates: dict[str, Any], count: int, shift: str) -> list[int]:
    """``count`` games copied from the live templates whose open window is complete: every request answered (the
    bots' first legal answer), ``completed_at`` set. Returns the windows."""
    live = templates["live"]
    answers = templates["answers"]
    with stack.engine.begin() as conn:
        copies = cloner.clone(conn, live, max(1, -(-count // len(live))), shift)
        rows = [{"id": rid, "answer": json.dumps(a[0])} for rid, a in answers.items()]
        conn.execute(sa.text("CREATE TEMP TABLE IF NOT EXISTS bench_answers (id int, answer jsonb)"))
        conn.execute(sa.text("TRUNCATE bench_answers"))
        conn.execute(sa.text("INSERT INTO bench_answers VALUES (:id, CAST(:answer AS jsonb))"), rows)
        span = cloner.span["requests"]
        conn.execute(
            sa.text(
                "UPDATE requests r SET answer = a.answer, answered_at = now() FROM bench_answers a, "
                f"generate_series({copies.start}, {copies.stop - 1}) s WHERE r.id = a.id + s * {span}"
            )
        )
        return list(
            conn.execute(
                sa.text(
                    "UPDATE windows w SET completed_at = now() WHERE w.status = 'open' AND w.id > :low AND "
                    "NOT EXISTS (SELECT 1 FROM requests r WHERE r.window_id = w.id AND r.answered_at IS NULL) "
                    "RETURNING w.id"
                ),
                {"low": copies.start * cloner.span["windows"]},
            ).scalars()
        )


def advance_rate(stack: Stack, windows: list[int], workers: int) -> dict[str, Any]:
    stack.start(workers)
    t0 = time.monotonic()
    for window_id in windows:
        stack.queue.advance(window_id)
    stack.wait(OPEN_DUE, "advances", ids=windows)
    seconds = time.monotonic() - t0
    return {"workers": workers, "windows": len(windows), "per_s": round(len(windows) / seconds, 1)}


def mail_rate(stack: Stack, cloner: Cloner, templates: dict[str, Any], count: int) -> dict[str, Any]:
    """One worker sending ``count`` pending mails (copies of the templates' turn mails, to copied games), once the
    work left by the advances (their mail) is done."""
    while stack.backlog():
        time.sleep(0.5)
    with stack.engine.begin() as conn:
        low = conn.execute(sa.text("SELECT max(id) FROM outbox")).scalar_one()
        current = (
            "o.kind = 'turn' AND o.game_id = ANY(:g) AND (o.payload ->> 'window')::int = "
            "(SELECT number FROM windows w WHERE w.game_id = o.game_id AND w.status = 'open')"
        )
        per = conn.execute(
            sa.text(f"SELECT count(*) FROM outbox o WHERE {current}"), {"g": templates["live"]}
        ).scalar_one()
        # only the outbox table: the turn mails of the open windows, to the games, seats and players of copies 1..k
        k = max(1, -(-count // max(1, per)))
        span = {t: cloner.span[t] for t in ("outbox", "games", "seats", "players")}
        top = (cloner.next + 10) * span["outbox"]
        conn.execute(
            sa.text(
                "INSERT INTO outbox (id, key, game_id, player_id, seat_id, kind, payload, status, attempts, "
                "next_attempt_at, created_at) "
                f"SELECT o.id + {top} + s * {span['outbox']}, o.key || '.m' || s, o.game_id + s * {span['games']}, "
                f"o.player_id + s * {span['players']}, o.seat_id + s * {span['seats']}, o.kind, "
                "o.payload - 'unless_answered', 'pending', 0, now(), now() "
                f"FROM outbox o, generate_series(1, {k}) s WHERE {current} ORDER BY s, o.id LIMIT {count}"
            ),
            {"g": templates["live"]},
        )
        ids = conn.execute(sa.text("SELECT id FROM outbox WHERE id > :top"), {"top": top}).scalars().all()
        conn.execute(sa.text("SELECT setval(pg_get_serial_sequence('outbox', 'id'), (SELECT max(id) FROM outbox))"))
    stack.start(1)
    t0 = time.monotonic()
    for i in range(0, len(ids), 100):  # as a transaction's rows go: one task, one SMTP connection per list
        stack.queue.send_mail(ids[i : i + 100])
    stack.wait("SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending') AND id > :low", "mail", low=low)
    with stack.engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT status, count(*) FROM outbox WHERE id > :top GROUP BY status"), {"top": top}
        )
        statuses = {status: count for status, count in rows}
    return {"mails": len(ids), "statuses": statuses, "per_s": round(len(ids) / (time.monotonic() - t0), 1)}


Plan = list[tuple[int, str, int, Any]]


def _answer_client(url: str, plan: Plan, warm: Plan, start: Any, done: Any, out: Any) -> None:
    """One client process: ``warm`` answered first, untimed (a web process that has seen these games); then
    ``turns.submit_answer`` for every item of its plan; reports answers, errors, CPU."""
    from server.db import Database
    from server.services.play import turns

    db = Database(url)
    errors = 0
    for seat_id, kind, number, answer in warm:
        with contextlib.suppress(Exception):
            turns.submit_answer(db, seat_id, kind, answer, window_number=number)
    out.put(None)  # imported, warmed and ready
    start.wait()
    cpu = time.process_time()
    for seat_id, kind, number, answer in plan:
        try:
            turns.submit_answer(db, seat_id, kind, answer, window_number=number)
        except Exception:  # counted: a benchmark reports, the tests check
            errors += 1
    out.put((len(plan), errors, time.process_time() - cpu))
    done.wait()  # its PostgreSQL connections stay until the CPU is counted
    db.dispose()


def answer_plan(
    stack: Stack, cloner: Cloner, templates: dict[str, Any], games: int | None, total: int, seed: int
) -> tuple[Plan, Plan]:
    """``total`` answers and what to answer before them, untimed: over all untouched games, one per request (all but
    each window's last), round-robin over the games, and nothing before; or over ``games`` games (requests with two
    legal answers or more, round-robin over the games so that every one of them is answered), changing answers among
    the legal ones, each time (``legal[p % n]`` the ``p``-th time), and before them the plan itself then ``legal[1]``
    for each (every timed answer changes the stored one, as in the steady state of players changing their minds)."""
    answers = templates["answers"]
    span = cloner.span["requests"]
    with stack.engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT r.id, r.seat_id, r.kind, w.number, w.game_id, r.position, "
                "max(r.position) OVER (PARTITION BY r.window_id) FROM requests r JOIN windows w ON w.id = r.window_id "
                "JOIN requests t ON t.id = (r.id - 1) % :span + 1 "  # the template's request, as copied
                "AND t.payload::text = r.payload::text "
                "WHERE w.status = 'open' AND w.completed_at IS NULL AND r.answered_at IS NULL AND w.deadline > now() "
                "AND r.kind <> 'vote' "  # a vote the answers so far decide completes early (then takes no more)
                "ORDER BY w.game_id"
            ),
            {"span": span},
        ).all()
    rng = random.Random(seed)
    items: dict[int, list[tuple[int, str, int, list[Any]]]] = {}
    for rid, seat_id, kind, number, game_id, position, last in rows:
        legal = answers.get((rid - 1) % span + 1)
        if legal and position < last and (games is None or len(legal) > 1):
            items.setdefault(game_id, []).append((seat_id, kind, number, legal))
    chosen = list(items)
    rng.shuffle(chosen)
    if games is not None:
        chosen = chosen[:games]
    pool = [items[g][depth] for depth in range(SEATS) for g in chosen if depth < len(items[g])]
    if games is None:
        return [(s, k, n, legal[0]) for s, k, n, legal in pool[:total]], []
    plan = [
        (s, k, n, legal[(i // len(pool)) % len(legal)])
        for i, (s, k, n, legal) in ((i, pool[i % len(pool)]) for i in range(total))
    ]
    return plan, plan + [(s, k, n, legal[1]) for s, k, n, legal in pool]


def answer_rate(stack: Stack, url: str, plan: Plan, before: Plan | None, *, clients: int = 2) -> dict[str, Any]:
    """Answers/s and CPU per answer of ``clients`` processes sharing ``plan``; ``before``: what each answers first,
    untimed (the steady state of web processes that have seen these games), or None: every answer is timed from a
    cold start."""
    ctx = multiprocessing.get_context("spawn")
    start, done, out = ctx.Event(), ctx.Event(), ctx.Queue()
    procs = [
        ctx.Process(target=_answer_client, args=(url, plan[i::clients], before or [], start, done, out))
        for i in range(clients)
    ]
    for proc in procs:
        proc.start()
    for _ in procs:
        out.get(timeout=LIMIT)
    pg = {"postgres": lambda _pid, cmd: "postgres" in cmd.split(" ", 1)[0]}
    before = _stack.measure_cpu()
    t0 = time.monotonic()
    start.set()
    results = [out.get(timeout=LIMIT) for _ in procs]
    seconds = time.monotonic() - t0
    after = _stack.measure_cpu()
    done.set()
    for proc in procs:
        proc.join()
    answers = sum(r[0] for r in results)
    errors = sum(r[1] for r in results)
    cores = _stack.cpu_by_group(before, after, seconds, pg)
    return {
        "answers": answers,
        "errors": errors,
        "answers_per_s": round(answers / seconds, 1),
        "cpu_ms_per_answer": round(sum(r[2] for r in results) * 1000 / max(1, answers), 2),
        "db_cpu_ms_per_answer": round(cores["postgres"] * seconds * 1000 / max(1, answers), 2),
    }


def worker_phases(
    stack: Stack, cloner: Cloner, templates: dict[str, Any], games: int, shift: str, seed: int
) -> dict[str, Any]:
    """The sweep with nothing and with 1 % due (2 workers), then advances from a backlog with 1 and 2 workers."""
    out: dict[str, Any] = {}
    stack.start(2)
    stack.sweep()  # the first pass of each worker warms it up
    stack.wait("SELECT CASE WHEN count(*) > 0 THEN 0 ELSE 1 END FROM heartbeats", "first sweep")
    time.sleep(2)
    idle = [sweep_idle(stack) for _ in range(3)]
    out["sweep_idle_s"] = round(statistics.median(idle), 3)
    say(f"  sweep with nothing due: {idle}")
    due = sweep_due(stack, 0.01, seed)
    out["sweep_due_s"] = due["seconds"]
    out["sweep_due_windows"] = due["windows"]
    say(f"  sweep with 1 % due: {due}")

    out["advance"] = []
    backlog = max(20, min(2000, games // 5))
    for workers in (1, 2):
        windows = complete_backlog(stack, cloner, templates, backlog, shift)
        result = advance_rate(stack, windows, workers)
        out["advance"].append(result)
        say(f"  advances: {result}")
    out["advance_per_s"] = {str(r["workers"]): r["per_s"] for r in out["advance"]}

    return out


# --- one N ----------------------------------------------------------------------------------------------------------


def answer_phases(
    stack: Stack, url: str, cloner: Cloner, templates: dict[str, Any], games: int, args: argparse.Namespace
) -> dict[str, Any]:
    """Answers over ``--spread`` games and over ``--focus`` games in the steady state, and from a cold start; the
    plans drawn before any answer (each takes requests still unanswered)."""
    total = max(100, min(3000, games))
    focus, wide = args.focus, min(args.spread, games)
    sizes = [(None, total), (wide, 2 * total), (focus, 2 * total)]  # cold, over many games, over few
    plans = [answer_plan(stack, cloner, templates, k, n, args.seed) for k, n in sizes]
    cold, spread, concentrated = (
        answer_rate(stack, url, plan, before if i else None) for i, (plan, before) in enumerate(plans)
    )
    say(f"  answers: over {wide} games {spread}, over {focus} games {concentrated}, cold {cold}")
    return {
        "answers": {
            "path": "turns.submit_answer in 2 client processes",
            f"{wide}_games": spread,
            f"{focus}_games": concentrated,
            "cold": cold,
        },
        "answers_spread_ratio": round(spread["answers_per_s"] / concentrated["answers_per_s"], 2),
    }


def run(games: int, args: argparse.Namespace, pg: str, broker: str) -> dict[str, Any]:
    from server.run.migrate import upgrade

    out: dict[str, Any] = {"games": games}
    with (
        _stack.postgres_database(pg) as url,
        _stack.redis_db(broker) as broker_url,
        smtp_sink() as smtp_url,
        tempfile.TemporaryDirectory(prefix="dm-bench-") as tmp,
    ):
        (Path(tmp) / "data").mkdir()
        upgrade(url)
        stack = Stack(url, broker_url, smtp_url, Path(tmp) / "data")
        try:
            db = _stack.migrated(url)
            templates = build_templates(db, args.templates, args.seed)
            db.dispose()
            live = templates["live"]
            copies = max(0, -(-games // len(live)) - 1)
            t0 = time.monotonic()
            shift = (
                f"(now() - timestamptz '{templates['end'].isoformat()}') "
                f"- ((s * 7919) % {int(SPREAD.total_seconds())}) * interval '1 second'"
            )
            with stack.engine.begin() as conn:
                cloner = Cloner(conn)
                for first in range(0, copies, 50):  # in statements of 50 copies: progress, bounded memory
                    cloner.clone(conn, live, min(50, copies - first), shift)
                    say(f"  {len(live) * (cloner.next)} live games after {time.monotonic() - t0:.0f} s")
            with stack.engine.connect() as conn:
                conn.execute(sa.text("VACUUM ANALYZE"))
                built = time.monotonic() - t0
                live_games = conn.execute(sa.text("SELECT count(*) FROM games WHERE status = 'running'")).scalar_one()
                size = game_bytes(conn)
                database = conn.execute(sa.text("SELECT pg_database_size(current_database())")).scalar_one()
            out.update(
                games=live_games,
                templates_s=templates["seconds"],
                build_s=round(built, 1),
                build_s_per_1000=round(built * 1000 / live_games, 2),
                database_bytes=database,
                bytes_per_live_game=round(size / live_games),
            )
            say(f"  built {live_games} live games in {built:.1f} s; {database / 1e6:.0f} MB")

            if args.only != "answers":
                out.update(worker_phases(stack, cloner, templates, games, shift, args.seed))
                out["mail"] = mail_rate(stack, cloner, templates, max(50, min(2000, games)))
                out["mails_per_s"] = out["mail"]["per_s"]
                say(f"  mail: {out['mail']}")

            out.update(answer_phases(stack, url, cloner, templates, games, args))
            if args.only == "answers":
                return out

            finished = max(5, min(500, games // 20))
            with stack.engine.begin() as conn:
                before = game_bytes(conn)
                cloner.clone(conn, templates["over"], finished, "interval '0'")
            with stack.engine.connect() as conn:
                conn.execute(sa.text("VACUUM ANALYZE"))
                out["bytes_per_finished_game"] = round((game_bytes(conn) - before) / finished / len(templates["over"]))
        finally:
            stack.stop()
            stack.engine.dispose()
            stack.redis.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="1000,10000", help="live games, comma separated (1000,10000,100000)")
    ap.add_argument("--templates", type=int, default=20, help="games played by the bots, then copied")
    ap.add_argument("--focus", type=int, default=60, help="games the concentrated answers go to")
    ap.add_argument("--spread", type=int, default=3000, help="games the spread answers go to")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tiny", action="store_true", help="seconds, for CI: 50 games from 4 templates")
    ap.add_argument("--only", choices=["answers"], help="measure only this (after the build), nothing else")
    args = ap.parse_args()
    if args.tiny:
        args.games, args.templates, args.focus, args.spread = "50", 4, 10, 40
    pg = os.environ.get("DEADMAIL_TEST_PG")
    redis_url = os.environ.get("DEADMAIL_TEST_REDIS")
    if not pg or not redis_url:
        raise SystemExit("set DEADMAIL_TEST_PG and DEADMAIL_TEST_REDIS (see .ci/run)")
    broker = f"{redis_url.rsplit('/', 1)[0]}/{REDIS_DB}"  # its own database: the tests' may be in use
    counts = [int(x) for x in args.games.split(",")]
    runs = []
    for games in counts:
        say(f"{games} games")
        runs.append(run(games, args, pg.rsplit("/", 1)[0], broker))
    print(json.dumps({"benchmark": "scale", "players": SEATS, "templates": args.templates, "runs": runs}))


if __name__ == "__main__":
    main()
