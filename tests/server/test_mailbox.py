"""The embedded default's mailbox (/mail/<token>): the mail files written by the FileTransport, listed newest
first and shown (HTML sandboxed, plain text escaped); organiser token required, only files of the folder reachable,
off when mail goes by SMTP; ``deadmail up`` prints its address."""

from __future__ import annotations

import html
import io
import os
import re
import subprocess
import urllib.request
from dataclasses import replace
from datetime import datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import format_datetime, formatdate, make_msgid
from pathlib import Path

import pytest
from markupsafe import escape
from PIL import Image
from sqlalchemy import select

from engine.data import LOCATIONS
from server.mail.folder import DEMO_DOMAIN
from server.mail.send import send_one
from server.mail.transports import FileTransport
from server.models import InboundMail, RequestRow
from server.services.links import mailbox_token, player_token
from server.services.play.seats import seat_view
from server.text import glossary
from server.text.grammar import commands_for
from server.web.app import create_app
from server.web.mailbox import SANDBOX
from tests.conftest import Stack
from tests.support import DEADMAIL, T0, clean_env, create, csrf_token, free_port, outbox_ids, rows_of, utc
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
    links = re.findall(r"http://deadmail\.test/[sp]/[\w.-]+(?:\?via=mail)?(?![\w./?-])", plain.get_content())

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


# --- the list: filters, pages, dates in the reader's zone, bad input, the demo's bots left out ---------------------


def write_mail(stack: Stack, i: int, to: str, subject: str, date: datetime = T0) -> str:
    """A mail written by the file transport, the ``i``-th oldest; its file name."""
    message = EmailMessage()
    message["From"] = "deadmail <deadmail@localhost>"
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = format_datetime(date)
    message["Message-ID"] = f"<mail-{i:04d}@deadmail>"
    message.set_content(f"mail {i}\n")
    FileTransport(stack.settings.mail_dir).send(message, lambda: None)
    path = stack.settings.mail_dir / f"mail-{i:04d}@deadmail.eml"
    os.utime(path, ns=(10**18 + i * 10**9, 10**18 + i * 10**9))  # distinct times: a defined order
    return path.name


def listed_names(body: str) -> list[str]:
    return re.findall(r'href="/mail/[^/"]+/([^"]+\.eml)"', body)


def test_the_list_is_filtered_by_game_and_by_recipient(embedded: Stack) -> None:
    names = {
        write_mail(embedded, 1, "Ann <ann@example.org>", "Mall of Horror, game 7: your decision (Round 1)"),
        write_mail(embedded, 2, "Bob <bob@example.org>", "Mall of Horror, game 7: what happened (Round 1)"),
        write_mail(embedded, 3, "Ann <ann@example.org>", "Mall of Horror, partita 12: la tua decisione (Turno 2)"),
        write_mail(embedded, 4, "Ann <ANN@example.org>", "Your digest: news from 2 games"),
    }
    url = mailbox_url(embedded)

    page = embedded.client.get(url).get_data(as_text=True)
    assert set(listed_names(page)) == names
    assert '<option value="12">Game 12</option>' in page and '<option value="7">Game 7</option>' in page
    assert "<option>ann@example.org</option>" in page and "<option>bob@example.org</option>" in page

    assert listed_names(embedded.client.get(f"{url}?game=7").get_data(as_text=True)) == [
        "mail-0002@deadmail.eml",
        "mail-0001@deadmail.eml",
    ]
    assert listed_names(embedded.client.get(f"{url}?game=12").get_data(as_text=True)) == ["mail-0003@deadmail.eml"]
    by_ann = embedded.client.get(f"{url}?to=Ann@Example.org").get_data(as_text=True)
    assert listed_names(by_ann) == ["mail-0004@deadmail.eml", "mail-0003@deadmail.eml", "mail-0001@deadmail.eml"]
    both = embedded.client.get(f"{url}?game=7&to=ann@example.org").get_data(as_text=True)
    assert listed_names(both) == ["mail-0001@deadmail.eml"]
    assert '<option value="7" selected>Game 7</option>' in both and "<option selected>ann@example.org</option>" in both
    none = embedded.client.get(f"{url}?game=99")
    assert none.status_code == 200 and listed_names(none.get_data(as_text=True)) == []
    assert "No mail matches." in none.get_data(as_text=True)


