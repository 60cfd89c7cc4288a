"""Hostile input at every way in, bad input and identities: each a clear 4xx with nothing changed, or
(for replies by mail) taken as it comes, never a 500.

JSON nested 5,000 deep or over the size limit, lone surrogates, NUL bytes (which PostgreSQL refuses in text), ids
beyond the database's integers, a webhook whose headers describe a body it does not have, replies without a
Message-ID, and a player's name that would become, or add, a mail address."""

from __future__ import annotations

import smtplib
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import pytest
import sqlalchemy as sa

from server.mail.headers import recipient
from server.mail.send import send_one
from server.mail.transports import FileTransport, SMTPTransport
from server.models import Game, InboundMail, Outbox, Player, Seat
from server.services import inputs
from server.services.inputs import MAX_DEPTH, parse_json
from server.services.links import mailbox_token
from server.services.play import games
from tests.conftest import Stack
from tests.server.test_inbound import (
    HOST,
    Listener,
    inbound_statuses,
    new_game,
    reply_for,
    webhook_settings,
    window_of,
)
from tests.server.test_smtp import Servers
from tests.support import (
    AUTH,
    T0,
    all_rows,
    api_game,
    compose,
    create,
    csrf_token,
    log_in_as_organiser,
    mail_settings,
    outbox_ids,
    people,
    post_form,
    rows_of,
)

DEEP = b"[" * 5000 + b"]" * 5000


def json_refused(reply: Any, status: int = 400) -> str:
    assert reply.status_code == status, reply.get_data(as_text=True)[:300]
    assert reply.is_json and reply.json["ok"] is False
    return str(reply.json["error"])


def page_refused(reply: Any, status: int = 400) -> str:
    assert reply.status_code == status, reply.get_data(as_text=True)[:300]
    assert reply.mimetype == "text/html"
    return reply.get_data(as_text=True)


# --- deep and huge JSON --------------------------------------------------------------------------------------------


def test_json_deeper_than_the_cap_is_refused_before_parsing() -> None:
    assert parse_json(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None
    assert parse_json(b'{"a": "' + b"[" * 5000 + b'\\"' + b'"}') == {"a": "[" * 5000 + '"'}  # brackets in a string
    for deep in (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), DEEP, b'{"a":' * 5000):
        with pytest.raises(inputs.InputError, match="nested too deeply"):
            parse_json(deep)
    with pytest.raises(inputs.InputError, match="not valid JSON"):
        parse_json(b'{"window": ' + b"9" * 5000 + b"}")  # more digits than Python reads


def test_deeply_nested_json_is_refused_by_the_answer_api_the_game_api_and_the_webhook(stack: Stack) -> None:
    game = api_game(stack.client, people(3))
    token = game.tokens["yellow"]
    before = all_rows(stack.db)
    answer = stack.client.post(f"/api/seat/{token}/answer", data=DEEP, content_type="application/json")
    assert "nested too deeply" in json_refused(answer)
    nested = b'{"kind": "vote", "answer": ' + DEEP + b"}"
    assert "nested too deeply" in json_refused(
        stack.client.post(f"/api/seat/{token}/answer", data=nested, content_type="application/json")
    )
    created = stack.client.post("/api/games", data=DEEP, content_type="application/json", headers=AUTH)
    assert "nested too deeply" in json_refused(created)
    webhook_settings(stack)
    hooked = stack.client.post("/inbound/mail", data=DEEP, content_type="application/json", headers=AUTH)
    assert "nested too deeply" in json_refused(hooked)
    assert all_rows(stack.db) == before


def test_a_deep_answer_in_the_seat_form_is_refused_with_a_page(embedded: Stack) -> None:
    game = api_game(embedded.client, people(3))
    before = all_rows(embedded.db)
    for command in ("[" * 299, "[" * 5000, '{"a": ' * 50):
        reply = post_form(embedded.client, embedded.app, f"/s/{game.tokens['yellow']}/do", {"w": "1", "c": command})
        page_refused(reply)
    assert all_rows(embedded.db) == before


