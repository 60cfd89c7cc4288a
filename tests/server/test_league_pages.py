"""A league's sign-up pages (server/web/leagues.py): the invitation link's form in the browser's language, a sign-up
pending until the mailed link's button confirms it, every refusal shown on the form with nothing changed, a revoked
link refused, and a confirmation link that changes nothing when only opened (mail scanners follow links)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from werkzeug.test import TestResponse

from server.models import EntryStatus, MailKind, Outbox, Season, SeasonPlayer, utcnow
from server.services.leagues import seasons
from server.services.leagues.seasons import LeagueSpec
from tests.conftest import Stack
from tests.support import all_rows, compose, forged, mail_settings, post_form, rows_of_kind, text_of

DAY = timedelta(days=1)
NEUTRAL = "If this address can sign up, a confirmation is on its way: follow the link in the mail."
ANN = {
    "name": "Ann",
    "email": "ann@example.org",
    "language": "it",
    "timezone": "Europe/Rome",
    "quiet_start": "23:00",
    "quiet_end": "07:00",
}


def open_league(stack: Stack, with_season: bool = True) -> tuple[int, str]:
    """A league "Tuesday Night" (with a season taking sign-ups for a week): its id and invitation token."""
    now = utcnow()
    league_id = seasons.create_league(stack.db, LeagueSpec(name="Tuesday Night", timezone="Europe/Warsaw"), now)
    if with_season:
        seasons.create_season(stack.db, league_id, now + 7 * DAY, 3, "when_over", None, now=now)
    return league_id, seasons.league_link(stack.db, stack.settings.secret_key, league_id, "invite")


def page_text(response: TestResponse) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.get_data(as_text=True)))


def sign_up(stack: Stack, token: str, **values: Any) -> TestResponse:
    return post_form(stack.client, stack.app, f"/l/{token}", ANN | values)


def entries(stack: Stack) -> list[tuple[str, str]]:
    with stack.db.session() as session:
        rows = session.execute(sa.select(SeasonPlayer.status, SeasonPlayer.player_id).order_by(SeasonPlayer.id))
        return [(status, str(player)) for status, player in rows.all()]


def confirm_link(stack: Stack) -> str:
    """The path of the last confirmation mail's link."""
    row = rows_of_kind(stack.db, MailKind.LEAGUE_CONFIRM)[-1]
    message = compose(stack.db, row.id, mail_settings(stack.settings))
    assert message is not None
    found = re.findall(r"https?://[^/\s]+(/l/confirm/\S+)", text_of(message))
    assert len(found) == 1
    return str(found[0])


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ["Season 1", "Sign-ups close on", "Your name", "Quiet hours"]),
        ("it", ["Stagione 1", "Le iscrizioni chiudono", "Il tuo nome", "Ore di silenzio"]),
        ("pl", ["Sezon 1", "Zapisy kończą się", "Twoje imię", "Godziny ciszy"]),
    ],
)
def test_the_form_speaks_the_browsers_language(stack: Stack, language: str, words: list[str]) -> None:
    _, token = open_league(stack)
    before = all_rows(stack.db)
    response = stack.client.get(f"/l/{token}", headers={"Accept-Language": language})
    assert response.status_code == 200
    text = page_text(response)
    assert "Tuesday Night" in text
    for word in words:
        assert word in text
    html = response.get_data(as_text=True)
    assert 'name="csrf_token"' in html and '<option value="Europe/Warsaw" selected>Warsaw</option>' in html
    assert f'<option value="{language}" lang="{language}" selected>' in html
    assert "style=" not in html and all_rows(stack.db) == before  # opening it changes nothing


def test_a_sign_up_is_pending_and_mails_one_confirmation(stack: Stack) -> None:
    _, token = open_league(stack)
    response = sign_up(stack, token)
    assert response.status_code == 200
    assert NEUTRAL in page_text(response) and "ann@example.org" not in page_text(response)
    assert [status for status, _ in entries(stack)] == [EntryStatus.PENDING]
    assert len(rows_of_kind(stack.db, MailKind.LEAGUE_CONFIRM)) == 1


def test_signing_up_again_later_resends_the_mail(stack: Stack) -> None:
    _, token = open_league(stack)
    sign_up(stack, token)
    with stack.db.session() as session:  # the first mail went out an hour ago
        session.execute(sa.update(Outbox).values(created_at=utcnow() - timedelta(hours=1)))
    response = sign_up(stack, token)
    assert response.status_code == 200 and NEUTRAL in page_text(response)
    assert len(entries(stack)) == 1 and len(rows_of_kind(stack.db, MailKind.LEAGUE_CONFIRM)) == 2


@pytest.mark.parametrize("before", ["pending", "confirmed", "withdrawn"])
def test_the_answer_never_tells_whether_an_address_is_signed_up(stack: Stack, before: str) -> None:
    """New, pending (mailed a moment ago), confirmed or withdrawn: the same page, and the same status."""
    _, token = open_league(stack)
    fresh = sign_up(stack, token, email="new@example.org")
    sign_up(stack, token)
    if before == "confirmed":
        _confirmed(stack)
    if before == "withdrawn":
        with stack.db.session() as session:
            session.execute(sa.update(SeasonPlayer).values(status=EntryStatus.WITHDRAWN))
    rows = all_rows(stack.db)
    again = sign_up(stack, token)
    assert (again.status_code, page_text(again)) == (fresh.status_code, page_text(fresh))
    if before != "withdrawn":  # nothing changed, nothing mailed (a withdrawn address is pending again, mailed)
        assert all_rows(stack.db) == rows


def _closed(stack: Stack) -> None:
    with stack.db.session() as session:
        session.execute(sa.update(Season).values(signup_closes=utcnow() - timedelta(minutes=1)))


