"""The embedded default's mailbox (/mail/<token>): the mail files written by the FileTransport, listed newest
first and shown (HTML sandboxed, plain text escaped); organiser token required, only files of the folder reachable,
off when mail goes by SMTP; ``deadmail up`` prints its address."""

from __future__ import annotations

import os
import re
import subprocess
import urllib.request
from dataclasses import replace
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

import pytest
from markupsafe import escape
from sqlalchemy import select

from server.mail.send import send_one
from server.mail.transports import FileTransport
from server.models import InboundMail, RequestRow
from server.services.links import mailbox_token, player_token
from server.services.seats import seat_view
from server.text.grammar import commands_for
from server.web.app import create_app
from server.web.mailbox import SANDBOX
from tests.conftest import Stack
from tests.support import DEADMAIL, T0, clean_env, create, csrf_token, free_port, outbox_ids, rows_of
from tests.waiting import wait_for

HOSTILE_SUBJECT = '<script>alert("subject")</script> & more'


def mailbox_url(stack: Stack) -> str:
    return f"/mail/{mailbox_token(stack.settings.secret_key)}"


def send_game_mail(stack: Stack) -> list[Path]:
    """A new game's notifications, sent through the outbox to the file transport; the files, oldest first."""
    created = create(stack.db, 3, seed=3)
    ids = outbox_ids(stack.db, created.game_id)
    transport = FileTransport(stack.settings.mail_dir)
    for i, outbox_id in enumerate(ids):
        assert send_one(stack.db, outbox_id, transport, stack.settings, now=T0) == "sent"
        written = max(stack.settings.mail_dir.glob("*.eml"), key=lambda p: p.stat().st_mtime_ns)
        os.utime(written, ns=(10**18 + i * 10**9, 10**18 + i * 10**9))  # distinct times: a defined order
    files = sorted(stack.settings.mail_dir.glob("*.eml"), key=lambda p: p.stat().st_mtime_ns)
    assert len(files) == len(ids) == 3
    return files


def hostile_mail(stack: Stack) -> Path:
    """A mail with script in every part, written by the file transport (newest of all)."""
    message = EmailMessage()
    message["From"] = "deadmail <deadmail@localhost>"
    message["To"] = "Eve <script>x</script> <eve@example.org>"
    message["Subject"] = HOSTILE_SUBJECT
    message["Date"] = formatdate()
    message["Message-ID"] = make_msgid(idstring="hostile", domain="deadmail")
    message.set_content("Plain <b>text</b> with a link: http://deadmail.test/s/abc?x=1&y=2\n")
    message.add_alternative(
        "<html><head><title>t</title></head><body><script>parent.document.body.remove()</script>"
        '<a href="http://deadmail.test/s/abc">play</a></body></html>',
        subtype="html",
    )
    FileTransport(stack.settings.mail_dir).send(message, lambda: None)
    return next(p for p in stack.settings.mail_dir.glob("*.eml") if "hostile" in p.name)


def test_the_mailbox_lists_the_mail_files_newest_first(stack: Stack) -> None:
    files = send_game_mail(stack)

    page = stack.client.get(mailbox_url(stack))

    assert page.status_code == 200
    body = page.get_data(as_text=True)
    listed = re.findall(r'href="/mail/[^/"]+/([^"]+\.eml)"', body)
    assert listed == [p.name for p in reversed(files)]
    for path in files:
        mail = message_from_bytes(path.read_bytes(), policy=policy.default)
        assert "@example.org" in str(mail["To"]) and mail["Subject"]
        assert str(escape(str(mail["To"]))) in body and str(escape(str(mail["Subject"]))) in body


