"""Replies reaching deadmail: the aiosmtpd listener (server/mail/inbound.py) over real SMTP and LMTP, in process and
as ``deadmail inbound``, and the HTTP webhook (server/web/webhook.py). The mail itself is judged in test_replies.py;
here: only reply addresses are accepted, the answer is applied and its advance and answer mail asked for once it is
stored (a real worker advances the game and sends the mail), the database being down is a 451, the webhook takes raw
and JSON mail and refuses without the token."""

from __future__ import annotations

import json
import logging
import smtplib
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from aiosmtpd.controller import Controller
from celery import Celery

from server.config import Settings, prepare_data_dir
from server.db import Database
from server.mail import inbound
from server.models import Game, InboundMail, Outbox
from server.run.migrate import upgrade
from server.services.mailflow import reply_address
from server.services.play.seats import seat_view
from server.text.grammar import commands_for, parse_reply
from tests.conftest import Stack
from tests.support import (
    AUTH,
    DEADMAIL,
    REPLY_DOMAIN,
    create_tagged,
    every_window,
    free_port,
    letter,
    mail_settings,
    outbox_ids,
    player_of,
    recording,
    rows_of,
    seat_ids,
)
from tests.waiting import wait_for

HOST = "127.0.0.1"


def new_game(db: Database) -> int:
    """A game of one person (yellow) against two bots: the person's answer completes each window."""
    return create_tagged(db, 1, seed=5, bots=2).game_id


@dataclass(frozen=True)
class Reply:
    """A reply the person may send now: to its signed address, from the person's address, with a command."""

    address: str
    sender: str
    command: str
    #: what the command means, and the window it answers
    answer: Any
    window: int

    def raw(self, body: str | None = None) -> bytes:
        """The reply as a mail program sends it: the command (or ``body``) and a signature."""
        return letter(self.sender, self.address, f"{self.command if body is None else body}\n\n-- \nAnn\n")


def reply_for(db: Database, settings: Settings, game_id: int, pick: int = 0) -> Reply:
    """The reply holding the ``pick``-th listed command for the person's open request."""
    seat_id = seat_ids(db, game_id)["yellow"]
    state = seat_view(db, seat_id)
    window, view = state["window"], state["view"]
    command = commands_for(window["request"], view, "en")[pick]
    answer = parse_reply(command, window["request"], view, "en")
    address = reply_address.make(settings.secret_key, settings.reply_domain, seat_id, window["number"], 1)
    return Reply(address, player_of(db, seat_id).email, command, answer, window["number"])


def window_of(db: Database, game_id: int, number: int) -> tuple[int, str, Any]:
    """The window's id and status, and the person's answer in it (open or closed: ``support.every_window``)."""
    with db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        windows, requests = every_window(session, game)
        window = next(w for w in windows if w.number == number)
        yellow = next(s.id for s in game.seats if s.colour == "yellow")
        row = next(r for n, r in requests if n == number and r.seat_id == yellow)
        return window.id, window.status, row.answer


def inbound_statuses(db: Database) -> list[str]:
    with db.session() as session:
        return list(session.execute(sa.select(InboundMail.status).order_by(InboundMail.id)).scalars())


class Listener:
    """An in-process listener on a free port, and the progress lines it wrote."""

    def __init__(self, settings: Settings, db: Database, lmtp: bool = False) -> None:
        self.port = free_port()
        self.lines: list[str] = []
        self.controller: Controller = inbound.controller(
            settings, db, (HOST, self.port), lmtp, progress=self.lines.append
        )


@pytest.fixture
def listen() -> Iterator[Callable[..., Listener]]:
    """Start in-process listeners (``listen(stack, db=None, lmtp=False)``: the stack's settings with a reply domain,
    on ``db``, by default the app's database, which hands its work to the real task queue); stopped after the test."""
    started: list[Listener] = []

    def start(stack: Stack, db: Database | None = None, lmtp: bool = False) -> Listener:
        listener = Listener(mail_settings(stack.settings), stack.web_db if db is None else db, lmtp)
        listener.controller.start()
        started.append(listener)
        return listener

    yield start
    for listener in started:
        listener.controller.stop()


# --- the listener, in process ---------------------------------------------------------------------------------------


