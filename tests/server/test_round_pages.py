"""The league organiser's pages (server/web/league_organiser.py): the league with its seasons' counts, a season's
players and rounds, planning a round, its tables previewed, a swap (refused for declared acquaintances), the Start
button asked first; a started round's games; the leagues listed on the server organiser's index; a revoked
organiser link and a form without its CSRF token refused with nothing changed."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import sqlalchemy as sa
from werkzeug.test import TestResponse

from server.models import EntryStatus, Game, LeagueRound, utcnow
from server.services.leagues import seasons
from server.web.logs import cut_tokens
from tests.conftest import Stack
from tests.server.test_rounds import enter, make_league, set_entry, tables_of
from tests.support import all_rows, log_in_as_organiser, post_form


def page_text(response: TestResponse) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.get_data(as_text=True)))


def league_with_season(stack: Stack) -> tuple[int, int, str]:
    league_id = make_league(stack.db, name="Tuesday Night")
    season = seasons.create_season(
        stack.db, league_id, utcnow() + timedelta(days=1), 3, "when_over", None, now=utcnow()
    )
    token = seasons.league_link(stack.db, stack.settings.secret_key, league_id, "organiser")
    return league_id, season, token


def test_the_league_organiser_plans_previews_swaps_and_starts_a_round(stack: Stack) -> None:
    _, season, token = league_with_season(stack)
    ids = enter(stack.db, season, 8)
    enter(stack.db, season, 1, EntryStatus.PENDING, start=8)
    set_entry(stack.db, ids[0], knows=["p1@example.org"])
    page = stack.client.get(f"/lo/{token}")
    assert page.status_code == 200 and "Tuesday Night" in page_text(page)
    assert "8 confirmed, 1 pending" in page_text(page)
    page = stack.client.get(f"/lo/{token}/season/{season}")
    assert page.status_code == 200 and "P0" in page_text(page) and "waiting for confirmation" in page_text(page)
    planned = post_form(stack.client, stack.app, f"/lo/{token}/season/{season}/plan")
    assert planned.status_code == 303
    round_id = int(planned.headers["Location"].rsplit("/", 1)[1])
    page = stack.client.get(f"/lo/{token}/round/{round_id}")
    text = page_text(page)
    assert page.status_code == 200 and "Table 2" in text and "Europe/Rome" in text and "hours a day" in text
    tables = tables_of(stack.db, round_id)
    mate = next(p for p in next(t for t in tables if ids[1] in t) if p != ids[1])
    before = all_rows(stack.db)
    refused = post_form(
        stack.client, stack.app, f"/lo/{token}/round/{round_id}/swap", {"first": ids[0], "second": mate}
    )
    assert refused.status_code == 409 and "declared they know" in page_text(refused)
    assert all_rows(stack.db) == before
    a, b = tables[0][-1], tables[1][-1]
    swapped = post_form(stack.client, stack.app, f"/lo/{token}/round/{round_id}/swap", {"first": a, "second": b})
    assert swapped.status_code == 303 and tables_of(stack.db, round_id) != tables
    asked = post_form(stack.client, stack.app, f"/lo/{token}/round/{round_id}/start")
    assert asked.status_code == 200 and "This cannot be undone" in page_text(asked)
    assert all_rows(stack.db)["games"] == []
    started = post_form(stack.client, stack.app, f"/lo/{token}/round/{round_id}/start", {"confirm": "1"})
    assert started.status_code == 303
    page = stack.client.get(f"/lo/{token}/round/{round_id}")
    with stack.db.session() as session:
        games = session.execute(sa.select(Game).order_by(Game.id)).scalars().all()
        assert [g.round_id for g in games] == [round_id, round_id]
        assert session.get(LeagueRound, round_id).status == "started"  # type: ignore[union-attr]
    html = page.get_data(as_text=True)
    assert f"Table 1 · game {games[0].id}" in html and f"Table 2 · game {games[1].id}" in html
    assert len(re.findall(r'href="/o/link/[^"]+"', html)) == 2
    game_page = stack.client.get(re.findall(r'href="(/o/link/[^"]+)"', html)[0], follow_redirects=True)
    assert game_page.status_code == 200
    again = post_form(stack.client, stack.app, f"/lo/{token}/round/{round_id}/start", {"confirm": "1"})
    assert again.status_code == 409 and "already started" in page_text(again)


@pytest.mark.parametrize("lang", ["en", "it", "pl"])
def test_the_pages_speak_the_readers_language(embedded: Stack, lang: str) -> None:
    _, season, token = league_with_season(embedded)
    enter(embedded.db, season, 4)
    page = embedded.client.get(f"/lo/{token}/season/{season}", headers={"Accept-Language": lang})
    text = page_text(page)
    words = {"en": "Plan the next round", "it": "Pianifica il prossimo turno", "pl": "Zaplanuj następną rundę"}
    assert words[lang] in text


def test_a_revoked_link_a_missing_csrf_token_and_another_leagues_season_are_refused(stack: Stack) -> None:
    league_id, season, token = league_with_season(stack)
    _, other_season, _ = league_with_season(stack)
    enter(stack.db, season, 4)
    assert stack.client.get(f"/lo/{token}/season/{other_season}").status_code == 404
    before = all_rows(stack.db)
    assert post_form(stack.client, stack.app, f"/lo/{token}/season/{other_season}/plan").status_code == 404
    no_csrf = post_form(stack.client, stack.app, f"/lo/{token}/season/{season}/plan", csrf=False)
    assert no_csrf.status_code == 400
    assert all_rows(stack.db) == before
    seasons.revoke(stack.db, league_id, "organiser")
    assert stack.client.get(f"/lo/{token}").status_code == 403
    before = all_rows(stack.db)
    assert post_form(stack.client, stack.app, f"/lo/{token}/season/{season}/plan").status_code == 403
    assert all_rows(stack.db) == before
    assert stack.client.get("/lo/forged-token").status_code == 403


def test_the_server_organiser_sees_every_league(stack: Stack) -> None:
    league_with_season(stack)
    log_in_as_organiser(stack.client)
    page = stack.client.get("/o/")
    assert page.status_code == 200 and "Tuesday Night" in page_text(page)
    # the league's organiser link (signed with the time it was made: compared by where it leads, not its bytes)
    (link,) = re.findall(r'href="(/lo/[^"/]+)"', page.get_data(True))
    league = stack.client.get(link)
    assert league.status_code == 200 and "Tuesday Night" in page_text(league)


def test_the_league_organiser_link_is_cut_from_logged_paths(embedded: Stack) -> None:
    _, _, token = league_with_season(embedded)
    assert cut_tokens(f"GET /lo/{token}/round/3 HTTP/1.1") == f"GET /lo/{token[:4]}…/round/3 HTTP/1.1"
