"""Playing on the board (static/deadmail.js's picker, templates/_table.html): a whole five-player game in which Ann
gives every decision by tapping what it is about (rooms and her tokens on the board, players' panels, cards, the
bar's Pass), never the list, on a desktop and on a phone in turns; each answer stored is the one the bar said; no
sideways scroll on the phone; on a desktop the whole board is on the first screen beside the decision, on a phone
it comes right after the decision. A whole game with the keyboard only (axe-core clean while lit), and the list as the
form without JavaScript. Screenshots: tests/browser/screenshots/board-pick-<kind>-<device>-{lit,chosen}.png."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from tests.support import T0, engine_of, open_window, play_window, request_of

from .conftest import EMBEDDED, Live, expect, screenshot
from .test_pages import make_game, no_horizontal_scroll
from .test_tour import axe_results, described

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

pytestmark = EMBEDDED


def unlimited(served: Live) -> None:
    """One person answering a whole game in a minute or two: more than a person's limits per minute."""
    served.stack.app.config.update(DEADMAIL_ANSWERS_PER_MINUTE=10_000, DEADMAIL_LINKS_PER_MINUTE=10_000)


def choices_on(page: Page) -> list[tuple[str, str]]:
    """The decision's choices on the page: what is tapped to give each (its path), and what it means."""
    found: list[tuple[str, str]] = page.eval_on_selector_all(
        "input[type=radio][data-path]", "inputs => inputs.map(i => [i.dataset.path, i.dataset.meaning])"
    )
    return found


def first_screen(page: Page) -> None:
    """On a desktop the whole board is on the first screen, beside the decision; on a phone the board comes right
    after the decision."""
    viewport = page.viewport_size
    board = page.locator("svg.board").bounding_box()
    decision = page.locator("section.decision").bounding_box()
    assert viewport is not None and board is not None and decision is not None
    if viewport["width"] >= 1000:
        assert board["y"] + board["height"] <= viewport["height"], (board, viewport)
        assert board["x"] + board["width"] <= decision["x"]
    else:
        mall = page.locator("section.mall").bounding_box()
        assert mall is not None and 0 <= mall["y"] - (decision["y"] + decision["height"]) < 40, (decision, mall)


def tap_a_choice(page: Page, url: str, rng: random.Random, shot: str | None = None) -> tuple[str, str]:
    """Open the seat page, choose one of its choices at random, and give it by tapping its parts; the choice's
    meaning and the bar's button text. ``shot``: a screenshot's name, taken before the last tap and before sending."""
    page.goto(url)
    expect(page.locator(".picker-bar .pick-prompt")).not_to_be_empty()
    first_screen(page)
    expect(page.locator("details.pick-list")).not_to_have_attribute("open", "")
    path, meaning = rng.choice(choices_on(page))
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


def play_to_the_end(served: Live, game_id: int, seat_id: int, answer: Callable[[str], None], seed: int) -> None:
    """The game played to its end: ``answer(kind)`` whenever the seat owes an answer, the others by random bots."""
    db = served.stack.db
    for step in range(600):
        window = open_window(db, game_id)
        if window is None:
            break
        owed = request_of(db, seat_id)
        if owed is not None and owed[1].answered_at is None and window.completed_at is None:
            answer(str(owed[1].kind))
        play_window(db, game_id, seed + step, T0)
    assert open_window(db, game_id) is None and engine_of(db, game_id).over


def test_a_whole_game_played_by_tapping_the_board(served: Live, desktop: BrowserContext, phone: BrowserContext) -> None:
    unlimited(served)
    made = make_game(served, seed=5, names=["Ann", "Bruno", "Ola", "Piotr", "Rita"])
    db = served.stack.db
    ann = made.colours[0]
    seat_id, url = made.seats[ann]
    pages = [desktop.new_page(), phone.new_page()]
    rng = random.Random(5)
    tapped: dict[str, int] = {}

    def tap(kind: str) -> None:
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

    play_to_the_end(served, made.game_id, seat_id, tap, 50)
    assert {"place", "cards", "vote", "destination", "move"} <= set(tapped), tapped


def keyboard_choice(page: Page, url: str, rng: random.Random, *, check_axe: bool) -> str:
    """Open the seat page and give one of its choices with the keyboard only: Tab to each lit part, Enter, then
    Enter on the bar's button (where the focus goes once the choice is whole). ``check_axe``: axe-core runs on the
    page while it is lit. Returns the choice's meaning."""
    page.goto(url)
    path, meaning = rng.choice(choices_on(page))
    if check_axe:
        bad = [v for v in axe_results(page)["violations"] if v["impact"] in ("serious", "critical")]
        assert not bad, "\n".join(described(v) for v in bad)
    for part in path.split():
        for _ in range(300):
            page.keyboard.press("Tab")
            if page.evaluate("() => document.activeElement.getAttribute('data-pick-value')") == part:
                break
        else:
            raise AssertionError(f"{part} never reached with Tab")
        page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.classList.contains('pick-send')")
    page.keyboard.press("Enter")
    expect(page.locator(".notice")).to_contain_text("Your answer is saved")
    return meaning


def test_a_whole_game_played_with_the_keyboard_only(served: Live, desktop: BrowserContext) -> None:
    """Every decision of one player by Tab and Enter on the board's lit parts; axe-core finds nothing serious on
    the page of each decision kind while it is lit."""
    unlimited(served)
    made = make_game(served, seed=8)
    seat_id, url = made.seats[made.colours[1]]
    page = desktop.new_page()
    rng = random.Random(8)
    kinds: set[str] = set()

    def keys(kind: str) -> None:
        meaning = keyboard_choice(page, url, rng, check_axe=kind not in kinds)
        expect(page.locator(".current-answer")).to_contain_text(meaning)
        kinds.add(kind)

    play_to_the_end(served, made.game_id, seat_id, keys, 70)
    assert {"place", "cards", "vote", "destination", "move"} <= kinds, kinds


def test_without_javascript_the_list_is_the_form(served: Live, nojs: BrowserContext) -> None:
    """No script: no picker, no folded list; the choices are a plain list of radios that answers."""
    made = make_game(served, seed=9)
    page = nojs.new_page()
    page.goto(made.seats[made.colours[0]][1])
    expect(page.locator("details.pick-list")).to_have_count(0)
    expect(page.locator(".picker-bar")).to_have_count(0)
    form = page.locator("form.decision-form")
    form.locator("input[type=radio]").first.check()
    form.get_by_role("button", name="Answer").click()
    expect(page.locator(".notice")).to_contain_text("Your answer is saved")