def test_a_reply_over_smtp_is_applied_advances_the_game_and_is_answered(
    stack: Stack, worker: Celery, listen: Callable[..., Listener]
) -> None:
    game_id = new_game(stack.db)
    reply = reply_for(stack.db, mail_settings(stack.settings), game_id)
    listener = listen(stack)
    raw = reply.raw()
    with smtplib.SMTP(HOST, listener.port, timeout=10) as smtp:
        assert smtp.sendmail(reply.sender, [reply.address], raw) == {}
        assert smtp.sendmail(reply.sender, [reply.address], raw) == {}  # delivered twice: applied once
    # the answer completed the window: its advance reaches the real worker, which advances the game
    _, _, stored = wait_for(
        lambda: (found := window_of(stack.db, game_id, reply.window))[1] == "closed" and found,
        what="the window to close",
    )
    assert stored == reply.answer
    assert listener.lines == ["inbound 1: applied", "inbound -: duplicate"]
    # and the worker sends the answer mail, to the player
    with stack.db.session() as session:
        [row] = session.execute(sa.select(Outbox).where(Outbox.kind == "reply")).scalars().all()
        assert row.payload["result"] == "applied" and row.player.email == reply.sender
        row_id = row.id
    wait_for(lambda: rows_of(stack.db, [row_id])[0].status == "sent", what="the answer mail to be sent")
    assert any(reply.sender in p.read_text() for p in stack.settings.mail_dir.glob("*.eml"))


def test_the_listeners_log_never_holds_a_reply_address(
    embedded: Stack, listen: Callable[..., Listener], caplog: pytest.LogCaptureFixture
) -> None:
    """A reply address answers for a seat: aiosmtpd's own INFO lines (``mail.log``: every recipient) are not written,
    even when the operator logs INFO."""
    game_id = new_game(embedded.db)
    reply = reply_for(embedded.db, mail_settings(embedded.settings), game_id)
    with caplog.at_level(logging.INFO):
        listener = listen(embedded)
        with smtplib.SMTP(HOST, listener.port, timeout=10) as smtp:
            assert smtp.sendmail(reply.sender, [reply.address], reply.raw()) == {}
        wait_for(lambda: listener.lines, what="the reply to be read")
    assert caplog.records  # the listener did log, at INFO
    assert reply.address.split("@")[0] not in caplog.text


def test_only_reply_addresses_are_accepted(embedded: Stack, listen: Callable[..., Listener]) -> None:
    listener = listen(embedded)
    with smtplib.SMTP(HOST, listener.port, timeout=10) as smtp:
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            smtp.sendmail("x@example.org", ["someone@example.org"], b"Subject: hi\r\n\r\nhello\r\n")
        assert refused.value.recipients["someone@example.org"][0] == 550
        big = b"Subject: big\r\n\r\n" + b"x" * (1024 * 1024 + 10)
        with pytest.raises((smtplib.SMTPSenderRefused, smtplib.SMTPDataError)) as large:
            smtp.sendmail("x@example.org", [f"r-1-1-1-{'a' * 26}@{REPLY_DOMAIN}"], big)
        assert large.value.smtp_code == 552
    assert listener.lines == []
    assert inbound_statuses(embedded.db) == []


def test_a_forged_address_is_taken_with_250_and_never_answered(
    embedded: Stack, listen: Callable[..., Listener]
) -> None:
    game_id = new_game(embedded.db)
    reply = reply_for(embedded.db, mail_settings(embedded.settings), game_id)
    local, _, domain = reply.address.partition("@")
    forged = f"{local[:-1]}{'2' if local[-1] != '2' else '3'}@{domain}"  # the signature's last character changed
    db, tasks = recording(embedded.db)
    listener = listen(embedded, db)
    with smtplib.SMTP(HOST, listener.port, timeout=10) as smtp:
        assert smtp.sendmail(reply.sender, [forged], letter(reply.sender, forged, reply.command)) == {}
    assert listener.lines == ["inbound 1: forged"]
    assert inbound_statuses(embedded.db) == ["forged"]
    assert window_of(embedded.db, game_id, reply.window)[1:] == ("open", None)
    assert tasks.mails == [] and tasks.advanced == []


