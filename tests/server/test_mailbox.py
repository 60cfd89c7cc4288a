"""The embedded default's mailbox (/mail/<token>): the mail files written by outbox.FileTransport, listed newest
first and shown (HTML sandboxed, plain text escaped); organiser token required, only files of the folder reachable,
off when mail goes by SMTP; ``deadmail up`` prints its address."""

from __future__ import annotations

import os
import re
import subprocess
import time
import urllib.request
from dataclasses import replace
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from server.app import create_app
from server.mailbox import SANDBOX, mailbox_token
from server.services import outbox
from server.services.links import player_token
from tests.server.test_commands import DEADMAIL, clean_env, free_port
from tests.worker.support import T0, create

HOSTILE_SUBJECT = '<script>alert("subject")</script> & more'


def mailbox_url(stack: Any) -> str:
    return f"/mail/{mailbox_token(stack.settings.secret_key)}"


def send_game_mail(stack: Any) -> list[Path]:
    """A new game's notifications, sent through the outbox to the file transport; the files, oldest first."""
    created = create(stack.db, 3, seed=3)
    settings = outbox.MailSettings(stack.settings.secret_key, stack.settings.base_url)
    transport = outbox.FileTransport(stack.settings.mail_dir)
    for i, outbox_id in enumerate(created.outbox_ids):
        assert outbox.send_one(stack.db, outbox_id, transport, settings, now=T0) == "sent"
        written = max(stack.settings.mail_dir.glob("*.eml"), key=lambda p: p.stat().st_mtime_ns)
        os.utime(written, ns=(10**18 + i * 10**9, 10**18 + i * 10**9))  # distinct times: a defined order
    files = sorted(stack.settings.mail_dir.glob("*.eml"), key=lambda p: p.stat().st_mtime_ns)
    assert len(files) == len(created.outbox_ids) == 3
    return files


def hostile_mail(stack: Any) -> Path:
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
    outbox.FileTransport(stack.settings.mail_dir).send(message)
    return next(p for p in stack.settings.mail_dir.glob("*.eml") if "hostile" in p.name)


def test_the_mailbox_lists_the_mail_files_newest_first(stack: Any) -> None:
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


def test_a_mail_is_shown_with_its_plain_text_escaped_and_its_html_sandboxed(embedded: Any) -> None:
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


def test_a_game_mail_is_shown_with_clickable_links_and_its_html_part_framed(embedded: Any) -> None:
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
def test_only_mail_files_listed_in_the_folder_can_be_opened(embedded: Any, name: str) -> None:
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
def test_a_bad_token_opens_nothing(embedded: Any, kind: str) -> None:
    name = send_game_mail(embedded)[0].name
    token = mailbox_token(embedded.settings.secret_key)
    bad = {
        "forged": token[:-2] + ("xy" if not token.endswith("xy") else "zw"),
        "player link": player_token(embedded.settings.secret_key, 1),
        "other secret": mailbox_token("another-secret"),
        "huge": "a" * 3000,
    }[kind]

    for url in (f"/mail/{bad}", f"/mail/{bad}/{name}", f"/mail/{bad}/{name}/html"):
        reply = embedded.client.get(url)
        assert reply.status_code == 403, url
        assert name not in reply.get_data(as_text=True)


def test_the_mailbox_is_off_when_mail_goes_by_smtp(embedded: Any) -> None:
    name = send_game_mail(embedded)[0].name
    settings = replace(embedded.settings, smtp_url="smtp://127.0.0.1:2525")
    client = create_app(settings, embedded.db).test_client()
    token = mailbox_token(settings.secret_key)

    for url in (f"/mail/{token}", f"/mail/{token}/{name}", f"/mail/{token}/{name}/html"):
        reply = client.get(url)
        assert reply.status_code == 404
        assert "sends its mail by SMTP" in reply.get_data(as_text=True)
        assert name not in reply.get_data(as_text=True)


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
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as page:
                    if "box@example.org" in page.read().decode():
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the demo's mail was not listed"
            time.sleep(0.2)
    finally:
        up.terminate()
        up.communicate(timeout=30)


def test_a_reply_written_on_the_mailbox_page_is_taken_like_one_by_mail(embedded: Any) -> None:
    """With mail in files, reply addresses use reply.localhost and the page sends the reply through the same path
    as a mail: a command is applied, anything else gets the error mail, and neither needs a mail server."""
    from sqlalchemy import select

    from server.commands import commands_for
    from server.models import InboundMail, RequestRow
    from server.services.seats import seat_view
    from tests.server.forms import csrf_token

    assert embedded.settings.reply_domain == "reply.localhost"
    created = create(embedded.db, 3, seed=3)
    settings = outbox.MailSettings(
        embedded.settings.secret_key, embedded.settings.base_url, reply_domain=embedded.settings.reply_domain
    )
    transport = outbox.FileTransport(embedded.settings.mail_dir)
    with embedded.db.session() as session:
        seat_id = session.get(outbox.Outbox, created.outbox_ids[0]).seat_id  # type: ignore[union-attr]
    assert outbox.send_one(embedded.db, created.outbox_ids[0], transport, settings, now=T0) == "sent"
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
