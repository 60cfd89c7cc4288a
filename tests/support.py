"""Shared steps of the server, worker and browser tests: creating games, answering, recording the tasks a
transaction asks for, and checking a game's rows against its engine."""

from __future__ import annotations

import contextlib
import html as html_lib
import json
import os
import re
import socket
import subprocess
import sys
import threading
import unicodedata
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import flask
import pytest
import sqlalchemy as sa
from celery import Celery
from flask import Flask
from flask.testing import FlaskClient
from flask_wtf.csrf import generate_csrf
from itsdangerous import TimestampSigner
from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

import engine
import engine.bots
from server.config import Settings
from server.db import Database
from server.mail.compose import compose as compose_mail
from server.models import Base, EventBatch, Game, MailKind, Outbox, Player, RequestRow, Seat, Window
from server.packing import unpack_events
from server.run.queue import Queue
from server.services import organisers
from server.services.play import archive, games, turns
from server.services.play.engines import CACHE
from tests.waiting import wait_for

if TYPE_CHECKING:
    from tests.worker.conftest import TaskLog

AUTH = {"Authorization": "Bearer test-api-token"}
#: a fixed instant for tests with an injected clock (well away from the wall clock, so only the injected one counts).
T0 = datetime(2031, 3, 4, 12, 0, tzinfo=UTC)


class Recorder:
    """``Tasks`` that only record what committed transactions asked for: ``advanced`` windows, ``mails`` to send
    (``mail_tasks``: as the tasks carry them).
    Given ``settings``, it also passes them on to the real queue (tasks go through the broker)."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.inner = None if settings is None else Queue(settings)
        self.advanced: list[int] = []
        #: every row to send, and the rows of each task (one per transaction).
        self.mails: list[int] = []
        self.mail_tasks: list[list[int]] = []
        #: notifications to devices to send.
        self.pushes: list[int] = []
        self.lock = threading.Lock()

    def advance(self, window_id: int) -> None:
        with self.lock:
            self.advanced.append(window_id)
        if self.inner is not None:
            self.inner.advance(window_id)

    def send_mail(self, outbox_ids: list[int]) -> None:
        with self.lock:
            self.mails.extend(outbox_ids)
            self.mail_tasks.append(list(outbox_ids))
        if self.inner is not None:
            self.inner.send_mail(outbox_ids)

    def send_push(self, nudge_ids: list[int]) -> None:
        with self.lock:
            self.pushes.extend(nudge_ids)
        if self.inner is not None:
            self.inner.send_push(nudge_ids)


def recording(db: Database) -> tuple[Database, Recorder]:
    """The same database, its after-commit work recorded (and not sent)."""
    recorder = Recorder()
    return db.with_tasks(recorder), recorder


def engine_of(db: Database, game_id: int) -> engine.Game:
    """The game's engine at its stored state (shared with the server's cache: read it, never change it)."""
    with db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        return CACHE.get(game)


def table_names(db: Database, game_id: int) -> dict[str, str | None]:
    """The game's public names by colour (``seats.seat_state``'s "names": None for a bot), as sentences use them."""
    with db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        return {s.colour: s.player.display_name if s.player is not None else None for s in game.seats}


def all_rows(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in primary-key order (nothing changed: the same before and after)."""
    with db.session() as session:
        return {
            table.name: [
                tuple(row) for row in session.execute(sa.select(table).order_by(*table.primary_key.columns)).all()
            ]
            for table in Base.metadata.sorted_tables
        }


def outbox_ids(db: Database, game_id: int | None = None) -> list[int]:
    """The outbox rows written so far (of one game), in order."""
    with db.session() as session:
        query = sa.select(Outbox.id).order_by(Outbox.id)
        if game_id is not None:
            query = query.where(Outbox.game_id == game_id)
        return list(session.execute(query).scalars())


def people(count: int) -> list[str]:
    return [f"P{i} <p{i}@example.org>" for i in range(count)]


def create(db: Database, count: int, seed: int, now: datetime = T0, **spec: Any) -> games.Created:
    """A game of ``count`` people (P0 <p0@example.org> …) created directly through the service, at ``now``."""
    players = [games.parse_player(p) for p in people(count)]
    return games.create_game(db, games.GameSpec(players=players, seed=seed, **spec), now=now)


