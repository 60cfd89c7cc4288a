"""A game's transcript, to compare two checkouts mail for mail and page for page.

``play OUT --seed S --players N``: bots play one game to its end through the app's public ways only: the JSON API
and the seat pages (Flask's test client), the worker's tasks (run in this process from an in-memory broker, in the
order they were asked for), and the file mail backend's ``.eml`` files. Every mail sent and every player's seat page
after every window go to files in OUT, normalised (signed tokens, dates and times, Message-IDs, CSRF tokens), so two
runs of the same code write identical folders. The script imports whatever ``server`` the path gives first: run it
with ``PYTHONPATH=<other checkout>`` to play that checkout's code.

``diff A B``: the files of two such folders compared; prints the counts and every file that differs (with the first
differing lines).

``--tiny``: a 3-player game stopped after 3 windows, into a temporary folder (CI's smoke run).
"""

from __future__ import annotations

import argparse
import difflib
import email
import email.policy
import hashlib
import importlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # appended: a checkout given by PYTHONPATH comes first and is the one played
    sys.path.append(str(ROOT))

SECRET = "transcript-secret-key"
API_TOKEN = "transcript-api-token"
BASE_URL = "http://deadmail.test"
AUTH = {"Authorization": f"Bearer {API_TOKEN}"}
#: the headers kept of each mail (the rest are MIME plumbing); Date and Message-IDs are normalised.
HEADERS = (
    "From",
    "To",
    "Cc",
    "Reply-To",
    "Subject",
    "Message-ID",
    "In-Reply-To",
    "References",
    "Date",
    "Auto-Submitted",
    "Precedence",
    "List-Id",
    "List-Unsubscribe",
    "List-Unsubscribe-Post",
    "Content-Language",
)


# --- normalisation ---------------------------------------------------------------------------------------------------

#: itsdangerous's timed tokens (payload.timestamp.signature) and untimed ones (payload.signature): the payload is kept
#: (it names the row, the same in a fresh database), the time and the signature are not.
TIMED = re.compile(r"\b([A-Za-z0-9_-]{2,})\.([A-Za-z0-9_-]{6})\.([A-Za-z0-9_-]{27})\b")
UNTIMED = re.compile(r"\b([A-Za-z0-9_-]{2,})\.([A-Za-z0-9_-]{27})\b")
CSRF = re.compile(r'(name="csrf_token"[^>]*value=")[^"]*(")|(value=")[^"]*("[^>]*name="csrf_token")')
ISO = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?\b")
DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{8}T\d{6}Z?\b")
MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
WEEKDAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mon|Tue|Wed|Thu|Fri|Sat|Sun"
WRITTEN = re.compile(rf"\b(({WEEKDAYS}),? )?\d{{1,2}} ({MONTHS})( \d{{4}})?\b|\b({MONTHS}) \d{{1,2}}(, \d{{4}})?\b")
WEEKDAY = re.compile(rf"\b({WEEKDAYS})\b")
CLOCK = re.compile(r"\b\d{1,2}:\d{2}(:\d{2})?( ?[AaPp]\.?[Mm]\.?)?\b")
MSGID = re.compile(r"<[^<>@\s]+@[^<>\s]+>")


def normalise(text: str) -> str:
    """What differs between two runs of the same code by nature: signed tokens, instants, CSRF tokens."""
    text = CSRF.sub(lambda m: f"{m[1] or m[3]}CSRF{m[2] or m[4]}", text)
    text = TIMED.sub(r"\1.TS.SIG", text)
    text = UNTIMED.sub(r"\1.SIG", text)
    text = ISO.sub("INSTANT", text)
    text = DAY.sub("DAY", text)
    text = WRITTEN.sub("DATE", text)
    text = WEEKDAY.sub("WEEKDAY", text)
    return CLOCK.sub("HH:MM", text)


# --- playing ---------------------------------------------------------------------------------------------------------


def environment(data_dir: Path) -> dict[str, str]:
    return {
        "DATABASE_URL": f"sqlite:///{data_dir / 'deadmail.db'}",
        "CELERY_BROKER_URL": "memory://",
        "DEADMAIL_SECRET_KEY": SECRET,
        "DEADMAIL_API_TOKEN": API_TOKEN,
        "DEADMAIL_DATA_DIR": str(data_dir),
        "DEADMAIL_BASE_URL": BASE_URL,
        "DEADMAIL_SMTP_URL": "",
        "DEADMAIL_MAIL_FROM": "Dead Mail <games@deadmail.test>",
        "DEADMAIL_REPLY_DOMAIN": "reply.deadmail.test",
        "DEADMAIL_ANSWERS_PER_MINUTE": str(10**9),
        "DEADMAIL_LINKS_PER_MINUTE": str(10**9),
    }


