"""The tour of every page: each page of deadmail opened on a desktop (1366 x 900) and a phone (390 x 844), in
English, and on a phone in Italian and Polish (the seat pages on a desktop too), its screenshot saved as
tests/browser/screenshots/tour/<page>-<desktop|phone>[-<lang>].png, and checked: no horizontal scrolling on the
phone, no axe-core violation of "serious" or "critical" impact (WCAG 2.0 and 2.1, A and AA, contrast included), and
no inline style or script in its HTML (the CSP forbids them).

One installation and its games are built once for the module (a game in each state a seat page can show); each
test opens one page in one window. Run alone: ``python -m pytest -p no:unraisableexception tests/browser/test_tour.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import pytest
import sqlalchemy as sa

import engine
from engine.bots import RandomBot
from server.mail.send import send_one
from server.mail.transports import transport_for
from server.models import Player, SeasonPlayer, Window, utcnow
from server.services.attendance import prefs, substitutes
from server.services.leagues import rounds, seasons
from server.services.links import confirm_token, league_token, mailbox_token, player_token
from server.services.play import chat, turns
from server.text.grammar import commands_for
from tests.server.test_autopilot import until_autopilot
from tests.server.test_rounds import enter
from tests.support import engine_of, open_window, outbox_ids, play_window, player_of

from ..conftest import _stack
from .conftest import DESKTOP, PHONE_OPTIONS, SCREENSHOTS, TIMEOUT_MS, Live, screenshot, serving
from .test_pages import API_TOKEN, Made, make_game

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, Response

#: where the tour's screenshots go (git-ignored with the rest of tests/browser/screenshots/).
TOUR = SCREENSHOTS / "tour"
AXE = Path(__file__).resolve().parent / "vendor" / "axe-core-4.14.1.min.js"
#: the rules axe runs: WCAG 2.0 and 2.1, levels A and AA (colour contrast is one of them).
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: impacts that fail the tour (moderate and minor ones are not counted).
FAILING = ("serious", "critical")
VIEWPORTS = ("desktop", "phone")
#: the other languages, each toured on a phone
LANGUAGES = ("it", "pl")


# --- the games: one installation, a game in each state a page can show ------------------------------------------


@dataclass
class Tour:
    live: Live
    #: page name -> path (from the server's root) or a function that opens the page and returns its response
    urls: dict[str, str] = field(default_factory=dict)
    running: int = 0


def _play_until(live: Live, made: Made, wanted: Callable[[Window], bool], seed: int) -> Window | None:
    """Every person answers like a random bot, window after window (each advanced once complete, now), until the
    open window satisfies ``wanted`` (returned) or the game is over (None)."""
    db = live.stack.db
    bot = RandomBot(seed)
    for _ in range(800):
        window = open_window(db, made.game_id)
        if window is None or wanted(window):
            return window
        eng = engine_of(db, made.game_id)
        for row in window.requests:
            if row.answered_at is None:
                req = next(r for r in eng.pending() if r.player == row.seat.colour)
                if turns.submit_answer(db, row.seat_id, row.kind, bot.decide(eng, req)).complete:
                    break  # a vote closed once decided takes no more votes
        assert turns.advance_window(db, window.id, now=utcnow()) is True
    raise AssertionError("the game went on too long")


def _owing(kind: str) -> Callable[[Window], bool]:
    return lambda window: (
        window.completed_at is None and any(row.kind == kind and row.answered_at is None for row in window.requests)
    )


def _seat_owing(live: Live, seed: int, kind: str) -> str:
    """The link of a seat that owes a ``kind`` answer in the open window of a game played until one does."""
    for tried in range(seed, seed + 10):
        made = make_game(live, seed=tried, tag=f"{kind}{tried}")
        window = _play_until(live, made, _owing(kind), tried)
        if window is not None:
            colour = next(r.seat.colour for r in window.requests if r.kind == kind and r.answered_at is None)
            return made.seats[colour][1]
    raise AssertionError(f"ten games ended without a {kind} window")


def _path(live: Live, url: str) -> str:
    assert url.startswith(live.url), url
    return url.removeprefix(live.url)


def _link(live: Live, made: Made, colour: str) -> str:
    return _path(live, made.seats[colour][1])


def _first_game(live: Live, urls: dict[str, str]) -> Made:
    """A game at its first decision: red answered (waiting), blue not, yellow set a standing answer, some table
    talk, yellow's seat offered to a substitute; the pages that show it."""
    db, settings = live.stack.db, live.stack.settings
    first = make_game(live, seed=21, tag="first")
    eng = engine_of(db, first.game_id)
    window = open_window(db, first.game_id)
    assert window is not None
    red = next(r for r in window.requests if r.seat.colour == "red")
    request = next(r for r in eng.pending() if r.player == "red")
    turns.submit_answer(db, red.seat_id, red.kind, RandomBot(1).decide(eng, request))
    prefs.set_seat_standing(db, first.seats["yellow"][0], {"camera": engine.standing.CHOICES["camera"][0]})
    chat.post(db, first.game_id, "blue", chat.PUBLIC, "Anyone going to the Parking?")
    chat.post(db, first.game_id, "red", chat.PUBLIC, "Not me: the Toilets look safer.")
    chat.post(db, first.game_id, "red", "", "Shall we vote together?", to=["blue"])
    blue, red_link = _link(live, first, "blue"), _link(live, first, "red")
    urls["seat-decision"] = blue
    urls["seat-waiting"] = red_link
    urls["seat-chat"] = blue + "#chat"
    blue_request = next(r.to_json() for r in eng.pending() if r.player == "blue")
    command = commands_for(blue_request, engine.view(eng, "blue"), "en")[-1]
    urls["confirm"] = f"{blue}/do?w={window.number}&c={quote(command)}"
    urls["standing-off"] = f"{_link(live, first, 'yellow')}/standing/off?k=camera"
    # the preferences page is the player's hub: blue owes a decision here, and has a finished game (``build``)
    player = player_of(db, first.seats["blue"][0])
    urls["preferences"] = f"/p/{player_token(settings.secret_key, player.id, player.link_generation)}"
    urls["invitation"] = f"/i/{substitutes.offer(db, first.game_id, 'yellow')}"
    urls["error-invalid-link"] = red_link[:-4] + ("BBBB" if red_link.endswith("AAAA") else "AAAA")
    urls["organiser-game-running"] = f"/o/games/{first.game_id}"
    urls["organiser-offer"] = f"/o/games/{first.game_id}/offer?colour=blue"
    return first


