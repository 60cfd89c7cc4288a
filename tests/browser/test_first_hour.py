"""Paper cuts of a new user's first hour in a real browser: after the last answer the seat page shows
the next decision by itself, with and without JavaScript; pages log no Content-Security-Policy error (htmx adds no
inline style); the create page's estimate shows that it is working; time zones are chosen by region and city and
default to the browser's own. Screenshots, desktop and phone, go to /tmp/shots/cuts2/."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import engine
from server.services.links import player_token
from tests.support import open_window, player_of, requests_in

from ..waiting import wait_for
from .conftest import DESKTOP, EMBEDDED, PHONE_OPTIONS, TIMEOUT_MS, Live, expect, from_the_list, screenshot
from .test_organiser_pages import log_in
from .test_pages import WORKER_S, Made, make_game, no_horizontal_scroll, window_number

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page

pytestmark = EMBEDDED

SHOTS = Path("/tmp/shots/cuts2")
PLAYERS = "Ann <ann@example.org>\nBruno <bruno@example.org>\nOla <ola@example.org>"


def csp_errors(page: Page) -> list[str]:
    """Every console message of the page saying the Content-Security-Policy refused something."""
    found: list[str] = []

    def record(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            found.append(message.text)

    page.on("console", record)
    return found


def deciding(live: Live, made: Made) -> list[str]:
    """The colours that owe an answer in the open window."""
    window = open_window(live.stack.db, made.game_id)
    assert window is not None
    owing = {r.seat_id for r in requests_in(live.stack.db, window.id) if r.answered_at is None}
    return [colour for colour, (seat_id, _link) in made.seats.items() if seat_id in owing]


def answer(page: Page) -> None:
    form = page.locator("form.decision-form")
    from_the_list(form)
    form.locator("label.choice input[type=radio]").first.check()
    form.get_by_role("button", name="Answer").click()
    page.wait_for_url(re.compile(r"\?saved=\d+$"))


def context(browser: Browser, kind: str, **options: object) -> BrowserContext:
    made = browser.new_context(**({"viewport": DESKTOP} if kind == "desktop" else PHONE_OPTIONS), **options)
    made.set_default_timeout(TIMEOUT_MS)
    return made


# --- the seat page after an answer (item 2) and CSP errors (item 4) -------------------------------------------------


@pytest.mark.long(13)
def test_the_last_answer_shows_the_next_decision_without_a_reload_and_no_page_logs_a_csp_error(
    live: Live, desktop: BrowserContext, nojs: BrowserContext
) -> None:
    """Every player answers on their page; on the last one's page the next decision comes by itself within seconds
    (htmx polls fast while the game moves on; without JavaScript the page reloads itself). The ?saved=N pages, and
    the others seen here, log no CSP error (base.html's htmx-config: includeIndicatorStyles false)."""
    for browser_context, seed, kind in ((desktop, 31, "js"), (nojs, 32, "nojs")):
        made = make_game(live, seed=seed)
        first = window_number(live, made.game_id)
        owing = deciding(live, made)
        pages, errors = {}, []
        for colour in owing:
            page = browser_context.new_page()
            errors += csp_errors(page)
            page.goto(made.seats[colour][1])
            pages[colour] = page
        for colour in owing:
            answer(pages[colour])
        last = pages[owing[-1]]
        url = last.url
        game_id = made.game_id
        wait_for(lambda: window_number(live, game_id) != first, WORKER_S, "the worker to advance")  # noqa: B023
        expect(last.locator("#live")).not_to_contain_text("Every answer is in", timeout=8000)
        expect(last.locator("section.decision")).to_contain_text(
            re.compile("You have not answered yet|Nothing to decide"), timeout=8000
        )
        # the notice of the answer saved moved on with it
        expect(last.locator("#live p.notice")).to_have_text(
            "Your answer is saved. That decision is closed now and the game has moved on."
        )
        if kind == "js":
            assert last.url == url  # no reload, no navigation: the live part was swapped in
        screenshot(last, f"seat-after-last-answer-{kind}", SHOTS)
        assert errors == [], errors


def test_saved_pages_log_no_csp_error(served: Live, desktop: BrowserContext) -> None:
    """The ?saved=N seat page (reached by htmx's boosted form) and the preferences' ?saved=1: no console CSP error,
    and htmx put no <style> of its own into the page. Elements with an id may carry a style attribute set through
    the CSSOM (a browser's autofill, an extension, a screenshot tool do it; the CSP allows it): htmx once copied it
    to the new page's element of the same id after a swap ("settling"), a refused inline style."""
    made = make_game(served, seed=33)
    colour = deciding(served, made)[0]
    page = desktop.new_page()
    errors = csp_errors(page)
    page.goto(made.seats[colour][1])
    page.evaluate("""() => {
        for (const element of document.querySelectorAll("[id]")) {
            element.style.setProperty("caret-color", "auto");
            element.style.removeProperty("caret-color");
        }
    }""")
    assert page.locator("#live[style]").count() == 1
    answer(page)
    expect(page.get_by_role("status").first).to_contain_text("Your answer is saved")
    page.reload()
    page.wait_for_timeout(300)
    assert page.locator("head style").count() == 0
    player = player_of(served.stack.db, made.seats[colour][0])
    page.goto(f"{served.url}/p/{player_token(served.stack.settings.secret_key, player.id, 1)}?saved=1")
    expect(page.get_by_role("status").first).to_contain_text("saved")
    assert page.locator("head style").count() == 0
    assert errors == [], errors


# --- the estimate (item 1) ------------------------------------------------------------------------------------------


def slow_estimates(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Every estimate takes ``seconds`` more on the server (so that the busy state is seen for sure)."""
    from server.services.play import games

    estimate_game = games.estimate_game

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(seconds)
        return estimate_game(*args, **kwargs)

    monkeypatch.setattr(games, "estimate_game", slow)


@pytest.mark.long(18)
def test_the_estimate_shows_it_is_working_and_says_how_long_it_took(
    served: Live,
    desktop: BrowserContext,
    phone: BrowserContext,
    nojs: BrowserContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    slow_estimates(monkeypatch, 2.0)
    for kind, browser_context in (("desktop", desktop), ("phone", phone)):
        page = browser_context.new_page()
        errors = csp_errors(page)
        log_in(page, served.url)
        page.goto(f"{served.url}/o/new")
        page.get_by_label("Players, one a line").fill(PLAYERS)
        page.get_by_label("Tempo preset").select_option("week")
        estimate = page.get_by_role("button", name="Estimate how long it will take")
        busy = page.locator("#estimate-busy")
        expect(busy).to_be_hidden()
        estimate.click()
        expect(busy).to_be_visible()
        expect(busy).to_contain_text("Estimating: simulating")
        expect(estimate).to_be_disabled()
        expect(page.get_by_role("button", name="Create the game")).to_be_disabled()
        screenshot(page, f"new-game-estimating-{kind}", SHOTS)
        page.locator("fieldset:last-of-type ~ *").last.screenshot(path=str(SHOTS / f"estimating-buttons-{kind}.png"))
        page.locator("#estimate-busy").screenshot(path=str(SHOTS / f"estimating-busy-{kind}.png"))
        # (generous waits: the two-second estimate may run beside other tests on a busy machine)
        expect(page.get_by_role("heading", name="How long it will take")).to_be_visible(timeout=30_000)
        expect(page.locator("#estimate")).to_contain_text(re.compile(r"Worked out in ([2-9]|[1-2][0-9]) seconds\."))
        expect(busy).to_be_hidden()
        expect(page.get_by_role("button", name="Estimate how long it will take")).to_be_enabled()
        assert page.url == f"{served.url}/o/new"
        expect(page.get_by_label("Players, one a line")).to_have_value(PLAYERS)  # the form is kept
        no_horizontal_scroll(page)
        page.locator("#estimate").scroll_into_view_if_needed()
        screenshot(page, f"new-game-estimate-{kind}", SHOTS)
        page.locator("#estimate").screenshot(path=str(SHOTS / f"estimate-section-{kind}.png"))
        page.locator("#preset-help").screenshot(path=str(SHOTS / f"preset-help-{kind}.png"))
        assert errors == [], errors
    # a refusal is said beside the button that asked
    page.get_by_label("Players, one a line").fill("Ann <ann@example.org>")
    page.get_by_role("button", name="Estimate how long it will take").click()
    expect(page.get_by_role("alert")).to_contain_text("1 player")
    # without JavaScript the form is posted: the page comes back with the estimate and how long it took
    page = nojs.new_page()
    log_in(page, served.url)
    page.goto(f"{served.url}/o/new")
    expect(page.locator("#estimate-busy")).to_be_hidden()
    page.get_by_label("Players, one a line").fill(PLAYERS)
    page.get_by_role("button", name="Estimate how long it will take").click()
    expect(page.get_by_role("heading", name="How long it will take")).to_be_visible()
    expect(page.locator("#estimate")).to_contain_text(re.compile(r"Worked out in [2-9] seconds\."))


# --- time zones (item 3) --------------------------------------------------------------------------------------------


def test_the_zone_select_defaults_to_the_browsers_zone_and_stays_valid_without_javascript(
    served: Live, browser: Browser, nojs: BrowserContext
) -> None:
    for kind in ("desktop", "phone"):
        tokyo = context(browser, kind, timezone_id="Asia/Tokyo")
        page = tokyo.new_page()
        errors = csp_errors(page)
        log_in(page, served.url)
        page.goto(f"{served.url}/o/new")
        zone = page.get_by_label("The game's time zone")
        expect(zone).to_have_value("Asia/Tokyo")
        expect(page.locator("#timezone-guessed")).to_be_visible()
        expect(zone.locator("optgroup[label=Asia] option[value='Asia/Tokyo']")).to_have_text("Tokyo")
        zone.scroll_into_view_if_needed()
        screenshot(page, f"new-game-zone-{kind}", SHOTS)
        page.get_by_label("Players, one a line").fill(PLAYERS)
        page.get_by_role("button", name="Create the game").click()
        expect(page.get_by_role("heading", level=1)).to_contain_text("is created")
        assert errors == []
        tokyo.close()
    with served.stack.db.session() as session:
        from sqlalchemy import select

        from server.models import Game

        zones = session.execute(select(Game.tempo)).scalars().all()
    assert [t["timezone"] for t in zones] == ["Asia/Tokyo", "Asia/Tokyo"]
    # without JavaScript: UTC stays chosen, no hint, and the form still creates the game
    page = nojs.new_page()
    log_in(page, served.url)
    page.goto(f"{served.url}/o/new")
    expect(page.get_by_label("The game's time zone")).to_have_value("UTC")
    expect(page.locator("#timezone-guessed")).to_be_hidden()


# --- the pages changed, seen on a desktop and a phone ---------------------------------------------------------------


def test_the_changed_pages_on_a_desktop_and_a_phone(served: Live, browser: Browser) -> None:
    """The board during an attack with Cachou closed (four players), a finished game's organiser page, the
    preferences and a league's sign-up with their zone selects: screenshots, no sideways scroll, no CSP error."""
    import datetime as dt

    from server.models import utcnow
    from server.present import public
    from tests.server.test_league_pages import open_league
    from tests.server.test_replay import finish
    from tests.support import engine_of, play_window

    attacked = make_game(served, seed=41, names=["Ann", "Bruno", "Ola", "You"])
    for step in range(200):
        view = engine.view(engine_of(served.stack.db, attacked.game_id), "green")
        if public.attack_under_way(view) is not None:
            break
        play_window(served.stack.db, attacked.game_id, 4100 + step, utcnow() + dt.timedelta(minutes=step))
    assert public.attack_under_way(view) is not None
    over = make_game(served, seed=42, tag="over")
    finish(served.stack.db, over.game_id, seed=42)
    player = player_of(served.stack.db, attacked.seats["red"][0])
    _league, invitation = open_league(served.stack)
    pages = {
        "board-attack": attacked.seats["green"][1],
        "organiser-game-over": f"{served.url}/o/games/{over.game_id}",
        "prefs": f"{served.url}/p/{player_token(served.stack.settings.secret_key, player.id, 1)}",
        "league-signup": f"{served.url}/l/{invitation}",
    }
    for kind in ("desktop", "phone"):
        browser_context = context(browser, kind, timezone_id="Europe/Rome")
        page = browser_context.new_page()
        errors = csp_errors(page)
        log_in(page, served.url)
        for name, url in pages.items():
            response = page.goto(url)
            assert response is not None and response.status == 200, name
            no_horizontal_scroll(page)
            screenshot(page, f"{name}-{kind}", SHOTS)
        expect(page.locator("svg.board .attacked")).to_have_count(0)  # the last page: no board
        browser_context.close()
        assert errors == [], errors