def create_tagged(
    db: Database,
    people: int,
    seed: int,
    *,
    bots: int = 0,
    options: dict[str, Any] | None = None,
    prefs: dict[int, dict[str, Any]] | None = None,
    now: datetime = T0,
    tag: int | None = None,
    **spec: Any,
) -> games.Created:
    """A game of ``people`` people (p0.<tag>@…, the tag is the seed unless given: each game its own players) and
    ``bots`` random bots; ``prefs`` sets players' language, zone, mail mode (by index) before the game starts;
    ``spec``: other fields of the GameSpec (``close_decided_votes``)."""
    tag = seed if tag is None else tag
    players = [games.PlayerSpec(name=f"P{i}", email=f"p{i}.{tag}@example.org") for i in range(people)]
    players += [games.PlayerSpec(bot="random") for _ in range(bots)]
    game = games.GameSpec(players=players, seed=seed, options=options or {}, **spec)
    if prefs:  # the players exist before the game when prefs matter for the first window's rows
        with db.session() as session:
            for i, values in prefs.items():
                player = games.find_or_create_player(session, players[i])
                for key, value in values.items():
                    setattr(player, key, value)
    return games.create_game(db, game, now=now)


def play_window(db: Database, game_id: int, seed: int, now: datetime) -> list[int]:
    """Every person still owing answers like a random bot (through submit_answer) until the window is complete (a
    vote closes once decided); then the window advances.
    Returns the outbox rows the advance wrote."""
    window = open_window(db, game_id)
    assert window is not None
    eng = engine_of(db, game_id)
    owed = [(row.seat_id, row.seat.colour, row.kind) for row in window.requests if row.answered_at is None]
    if window.completed_at is not None:  # a vote its automatic answers decided when it opened
        owed = []
    for seat_id, colour, kind in owed:
        req = next(r for r in eng.pending() if r.player == colour)
        value = engine.bots.RandomBot(seed * 31 + window.number).decide(eng, req)
        if turns.submit_answer(db, seat_id, kind, value, window_number=window.number, now=now).complete:
            break  # a vote closed once decided takes no more votes
    before = set(outbox_ids(db, game_id))
    assert turns.advance_window(db, window.id, now=now)
    return [i for i in outbox_ids(db, game_id) if i not in before]


def rows_of(db: Database, ids: list[int]) -> list[Outbox]:
    with db.session() as session:
        rows = list(session.execute(sa.select(Outbox).where(Outbox.id.in_(ids)).order_by(Outbox.id)).scalars())
        for row in rows:
            session.expunge(row)
        return rows


def rows_of_kind(db: Database, kind: MailKind) -> list[Outbox]:
    """Every outbox row of ``kind``, in order."""
    with db.session() as session:
        rows = list(session.execute(sa.select(Outbox).where(Outbox.kind == kind).order_by(Outbox.id)).scalars())
        for row in rows:
            session.expunge(row)
        return rows


def turn_rows(db: Database, ids: list[int]) -> list[Outbox]:
    return [r for r in rows_of(db, ids) if r.kind == "turn"]


def seat_of(db: Database, seat_id: int) -> Seat:
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None
        session.expunge(seat)
        return seat


def request_of(db: Database, seat_id: int) -> tuple[Window, RequestRow] | None:
    """The seat's request row in its game's open window."""
    with db.session() as session:
        found = session.execute(
            sa.select(Window, RequestRow)
            .join(RequestRow, RequestRow.window_id == Window.id)
            .where(RequestRow.seat_id == seat_id, Window.status == "open")
        ).first()
        if found is None:
            return None
        window, row = found
        session.expunge(window)
        session.expunge(row)
        return window, row


def player_of(db: Database, seat_id: int) -> Player:
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None and seat.player is not None
        player = seat.player
        session.expunge(player)
        return player


# --- mail ------------------------------------------------------------------------------------------------------------

FROM = "Dead Mail <games@deadmail.example>"
REPLY_DOMAIN = "reply.deadmail.example"


