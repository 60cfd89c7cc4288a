"""A mail's one-click unsubscribe address opened by hand in a real browser (issue 31), on a phone and a desktop:
the page changes nothing until its button is pressed, then undoes it; no page scrolls sideways."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.models import MailKind
from tests.support import api_game, compose, people, rows_of_kind

from .conftest import EMBEDDED, Live, expect, screenshot
from .test_pages import no_horizontal_scroll

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

pytestmark = EMBEDDED


def test_the_unsubscribe_page_switches_to_the_digest_and_back(
    served: Live, phone: BrowserContext, desktop: BrowserContext
) -> None:
    api_game(served.stack.client, people(3))
    row = rows_of_kind(served.stack.db, MailKind.TURN)[0]
    mail = compose(served.stack.db, row.id, served.stack.settings)
    assert mail is not None
    address = str(mail["List-Unsubscribe"]).strip("<>")
    assert address.startswith(served.url)
    for device, context in (("phone", phone), ("desktop", desktop)):
        page = context.new_page()
        page.goto(address)
        expect(page.get_by_role("heading", level=1)).to_have_text("Fewer mails")
        no_horizontal_scroll(page)
        screenshot(page, f"unsubscribe-{device}")
        page.get_by_role("button", name="A digest instead").click()
        expect(page.get_by_role("status")).to_contain_text("from now on you get a digest")
        no_horizontal_scroll(page)
        screenshot(page, f"unsubscribe-done-{device}")
        page.get_by_role("button", name="A mail for every event again").click()
        expect(page.get_by_role("status")).to_contain_text("a mail for every event again")