def test_lmtp_delivery_is_applied_and_asks_for_the_advance_and_the_answer_mail(
    embedded: Stack, listen: Callable[..., Listener]
) -> None:
    game_id = new_game(embedded.db)
    reply = reply_for(embedded.db, mail_settings(embedded.settings), game_id, pick=-1)
    db, tasks = recording(embedded.db)
    before = outbox_ids(embedded.db, game_id)
    listener = listen(embedded, db, lmtp=True)
    with smtplib.LMTP(HOST, listener.port) as lmtp:
        lmtp.sock.settimeout(10)  # type: ignore[union-attr]
        code, _ = lmtp.ehlo()  # smtplib's LMTP sends LHLO
        assert code == 250
        assert lmtp.sendmail(reply.sender, [reply.address], reply.raw()) == {}
    assert listener.lines == ["inbound 1: applied"]
    window_id, status, stored = window_of(embedded.db, game_id, reply.window)
    assert (status, stored) == ("open", reply.answer)  # complete, left to the advance it asked for
    assert tasks.advanced == [window_id]
    assert tasks.mails == [i for i in outbox_ids(embedded.db, game_id) if i not in before]  # the answer mail
    assert len(tasks.mails) == 1


def test_the_database_being_down_is_a_451_so_the_sender_retries(
    embedded: Stack, listen: Callable[..., Listener]
) -> None:
    game_id = new_game(embedded.db)
    reply = reply_for(embedded.db, mail_settings(embedded.settings), game_id)
    down = Database("postgresql+psycopg://postgres@127.0.0.1:9/nowhere", connect_args={"connect_timeout": 2})
    raw = reply.raw()
    try:
        with smtplib.SMTP(HOST, listen(embedded, down).port, timeout=10) as smtp:
            with pytest.raises(smtplib.SMTPDataError) as failed:
                smtp.sendmail(reply.sender, [reply.address], raw)
            assert failed.value.smtp_code == 451
    finally:
        down.dispose()
    assert inbound_statuses(embedded.db) == []
    # then the database is back: the retry is applied
    with smtplib.SMTP(HOST, listen(embedded, embedded.db).port, timeout=10) as smtp:
        assert smtp.sendmail(reply.sender, [reply.address], raw) == {}
    assert inbound_statuses(embedded.db) == ["applied"]
    assert window_of(embedded.db, game_id, reply.window)[2] == reply.answer


# --- deadmail inbound, as a process ---------------------------------------------------------------------------------


