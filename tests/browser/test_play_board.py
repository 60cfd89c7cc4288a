"""Playing on the board (static/deadmail.js's picker, templates/_table.html): a whole five-player game in which Ann
gives every decision by tapping what it is about (rooms and her tokens on the board, players' panels, cards, the
bar's Pass), never the list, on a desktop and on a phone in turns; each answer stored is the one the bar said; no
sideways scroll on the phone. Screenshots: tests/browser/screenshots/board-pick-<kind>-<device>.png."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from tests.support import T0, engine_of, open_window, play_window, request_of

from .conftest import EMBEDDED, Live, expect, screenshot
from .test_pages import make_game, no_horizontal_scroll

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

pytestmark = EMBEDDED


def tap_a_choice(page: Page, url: str, rng: random.Random, shot: str | None = None) -> tuple[str, str]:
    """Open the seat page, choose one of its choices at random, and give it by tapping its parts; the choice's
    meaning and the bar's button text. ``shot``: a screenshot's name, taken before the last tap and before sending."""
    page.goto(url)
    expect(page.locator(".picker-bar .pick-prompt")).not_to_be_empty()
    expect(page.locator("details.pick-list")).not_to_have_attribute("open", "")
    paths = page.eval_on_selector_all(
        "input[type=radio][data-path]", "inputs => inputs.map(i => [i.dataset.path, i.dataset.meaning])"
    )
    path, meaning = rng.choice(paths)
    parts = path.split()
    for n, part in enumerate(parts):
        target = page.locator(f".pick-lit[data-pick-value='{part}']").first
        expect(target).to_be_visible()
        if shot and n == len(parts) - 1:
            screenshot(page, f"{shot}-lit")
        target.click()
    send = page.locator(".picker-bar .pick-send")
    expect(send).to_be_visible()
    if shot:
        screenshot(page, f"{shot}-chosen")
    said = send.inner_text()
    send.click()
    expect(page.locator(".notice")).to_contain_text("Your answer is saved")
    return meaning, said


def test_a_whole_game_played_by_tapping_the_board(served: Live, desktop: BrowserContext, phone: BrowserContext) -> None:
    # one person answering a whole game in a minute or two: more than a person's limits per minute
    served.stack.app.config.update(DEADMAIL_ANSWERS_PER_MINUTE=10_000, DEADMAIL_LINKS_PER_MINUTE=10_000)
    made = make_game(served, seed=5, names=["Ann", "Bruno", "Ola", "Piotr", "Rita"])
    db = served.stack.db
    ann = made.colours[0]
    seat_id, url = made.seats[ann]
    pages = [desktop.new_page(), phone.new_page()]
    rng = random.Random(5)
    tapped: dict[str, int] = {}
    for step in range(600):
        window = open_window(db, made.game_id)
        if window is None:
            break
        owed = request_of(db, seat_id)
        if owed is not None and owed[1].answered_at is None and window.completed_at is None:
            kind = str(owed[1].kind)
            page = pages[sum(tapped.values()) % 2]
            device = "phone" if page is pages[1] else "desktop"
            meaning, said = tap_a_choice(page, url, rng, None if kind in tapped else f"board-pick-{kind}-{device}")
            assert meaning in said, (meaning, said)
            stored = request_of(db, seat_id)
            assert stored is not None and stored[1].answered_at is not None
            expect(page.locator(".current-answer")).to_contain_text(meaning)
            if device == "phone":
                no_horizontal_scroll(page)
            tapped[kind] = tapped.get(kind, 0) + 1
        play_window(db, made.game_id, 50 + step, T0)
    assert open_window(db, made.game_id) is None and engine_of(db, made.game_id).over
    assert {"place", "cards", "vote", "destination", "move"} <= set(tapped), tapped
