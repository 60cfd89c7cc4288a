"""The autopilot in a real browser: a player who missed two deadlines sees the banner on their page (a
phone, and a browser without JavaScript), comes back with one tap, and the others see "on autopilot" meanwhile."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.server.test_autopilot import until_autopilot
from tests.support import seat_of

from .conftest import Live, expect, screenshot
from .test_pages import make_game

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext


@pytest.mark.parametrize("context", ["phone", "nojs"])
def test_a_player_on_autopilot_comes_back_with_one_tap(
    served: Live, context: str, desktop: BrowserContext, request: pytest.FixtureRequest
) -> None:
    made = make_game(served, seed=5)  # the default game: autopilot after 2 missed deadlines
    ids = {colour: seat_id for colour, (seat_id, _link) in made.seats.items()}
    until_autopilot(served.stack.db, made.game_id, "blue", ids)

    other = desktop.new_page()
    other.goto(made.seats["red"][1])
    expect(other.locator("p.presence")).to_contain_text("Blue is on autopilot")

    page = request.getfixturevalue(context).new_page()
    page.goto(made.seats["blue"][1])
    banner = page.get_by_role("region", name="Your seat is on autopilot")
    expect(banner).to_be_visible()
    screenshot(page, f"autopilot-{context}")
    banner.get_by_role("button", name="I'm back").click()
    expect(page.get_by_role("status")).to_contain_text("Welcome back")
    expect(page.get_by_role("region", name="Your seat is on autopilot")).to_have_count(0)
    assert seat_of(served.stack.db, ids["blue"]).autopilot_at is None
    other.reload()
    expect(other.locator("p.presence")).to_have_count(0)