def test_the_list_has_pages_of_fifty_newest_first(embedded: Stack) -> None:
    names = [write_mail(embedded, i, f"P{i % 3} <p{i % 3}@example.org>", f"Mail {i}") for i in range(120)]
    newest_first = names[::-1]
    url = mailbox_url(embedded)

    first = embedded.client.get(url).get_data(as_text=True)
    assert listed_names(first) == newest_first[:50]
    assert "Mails 1–50 of 120" in first and "Page 1 of 3" in first
    assert 'rel="prev"' not in first
    older = re.search(r'rel="next" href="([^"]+)"', first)
    assert older is not None and older.group(1).endswith("?page=2")

    second = embedded.client.get(older.group(1).replace("&amp;", "&")).get_data(as_text=True)
    assert listed_names(second) == newest_first[50:100]
    newer = re.search(r'rel="prev" href="([^"]+)"', second)
    assert newer is not None and newer.group(1) == url  # back to the first page

    third = embedded.client.get(f"{url}?page=3").get_data(as_text=True)
    assert listed_names(third) == newest_first[100:]
    assert "Mails 101–120 of 120" in third and 'rel="next"' not in third
    assert listed_names(embedded.client.get(f"{url}?page=99").get_data(as_text=True)) == newest_first[100:]

    filtered = embedded.client.get(f"{url}?to=p1@example.org&page=1").get_data(as_text=True)
    assert "Mails 1–40 of 40" in filtered and "Page 1 of" not in filtered  # one page: no page links
    assert listed_names(filtered) == [n for i, n in enumerate(names) if i % 3 == 1][::-1]
    two = [write_mail(embedded, 200 + i, "P0 <p0@example.org>", "More") for i in range(20)]
    kept = embedded.client.get(f"{url}?to=p0@example.org&game=&page=1").get_data(as_text=True)
    assert listed_names(kept)[:20] == two[::-1]
    nxt = re.search(r'rel="next" href="([^"]+)"', kept)
    assert nxt is not None and nxt.group(1).endswith("?to=p0@example.org&amp;page=2")


def test_dates_are_in_utc_until_the_reader_chooses_a_zone_which_is_remembered(embedded: Stack) -> None:
    name = write_mail(embedded, 1, "Ann <ann@example.org>", "Mall of Horror, game 1: hello", utc(2026, 1, 15, 18, 5))
    url = mailbox_url(embedded)

    page = embedded.client.get(url).get_data(as_text=True)
    assert '<time class="mail-date" datetime="2026-01-15T18:05:00Z">15/01/2026, 18:05 UTC</time>' in page
    assert '<option value="UTC" selected>UTC</option>' in page
    assert "deadmail_mailbox_tz" not in embedded.client.get(url).headers.get("Set-Cookie", "")

    chosen = embedded.client.get(f"{url}?tz=Europe/Rome")
    assert '<time class="mail-date" datetime="2026-01-15T18:05:00Z">15/01/2026, 19:05 CET</time>' in chosen.get_data(
        as_text=True
    )
    cookie = chosen.headers["Set-Cookie"]
    assert cookie.startswith("deadmail_mailbox_tz=Europe/Rome;") and "HttpOnly" in cookie and "Path=/mail/" in cookie

    again = embedded.client.get(url).get_data(as_text=True)  # the cookie remembers it
    assert "19:05 CET" in again and '<option value="Europe/Rome" selected>Rome</option>' in again
    shown = embedded.client.get(f"{url}/{name}").get_data(as_text=True)
    assert "15/01/2026, 19:05 CET" in shown  # the mail's own page too
    summer = write_mail(embedded, 2, "Ann <ann@example.org>", "later", utc(2026, 7, 1, 6, 0))
    assert summer in listed_names(embedded.client.get(f"{url}?tz=Asia/Tokyo").get_data(as_text=True))
    assert "01/07/2026, 15:00 JST" in embedded.client.get(url).get_data(as_text=True)


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("game=abc", "The game must be a number"),
        ("game=-1", "The game must be a number"),
        ("game=%EF%BC%97", "The game must be a number"),  # a full-width 7
        ("game=" + "9" * 40, "The game must be a number"),
        ("page=0", "The page must be a number"),
        ("page=two", "The page must be a number"),
        ("page=1e9", "The page must be a number"),
        ("to=" + "a" * 400, "That is not an e-mail address"),
        ("to=ann%0a%09@example.org", "That is not an e-mail address"),
        ("tz=Mars/Olympus", "is not a time zone"),
        ("tz=%3Cscript%3Ealert(1)%3C/script%3E", "is not a time zone"),
        ("tz=../../etc/passwd", "is not a time zone"),
        ("game=1&game=x&tz=" + "x" * 5000, "is not a time zone"),
    ],
)
def test_bad_filters_are_set_aside_with_a_clear_message(embedded: Stack, query: str, said: str) -> None:
    send_game_mail(embedded)
    write_mail(embedded, 1, "Ann <ann@example.org>", "Mall of Horror, game 1: hello")

    reply = embedded.client.get(f"{mailbox_url(embedded)}?{query}")

    assert reply.status_code == 400
    body = reply.get_data(as_text=True)
    assert said in body and 'class="warning" role="alert"' in body
    assert "<script>" not in body
    assert listed_names(body)  # the list is still there
    assert "deadmail_mailbox_tz" not in reply.headers.get("Set-Cookie", "")


def test_a_bad_zone_cookie_is_ignored(embedded: Stack) -> None:
    write_mail(embedded, 1, "Ann <ann@example.org>", "hello", utc(2026, 1, 15, 18, 5))
    embedded.client.set_cookie("deadmail_mailbox_tz", "Nowhere/<b>", path="/mail/")

    reply = embedded.client.get(mailbox_url(embedded))

    assert reply.status_code == 200 and "18:05 UTC" in reply.get_data(as_text=True)


