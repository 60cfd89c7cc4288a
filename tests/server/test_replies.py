"""Replies by mail (server/mail/replies.py) against real games: a reply is applied exactly as the web applies an
answer, once however often it is delivered, and asks for its answer mail (and, when it was the last one owed, the
window's advance) only after its commit; quoted text and signatures are ignored; Italian and Polish players use
their own words; forged, revoked, wrong-sender, late, automatic and hostile mail changes nothing."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from server.config import Settings
from server.db import Database
from server.mail import replies
from server.models import InboundMail, MailKind, Outbox, Player, Window
from server.services.links import seat_token
from server.services.mailflow import reply_address
from server.services.play import games, turns
from server.services.play.seats import rotate_link, seat_view
from server.text.grammar import CommandError, commands_for, parse_reply
from tests.conftest import Stack
from tests.profile import examples
from tests.support import (
    REPLY_DOMAIN,
    T0,
    Recorder,
    bare,
    create_tagged,
    letter,
    mail_settings,
    outbox_ids,
    player_of,
    recording,
    request_of,
    rows_of,
    seat_ids,
    snapshot,
)

SECRET_BODY = "the-body-must-never-be-logged"


@dataclass
class Table:
    """A game of three people (yellow, red, blue) and what a test needs to reply in it: ``db`` records the work
    its transactions ask for after their commit in ``tasks``."""

    db: Database
    tasks: Recorder
    settings: Settings
    game_id: int
    seats: dict[str, int]
    emails: dict[str, str]

    def owed(self, colour: str) -> tuple[int, dict[str, Any], dict[str, Any]]:
        """The open window's number, the seat's request and the seat's view."""
        state = seat_view(self.db, self.seats[colour])
        assert state["window"] is not None and state["window"]["request"] is not None
        return state["window"]["number"], state["window"]["request"], state["view"]

    def address(self, colour: str, window: int | None = None, generation: int = 1) -> str:
        number = window if window is not None else self.owed(colour)[0]
        return reply_address.make(self.settings.secret_key, REPLY_DOMAIN, self.seats[colour], number, generation)

    def receive(self, raw: bytes, recipients: list[str], mail_from: str | None = None) -> replies.Received:
        """The message received at T0, when the game was created."""
        return replies.receive(self.db, self.settings, raw, recipients, T0, mail_from=mail_from)


def new_table(stack: Stack, seed: int = 7, languages: dict[str, str] | None = None, tag: int | None = None) -> Table:
    """A game of three people; ``languages`` gives some colours' players another language than English."""
    colours = games.colours_for(3)
    prefs = {colours.index(colour): {"language": lang} for colour, lang in (languages or {}).items()}
    created = create_tagged(stack.db, 3, seed=seed, prefs=prefs, tag=tag)
    seats = seat_ids(stack.db, created.game_id)
    emails = {colour: player_of(stack.db, seat_id).email for colour, seat_id in seats.items()}
    db, tasks = recording(stack.db)
    return Table(db, tasks, mail_settings(stack.settings), created.game_id, seats, emails)


def answer_of(db: Database, seat_id: int) -> Any:
    """The answer stored on the seat's request in the open window (None: not answered yet)."""
    found = request_of(db, seat_id)
    assert found is not None
    _, row = found
    return row.answer if row.answered_at is not None else None


def reply_rows(db: Database) -> list[Outbox]:
    """The answers to replies by mail written so far."""
    return [row for row in rows_of(db, outbox_ids(db)) if row.kind == MailKind.REPLY]


def inbound(db: Database, inbound_id: int | None) -> InboundMail:
    with db.session() as session:
        row = session.get(InboundMail, inbound_id)
        assert row is not None
        session.expunge(row)
        return row


def window_id(db: Database, game_id: int, number: int) -> int:
    with db.session() as session:
        found: int = session.execute(
            sa.select(Window.id).where(Window.game_id == game_id, Window.number == number)
        ).scalar_one()
        return found


