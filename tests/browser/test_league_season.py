"""A league's season in a real browser: a player signs up from the invitation
link on a phone and confirms by the mail; the league organiser plans round 1 and starts it on their pages (season,
plan, round, start, confirm); the player reads their table in the fixtures mail, sees the season on their hub, plays
their game to the end (their decisions clicked on their seat page, the other two seats answered through the
service, each window advanced once complete), and opens the standings from the round's results mail: their row is
there. No worker runs: every step is the test's, so the test is the same every time."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING

import pytest
import sqlalchemy as sa

from server.models import Game, GameStatus, MailKind, Player, utcnow
from server.services.leagues import seasons
from server.services.leagues.seasons import LeagueSpec
from tests.server.test_rounds import enter
from tests.support import compose, open_window, play_window, rows_of_kind, text_of

from .conftest import EMBEDDED, Live, expect, from_the_list, screenshot
from .test_pages import no_horizontal_scroll

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

pytestmark = EMBEDDED

#: the most decisions the player answers by clicking (any later one goes through the service)
CLICKED = 400


def mail_links(live: Live, kind: MailKind, player_id: int, pattern: str) -> list[str]:
    """The links matching ``pattern`` in the newest ``kind`` mail to the player, as composed for sending."""
    rows = [row for row in rows_of_kind(live.stack.db, kind) if row.player_id == player_id]
    assert rows, f"no {kind} mail to player {player_id}"
    mail = compose(live.stack.db, rows[-1].id, live.stack.settings)
    assert mail is not None
    found = re.findall(rf"{re.escape(live.url)}{pattern}", text_of(mail))
    assert found, f"no link {pattern} in the {kind} mail"
    return list(dict.fromkeys(found))


def sign_up(live: Live, page: Page, invite: str) -> int:
    """Ann signs up from the invitation link and confirms from the mailed link; her player's id."""
    page.goto(f"{live.url}/l/{invite}")
    page.get_by_label("Your name (your opponents see it)").fill("Ann")
    page.get_by_label("Your e-mail (the league's and the games' mails go there)").fill("ann@example.org")
    page.get_by_label("Time zone").select_option("Europe/Warsaw")
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Check your mail")
    with live.stack.db.session() as session:
        ann = session.execute(sa.select(Player.id).where(Player.email == "ann@example.org")).scalar_one()
    (link,) = mail_links(live, MailKind.LEAGUE_CONFIRM, ann, r"/l/confirm/\S+")
    page.goto(link)
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("status")).to_have_text("You are in season 1 of Tuesday Night.")
    return ann


def start_round_one(live: Live, page: Page, organiser: str) -> None:
    """The league organiser opens the season, plans round 1, looks at its table and starts it (asked first)."""
    page.goto(f"{live.url}/lo/{organiser}")
    expect(page.get_by_role("heading", level=1)).to_have_text("Tuesday Night")
    page.get_by_role("link", name="Season 1").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Season 1")
    expect(page.locator(".league-entries")).to_contain_text("Ann")
    page.get_by_role("button", name="Plan the next round").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Round 1")
    expect(page.locator(".league-tables")).to_contain_text("Ann")
    expect(page.locator(".league-tables")).to_contain_text("Europe/Warsaw")
    screenshot(page, "league-round-planned-desktop")
    page.get_by_role("button", name="Start the round").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Start the round?")
    expect(page.get_by_text("This cannot be undone.")).to_be_visible()
    page.get_by_role("button", name="Start the round").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Round 1")
    expect(page.get_by_role("heading", level=2, name="Games")).to_be_visible()
    expect(page.get_by_role("link", name=re.compile(r"Table 1 · game \d+"))).to_be_visible()
    screenshot(page, "league-round-started-desktop")


def answer_by_clicking(page: Page, seat: str) -> bool:
    """Open the seat and answer its decision with the first choice, if the form is one of radio choices; whether
    it was answered here."""
    page.goto(seat)
    form = page.locator("form.decision-form")
    if form.count() != 1 or form.locator("label.choice input[type=radio]").count() == 0:
        return False
    from_the_list(form)
    form.locator("label.choice input[type=radio]").first.check()
    form.get_by_role("button", name="Answer").click()
    page.wait_for_url(re.compile(r"\?saved=\d+$"))
    expect(page.get_by_role("status")).to_contain_text("Your answer is saved")
    return True