def test_a_mail_is_shown_with_its_plain_text_escaped_and_its_html_sandboxed(embedded: Stack) -> None:
    send_game_mail(embedded)
    path = hostile_mail(embedded)

    listing = embedded.client.get(mailbox_url(embedded)).get_data(as_text=True)
    assert re.findall(r'href="/mail/[^/"]+/([^"]+\.eml)"', listing)[0] == path.name  # the newest
    assert "<script>" not in listing and str(escape(HOSTILE_SUBJECT)) in listing

    page = embedded.client.get(f"{mailbox_url(embedded)}/{path.name}")
    assert page.status_code == 200
    body = page.get_data(as_text=True)
    assert "<script>" not in body and "<b>text</b>" not in body
    assert "Plain &lt;b&gt;text&lt;/b&gt;" in body
    assert '<a href="http://deadmail.test/s/abc?x=1&amp;y=2">' in body  # the link in the text, clickable
    frame = re.search(r'<iframe [^>]*sandbox="([^"]*)" src="([^"]+)"', body)
    assert frame is not None
    assert "allow-scripts" not in frame.group(1) and "allow-same-origin" not in frame.group(1)

    html = embedded.client.get(frame.group(2))
    assert html.status_code == 200
    assert html.headers["Content-Security-Policy"] == SANDBOX
    assert html.headers["Content-Security-Policy"].startswith("sandbox ")
    assert html.mimetype == "text/html"
    assert '<head><base target="_top"><title>' in html.get_data(as_text=True)


def test_a_game_mail_is_shown_with_clickable_links_and_its_html_part_framed(embedded: Stack) -> None:
    newest = send_game_mail(embedded)[-1]
    mail = message_from_bytes(newest.read_bytes(), policy=policy.default)
    plain = mail.get_body(preferencelist=("plain",))
    assert plain is not None
    links = re.findall(r"http://deadmail\.test/[sp]/[\w.-]+", plain.get_content())

    page = embedded.client.get(f"{mailbox_url(embedded)}/{newest.name}")

    assert page.status_code == 200
    body = page.get_data(as_text=True)
    assert links and all(f'<a href="{link}">{link}</a>' in body for link in links)
    assert ("<iframe " in body) == (mail.get_body(preferencelist=("html",)) is not None)


@pytest.mark.parametrize(
    "name",
    [
        "../secret_key",
        "..%2Fsecret_key",
        "..%2F..%2Fdeadmail.db",
        "%2Fetc%2Fpasswd",
        "secret_key",
        "missing.eml",
        ".hidden.eml",
        "x" * 400 + ".eml",
    ],
)
def test_only_mail_files_listed_in_the_folder_can_be_opened(embedded: Stack, name: str) -> None:
    send_game_mail(embedded)
    (embedded.settings.mail_dir / ".hidden.eml").write_text("Subject: hidden\n\nsecret\n")
    (embedded.settings.data_dir / "outside.eml").write_text("Subject: outside\n\nsecret\n")

    for url in (f"{mailbox_url(embedded)}/{name}", f"{mailbox_url(embedded)}/{name}/html"):
        reply = embedded.client.get(url)
        assert reply.status_code == 404, url
        body = reply.get_data(as_text=True)
        assert "test-secret-key" not in body and "secret\n" not in body
    assert embedded.client.get(f"{mailbox_url(embedded)}/..%2Foutside.eml").status_code == 404


@pytest.mark.parametrize("kind", ["forged", "player link", "other secret", "huge"])
def test_a_bad_token_opens_nothing(embedded: Stack, kind: str) -> None:
    name = send_game_mail(embedded)[0].name
    token = mailbox_token(embedded.settings.secret_key)
    bad = {
        "forged": token[:-2] + ("xy" if not token.endswith("xy") else "zw"),
        "player link": player_token(embedded.settings.secret_key, 1, 1),
        "other secret": mailbox_token("another-secret"),
        "huge": "a" * 3000,
    }[kind]

    for url in (f"/mail/{bad}", f"/mail/{bad}/{name}", f"/mail/{bad}/{name}/html"):
        reply = embedded.client.get(url)
        assert reply.status_code == 403, url
        assert name not in reply.get_data(as_text=True)


