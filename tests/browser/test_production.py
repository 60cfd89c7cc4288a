"""One browser flow on the production setup (PostgreSQL and Redis, a real worker): a round played by clicking."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..waiting import wait_for
from .conftest import PRODUCTION, Live
from .test_pages import WORKER_S, answer_by_clicking, board_tokens, check_no_secrets, make_game, window_number

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext


@PRODUCTION
def test_a_round_is_played_by_clicking_on_production(live: Live, new_context: Callable[[], BrowserContext]) -> None:
    made = make_game(live, seed=21)
    links = {colour: link for colour, (_seat_id, link) in made.seats.items()}
    pages = {colour: new_context().new_page() for colour in links}
    first = window_number(live, made.game_id)
    before = {}
    for i, (colour, page) in enumerate(pages.items()):
        page.goto(links[colour])
        before[colour] = board_tokens(page)
        if page.locator("form.decision-form").count():
            answer_by_clicking(page, i)
    wait_for(lambda: window_number(live, made.game_id) != first, WORKER_S, "the worker to advance the first window")
    for colour, page in pages.items():
        page.reload()
        assert board_tokens(page) != before[colour]
        check_no_secrets(live, made.game_id, colour, page, links)
