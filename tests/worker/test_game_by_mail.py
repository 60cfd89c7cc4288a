"""A whole game played by mail: three people, writing in English, Italian and Polish, make every decision
by replying to the notification they received. Real SMTP both ways: the worker sends through ``DEADMAIL_SMTP_URL``
to an aiosmtpd server kept by the test, and each reply goes over SMTP to deadmail's own listener
(server/mail/inbound.py), which applies it through the same path as a web answer; the real worker advances the game
and sends the next mails, each asked for after the commit that wrote it (no sweep is needed)."""

from __future__ import annotations

import gc
import queue
import random
import smtplib
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import parseaddr
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import func, select

from server.db import Database
from server.mail import inbound
from server.models import Game, InboundMail, Outbox, Window
from server.run.queue import Queue
from server.text import i18n
from tests.conftest import Stack
from tests.support import check_game, create_tagged, every_window, free_port, mail_settings
from tests.waiting import wait_for

HOST = "127.0.0.1"
SEED = 11
#: the people of the game, by index, and the language each one reads and writes.
LANGUAGES = ("en", "it", "pl")
#: the longest wait for deadmail's next mail, and the most mails a game may take.
MAIL_WAIT_S = 60
MAX_MAILS = 2000


class Inbox:
    """The mail server deadmail sends to: it keeps every message it accepts."""

    def __init__(self) -> None:
        self.messages: queue.Queue[tuple[list[str], bytes]] = queue.Queue()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.put((list(envelope.rcpt_tos), envelope.content))
        return "250 OK"

    def taken(self) -> tuple[list[str], bytes] | None:
        try:
            return self.messages.get_nowait()
        except queue.Empty:
            return None


@dataclass
class ByMail:
    """The stack set up to play by mail: ``db`` hands its after-commit work to the real task queue."""

    stack: Stack
    db: Database
    inbox: Inbox
    inbound_port: int
    lines: list[str]


@pytest.fixture
def by_mail(stack: Stack, request: pytest.FixtureRequest) -> Iterator[ByMail]:
    inbox = Inbox()
    outgoing = Controller(inbox, hostname=HOST, port=free_port())
    outgoing.start()
    stack.settings = replace(  # every player replies from one address, at machine speed: no listener limits
        mail_settings(stack.settings),
        smtp_url=f"smtp://{HOST}:{outgoing.port}",
        inbound_per_minute=100_000,
        inbound_per_sender=100_000,
    )
    request.getfixturevalue("worker")  # started after the settings changed: it sends over SMTP to the inbox
    db = stack.db.with_tasks(Queue(stack.settings))
    lines: list[str] = []
    port = free_port()
    listener = inbound.controller(stack.settings, db, (HOST, port), progress=lines.append)
    listener.start()
    yield ByMail(stack, db, inbox, port, lines)
    # Stopping an aiosmtpd loop while the worker still sends a last mail leaves that connection's transport to the
    # garbage collector, which warns (ResourceWarning) at some later test: collect it here, where it is expected.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        listener.stop()
        outgoing.stop()
        del listener, outgoing  # their stopped loops hold the transports
        gc.collect()


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


def stuck(db: Database, game_id: int) -> dict[str, Any]:
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


def next_mail(by_mail: ByMail, game_id: int) -> EmailMessage:
    """The next mail deadmail sends, checked to go to the one address it names."""
    try:
        rcpts, raw = wait_for(by_mail.inbox.taken, timeout=MAIL_WAIT_S, what="deadmail's next mail")
    except AssertionError:
        raise AssertionError(f"no mail for {MAIL_WAIT_S} s: {stuck(by_mail.db, game_id)}") from None
    mail = message_from_bytes(raw, policy=policy.default)
    assert isinstance(mail, EmailMessage)
    assert rcpts == [parseaddr(str(mail["To"]))[1]]
    return mail


def status_of(db: Database, game_id: int) -> str:
    with db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game.status


@pytest.mark.long(11)
def test_a_whole_game_is_played_by_replying_to_mails(by_mail: ByMail) -> None:
    stack = by_mail.stack
    prefs = {i: {"language": language} for i, language in enumerate(LANGUAGES)}
    # created now (the worker sends what is due by the clock), its first mails sent once it is stored
    # every vote waits for every voter, so that every decision is made by one reply (a reply to a vote closed once
    # decided is refused: tests/server/test_decided_votes.py)
    game_id = create_tagged(
        by_mail.db, len(LANGUAGES), seed=SEED, prefs=prefs, now=datetime.now(UTC), close_decided_votes=False
    ).game_id
    language_of = {f"p{i}.{SEED}@example.org": language for i, language in enumerate(LANGUAGES)}
    rng = random.Random(SEED)
    answered: set[str] = set()  # reply addresses already used: one per seat and window
    received = 0
    while status_of(stack.db, game_id) != "over":
        assert received < MAX_MAILS, f"not over after {MAX_MAILS} mails: {stuck(stack.db, game_id)}"
        mail = next_mail(by_mail, game_id)
        received += 1
        language = language_of[parseaddr(str(mail["To"]))[1]]
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
        game = session.get(Game, game_id)
        assert game is not None
        people = {seat.id for seat in game.seats if seat.bot is None}
        decisions = [r for _number, r in every_window(session, game)[1] if r.seat_id in people]
        counted = session.execute(select(InboundMail.status, func.count()).group_by(InboundMail.status))
        statuses = {status: count for status, count in counted}
    assert len(decisions) > 20
    # every decision was made, none by a deadline's default, and each by exactly one reply that was applied
    assert all(r.answered_at is not None and not r.defaulted for r in decisions)
    assert statuses == {"applied": len(decisions)}
    assert len(answered) == len(decisions)
    assert by_mail.lines.count("inbound -: duplicate") == 0
    assert received > len(decisions)  # the confirmations and the news came by mail too