def _seat_states(live: Live, urls: dict[str, str]) -> Made:
    """A game in each other state of the seat page; returns the finished one."""
    urls["seat-vote"] = _path(live, _seat_owing(live, 30, "vote"))
    urls["seat-destination"] = _path(live, _seat_owing(live, 40, "destination"))
    urls["seat-cards"] = _path(live, _seat_owing(live, 50, "cards"))
    # every other kind of decision, each as the board's picker shows it (issue 28)
    for seed, kind in ((60, "truck"), (70, "victim"), (80, "move"), (90, "announce"), (100, "zombie")):
        urls[f"seat-{kind}"] = _path(live, _seat_owing(live, seed, kind))
    away = make_game(live, seed=25, tag="away")
    until_autopilot(live.stack.db, away.game_id, "blue", {colour: ids[0] for colour, ids in away.seats.items()})
    urls["seat-autopilot"] = _link(live, away, "blue")
    urls["back"] = _link(live, away, "blue") + "/back"
    over = make_game(live, seed=26, tag="over")
    assert _play_until(live, over, lambda _window: False, 26) is None
    urls["seat-over"] = _link(live, over, "red")
    urls["replay"] = _link(live, over, "red") + "/replay"
    urls["replay-event"] = _link(live, over, "red") + "/replay?step=60"  # an event of round 1, its board as told
    urls["organiser-game-over"] = f"/o/games/{over.game_id}"
    return over


