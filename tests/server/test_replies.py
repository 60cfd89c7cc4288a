"""Replies by mail (server/services/replies.py) against real games: a reply is applied exactly as the web applies
an answer, once however often it is delivered; quoted text and signatures are ignored; Italian and Polish players
use their own words; forged, revoked, wrong-sender, late, automatic and hostile mail changes nothing."""

from __future__ import annotations

import logging
import unicodedata
from dataclasses import dataclass, replace
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from server.commands import CommandError, commands_for, parse_reply
from server.models import Game, InboundMail, Outbox, Player, RequestRow, Seat, Window
from server.services import games, replies, reply_address, turns
from server.services.links import seat_token
from server.services.seats import rotate_link, seat_view

DOMAIN = "reply.deadmail.test"
PEOPLE = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")]
AUTH = {"Authorization": "Bearer test-api-token"}
SECRET_BODY = "the-body-must-never-be-logged"


@dataclass
class Table:
    """A game of three people and what a test needs to reply in it."""

    stack: Any
    settings: Any
    game_id: int
    seats: dict[str, int]
    emails: dict[str, str]
    kicks: list[int]

    @property
    def db(self) -> Any:
        return self.stack.db

    def owed(self, colour: str) -> tuple[int, dict[str, Any], dict[str, Any]]:
        """The open window's number, the seat's request and the seat's view."""
        state = seat_view(self.db, self.seats[colour])
        assert state["window"] is not None and state["window"]["request"] is not None
        return state["window"]["number"], state["window"]["request"], state["view"]

    def address(self, colour: str, window: int | None = None, generation: int = 1) -> str:
        number = window if window is not None else self.owed(colour)[0]
        return reply_address.make(self.settings.secret_key, DOMAIN, self.seats[colour], number, generation)

    def receive(self, raw: bytes, recipients: list[str], **kw: Any) -> replies.Received:
        return replies.receive(self.db, self.settings, raw, recipients, self.kicks.append, **kw)


def new_table(stack: Any, seed: int = 7, languages: dict[str, str] | None = None, prefix: str = "") -> Table:
    spec = games.GameSpec(
        players=[games.PlayerSpec(name=n, email=f"{prefix}{e}") for n, e in PEOPLE],
        seed=seed,
    )
    created = games.create_game(stack.db, spec)
    with stack.db.session() as session:
        seats = session.execute(sa.select(Seat).where(Seat.game_id == created.game_id)).scalars().all()
        for seat in seats:
            assert seat.player is not None
            seat.player.language = (languages or {}).get(seat.colour, "en")
        by_colour = {s.colour: s.id for s in seats}
        emails = {s.colour: s.player.email for s in seats if s.player is not None}
    return Table(stack, replace(stack.settings, reply_domain=DOMAIN), created.game_id, by_colour, emails, [])


def letter(
    sender: str,
    to: str,
    body: str,
    *,
    message_id: str | None = None,
    headers: dict[str, str] | None = None,
    html: str | None = None,
) -> bytes:
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


def snapshot(db: Any, game_id: int) -> dict[str, Any]:
    """Everything a reply could change in a game: its version, windows, answers and outbox rows."""
    with db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        windows = session.execute(sa.select(Window.id, Window.status).where(Window.game_id == game_id)).all()
        rows = session.execute(
            sa.select(RequestRow.id, RequestRow.answer, RequestRow.answered_at)
            .join(Window, Window.id == RequestRow.window_id)
            .where(Window.game_id == game_id)
        ).all()
        mail = session.execute(sa.select(Outbox.id).order_by(Outbox.id)).scalars().all()
        return {"version": game.version, "windows": sorted(windows), "rows": sorted(rows), "outbox": list(mail)}


def answer_of(db: Any, seat_id: int) -> Any:
    with db.session() as session:
        row = session.execute(
            sa.select(RequestRow)
            .join(Window, Window.id == RequestRow.window_id)
            .where(RequestRow.seat_id == seat_id, Window.status == "open")
        ).scalar_one()
        return row.answer if row.answered_at is not None else None


def reply_rows(db: Any) -> list[Outbox]:
    with db.session() as session:
        return list(session.execute(sa.select(Outbox).where(Outbox.kind == "reply").order_by(Outbox.id)).scalars())


def inbound(db: Any, inbound_id: int) -> InboundMail:
    with db.session() as session:
        row = session.get(InboundMail, inbound_id)
        assert row is not None
        return row


def player_id(db: Any, seat_id: int) -> int:
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None and seat.player_id is not None
        return seat.player_id


# --- applied --------------------------------------------------------------------------------------------------------


