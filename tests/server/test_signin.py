"""Players sign in by mail (issue 30): /signin mails a link, the link's button signs the browser in (once, for 30
minutes), /me opens the player's hub, and the hub lists the signed-in browsers with "sign out everywhere". On both
setups."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from flask.testing import FlaskClient

from server.models import MailKind, utcnow
from server.present.hub import browser_label
from server.services import signin
from server.services.links import LinkError, signin_token
from tests.conftest import Stack
from tests.support import add_player, compose, mail_settings, post_form, rows_of_kind, text_of

ANN = "ann@example.org"


def _mailed_link(stack: Stack, index: int = -1) -> str:
    """The sign-in link of the ``index``-th sign-in mail, as its reader sees it (the mail composed from its row)."""
    rows = rows_of_kind(stack.db, MailKind.SIGNIN)
    message = compose(stack.db, rows[index].id, mail_settings(stack.settings))
    assert message is not None
    (url,) = re.findall(r"http://deadmail\.test(/signin/[\w.-]+)", text_of(message))
    return url


def _signed_in(client: FlaskClient) -> bool:
    """Whether /me opens a hub (else it sends to the sign-in form)."""
    reply = client.get("/me")
    assert reply.status_code in (302, 303)
    return "/p/" in reply.headers["Location"]


def _sign_in(stack: Stack, client: FlaskClient, address: str = ANN) -> None:
    assert post_form(client, stack.app, "/signin", {"address": address}).status_code == 200
    reply = post_form(client, stack.app, _mailed_link(stack))
    assert reply.status_code == 303 and reply.headers["Location"].endswith("/me")


def test_a_mailed_link_signs_the_browser_in_once_and_opens_the_hub(stack: Stack) -> None:
    add_player(stack.db, ANN)
    client = stack.client
    assert client.get("/signin").status_code == 200
    sent = post_form(client, stack.app, "/signin", {"address": " Ann@Example.org "})
    assert sent.status_code == 200 and "Check your mail" in sent.text
    link = _mailed_link(stack)

    page = client.get(link)  # opening the link (as a mail scanner would) changes nothing
    assert page.status_code == 200 and ANN in page.text
    assert not _signed_in(client)

    assert post_form(client, stack.app, link).status_code == 303
    hub = client.get("/me", follow_redirects=True)
    assert hub.status_code == 200
    assert "Signed-in browsers" in hub.text and "this browser" in hub.text

    other = stack.app.test_client()  # the same link again, in this browser or another: used
    for who in (client, other):
        refused = post_form(who, stack.app, link)
        assert refused.status_code == 403 and "used already" in refused.text
        assert who.get(link).status_code == 403
    assert not _signed_in(other)


def test_the_answer_tells_nothing_of_the_address(stack: Stack) -> None:
    """The same page for a player's address and for nobody's; only the player's gets a mail."""
    add_player(stack.db, ANN)
    known = post_form(stack.app.test_client(), stack.app, "/signin", {"address": ANN})
    unknown = post_form(stack.app.test_client(), stack.app, "/signin", {"address": "nobody@example.org"})
    assert known.status_code == unknown.status_code == 200
    assert known.text == unknown.text
    assert len(rows_of_kind(stack.db, MailKind.SIGNIN)) == 1


def test_an_expired_link_is_refused(stack: Stack) -> None:
    add_player(stack.db, ANN)
    signin.ask(stack.db, ANN, utcnow() - timedelta(minutes=31))
    (row,) = rows_of_kind(stack.db, MailKind.SIGNIN)
    assert compose(stack.db, row.id, mail_settings(stack.settings)) is None  # too old to mail
    token = signin_token(stack.settings.secret_key, row.payload["link"])
    for reply in (stack.client.get(f"/signin/{token}"), post_form(stack.client, stack.app, f"/signin/{token}")):
        assert reply.status_code == 403 and "expired" in reply.text
    assert not _signed_in(stack.client)
    with pytest.raises(LinkError, match="expired"):
        signin.open_link(stack.db, stack.settings.secret_key, token, "agent")


def test_a_forged_link_opens_nothing(stack: Stack) -> None:
    add_player(stack.db, ANN)
    post_form(stack.client, stack.app, "/signin", {"address": ANN})
    link = _mailed_link(stack)
    for forged in (link[:-2] + ("AA" if not link.endswith("AA") else "BB"), "/signin/1", "/signin/" + "x" * 600):
        assert stack.client.get(forged).status_code == 403
        assert post_form(stack.client, stack.app, forged).status_code == 403
    assert not _signed_in(stack.client)


def test_signing_out_ends_the_session_for_every_copy_of_the_cookie(stack: Stack) -> None:
    add_player(stack.db, ANN)
    _sign_in(stack, stack.client)
    with stack.client.session_transaction() as session:
        copied = dict(session)
    thief = stack.app.test_client()
    with thief.session_transaction() as session:
        session.update(copied)
    assert _signed_in(thief)
    assert post_form(stack.client, stack.app, "/signout").status_code == 303
    assert not _signed_in(stack.client)
    assert not _signed_in(thief)