def test_a_body_over_the_size_limit_is_413_json_under_the_api_and_a_page_elsewhere(embedded: Stack) -> None:
    game = api_game(embedded.client, people(3))
    huge = b'{"kind": "vote", "answer": "' + b"x" * 70_000 + b'"}'
    answer = embedded.client.post(
        f"/api/seat/{game.tokens['yellow']}/answer", data=huge, content_type="application/json"
    )
    assert "too large" in json_refused(answer, 413)
    log_in_as_organiser(embedded.client)
    form = post_form(embedded.client, embedded.app, "/o/new", {"title": "x" * 70_000})
    assert "too large" in page_refused(form, 413)


# --- lone surrogates and NUL bytes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["\ud800", "a\x00b"])
def test_a_lone_surrogate_or_nul_in_a_title_or_name_is_refused_by_the_api(stack: Stack, bad: str) -> None:
    before = all_rows(stack.db)
    bodies: list[dict[str, Any]] = [
        {"players": people(3), "title": bad},
        {"players": [f"{bad} <a@b.example>", *people(2)]},
        {"players": [{"name": bad, "email": "a@b.example"}, *people(2)]},
        {"players": [f"a{bad}@b.example", *people(2)]},
        {"players": people(3), "organiser": f"Org{bad} <org@b.example>"},
        {"players": people(3), "timezone": f"Europe/Rome{bad}"},
        {"players": people(3), "deadlines": [f"24h{bad}"]},
        {"players": people(3), "options": {f"turn_order{bad}": "strict"}},
    ]
    for body in bodies:
        assert "cannot be stored" in json_refused(stack.client.post("/api/games", json=body, headers=AUTH))
    assert all_rows(stack.db) == before
    game = api_game(stack.client, people(3))
    before = all_rows(stack.db)
    answer = {"kind": f"vote{bad}", "answer": bad}
    refused = stack.client.post(f"/api/seat/{game.tokens['yellow']}/answer", json=answer)
    assert "cannot be stored" in json_refused(refused)
    assert all_rows(stack.db) == before


def test_a_surrogate_sent_in_the_organiser_form_is_never_stored(stack: Stack) -> None:
    """A form cannot carry a lone surrogate: its bytes are not UTF-8, and are not read as one."""
    log_in_as_organiser(stack.client)
    players = "%0A".join(["An%ED%A0%80n+%3Cann%40b.example%3E", "bob%40b.example", "bot"])
    body = f"title=T%ED%A0%80&players={players}&csrf_token={csrf_token(stack.client, stack.app)}"
    created = stack.client.post("/o/new", data=body.encode(), content_type="application/x-www-form-urlencoded")
    assert created.status_code == 303
    with stack.db.session() as session:
        title = session.execute(sa.select(Game.title)).scalar_one()
        name = session.execute(sa.select(Player.display_name).where(Player.email == "ann@b.example")).scalar_one()
    assert title.startswith("T") and name.startswith("An") and not inputs.unstorable(title + name)


def test_a_nul_in_any_organiser_form_field_is_refused_and_changes_nothing(stack: Stack) -> None:
    log_in_as_organiser(stack.client)
    game = api_game(stack.client, people(3))
    before = all_rows(stack.db)
    forms = {
        "/o/new": {"title": "a\x00b", "players": "\n".join(people(3))},
        "/o/new#name": {"players": "\n".join(["An\x00n <ann@b.example>", *people(2)])},
        f"/o/games/{game.id}/replace": {"colour": "yellow", "by": "person", "name": "N\x00", "email": "n@b.example"},
        f"/o/games/{game.id}/replace#email": {"colour": "yellow", "by": "person", "email": "n\x00@b.example"},
        f"/o/games/{game.id}/resend": {"colour": "yel\x00low", "rotate": "1"},
        f"/o/games/{game.id}/extend": {"until": "2031-01-01T10:00\x00"},
        f"/o/games/{game.id}/pause": {"until": "\x00"},
    }
    for path, data in forms.items():
        text = page_refused(post_form(stack.client, stack.app, path.split("#")[0], data))
        assert "cannot be stored" in text, path
    assert all_rows(stack.db) == before