def test_a_reply_applies_the_answer_exactly_as_the_web_path_would(stack: Any) -> None:
    by_mail = new_table(stack, seed=11)
    by_web = new_table(stack, seed=11, prefix="web-")
    number, request, view = by_mail.owed("yellow")
    command = commands_for(request, view, "en")[-1]
    expected = parse_reply(command, request, view, "en")
    before = snapshot(stack.db, by_mail.game_id)

    got = by_mail.receive(
        letter("Ann <ANN@Example.ORG>", by_mail.address("yellow"), f"{command.lower()}\n"), [by_mail.address("yellow")]
    )

    assert got.status == "applied"
    # the web path, on a twin game: the same request answered through the API
    token = seat_token(stack.settings.secret_key, by_web.seats["yellow"], 1)
    reply = stack.client.post(f"/api/seat/{token}/answer", json={"kind": request["kind"], "answer": expected})
    assert reply.status_code == 200, reply.json
    assert answer_of(stack.db, by_mail.seats["yellow"]) == expected == answer_of(stack.db, by_web.seats["yellow"])
    after = snapshot(stack.db, by_mail.game_id)
    assert after["version"] == before["version"] and after["windows"] == before["windows"]  # stored, not advanced
    [row] = reply_rows(stack.db)
    assert got.outbox_ids == [row.id]
    assert row.key == f"reply:{got.inbound_id}"
    assert row.player_id == player_id(stack.db, by_mail.seats["yellow"]) and row.seat_id == by_mail.seats["yellow"]
    assert row.payload == {"inbound": got.inbound_id, "result": "applied", "window": number, "command": command.lower()}
    record = inbound(stack.db, got.inbound_id or 0)
    assert (record.status, record.seat_id, record.window_number) == ("applied", by_mail.seats["yellow"], number)
    assert record.sender == "ann@example.org"
    assert by_mail.kicks == []  # the others still owe


def test_the_last_reply_owed_kicks_one_advance(stack: Any) -> None:
    table = new_table(stack)
    window_id = None
    for colour in ("yellow", "red", "blue"):
        number, request, view = table.owed(colour)
        to = table.address(colour)
        got = table.receive(letter(table.emails[colour], to, commands_for(request, view, "en")[0]), [to])
        assert got.status == "applied"
    with stack.db.session() as session:
        window_id = session.execute(
            sa.select(Window.id).where(Window.game_id == table.game_id, Window.number == number)
        ).scalar_one()
    assert table.kicks == [window_id]
    assert turns.advance_window(stack.db, window_id) is not None


def test_a_second_delivery_changes_nothing_and_is_not_answered_twice(stack: Any) -> None:
    table = new_table(stack)
    _, request, view = table.owed("yellow")
    options = commands_for(request, view, "en")
    to = table.address("yellow")
    raw = letter(table.emails["yellow"], to, options[0])
    assert table.receive(raw, [to]).status == "applied"
    # the player then changes their mind on the page; the same mail delivered again must not undo it
    web = parse_reply(options[1], request, view, "en")
    turns.submit_answer(stack.db, table.seats["yellow"], request["kind"], web)
    before = snapshot(stack.db, table.game_id)

    again = table.receive(raw, [to])

    assert again.status == "duplicate" and again.outbox_ids == []
    assert snapshot(stack.db, table.game_id) == before
    assert answer_of(stack.db, table.seats["yellow"]) == web
    assert len(reply_rows(stack.db)) == 1


def test_a_message_without_message_id_is_deduplicated_by_its_content(embedded: Any) -> None:
    table = new_table(embedded)
    _, request, view = table.owed("red")
    to = table.address("red")
    raw = letter(table.emails["red"], to, commands_for(request, view, "en")[0])
    raw = b"\r\n".join(line for line in raw.split(b"\n") if not line.lower().startswith(b"message-id")).replace(
        b"\r\r", b"\r"
    )
    assert b"Message-ID" not in raw
    assert table.receive(raw, [to]).status == "applied"
    assert table.receive(raw, [to]).status == "duplicate"
    assert len(reply_rows(embedded.db)) == 1


