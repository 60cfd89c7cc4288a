"""Browser tests: deadmail served on a real port to Debian's headless Chromium, driven by Playwright.

Chromium is Debian's package at /usr/bin/chromium (``.ci/run`` installs it; never ``playwright install``). Without
it these tests skip, except when DEADMAIL_REQUIRE_SERVICES=1 (CI), where they fail. The ``live`` fixture serves the
``stack`` fixture's app with its settings' base URL pointing at the server, so every link in a mail or a page
opens it, and runs a real in-process worker that advances the games.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from celery import Celery
from flask import Flask
from werkzeug.serving import make_server

from ..conftest import REQUIRED, Stack, need

try:
    from playwright.sync_api import expect  # noqa: F401 (the browser tests take it from here)
except ImportError:  # a test extra: without it no browser test is collected (one line says so); on CI it must be
    if REQUIRED:
        raise
    collect_ignore_glob = ["test_*.py"]

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Locator, Page, ViewportSize

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
#: the two windows every page is seen in: a desktop and a phone
DESKTOP: ViewportSize = {"width": 1366, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}
#: the options of a phone's browser context
PHONE_OPTIONS: dict[str, Any] = {"viewport": PHONE, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
#: Playwright's timeout for every wait and action (ms): a page that does not answer in this fails the test.
TIMEOUT_MS = 15_000

#: the one stack kind most browser tests run on (``pytestmark = EMBEDDED``): one test runs on production.
EMBEDDED = pytest.mark.parametrize("stack", ["embedded"], indirect=True)
PRODUCTION = pytest.mark.parametrize("stack", ["production"], indirect=True)


class _Late:
    """A WSGI app given after the server is bound (the app's settings need the server's port)."""

    def __init__(self) -> None:
        self.app: Flask | None = None

    def __call__(self, environ: Any, start_response: Any) -> Any:
        assert self.app is not None
        return self.app(environ, start_response)


@dataclass
class Live:
    """A deadmail served at ``url`` (the settings' base URL); ``worker`` is None unless a real worker runs."""

    stack: Stack
    url: str
    worker: Celery | None = None


@contextmanager
def serving(stack: Stack, live: bool = False) -> Iterator[Live]:
    """The stack's app on a free port, built from settings whose base URL is that server (its database hands the
    work of its transactions to the task queue); with ``live``, the live server too (server/run/live.py, on another
    free port, its address in the settings' ``live_url``); stopped on leaving."""
    from server.run.live import Background
    from server.run.queue import Queue
    from server.web.app import create_app

    late = _Late()
    server = make_server("127.0.0.1", 0, late, threaded=True)
    url = f"http://127.0.0.1:{server.server_port}"
    # settings first, then the app (and any worker) built from them: links in pages and mails open this server
    stack.settings = replace(stack.settings, base_url=url)
    pages = Background(stack.settings, stack.db, "127.0.0.1", 0).start() if live else None
    if pages is not None:
        stack.settings = replace(stack.settings, live_url=f"http://127.0.0.1:{pages.port}")
    stack.app = create_app(stack.settings, stack.db.with_tasks(Queue(stack.settings)))
    stack.client = stack.app.test_client()
    late.app = stack.app
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield Live(stack, url)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
        if pages is not None:
            pages.stop()


@pytest.fixture
def served(stack: Stack) -> Iterator[Live]:
    """The stack's app on a free port (``serving``). No worker runs (answers are stored, nothing advances; for the
    tests of single pages) unless the test also asks for ``live``."""
    with serving(stack) as live:
        yield live


@pytest.fixture
def live(served: Live, request: pytest.FixtureRequest) -> Live:
    """``served``, plus a real in-process worker (started after the settings changed) that sends the mail and
    advances the games."""
    served.worker = request.getfixturevalue("worker")
    return served


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless, for the whole session."""
    error: Exception | None = None
    if not Path(CHROMIUM).exists():
        error = FileNotFoundError(f"{CHROMIUM} (install Debian's chromium package)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        error = exc
    need("Chromium and Playwright", error)
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def _context(browser: Browser, **options: Any) -> Iterator[BrowserContext]:
    context = browser.new_context(**options)
    context.set_default_timeout(TIMEOUT_MS)
    yield context
    context.close()


@pytest.fixture
def desktop(browser: Browser) -> Iterator[BrowserContext]:
    """A desktop browser window (1366 x 900)."""
    yield from _context(browser, viewport=DESKTOP)


@pytest.fixture
def phone(browser: Browser) -> Iterator[BrowserContext]:
    """A phone (390 x 844, mobile, touch)."""
    yield from _context(browser, **PHONE_OPTIONS)


@pytest.fixture
def nojs(browser: Browser) -> Iterator[BrowserContext]:
    """A browser with JavaScript turned off: pages must still answer with plain forms."""
    yield from _context(browser, viewport=DESKTOP, java_script_enabled=False)


@pytest.fixture
def new_context(browser: Browser) -> Iterator[Callable[[], BrowserContext]]:
    """More desktop windows, each with its own cookies (one per player in a game)."""
    made: list[BrowserContext] = []

    def make() -> BrowserContext:
        context = browser.new_context(viewport=DESKTOP)
        context.set_default_timeout(TIMEOUT_MS)
        made.append(context)
        return context

    yield make
    for context in made:
        context.close()


def from_the_list(scope: Page | Locator) -> None:
    """Unfold the decision's list of choices (static/deadmail.js folds it under the board's picker): the way a
    person who does not tap the board answers, and the way these tests do when the board is not what they test."""
    folded = scope.locator("details.pick-list:not([open]) > summary")
    if folded.count():
        folded.first.click()


def screenshot(page: Page, name: str, folder: Path = SCREENSHOTS) -> Path:
    """Save the whole page as tests/browser/screenshots/<name>.png (kept out of git), or in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def pytest_report_header() -> list[str]:
    if "collect_ignore_glob" in globals():
        return ["Playwright is not installed: the browser tests are left out (pip install -e '.[test]')"]
    return []