def test_a_nul_in_a_player_page_field_is_refused_and_changes_nothing(stack: Stack) -> None:
    game = api_game(stack.client, people(3))
    token = game.tokens["yellow"]
    before = all_rows(stack.db)
    for path, data in {
        f"/s/{token}/do": {"w": "1", "c": "VOTE\x00 RED"},
        f"/s/{token}/chat": {"channel": "all", "text": "hello\x00"},
    }.items():
        assert "cannot be stored" in page_refused(post_form(stack.client, stack.app, path, data))
    assert "cannot be stored" in page_refused(stack.client.get(f"/s/{token}/do?w=1&c=VOTE%00RED"))
    assert all_rows(stack.db) == before


def test_a_nul_in_a_mailbox_reply_is_refused_and_changes_nothing(stack: Stack) -> None:
    settings = mail_settings(stack.settings, reply_domain="reply.localhost")
    stack.app.extensions["deadmail"].settings = settings
    created = create(stack.db, 3, seed=3)
    first = outbox_ids(stack.db, created.game_id)[0]
    assert send_one(stack.db, first, FileTransport(settings.mail_dir), settings, now=T0) == "sent"
    [path] = settings.mail_dir.glob("*.eml")
    before = all_rows(stack.db)
    url = f"/mail/{mailbox_token(settings.secret_key)}/{path.name}/reply"
    assert "cannot be stored" in page_refused(post_form(stack.client, stack.app, url, {"body": "VOTE\x00RED"}))
    assert all_rows(stack.db) == before


def nul_reply(raw: bytes) -> bytes:
    """A reply with NUL bytes in its sender's name, its subject, its Message-ID and its command."""
    head, _, body = raw.partition(b"\n\n")
    head = head.replace(b"Subject: Re:", b"Subject: Re:\x00").replace(b"Message-ID: <", b"Message-ID: <\x00")
    head = head.replace(b"From: ", b"From: An\x00n <", 1).replace(b"\nTo:", b">\nTo:", 1)
    return head + b"\n\n" + body[:2] + b"\x00" + body[2:]


def test_a_mail_reply_with_nul_bytes_over_smtp_is_applied_and_confirmed(stack: Stack) -> None:
    game_id = new_game(stack.db)
    reply = reply_for(stack.db, mail_settings(stack.settings), game_id)
    listener = Listener(mail_settings(stack.settings), stack.web_db)
    listener.controller.start()
    try:
        with smtplib.SMTP(HOST, listener.port, timeout=10) as smtp:
            assert smtp.sendmail(reply.sender, [reply.address], nul_reply(reply.raw())) == {}
    finally:
        listener.controller.stop()
    assert listener.lines == ["inbound 1: applied"]
    assert window_of(stack.db, game_id, reply.window)[2] == reply.answer
    with stack.db.session() as session:
        [row] = session.execute(sa.select(Outbox).where(Outbox.kind == "reply")).scalars().all()
        assert row.payload["result"] == "applied"  # the answer is confirmed
        stored = session.execute(sa.select(InboundMail)).scalar_one()
        assert "\x00" not in stored.message_id + stored.sender + stored.detail


def test_a_webhook_reply_with_nul_bytes_and_surrogates_is_applied_and_confirmed(stack: Stack) -> None:
    game_id = new_game(stack.db)
    reply = reply_for(stack.db, webhook_settings(stack), game_id)
    body = {
        "to": reply.address,
        "from": f"An\x00n \ud800 <{reply.sender}>",
        "subject": "Re:\x00 turn\udfff",
        "text": f"{reply.command[:2]}\x00{reply.command[2:]}\n",
        "message_id": "<nul\x00@example.org>",
    }
    answered = stack.client.post("/inbound/mail", json=body, headers=AUTH)
    assert answered.status_code == 200 and answered.json == {"ok": True, "status": "applied"}
    assert window_of(stack.db, game_id, reply.window)[2] == reply.answer
    with stack.db.session() as session:
        [row] = session.execute(sa.select(Outbox).where(Outbox.kind == "reply")).scalars().all()
        assert row.payload["result"] == "applied"