class Worker:
    """The worker's own tasks (``worker.tasks``), run here one message at a time from the in-memory broker the web
    app and the tasks publish to: mail first, then the rest, until both queues are empty."""

    def __init__(self, queues: list[str]) -> None:
        worker_app = importlib.import_module("worker.app")
        importlib.import_module("worker.tasks")
        self.celery = worker_app.celery
        self.queues = queues
        self.conn = self.celery.connection_for_read()
        self.channel = self.conn.default_channel
        self.ran: dict[str, int] = {}

    def drain(self) -> None:
        while True:
            message = None
            for queue in self.queues:
                try:
                    message = self.channel.basic_get(queue, no_ack=True)
                except Exception:  # a queue nothing was published to yet
                    message = None
                if message is not None:
                    break
            if message is None:
                return
            name = message.headers["task"]
            args, kwargs, _embed = message.decode()
            result = self.celery.tasks[name].apply(args=args, kwargs=kwargs)
            if result.failed():
                raise RuntimeError(f"task {name}{args} failed: {result.traceback}")
            self.ran[name] = self.ran.get(name, 0) + 1


def mail_text(message: EmailMessage) -> str:
    """The headers that matter and every text part, normalised."""
    lines = []
    for name in HEADERS:
        for raw in message.get_all(name, []):
            value = " ".join(str(raw).split())
            if name == "Date":
                value = "DATE"
            elif name in {"Message-ID", "In-Reply-To", "References"}:
                value = MSGID.sub(lambda m: msgid_label(m[0]), value)
            lines.append(f"{name}: {normalise(value)}")
    for part in message.walk():
        if part.is_multipart():
            continue
        kind = part.get_content_type()
        lines += ["", f"--- part {kind}" + (f" ({part.get_filename()})" if part.get_filename() else "")]
        if part.get_content_maintype() == "text":
            lines.append(normalise(str(part.get_content())))
        else:
            lines.append(f"{len(part.get_payload(decode=True) or b'')} bytes")
    return "\n".join(lines) + "\n"


def msgid_label(msgid: str) -> str:
    """A Message-ID without what may differ between runs (a random or timed part): kept when it only names rows."""
    local, _, domain = msgid.strip("<>").partition("@")
    return f"<{normalise(local)}@{domain}>"


class Writer:
    """The transcript's files: the mails the tasks just wrote, and the seats' pages."""

    def __init__(self, out: Path, mail_dir: Path, worker: Worker) -> None:
        shutil.rmtree(out, ignore_errors=True)
        (out / "mails").mkdir(parents=True)
        (out / "pages").mkdir()
        self.out, self.mail_dir, self.worker = out, mail_dir, worker
        self.seen: set[str] = set()
        self.counts = {"mails": 0, "pages": 0, "answers": 0, "refused": 0}

    def mails(self, step: str) -> None:
        """The tasks asked for run, then the mails they wrote, in an order that does not depend on timing."""
        self.worker.drain()
        names = sorted(p.name for p in self.mail_dir.glob("*.eml")) if self.mail_dir.is_dir() else []
        texts = []
        for name in names:
            if name in self.seen:
                continue
            self.seen.add(name)
            message = email.message_from_bytes((self.mail_dir / name).read_bytes(), policy=email.policy.default)
            assert isinstance(message, EmailMessage)
            texts.append(mail_text(message))
        for text in sorted(texts):
            self.counts["mails"] += 1
            (self.out / "mails" / f"{self.counts['mails']:05d}-{step}.txt").write_text(text)

    def pages(self, client: Any, seats: list[tuple[str, str]], step: str) -> None:
        """Every seat's page as its player sees it now."""
        for position, (colour, token) in enumerate(seats):
            page = client.get(f"/s/{token}")
            text = f"HTTP {page.status_code}\n{normalise(page.get_data(as_text=True))}"
            (self.out / "pages" / f"{step}-{position}-{colour}.html").write_text(text)
            self.counts["pages"] += 1


def play(out: Path, seed: int, players: int, max_windows: int | None = None) -> dict[str, Any]:
    """Bots play one game in a fresh data folder; its mails and pages written to ``out``."""
    out = out.resolve()
    data_dir = Path(tempfile.mkdtemp(prefix="dm_transcript_"))
    os.environ.update(environment(data_dir))
    try:
        return _play(out, data_dir, seed, players, max_windows)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def _stack() -> tuple[Any, Any, Worker]:
    """The played checkout's database (migrated, in the data folder), its web app's test client, and its worker."""
    from server import config
    from server.db import Database
    from server.run.migrate import upgrade
    from server.run.queue import Queue, mail_queue
    from server.web.app import create_app

    os.chdir(config.ROOT)  # alembic puts the working folder first on the path: the played checkout's
    settings = config.Settings.from_env()
    prepare = getattr(config, "prepare_data_dir", None)  # older checkouts made the data folder in from_env
    if prepare is not None:
        settings = prepare(settings)
    worker = Worker([mail_queue(settings), settings.queue])
    upgrade(settings.database_url)
    db = Database(settings.database_url, tasks=Queue(settings))
    return db, create_app(settings, db).test_client(), worker


