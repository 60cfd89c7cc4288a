"""Mail over real SMTP: the outbox sends through ``server.mail.transports.SMTPTransport`` to an aiosmtpd
server running in the test, plain, with AUTH, with STARTTLS and with implicit TLS (a self-signed certificate made
here). A server that refuses, is down, or drops the connection mid-session leaves the row pending with its back-off;
once the server accepts, the mail arrives exactly once. Time is injected (``now=``), never slept."""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import ipaddress
import re
import ssl
from collections.abc import Iterator
from dataclasses import dataclass, replace
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import quote

import dkim
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from server.config import Settings, parse_smtp_url
from server.db import Database
from server.mail import compose as composing
from server.mail.send import send_one
from server.mail.transports import FileTransport, SMTPTransport, transport_for
from server.models import Outbox, OutboxStatus, Player, utcnow
from server.services import claims
from server.services.links import read_token
from server.services.mailflow import outbox
from server.services.mailflow.outbox import due_rows
from tests.conftest import Stack
from tests.support import (
    FROM,
    T0,
    compose,
    create,
    free_port,
    mail_settings,
    outbox_ids,
    play_window,
    rows_of,
    seat_of,
    text_of,
)
from tests.waiting import wait_for

HOST = "127.0.0.1"
USER = "mailer@example.org"
PASSWORD = "p@ss/w:rd %"  # needs percent-encoding in the URL
LINK = re.compile(r"http://deadmail\.test/[sp]/(?P<token>[\w.-]+)")  # seat and preferences links
ERROR_REFUSED = "SMTPDataError: (451, b'4.3.0 try later')"


class SmtpHandler:
    """An aiosmtpd handler that keeps what it accepted; ``mode`` makes it refuse or drop the connection."""

    def __init__(self) -> None:
        self.mode = "accept"  # or refuse_rcpt, refuse_data, drop, drop_after_accept
        self.accepted: list[tuple[str, list[str], bytes, bool]] = []
        self.data_seen = 0
        #: every mail transmitted with DATA, accepted or not
        self.seen: list[bytes] = []
        self.quits = 0

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: list[str]) -> str:
        if self.mode == "refuse_rcpt":
            return "451 4.3.0 try later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.data_seen += 1
        self.seen.append(envelope.content)
        if self.mode == "refuse_data":
            return "451 4.3.0 try later"
        if self.mode == "drop":  # the whole mail was transmitted, but the server goes away before saying 250
            server.transport.abort()
            return "421 4.3.0 gone"
        self.accepted.append(
            (envelope.mail_from, list(envelope.rcpt_tos), envelope.content, bool(session.authenticated))
        )
        if self.mode == "drop_after_accept":  # the 250 goes out first, then the connection is cut before QUIT
            asyncio.get_running_loop().call_soon(server.transport.abort)
        return "250 2.0.0 queued"

    async def handle_QUIT(self, server: Any, session: Any, envelope: Any) -> str:
        self.quits += 1
        return "221 Bye"


def check_password(server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any) -> AuthResult:
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (
        USER.encode(),
        PASSWORD.encode(),
    )
    return AuthResult(success=ok, handled=False)


@dataclass
class Certificate:
    cert: Path
    key: Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, self.key)
        return context

    def client_context(self) -> ssl.SSLContext:
        """Trusts this certificate only; the host name (127.0.0.1) is checked against it."""
        return ssl.create_default_context(cafile=str(self.cert))


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    """A self-signed certificate for 127.0.0.1 and localhost."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "deadmail test smtp")])
    now = dt.datetime.now(dt.UTC)  # TLS checks a certificate against the real clock
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address(HOST))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder = tmp_path_factory.mktemp("tls")
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return Certificate(folder / "cert.pem", folder / "key.pem")


class Servers:
    """Starts aiosmtpd servers on free ports for one test and stops them all afterwards."""

    def __init__(self) -> None:
        self.running: list[Controller] = []

    def start(self, port: int | None = None, **kwargs: Any) -> tuple[SmtpHandler, int]:
        handler = SmtpHandler()
        port = port or free_port()
        controller = Controller(handler, hostname=HOST, port=port, **kwargs)
        controller.start()
        self.running.append(controller)
        return handler, port

    def stop_all(self) -> None:
        while self.running:
            self.running.pop().stop()


@pytest.fixture
def servers() -> Iterator[Servers]:
    running = Servers()
    yield running
    running.stop_all()


def new_game(db: Database, seed: int) -> tuple[int, list[int]]:
    """A game of three people (P0 <p0@example.org> …) created at T0: its id and its first mails' outbox rows."""
    game_id = create(db, 3, seed=seed).game_id
    ids = outbox_ids(db, game_id)
    assert len(ids) == 3
    return game_id, ids