# --- ids beyond the database's integers -----------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", [str(2**31), str(2**63), str(2**64), "9" * 5000, "\u0663", "%C2%B2"])
def test_a_game_id_out_of_range_is_not_found(stack: Stack, game_id: str) -> None:
    assert "not found" in json_refused(stack.client.get(f"/api/games/{game_id}", headers=AUTH), 404).lower()
    log_in_as_organiser(stack.client)
    assert stack.client.get(f"/o/games/{game_id}").status_code == 404
    for action in ("extend", "pause", "resume", "replace", "resend", "abandon"):
        reply = post_form(stack.client, stack.app, f"/o/games/{game_id}/{action}", {"hours": "24"})
        assert reply.status_code == 404, action


def test_every_int_in_a_route_is_a_database_id(embedded: Stack) -> None:
    """A new route with an ``<int:…>`` part gets the same range (404 beyond it) without doing anything."""
    ints = [rule for rule in embedded.app.url_map.iter_rules() if "int:" in rule.rule]
    assert ints
    for rule in ints:
        for name, converter in rule._converters.items():
            if f"<int:{name}>" in rule.rule:
                assert type(converter).__name__ == "DatabaseId" and converter.max == 2**31 - 1


# --- the webhook ----------------------------------------------------------------------------------------------------


def test_a_webhook_with_a_multipart_content_type_header_is_read_from_its_text(stack: Stack) -> None:
    game_id = new_game(stack.db)
    reply = reply_for(stack.db, webhook_settings(stack), game_id)
    body = {
        "to": reply.address,
        "from": reply.sender,
        "text": reply.command,
        "message_id": "<mp@example.org>",
        "headers": {"Content-Type": "multipart/mixed; boundary=zz", "MIME-Version": "1.0", "Cc": '"'},
    }
    answered = stack.client.post("/inbound/mail", json=body, headers=AUTH)
    assert "cannot be used" in json_refused(answered)  # the Cc the email package cannot take
    del body["headers"]["Cc"]  # type: ignore[attr-defined]
    answered = stack.client.post("/inbound/mail", json=body, headers=AUTH)
    assert answered.status_code == 200 and answered.json == {"ok": True, "status": "applied"}
    assert window_of(stack.db, game_id, reply.window)[2] == reply.answer


def test_webhook_replies_without_message_id_a_b_a_leave_the_answer_a(stack: Stack) -> None:
    game_id = new_game(stack.db)
    a = reply_for(stack.db, webhook_settings(stack), game_id, pick=0)
    b = reply_for(stack.db, webhook_settings(stack), game_id, pick=1)
    assert a.answer != b.answer and a.address == b.address
    statuses = []
    for reply in (a, b, a, a):  # the last one: the same message delivered again, right after
        body = {"to": reply.address, "from": reply.sender, "subject": "Re: your turn", "text": reply.command}
        statuses.append(stack.client.post("/inbound/mail", json=body, headers=AUTH).json["status"])
    assert statuses == ["applied", "applied", "applied", "duplicate"]
    assert window_of(stack.db, game_id, a.window)[2] == a.answer
    assert inbound_statuses(stack.db) == ["applied", "applied", "applied"]


# --- identities -----------------------------------------------------------------------------------------------------


def registered(db: Any, game_id: int) -> list[tuple[str, str]]:
    with db.session() as session:
        seats = session.execute(sa.select(Seat).where(Seat.game_id == game_id).order_by(Seat.position)).scalars()
        return [(s.player.display_name, s.player.email) for s in seats if s.player is not None]