GMAIL = """{command}

On Sun, 23 Nov 2031 at 14:00, deadmail <games@deadmail.example> wrote:
> It is your turn. Reply with one of these lines:
>     {first}
>     {command}
"""
GMAIL_WRAPPED = """{command}
Thanks!

Ann
--
Ann Example | +39 055 000 000
    {first}
"""
OUTLOOK = """{command}

Sent from my iPhone
"""
OUTLOOK_DESKTOP = """{command}

________________________________
From: deadmail <games@deadmail.example>
Sent: Sunday, 23 November 2031 14:00
To: Ann <ann@example.org>
Subject: Mall of Horror: your turn

Reply with one of these lines:
    {first}
    {command}
"""
GMAIL_HTML = """<div dir="ltr">{command}<br></div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">
On Sun, 23 Nov 2031 at 14:00, deadmail &lt;games@deadmail.example&gt; wrote:<br></div>
<blockquote class="gmail_quote" style="margin:0px">Reply with one of these lines:<br>&nbsp;&nbsp;{first}<br>
</blockquote></div>"""


@pytest.mark.parametrize(
    ("name", "template", "html"),
    [
        ("gmail", GMAIL, False),
        ("signature", GMAIL_WRAPPED, False),
        ("outlook mobile", OUTLOOK, False),
        ("outlook desktop", OUTLOOK_DESKTOP, False),
        ("gmail html only", GMAIL_HTML, True),
    ],
)
def test_quoted_replies_with_signatures_apply_the_players_own_line(
    embedded: Any, name: str, template: str, html: bool
) -> None:
    table = new_table(embedded)
    _, request, view = table.owed("blue")
    options = commands_for(request, view, "en")
    command, first = options[-1], options[0]
    body = template.format(command=command, first=first)
    to = table.address("blue")
    raw = letter(table.emails["blue"], to, body, html=body if html else None)

    got = table.receive(raw, [to])

    assert got.status == "applied", name
    assert answer_of(embedded.db, table.seats["blue"]) == parse_reply(command, request, view, "en")
    assert reply_rows(embedded.db)[0].payload["command"] == command


def bare(text: str) -> str:
    """Lower case without accents, as a player on a phone might type it."""
    text = text.replace("ł", "l").replace("Ł", "L")
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).lower()


@pytest.mark.parametrize("language", ["it", "pl"])
def test_italian_and_polish_players_reply_in_their_own_words(stack: Any, language: str) -> None:
    table = new_table(stack, languages={"yellow": language, "red": language})
    for colour, spell in (("yellow", str), ("red", bare)):
        _, request, view = table.owed(colour)
        command = commands_for(request, view, language)[-1]
        assert command != commands_for(request, view, "en")[-1]
        to = table.address(colour)
        got = table.receive(letter(table.emails[colour], to, spell(command)), [to])
        assert got.status == "applied"
        assert answer_of(stack.db, table.seats[colour]) == parse_reply(command, request, view, language)
    # an English player does not get the Italian or Polish words
    _, request, view = table.owed("blue")
    foreign = commands_for(request, view, language)[0]
    with pytest.raises(CommandError):
        parse_reply(foreign, request, view, "en")
    to = table.address("blue")
    assert table.receive(letter(table.emails["blue"], to, foreign), [to]).status == "error"
    assert answer_of(stack.db, table.seats["blue"]) is None


def test_an_unreadable_command_gets_an_error_reply_and_changes_nothing(stack: Any) -> None:
    table = new_table(stack)
    to = table.address("yellow")
    before = snapshot(stack.db, table.game_id)
    got = table.receive(letter(table.emails["yellow"], to, "PLACE NOBODY 99\nthanks"), [to])
    assert got.status == "error"
    after = snapshot(stack.db, table.game_id)
    assert {k: v for k, v in after.items() if k != "outbox"} == {k: v for k, v in before.items() if k != "outbox"}
    [row] = reply_rows(stack.db)
    assert row.payload["result"] == "error" and row.payload["command"] == "PLACE NOBODY 99"
    assert after["outbox"] == [*before["outbox"], row.id]


# --- refused ---------------------------------------------------------------------------------------------------------


def _forged(table: Table, how: str) -> str:
    good = table.address("yellow")
    local, _, _ = good.partition("@")
    if how == "wrong mac":
        return f"{local[:-1]}{'a' if local[-1] != 'a' else 'b'}@{DOMAIN}"
    if how == "wrong domain":
        return f"{local}@elsewhere.example"
    if how == "other seat":  # the red seat's id with the yellow seat's signature
        parts = local.split("-")
        parts[1] = str(table.seats["red"])
        return "-".join(parts) + f"@{DOMAIN}"
    assert how == "revoked"
    rotate_link(table.db, table.game_id, "yellow")
    return good


