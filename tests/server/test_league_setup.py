"""The league organiser's web flow from its start: ``/o/`` links to ``/o/leagues``, which lists every
league and creates one by form; a season created by form (its sign-up's close a day and time in the league's zone);
invitations held while no season takes sign-ups and mailed when one opens (whichever way they were given: page,
command line, API); a season's sign-ups shown with name, status and when confirmed, never an address; the start
address answering a GET with the page that asks; a swap across divisions neither offered nor accepted; every form
POSTed with CSRF, a refusal re-shown with its message (400) and nothing changed, and a redirect after each change so
a reload repeats nothing; ``deadmail league create`` printing the league's addresses."""

from __future__ import annotations

import email
import email.policy
import html
import json
import re
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from celery import Celery
from werkzeug.test import TestResponse

from server.models import League, MailKind, Outbox, Season, SeasonPlayer, utcnow
from server.services.leagues import promotion, seasons
from server.services.leagues.seasons import Applicant, LeagueSpec
from server.services.links import confirm_token
from server.services.mailflow import outbox
from tests.conftest import Stack
from tests.server.test_api_cli import cli_env, run
from tests.server.test_rounds import enter, tables_of
from tests.support import all_rows, log_in_as_organiser, mail_files, post_form, text_of

from ..waiting import wait_for

DAY = timedelta(days=1)
LEAGUE_FORM = {
    "name": "Tuesday Night",
    "organiser_email": "Org@Example.org",
    "language": "it",
    "timezone": "Europe/Warsaw",
    "table_size": "4",
    "preset": "week",
    "scoring": "victory_points",
    "tie_break_1": "wins",
    "tie_break_2": "head_to_head",
    "forfeit": "zero",
    "standings_public": "1",
}


def page_text(response: TestResponse) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))))


def season_form(days: int = 7, **values: str) -> dict[str, str]:
    closes = (utcnow() + days * DAY).astimezone(ZoneInfo("Europe/Warsaw"))
    return {
        "closes_date": f"{closes:%Y-%m-%d}",
        "closes_time": "18:30",
        "rounds": "3",
        "schedule": "when_over",
    } | values


def organiser_token(stack: Stack, league_id: int) -> str:
    return seasons.league_link(stack.db, stack.settings.secret_key, league_id, "organiser")


def new_league(stack: Stack, **fields: Any) -> tuple[int, str]:
    spec = {"name": "Tuesday Night", "timezone": "Europe/Warsaw", "table_size": 3} | fields
    league_id = seasons.create_league(stack.db, LeagueSpec(**spec), utcnow())
    return league_id, organiser_token(stack, league_id)


def test_o_links_to_the_leagues_which_list_every_league_and_create_one(stack: Stack) -> None:
    assert stack.client.get("/o/leagues").status_code == 302  # the login form first
    assert post_form(stack.client, stack.app, "/o/leagues/new", LEAGUE_FORM).status_code == 401
    log_in_as_organiser(stack.client)
    index = stack.client.get("/o/")
    assert 'href="/o/leagues"' in index.get_data(as_text=True)
    listed = stack.client.get("/o/leagues")
    assert listed.status_code == 200 and 'href="/o/leagues/new"' in listed.get_data(as_text=True)
    form = stack.client.get("/o/leagues/new")
    html = form.get_data(as_text=True)
    assert form.status_code == 200 and 'name="csrf_token"' in html and "style=" not in html
    before = all_rows(stack.db)
    for bad, status, said in (
        (LEAGUE_FORM | {"table_size": "9"}, 400, "A table seats 3 to 6 players, not 9"),
        (LEAGUE_FORM | {"name": " "}, 400, "Give the league a name."),
        (LEAGUE_FORM | {"tie_break_2": "wins"}, 400, "The tie-breaks are each at most once"),
        (LEAGUE_FORM | {"timezone": "Mars/Olympus"}, 400, "Mars/Olympus"),
        (LEAGUE_FORM | {"preset": "sometime"}, 400, "is not a tempo preset"),
        (LEAGUE_FORM | {"organiser_email": "org at example"}, 400, "org at example"),
    ):
        refused = post_form(stack.client, stack.app, "/o/leagues/new", bad)
        assert refused.status_code == status and said in page_text(refused), page_text(refused)
        assert 'value="Tuesday Night"' in refused.get_data(as_text=True) or bad["name"] == " "  # the form refilled
    assert post_form(stack.client, stack.app, "/o/leagues/new", LEAGUE_FORM, csrf=False).status_code == 400
    assert all_rows(stack.db) == before
    made = post_form(stack.client, stack.app, "/o/leagues/new", LEAGUE_FORM)
    assert made.status_code == 303 and made.headers["Location"].startswith("/lo/")
    with stack.db.session() as session:
        league = session.execute(sa.select(League)).scalar_one()
        stored = (league.name, league.language, league.timezone, league.table_size, league.preset, league.scoring)
        assert stored == ("Tuesday Night", "it", "Europe/Warsaw", 4, "week", "victory_points")
        assert (league.tie_breaks, league.forfeit, league.standings_public) == (["wins", "head_to_head"], "zero", True)
        assert league.organiser_email == "org@example.org"  # written to when a round cannot be seated
    page = stack.client.get(made.headers["Location"])
    assert page.status_code == 200 and "Create a season" in page_text(page) and "Leagues" in page_text(page)
    assert page.get_data(as_text=True).count("/season/new") >= 1
    listed = stack.client.get("/o/leagues")  # the same pages as the league organiser's link
    assert f'href="/lo/{organiser_token(stack, league.id)}"' in listed.get_data(as_text=True)


