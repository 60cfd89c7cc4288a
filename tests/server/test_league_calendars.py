"""League round starts in calendars: a player's feed lists the upcoming round starts of the seasons they
are confirmed in (planned rounds' rows, else a fixed schedule's starts), and a league's own feed at its revocable
public link; parsed back with ``icalendar``; no seat's link in either."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from icalendar import Calendar

from server.models import EntryStatus, LeagueRound, Player, RoundStatus, SeasonPlayer, utcnow
from server.services import calendar
from server.services.leagues import schedule, seasons
from server.services.leagues.seasons import Applicant, LeagueSpec
from tests.conftest import Stack

DAY = timedelta(days=1)


def events(body: bytes) -> dict[str, Any]:
    return {str(event["UID"]): event for event in Calendar.from_ical(body).walk("VEVENT")}


def a_season(stack: Stack) -> tuple[int, int, dict[str, int]]:
    """League "Tuesday" (Rome), season 1 fixed on Mondays 18:00, 3 rounds: Ann confirmed, Bob pending."""
    now = utcnow()
    db = stack.db
    league_id = seasons.create_league(db, LeagueSpec(name="Tuesday", timezone="Europe/Rome", language="it"), now)
    season_id = seasons.create_season(db, league_id, now + DAY, 3, "fixed", {"weekday": 0, "time": "18:00"}, now=now)
    ids = {}
    for name in ("ann", "bob"):
        ids[name] = seasons.sign_up(db, season_id, Applicant(name, f"{name}@example.org"), now).season_player_id
    with db.session() as session:
        session.execute(
            sa.update(SeasonPlayer).where(SeasonPlayer.id == ids["ann"]).values(status=EntryStatus.CONFIRMED)
        )
    return league_id, season_id, ids


def player_feed(stack: Stack, email: str) -> dict[str, Any]:
    with stack.db.session() as session:
        player_id = session.execute(sa.select(Player.id).where(Player.email == email)).scalar_one()
    token = calendar.address(stack.db, stack.settings.secret_key, player_id)
    reply = stack.client.get(f"/calendar/{token}.ics")
    assert reply.status_code == 200
    body = reply.get_data()
    assert b"/s/" not in body  # never a seat's link
    return events(body)


def test_a_confirmed_players_feed_lists_the_round_starts(stack: Stack) -> None:
    league_id, season_id, _ = a_season(stack)
    mine = player_feed(stack, "ann@example.org")
    uids = [f"league-{league_id}-season-1-round-{n}@deadmail.test" for n in (1, 2, 3)]
    assert sorted(mine) == uids
    with stack.db.session() as session:
        season = session.execute(sa.select(seasons.Season)).scalar_one()
        zone, closes, rule = "Europe/Rome", season.signup_closes, season.schedule_rule
    starts = schedule.round_starts(rule, zone, closes, 3)
    assert [mine[uid].decoded("DTSTART") for uid in uids] == starts
    assert "Tuesday" in str(mine[uids[0]]["SUMMARY"])
    assert player_feed(stack, "bob@example.org") == {}  # pending: nothing yet
    # round 1 started, round 2 planned with a start moved a day later: the feed follows
    with stack.db.session() as session:
        session.add(LeagueRound(season_id=season_id, number=1, status=RoundStatus.STARTED, started_at=utcnow()))
        session.add(LeagueRound(season_id=season_id, number=2, status=RoundStatus.PLANNED, starts_at=starts[1] + DAY))
    mine = player_feed(stack, "ann@example.org")
    assert sorted(mine) == uids[1:]
    assert mine[uids[1]].decoded("DTSTART") == starts[1] + DAY


def test_a_league_feed_at_its_public_link_revoked_with_it(stack: Stack) -> None:
    league_id, _, _ = a_season(stack)
    key = stack.settings.secret_key
    token = seasons.league_link(stack.db, key, league_id, "public")
    reply = stack.client.get(f"/calendar/league/{token}.ics")
    assert reply.status_code == 200 and reply.headers["Content-Type"] == "text/calendar; charset=utf-8"
    found = events(reply.get_data())
    assert len(found) == 3 and b"/s/" not in reply.get_data()
    assert str(Calendar.from_ical(reply.get_data())["X-WR-CALNAME"]) == "deadmail: Tuesday"
    assert all(str(event["URL"]).endswith(f"/ls/{token}") for event in found.values())
    invite = seasons.league_link(stack.db, key, league_id, "invite")
    assert stack.client.get(f"/calendar/league/{invite}.ics").status_code == 403  # another kind of link
    seasons.revoke(stack.db, league_id, "public")
    assert stack.client.get(f"/calendar/league/{token}.ics").status_code == 403
    fresh = seasons.league_link(stack.db, key, league_id, "public")
    assert stack.client.get(f"/calendar/league/{fresh}.ics").status_code == 200
