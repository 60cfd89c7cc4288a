"""The mailbox page in a real browser: a list of cards that fits a phone, filters and pages that work without
JavaScript, dates in the zone the reader chooses; screenshots on a desktop (1366 x 900) and a phone (390 x 844)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from server.services.links import mailbox_token
from tests.server.test_mailbox import send_game_mail, write_mail
from tests.support import utc

from .conftest import EMBEDDED, Live, _context, expect, screenshot
from .test_pages import no_horizontal_scroll

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

pytestmark = EMBEDDED


@pytest.fixture
def nojs_phone(browser: Browser) -> Iterator[BrowserContext]:
    """A phone with JavaScript turned off."""
    yield from _context(
        browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, java_script_enabled=False
    )


def fill_mailbox(served: Live) -> str:
    """A game's real mails and 60 more (two games, three people, a long name and subject); the mailbox's address."""
    stack = served.stack
    send_game_mail(stack)
    people = ["Ann <ann@example.org>", "Bruno <bruno@example.org>", "Aleksandra Wiśniewska-Kowalczyk <ola@example.org>"]
    for i in range(60):
        game = 7 if i % 2 else 12
        subject = f"Mall of Horror, game {game}: {'your decision' if i % 3 else 'what happened'} (Round {i // 6 + 1})"
        write_mail(stack, 100 + i, people[i % 3], subject, utc(2026, 1, 15, 8, i))
    return f"{served.url}/mail/{mailbox_token(stack.settings.secret_key)}"


def tap_targets_are_big_enough(page: Page) -> None:
    for selector in (".mail-subject", ".mailbox-filters select", ".mailbox-filters button", ".mailbox-pages a"):
        for box in [page.locator(selector).nth(i).bounding_box() for i in range(page.locator(selector).count())]:
            assert box is not None and box["height"] >= 40, (selector, box)


def test_the_mailbox_on_a_desktop(served: Live, desktop: BrowserContext) -> None:
    box = fill_mailbox(served)
    page = desktop.new_page()
    page.goto(box)

    expect(page.locator(".mail-card")).to_have_count(50)
    expect(page.get_by_text("Mails 1–50 of 63")).to_be_visible()
    no_horizontal_scroll(page)
    screenshot(page, "mailbox-desktop")

    page.get_by_label("Game").select_option("7")
    page.get_by_label("To").select_option("bruno@example.org")
    page.get_by_label("Dates in").select_option("Europe/Rome")
    page.get_by_role("button", name="Show").click()
    cards = page.locator(".mail-card")
    expect(cards).to_have_count(10)  # game 7: odd i; Bruno: i % 3 == 1
    expect(cards.first).to_contain_text("Mall of Horror, game 7")
    expect(cards.first).to_contain_text("bruno@example.org")
    expect(cards.first.locator("time")).to_have_text("15/01/2026, 09:55 CET")  # 08:55 UTC
    screenshot(page, "mailbox-desktop-filtered")


def test_the_mailbox_on_a_phone_without_javascript(served: Live, nojs_phone: BrowserContext) -> None:
    box = fill_mailbox(served)
    page = nojs_phone.new_page()
    page.goto(box)

    no_horizontal_scroll(page)
    tap_targets_are_big_enough(page)
    cards = page.locator(".mail-card")
    expect(cards).to_have_count(50)
    first, second = cards.nth(0).bounding_box(), cards.nth(1).bounding_box()
    assert first is not None and second is not None and second["y"] > first["y"] + first["height"] - 1  # stacked
    assert first["width"] <= 390
    expect(cards.first.locator("time")).to_have_text("15/01/2026, 08:59 UTC")
    screenshot(page, "mailbox-phone")

    page.get_by_role("link", name="Older →").click()
    expect(page.get_by_text("Mails 51–63 of 63")).to_be_visible()
    expect(cards).to_have_count(13)
    no_horizontal_scroll(page)

    page.get_by_label("Dates in").select_option("Asia/Tokyo")
    page.get_by_role("button", name="Show").click()  # a plain form: no JavaScript needed
    expect(cards.first.locator("time")).to_have_text("15/01/2026, 17:59 JST")
    page.goto(box)  # the zone is remembered
    expect(cards.first.locator("time")).to_have_text("15/01/2026, 17:59 JST")
    no_horizontal_scroll(page)
    screenshot(page, "mailbox-phone-zone")


@pytest.mark.parametrize("width", [320, 1000])
def test_a_game_mail_reads_at_320_px_and_in_a_desktop_client(served: Live, browser: Browser, width: int) -> None:
    """The HTML part of a game's mail, as a client shows it at 320 px (a phone's mail app) and at 1000 px (a desktop
    client's reading pane): no sideways scroll, the mall's picture shown and no wider than the text, the buttons
    saying the answers in words. Screenshots: mail-html-<width>.png."""
    stack = served.stack
    newest = send_game_mail(stack)[-1]
    token = mailbox_token(stack.settings.secret_key)
    for context in _context(browser, viewport={"width": width, "height": 900}):
        page = context.new_page()
        page.goto(f"{served.url}/mail/{token}/{newest.name}/html")
        picture = page.locator("img.mall-picture")
        expect(picture).to_be_visible()
        assert page.evaluate("() => document.querySelector('img.mall-picture').naturalWidth") == 540
        box = picture.bounding_box()
        assert box is not None and box["width"] <= min(width, 360) + 1
        expect(page.locator("a.tap").first).to_have_text("Place your Pin-Up at Restroom (1)")
        no_horizontal_scroll(page)
        screenshot(page, f"mail-html-{width}")