def mail_settings(settings: Settings, reply_domain: str = REPLY_DOMAIN) -> Settings:
    """The stack's settings with a From address and a reply domain, as a production installation has them."""
    return replace(settings, mail_from=FROM, reply_domain=reply_domain)


def compose(db: Database, row_id: int, settings: Settings, now: datetime | None = None) -> EmailMessage | None:
    """The message of one outbox row (``mail.compose``), or None when nothing is left to tell."""
    mail = compose_mail(db, row_id, settings, now=now)
    return None if mail is None else mail.message


def text_of(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def html_of(message: EmailMessage) -> str:
    part = message.get_body(("html",))
    assert part is not None
    return str(part.get_content())


def one_tap_links(html: str) -> dict[str, str]:
    """command -> one-tap URL, from the HTML part's buttons (each says its answer in words; the link carries the
    command)."""
    found = re.findall(r'<a [^>]*href="([^"]+/do\?[^"]+)"[^>]*>[^<]+</a>', html)
    urls = [html_lib.unescape(href) for href in found]
    return {parse_qs(urlsplit(url).query)["c"][0]: url for url in urls}


class Sink:
    """A transport that keeps what it was given (or refuses, to test that a failed send tells nothing)."""

    def __init__(self, refuse: bool = False) -> None:
        self.sent: list[EmailMessage] = []
        self.refuse = refuse

    def send(self, message: EmailMessage, accepted: Callable[[], None]) -> None:
        if self.refuse:
            raise OSError("refused")
        self.sent.append(message)
        accepted()


def seat_ids(db: Database, game_id: int) -> dict[str, int]:
    with db.session() as session:
        rows = session.execute(select(Seat).where(Seat.game_id == game_id).order_by(Seat.position)).scalars()
        return {seat.colour: seat.id for seat in rows}


def open_window(db: Database, game_id: int) -> Window | None:
    """The open window with its request rows loaded, or None."""
    with db.session() as session:
        window = session.execute(
            select(Window).where(Window.game_id == game_id, Window.status == "open")
        ).scalar_one_or_none()
        if window is not None:
            for row in window.requests:
                _ = row.seat.colour
        return window


def snapshot(db: Database, game_id: int) -> dict[str, Any]:
    """Everything an advance may change, to compare before and after."""

    with db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        windows, requests = every_window(session, game)
        return {
            "version": game.version,
            "state": game.state,
            "status": game.status,
            "windows": [(w.number, w.status, w.closed_at) for w in windows],
            "requests": [(n, r.seat_id, r.answer, r.answered_at, r.defaulted) for n, r in requests],
            "events": [(seq, e["type"]) for seq, e in enumerate(stored_events(session, game_id))],
            "outbox": session.execute(select(Outbox.key).where(Outbox.game_id == game_id).order_by(Outbox.id)).all(),
        }


def requests_in(db: Database, window_id: int) -> list[Any]:
    """A window's requests in seating order: its rows (detached) while it is open, else the ones its game's archive
    keeps (``services.play.archive``: the same fields but the payload)."""
    with db.session() as session:
        rows = list(
            session.execute(
                select(RequestRow).where(RequestRow.window_id == window_id).order_by(RequestRow.position)
            ).scalars()
        )
        for row in rows:
            session.expunge(row)
        if rows:
            return rows
        for game_id, packed in session.execute(select(Game.id, Game.archive).where(Game.archive.is_not(None))):
            closed = [r for r in archive.requests_of(game_id, packed) if r.window.id == window_id]
            if closed:
                return closed
        return []


def request_in(db: Database, window_id: int, seat_id: int) -> Any:
    """A seat's request in a window, open or closed (``requests_in``)."""
    return next(r for r in requests_in(db, window_id) if r.seat_id == seat_id)


def closed_window(db: Database, game_id: int, window_id: int) -> archive.ClosedWindow | None:
    """A window of the game's archive, by its id (None: not closed)."""
    with db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        return next((w for w in archive.windows_of(game.archive).values() if w.id == window_id), None)


@dataclass(frozen=True)
class AnyWindow:
    """A window closed (from the game's archive) or not (its row), as the checks compare them."""

    id: int
    number: int
    status: str
    opened_at: datetime
    completed_at: datetime | None
    closed_at: datetime | None


def every_window(session: Session, game: Game) -> tuple[list[AnyWindow], list[tuple[int, Any]]]:
    """Every window of the game in order, closed (``services.play.archive``) then open, and every request with its
    window's number (an archived request or a ``RequestRow``), in order.

    A worker may archive windows while this reads: the rows (with their requests) are read first and the archive
    after them, so a window archived in between is found in the archive (and its rows, read before, are dropped)."""
    rows = (
        session.execute(
            select(Window)
            .where(Window.game_id == game.id)
            .order_by(Window.number)
            .options(selectinload(Window.requests))
        )
        .scalars()
        .all()
    )
    session.refresh(game, ["archive"])
    closed = archive.windows_of(game.archive).values()
    archived = {w.number for w in closed}
    rows = [w for w in rows if w.number not in archived]
    windows = [AnyWindow(w.id, w.number, "closed", w.opened_at, w.completed_at, w.closed_at) for w in closed]
    windows += [AnyWindow(w.id, w.number, w.status, w.opened_at, w.completed_at, w.closed_at) for w in rows]
    requests: list[tuple[int, Any]] = [(r.window.number, r) for r in archive.requests_of(game.id, game.archive)]
    requests += [(w.number, r) for w in rows for r in w.requests]
    return windows, requests


def check_game(db: Database, game_id: int) -> engine.Game:
    """The stored game is exactly what its request rows say: each window closed once, in order, every stored
    answer (or default, or vote not cast in a vote closed once decided) applied once and in the engine's log,
    events stored once each with contiguous numbers. Returns the engine restored from the stored state (which
    replays its log and checks the snapshot)."""

    with db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        eng = engine.Game.from_json(game.state)
        windows, requests = every_window(session, game)
        numbers = [w.number for w in windows]
        assert numbers == list(range(1, len(windows) + 1)), numbers
        assert eng.window_no == len(windows)
        closed = windows if eng.over else windows[:-1]
        assert all(w.status == "closed" and w.closed_at is not None for w in closed)
        if not eng.over:
            assert windows[-1].status == "open" and windows[-1].closed_at is None
            assert windows[-1].number == eng.window_no
        assert game.version == len(closed) + 1
        assert game.status == ("over" if eng.over else "running")
        assert game.outcome == eng.outcome
        colours = {seat.id: seat.colour for seat in game.seats}
        log: list[dict[str, Any]] = []
        for window in closed:
            rows = [r for n, r in requests if n == window.number]
            # a vote closed once decided: its votes first, then the voters who did not vote
            decided = window.completed_at is not None and any(r.answered_at is None for r in rows)
            for row in sorted(rows, key=lambda r: r.answered_at is None) if decided else rows:
                entry: dict[str, Any] = {"player": colours[row.seat_id], "kind": row.kind}
                if row.defaulted:
                    entry["timeout"] = True
                elif row.answered_at is None:
                    assert decided and row.kind == "vote"
                    entry.update(timeout=True, decided=True)
                else:
                    entry["answer"] = row.answer
                log.append(entry)
        assert game.state["log"] == log
        assert stored_events(session, game_id) == json.loads(json.dumps(eng.events))
    return eng


def stored_events(session: Session, game_id: int) -> list[dict[str, Any]]:
    """The game's stored events in the engine's form, in order (the index is the seq), from its ``EventBatch``
    rows, checked to follow each other without gap or overlap."""
    events: list[dict[str, Any]] = []
    for batch in session.execute(
        select(EventBatch).where(EventBatch.game_id == game_id).order_by(EventBatch.first_seq)
    ).scalars():
        assert batch.first_seq == len(events)
        listed = unpack_events(batch.events)
        assert len(listed) == batch.count > 0
        events.extend(listed)
    return events


# --- the web ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ApiGame:
    """A game created through the JSON API: its id, the seats as the API listed them, each person's token."""

    id: int
    seats: list[dict[str, Any]]

    @property
    def tokens(self) -> dict[str, str]:
        """colour -> the token of the seat's link (people only)."""
        return {s["colour"]: s["link"].rsplit("/", 1)[1] for s in self.seats if s["link"]}


def api_game(client: FlaskClient, players: list[str], seed: int = 7, **body: Any) -> ApiGame:
    """A game created by ``POST /api/games`` with the organiser's token. Without autopilot (``autopilot_after``
    0) unless asked: tests let deadlines pass on purpose to reach a position."""
    body.setdefault("autopilot_after", 0)
    reply = client.post("/api/games", json={"players": players, "seed": seed, **body}, headers=AUTH)
    assert reply.status_code == 201, reply.json
    assert reply.json is not None
    return ApiGame(reply.json["id"], reply.json["seats"])


def csrf_token(client: FlaskClient, app: Flask) -> str:
    """A CSRF token valid for ``client``'s session, as a page the client opened would have given it."""
    with client.session_transaction() as session, app.test_request_context():
        token = generate_csrf()
        session["csrf_token"] = flask.session["csrf_token"]
    return str(token)


def post_form(client: FlaskClient, app: Flask, path: str, data: dict[str, Any] | None = None, csrf: bool = True) -> Any:
    """A form POSTed as a browser does (with the CSRF token of the client's session, unless ``csrf`` is False)."""
    form = dict(data or {})
    if csrf:
        form["csrf_token"] = csrf_token(client, app)
    return client.post(path, data=form)


def log_in_as_organiser(client: FlaskClient) -> None:
    """The client's session is an organiser's, as after logging in with the API token (a server-side session)."""
    state = client.application.extensions["deadmail"]
    token = organisers.fingerprint(state.settings.secret_key, state.settings.api_token)
    with client.session_transaction() as session:
        session["organiser_session"] = organisers.start(state.db, token)


# --- moved from the test files that shared them --------------------------------------------------


SWEEP = "deadmail.sweep"  # its parts: "deadmail.sweep.<part>", each returning {"counts", "claimed", "then"}


IDLE = {"absences": 0, "rounds": 0, "advanced": 0, "reminded": 0, "digests": 0, "sessions": 0, "sent": 0}


def mail_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.eml")) if folder.is_dir() else []


def sweep(worker: Celery, task_log: TaskLog, at: datetime, beats: int = 1, timeout: float = 60.0) -> dict[str, int]:
    """One sweep (or ``beats`` sent at once) through the broker and the real worker, at the injected instant ``at``:
    waits until every part task of the pass has finished (those the beat task enqueued and those they enqueued) and
    returns their counts summed under ``IDLE``'s keys."""
    return summed(sweep_parts(worker, task_log, at, beats, timeout))


def sweep_parts(worker: Celery, task_log: TaskLog, at: datetime, beats: int = 1, timeout: float = 60.0) -> list[Any]:
    """``sweep``'s part tasks as they ran (``Ran``: each one's ``retval`` has ``part``, ``counts``, ``claimed``,
    ``then``)."""
    with task_log.lock:
        start = len(task_log.ran)
    for _ in range(beats):
        worker.send_task(SWEEP, kwargs={"now": at.isoformat()})
    parts: list[Any] = []

    def finished() -> bool:
        with task_log.lock:
            ran = task_log.ran[start:]
        plans = [r for r in ran if r.name == SWEEP]
        parts[:] = [r for r in ran if r.name.startswith(f"{SWEEP}.")]
        queued = sum(len(r.retval["then"]) for r in parts) + sum(len(r.retval["parts"]) for r in plans)
        return len(plans) == beats and len(parts) >= queued

    wait_for(lambda: bool(task_log.failures) or finished(), timeout, f"the sweep at {at}")
    assert task_log.failures == [], task_log.failures
    return parts


def summed(parts: list[Any]) -> dict[str, int]:
    return {key: sum(r.retval["counts"].get(key, 0) for r in parts) for key in IDLE}


def without_who_decides(page: str) -> str:
    """A seat page without who is still deciding (public, H-1): the list, and the marks on the players' panels
    (still deciding, answered)."""
    page = re.sub(r'<p class="waiting">.*?</p>', "", page, flags=re.S)
    return re.sub(r' <span class="panel-status (?:deciding|answered)">[^<]*</span>', "", page)


def forged(token: str) -> str:
    """``token`` (or a link ending in one) with one character of its signature changed: always refused.
    (Changing the last characters is not: the last base64 character of a signature carries padding bits, so two
    characters can decode to the same signature.)"""
    at = len(token) - 5
    return token[:at] + ("B" if token[at] == "A" else "A") + token[at + 1 :]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def add_player(db: Database, email: str, **fields: Any) -> None:
    with db.session() as session:
        session.add(Player(email=email, display_name=email.split("@", maxsplit=1)[0], **fields))


def stop_signing_clock(monkeypatch: pytest.MonkeyPatch, at: datetime = T0) -> int:
    """itsdangerous' clock, which stamps and ages every signed token (seat, player and organiser links, CSRF tokens,
    the session cookie), stopped at ``at``: a token is the same on every rendering, and its age is exactly what the
    test makes it. Returns the stamp (seconds)."""
    stamp = int(at.timestamp())
    monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda _signer: stamp)
    return stamp


