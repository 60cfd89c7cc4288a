"""Players start their own games in a real browser (issue 30), on a desktop and on a phone: a player signs in from
the sign-in mail, proposes a game of 4 listed in the lobby, invites two addresses who accept from their invitation
mails' links (each in a browser of its own), a third signed-in player takes the last seat from the lobby, and the
game starts: the creator's hub shows it running. Screenshots of the new-game form, the game's page with its
invitations, an invitation's page and the lobby; no page scrolls sideways. Without JavaScript the forms work
the same."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest
import sqlalchemy as sa

from server.models import MailKind, Player
from tests.support import add_player, compose, rows_of_kind, text_of

from .conftest import DESKTOP, EMBEDDED, PHONE_OPTIONS, TIMEOUT_MS, Live, expect, screenshot
from .test_pages import no_horizontal_scroll

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

pytestmark = EMBEDDED

INVITED = ("bea@example.org", "carl@example.org")


def _context(browser: Browser, device: str) -> BrowserContext:
    options: dict[str, Any] = dict(PHONE_OPTIONS) if device == "phone" else {"viewport": DESKTOP}
    context = browser.new_context(**options)
    context.set_default_timeout(TIMEOUT_MS)
    return context


def _sign_in(served: Live, page: Page, address: str) -> None:
    """From the sign-in form to the hub, through the mailed link."""
    page.goto(f"{served.url}/signin")
    page.get_by_label("Your e-mail address").fill(address)
    page.get_by_role("button", name="Mail me a sign-in link").click()
    expect(page.get_by_role("status")).to_contain_text("a sign-in link is on its way")
    mail = compose(served.stack.db, rows_of_kind(served.stack.db, MailKind.SIGNIN)[-1].id, served.stack.settings)
    assert mail is not None
    (link,) = re.findall(r"https?://\S+/signin/\S+", text_of(mail))
    page.goto(link)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="My games")).to_be_visible()


def _invitation_link(served: Live, address: str) -> str:
    """The link of the invitation mailed to ``address``, read from the mail as its reader gets it."""
    with served.stack.db.session() as session:
        player = session.execute(sa.select(Player.id).where(Player.email == address)).scalar_one()
    (row,) = [r for r in rows_of_kind(served.stack.db, MailKind.GAME_INVITE) if r.player_id == player]
    mail = compose(served.stack.db, row.id, served.stack.settings)
    assert mail is not None and address in str(mail["To"])
    (link,) = re.findall(r"https?://\S+/invited/\S+", text_of(mail))
    return link


def _create(served: Live, ann: Page, device: str) -> None:
    """From the hub's New game button: a game of 4, listed, with a preset and a zone."""
    ann.get_by_role("link", name="New game").first.click()
    expect(ann.get_by_role("heading", level=1)).to_have_text("New game")
    ann.get_by_label("Players, you included").select_option("4")
    ann.get_by_label("Title (optional)").fill("Saturday siege")
    ann.get_by_label("Tempo preset").select_option("week")
    ann.get_by_label("The game's time zone").select_option("Europe/Rome")
    ann.get_by_label("List it in the lobby").check()
    no_horizontal_scroll(ann)
    screenshot(ann, f"lobby-new-game-{device}")
    ann.get_by_role("button", name="Create the game").click()
    expect(ann.get_by_role("status")).to_contain_text("Your game is ready")
    expect(ann.locator(".lobby-facts")).to_contain_text("1 of 4 seats taken: ann")


def _invite(served: Live, ann: Page, device: str) -> None:
    ann.get_by_label("E-mail addresses").fill(", ".join(INVITED))
    ann.get_by_role("button", name="Send the invitations").click()
    expect(ann.get_by_role("status")).to_contain_text("2 invitations sent.")
    expect(ann.locator("#invite .hub-list li")).to_have_count(2)
    expect(ann.get_by_label("The game's link")).to_have_value(re.compile(r"/g/"))
    no_horizontal_scroll(ann)
    screenshot(ann, f"lobby-game-invitations-{device}")


