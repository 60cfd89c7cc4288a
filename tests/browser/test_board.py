"""The board picture in a real browser: a seat page in the middle of a game on a desktop (1366 x 900) and a phone
(390 x 844), and the home page; screenshots in tests/browser/screenshots/ (board-*.png, home-*.png)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.models import utcnow
from tests.support import engine_of, play_window

from .conftest import DESKTOP, EMBEDDED, PHONE_OPTIONS, SCREENSHOTS, TIMEOUT_MS, Live, screenshot
from .test_pages import make_game, no_horizontal_scroll

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = EMBEDDED


def open_page(browser: Browser, size: str, url: str) -> Page:
    options: dict[str, object] = dict(PHONE_OPTIONS) if size == "phone" else {"viewport": DESKTOP}
    context = browser.new_context(**options)  # type: ignore[arg-type]
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.goto(url)
    return page


def check_board(page: Page) -> None:
    """One board, visible, fitting the screen; tokens at least 24 px across; a legend below it."""
    board = page.locator("svg.board")
    assert board.count() == 1 and board.is_visible()
    no_horizontal_scroll(page)
    box = board.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]  # type: ignore[index]
    discs = page.locator("svg.board g.token circle.disc")
    assert discs.count() > 0
    for i in range(discs.count()):
        size = discs.nth(i).bounding_box()
        assert size is not None and size["width"] >= 24, size
    assert page.locator(".board-legend li").count() >= 10


def test_the_board_of_a_game_in_progress_on_a_desktop_and_a_phone(served: Live, browser: Browser) -> None:
    made = make_game(served, 11, names=["Ann", "Bruno", "Ola", "Piotr"])
    db = served.stack.db
    while engine_of(db, made.game_id).round < 3:
        play_window(db, made.game_id, 11, utcnow())
    link = made.seats[made.colours[0]][1]
    for size in ("desktop", "phone"):
        page = open_page(browser, size, link)
        check_board(page)
        assert page.locator("svg.board g.token.yours").count() > 0
        page.locator("svg.board").scroll_into_view_if_needed()
        screenshot(page, f"board-seat-{size}")
        page.locator("figure.board-figure").screenshot(path=str(SCREENSHOTS / f"board-only-{size}.png"))
        page.context.close()


def test_the_home_page_shows_the_board_and_the_ways_in(served: Live, browser: Browser) -> None:
    for size in ("desktop", "phone"):
        page = open_page(browser, size, served.url + "/")
        check_board(page)
        assert page.get_by_role("link", name="Create and run games").is_visible()
        screenshot(page, f"home-{size}")
        page.context.close()