def bare(text: str) -> str:
    """Lower case without accents, as a player on a phone might type it."""
    text = text.replace("ł", "l").replace("Ł", "L")
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).lower()


def letter(
    sender: str,
    to: str,
    body: str,
    *,
    message_id: str | None = None,
    headers: dict[str, str] | None = None,
    html: str | None = None,
) -> bytes:
    """A reply as a mail program sends it: ``body`` as its text (or ``html`` as its only part)."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "Re: Mall of Horror"
    message["Message-ID"] = message_id or make_msgid(domain="mail.example.org")
    for name, value in (headers or {}).items():
        message[name] = value
    if html is None:
        message.set_content(body)
    else:
        message.set_content(html, subtype="html")
    return message.as_bytes()


DEADMAIL = [sys.executable, "-c", "from server.run.cli import main; main()"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def clean_env(tmp_path: Path) -> dict[str, str]:
    """Nothing configured: the embedded defaults (the data folder is ``deadmail-data`` in the process's working
    directory: run it in ``tmp_path``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEADMAIL_", "DATABASE_URL", "CELERY_"))}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    return env


def health(port: int) -> Any:
    """What ``/healthz`` of a ``deadmail up`` on ``port`` answers, or None while nothing listens yet."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as reply:
            return json.loads(reply.read())
    except OSError:
        return None


def demo_link(tmp_path: Path, env: dict[str, str], *prefix: str) -> str:
    """Run ``deadmail demo --email new@example.org`` in ``tmp_path`` (after ``prefix``, e.g. a shell setting a umask)
    against a running ``deadmail up``; the seat link it prints."""
    made = subprocess.run(
        [*prefix, *DEADMAIL, "demo", "--email", "new@example.org"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return next(line.strip() for line in made.stdout.splitlines() if "/s/" in line)


@dataclass
class Counted:
    """What ``counting`` saw: SQL statements sent (SQLite's ``BEGIN IMMEDIATE`` left out: PostgreSQL's driver
    begins on its own), commits, and ORM objects loaded from rows (``loaded``: the ORM's loading costs CPU)."""

    statements: int = 0
    commits: int = 0
    loaded: int = 0


@contextlib.contextmanager
def counting(db: Database) -> Iterator[Counted]:
    """Count the statements and commits ``db`` sends while the block runs (deterministic costs a test bounds)."""
    counted = Counted()

    def statement(_conn: Any, _cursor: Any, sql: str, *_: Any) -> None:
        counted.statements += not sql.startswith("BEGIN")

    def commit(*_: Any) -> None:
        counted.commits += 1

    def load(*_: Any) -> None:
        counted.loaded += 1

    sa.event.listen(db.engine, "before_cursor_execute", statement)
    sa.event.listen(db.engine, "commit", commit)
    sa.event.listen(Base, "load", load, propagate=True)
    try:
        yield counted
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", statement)
        sa.event.remove(db.engine, "commit", commit)
        sa.event.remove(Base, "load", load)
