"""The league organiser's whole flow in a real browser, by clicking: the server organiser logs in at
``/o/``, follows Leagues, creates a league, invites a first player before any season (the invitation waits), creates
a season (the invitation goes), invites five more; the six sign up from their invitation mails and confirm from
their confirmation mails; the organiser sees the sign-ups, plans round 1, swaps two players, opens the start
address (the page asks), starts the round, abandons both games from their organiser pages, records their results
and creates the next season. Once on a desktop and once on a phone, each page screenshotted (tests/browser/
screenshots/, and /tmp/shots/lo/) and checked not to scroll sideways. No worker runs: mails are read as composed."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import sqlalchemy as sa

from server.models import MailKind, Player, utcnow
from server.text.i18n import zone as tz_of
from tests.support import compose, rows_of_kind, text_of

from .conftest import EMBEDDED, Live, expect, screenshot
from .test_organiser_pages import API_TOKEN
from .test_pages import no_horizontal_scroll

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

pytestmark = EMBEDDED

SHOTS = Path("/tmp/shots/lo")
PLAYERS = ("ann", "bob", "cy", "dee", "eve", "fay")


def shot(page: Page, name: str, window: str) -> None:
    no_horizontal_scroll(page)
    screenshot(page, f"league-flow-{name}-{window}")
    screenshot(page, f"{name}-{window}", SHOTS)


def mailed_link(live: Live, kind: MailKind, email: str, pattern: str) -> str:
    """The link matching ``pattern`` in the newest ``kind`` mail to ``email``, as composed for sending."""
    with live.stack.db.session() as session:
        player = session.execute(sa.select(Player.id).where(Player.email == email)).scalar_one()
    rows = [row for row in rows_of_kind(live.stack.db, kind) if row.player_id == player]
    assert rows, f"no {kind} mail to {email}"
    mail = compose(live.stack.db, rows[-1].id, live.stack.settings)
    assert mail is not None
    found = re.findall(rf"{re.escape(live.url)}{pattern}", text_of(mail))
    assert found, f"no link {pattern} in the {kind} mail to {email}"
    return str(found[0])


def sign_up(live: Live, page: Page, name: str) -> None:
    """A player signs up from their invitation mail and confirms from their confirmation mail."""
    email = f"{name}@example.org"
    page.goto(mailed_link(live, MailKind.LEAGUE_INVITE, email, r"/l/[A-Za-z0-9_.=-]+"))
    page.get_by_label("Your name (your opponents see it)").fill(name.capitalize())
    page.get_by_label("Your e-mail (the league's and the games' mails go there)").fill(email)
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Check your mail")
    page.goto(mailed_link(live, MailKind.LEAGUE_CONFIRM, email, r"/l/confirm/[A-Za-z0-9_.=-]+"))
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("status")).to_contain_text("You are in season 1")


def create_league_and_season(live: Live, page: Page, window: str) -> None:
    page.goto(f"{live.url}/o/login")
    page.get_by_label("Organiser token").fill(API_TOKEN)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your games")
    page.get_by_role("link", name="Leagues").last.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Leagues")
    page.get_by_role("link", name="Create a league").click()
    page.get_by_label("Name").fill("Tuesday Night")
    page.get_by_label("Time zone").select_option("Europe/Warsaw")
    page.get_by_label("Players at a table").select_option("3")
    page.get_by_label("Anyone with the league's public link sees its standings").check()
    shot(page, "new-league", window)
    page.get_by_role("button", name="Create the league").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Tuesday Night")
    expect(page.get_by_role("status")).to_contain_text("The league is created.")
    shot(page, "league", window)
    page.get_by_role("link", name="Invite players").last.click()
    page.get_by_label(re.compile("E-mail addresses")).fill("ann@example.org")
    page.get_by_role("button", name="Invite", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("No season takes sign-ups now")
    expect(page.locator(".league-held")).to_contain_text("ann@example.org")
    shot(page, "invite-held", window)
    page.get_by_role("link", name="Create a season").last.click()
    closes = (utcnow() + timedelta(days=7)).astimezone(tz_of("Europe/Warsaw"))
    page.get_by_label("Sign-ups close on").fill(f"{closes:%Y-%m-%d}")
    page.get_by_label("Closing time").fill("18:00")
    page.get_by_label("Number of rounds").fill("1")
    shot(page, "new-season", window)
    page.get_by_role("button", name="Create the season").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Season 1")
    expect(page.get_by_role("status")).to_contain_text("The season is created")
    page.get_by_role("link", name="Invite players").last.click()
    expect(page.locator(".league-held")).to_have_count(0)  # Ann's invitation went when the season opened
    page.get_by_label(re.compile("E-mail addresses")).fill("\n".join(f"{n}@example.org" for n in PLAYERS[1:]))
    page.get_by_role("button", name="Invite", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("The invitations are on their way.")
    shot(page, "invite-sent", window)


def plan_swap_start(live: Live, page: Page, window: str) -> str:
    """Round 1 planned, two players swapped, the start address opened (it asks), the round started; its URL."""
    page.get_by_role("link", name="The league").click()
    page.get_by_role("link", name="Season 1").last.click()
    entries = page.locator(".league-entries")
    for name in PLAYERS:
        expect(entries).to_contain_text(re.compile(rf"{name.capitalize()} confirmed \w+day, "))
    expect(entries).not_to_contain_text("@example.org")
    shot(page, "season", window)
    page.get_by_role("button", name="Plan the next round").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Round 1")
    expect(page.locator(".league-tables section")).to_have_count(2)
    first = page.locator(".league-tables section").nth(0).locator("li").first.inner_text()
    form = page.locator("form.league-swap")
    form.get_by_label("Player").select_option(index=0)
    form.get_by_label("with").select_option(index=5)
    shot(page, "round", window)
    form.get_by_role("button", name="Swap").click()
    expect(page.locator(".league-tables section").nth(0)).not_to_contain_text(first.split(" ")[0])
    round_url = page.url
    page.goto(f"{round_url}/start")  # a GET of the start address: the page that asks
    expect(page.get_by_role("heading", level=1)).to_have_text("Start the round?")
    shot(page, "start", window)
    page.get_by_role("button", name="Start the round").click()
    expect(page.get_by_role("heading", level=2, name="Games")).to_be_visible()
    shot(page, "round-started", window)
    return round_url


def abandon_and_record(page: Page, round_url: str, window: str) -> None:
    for table in (1, 2):
        page.goto(round_url)
        page.get_by_role("link", name=re.compile(rf"Table {table} · game \d+")).click()
        page.get_by_role("button", name="Abandon…").click()
        page.get_by_role("button", name="Yes, abandon the game").click()
        expect(page.get_by_role("status")).to_contain_text("The game is abandoned.")
    page.goto(round_url)
    page.get_by_role("link", name="Season 1").last.click()
    page.get_by_role("link", name="Results").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Results")
    shot(page, "results", window)
    for _ in (1, 2):
        form = page.locator("form[action$='/record']").first
        for k, field in enumerate(form.locator("input[name^=points_]").all()):
            field.fill(str(10 - k))
        form.get_by_role("button", name="Record the result").click()
        expect(page.get_by_role("status")).to_contain_text("The result is recorded.")
    page.get_by_label("Sign-up open for (days)").fill("10")
    shot(page, "results-over", window)
    page.get_by_role("button", name="Create the next season").click()
    expect(page.get_by_role("status")).to_contain_text("The next season is created.")
    shot(page, "next-season", window)


@pytest.mark.long(13)
@pytest.mark.parametrize("window", ["desktop", "phone"])
def test_the_league_organiser_walks_the_whole_flow_by_clicking(
    served: Live, window: str, request: pytest.FixtureRequest, new_context: object
) -> None:
    context: BrowserContext = request.getfixturevalue(window)
    page = context.new_page()
    create_league_and_season(served, page, window)
    player = context.browser.new_context() if context.browser else None  # the players' own browser
    assert player is not None
    try:
        for name in PLAYERS:
            sign_up(served, player.new_page(), name)
    finally:
        player.close()
    round_url = plan_swap_start(served, page, window)
    abandon_and_record(page, round_url, window)
