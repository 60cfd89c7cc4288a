"""A league's sign-up in a real browser: a player opens the invitation link on a phone, signs up, follows
the link of the confirmation mail, confirms with its button and is in the season; no page scrolls sideways."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING

import sqlalchemy as sa

from server.models import EntryStatus, MailKind, SeasonPlayer, utcnow
from server.services.leagues import seasons
from server.services.leagues.seasons import LeagueSpec
from tests.support import compose, rows_of_kind, text_of

from .conftest import EMBEDDED, Live, expect, screenshot
from .test_pages import no_horizontal_scroll

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

pytestmark = EMBEDDED


def test_a_player_signs_up_on_a_phone_and_confirms_by_the_mail(served: Live, phone: BrowserContext) -> None:
    db, settings = served.stack.db, served.stack.settings
    now = utcnow()
    league_id = seasons.create_league(db, LeagueSpec(name="Tuesday Night", timezone="Europe/Rome"), now)
    seasons.create_season(db, league_id, now + timedelta(days=7), 3, "when_over", None, now=now)
    invite = seasons.league_link(db, settings.secret_key, league_id, "invite")

    page = phone.new_page()
    page.goto(f"{served.url}/l/{invite}")
    expect(page.get_by_role("heading", level=1)).to_have_text("Tuesday Night")
    expect(page.get_by_role("heading", level=2)).to_have_text("Season 1")
    no_horizontal_scroll(page)
    screenshot(page, "league-signup-phone")
    page.get_by_label("Your name (your opponents see it)").fill("Ann")
    page.get_by_label("Your e-mail (the league's and the games' mails go there)").fill("ann@example.org")
    page.get_by_label("Language").select_option("it")
    page.get_by_label("Time zone").select_option("Europe/Warsaw")
    page.get_by_label("Quiet hours start").fill("23:00")
    page.get_by_label("Quiet hours end").fill("07:00")
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Check your mail")
    expect(page.get_by_role("status")).to_contain_text("If this address can sign up, a confirmation is on its way")
    no_horizontal_scroll(page)
    screenshot(page, "league-check-mail-phone")

    rows = rows_of_kind(db, MailKind.LEAGUE_CONFIRM)
    assert len(rows) == 1
    mail = compose(db, rows[0].id, settings)
    assert mail is not None
    links = re.findall(r"https?://\S+/l/confirm/\S+", text_of(mail))
    assert len(links) == 1 and links[0].startswith(served.url)

    page.goto(links[0])
    expect(page.get_by_text("Ann (ann@example.org)")).to_contain_text("season 1 of Tuesday Night")
    no_horizontal_scroll(page)
    screenshot(page, "league-confirm-phone")
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("status")).to_have_text("You are in season 1 of Tuesday Night.")
    no_horizontal_scroll(page)
    screenshot(page, "league-confirmed-phone")
    with db.session() as session:
        entry = session.execute(sa.select(SeasonPlayer)).scalar_one()
        assert entry.status == EntryStatus.CONFIRMED