def test_a_display_name_never_replaces_the_email_address(stack: Stack) -> None:
    players = [
        {"name": "v@evil.example", "email": "eve@x.example"},
        "v2@evil.example <eve2@x.example>",
        '"w@evil.example, x@evil.example" <eve3@x.example>',
        "v@evil.example <eve@x.example> <eve4@x.example>",  # the address is what the last brackets hold
    ]
    game = api_game(stack.client, players)
    assert registered(stack.db, game.id) == [
        ("v@evil.example", "eve@x.example"),
        ("v2@evil.example", "eve2@x.example"),
        ("w@evil.example, x@evil.example", "eve3@x.example"),
        ("v@evil.example <eve@x.example>", "eve4@x.example"),
    ]
    for bad in ("a@b.example, c@d.example", "Ann <a@b@c>", "Ann <a@b.example", "<a@b.example> Ann"):
        refused = stack.client.post("/api/games", json={"players": [bad, *people(2)]}, headers=AUTH)
        json_refused(refused)
    log_in_as_organiser(stack.client)
    form = {"colour": "red", "by": "person", "name": "z@evil.example", "email": "zed@x.example", "confirm": "1"}
    replaced = post_form(stack.client, stack.app, f"/o/games/{game.id}/replace", form)
    assert replaced.status_code == 303 and replaced.headers["Location"].endswith("done=replaced"), replaced.headers
    assert registered(stack.db, game.id)[0] == ("z@evil.example", "zed@x.example")


CRLF_NAMES = ["Eve\r\nBcc: bcc@evil.example", "Eve\nBcc: bcc@evil.example", "Eve\rX", "Eve\x0bX", "Eve\u2028X"]


@pytest.mark.parametrize("name", CRLF_NAMES)
def test_a_name_with_a_line_break_or_control_character_is_refused_everywhere(stack: Stack, name: str) -> None:
    before = all_rows(stack.db)
    for body in (
        {"players": [f"{name} <a@b.example>", *people(2)]},
        {"players": [{"name": name, "email": "a@b.example"}, *people(2)]},
        {"players": people(3), "organiser": f"{name} <org@b.example>"},
    ):
        assert "one line" in json_refused(stack.client.post("/api/games", json=body, headers=AUTH))
    assert all_rows(stack.db) == before
    with pytest.raises(games.GameError, match="one line"):
        games.parse_player(f"{name} <a@b.example>")  # the command line's --player
    game = api_game(stack.client, people(3))
    log_in_as_organiser(stack.client)
    before = all_rows(stack.db)
    form = {"colour": "yellow", "by": "person", "name": name, "email": "n@b.example"}
    reply = post_form(stack.client, stack.app, f"/o/games/{game.id}/replace", form)
    assert reply.status_code == 409 and "one line" in reply.get_data(as_text=True)
    assert all_rows(stack.db) == before


def test_a_stored_name_with_crlf_adds_no_recipient_to_a_mail(embedded: Stack) -> None:
    """A name stored before names were checked: the mail goes to the player's address only."""
    created = create(embedded.db, 3, seed=5)
    [row] = rows_of(embedded.db, outbox_ids(embedded.db, created.game_id)[:1])
    with embedded.db.session() as session:
        player = session.get(Player, row.player_id)
        assert player is not None
        player.display_name, address = "Eve\r\nBcc: bcc@evil.example\r\n", player.email
    message = compose(embedded.db, row.id, mail_settings(embedded.settings))
    assert message is not None
    assert [a.addr_spec for a in message["To"].addresses] == [address] and message["Bcc"] is None
    servers = Servers()
    try:
        handler, port = servers.start()
        SMTPTransport.from_url(f"smtp://{HOST}:{port}").send(message, lambda: None)
    finally:
        servers.stop_all()
    [(_, envelope, raw, _)] = handler.accepted
    assert envelope == [address]
    parsed = message_from_bytes(raw, policy=policy.default)
    assert parsed["Bcc"] is None and [a.addr_spec for a in parsed["To"].addresses] == [address]


def test_the_to_header_is_built_from_an_address_not_a_string() -> None:
    player = Player(email="eve@x.example", display_name='v@evil.example" <w@evil.example>, "x')
    built = EmailMessage()
    built["To"] = recipient(player)
    assert [a.addr_spec for a in built["To"].addresses] == ["eve@x.example"]