def build(live: Live) -> Tour:
    """The games the tour shows, and the path of every page."""
    db, settings = live.stack.db, live.stack.settings
    tour = Tour(live)
    urls = tour.urls
    first = _first_game(live, urls)
    tour.running = first.game_id
    over = _seat_states(live, urls)
    finished = make_game(live, seed=27, tag="first")  # the same people as the first game: a finished game in the hub
    assert _play_until(live, finished, lambda _window: False, 27) is None
    # the mail of the first game and the end of the finished one, written to the mailbox's folder
    transport = transport_for(settings)
    for row_id in outbox_ids(db, first.game_id) + outbox_ids(db, over.game_id)[-3:]:
        send_one(db, row_id, transport, settings)
    box = f"/mail/{mailbox_token(settings.secret_key)}"
    urls["mailbox"] = box
    newest = max(settings.mail_dir.glob("*.eml"), key=lambda p: (p.stat().st_mtime_ns, p.name))
    urls["mailbox-message"] = f"{box}/{newest.name}"
    urls["home"] = "/"
    urls["error-404"] = "/no-such-page"
    urls["organiser-login"] = "/o/login"
    urls["organiser-logout"] = "/o/logout"
    urls["organiser-index"] = "/o/"
    urls["organiser-new"] = "/o/new"
    _league_pages(live, urls)
    return tour


def _league_pages(live: Live, urls: dict[str, str]) -> None:
    """A league with a season taking sign-ups: its invitation page and a pending sign-up's confirmation page."""
    db, key, now = live.stack.db, live.stack.settings.secret_key, utcnow()
    league_id = seasons.create_league(db, seasons.LeagueSpec(name="Tuesday Night", timezone="Europe/Rome"), now)
    season_id = seasons.create_season(db, league_id, now + timedelta(days=7), 3, "when_over", None, now=now)
    urls["league-signup"] = f"/l/{league_token(key, 'invite', league_id, 1)}"
    signed = seasons.sign_up(db, season_id, seasons.Applicant("Cleo", "cleo@example.org", "it", "Europe/Rome"), now)
    urls["league-confirm"] = f"/l/confirm/{confirm_token(key, signed.season_player_id, 1)}"
    _league_season(live, urls)


#: the players of the toured season (a long name among them: the tables must still fit a phone)
SEASON_NAMES = ["Annabella Rossi-Kowalska", "Bruno", "Cleo", "Dario", "Ewa", "Franek"]


def _league_season(live: Live, urls: dict[str, str]) -> None:
    """A league whose standings are public, its season's round 1 played to the end and round 2 planned: the league
    organiser's pages, the results and standings pages, a player's games, the hub with its leagues and ratings, and
    the withdraw confirmation."""
    db, key, now = live.stack.db, live.stack.settings.secret_key, utcnow()
    spec = seasons.LeagueSpec(name="Thursday Knights", timezone="Europe/Rome", table_size=3, standings_public=True)
    league_id = seasons.create_league(db, spec, now)
    season_id = seasons.create_season(db, league_id, now + timedelta(days=1), 3, "when_over", None, now=now)
    ids = enter(db, season_id, len(SEASON_NAMES), start=100)
    with db.session() as session:
        for player_id, name in zip(ids, SEASON_NAMES, strict=True):
            session.execute(sa.update(Player).where(Player.id == player_id).values(display_name=name, language="en"))
    first = rounds.plan(db, season_id, now)
    for game_id in rounds.start(db, first, now):
        while open_window(db, game_id) is not None:
            play_window(db, game_id, game_id, utcnow())
    second = rounds.plan(db, season_id, utcnow())
    organiser = f"/lo/{seasons.league_link(db, key, league_id, 'organiser')}"
    urls["league-organiser"] = organiser
    urls["league-season"] = f"{organiser}/season/{season_id}"
    urls["league-round-planned"] = f"{organiser}/round/{second}"
    urls["league-round-started"] = f"{organiser}/round/{first}"
    urls["league-results"] = f"{organiser}/season/{season_id}/results"
    urls["league-season-new"] = f"{organiser}/season/new"
    urls["league-invite"] = f"{organiser}/invite"
    urls["league-start-page"] = f"{organiser}/round/{second}/start"
    urls["leagues"] = "/o/leagues"
    urls["league-new"] = "/o/leagues/new"
    urls["league-public"] = f"/ls/{seasons.league_link(db, key, league_id, 'public')}"
    with db.session() as session:
        player = session.get(Player, ids[0])
        assert player is not None
        hub = f"/p/{player_token(key, player.id, player.link_generation)}"
        entry = session.execute(sa.select(SeasonPlayer.id).where(SeasonPlayer.player_id == player.id)).scalar_one()
    urls["league-standings"] = f"{hub}/season/{season_id}"
    urls["league-games"] = f"{hub}/season/{season_id}/games/{ids[0]}"
    urls["league-hub"] = hub
    urls["league-withdraw"] = f"{hub}/leagues/{entry}/withdraw"