def play_to_the_end(live: Live, page: Page, seat: str, colour: str, game_id: int) -> int:
    """The game played to its end: Ann's first ``CLICKED`` decisions clicked, every other answer given through the
    service; how many were clicked."""
    db, clicked = live.stack.db, 0
    for _ in range(800):
        window = open_window(db, game_id)
        if window is None:
            return clicked
        owes = any(r.seat.colour == colour and r.answered_at is None for r in window.requests)
        if owes and window.completed_at is None and clicked < CLICKED and answer_by_clicking(page, seat):
            clicked += 1
        play_window(db, game_id, game_id, utcnow())
    raise AssertionError("the game went on too long")


@pytest.mark.long(13)
def test_a_player_signs_up_plays_round_one_and_sees_the_standings(
    served: Live, phone: BrowserContext, desktop: BrowserContext
) -> None:
    db, settings = served.stack.db, served.stack.settings
    now = utcnow()
    league_id = seasons.create_league(db, LeagueSpec(name="Tuesday Night", timezone="Europe/Rome"), now)
    season_id = seasons.create_season(db, league_id, now + timedelta(days=7), 1, "when_over", None, now=now)
    enter(db, season_id, 2)  # two more confirmed players: a table of three
    invite = seasons.league_link(db, settings.secret_key, league_id, "invite")
    organiser = seasons.league_link(db, settings.secret_key, league_id, "organiser")

    player = phone.new_page()
    ann = sign_up(served, player, invite)
    start_round_one(served, desktop.new_page(), organiser)

    # the fixtures mail: her seat and her hub
    (seat,) = mail_links(served, MailKind.LEAGUE_FIXTURES, ann, r"/s/[A-Za-z0-9_.-]+")
    hub = next(link for link in mail_links(served, MailKind.LEAGUE_FIXTURES, ann, r"/p/[A-Za-z0-9_.-]+"))
    player.goto(hub)
    leagues_panel = player.locator("#leagues")
    expect(leagues_panel.get_by_role("heading", name="Your leagues")).to_be_visible()
    expect(leagues_panel).to_contain_text("Tuesday Night")
    no_horizontal_scroll(player)
    screenshot(player, "league-hub-phone")

    player.goto(seat)
    expect(player.get_by_role("heading", level=1)).to_contain_text("Tuesday Night")
    no_horizontal_scroll(player)
    with db.session() as session:
        game = session.execute(sa.select(Game)).scalar_one()
        game_id = game.id
        colour = next(s.colour for s in game.seats if s.player_id == ann)
    assert play_to_the_end(served, player, seat, colour, game_id) >= 1
    with db.session() as session:
        assert session.get(Game, game_id).status == GameStatus.OVER  # type: ignore[union-attr]

    # the round's results mail links to the standings: her row, marked as hers
    (standings,) = mail_links(served, MailKind.LEAGUE_RESULTS, ann, rf"/p/[A-Za-z0-9_.-]+/season/{season_id}")
    player.goto(standings)
    expect(player.get_by_role("heading", level=1)).to_have_text("Standings")
    mine = player.locator("table.standings tr.you")
    expect(mine).to_have_count(1)
    expect(mine.get_by_role("rowheader")).to_have_text("Ann")
    expect(mine.locator("td").nth(2)).to_have_text("1")  # her one game (rank, points, games, …)
    points = mine.locator("td").nth(1).inner_text()  # the sentence writes them as the table does
    expect(
        player.get_by_text(re.compile(rf"You are in place \d with {re.escape(points)} league points?\."))
    ).to_be_visible()
    no_horizontal_scroll(player)
    screenshot(player, "league-standings-phone")
    player.goto(hub)  # the hub links to the same standings (its link signed anew: compared by what it opens)
    player.locator("#leagues").get_by_role("link", name="Standings").click()
    player.wait_for_url(re.compile(rf"/p/[^/]+/season/{season_id}$"))
    expect(mine).to_have_count(1)
    mine.get_by_role("link", name="Ann").click()
    expect(player.get_by_role("heading", level=1)).to_have_text("Ann: games of season 1")
    expect(player.get_by_role("link", name="See the replay")).to_be_visible()
    no_horizontal_scroll(player)