def test_deadmail_inbound_listens_and_applies_a_reply(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        "DEADMAIL_DATA_DIR": str(tmp_path / "data"),
        "DEADMAIL_SECRET_KEY": "inbound-secret",
        "DEADMAIL_REPLY_DOMAIN": REPLY_DOMAIN,
    }
    settings = prepare_data_dir(Settings.from_env(env))
    upgrade(settings.database_url)
    db = Database(settings.database_url)
    try:
        game_id = new_game(db)
        reply = reply_for(db, settings, game_id)
    finally:
        db.dispose()
    port = free_port()
    process = subprocess.Popen(
        [*DEADMAIL, "inbound", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert f"listening on smtp://{HOST}:{port}" in first, first + (process.stderr.read() if process.stderr else "")
        with smtplib.SMTP(HOST, port, timeout=10) as smtp:
            assert smtp.sendmail(reply.sender, [reply.address], reply.raw(f"{reply.command}\nthe-secret-body")) == {}
        line = process.stdout.readline()
        assert line.strip() == "inbound 1: applied"
    finally:
        process.terminate()
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "the-secret-body" not in out + err
    db = Database(settings.database_url)
    try:
        assert window_of(db, game_id, reply.window)[2] == reply.answer
    finally:
        db.dispose()


def test_deadmail_inbound_needs_a_reply_domain(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    env["DEADMAIL_DATA_DIR"] = str(tmp_path / "data")
    env["DEADMAIL_SMTP_URL"] = "smtp://127.0.0.1:1"  # with mail in files, the default is reply.localhost
    done = subprocess.run(
        [*DEADMAIL, "inbound", "--port", "1"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode != 0 and "DEADMAIL_REPLY_DOMAIN" in done.stderr


# --- the webhook ----------------------------------------------------------------------------------------------------


def webhook_settings(stack: Stack) -> Settings:
    """The app's settings with a reply domain (the webhook reads replies to addresses there)."""
    settings = mail_settings(stack.settings)
    stack.app.extensions["deadmail"].settings = settings
    return settings


def test_the_webhook_takes_raw_mail_with_the_recipient_in_a_header_or_the_query(stack: Stack) -> None:
    game_id = new_game(stack.db)
    reply = reply_for(stack.db, webhook_settings(stack), game_id)
    raw = letter(reply.sender, "undisclosed-recipients:;", reply.command)
    headers = {**AUTH, "Content-Type": "message/rfc822"}
    by_header = stack.client.post("/inbound/mail", data=raw, headers={**headers, "X-Original-To": reply.address})
    assert by_header.status_code == 200 and by_header.json == {"ok": True, "status": "applied"}
    assert window_of(stack.db, game_id, reply.window)[2] == reply.answer
    again = stack.client.post("/inbound/mail", data=raw, headers=headers, query_string={"to": reply.address})
    assert again.json == {"ok": True, "status": "duplicate"}
    other = letter(reply.sender, "undisclosed-recipients:;", "PLACE NOBODY 9")
    by_query = stack.client.post("/inbound/mail", data=other, headers=headers, query_string={"to": reply.address})
    assert by_query.json == {"ok": True, "status": "error"}
    assert inbound_statuses(stack.db) == ["applied", "error"]


def test_the_webhook_takes_json(stack: Stack) -> None:
    game_id = new_game(stack.db)
    reply = reply_for(stack.db, webhook_settings(stack), game_id, pick=-1)
    body = {
        "to": reply.address,
        "from": f"Ann <{reply.sender}>",
        "subject": "Re: your turn",
        "text": f"{reply.command}\n\nOn Sunday deadmail wrote:\n> PASS\n",
        "message_id": "<json-1@example.org>",
    }
    answered = stack.client.post("/inbound/mail", json=body, headers=AUTH)
    assert answered.status_code == 200 and answered.json == {"ok": True, "status": "applied"}
    assert window_of(stack.db, game_id, reply.window)[2] == reply.answer
    auto = {**body, "message_id": "<json-2@example.org>", "headers": {"Auto-Submitted": "auto-replied"}}
    assert stack.client.post("/inbound/mail", json=auto, headers=AUTH).json == {"ok": True, "status": "ignored"}
    for bad in ({"to": 3}, {"to": reply.address, "from": "a\nb"}, {"to": reply.address, "text": ["x"]}, [1, 2]):
        refused = stack.client.post("/inbound/mail", json=bad, headers=AUTH)
        assert refused.status_code == 400 and refused.json["ok"] is False
    assert inbound_statuses(stack.db) == ["applied", "ignored"]


@pytest.mark.parametrize(
    "headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "test-api-token"}, {"Authorization": ""}]
)
def test_the_webhook_refuses_without_the_token(embedded: Stack, headers: dict[str, str]) -> None:
    game_id = new_game(embedded.db)
    reply = reply_for(embedded.db, webhook_settings(embedded), game_id)
    refused = embedded.client.post(
        "/inbound/mail", json={"to": reply.address, "from": reply.sender, "text": reply.command}, headers=headers
    )
    assert refused.status_code == 401 and refused.json["ok"] is False
    assert inbound_statuses(embedded.db) == []
    assert window_of(embedded.db, game_id, reply.window)[1:] == ("open", None)


def test_the_webhook_limits_size_kind_and_rate(embedded: Stack) -> None:
    webhook_settings(embedded)
    embedded.app.config["DEADMAIL_INBOUND_PER_MINUTE"] = 4
    big = b"Subject: x\r\n\r\n" + b"x" * (1024 * 1024 + 1)
    headers = {**AUTH, "Content-Type": "message/rfc822"}
    to = {"to": f"a@{REPLY_DOMAIN}"}
    too_big = embedded.client.post("/inbound/mail", data=big, headers=headers, query_string=to)
    assert too_big.status_code == 413 and "1 MiB" in too_big.json["error"]
    # between the app's 64 KiB and 1 MiB: taken by this route
    mid = b"From: a@example.org\r\nSubject: x\r\n\r\n" + b"x" * (200 * 1024)
    taken = embedded.client.post("/inbound/mail", data=mid, headers=headers, query_string=to)
    assert taken.status_code == 200 and taken.json["status"] == "forged"  # read: an address we never signed
    plain = embedded.client.post("/inbound/mail", data=b"hello", headers={**AUTH, "Content-Type": "text/plain"})
    assert plain.status_code == 415
    codes = [
        embedded.client.post("/inbound/mail", data=b"x", headers={**AUTH, "Content-Type": "text/plain"}).status_code
        for _ in range(3)
    ]
    assert codes == [415, 429, 429]  # three calls were made before in this minute
    assert json.loads(embedded.client.post("/inbound/mail", headers=AUTH).data)["ok"] is False