def test_the_mailbox_is_off_when_mail_goes_by_smtp(embedded: Stack) -> None:
    name = send_game_mail(embedded)[0].name
    settings = replace(embedded.settings, smtp_url="smtp://127.0.0.1:2525")
    client = create_app(settings, embedded.db).test_client()
    token = mailbox_token(settings.secret_key)

    for url in (f"/mail/{token}", f"/mail/{token}/{name}", f"/mail/{token}/{name}/html"):
        reply = client.get(url)
        assert reply.status_code == 404
        assert "sends its mail by SMTP" in reply.get_data(as_text=True)
        assert name not in reply.get_data(as_text=True)


def _page(url: str) -> str:
    """The page at ``url``, or "" while the server does not answer."""
    try:
        with urllib.request.urlopen(url, timeout=5) as page:
            return str(page.read().decode())
    except OSError:
        return ""


def test_deadmail_up_prints_the_mailbox_address_and_it_lists_the_demo_mail(tmp_path: Path) -> None:
    port = free_port()
    env = clean_env(tmp_path)
    up = subprocess.Popen(
        [*DEADMAIL, "up", "--port", str(port)], cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert up.stdout is not None
        lines = [up.stdout.readline() for _ in range(3)]
        url = next(line.split(": ", 1)[1].strip() for line in lines if line.startswith("Mail (files): "))
        assert re.fullmatch(rf"http://127\.0\.0\.1:{port}/mail/[\w.-]+", url)
        subprocess.run(
            [*DEADMAIL, "demo", "--email", "box@example.org"], cwd=tmp_path, env=env, check=True, capture_output=True
        )
        wait_for(lambda: "box@example.org" in _page(url), timeout=60, what="the demo's mail listed")
    finally:
        up.terminate()
        up.communicate(timeout=30)


def test_a_reply_written_on_the_mailbox_page_is_taken_like_one_by_mail(embedded: Stack) -> None:
    """With mail in files, reply addresses use reply.localhost and the page sends the reply through the same path
    as a mail: a command is applied, anything else gets the error mail, and neither needs a mail server."""
    assert embedded.settings.reply_domain == "reply.localhost"
    created = create(embedded.db, 3, seed=3)
    first = rows_of(embedded.db, outbox_ids(embedded.db, created.game_id))[0]
    seat_id = first.seat_id
    assert seat_id is not None
    transport = FileTransport(embedded.settings.mail_dir)
    assert send_one(embedded.db, first.id, transport, embedded.settings, now=T0) == "sent"
    [path] = embedded.settings.mail_dir.glob("*.eml")
    page = embedded.client.get(f"{mailbox_url(embedded)}/{path.name}").get_data(as_text=True)
    assert "Send the reply" in page

    data = seat_view(embedded.db, seat_id)
    command = commands_for(data["window"]["request"], data["view"], "en")[0]
    token = csrf_token(embedded.client, embedded.app)
    reply_url = f"{mailbox_url(embedded)}/{path.name}/reply"
    garbage = embedded.client.post(reply_url, data={"body": "<b>what?</b>", "csrf_token": token})
    assert garbage.status_code == 303 and garbage.headers["Location"].endswith("replied=error")
    taken = embedded.client.post(reply_url, data={"body": f"{command}\n\n> quoted", "csrf_token": token})
    assert taken.status_code == 303 and taken.headers["Location"].endswith("replied=applied")

    with embedded.db.session() as session:
        row = session.execute(select(RequestRow).where(RequestRow.seat_id == seat_id)).scalar_one()
        assert row.answered_at is not None
        statuses = session.execute(select(InboundMail.status).order_by(InboundMail.id)).scalars().all()
    assert statuses == ["error", "applied"]
    assert embedded.client.post(reply_url, data={"body": command}).status_code == 400  # no CSRF token