def test_a_season_is_created_by_form_closing_in_the_leagues_zone(stack: Stack) -> None:
    league_id, token = new_league(stack)
    empty = stack.client.get(f"/lo/{token}")
    assert f'href="/lo/{token}/season/new"' in empty.get_data(as_text=True)  # "No season yet" leads somewhere
    form = stack.client.get(f"/lo/{token}/season/new")
    assert form.status_code == 200 and "Europe/Warsaw" in page_text(form)
    before = all_rows(stack.db)
    for bad, said in (
        (season_form(closes_date="1st March"), "Give the day and the time the sign-up closes"),
        (season_form(closes_date="2031-02-30"), "Give the day and the time the sign-up closes"),
        (season_form(closes_date="0001-01-01", closes_time="00:30"), "Sign-ups close on is out of range"),
        (season_form(closes_date="9999-12-31", closes_time="23:59"), "Sign-ups close on is out of range"),
        (season_form(closes_date="3000-01-01"), "Sign-ups close on is out of range"),
        (season_form(closes_time="24:00"), "Give the day and the time the sign-up closes"),
        (season_form(days=-2), "The sign-up must close in the future."),
        (season_form(rounds="0"), "A season has 1 to 52 rounds."),
        (season_form(rounds="many"), "A season has 1 to 52 rounds."),
        (season_form(schedule="fixed", weekday="0", time="25:00"), "A fixed schedule needs"),
        (season_form(schedule="fixed", weekday="9", time="18:00"), "A fixed schedule needs"),
        (season_form(max_players="2"), "A season's limit is 3 to 10000 players"),
        (season_form(promote="1"), "Promotion and relegation"),
    ):
        refused = post_form(stack.client, stack.app, f"/lo/{token}/season/new", bad)
        assert refused.status_code == 400 and said in page_text(refused), page_text(refused)
    assert post_form(stack.client, stack.app, f"/lo/{token}/season/new", season_form(), csrf=False).status_code == 400
    assert all_rows(stack.db) == before
    given = season_form(schedule="fixed", weekday="1", time="20:00", max_players="12", divisions="2", promote="1")
    made = post_form(stack.client, stack.app, f"/lo/{token}/season/new", given)
    assert made.status_code == 303 and "/season/" in made.headers["Location"]
    assert stack.client.get(made.headers["Location"]).status_code == 200
    rows = all_rows(stack.db)
    assert stack.client.get(made.headers["Location"]).status_code == 200 and all_rows(stack.db) == rows  # a reload
    with stack.db.session() as session:
        season = session.execute(sa.select(Season)).scalar_one()
        local = datetime.fromisoformat(f"{given['closes_date']}T18:30").replace(tzinfo=ZoneInfo("Europe/Warsaw"))
        assert season.signup_closes == local.astimezone(UTC) and season.league_id == league_id
        assert (season.schedule, season.schedule_rule) == ("fixed", {"weekday": 1, "time": "20:00"})
        assert (season.max_players, season.divisions, season.promote, season.rounds) == (12, 2, 1, 3)