def row_state(db: Database, row_id: int) -> tuple[str, int, dt.datetime, str | None]:
    """The row's status, attempts, next attempt and last error."""
    (r,) = rows_of(db, [row_id])
    return r.status, r.attempts, r.next_attempt_at, r.last_error


def recipient(db: Database, row_id: int) -> str:
    with db.session() as session:
        email: str = session.execute(
            select(Player.email).join(Outbox, Outbox.player_id == Player.id).where(Outbox.id == row_id)
        ).scalar_one()
        return email


def parse(raw: bytes) -> EmailMessage:
    parsed = message_from_bytes(raw.replace(b"\r\n", b"\n"), policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def test_a_mail_from_the_outbox_arrives_once_with_its_headers_and_body(embedded: Stack, servers: Servers) -> None:
    db = embedded.db
    handler, port = servers.start()
    game_id, ids = new_game(db, seed=41)
    transport = SMTPTransport.from_url(f"smtp://{HOST}:{port}")
    settings = mail_settings(embedded.settings)
    expected = {i: compose(db, i, settings, now=T0) for i in ids}

    results = [send_one(db, i, transport, settings, T0) for i in ids]

    assert results == ["sent"] * len(ids)
    assert len(handler.accepted) == len(ids)
    for row, (mail_from, rcpt_tos, raw, authenticated) in zip(rows_of(db, ids), handler.accepted, strict=True):
        to = recipient(db, row.id)
        assert (mail_from, rcpt_tos, authenticated) == ("games@deadmail.example", [to], False)
        got, want = parse(raw), expected[row.id]
        assert want is not None
        assert got["From"] == FROM
        assert got["To"] == want["To"]
        assert to in got["To"]
        assert got["Subject"] == want["Subject"]
        subject = rf"Mall of Horror, game {game_id}: Place a character — by \w{{3}} \d\d:\d\d"
        assert re.fullmatch(subject, got["Subject"])
        # a seat's first mail starts its thread (server/mail/headers.py)
        assert got["Message-ID"] == f"<deadmail.game-{game_id}.seat-{row.seat_id}@deadmail.example>"
        # the seat link is signed with a timestamp, so it may differ from the one composed above: compare it apart
        text, link = LINK.sub("<link>", text_of(got)), LINK.search(text_of(got))
        assert text == LINK.sub("<link>", text_of(want))
        assert link is not None
        assert read_token(embedded.settings.secret_key, link["token"], 3600)[0] == row.seat_id
        assert row_state(db, row.id)[:2] == ("sent", 1)
    # sent rows are never sent again
    again = [send_one(db, i, transport, settings, T0 + dt.timedelta(hours=1)) for i in ids]
    assert again == ["skipped"] * len(ids)
    assert len(handler.accepted) == len(ids)


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS:UserWarning")
def test_auth_with_a_percent_encoded_user_and_password(embedded: Stack, servers: Servers) -> None:
    db = embedded.db
    handler, port = servers.start(auth_required=True, auth_require_tls=False, authenticator=check_password)
    row_id = new_game(db, seed=42)[1][0]
    settings = mail_settings(embedded.settings)

    wrong = SMTPTransport.from_url(f"smtp://{quote(USER, safe='')}:wrong@{HOST}:{port}")
    assert send_one(db, row_id, wrong, settings, T0) == "retry"
    status, attempts, next_at, error = row_state(db, row_id)
    assert (status, attempts, next_at) == ("pending", 1, T0 + dt.timedelta(seconds=30))
    assert error is not None and error.startswith("SMTPAuthenticationError: (535, ")
    assert handler.accepted == []

    url = f"smtp://{quote(USER, safe='')}:{quote(PASSWORD, safe='')}@{HOST}:{port}"
    assert (parse_smtp_url(url).user, parse_smtp_url(url).password) == (USER, PASSWORD)
    right = SMTPTransport.from_url(url)
    assert send_one(db, row_id, right, settings, T0 + dt.timedelta(seconds=30)) == "sent"
    assert [(a[1], a[3]) for a in handler.accepted] == [([recipient(db, row_id)], True)]


def test_starttls_with_a_self_signed_certificate(embedded: Stack, servers: Servers, certificate: Certificate) -> None:
    db = embedded.db
    handler, port = servers.start(
        tls_context=certificate.server_context(),
        require_starttls=True,
        auth_required=True,
        authenticator=check_password,  # auth_require_tls stays on: AUTH only after STARTTLS
    )
    first, second = new_game(db, seed=43)[1][:2]
    settings = mail_settings(embedded.settings)
    url = f"smtp://{quote(USER, safe='')}:{quote(PASSWORD, safe='')}@{HOST}:{port}?starttls=1"

    untrusted = SMTPTransport.from_url(url)  # the system's CAs do not know this certificate
    assert send_one(db, first, untrusted, settings, T0) == "retry"
    assert str(row_state(db, first)[3]).startswith("SSLCertVerificationError: ")
    plain = SMTPTransport.from_url(url.replace("?starttls=1", ""))  # the server requires STARTTLS
    assert send_one(db, second, plain, settings, T0) == "retry"
    assert row_state(db, second)[:2] == ("pending", 1)
    assert handler.accepted == []

    trusted = SMTPTransport.from_url(url, ssl_context=certificate.client_context())
    later = T0 + dt.timedelta(seconds=30)
    assert [send_one(db, i, trusted, settings, later) for i in (first, second)] == ["sent", "sent"]
    assert [(a[1], a[3]) for a in handler.accepted] == [
        ([recipient(db, first)], True),
        ([recipient(db, second)], True),
    ]


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS:UserWarning")
def test_implicit_tls(embedded: Stack, servers: Servers, certificate: Certificate) -> None:
    db = embedded.db
    # aiosmtpd counts only STARTTLS as TLS for auth_require_tls; the whole connection is TLS here
    handler, port = servers.start(
        ssl_context=certificate.server_context(),
        auth_required=True,
        auth_require_tls=False,
        authenticator=check_password,
    )
    game_id, ids = new_game(db, seed=44)
    row_id = ids[0]
    settings = mail_settings(embedded.settings)
    url = f"smtps://{quote(USER, safe='')}:{quote(PASSWORD, safe='')}@{HOST}:{port}"
    transport = SMTPTransport.from_url(url, ssl_context=certificate.client_context())

    plain = SMTPTransport.from_url(url.replace("smtps://", "smtp://") + "?timeout=1")  # waits for a greeting
    assert send_one(db, row_id, plain, settings, T0) == "retry"
    assert row_state(db, row_id)[3] == "SMTPServerDisconnected: Connection unexpectedly closed: timed out"
    later = T0 + dt.timedelta(seconds=30)
    assert send_one(db, row_id, transport, settings, later) == "sent"
    assert [(a[1], a[3]) for a in handler.accepted] == [([recipient(db, row_id)], True)]
    assert parse(handler.accepted[0][2])["Subject"].startswith(f"Mall of Horror, game {game_id}: ")


@pytest.mark.parametrize("mode", ["refuse_rcpt", "refuse_data", "drop"])
def test_a_refusing_or_dropping_server_gets_the_mail_once_it_accepts(stack: Stack, servers: Servers, mode: str) -> None:
    db = stack.db
    handler, port = servers.start()
    handler.mode = mode
    ids = new_game(db, seed=45)[1]
    row_id = ids[0]
    transport = SMTPTransport.from_url(f"smtp://{HOST}:{port}?timeout=5")
    settings = mail_settings(stack.settings)

    assert send_one(db, row_id, transport, settings, T0) == "retry"
    status, attempts, next_at, error = row_state(db, row_id)
    assert (status, attempts, next_at) == ("pending", 1, T0 + dt.timedelta(seconds=30))
    expected_error = {
        "refuse_rcpt": f"SMTPRecipientsRefused: {{'{recipient(db, row_id)}': (451, b'4.3.0 try later')}}",
        "refuse_data": ERROR_REFUSED,
        "drop": "SMTPServerDisconnected: Connection unexpectedly closed",
    }
    assert error == expected_error[mode]
    assert handler.data_seen == (0 if mode == "refuse_rcpt" else 1)
    # still refusing at the second try: the back-off doubles
    at = T0 + dt.timedelta(seconds=30)
    assert send_one(db, row_id, transport, settings, at - dt.timedelta(seconds=1)) == "skipped"
    assert send_one(db, row_id, transport, settings, at) == "retry"
    assert row_state(db, row_id)[:3] == ("pending", 2, at + dt.timedelta(seconds=60))
    assert handler.accepted == []

    handler.mode = "accept"
    at += dt.timedelta(seconds=60)
    assert row_id in due_rows(db, at)
    assert send_one(db, row_id, transport, settings, at) == "sent"
    assert row_state(db, row_id)[:2] == ("sent", 3)
    assert len(handler.accepted) == 1
    assert parse(handler.accepted[0][2])["To"].endswith(f"<{recipient(db, row_id)}>")
    assert due_rows(db, at + dt.timedelta(days=1)) == sorted(set(ids) - {row_id})
    assert send_one(db, row_id, transport, settings, at + dt.timedelta(days=1)) == "skipped"
    assert len(handler.accepted) == 1


def test_a_mail_accepted_before_the_connection_drops_is_sent_and_never_again(embedded: Stack, servers: Servers) -> None:
    db = embedded.db
    handler, port = servers.start()
    handler.mode = "drop_after_accept"
    row_id = new_game(db, seed=48)[1][0]
    transport = SMTPTransport.from_url(f"smtp://{HOST}:{port}?timeout=5")
    settings = mail_settings(embedded.settings)

    assert send_one(db, row_id, transport, settings, T0) == "sent"
    assert row_state(db, row_id)[:2] == ("sent", 1)
    assert send_one(db, row_id, transport, settings, T0 + dt.timedelta(hours=1)) == "skipped"
    assert len(handler.accepted) == 1


def test_a_server_that_is_down_gets_the_mail_once_it_is_back(embedded: Stack, servers: Servers) -> None:
    db = embedded.db
    port = free_port()  # nobody listens there yet
    row_id = new_game(db, seed=46)[1][0]
    transport = SMTPTransport.from_url(f"smtp://{HOST}:{port}?timeout=5")
    settings = mail_settings(embedded.settings)

    assert send_one(db, row_id, transport, settings, T0) == "retry"
    status, attempts, next_at, error = row_state(db, row_id)
    assert (status, attempts, next_at) == ("pending", 1, T0 + dt.timedelta(seconds=30))
    assert error == "ConnectionRefusedError: [Errno 111] Connection refused"

    handler, _ = servers.start(port=port)
    at = T0 + dt.timedelta(seconds=30)
    assert send_one(db, row_id, transport, settings, at) == "sent"
    assert send_one(db, row_id, transport, settings, at + dt.timedelta(hours=1)) == "skipped"
    assert len(handler.accepted) == 1
    assert row_state(db, row_id)[:2] == ("sent", 2)


def test_the_worker_sends_the_outbox_through_smtp_with_the_configured_sender(stack: Stack, servers: Servers) -> None:
    """worker/tasks.py builds its transport with transport_for and its From from DEADMAIL_MAIL_FROM."""
    from celery.contrib.testing.worker import start_worker

    from worker.app import make_celery

    db = stack.db
    handler, port = servers.start()
    settings = replace(stack.settings, smtp_url=f"smtp://{HOST}:{port}", mail_from=FROM)
    ids = new_game(db, seed=47)[1]
    app = make_celery(settings)
    with start_worker(app, pool="threads", concurrency=1, perform_ping_check=False, loglevel="WARNING"):
        app.send_task("deadmail.sweep", kwargs={"now": T0.isoformat()})
        wait_for(
            lambda: all(r.status == OutboxStatus.SENT for r in rows_of(db, ids)), timeout=20, what="the sweep's mail"
        )
    assert sorted(a[1][0] for a in handler.accepted) == sorted(recipient(db, i) for i in ids)
    assert {parse(a[2])["From"] for a in handler.accepted} == {FROM}
    assert [row_state(db, i)[:2] for i in ids] == [("sent", 1)] * len(ids)
    assert list(settings.mail_dir.glob("*.eml")) == []


def test_transport_for_and_the_settings(tmp_path: Path) -> None:
    base = {"DEADMAIL_DATA_DIR": str(tmp_path), "DEADMAIL_SECRET_KEY": "k", "DEADMAIL_API_TOKEN": "t"}
    embedded = Settings.from_env(base)
    assert (embedded.smtp_url, embedded.mail_from, embedded.reply_domain) == (
        "",
        "deadmail <deadmail@localhost>",
        "reply.localhost",  # mail in files: replies are written on the mailbox page
    )
    files = transport_for(embedded)
    assert isinstance(files, FileTransport)
    assert files.folder == tmp_path / "mail"

    configured = Settings.from_env(
        {
            **base,
            "DEADMAIL_SMTP_URL": "smtps://ann%40example.org:s%3Acret@mail.example.org?timeout=7",
            "DEADMAIL_MAIL_FROM": FROM,
            "DEADMAIL_REPLY_DOMAIN": "Reply.Example.org",
        }
    )
    assert (configured.mail_from, configured.reply_domain) == (FROM, "reply.example.org")
    smtp = transport_for(configured)
    assert isinstance(smtp, SMTPTransport)
    c = smtp.config
    assert (c.host, c.port, c.implicit_tls, c.starttls, c.user, c.password, c.timeout) == (
        "mail.example.org",
        465,
        True,
        False,
        "ann@example.org",
        "s:cret",
        7.0,
    )
    assert "s:cret" not in repr(smtp)
    plain = parse_smtp_url("smtp://mail.example.org")
    assert (plain.port, plain.implicit_tls, plain.starttls, plain.user, plain.timeout) == (25, False, False, "", 30.0)
    assert parse_smtp_url("smtp://mail.example.org?starttls=1").port == 587


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://mail.example.org", "the scheme must be smtp:// or smtps://, not 'http'"),
        ("smtp://", "no host"),
        ("smtp://mail.example.org:port", "the port must be a number from 1 to 65535"),
        ("smtp://mail.example.org:70000", "the port must be a number from 1 to 65535"),
        ("smtp://mail.example.org?tls=1", "unknown parameter 'tls'"),
        ("smtp://mail.example.org?starttls=maybe", "starttls must be 1 or 0, not 'maybe'"),
        ("smtps://mail.example.org?starttls=1", "smtps:// is already TLS"),
        ("smtp://mail.example.org?timeout=soon", "timeout must be a number of seconds above 0, not 'soon'"),
        ("smtp://ann@mail.example.org", "the user 'ann' has no password"),
        ("smtp://:secret@mail.example.org", "a password is given without a user"),
        ("smtp://ann:p%C3%A4ss@mail.example.org", "user and password must be ASCII"),
    ],
)
def test_a_bad_url_stops_the_start_with_a_clear_error(tmp_path: Path, url: str, problem: str) -> None:
    env = {"DEADMAIL_DATA_DIR": str(tmp_path), "DEADMAIL_SECRET_KEY": "k", "DEADMAIL_API_TOKEN": "t"}
    with pytest.raises(ValueError, match=r"^DEADMAIL_SMTP_URL: ") as raised:
        Settings.from_env({**env, "DEADMAIL_SMTP_URL": url})
    assert problem in str(raised.value)


