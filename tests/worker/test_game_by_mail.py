"""A whole game played by mail (issue 4): three people, writing in English, Italian and Polish, make every decision
by replying to the notification they received. Real SMTP both ways: the worker sends through ``DEADMAIL_SMTP_URL``
to an aiosmtpd server kept by the test, and each reply goes over SMTP to deadmail's own listener (server/inbound.py),
which applies it through the same path as a web answer; the real worker advances the game."""

from __future__ import annotations

import queue
import random
import smtplib
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import parseaddr
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import func, select

from server import i18n, inbound
from server.models import Game, InboundMail, Outbox, RequestRow, Seat, Window
from server.queue import Queue
from server.services import games
from tests.server.test_inbound import free_port

from .support import check_game

HOST = "127.0.0.1"
DOMAIN = "reply.deadmail.test"
FROM = "deadmail <games@deadmail.test>"
LANGUAGES = {"ann@example.org": "en", "bruno@example.org": "it", "ola@example.org": "pl"}
LIMIT_S = 240
#: with no mail for this long, the test does what beat does every minute in production: a sweep, which resends
#: mail whose task was lost and advances windows whose kick was lost.
IDLE_S = 5


class Sink:
    """The mail server deadmail sends to: it keeps every message it accepts."""

    def __init__(self) -> None:
        self.messages: queue.Queue[tuple[list[str], bytes]] = queue.Queue()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.put((list(envelope.rcpt_tos), envelope.content))
        return "250 OK"


@dataclass
class ByMail:
    stack: Any
    sink: Sink
    inbound_port: int
    lines: list[str]
    worker: Any


@pytest.fixture
def by_mail(stack: Any, request: pytest.FixtureRequest) -> Iterator[ByMail]:
    sink = Sink()
    outgoing = Controller(sink, hostname=HOST, port=free_port())
    outgoing.start()
    stack.settings = replace(
        stack.settings, smtp_url=f"smtp://{HOST}:{outgoing.port}", reply_domain=DOMAIN, mail_from=FROM
    )
    worker = request.getfixturevalue("worker")  # started after the settings changed: it sends over SMTP to the sink
    lines: list[str] = []
    port = free_port()
    listener = inbound.controller(stack.settings, HOST, port, False, db=stack.db, progress=lines.append)
    listener.start()
    yield ByMail(stack, sink, port, lines, worker)
    listener.stop()
    outgoing.stop()


def commands_in(text: str, language: str) -> list[str]:
    """The command lines under the heading, in the reader's language: four spaces, then the command."""
    heading = i18n.translations(language).gettext("Reply with one of these lines:")
    lines = text.splitlines()
    if heading not in lines:
        return []
    after = lines[lines.index(heading) + 1 :]
    commands = []
    for line in after:
        if not line.startswith("    "):
            break
        commands.append(line[4:])
    return commands


def reply_to(mail: EmailMessage, command: str) -> EmailMessage:
    """What a mail program writes: the command on top, the original quoted below."""
    original = mail.get_body(("plain",))
    assert original is not None
    quoted = "\n".join(f"> {line}" for line in original.get_content().splitlines())
    reply = EmailMessage()
    reply["From"] = mail["To"]
    reply["To"] = mail["Reply-To"]
    reply["Subject"] = f"Re: {mail['Subject']}"
    reply["In-Reply-To"] = mail["Message-ID"]
    reply["References"] = mail["Message-ID"]
    reply.set_content(f"{command}\n\nOn Sunday, deadmail wrote:\n{quoted}\n")
    return reply


def create_game(stack: Any, seed: int) -> int:
    players = [games.PlayerSpec(name=email.split("@")[0].title(), email=email) for email in LANGUAGES]
    with stack.db.session() as session:
        for spec in players:
            assert spec.email is not None
            games.find_or_create_player(session, spec).language = LANGUAGES[spec.email]
    created = games.create_game(stack.db, games.GameSpec(players=players, seed=seed))
    sender = Queue(stack.settings)
    for outbox_id in created.outbox_ids:
        sender.send_mail(outbox_id)
    return created.game_id


def stuck(db: Any, game_id: int) -> dict[str, Any]:
    """What a game that does not end is waiting for (shown when the test fails)."""
    with db.session() as session:
        mail = session.execute(
            select(Outbox.id, Outbox.kind, Outbox.status, Outbox.attempts, Outbox.last_error).where(
                Outbox.status.not_in(["sent"])
            )
        ).all()
        windows = session.execute(
            select(Window.number, Window.status, Window.completed_at).where(
                Window.game_id == game_id, Window.status != "closed"
            )
        ).all()
        inbound_mail = session.execute(select(InboundMail.id, InboundMail.status, InboundMail.detail)).all()[-5:]
    return {"mail": mail, "windows": windows, "inbound": inbound_mail}


def status_of(db: Any, game_id: int) -> str:
    with db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game.status


def test_a_whole_game_is_played_by_replying_to_mails(by_mail: ByMail) -> None:
    stack = by_mail.stack
    game_id = create_game(stack, seed=11)
    rng = random.Random(11)
    answered: set[str] = set()  # reply addresses already used: one per seat and window
    received = 0
    started = last_mail = time.monotonic()
    while status_of(stack.db, game_id) != "over":
        assert time.monotonic() - started < LIMIT_S, f"not over after {LIMIT_S} s: {stuck(stack.db, game_id)}"
        try:
            rcpts, raw = by_mail.sink.messages.get(timeout=1)
        except queue.Empty:
            if time.monotonic() - last_mail > IDLE_S:
                by_mail.worker.send_task("deadmail.sweep")
                last_mail = time.monotonic()
            continue
        received += 1
        last_mail = time.monotonic()
        mail = message_from_bytes(raw, policy=policy.default)
        assert isinstance(mail, EmailMessage)
        address = parseaddr(str(mail["To"]))[1]
        assert rcpts == [address]
        language = LANGUAGES[address]
        assert mail["Content-Language"] == language
        body = mail.get_body(("plain",))
        assert body is not None
        commands = commands_in(body.get_content(), language)
        target = mail["Reply-To"]
        if not commands or target is None or target in answered:
            continue  # news, a confirmation, or a decision already made
        with smtplib.SMTP(HOST, by_mail.inbound_port, timeout=10) as smtp:
            assert smtp.send_message(reply_to(mail, rng.choice(commands))) == {}
        answered.add(str(target))

    check_game(stack.db, game_id)  # the stored answers replay to the stored state, window by window
    with stack.db.session() as session:
        owed = session.execute(
            select(RequestRow)
            .join(Window, Window.id == RequestRow.window_id)
            .join(Seat, Seat.id == RequestRow.seat_id)
            .where(Window.game_id == game_id, Seat.bot.is_(None))
        ).scalars()
        decisions = list(owed)
        counted = session.execute(select(InboundMail.status, func.count()).group_by(InboundMail.status))
        statuses = {status: count for status, count in counted}
    assert len(decisions) > 20
    # every decision was made, none by a deadline's default, and each by exactly one reply that was applied
    assert all(r.answered_at is not None and not r.defaulted for r in decisions)
    assert statuses == {"applied": len(decisions)}
    assert len(answered) == len(decisions)
    assert by_mail.lines.count("inbound -: duplicate") == 0
    assert received > len(decisions)  # the confirmations and the news came by mail too