def keys(state: dict[str, Any]) -> list[str]:
    """The keys of a snapshot's outbox rows."""
    return [key for (key,) in state["outbox"]]


# --- applied --------------------------------------------------------------------------------------------------------


def test_a_reply_applies_the_answer_exactly_as_the_web_path_would(stack: Stack) -> None:
    by_mail = new_table(stack, seed=11)
    by_web = new_table(stack, seed=11, tag=111)
    number, request, view = by_mail.owed("yellow")
    command = commands_for(request, view, "en")[-1]
    expected = parse_reply(command, request, view, "en")
    before = snapshot(stack.db, by_mail.game_id)

    to = by_mail.address("yellow")
    got = by_mail.receive(letter(f"P0 <{by_mail.emails['yellow'].upper()}>", to, f"{command.lower()}\n"), [to])

    assert got.status == "applied"
    # the web path, on a twin game: the same request answered through the API
    token = seat_token(stack.settings.secret_key, by_web.seats["yellow"], 1)
    reply = stack.client.post(f"/api/seat/{token}/answer", json={"kind": request["kind"], "answer": expected})
    assert reply.status_code == 200, reply.json
    assert answer_of(stack.db, by_mail.seats["yellow"]) == expected == answer_of(stack.db, by_web.seats["yellow"])
    after = snapshot(stack.db, by_mail.game_id)
    assert after["version"] == before["version"] and after["windows"] == before["windows"]  # stored, not advanced
    [row] = reply_rows(stack.db)
    assert by_mail.tasks.mails == [row.id]  # its answer mail, sent once the reply is stored
    assert by_mail.tasks.advanced == []  # the others still owe
    assert row.key == f"reply:{got.inbound_id}"
    assert row.player_id == player_of(stack.db, by_mail.seats["yellow"]).id
    assert row.seat_id == by_mail.seats["yellow"]
    assert row.payload == {"inbound": got.inbound_id, "result": "applied", "window": number, "command": command.lower()}
    record = inbound(stack.db, got.inbound_id)
    assert (record.status, record.seat_id, record.window_number) == ("applied", by_mail.seats["yellow"], number)
    assert record.sender == by_mail.emails["yellow"]


def test_the_last_reply_owed_asks_for_one_advance(stack: Stack) -> None:
    table = new_table(stack)
    number = table.owed("yellow")[0]
    for colour in ("yellow", "red", "blue"):
        assert table.tasks.advanced == []  # not while someone still owes
        _, request, view = table.owed(colour)
        to = table.address(colour)
        got = table.receive(letter(table.emails[colour], to, commands_for(request, view, "en")[0]), [to])
        assert got.status == "applied"
    window = window_id(stack.db, table.game_id, number)
    assert table.tasks.advanced == [window]
    assert table.tasks.mails == [row.id for row in reply_rows(stack.db)]  # one answer mail per reply
    assert turns.advance_window(stack.db, window) is True


def test_a_second_delivery_changes_nothing_and_is_not_answered_twice(stack: Stack) -> None:
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
    asked = list(table.tasks.mails)

    again = table.receive(raw, [to])

    assert again.status == "duplicate" and again.inbound_id is None
    assert table.tasks.mails == asked
    assert snapshot(stack.db, table.game_id) == before
    assert answer_of(stack.db, table.seats["yellow"]) == web
    assert len(reply_rows(stack.db)) == 1


def test_a_message_without_message_id_is_deduplicated_by_its_content(embedded: Stack) -> None:
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
    embedded: Stack, name: str, template: str, html: bool
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


@pytest.mark.parametrize("language", ["it", "pl"])
def test_italian_and_polish_players_reply_in_their_own_words(stack: Stack, language: str) -> None:
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