@pytest.mark.parametrize("how", ["wrong mac", "wrong domain", "other seat", "revoked"])
def test_a_forged_address_changes_nothing_gets_no_mail_and_is_logged(
    stack: Any, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    table = new_table(stack)
    _, request, view = table.owed("yellow")
    to = _forged(table, how)
    before = snapshot(stack.db, table.game_id)
    with caplog.at_level(logging.INFO, logger="deadmail.replies"):
        got = table.receive(
            letter(table.emails["yellow"], to, f"{commands_for(request, view, 'en')[0]}\n{SECRET_BODY}"), [to]
        )
    assert got.status == "forged" and got.outbox_ids == []
    assert snapshot(stack.db, table.game_id) == before
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings and to in warnings[0].getMessage()
    assert SECRET_BODY not in caplog.text
    assert inbound(stack.db, got.inbound_id or 0).status == "forged"


def test_a_reply_from_another_sender_changes_nothing_and_tells_the_registered_player(stack: Any) -> None:
    table = new_table(stack)
    number, request, view = table.owed("yellow")
    to = table.address("yellow")
    before = snapshot(stack.db, table.game_id)
    got = table.receive(letter("Mallory <mallory@example.net>", to, commands_for(request, view, "en")[0]), [to])
    assert got.status == "wrong_sender"
    [row] = reply_rows(stack.db)
    assert got.outbox_ids == [row.id]
    assert row.player_id == player_id(stack.db, table.seats["yellow"])  # never the sender: no backscatter
    assert row.payload["result"] == "wrong_sender" and row.payload["window"] == number
    assert answer_of(stack.db, table.seats["yellow"]) is None
    after = snapshot(stack.db, table.game_id)
    assert after["rows"] == before["rows"] and after["version"] == before["version"]
    with stack.db.session() as session:
        assert session.execute(sa.select(Player).where(Player.email == "mallory@example.net")).first() is None
    # a flood of such mail tells the player once per window
    again = table.receive(letter("mallory@example.net", to, "PASS"), [to])
    assert again.status == "wrong_sender" and again.outbox_ids == []
    assert len(reply_rows(stack.db)) == 1


def test_a_reply_to_a_closed_window_changes_nothing_and_is_answered_closed(stack: Any) -> None:
    table = new_table(stack)
    old, request, view = table.owed("yellow")
    old_address = table.address("yellow")
    for colour in ("yellow", "red", "blue"):
        _, req, v = table.owed(colour)
        turns.submit_answer(
            stack.db, table.seats[colour], req["kind"], parse_reply(commands_for(req, v, "en")[0], req, v, "en")
        )
    with stack.db.session() as session:
        window_id = session.execute(
            sa.select(Window.id).where(Window.game_id == table.game_id, Window.number == old)
        ).scalar_one()
    turns.advance_window(stack.db, window_id)
    assert table.owed("yellow")[0] != old
    before = snapshot(stack.db, table.game_id)
    got = table.receive(
        letter(table.emails["yellow"], old_address, commands_for(request, view, "en")[-1]), [old_address]
    )
    assert got.status == "closed"
    [row] = reply_rows(stack.db)
    assert row.payload["result"] == "closed" and row.payload["window"] == old
    after = snapshot(stack.db, table.game_id)
    assert after["rows"] == before["rows"] and after["version"] == before["version"]


AUTOMATIC = [
    {"Auto-Submitted": "auto-replied"},
    {"Auto-Submitted": "auto-generated (vacation)"},
    {"Precedence": "bulk"},
    {"Precedence": "junk"},
    {"Precedence": "auto_reply"},
    {"X-Autoreply": "yes"},
    {"X-Autorespond": "Out of office"},
]


@pytest.mark.parametrize("headers", AUTOMATIC)
def test_auto_replies_are_ignored_and_never_answered(embedded: Any, headers: dict[str, str]) -> None:
    table = new_table(embedded)
    _, request, view = table.owed("yellow")
    to = table.address("yellow")
    before = snapshot(embedded.db, table.game_id)
    got = table.receive(letter(table.emails["yellow"], to, commands_for(request, view, "en")[0], headers=headers), [to])
    assert got.status == "ignored" and got.outbox_ids == []
    assert snapshot(embedded.db, table.game_id) == before


def test_bounces_are_ignored_and_auto_submitted_no_is_a_person(embedded: Any) -> None:
    table = new_table(embedded)
    _, request, view = table.owed("yellow")
    to = table.address("yellow")
    command = commands_for(request, view, "en")[0]
    before = snapshot(embedded.db, table.game_id)
    daemon = table.receive(letter("MAILER-DAEMON@mx.example.org", to, command), [to])
    null_sender = table.receive(letter(table.emails["yellow"], to, command), [to], mail_from="<>")
    report = (
        f"From: {table.emails['yellow']}\r\nTo: {to}\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n'
        f"--b\r\nContent-Type: text/plain\r\n\r\n{command}\r\n"
        "--b\r\nContent-Type: message/delivery-status\r\n\r\nFinal-Recipient: rfc822; x@example.org\r\n--b--\r\n"
    )
    dsn = table.receive(report.encode(), [to])
    assert [daemon.status, null_sender.status, dsn.status] == ["ignored"] * 3
    assert snapshot(embedded.db, table.game_id) == before
    person = table.receive(letter(table.emails["yellow"], to, command, headers={"Auto-Submitted": "no"}), [to])
    assert person.status == "applied"


# --- hostile ---------------------------------------------------------------------------------------------------------

HOSTILE = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@HOSTILE
@given(raw=st.binary(max_size=3000))
def test_garbage_bytes_never_raise_and_never_change_anything(embedded: Any, raw: bytes) -> None:
    table = _shared_table(embedded)
    to = table.address("yellow")
    before = snapshot(embedded.db, table.game_id)
    got = table.receive(raw, [to])
    assert got.status in {"ignored", "forged", "wrong_sender", "error", "duplicate"}
    assert snapshot(embedded.db, table.game_id)["rows"] == before["rows"]


@HOSTILE
@given(
    text=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=2000),
    subject=st.text(max_size=300),
)
def test_hostile_bodies_from_the_player_never_raise_and_never_change_anything(
    embedded: Any, text: str, subject: str
) -> None:
    table = _shared_table(embedded)
    _, request, view = table.owed("yellow")
    try:
        parse_reply(text, request, view, "en")
        assume(False)  # a legal command by chance would rightly be applied
    except CommandError:
        pass
    to = table.address("yellow")
    head = f"From: {table.emails['yellow']}\r\nTo: {to}\r\nSubject: {subject}\r\n".encode("utf-8", "surrogateescape")
    raw = head + b"Content-Type: text/plain; charset=utf-8\r\n\r\n" + text.encode("utf-8", "surrogatepass")
    before = snapshot(embedded.db, table.game_id)
    got = table.receive(raw, [to])
    assert got.status in {"ignored", "error", "duplicate"}
    assert snapshot(embedded.db, table.game_id)["rows"] == before["rows"]


