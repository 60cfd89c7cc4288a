"""The calendar address on the preferences page, on a phone: shown without a sideways scroll, its feed served as
ICS, and a new address made from the page (the old one then refused)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import sqlalchemy as sa
from icalendar import Calendar

from server.models import Player
from server.services.links import player_token

from .conftest import Live, expect, screenshot
from .test_pages import make_game
from .test_tour import horizontal_scroll

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext


def test_the_calendar_address_is_shown_subscribed_to_and_replaced(served: Live, phone: BrowserContext) -> None:
    make_game(served, seed=21)
    with served.stack.db.session() as session:
        player = session.execute(sa.select(Player).where(Player.display_name == "Ann")).scalar_one()
        token = player_token(served.stack.settings.secret_key, player.id, player.link_generation)
    page = phone.new_page()
    page.goto(f"{served.url}/p/{token}#calendar")
    section = page.locator("#calendar")
    expect(section.get_by_role("heading", name="Your deadlines in your calendar")).to_be_visible()
    subscribe = section.get_by_role("link", name="Subscribe in your calendar app")
    assert (subscribe.get_attribute("href") or "").startswith("webcal://")
    address = section.locator("a.calendar-address")
    old = urlsplit(address.get_attribute("href") or "").path
    assert old.startswith("/calendar/") and old.endswith(".ics")
    assert horizontal_scroll(page) is None
    for control in (subscribe, section.get_by_role("button")):
        box = control.bounding_box()
        assert box is not None and box["height"] >= 40
    section.scroll_into_view_if_needed()
    screenshot(page, "calendar-prefs-phone")

    feed = page.request.get(f"{served.url}{old}")
    assert feed.status == 200 and feed.headers["content-type"] == "text/calendar; charset=utf-8"
    assert len(list(Calendar.from_ical(feed.body()).walk("VEVENT"))) == 1

    section.get_by_role("button", name="Make a new address (the old one stops working)").click()
    expect(page.get_by_role("status")).to_contain_text("Your calendar has a new address")
    new = urlsplit(page.locator("#calendar a.calendar-address").get_attribute("href") or "").path
    assert new != old
    assert page.request.get(f"{served.url}{old}").status == 403
    assert page.request.get(f"{served.url}{new}").status == 200