def test_an_unreadable_command_gets_an_error_reply_and_changes_nothing(stack: Stack) -> None:
    table = new_table(stack)
    to = table.address("yellow")
    before = snapshot(stack.db, table.game_id)
    got = table.receive(letter(table.emails["yellow"], to, "PLACE NOBODY 99\nthanks"), [to])
    assert got.status == "error"
    after = snapshot(stack.db, table.game_id)
    assert {k: v for k, v in after.items() if k != "outbox"} == {k: v for k, v in before.items() if k != "outbox"}
    [row] = reply_rows(stack.db)
    assert row.payload["result"] == "error" and row.payload["command"] == "PLACE NOBODY 99"
    assert keys(after) == [*keys(before), row.key]
    assert table.tasks.mails == [row.id] and table.tasks.advanced == []


# --- refused ---------------------------------------------------------------------------------------------------------


def _forged(table: Table, how: str) -> str:
    good = table.address("yellow")
    local, _, _ = good.partition("@")
    if how == "wrong mac":
        return f"{local[:-1]}{'a' if local[-1] != 'a' else 'b'}@{REPLY_DOMAIN}"
    if how == "wrong domain":
        return f"{local}@elsewhere.example"
    if how == "other seat":  # the red seat's id with the yellow seat's signature
        parts = local.split("-")
        parts[1] = str(table.seats["red"])
        return "-".join(parts) + f"@{REPLY_DOMAIN}"
    assert how == "revoked"
    rotate_link(table.db, table.game_id, "yellow")
    return good