def _accept(served: Live, page: Page, address: str, name: str, device: str) -> None:
    """The invitation mail's link opened in the invited person's own browser, accepted with a name."""
    page.goto(_invitation_link(served, address))
    expect(page.get_by_role("heading", level=1)).to_have_text("Saturday siege")
    expect(page.get_by_text(f"ann invites {address}")).to_be_visible()
    no_horizontal_scroll(page)
    if name == "Bea":
        screenshot(page, f"lobby-invitation-{device}")
    page.get_by_label("Your name, as the other players will see it").fill(name)
    page.get_by_role("button", name="Accept: take a seat").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("You have a seat")
    expect(page.get_by_role("status")).to_contain_text("The game starts when every seat is taken")
    no_horizontal_scroll(page)


def _join_from_the_lobby(served: Live, dan: Page, device: str) -> None:
    _sign_in(served, dan, "dan@example.org")
    dan.get_by_role("link", name="Open games").first.click()
    expect(dan.get_by_role("heading", level=1)).to_have_text("Open games")
    card = dan.locator(".lobby-list li", has_text="Saturday siege")
    expect(card).to_contain_text("3 of 4 seats taken")
    no_horizontal_scroll(dan)
    screenshot(dan, f"lobby-open-games-{device}")
    card.get_by_role("link", name="See and join").click()
    dan.get_by_role("button", name="Join").click()
    expect(dan.get_by_role("status")).to_contain_text("The game has started")
    no_horizontal_scroll(dan)


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_player_starts_a_game_invites_and_fills_it_from_the_lobby(
    served: Live, browser: Browser, device: str
) -> None:
    add_player(served.stack.db, "ann@example.org")
    add_player(served.stack.db, "dan@example.org")
    contexts = [_context(browser, device) for _ in range(4)]
    try:
        ann, bea, carl, dan = (context.new_page() for context in contexts)
        _sign_in(served, ann, "ann@example.org")
        _create(served, ann, device)
        _invite(served, ann, device)
        _accept(served, bea, INVITED[0], "Bea", device)
        _accept(served, carl, INVITED[1], "Carl", device)
        ann.reload()
        expect(ann.locator(".lobby-facts")).to_contain_text("3 of 4 seats taken: ann, Bea, Carl")
        expect(ann.locator("#invite .hub-list")).to_contain_text("accepted")
        _join_from_the_lobby(served, dan, device)

        # the game runs: the creator's hub shows it
        ann.goto(f"{served.url}/me")
        games = ann.locator("#games")
        expect(games.get_by_role("heading", name="Running")).to_be_visible()
        expect(games).to_contain_text("Saturday siege")
        expect(games.get_by_role("link", name="Open the game")).to_be_visible()
        expect(games).not_to_contain_text("Waiting for players")
        no_horizontal_scroll(ann)
        screenshot(ann, f"lobby-hub-running-{device}")
    finally:
        for context in contexts:
            context.close()


def test_the_lobby_pages_work_without_javascript(served: Live, browser: Browser) -> None:
    """Plain forms: a game created, its link given without a Copy button, a newcomer asks for the invitation."""
    add_player(served.stack.db, "ann@example.org")
    contexts = [browser.new_context(viewport=DESKTOP, java_script_enabled=False) for _ in range(2)]
    try:
        ann, newcomer = (context.new_page() for context in contexts)
        _sign_in(served, ann, "ann@example.org")
        ann.goto(f"{served.url}/games/new")
        ann.get_by_label("Title (optional)").fill("No script")
        ann.get_by_role("button", name="Create the game").click()
        expect(ann.get_by_role("status")).to_contain_text("Your game is ready")
        expect(ann.get_by_role("button", name="Copy")).to_be_hidden()
        newcomer.goto(ann.get_by_label("The game's link").input_value())
        expect(newcomer.get_by_role("heading", level=1)).to_have_text("No script")
        newcomer.get_by_label("Your e-mail address").fill("newt@example.org")
        newcomer.get_by_role("button", name="Mail me the invitation").click()
        expect(newcomer.get_by_role("status")).to_contain_text("the game's invitation is on its way")
        assert [row.kind for row in rows_of_kind(served.stack.db, MailKind.GAME_INVITE)] == [MailKind.GAME_INVITE]
    finally:
        for context in contexts:
            context.close()