@pytest.fixture(scope="module")
def tour(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tour]:
    folder = tmp_path_factory.mktemp("tour")
    stack = _stack("embedded", folder, f"sqlite:///{folder / 'deadmail.db'}", "filesystem://", links_per_minute=100_000)
    try:
        with serving(stack) as live:
            yield build(live)
    finally:
        stack.db.dispose()


@pytest.fixture(scope="module")
def windows(browser: Browser, tour: Tour) -> Iterator[dict[str, BrowserContext]]:
    """A desktop and a phone for the whole tour, each logged in as the organiser (the login form, once), each with
    one tab the tour's pages are opened in one after the other (a new tab per page cost a renderer and axe's
    compilation each time: the tour took half as long again)."""
    made = {
        "desktop": browser.new_context(viewport=DESKTOP),
        "phone": browser.new_context(**PHONE_OPTIONS),
        # phones whose browsers ask for Italian and Polish (pages outside a seat follow the browser)
        **{f"phone-{lang}": browser.new_context(**PHONE_OPTIONS, locale=lang) for lang in LANGUAGES},
        # and desktops, for the table in each language (every decision kind)
        **{f"desktop-{lang}": browser.new_context(viewport=DESKTOP, locale=lang) for lang in LANGUAGES},
    }
    for context in made.values():
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        page.goto(f"{tour.live.url}/o/login")
        page.locator("input[name=token]").fill(API_TOKEN)
        with page.expect_navigation():
            page.locator("input[name=token]").press("Enter")
        assert "/o/login" not in page.url, "the organiser login failed"
    yield made
    for context in made.values():
        context.close()


# --- the pages ---------------------------------------------------------------------------------------------------


def _submitted(page: Page, url: str, field_name: str, value: str | None = None) -> Response | None:
    """Open ``url``, fill the form field (if ``value``) and submit its form as a person would (no button named)."""
    page.goto(url)
    target = page.locator(f"[name={field_name}]").first
    if value is not None:
        target.fill(value)
    with page.expect_navigation() as navigated:
        target.evaluate("(input) => input.form.requestSubmit()")
    return navigated.value


def _open(tour: Tour, page: Page, name: str) -> Response | None:
    base = tour.live.url
    if name == "organiser-created":
        players = "Ann <ann@example.org>\nBruno <bruno@example.org>\nbot"
        return _submitted(page, f"{base}/o/new", "players", players)
    if name == "organiser-offered":
        return _submitted(page, f"{base}/o/games/{tour.running}/offer?colour=blue", "colour")
    if name == "league-start-confirm":  # the Start button of a planned round: the page asking first
        page.goto(base + tour.urls["league-round-planned"])
        with page.expect_navigation() as navigated:
            page.locator("form[action$='/start'] button").click()
        return navigated.value
    return page.goto(base + tour.urls[name])