@pytest.mark.parametrize("how", ["wrong mac", "wrong domain", "other seat", "revoked"])
def test_a_forged_address_changes_nothing_gets_no_mail_and_is_logged(
    stack: Stack, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    table = new_table(stack)
    _, request, view = table.owed("yellow")
    to = _forged(table, how)
    before = snapshot(stack.db, table.game_id)
    with caplog.at_level(logging.INFO, logger="deadmail.replies"):
        got = table.receive(
            letter(table.emails["yellow"], to, f"{commands_for(request, view, 'en')[0]}\n{SECRET_BODY}"), [to]
        )
    assert got.status == "forged"
    assert table.tasks.mails == [] and table.tasks.advanced == []
    assert snapshot(stack.db, table.game_id) == before
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings and to in warnings[0].getMessage()
    assert SECRET_BODY not in caplog.text
    assert inbound(stack.db, got.inbound_id).status == "forged"


def test_a_reply_from_another_sender_changes_nothing_and_tells_the_registered_player(stack: Stack) -> None:
    table = new_table(stack)
    number, request, view = table.owed("yellow")
    to = table.address("yellow")
    before = snapshot(stack.db, table.game_id)
    got = table.receive(letter("Mallory <mallory@example.net>", to, commands_for(request, view, "en")[0]), [to])
    assert got.status == "wrong_sender"
    [row] = reply_rows(stack.db)
    assert table.tasks.mails == [row.id]
    assert row.player_id == player_of(stack.db, table.seats["yellow"]).id  # never the sender: no backscatter
    assert row.payload["result"] == "wrong_sender" and row.payload["window"] == number
    assert answer_of(stack.db, table.seats["yellow"]) is None
    after = snapshot(stack.db, table.game_id)
    assert after["requests"] == before["requests"] and after["version"] == before["version"]
    with stack.db.session() as session:
        assert session.execute(sa.select(Player).where(Player.email == "mallory@example.net")).first() is None
    # a flood of such mail tells the player once per window
    again = table.receive(letter("mallory@example.net", to, "PASS"), [to])
    assert again.status == "wrong_sender" and table.tasks.mails == [row.id]
    assert len(reply_rows(stack.db)) == 1


def test_a_reply_to_a_closed_window_changes_nothing_and_is_answered_closed(stack: Stack) -> None:
    table = new_table(stack)
    old, request, view = table.owed("yellow")
    old_address = table.address("yellow")
    for colour in ("yellow", "red", "blue"):
        _, req, v = table.owed(colour)
        turns.submit_answer(
            stack.db, table.seats[colour], req["kind"], parse_reply(commands_for(req, v, "en")[0], req, v, "en")
        )
    assert turns.advance_window(stack.db, window_id(stack.db, table.game_id, old)) is True
    assert table.owed("yellow")[0] != old
    before = snapshot(stack.db, table.game_id)
    got = table.receive(
        letter(table.emails["yellow"], old_address, commands_for(request, view, "en")[-1]), [old_address]
    )
    assert got.status == "closed"
    [row] = reply_rows(stack.db)
    assert row.payload["result"] == "closed" and row.payload["window"] == old
    assert table.tasks.mails == [row.id] and table.tasks.advanced == []
    after = snapshot(stack.db, table.game_id)
    assert after["requests"] == before["requests"] and after["version"] == before["version"]


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
def test_auto_replies_are_ignored_and_never_answered(embedded: Stack, headers: dict[str, str]) -> None:
    table = new_table(embedded)
    _, request, view = table.owed("yellow")
    to = table.address("yellow")
    before = snapshot(embedded.db, table.game_id)
    got = table.receive(letter(table.emails["yellow"], to, commands_for(request, view, "en")[0], headers=headers), [to])
    assert got.status == "ignored"
    assert table.tasks.mails == [] and table.tasks.advanced == []
    assert snapshot(embedded.db, table.game_id) == before


def test_bounces_are_ignored_and_auto_submitted_no_is_a_person(embedded: Stack) -> None:
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
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture
def shared_table(embedded: Stack) -> Table:
    """One game per test function, reused by every hypothesis example."""
    return new_table(embedded)


@HOSTILE
@given(raw=st.binary(max_size=3000))
def test_garbage_bytes_never_raise_and_never_change_anything(shared_table: Table, raw: bytes) -> None:
    table = shared_table
    to = table.address("yellow")
    before = snapshot(table.db, table.game_id)
    got = table.receive(raw, [to])
    assert got.status in {"ignored", "forged", "wrong_sender", "error", "duplicate"}
    assert snapshot(table.db, table.game_id)["requests"] == before["requests"]


@HOSTILE
@given(
    text=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=2000),
    subject=st.text(max_size=300),
)
def test_hostile_bodies_from_the_player_never_raise_and_never_change_anything(
    shared_table: Table, text: str, subject: str
) -> None:
    table = shared_table
    _, request, view = table.owed("yellow")
    try:
        parse_reply(text, request, view, "en")
        assume(False)  # a legal command by chance would rightly be applied
    except CommandError:
        pass
    to = table.address("yellow")
    head = f"From: {table.emails['yellow']}\r\nTo: {to}\r\nSubject: {subject}\r\n".encode("utf-8", "surrogateescape")
    raw = head + b"Content-Type: text/plain; charset=utf-8\r\n\r\n" + text.encode("utf-8", "surrogatepass")
    before = snapshot(table.db, table.game_id)
    got = table.receive(raw, [to])
    assert got.status in {"ignored", "error", "duplicate"}
    assert snapshot(table.db, table.game_id)["requests"] == before["requests"]


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
def test_hostile_messages_never_raise_and_never_change_anything(embedded: Stack, build: str) -> None:
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
    assert snapshot(embedded.db, table.game_id)["requests"] == before["requests"]
    assert answer_of(embedded.db, table.seats["yellow"]) is None


def test_a_database_failure_is_reported_as_unavailable(embedded: Stack) -> None:
    table = new_table(embedded)
    to = table.address("yellow")
    down = Database("postgresql+psycopg://postgres@127.0.0.1:9/nowhere", connect_args={"connect_timeout": 2})
    try:
        with pytest.raises(replies.Unavailable):
            replies.receive(down, table.settings, letter(table.emails["yellow"], to, "PASS"), [to])
    finally:
        down.dispose()