# --- one Message-ID per row; the accepted -> sent step -----------------------------------------------------------


def message_id(raw: bytes) -> str:
    return str(parse(raw)["Message-ID"])


def db_failure() -> OperationalError:
    return OperationalError("UPDATE outbox SET status=...", {}, Exception("server closed the connection unexpectedly"))


def test_every_attempt_at_a_row_sends_the_same_message_id(stack: Stack, servers: Servers) -> None:
    """The Message-ID depends on the row alone: a seat's first mail has the seat's thread root, a later one a keyed
    digest of its row that tells nothing (neither changes from one attempt to the next)."""
    db = stack.db
    handler, port = servers.start()
    game_id, ids = new_game(db, seed=49)
    transport = SMTPTransport.from_url(f"smtp://{HOST}:{port}?timeout=5")
    settings = mail_settings(stack.settings)
    (first,) = rows_of(db, ids[:1])
    root = f"<deadmail.game-{game_id}.seat-{first.seat_id}@deadmail.example>"

    def refused_then_sent(row_id: int, at: dt.datetime) -> None:
        handler.mode = "refuse_data"
        assert send_one(db, row_id, transport, settings, at) == "retry"
        handler.mode = "accept"
        assert send_one(db, row_id, transport, settings, at + dt.timedelta(seconds=30)) == "sent"

    refused_then_sent(first.id, T0)
    later = play_window(db, game_id, seed=3, now=T0 + dt.timedelta(hours=1))
    second = next(r for r in rows_of(db, later) if r.seat_id == first.seat_id)
    refused_then_sent(second.id, T0 + dt.timedelta(hours=1))
    assert len(handler.seen) == 4 and len(handler.accepted) == 2
    ids_sent = [message_id(raw) for raw in handler.seen]
    assert ids_sent[0] == ids_sent[1] == root
    assert ids_sent[2] == ids_sent[3] != root
    assert re.fullmatch(r"<[0-9a-f]{32}@deadmail\.example>", ids_sent[2])
    reply = parse(handler.accepted[1][2])
    assert (reply["In-Reply-To"], reply["References"]) == (root, root)