def test_mail_to_the_demos_bots_is_not_listed(embedded: Stack) -> None:
    mine = write_mail(embedded, 1, "You <you@example.org>", "Mall of Horror, game 1: your decision")
    for i in range(3):
        write_mail(embedded, 2 + i, f"Bot {i} <bot{i}.1a2b@{DEMO_DOMAIN}>", "Mall of Horror, game 2: your decision")

    body = embedded.client.get(mailbox_url(embedded)).get_data(as_text=True)

    assert listed_names(body) == [mine]
    assert DEMO_DOMAIN not in body and "Game 2" not in body
    assert "3 mails to the bots of deadmail demo --auto are not listed." in body


LONG_SUBJECTS = [
    "Liga wtorkowa 2026: Mall of Horror, gra 12: twoja kolej, zagłosuj na szeryfa w parkingu przed czwartkiem"
    " wieczorem bo okno głosowania zamyka się już wkrótce",  # folded before an encoded word: read with two spaces
    "Mall of Horror, partita 7: è il tuo turno di votare per lo sceriffo — la finestra si chiude giovedì alle 18:00",
    "Lega del martedì, stagione 2: i tavoli del turno 3 — giovedì alle 18:00, cinque giocatori per tavolo, buona",
    "Mall of Horror, gra 12: głosowanie na szeryfa — okno zamyka się w czwartek o 18:00, Łódź źdźbło zażółć jaźń",
    "Liga wtorkowa, sezon 2: wyniki rundy 3 — gęślą jaźń, Żółw Łukasz Ściborski i Źrebię zajęli pierwsze miejsca",
    "A plain English subject that is long enough to be folded by the mail library, " + "x" * 90 + " and then more",
]


@pytest.mark.parametrize("subject", LONG_SUBJECTS)
def test_a_long_folded_subject_reads_back_with_single_spaces(tmp_path: Path, subject: str) -> None:
    """A long Subject is folded when the mail is written (headers.POLICY); read back by the mailbox (folder), by
    Python's email package (default policy) and by its legacy decode_header, it is the subject sent, exactly."""
    from email.header import decode_header, make_header

    from server.mail import folder
    from server.mail.headers import POLICY

    message = EmailMessage(POLICY)
    message["Subject"], message["Message-ID"] = subject, make_msgid(domain="example.org")
    message.set_content("x")
    FileTransport(tmp_path / "mail").send(message, lambda: None)
    (path,) = folder.mail_files(tmp_path / "mail")
    raw = path.read_bytes()
    assert all(len(line) <= 78 for line in raw.split(b"\n")), raw  # folded: no line too long
    assert folder.headers(path)["Subject"] == subject
    assert str(message_from_bytes(raw, policy=policy.default)["Subject"]) == subject
    legacy = message_from_bytes(raw)["Subject"].replace("\r\n", "").replace("\n", "")  # unfolded (RFC 5322)
    assert str(make_header(decode_header(legacy))) == subject


def test_a_game_mail_shows_a_picture_of_the_mall_inline_with_a_useful_alt_text(embedded: Stack) -> None:
    """The HTML part of a game's mail shows the mall as a PNG attached inline (the big webmail clients show no SVG),
    its alt text the whole board in words; the text part is unchanged (no picture, no reference to it); the mailbox
    page serves the picture where the HTML part asks for it."""
    newest = send_game_mail(embedded)[-1]
    mail = message_from_bytes(newest.read_bytes(), policy=policy.default)
    html_part = mail.get_body(preferencelist=("html",))
    text_part = mail.get_body(preferencelist=("plain",))
    assert html_part is not None and text_part is not None
    body = html_part.get_content()
    tags = re.findall(r'<img class="mall-picture"[^>]*>', body)
    assert len(tags) == 1
    attributes = dict(re.findall(r'(\w+)="([^"]*)"', tags[0]))
    assert attributes["src"].startswith("cid:") and attributes["width"] == "360"
    cid, alt = attributes["src"].removeprefix("cid:"), html.unescape(attributes["alt"])
    assert all(glossary.location_label("en", loc) in alt for loc in LOCATIONS)
    pictures = [p for p in mail.walk() if p.get_content_type() == "image/png"]
    assert [str(p["Content-ID"]) for p in pictures] == [f"<{cid}>"]
    image = Image.open(io.BytesIO(pictures[0].get_payload(decode=True)))
    assert image.format == "PNG" and image.width == 540  # drawn at 1.5 times the width it is shown
    assert "cid:" not in text_part.get_content() and "mall-picture" not in text_part.get_content()
    framed = embedded.client.get(f"{mailbox_url(embedded)}/{newest.name}/html").get_data(as_text=True)
    src = dict(re.findall(r'(\w+)="([^"]*)"', re.findall(r'<img class="mall-picture"[^>]*>', framed)[0]))["src"]
    assert not src.startswith("cid:")
    served = embedded.client.get(src)
    assert served.status_code == 200 and served.mimetype == "image/png"
    assert served.data == pictures[0].get_payload(decode=True)
    assert embedded.client.get(src + "x").status_code == 404