def _shared_table(stack: Any) -> Table:
    """One game per test function, reused by every hypothesis example."""
    found: Table | None = getattr(stack, "_replies_table", None)
    if found is None:
        found = new_table(stack)
        stack._replies_table = found
    return found


@pytest.mark.parametrize(
    "build",
    [
        "huge",
        "nested",
        "bad charset",
        "html bomb",
        "no from",
        "many headers",
    ],
)
def test_hostile_messages_never_raise_and_never_change_anything(embedded: Any, build: str) -> None:
    table = new_table(embedded)
    _, request, view = table.owed("yellow")
    to = table.address("yellow")
    command = commands_for(request, view, "en")[0].encode()
    sender = table.emails["yellow"].encode()
    head = b"From: " + sender + b"\r\nTo: " + to.encode() + b"\r\n"
    if build == "huge":  # a valid command, but over the size limit: not even read
        raw = head + b"\r\n" + command + b"\r\n" + b"x" * (replies.MAX_MESSAGE + 10)
    elif build == "nested":
        depth = 2000
        raw = head + b"".join(
            b"Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n" % (i, i) for i in range(depth)
        )
    elif build == "bad charset":
        raw = head + b"Content-Type: text/plain; charset=x-no-such\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!"
    elif build == "html bomb":
        raw = head + b"Content-Type: text/html\r\n\r\n" + b"<blockquote>" * 50_000 + b"<script>" + command
    elif build == "no from":
        raw = b"To: " + to.encode() + b"\r\n\r\n" + command
    else:
        raw = b"".join(b"X-H%d: v\r\n" % i for i in range(5000)) + head + b"\r\n" + command
    before = snapshot(embedded.db, table.game_id)
    got = table.receive(raw, [to])
    assert got.status in {"ignored", "error"}
    assert snapshot(embedded.db, table.game_id)["rows"] == before["rows"]
    assert answer_of(embedded.db, table.seats["yellow"]) is None


def test_a_database_failure_is_reported_as_unavailable(embedded: Any) -> None:
    from server.db import Database

    table = new_table(embedded)
    to = table.address("yellow")
    down = Database("postgresql+psycopg://postgres@127.0.0.1:9/nowhere", connect_args={"connect_timeout": 2})
    try:
        with pytest.raises(replies.Unavailable):
            replies.receive(down, table.settings, letter(table.emails["yellow"], to, "PASS"), [to], None)
    finally:
        down.dispose()
