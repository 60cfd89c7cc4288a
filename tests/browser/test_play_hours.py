"""A session of play hours in a real browser: two players' pages open; one answers on their page
and the other page shows it by itself, without a reload, within a few seconds; both pages show who is here."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

import pytest

from server.models import utcnow
from server.services.tempo import parse_play_hours
from tests.support import AUTH

from .conftest import EMBEDDED, Live, expect, from_the_list, screenshot

if TYPE_CHECKING:
    from collections.abc import Callable

    from playwright.sync_api import BrowserContext

pytestmark = EMBEDDED

#: what "within a few seconds" means here: the page polls every 3 s in a session.
FEW_SECONDS_MS = 8_000


@pytest.mark.long(9)
def test_in_a_session_a_page_updates_by_itself_and_shows_who_is_here(
    served: Live, new_context: Callable[[], BrowserContext]
) -> None:
    now = utcnow()
    start, end = (now - timedelta(hours=1)).strftime("%H:%M"), (now + timedelta(hours=1)).strftime("%H:%M")
    body = {
        "players": ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"],
        "seed": 7,
        "play_hours": parse_play_hours(f"daily {start}-{end} UTC", "10m"),
    }
    reply = served.stack.client.post("/api/games", json=body, headers=AUTH)
    assert reply.status_code == 201, reply.json
    links = {s["colour"]: s["link"] for s in reply.json["seats"]}

    ann, bob = new_context().new_page(), new_context().new_page()
    bob.goto(links["red"])
    ann.goto(links["yellow"])
    bob.evaluate("window.notReloaded = true")
    waiting = bob.locator("p.waiting")
    expect(waiting).to_contain_text("Yellow")
    # both on their pages: each page says so by itself
    expect(bob.locator("p.here")).to_contain_text("Yellow, Red", timeout=FEW_SECONDS_MS)
    expect(ann.locator("p.here")).to_contain_text("Yellow, Red", timeout=FEW_SECONDS_MS)

    from_the_list(ann)
    ann.locator("form.decision-form input[type=radio]").first.check()
    ann.get_by_role("button", name="Answer").click()
    expect(ann.get_by_role("status")).to_contain_text("Your answer is saved")

    expect(waiting).not_to_contain_text("Yellow", timeout=FEW_SECONDS_MS)  # Bob's page, by itself
    assert bob.evaluate("window.notReloaded") is True
    screenshot(bob, "play-hours-session")