def _confirmed(stack: Stack) -> None:
    with stack.db.session() as session:
        session.execute(sa.update(SeasonPlayer).values(status=EntryStatus.CONFIRMED))


@pytest.mark.parametrize(
    ("values", "before", "status", "message"),
    [
        ({"name": " "}, None, 400, "Give your name."),
        ({"email": "not an address"}, None, 400, "not an e-mail address"),
        ({"timezone": "Mars/Olympus"}, None, 400, "is not a time zone"),
        ({"quiet_start": "25:00"}, None, 400, "25:00"),
        ({}, "closed", 409, "The sign-up for this season closed on"),
    ],
)
def test_each_refusal_reshows_the_form_and_changes_nothing(
    stack: Stack, values: dict[str, str], before: str | None, status: int, message: str
) -> None:
    _, token = open_league(stack)
    if before == "closed":
        _closed(stack)
    rows = all_rows(stack.db)
    response = sign_up(stack, token, **values)
    assert response.status_code == status
    text = page_text(response)
    assert "Not done:" in text and message in text
    html = response.get_data(as_text=True)
    assert 'id="signup-name"' in html and f'value="{(ANN | values)["email"]}"' in html  # the form again, as given
    assert all_rows(stack.db) == rows


def test_a_refusal_is_translated(stack: Stack) -> None:
    _, token = open_league(stack)
    stack.client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "it"
    italian = sign_up(stack, token, name="")
    assert italian.status_code == 400 and "Give your name." not in page_text(italian)
    assert "Non eseguito:" in page_text(italian) and "Stagione 1" in page_text(italian)


def test_a_revoked_or_forged_invitation_is_refused(stack: Stack) -> None:
    league_id, token = open_league(stack)
    seasons.revoke(stack.db, league_id, "invite")
    rows = all_rows(stack.db)
    for path in (f"/l/{token}", f"/l/{token[:-2]}xx"):
        response = stack.client.get(path)
        assert response.status_code == 403 and "Link not valid" in page_text(response)
        assert sign_up(stack, path.split("/")[-1]).status_code == 403
    assert "revoked" in page_text(stack.client.get(f"/l/{token}"))
    assert all_rows(stack.db) == rows


def test_no_season_taking_sign_ups_says_so(stack: Stack) -> None:
    _, token = open_league(stack, with_season=False)
    response = stack.client.get(f"/l/{token}")
    assert response.status_code == 404
    assert "No season of Tuesday Night is open for sign-ups" in page_text(response)
    rows = all_rows(stack.db)
    assert sign_up(stack, token).status_code == 404 and all_rows(stack.db) == rows


def test_the_mailed_link_opens_a_page_and_its_button_confirms(stack: Stack) -> None:
    _, token = open_league(stack)
    sign_up(stack, token)
    link = confirm_link(stack)
    rows = all_rows(stack.db)
    page = stack.client.get(link)
    assert page.status_code == 200
    assert "Ann (ann@example.org) takes part in season 1 of Tuesday Night" in page_text(page)
    assert all_rows(stack.db) == rows  # a GET (a mail scanner) changes nothing
    assert [status for status, _ in entries(stack)] == [EntryStatus.PENDING]
    assert post_form(stack.client, stack.app, link, csrf=False).status_code == 400  # no CSRF token: refused
    assert all_rows(stack.db) == rows
    done = post_form(stack.client, stack.app, link)
    assert done.status_code == 200 and "You are in season 1 of Tuesday Night." in page_text(done)
    assert [status for status, _ in entries(stack)] == [EntryStatus.CONFIRMED]
    again = post_form(stack.client, stack.app, link)
    assert again.status_code == 200 and "You were already in season 1 of Tuesday Night" in page_text(again)
    refused = stack.client.get(forged(link))
    assert refused.status_code == 403


def test_a_confirmation_after_withdrawing_is_refused(stack: Stack) -> None:
    _, token = open_league(stack)
    sign_up(stack, token)
    link = confirm_link(stack)
    with stack.db.session() as session:
        entry_id = session.execute(sa.select(SeasonPlayer.id)).scalar_one()
    seasons.withdraw(stack.db, entry_id, utcnow())
    rows = all_rows(stack.db)
    response = post_form(stack.client, stack.app, link)
    assert response.status_code == 409 and "You withdrew from this season" in page_text(response)
    assert all_rows(stack.db) == rows


def test_the_confirmation_page_shows_and_changes_the_people_you_know(stack: Stack) -> None:
    """The confirmation (of a sign-up, or of an entry carried over to the next season) shows the acquaintances that
    confirming keeps, in a field to change them; a bad address re-shows the form and changes nothing."""
    _, token = open_league(stack)
    sign_up(stack, token, knows="bob@example.org")
    link = confirm_link(stack)
    page = stack.client.get(link)
    assert page.status_code == 200 and "bob@example.org</textarea>" in page.get_data(as_text=True)
    rows = all_rows(stack.db)
    bad = post_form(stack.client, stack.app, link, {"knows": "bob@example.org\nnot an address"})
    assert bad.status_code == 400 and "is not an e-mail address" in page_text(bad)
    assert "not an address" in bad.get_data(as_text=True) and all_rows(stack.db) == rows
    done = post_form(stack.client, stack.app, link, {"knows": "cat@example.org, dan@example.org"})
    assert done.status_code == 200 and "You are in season 1 of Tuesday Night." in page_text(done)
    with stack.db.session() as session:
        entry = session.execute(sa.select(SeasonPlayer)).scalar_one()
        assert entry.status == EntryStatus.CONFIRMED and entry.knows == ["cat@example.org", "dan@example.org"]