def test_sign_out_everywhere_from_the_hub(stack: Stack) -> None:
    add_player(stack.db, ANN)
    phone, laptop = stack.app.test_client(), stack.app.test_client()
    _sign_in(stack, phone)
    _sign_in(stack, laptop)
    hub = laptop.get("/me")
    path = hub.headers["Location"].removeprefix("http://localhost")
    page = laptop.get(path)
    assert page.text.count("signed in: ") == 2  # both browsers listed
    done = post_form(laptop, stack.app, path + "/signout")
    assert done.status_code == 303 and done.headers["Location"].endswith("/signin?out=all")
    assert "Every browser signed in" in laptop.get(done.headers["Location"]).text
    assert not _signed_in(phone) and not _signed_in(laptop)
    # the link to the hub a signed-in browser was sent to (kept in its history) opens nothing any more
    assert phone.get(path).status_code == 403
    _sign_in(stack, phone)
    assert phone.get(phone.get("/me").headers["Location"]).status_code == 200


def test_the_button_of_a_used_link_leaves_the_browser_signed_in(stack: Stack) -> None:
    """Pressing it again (the back button, a double click) is refused and changes nothing."""
    add_player(stack.db, ANN)
    post_form(stack.client, stack.app, "/signin", {"address": ANN})
    link = _mailed_link(stack)
    assert post_form(stack.client, stack.app, link).status_code == 303
    again = post_form(stack.client, stack.app, link)
    assert again.status_code == 403
    assert _signed_in(stack.client)


def test_a_new_link_after_an_old_one_was_deleted(stack: Stack) -> None:
    """Asking again after the first link expired (and was deleted): a new link of its own and its own mail (SQLite
    would give the deleted row's id again without AUTOINCREMENT)."""
    add_player(stack.db, ANN)
    signin.ask(stack.db, ANN, utcnow() - timedelta(minutes=40))
    signin.ask(stack.db, ANN, utcnow())
    rows = rows_of_kind(stack.db, MailKind.SIGNIN)
    assert len(rows) == 2 and rows[0].payload["link"] != rows[1].payload["link"]
    assert compose(stack.db, rows[0].id, mail_settings(stack.settings)) is None  # the old one: deleted
    assert compose(stack.db, rows[1].id, mail_settings(stack.settings)) is not None


def test_a_session_expires(stack: Stack) -> None:
    add_player(stack.db, ANN)
    signin.ask(stack.db, ANN)
    (row,) = rows_of_kind(stack.db, MailKind.SIGNIN)
    token = signin_token(stack.settings.secret_key, row.payload["link"])
    session_id = signin.open_link(stack.db, stack.settings.secret_key, token, "agent")
    assert signin.find(stack.db, session_id) is not None
    assert signin.find(stack.db, session_id, utcnow() + signin.LIFETIME + timedelta(minutes=1)) is None


@pytest.mark.parametrize("address", ["not an address", "ann@example.org\r\nBcc: x@example.org", "", "a@b@c d"])
def test_a_bad_address_is_refused_and_nothing_is_sent(stack: Stack, address: str) -> None:
    add_player(stack.db, ANN)
    reply = post_form(stack.client, stack.app, "/signin", {"address": address})
    assert reply.status_code == 400 and "Not done" in reply.text
    assert rows_of_kind(stack.db, MailKind.SIGNIN) == []


def test_asking_is_limited_per_address_and_per_connection(stack: Stack) -> None:
    add_player(stack.db, ANN)
    client = stack.client
    for _ in range(3):
        assert post_form(client, stack.app, "/signin", {"address": ANN}).status_code == 200
    refused = post_form(client, stack.app, "/signin", {"address": ANN})
    assert refused.status_code == 429 and "this address" in refused.text
    assert refused.headers["Retry-After"] == "3600"
    assert len(rows_of_kind(stack.db, MailKind.SIGNIN)) == 3
    # other addresses from the same connection, up to its own limit (10 an hour, the refused one counted)
    for i in range(6):
        assert post_form(client, stack.app, "/signin", {"address": f"p{i}@example.org"}).status_code == 200
    refused = post_form(client, stack.app, "/signin", {"address": "late@example.org"})
    assert refused.status_code == 429 and "your connection" in refused.text


@pytest.mark.parametrize(("language", "subject"), [("it", "accedere"), ("pl", "logowania")])
def test_the_mail_reads_in_the_players_language(stack: Stack, language: str, subject: str) -> None:
    add_player(stack.db, ANN, language=language)
    signin.ask(stack.db, ANN)
    (row,) = rows_of_kind(stack.db, MailKind.SIGNIN)
    message = compose(stack.db, row.id, mail_settings(stack.settings))
    assert message is not None
    assert subject in str(message["Subject"])
    assert "/signin/" in text_of(message)


@pytest.mark.parametrize(
    ("agent", "shown"),
    [
        ("Mozilla/5.0 (Android 14; Mobile; rv:132.0) Gecko/132.0 Firefox/132.0", "Firefox on Android"),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 "
            "Safari/537.36 Edg/131.0",
            "Edge on Windows",
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
            "Version/18.1 Mobile/15E148 Safari/604.1",
            "Safari on iPhone",
        ),
        (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
            "Chrome on Linux",
        ),
        ("curl/8.5", "A browser"),
        ("", "A browser"),
    ],
)
def test_the_hub_names_a_browser_as_a_person_would(agent: str, shown: str) -> None:
    assert browser_label("en", agent) == shown
