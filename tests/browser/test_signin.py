"""Signing in by mail in a real browser (issue 30), on a phone and on a desktop: a player who plays a game asks for
a link at /signin, follows the mail's link, signs in with its button and lands on their hub, which lists the
browser; "sign out everywhere" signs both browsers out. No page scrolls sideways."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from server.models import MailKind
from tests.support import api_game, compose, people, rows_of_kind, text_of

from .conftest import EMBEDDED, Live, expect, screenshot
from .test_pages import no_horizontal_scroll

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

pytestmark = EMBEDDED


def _sign_in(served: Live, page: Page, address: str, name: str) -> None:
    page.goto(f"{served.url}/signin")
    expect(page.get_by_role("heading", level=1)).to_have_text("Sign in")
    no_horizontal_scroll(page)
    screenshot(page, f"signin-{name}")
    page.get_by_label("Your e-mail address").fill(address)
    page.get_by_role("button", name="Mail me a sign-in link").click()
    expect(page.get_by_role("status")).to_contain_text("a sign-in link is on its way")
    no_horizontal_scroll(page)
    screenshot(page, f"signin-sent-{name}")

    mail = compose(served.stack.db, rows_of_kind(served.stack.db, MailKind.SIGNIN)[-1].id, served.stack.settings)
    assert mail is not None
    (link,) = re.findall(r"https?://\S+/signin/\S+", text_of(mail))
    assert link.startswith(served.url)
    page.goto(link)
    expect(page.get_by_text(f"Sign in as {address} in this browser")).to_be_visible()
    no_horizontal_scroll(page)
    screenshot(page, f"signin-link-{name}")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your games, leagues and preferences")
    expect(page.locator("#signin")).to_contain_text("this browser")


def test_a_player_signs_in_from_the_mail_on_a_phone_and_a_desktop(
    served: Live, phone: BrowserContext, desktop: BrowserContext
) -> None:
    players = people(3)
    api_game(served.stack.client, players)
    on_phone, on_desktop = phone.new_page(), desktop.new_page()
    _sign_in(served, on_phone, "p0@example.org", "phone")  # (players[0]'s address)
    _sign_in(served, on_desktop, "p0@example.org", "desktop")

    on_desktop.locator("#signin").scroll_into_view_if_needed()
    expect(on_desktop.locator("#signin li")).to_have_count(2)
    screenshot(on_desktop, "signin-hub-desktop")
    on_phone.reload()
    on_phone.locator("#signin").scroll_into_view_if_needed()
    no_horizontal_scroll(on_phone)
    screenshot(on_phone, "signin-hub-phone")

    on_phone.get_by_role("button", name="Sign out everywhere").click()
    expect(on_phone.get_by_role("status")).to_contain_text("Every browser signed in to your games is signed out")
    for page in (on_phone, on_desktop):
        page.goto(f"{served.url}/me")
        expect(page.get_by_role("heading", level=1)).to_have_text("Sign in")
