"""The seat page as a game table in a real browser: a vote, a destination, a card window and the end of
the game, on a desktop (1366 x 900: the board beside the decision) and a phone (390 x 844: the decision first, no
horizontal scroll), with screenshots in tests/browser/screenshots/ (table-<state>-<device>.png)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.support import T0, engine_of, open_window, play_window

from .conftest import EMBEDDED, Live, expect, screenshot
from .test_pages import make_game, no_horizontal_scroll

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

pytestmark = EMBEDDED


def look(page: Page, url: str, name: str, *, phone: bool) -> None:
    page.goto(url)
    over = name == "over"
    first = page.locator("section.outcome" if over else "section.decision")
    expect(first).to_be_visible()
    expect(page.locator(".phases li[aria-current='step']")).to_have_count(0 if over else 1)
    if phone:
        no_horizontal_scroll(page)
        # the decision (or the end of the game) comes first on a phone, above the board
        decision = first.bounding_box()
        mall = page.locator("section.mall").bounding_box()
        assert decision is not None and mall is not None and decision["y"] < mall["y"]
    else:
        # the board and the decision (or the hand, once the game is over) side by side
        decision = page.locator("section.hand" if over else "section.decision").bounding_box()
        mall = page.locator("section.mall").bounding_box()
        assert decision is not None and mall is not None
        assert mall["x"] + mall["width"] <= decision["x"] and abs(mall["y"] - decision["y"]) < 200
    screenshot(page, f"table-{name}-{'phone' if phone else 'desktop'}")


def test_the_table_on_a_desktop_and_a_phone(served: Live, desktop: BrowserContext, phone: BrowserContext) -> None:
    made = make_game(served, seed=31, names=["Ann", "Bruno", "Ola", "Piotr"])
    db = served.stack.db
    wanted = {"vote", "destination", "cards"}
    desk, hand = desktop.new_page(), phone.new_page()
    for step in range(400):
        window = open_window(db, made.game_id)
        if window is None:
            break
        eng = engine_of(db, made.game_id)
        for req in eng.pending():
            kind = str(req.kind)
            if kind in wanted:
                wanted.discard(kind)
                url = made.seats[req.player][1]
                look(desk, url, kind, phone=False)
                look(hand, url, kind, phone=True)
                if kind == "cards":
                    expect(desk.locator(".context caption")).to_have_text("What your cards would do now")
                if kind == "vote":
                    expect(desk.locator(".context caption")).to_contain_text("Who votes at")
                break
        play_window(db, made.game_id, 31 + step, T0)
    assert not wanted, f"no {wanted} met"
    while open_window(db, made.game_id) is not None:
        play_window(db, made.game_id, 99, T0)
    url = made.seats[made.colours[0]][1]
    look(desk, url, "over", phone=False)
    look(hand, url, "over", phone=True)
    expect(desk.locator("table.standings")).to_be_visible()
    desk.get_by_role("link", name="See the replay").click()
    expect(desk.locator("h1")).to_contain_text("Replay")
    # the board beside the round's story on a desktop screen, and a way back to the seat
    board = desk.locator("section.replay-mall").bounding_box()
    story = desk.locator("section.replay-round").bounding_box()
    assert board is not None and story is not None and board["x"] + board["width"] <= story["x"]
    expect(desk.get_by_role("link", name="Back to your game")).to_be_visible()
    screenshot(desk, "table-replay-desktop")
