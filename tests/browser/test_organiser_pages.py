"""The organiser's pages in a real browser (Debian's headless Chromium): a visitor of /o/ lands on the login form
and comes back where they were going; the new-game form shows "<e-mail>" as text; links are copied with a button
(hidden without JavaScript, where the link stays selectable); abandoning asks first and works without JavaScript;
every page fits a phone. Screenshots of each page, desktop (1366 x 900) and phone (390 x 844), go to
tests/browser/screenshots/organiser-*.png."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

import pytest

from server.models import utcnow
from tests.server.test_replay import finish
from tests.support import open_window, play_window

from .conftest import DESKTOP, EMBEDDED, Live, expect, screenshot
from .test_pages import API_TOKEN, Made, make_game, no_dialogs, no_horizontal_scroll

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

pytestmark = EMBEDDED


def signed(link: str) -> str:
    """A seat link without its signature's time (two links of one seat made a second apart differ there)."""
    return link.split(".", maxsplit=1)[0]


def log_in(page: Page, url: str) -> None:
    page.goto(f"{url}/o/login")
    page.get_by_label("Organiser token").fill(API_TOKEN)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your games")


def running_game(served: Live, seed: int) -> Made:
    """A game of three people a few decisions in: characters on the board, a decision open."""
    made = make_game(served, seed=seed)
    now = utcnow()
    for step in range(4):
        if open_window(served.stack.db, made.game_id) is None:
            break
        play_window(served.stack.db, made.game_id, seed * 100 + step, now + dt.timedelta(minutes=step))
    return made


def test_a_visitor_logs_in_and_comes_back_to_the_page_asked_for(served: Live, desktop: BrowserContext) -> None:
    made = make_game(served, seed=21)
    page = desktop.new_page()
    page.set_viewport_size(DESKTOP)
    response = page.goto(f"{served.url}/o/games/{made.game_id}")
    assert response is not None and response.status == 200 and page.url.startswith(f"{served.url}/o/login?next=")
    expect(page.get_by_role("heading", level=1)).to_have_text("Log in as the organiser")
    expect(page.get_by_text("deadmail up")).to_be_visible()
    screenshot(page, "organiser-login-desktop")
    page.get_by_label("Organiser token").fill(API_TOKEN)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{served.url}/o/games/{made.game_id}")


def test_the_organiser_pages_on_a_desktop_and_a_phone(
    served: Live, desktop: BrowserContext, phone: BrowserContext
) -> None:
    running = running_game(served, seed=22)
    over = make_game(served, seed=23, tag="over")
    finish(served.stack.db, over.game_id, seed=23)
    pages = {
        "index": "/o/",
        "game-running": f"/o/games/{running.game_id}",
        "game-over": f"/o/games/{over.game_id}",
        "new-game": "/o/new",
    }
    for kind, context in (("desktop", desktop), ("phone", phone)):
        page = context.new_page()
        opened = no_dialogs(page)
        if kind == "desktop":
            page.set_viewport_size(DESKTOP)
        else:
            page.goto(f"{served.url}/o/login")
            no_horizontal_scroll(page)
            screenshot(page, "organiser-login-phone")
        log_in(page, served.url)
        for name, path in pages.items():
            response = page.goto(f"{served.url}{path}")
            assert response is not None and response.status == 200, path
            no_horizontal_scroll(page)
            screenshot(page, f"organiser-{name}-{kind}")
        assert opened == []
        page.goto(f"{served.url}/o/games/{running.game_id}")
        expect(page.locator("svg.board")).to_have_count(1)
        expect(page.locator(".danger-zone button.danger")).to_have_count(3)
        page.goto(f"{served.url}/o/games/{over.game_id}")
        expect(page.get_by_role("heading", name="Final scores")).to_be_visible()
        page.get_by_role("link", name="See the replay").click()
        expect(page.get_by_role("heading", level=1)).to_contain_text("Replay")
        no_horizontal_scroll(page)


