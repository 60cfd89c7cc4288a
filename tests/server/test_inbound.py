"""Replies reaching deadmail: the aiosmtpd listener (server/inbound.py) over real SMTP and LMTP, in process and as
``deadmail inbound``, and the HTTP webhook (server/webhook.py). The mail itself is judged in test_replies.py; here:
only reply addresses are accepted, the answer is applied and its advance and answer mail queued (a real worker
sends them), the database being down is a 451, the webhook takes raw and JSON mail and refuses without the token."""

from __future__ import annotations

import json
import smtplib
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from aiosmtpd.controller import Controller

from server import inbound
from server.commands import commands_for, parse_reply
from server.config import Settings
from server.db import Database
from server.migrate import upgrade
from server.models import InboundMail, Outbox, RequestRow, Seat, Window
from server.queue import Queue
from server.services import games, reply_address
from server.services.seats import seat_view
from tests.waiting import wait_for

DOMAIN = "reply.deadmail.test"
HOST = "127.0.0.1"
AUTH = {"Authorization": "Bearer test-api-token"}
DEADMAIL = [sys.executable, "-c", "from server.cli import main; main()"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def new_game(db: Any, email: str = "ann@example.org", bots: int = 2) -> int:
    """A game of one person (yellow) against bots: the person's answer completes each window."""
    spec = games.GameSpec(
        players=[games.PlayerSpec(name="Ann", email=email)] + [games.PlayerSpec(bot="sensible")] * bots, seed=5
    )
    return games.create_game(db, spec).game_id


def reply_for(db: Any, settings: Any, game_id: int, pick: int = 0) -> tuple[str, str, Any, int]:
    """(reply address, command, the answer it means, window number) for the person's open request."""
    with db.session() as session:
        seat_id = session.execute(
            sa.select(Seat.id).where(Seat.game_id == game_id, Seat.colour == "yellow")
        ).scalar_one()
    state = seat_view(db, seat_id)
    window, view = state["window"], state["view"]
    command = commands_for(window["request"], view, "en")[pick]
    answer = parse_reply(command, window["request"], view, "en")
    address = reply_address.make(settings.secret_key, DOMAIN, seat_id, window["number"], 1)
    return address, command, answer, window["number"]


def letter(to: str, body: str, sender: str = "Ann <ann@example.org>") -> EmailMessage:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, "Re: your turn"
    message["Message-ID"] = make_msgid(domain="example.org")
    message.set_content(f"{body}\n\n-- \nAnn\n")
    return message


def window_answer(db: Any, game_id: int, number: int) -> tuple[str, Any]:
    """The window's status and the person's answer in it."""
    with db.session() as session:
        window = session.execute(
            sa.select(Window).where(Window.game_id == game_id, Window.number == number)
        ).scalar_one()
        row = session.execute(
            sa.select(RequestRow)
            .join(Seat, Seat.id == RequestRow.seat_id)
            .where(RequestRow.window_id == window.id, Seat.colour == "yellow")
        ).scalar_one()
        return window.status, row.answer


def inbound_statuses(db: Any) -> list[str]:
    with db.session() as session:
        return list(session.execute(sa.select(InboundMail.status).order_by(InboundMail.id)).scalars())


class Listener:
    def __init__(self, settings: Settings, db: Database, lmtp: bool = False, queue: Any = None) -> None:
        self.port = free_port()
        self.lines: list[str] = []
        self.controller: Controller = inbound.controller(
            settings, HOST, self.port, lmtp, db=db, queue=queue, progress=self.lines.append
        )


@pytest.fixture
def listen(stack: Any) -> Iterator[Any]:
    """Start in-process listeners on free ports; stopped after the test."""
    started: list[Listener] = []

    def start(lmtp: bool = False, db: Database | None = None) -> Listener:
        listener = Listener(replace(stack.settings, reply_domain=DOMAIN), db or stack.db, lmtp)
        listener.controller.start()
        started.append(listener)
        return listener

    yield start
    for listener in started:
        listener.controller.stop()


# --- the listener, in process ---------------------------------------------------------------------------------------


def test_a_reply_over_smtp_is_applied_advances_the_game_and_is_answered(stack: Any, worker: Any, listen: Any) -> None:
    game_id = new_game(stack.db)
    address, command, answer, number = reply_for(stack.db, stack.settings, game_id)
    listener = listen()
    message = letter(address, command)
    with smtplib.SMTP(HOST, listener.port, timeout=10) as smtp:
        refused = smtp.send_message(message)
        assert refused == {}
        smtp.send_message(message)  # delivered twice: applied once
    # the answer completed the window: the kick reaches the real worker, which advances the game
    _, stored = wait_for(
        lambda: (s := window_answer(stack.db, game_id, number))[0] == "closed" and s, what="the window to close"
    )
    assert stored == answer
    assert listener.lines == ["inbound 1: applied", "inbound -: duplicate"]
    # and the worker sends the answer mail, to the player
    with stack.db.session() as session:
        [row] = session.execute(sa.select(Outbox).where(Outbox.kind == "reply")).scalars().all()
        assert row.payload["result"] == "applied" and row.player.email == "ann@example.org"
        row_id = row.id
    wait_for(lambda: _status(stack.db, row_id) == "sent", what="the answer mail to be sent")
    assert any("ann@example.org" in p.read_text() for p in stack.settings.mail_dir.glob("*.eml"))


def _status(db: Any, row_id: int) -> str:
    with db.session() as session:
        row = session.get(Outbox, row_id)
        return row.status if row is not None else ""


def test_only_reply_addresses_are_accepted(embedded: Any) -> None:
    settings = replace(embedded.settings, reply_domain=DOMAIN)
    listener = Listener(settings, embedded.db, queue=Queue(settings))
    listener.controller.start()
    try:
        with smtplib.SMTP(HOST, listener.port, timeout=10) as smtp:
            with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
                smtp.sendmail("x@example.org", ["someone@example.org"], b"Subject: hi\r\n\r\nhello\r\n")
            assert refused.value.recipients["someone@example.org"][0] == 550
            big = b"Subject: big\r\n\r\n" + b"x" * (1024 * 1024 + 10)
            with pytest.raises((smtplib.SMTPSenderRefused, smtplib.SMTPDataError)) as large:
                smtp.sendmail("x@example.org", [f"r-1-1-1-{'a' * 26}@{DOMAIN}"], big)
            assert large.value.smtp_code == 552
    finally:
        listener.controller.stop()
    assert inbound_statuses(embedded.db) == []


def test_a_forged_address_is_taken_with_250_and_never_answered(embedded: Any) -> None:
    settings = replace(embedded.settings, reply_domain=DOMAIN)
    game_id = new_game(embedded.db)
    address, command, _, number = reply_for(embedded.db, settings, game_id)
    forged = address.replace(address[address.index("@") - 1], "2" if address[address.index("@") - 1] != "2" else "3")
    listener = Listener(settings, embedded.db, queue=Queue(settings))
    listener.controller.start()
    try:
        with smtplib.SMTP(HOST, listener.port, timeout=10) as smtp:
            assert smtp.send_message(letter(forged, command)) == {}
    finally:
        listener.controller.stop()
    assert inbound_statuses(embedded.db) == ["forged"]
    assert window_answer(embedded.db, game_id, number) == ("open", None)


def test_lmtp_delivery_is_applied(embedded: Any) -> None:
    settings = replace(embedded.settings, reply_domain=DOMAIN)
    game_id = new_game(embedded.db)
    address, command, answer, number = reply_for(embedded.db, settings, game_id, pick=-1)
    listener = Listener(settings, embedded.db, lmtp=True, queue=Queue(settings))
    listener.controller.start()
    try:
        with smtplib.LMTP(HOST, listener.port) as lmtp:
            lmtp.sock.settimeout(10)  # type: ignore[union-attr]
            code, _ = lmtp.ehlo()  # smtplib's LMTP sends LHLO
            assert code == 250
            assert lmtp.send_message(letter(address, command)) == {}
    finally:
        listener.controller.stop()
    assert listener.lines == ["inbound 1: applied"]
    assert window_answer(embedded.db, game_id, number)[1] == answer


def test_the_database_being_down_is_a_451_so_the_sender_retries(embedded: Any) -> None:
    settings = replace(embedded.settings, reply_domain=DOMAIN)
    game_id = new_game(embedded.db)
    address, command, answer, number = reply_for(embedded.db, settings, game_id)
    down = Database("postgresql+psycopg://postgres@127.0.0.1:9/nowhere", connect_args={"connect_timeout": 2})
    message = letter(address, command)
    for db, expected in ((down, 451), (embedded.db, None)):  # then the database is back: the retry is applied
        listener = Listener(settings, db, queue=Queue(settings))
        listener.controller.start()
        try:
            with smtplib.SMTP(HOST, listener.port, timeout=10) as smtp:
                if expected is None:
                    assert smtp.send_message(message) == {}
                else:
                    with pytest.raises(smtplib.SMTPDataError) as failed:
                        smtp.send_message(message)
                    assert failed.value.smtp_code == expected
        finally:
            listener.controller.stop()
    down.dispose()
    assert inbound_statuses(embedded.db) == ["applied"]
    assert window_answer(embedded.db, game_id, number)[1] == answer


# --- deadmail inbound, as a process ---------------------------------------------------------------------------------


def test_deadmail_inbound_listens_and_applies_a_reply(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        "DEADMAIL_DATA_DIR": str(tmp_path / "data"),
        "DEADMAIL_SECRET_KEY": "inbound-secret",
        "DEADMAIL_REPLY_DOMAIN": DOMAIN,
    }
    settings = Settings.from_env(env)
    upgrade(settings.database_url)
    db = Database(settings.database_url)
    try:
        game_id = new_game(db)
        address, command, answer, number = reply_for(db, settings, game_id)
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
            assert smtp.send_message(letter(address, f"{command}\nthe-secret-body")) == {}
        line = process.stdout.readline()
        assert line.strip() == "inbound 1: applied"
    finally:
        process.terminate()
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "the-secret-body" not in out + err
    db = Database(settings.database_url)
    try:
        assert window_answer(db, game_id, number)[1] == answer
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


def _webhook_stack(stack: Any) -> Settings:
    settings: Settings = replace(stack.settings, reply_domain=DOMAIN)
    stack.app.extensions["deadmail"].settings = settings
    return settings


def test_the_webhook_takes_raw_mail_with_the_recipient_in_a_header_or_the_query(stack: Any) -> None:
    settings = _webhook_stack(stack)
    game_id = new_game(stack.db)
    address, command, answer, number = reply_for(stack.db, settings, game_id)
    raw = letter("undisclosed-recipients:;", command).as_bytes()
    headers = {**AUTH, "Content-Type": "message/rfc822"}
    by_header = stack.client.post("/inbound/mail", data=raw, headers={**headers, "X-Original-To": address})
    assert by_header.status_code == 200 and by_header.json == {"ok": True, "status": "applied"}
    assert window_answer(stack.db, game_id, number)[1] == answer
    again = stack.client.post("/inbound/mail", data=raw, headers=headers, query_string={"to": address})
    assert again.json == {"ok": True, "status": "duplicate"}
    other = letter("undisclosed-recipients:;", "PLACE NOBODY 9").as_bytes()
    by_query = stack.client.post("/inbound/mail", data=other, headers=headers, query_string={"to": address})
    assert by_query.json == {"ok": True, "status": "error"}
    assert inbound_statuses(stack.db) == ["applied", "error"]


def test_the_webhook_takes_json(stack: Any) -> None:
    settings = _webhook_stack(stack)
    game_id = new_game(stack.db)
    address, command, answer, number = reply_for(stack.db, settings, game_id, pick=-1)
    body = {
        "to": address,
        "from": "Ann <ann@example.org>",
        "subject": "Re: your turn",
        "text": f"{command}\n\nOn Sunday deadmail wrote:\n> PASS\n",
        "message_id": "<json-1@example.org>",
    }
    reply = stack.client.post("/inbound/mail", json=body, headers=AUTH)
    assert reply.status_code == 200 and reply.json == {"ok": True, "status": "applied"}
    assert window_answer(stack.db, game_id, number)[1] == answer
    auto = {**body, "message_id": "<json-2@example.org>", "headers": {"Auto-Submitted": "auto-replied"}}
    assert stack.client.post("/inbound/mail", json=auto, headers=AUTH).json == {"ok": True, "status": "ignored"}
    for bad in ({"to": 3}, {"to": address, "from": "a\nb"}, {"to": address, "text": ["x"]}, [1, 2]):
        refused = stack.client.post("/inbound/mail", json=bad, headers=AUTH)
        assert refused.status_code == 400 and refused.json["ok"] is False
    assert inbound_statuses(stack.db) == ["applied", "ignored"]


@pytest.mark.parametrize(
    "headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "test-api-token"}, {"Authorization": ""}]
)
def test_the_webhook_refuses_without_the_token(embedded: Any, headers: dict[str, str]) -> None:
    settings = _webhook_stack(embedded)
    game_id = new_game(embedded.db)
    address, command, _, number = reply_for(embedded.db, settings, game_id)
    reply = embedded.client.post(
        "/inbound/mail", json={"to": address, "from": "ann@example.org", "text": command}, headers=headers
    )
    assert reply.status_code == 401 and reply.json["ok"] is False
    assert inbound_statuses(embedded.db) == []
    assert window_answer(embedded.db, game_id, number) == ("open", None)


def test_the_webhook_limits_size_kind_and_rate(embedded: Any) -> None:
    _webhook_stack(embedded)
    embedded.app.config["DEADMAIL_INBOUND_PER_MINUTE"] = 4
    big = b"Subject: x\r\n\r\n" + b"x" * (1024 * 1024 + 1)
    headers = {**AUTH, "Content-Type": "message/rfc822"}
    too_big = embedded.client.post("/inbound/mail", data=big, headers=headers, query_string={"to": f"a@{DOMAIN}"})
    assert too_big.status_code == 413 and "1 MiB" in too_big.json["error"]
    # between the app's 64 KiB and 1 MiB: taken by this route
    mid = b"From: a@example.org\r\nSubject: x\r\n\r\n" + b"x" * (200 * 1024)
    taken = embedded.client.post("/inbound/mail", data=mid, headers=headers, query_string={"to": f"a@{DOMAIN}"})
    assert taken.status_code == 200 and taken.json["status"] == "forged"  # read: an address we never signed
    plain = embedded.client.post("/inbound/mail", data=b"hello", headers={**AUTH, "Content-Type": "text/plain"})
    assert plain.status_code == 415
    codes = [
        embedded.client.post("/inbound/mail", data=b"x", headers={**AUTH, "Content-Type": "text/plain"}).status_code
        for _ in range(3)
    ]
    assert codes == [415, 429, 429]  # three calls were made before in this minute
    assert json.loads(embedded.client.post("/inbound/mail", headers=AUTH).data)["ok"] is False