def test_a_mail_accepted_but_not_recorded_is_sent_again_later_with_the_same_message_id(
    stack: Stack, servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The row is marked sent after DATA was accepted and before QUIT; when the database fails just then, the row
    stays claimed, is released after STUCK_AFTER and sent again with the same Message-ID (at least once)."""
    db = stack.db
    handler, port = servers.start()
    row_id = new_game(db, seed=50)[1][0]
    (row,) = rows_of(db, [row_id])
    transport = SMTPTransport.from_url(f"smtp://{HOST}:{port}?timeout=5")
    settings = mail_settings(stack.settings)
    record = outbox.sent
    marks: list[tuple[int, int]] = []

    def failing_mark(*args: Any) -> None:
        marks.append((len(handler.accepted), handler.quits))
        if len(marks) == 1:
            raise db_failure()
        record(*args)

    monkeypatch.setattr(outbox, "sent", failing_mark)
    assert send_one(db, row_id, transport, settings, T0) == "unrecorded"
    assert marks == [(1, 0)]  # marked once the server had accepted, before QUIT
    wait_for(lambda: handler.quits == 1, timeout=5, what="QUIT")
    assert row_state(db, row_id)[:2] == ("sending", 1)
    assert seat_of(db, row.seat_id or 0).told_events is None  # nothing recorded

    stuck = T0 + outbox.STUCK_AFTER
    assert row_id not in due_rows(db, stuck - dt.timedelta(seconds=1))
    assert send_one(db, row_id, transport, settings, stuck - dt.timedelta(seconds=1)) == "skipped"
    assert row_id in due_rows(db, stuck)
    assert send_one(db, row_id, transport, settings, stuck) == "sent"
    assert marks == [(1, 0), (2, 1)]
    assert row_state(db, row_id)[:2] == ("sent", 2)
    assert seat_of(db, row.seat_id or 0).told_events
    first, again = (message_id(a[2]) for a in handler.accepted)
    assert first == again
    assert send_one(db, row_id, transport, settings, stuck + dt.timedelta(hours=1)) == "skipped"
    assert len(handler.accepted) == 2


def test_a_row_claimed_late_in_a_long_sweep_is_not_released_while_its_sender_works(stack: Stack) -> None:
    """A sweep that started long ago (a slow SMTP server) claims its rows at the time of the claim: the next sweep
    does not take a row as stuck and send it a second time while the first sender still works on it."""
    db = stack.db
    row_id = new_game(db, seed=52)[1][0]
    started = utcnow() - 2 * outbox.STUCK_AFTER  # the sweep's ``now``, fixed at its start
    with db.session() as session:
        session.get(Outbox, row_id).next_attempt_at = started  # type: ignore[union-attr]
    assert outbox.claim(db, row_id, started)
    assert row_id not in due_rows(db, utcnow())  # still being sent: not released
    assert row_state(db, row_id)[:2] == ("sending", 1)


def test_a_mail_written_again_to_files_replaces_its_first_copy(
    embedded: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = embedded.db
    row_id = new_game(db, seed=51)[1][0]
    transport = FileTransport(embedded.settings.mail_dir)
    settings = embedded.settings
    record = outbox.sent
    calls: list[int] = []

    def failing_mark(*args: Any) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise db_failure()
        record(*args)

    monkeypatch.setattr(outbox, "sent", failing_mark)
    assert send_one(db, row_id, transport, settings, T0) == "unrecorded"
    assert row_id in due_rows(db, T0 + outbox.STUCK_AFTER)
    assert send_one(db, row_id, transport, settings, T0 + outbox.STUCK_AFTER) == "sent"
    assert len(list(settings.mail_dir.glob("*.eml"))) == 1


def test_a_bug_in_composing_counts_toward_the_attempt_limit_and_the_row_ends_failed(
    stack: Stack, servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only network and SMTP errors: any failure is a try, retried with back-off, and failed for good after
    ``MAX_ATTEMPTS`` (never a row claimed and released for ever)."""
    db = stack.db
    handler, port = servers.start()
    row_id = new_game(db, seed=52)[1][0]
    transport = SMTPTransport.from_url(f"smtp://{HOST}:{port}?timeout=5")
    settings = mail_settings(stack.settings)

    def broken(*_args: Any) -> None:
        raise ValueError("a bug in composing")

    monkeypatch.setattr(composing, "_compose_row", broken)  # each row of a batch is composed there
    at = T0
    for attempt in range(1, outbox.MAX_ATTEMPTS + 1):
        assert row_id in due_rows(db, at)
        expected = "failed" if attempt == outbox.MAX_ATTEMPTS else "retry"
        assert send_one(db, row_id, transport, settings, at) == expected
        status, attempts, _next_at, error = row_state(db, row_id)
        assert (status, attempts) == (expected.replace("retry", "pending"), attempt)
        assert error == "ValueError: a bug in composing"
        at += claims.backoff(attempt)
    assert row_id not in due_rows(db, at + dt.timedelta(days=30))
    assert send_one(db, row_id, transport, settings, at + dt.timedelta(days=30)) == "skipped"
    assert handler.seen == []


def _dkim_key(tmp_path: Path) -> tuple[Path, bytes]:
    """A new RSA key: its PEM file, and its DNS TXT record (``v=DKIM1; k=rsa; p=…``)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    path = tmp_path / "dkim.pem"
    path.write_bytes(pem)
    public = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return path, b"v=DKIM1; k=rsa; p=" + base64.b64encode(public)


def test_dkim_signed_mail_arrives_and_verifies_against_the_published_key(
    embedded: Stack, servers: Servers, tmp_path: Path
) -> None:
    """Issue 31: with DEADMAIL_DKIM_* every mail is signed; what the SMTP server received verifies with dkimpy's own
    verifier against the key as DNS would publish it (``mail._domainkey.deadmail.example``), and fails once a signed
    header or the body is changed."""
    db = embedded.db
    handler, port = servers.start()
    _game_id, ids = new_game(db, seed=43)
    key_file, record = _dkim_key(tmp_path)
    settings = replace(
        mail_settings(embedded.settings),
        dkim_selector="mail",
        dkim_domain="deadmail.example",
        dkim_key_file=str(key_file),
    )
    transport = SMTPTransport.from_url(f"smtp://{HOST}:{port}")
    assert [send_one(db, i, transport, settings, T0) for i in ids] == ["sent"] * len(ids)

    def published(name: bytes, timeout: int = 5) -> bytes | None:
        return record if name == b"mail._domainkey.deadmail.example." else None

    for _from, _to, raw, _auth in handler.accepted:
        signature = parse(raw)["DKIM-Signature"]
        assert "d=deadmail.example" in signature and "s=mail" in signature and "c=relaxed/relaxed" in signature
        for header in ("from", "to", "subject", "message-id", "list-unsubscribe"):
            assert header in signature.split("h=", 1)[1].split(";", 1)[0].lower()
        assert dkim.verify(raw, dnsfunc=published)
        assert not dkim.verify(raw.replace(b"Subject: ", b"Subject: Re: ", 1), dnsfunc=published)
        assert not dkim.verify(raw.replace(b"Mall of Horror", b"Mall of Terror"), dnsfunc=published)
    # without the settings, mail goes unsigned
    handler.accepted.clear()
    _game, more = new_game(db, seed=44)
    assert send_one(db, more[0], transport, mail_settings(embedded.settings), T0) == "sent"
    assert parse(handler.accepted[0][2])["DKIM-Signature"] is None


def test_dkim_settings_come_together_or_not_at_all(tmp_path: Path) -> None:
    key_file, _record = _dkim_key(tmp_path)
    env = {"DEADMAIL_DATA_DIR": str(tmp_path / "data"), "DEADMAIL_DKIM_SELECTOR": "mail"}
    with pytest.raises(ValueError, match="together"):
        Settings.from_env(env)
    env |= {"DEADMAIL_DKIM_DOMAIN": "Deadmail.Example", "DEADMAIL_DKIM_KEY_FILE": str(tmp_path / "missing.pem")}
    with pytest.raises(ValueError, match="no such file"):
        Settings.from_env(env)
    settings = Settings.from_env(env | {"DEADMAIL_DKIM_KEY_FILE": str(key_file)})
    assert (settings.dkim_selector, settings.dkim_domain) == ("mail", "deadmail.example")