def test_the_new_game_label_shows_e_mail_as_text(served: Live, desktop: BrowserContext) -> None:
    page = desktop.new_page()
    log_in(page, served.url)
    page.goto(f"{served.url}/o/new")
    label = page.locator("label[for=players]")
    expect(label).to_contain_text("“Name <e-mail>”")
    expect(page.get_by_label("Players, one a line")).to_be_visible()
    expect(page.get_by_label("Sprint timing")).to_have_accessible_description(
        "When a Sprint card moves a character again: on its own move, or in one Sprint round after every move."
    )
    expect(page.get_by_label("Axe")).to_be_hidden()  # the weapon table is folded
    page.locator("summary", has_text="Zombies killed by each weapon").click()
    expect(page.get_by_label("Axe")).to_be_visible()


def test_a_link_is_copied_with_its_button(served: Live, desktop: BrowserContext) -> None:
    made = make_game(served, seed=24)
    desktop.grant_permissions(["clipboard-read", "clipboard-write"], origin=served.url)
    page = desktop.new_page()
    log_in(page, served.url)
    page.goto(f"{served.url}/o/games/{made.game_id}")
    page.get_by_text("Players and their links").click()
    field = page.get_by_label("Link of the Red seat")
    link = field.input_value()
    assert signed(link) == signed(made.seats["red"][1])
    button = page.get_by_role("button", name="Copy (Link of the Red seat)")
    expect(button).to_be_visible()
    button.click()
    status = page.locator(".copy-field", has=field).locator(".copy-status")
    expect(status).to_have_text("Copied")
    expect(status).to_have_attribute("aria-live", "polite")
    assert page.evaluate("() => navigator.clipboard.readText()") == link


def test_without_javascript_links_stay_selectable_and_abandoning_asks_first(served: Live, nojs: BrowserContext) -> None:
    made = make_game(served, seed=25)
    page = nojs.new_page()
    log_in(page, served.url)
    page.goto(f"{served.url}/o/games/{made.game_id}")
    page.get_by_text("Players and their links").click()
    field = page.get_by_label("Link of the Red seat")
    expect(field).to_be_visible()
    assert signed(field.input_value()) == signed(made.seats["red"][1])
    expect(page.locator("button.copy-button")).to_have_count(3)
    for button in page.locator("button.copy-button").all():
        expect(button).to_be_hidden()
    page.get_by_role("button", name="Abandon…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Abandon the game?")
    screenshot(page, "organiser-confirm-desktop")
    page.get_by_role("link", name="No, back to the game's page").click()
    expect(page.get_by_role("heading", name="What cannot be undone")).to_be_visible()
    page.get_by_role("button", name="Abandon…").click()
    page.get_by_role("button", name="Yes, abandon the game").click()
    expect(page.get_by_role("status")).to_have_text("The game is abandoned.")


@pytest.mark.parametrize("lang", ["it", "pl"])
def test_the_organiser_pages_fit_a_phone_in_italian_and_polish(served: Live, browser: Browser, lang: str) -> None:
    running = running_game(served, seed=26)
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale=lang, device_scale_factor=2
    )
    try:
        page = context.new_page()
        page.goto(f"{served.url}/o/games/{running.game_id}")  # to the login form, in the reader's language
        expect(page.locator("html")).to_have_attribute("lang", lang)
        no_horizontal_scroll(page)
        page.locator("#token").fill(API_TOKEN)
        page.locator("form button[type=submit]").click()
        expect(page).to_have_url(f"{served.url}/o/games/{running.game_id}")
        no_horizontal_scroll(page)
        screenshot(page, f"organiser-game-running-phone-{lang}")
        page.goto(f"{served.url}/o/new")
        no_horizontal_scroll(page)
        page.locator("#players").fill("Ann <ann@example.org>\nbot\nbot:random")
        page.locator("button.big[type=submit]").click()
        expect(page.locator("#organiser-link")).to_be_visible()
        no_horizontal_scroll(page)
        screenshot(page, f"organiser-created-phone-{lang}")
        page.locator("button.copy-button").first.click()  # the status says so in the page's language
        expect(page.locator(".copy-status").first).not_to_be_empty()
        page.goto(f"{served.url}/o/games/{running.game_id}")
        page.locator("form[action$=abandon] button").click()
        expect(page.locator("form button.danger.big")).to_be_visible()
        no_horizontal_scroll(page)
    finally:
        context.close()
