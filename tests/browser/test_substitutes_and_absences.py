"""Substitutes and absences in a real browser: the organiser offers a seat from the game page, a
substitute takes it on a phone and lands on the seat's page; a player declares an absence on the preferences page
and the others see "away until"."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

import sqlalchemy as sa

from server.models import Player, Seat, utcnow
from server.services.links import player_token

from .conftest import Live, expect, screenshot
from .test_pages import API_TOKEN, make_game

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext


def test_an_organiser_offers_a_seat_and_a_substitute_takes_it_on_a_phone(
    served: Live, desktop: BrowserContext, phone: BrowserContext
) -> None:
    made = make_game(served, seed=12)
    organiser = desktop.new_page()
    organiser.goto(f"{served.url}/o/login")
    organiser.get_by_label("Organiser token").fill(API_TOKEN)
    organiser.get_by_role("button", name="Log in").click()
    organiser.goto(f"{served.url}/o/games/{made.game_id}")
    screenshot(organiser, "organiser-game-issue12")
    organiser.get_by_role("link", name="Offer this seat to a substitute").nth(2).click()  # blue's
    organiser.get_by_role("button").filter(has_text="Offer").first.click()
    link = organiser.locator("code, input[readonly], a[href*='/i/']").first
    expect(link).to_be_visible()
    url = link.get_attribute("href") or link.get_attribute("value") or link.inner_text()
    assert "/i/" in url

    substitute = phone.new_page()
    substitute.goto(url)
    expect(substitute.get_by_role("heading", level=1)).to_contain_text("A seat is offered to you")
    screenshot(substitute, "invitation-phone")
    substitute.get_by_label("Your name (the table sees it)").fill("Dee")
    substitute.get_by_label("Your e-mail (the game's mails go there)").fill("dee@example.org")
    substitute.get_by_role("button", name="Take the seat").click()
    expect(substitute.get_by_role("heading", level=1)).to_contain_text("Mall of Horror")
    expect(substitute.get_by_text("You play")).to_contain_text("Blue")
    with served.stack.db.session() as session:
        seat = session.execute(sa.select(Seat).where(Seat.game_id == made.game_id, Seat.colour == "blue")).scalar_one()
        assert seat.player is not None and seat.player.email == "dee@example.org" and seat.link_generation == 2
    old = desktop.new_page()  # the former player's link opens nothing any more
    response = old.goto(made.seats["blue"][1])
    assert response is not None and response.status == 403

    again = phone.new_page()  # the invitation works once: its page says so, and offers no form
    response = again.goto(url)
    assert response is not None and response.status >= 400
    expect(again.get_by_text("This invitation was already used")).to_be_visible()
    assert again.get_by_role("button", name="Take the seat").count() == 0


def test_a_player_declares_an_absence_on_the_preferences_page_and_the_table_sees_it(
    served: Live, phone: BrowserContext, desktop: BrowserContext
) -> None:
    made = make_game(served, seed=13)
    with served.stack.db.session() as session:
        player = session.execute(
            sa.select(Player)
            .join(Seat, Seat.player_id == Player.id)
            .where(Seat.game_id == made.game_id, Seat.colour == "red")
        ).scalar_one()
        token = player_token(served.stack.settings.secret_key, player.id, player.link_generation)
    page = phone.new_page()
    page.goto(f"{served.url}/p/{token}")
    today = utcnow().date()
    page.get_by_label("First day away").fill(today.isoformat())
    page.get_by_label("Last day away").fill((today + timedelta(days=3)).isoformat())
    page.get_by_role("button", name="Add the absence").click()
    expect(page.locator("#absences")).to_contain_text("Away now, until")
    screenshot(page, "prefs-absence-phone")

    other = desktop.new_page()
    other.goto(made.seats["yellow"][1])
    expect(other.locator("p.presence")).to_contain_text("Red is away until")
    mine = phone.new_page()
    mine.goto(made.seats["red"][1])
    expect(mine.get_by_role("region", name="You are away until", exact=False)).to_be_visible()
    screenshot(mine, "away-seat-phone")