def _invite(stack: Stack, token: str, text: str) -> TestResponse:
    return post_form(stack.client, stack.app, f"/lo/{token}/invite", {"addresses": text})


def _read(path: Path) -> str:
    message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return text_of(message)


def _invitations(stack: Stack) -> list[Path]:
    return [f for f in mail_files(stack.settings.mail_dir) if "/l/" in _read(f)]


def test_invitations_wait_for_a_season_and_are_mailed_when_one_opens(stack: Stack, worker: Celery) -> None:
    league_id, token = new_league(stack)
    before = all_rows(stack.db)
    refused = _invite(stack, token, "ann@example.org, not an address")
    assert refused.status_code == 400 and "not an address" in page_text(refused) and all_rows(stack.db) == before
    held = _invite(stack, token, "Ann@example.org\nbob@example.org, ann@example.org")
    assert held.status_code == 303 and held.headers["Location"].endswith("done=held")
    page = stack.client.get(held.headers["Location"])
    text = page_text(page)
    assert "Waiting for a season" in text and "ann@example.org" in text and "bob@example.org" in text
    assert "No season takes sign-ups now: invitations wait" in text
    seasons.invite(stack.db, league_id, ["cy@example.org"], utcnow())  # the command line's and the API's way
    assert seasons.held_invitations(stack.db, league_id) == ["ann@example.org", "bob@example.org", "cy@example.org"]
    assert outbox.due_rows(stack.db, utcnow() + 365 * DAY) == []  # nothing to send, however late the sweep looks
    assert _invitations(stack) == []
    opened = post_form(stack.client, stack.app, f"/lo/{token}/season/new", season_form())
    assert opened.status_code == 303
    wait_for(lambda: len(_invitations(stack)) == 3, timeout=30, what="the held invitations to be mailed")
    assert seasons.held_invitations(stack.db, league_id) == []
    mailed = _invite(stack, token, "dee@example.org")  # a season takes sign-ups: mailed at once
    assert mailed.headers["Location"].endswith("done=invited")
    wait_for(lambda: len(_invitations(stack)) == 4, timeout=30, what="the invitation to be mailed")
    signup = re.findall(r"https?://[^/\s]+(/l/[^\s\"<]+)", _read(_invitations(stack)[0]))
    assert signup and "Sign-ups close on" in page_text(stack.client.get(signup[0]))  # not "no season is open"


def test_a_held_invitation_goes_when_the_next_season_opens(stack: Stack) -> None:
    league_id, _ = new_league(stack)
    season = seasons.create_season(stack.db, league_id, utcnow() + DAY, 1, "when_over", None, now=utcnow())
    with stack.db.session() as session:
        session.execute(sa.update(Season).where(Season.id == season).values(status="over"))
    seasons.invite(stack.db, league_id, ["ann@example.org"], utcnow())
    assert seasons.held_invitations(stack.db, league_id) == ["ann@example.org"]
    promotion.next_season(stack.db, season, utcnow() + 3 * DAY, utcnow())
    assert seasons.held_invitations(stack.db, league_id) == []
    with stack.db.session() as session:
        row = session.execute(sa.select(Outbox).where(Outbox.kind == MailKind.LEAGUE_INVITE)).scalar_one()
        assert row.next_attempt_at <= utcnow()
    assert outbox.due_rows(stack.db, utcnow()) == [row.id]


def test_the_sign_ups_show_name_status_and_when_confirmed_never_an_address(stack: Stack) -> None:
    league_id, token = new_league(stack)
    season = seasons.create_season(stack.db, league_id, utcnow() + DAY, 3, "when_over", None, now=utcnow())
    for name in ("Ann", "Bob"):
        seasons.sign_up(stack.db, season, Applicant(name, f"{name.lower()}@example.org"), utcnow())
    with stack.db.session() as session:
        entry = session.execute(sa.select(SeasonPlayer).order_by(SeasonPlayer.id)).scalars().first()
        assert entry is not None
        entry_id, generation = entry.id, entry.confirm_generation
    link = confirm_token(stack.settings.secret_key, entry_id, generation)
    seasons.confirm(stack.db, stack.settings.secret_key, link, 3600, utcnow())
    page = stack.client.get(f"/lo/{token}/season/{season}")
    text, html = page_text(page), page.get_data(as_text=True)
    assert page.status_code == 200
    assert re.search(r"Ann confirmed \w+day, ", text) and "Bob waiting for confirmation" in text
    assert "@example.org" not in html and link not in html