def _play(out: Path, data_dir: Path, seed: int, players: int, max_windows: int | None) -> dict[str, Any]:
    from server.services.links import read_token

    db, client, worker = _stack()
    bot_choice = _bot_choice()

    writer = Writer(out, data_dir / "mail", worker)
    counts = writer.counts
    collect = writer.mails

    body = {
        "players": [f"Player {i + 1} <p{i + 1}@example.org>" for i in range(players)],
        "deadlines": ["2d"],
        "avoid_quiet_hours": False,
        "autopilot_after": 0,
        "seed": seed,
        "title": f"transcript {seed}",
    }
    reply = client.post("/api/games", json=body, headers=AUTH)
    if reply.status_code != 201 or reply.json is None:
        raise RuntimeError(f"creating the game: HTTP {reply.status_code} {reply.get_data(as_text=True)[:300]}")
    game_id = reply.json["id"]
    seats = [(s["colour"], s["link"].rsplit("/", 1)[1]) for s in reply.json["seats"]]
    collect("w000")

    started = time.monotonic()
    windows = 0
    while True:
        status = client.get(f"/api/games/{game_id}", headers=AUTH).json
        assert status is not None
        window = status.get("window") or {}
        number = int(window.get("number") or status.get("window_no") or windows + 1)
        writer.pages(client, seats, f"w{number:03d}")
        if status["status"] != "running" or (max_windows is not None and windows >= max_windows):
            break
        windows += 1
        for position, (_colour, token) in enumerate(seats):
            view = client.get(f"/api/seat/{token}").json
            assert view is not None
            open_window = view["window"]
            if view["game"]["status"] != "running" or open_window is None or open_window["request"] is None:
                continue
            if open_window["number"] != number:
                continue
            seat_id = read_token(SECRET, token, 10**9)[0]
            answer = bot_choice(db, seat_id, "random", seed * 1009 + number * 7 + position)
            if answer is None:
                continue
            sent = {"kind": open_window["request"]["kind"], "window": number, "answer": answer}
            result = client.post(f"/api/seat/{token}/answer", json=sent)
            counts["answers" if result.status_code == 200 else "refused"] += 1
            collect(f"w{number:03d}-{position}")
        collect(f"w{number:03d}-end")
    db.dispose()
    return {
        "out": str(out),
        "seed": seed,
        "players": players,
        "status": status["status"],
        "windows": windows,
        **counts,
        "tasks": worker.ran,
        "seconds": round(time.monotonic() - started, 1),
    }


def _bot_choice() -> Callable[..., Any]:
    """The demo's bots' choice (``turns.bot_choice``: ``engine.bots`` on the seat's request), wherever the checkout
    keeps its turns service."""
    for name in ("server.services.play.turns", "server.services.turns"):
        try:
            return importlib.import_module(name).bot_choice  # type: ignore[no-any-return]
        except ImportError:
            continue
    raise ImportError("no turns service with bot_choice")


# --- comparing -------------------------------------------------------------------------------------------------------


def files_of(folder: Path) -> dict[str, Path]:
    return {str(p.relative_to(folder)): p for p in sorted(folder.rglob("*")) if p.is_file()}


def diff(a: Path, b: Path, context: int = 3, shown: int = 40) -> dict[str, Any]:
    """The two folders compared file by file (same names, same bytes)."""
    left, right = files_of(a), files_of(b)
    differing: dict[str, list[str]] = {}
    for name in sorted(set(left) & set(right)):
        x, y = left[name].read_text(), right[name].read_text()
        if x != y:
            lines = difflib.unified_diff(x.splitlines(), y.splitlines(), "a/" + name, "b/" + name, n=context)
            differing[name] = [line[:300] for line in lines][:shown]
    return {
        "a": str(a),
        "b": str(b),
        "mails": [sum(n.startswith("mails/") for n in left), sum(n.startswith("mails/") for n in right)],
        "pages": [sum(n.startswith("pages/") for n in left), sum(n.startswith("pages/") for n in right)],
        "only_a": sorted(set(left) - set(right)),
        "only_b": sorted(set(right) - set(left)),
        "differing": len(differing),
        "same": not differing and set(left) == set(right),
        "diffs": differing,
        "digest_a": _digest(left),
        "digest_b": _digest(right),
    }


def _digest(files: dict[str, Path]) -> str:
    h = hashlib.sha256()
    for name, path in files.items():
        h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiny", action="store_true", help="a 3-player game of 3 windows into a temporary folder")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("play", help="play one game and write its transcript")
    p.add_argument("out", type=Path)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--players", type=int, default=5)
    p.add_argument("--windows", type=int, default=None, help="stop after this many windows")
    d = sub.add_parser("diff", help="compare two transcripts")
    d.add_argument("a", type=Path)
    d.add_argument("b", type=Path)
    args = parser.parse_args()
    if args.tiny:
        with tempfile.TemporaryDirectory() as folder:
            result = play(Path(folder) / "t", seed=1, players=3, max_windows=3)
    elif args.command == "play":
        result = play(args.out, args.seed, args.players, args.windows)
    elif args.command == "diff":
        result = diff(args.a, args.b)
    else:
        parser.error("play, diff or --tiny")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