#: every page of the tour and the status it answers with
PAGES = {
    "home": 200,
    "organiser-login": 200,
    "organiser-logout": 200,
    "organiser-index": 200,
    "organiser-new": 200,
    "organiser-created": 200,  # reached by the form's redirect (POST/redirect/GET)
    "organiser-game-running": 200,
    "organiser-game-over": 200,
    "organiser-offer": 200,
    "organiser-offered": 201,
    "invitation": 200,
    "league-signup": 200,
    "league-confirm": 200,
    "leagues": 200,
    "league-new": 200,
    "league-organiser": 200,
    "league-season-new": 200,
    "league-invite": 200,
    "league-start-page": 200,
    "league-season": 200,
    "league-round-planned": 200,
    "league-start-confirm": 200,
    "league-round-started": 200,
    "league-results": 200,
    "league-standings": 200,
    "league-public": 200,
    "league-games": 200,
    "league-hub": 200,
    "league-withdraw": 200,
    "seat-decision": 200,
    "seat-waiting": 200,
    "seat-vote": 200,
    "seat-destination": 200,
    "seat-cards": 200,
    "seat-truck": 200,
    "seat-victim": 200,
    "seat-move": 200,
    "seat-announce": 200,
    "seat-zombie": 200,
    "seat-autopilot": 200,
    "seat-over": 200,
    "seat-chat": 200,
    "confirm": 200,
    "standing-off": 200,
    "preferences": 200,
    "back": 200,
    "replay": 200,
    "replay-event": 200,
    "mailbox": 200,
    "mailbox-message": 200,
    "error-404": 404,
    "error-invalid-link": 403,
}


# --- the checks --------------------------------------------------------------------------------------------------


class _Inline(HTMLParser):
    """What the Content-Security-Policy would refuse in a page's HTML: style attributes, <style> elements, scripts
    with a body, event-handler attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = [name for name, _value in attrs]
        if "style" in names:
            self.found.append(f"<{tag} style=…> at line {self.getpos()[0]}")
        self.found += [f"<{tag} {name}=…> at line {self.getpos()[0]}" for name in names if name.startswith("on")]
        if tag == "style":
            self.found.append(f"<style> at line {self.getpos()[0]}")
        self._script = tag == "script" and "src" not in names

    def handle_data(self, data: str) -> None:
        if self._script and data.strip():
            self.found.append(f"<script> with a body at line {self.getpos()[0]}")

    def handle_endtag(self, tag: str) -> None:
        self._script = False


def inline_code(html: str) -> list[str]:
    parser = _Inline()
    parser.feed(html)
    parser.close()
    return parser.found


#: the elements wider than the window whose parent is not (where a horizontal scroll comes from)
_WIDER = """() => {
  const width = Math.min(window.innerWidth, document.documentElement.clientWidth);
  const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
    + (typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
  const path = (e) => {
    const parts = [];
    for (let n = e; n && n !== document.body && parts.length < 4; n = n.parentElement) parts.unshift(name(n));
    return parts.join(' > ');
  };
  const over = (e) => { const r = e.getBoundingClientRect(); return r.right > width + 1 || r.left < -1; };
  const found = [];
  for (const e of document.body.querySelectorAll('*')) {
    if (over(e) && !(e.parentElement && e.parentElement !== document.body && over(e.parentElement))) {
      const r = e.getBoundingClientRect();
      found.push(`${path(e)} (${Math.round(r.left)}..${Math.round(r.right)} px)`);
    }
  }
  return {scroll: document.documentElement.scrollWidth, inner: window.innerWidth, found: found.slice(0, 6)};
}"""


def horizontal_scroll(page: Page) -> str | None:
    """Why the page scrolls sideways on this window (None when it does not)."""
    viewport = page.viewport_size
    assert viewport is not None
    seen = page.evaluate(_WIDER)
    allowed = min(seen["inner"], viewport["width"])
    if seen["scroll"] <= allowed:
        return None
    wider = "; ".join(seen["found"]) or "no single element found"
    return f"scrolls horizontally: {seen['scroll']} px wide in a {allowed} px window; wider: {wider}"


def axe_results(page: Page) -> dict[str, Any]:
    """axe-core's WCAG 2 A/AA results on the page: ``violations``, and ``incomplete`` (what axe could not decide,
    e.g. a contrast over an image: to look at). Loaded by evaluate: the page's CSP allows no script tag."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    options = {"runOnly": {"type": "tag", "values": AXE_TAGS}, "resultTypes": ["violations"], "iframes": False}
    found: dict[str, Any] = page.evaluate(
        "async (options) => { const r = await axe.run(document, options);"
        " return {violations: r.violations, incomplete: r.incomplete}; }",
        options,
    )
    return found