def planned_round(stack: Stack, **season: Any) -> tuple[str, int, list[int]]:
    league_id, token = new_league(stack)
    given = {"rounds": 2, "schedule": "when_over", "rule": None} | season
    sizes = seasons.Sizes(divisions=season.pop("divisions", None))
    season_id = seasons.create_season(
        stack.db, league_id, utcnow() + DAY, given["rounds"], given["schedule"], None, now=utcnow(), sizes=sizes
    )
    ids = enter(stack.db, season_id, 6)
    planned = post_form(stack.client, stack.app, f"/lo/{token}/season/{season_id}/plan")
    assert planned.status_code == 303
    return token, int(planned.headers["Location"].rsplit("/", 1)[1]), ids


def test_a_get_of_the_start_address_asks_and_starts_nothing(stack: Stack) -> None:
    token, round_id, _ = planned_round(stack)
    before = all_rows(stack.db)
    asked = stack.client.get(f"/lo/{token}/round/{round_id}/start")
    assert asked.status_code == 200 and "This cannot be undone" in page_text(asked)
    assert 'name="confirm" value="1"' in asked.get_data(as_text=True) and all_rows(stack.db) == before
    started = post_form(stack.client, stack.app, f"/lo/{token}/round/{round_id}/start", {"confirm": "1"})
    assert started.status_code == 303
    games = len(all_rows(stack.db)["games"])
    again = stack.client.get(f"/lo/{token}/round/{round_id}/start")  # started: the round's page, nothing asked
    assert again.status_code == 303 and again.headers["Location"].endswith(f"/round/{round_id}")
    assert len(all_rows(stack.db)["games"]) == games == 2


def test_a_swap_across_divisions_is_not_offered_and_refused(stack: Stack) -> None:
    token, round_id, _ = planned_round(stack, divisions=2)
    tables = tables_of(stack.db, round_id)
    assert len(tables) == 2
    page = stack.client.get(f"/lo/{token}/round/{round_id}")
    text, html = page_text(page), page.get_data(as_text=True)
    assert "division 1" in text and "division 2" in text  # visible before the first game
    assert "/swap" not in html and "No swap to offer" in text
    before = all_rows(stack.db)
    crossed = post_form(
        stack.client, stack.app, f"/lo/{token}/round/{round_id}/swap", {"first": tables[0][0], "second": tables[1][0]}
    )
    assert crossed.status_code == 409 and "different divisions" in page_text(crossed)
    assert all_rows(stack.db) == before


def test_a_swap_within_a_division_is_offered(stack: Stack) -> None:
    token, round_id, _ = planned_round(stack)
    tables = tables_of(stack.db, round_id)
    html = stack.client.get(f"/lo/{token}/round/{round_id}").get_data(as_text=True)
    assert html.count(f'action="/lo/{token}/round/{round_id}/swap"') == 1
    assert all(f'<option value="{pid}">' in html for table in tables for pid in table)
    before = all_rows(stack.db)
    same = {"first": tables[0][0], "second": tables[0][0]}
    alone = post_form(stack.client, stack.app, f"/lo/{token}/round/{round_id}/swap", same)
    assert alone.status_code == 400 and "cannot be swapped with themselves" in page_text(alone)  # as the API says
    assert all_rows(stack.db) == before


def test_league_create_on_the_command_line_prints_the_leagues_addresses(embedded: Stack) -> None:
    env = cli_env(embedded)
    made = run(env, "league", "create", "--name", "Tuesday")
    assert made.exit_code == 0, made.output
    base = embedded.settings.base_url
    for kind, path in (("organiser", "/lo/"), ("invite", "/l/"), ("public", "/ls/")):
        (token,) = re.findall(rf"{re.escape(base + path)}(\S+)", made.output)  # an address, not a bare token
        assert seasons.open_league(embedded.db, embedded.settings.secret_key, kind, token) == 1
    assert "season create --league 1" in made.output
    held = run(env, "league", "invite", "--league", "1", "--json", "ann@example.org")
    assert held.exit_code == 0 and json.loads(held.output)["held"] is True