def described(violation: dict[str, Any]) -> str:
    nodes = violation["nodes"]
    shown = [
        f"      {' '.join(map(str, node['target']))}: {node['html'][:160]}"
        + (f"\n        {node['failureSummary'].splitlines()[-1].strip()}" if node.get("failureSummary") else "")
        for node in nodes[:5]
    ]
    more = [f"      … and {len(nodes) - 5} more"] if len(nodes) > 5 else []
    head = f"  axe {violation['impact']} {violation['id']}: {violation['help']} ({len(nodes)} elements)"
    return "\n".join([head, *shown, *more])


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("name", list(PAGES))
def test_the_page_fits_and_passes_axe(tour: Tour, windows: dict[str, BrowserContext], name: str, viewport: str) -> None:
    check_page(tour, windows, name, viewport)


@pytest.mark.long(32)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_fits_a_phone_and_passes_axe_in_italian_and_polish(
    tour: Tour, windows: dict[str, BrowserContext], lang: str
) -> None:
    """The same tour on a phone in each other language: the seats' players read it (their preference), the
    organiser's and the other pages follow the browser. Longer words must fit too. The seat pages (every decision
    kind) on a desktop too."""
    with tour.live.stack.db.session() as session:
        session.execute(sa.update(Player).values(language=lang))
    try:
        failed = []
        for name in PAGES:
            viewports = ["phone", "desktop"] if name.startswith("seat-") else ["phone"]
            for viewport in viewports:
                try:
                    check_page(tour, windows, name, f"{viewport}-{lang}", lang)
                except AssertionError as exc:
                    failed.append(str(exc))
        assert not failed, "\n\n".join(failed)
    finally:
        with tour.live.stack.db.session() as session:
            session.execute(sa.update(Player).values(language="en"))


def check_page(tour: Tour, windows: dict[str, BrowserContext], name: str, viewport: str, lang: str = "en") -> None:
    """Open the page in ``viewport``'s window: its status, no inline code, a screenshot, no sideways scrolling on a
    phone, no serious or critical axe violation, in ``lang``."""
    page = windows[viewport].pages[0]  # (the window's tab: every page is a navigation in it)
    response = _open(tour, page, name)
    assert response is not None, f"{name}: no response"
    problems: list[str] = []
    if response.status != PAGES[name]:
        problems.append(f"  answered {response.status}, not {PAGES[name]}")
    problems += [f"  inline code (refused by the CSP): {found}" for found in inline_code(response.text())]
    page.wait_for_load_state("load")
    screenshot(page, f"{name}-{viewport}", TOUR)
    if page.locator("html").get_attribute("lang") != lang:
        problems.append(f"  in {page.locator('html').get_attribute('lang')}, not {lang}")
    if viewport.startswith("phone") and (scroll := horizontal_scroll(page)) is not None:
        problems.append(f"  {scroll}")
    results = axe_results(page)
    (TOUR / f"{name}-{viewport}.axe.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    problems += [described(v) for v in results["violations"] if v["impact"] in FAILING]
    assert not problems, f"{name} on a {viewport}:\n" + "\n".join(problems)


def test_the_checks_catch_what_they_look_for(windows: dict[str, BrowserContext]) -> None:
    """The tour's checks are not blind: a page with faint text, an unlabelled field, a box wider than a phone and
    inline styles fails each of them."""
    bad = (
        '<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>bad</title>'
        '</head><body><main><h1>Bad</h1><p style="color:#bbb;background:#fff">faint</p><input type="text">'
        '<div class="wide" style="width:900px">wide</div><button onclick="x()">go</button></main></body></html>'
    )
    page = windows["phone"].new_page()
    try:
        page.set_content(bad)
        assert {v["id"] for v in axe_results(page)["violations"] if v["impact"] in FAILING} >= {
            "color-contrast",
            "label",
        }
        scroll = horizontal_scroll(page)
        assert scroll is not None and "div.wide" in scroll
    finally:
        page.close()
    assert len(inline_code(bad)) == 3  # two style attributes and an onclick
