"""The player's hub (/p/<token>) and their leagues: their season entries with the rounds still to start,
forms to miss a round or undo it, and withdrawing with a confirm step; each refusal shown, nothing changed."""

from __future__ import annotations

import re
from datetime import timedelta

import sqlalchemy as sa

from server.models import EntryStatus, Player, SeasonPlayer, utcnow
from server.services.leagues import seasons
from server.services.leagues.seasons import Applicant, LeagueSpec
from server.services.links import player_token
from tests.conftest import Stack
from tests.support import all_rows, post_form

DAY = timedelta(days=1)


def confirmed_ann(stack: Stack) -> tuple[str, int]:
    """Ann confirmed in season 1 of "Tuesday" (fixed, Mondays 18:00, 3 rounds): her hub path and her entry."""
    return confirmed_ann_in(stack, "ann@example.org", "Tuesday")


def confirmed_ann_in(stack: Stack, email: str, name: str) -> tuple[str, int]:
    """``email`` confirmed in season 1 of a new league ``name``: the hub path and the entry."""
    now = utcnow()
    db = stack.db
    league_id = seasons.create_league(db, LeagueSpec(name=name), now)
    season_id = seasons.create_season(db, league_id, now + DAY, 3, "fixed", {"weekday": 0, "time": "18:00"}, now=now)
    entry = seasons.sign_up(db, season_id, Applicant("Ann", email), now).season_player_id
    with db.session() as session:
        row = session.get(SeasonPlayer, entry)
        assert row is not None
        row.status = EntryStatus.CONFIRMED
        player = session.get(Player, row.player_id)
        assert player is not None
        token = player_token(stack.settings.secret_key, player.id, player.link_generation)
    return f"/p/{token}", entry


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def skips(stack: Stack, entry: int) -> list[int] | None:
    with stack.db.session() as session:
        row = session.get(SeasonPlayer, entry)
        assert row is not None
        return row.skips


def test_the_hub_lists_the_season_and_its_rounds_and_misses_one(stack: Stack) -> None:
    hub, entry = confirmed_ann(stack)
    page = stack.client.get(hub)
    assert page.status_code == 200
    text = text_of(page.get_data(as_text=True))
    assert "Your leagues" in text and "Tuesday, season 1" in text and "you play" in text
    assert "Round 1 starts on" in text and text.count("I will miss this round") == 3
    done = post_form(stack.client, stack.app, f"{hub}/leagues/{entry}/skip", {"round": "2"})
    assert done.status_code == 303 and skips(stack, entry) == [2]
    after = text_of(stack.client.get(done.headers["Location"]).get_data(as_text=True))
    assert "Saved: you will miss that round." in after and "you will miss it" in after
    rows = all_rows(stack.db)
    again = post_form(stack.client, stack.app, f"{hub}/leagues/{entry}/skip", {"round": "2"})
    assert again.status_code == 409 and "already said you will miss round 2" in text_of(again.get_data(as_text=True))
    bad = post_form(stack.client, stack.app, f"{hub}/leagues/{entry}/skip", {"round": "x"})
    assert bad.status_code == 409 and "rounds 1 to 3" in text_of(bad.get_data(as_text=True))
    assert (
        post_form(stack.client, stack.app, f"{hub}/leagues/{entry}/skip", {"round": "2"}, csrf=False).status_code == 400
    )
    assert all_rows(stack.db) == rows
    undo = post_form(stack.client, stack.app, f"{hub}/leagues/{entry}/skip", {"round": "2", "undo": "1"})
    assert undo.status_code == 303 and skips(stack, entry) is None


def test_withdrawing_from_the_hub_asks_first(stack: Stack) -> None:
    hub, entry = confirmed_ann(stack)
    rows = all_rows(stack.db)
    ask = stack.client.get(f"{hub}/leagues/{entry}/withdraw")
    assert ask.status_code == 200 and "Withdraw from this season?" in text_of(ask.get_data(as_text=True))
    assert all_rows(stack.db) == rows  # opening the page changes nothing
    done = post_form(stack.client, stack.app, f"{hub}/leagues/{entry}/withdraw")
    assert done.status_code == 303
    with stack.db.session() as session:
        assert session.execute(sa.select(SeasonPlayer.status)).scalar_one() == EntryStatus.WITHDRAWN
    text = text_of(stack.client.get(done.headers["Location"]).get_data(as_text=True))
    assert "You withdrew from the season." in text and "you withdrew" in text


def test_another_players_entry_is_refused(stack: Stack) -> None:
    hub, entry = confirmed_ann(stack)
    now = utcnow()
    other = seasons.create_league(stack.db, LeagueSpec(name="Friday"), now)
    season_id = seasons.create_season(stack.db, other, now + DAY, 2, "when_over", None, now=now)
    bob = seasons.sign_up(stack.db, season_id, Applicant("Bob", "bob@example.org"), now).season_player_id
    rows = all_rows(stack.db)
    refused = post_form(stack.client, stack.app, f"{hub}/leagues/{bob}/withdraw")
    assert refused.status_code == 409 and "There is no such sign-up" in text_of(refused.get_data(as_text=True))
    assert stack.client.get(f"{hub}/leagues/{bob}/withdraw").status_code == 404
    assert post_form(stack.client, stack.app, f"{hub}/leagues/{bob}/skip", {"round": "1"}).status_code == 409
    assert all_rows(stack.db) == rows and entry != bob


def test_the_people_you_know_are_changed_from_the_hub(stack: Stack) -> None:
    """A confirmed player changes the acquaintances of a season they play from their hub (so a next season's
    players can declare them again); a bad address or another's entry changes nothing."""
    hub, entry = confirmed_ann(stack)
    page = text_of(stack.client.get(hub).get_data(as_text=True))
    assert "People you know" in page
    done = post_form(stack.client, stack.app, f"{hub}/leagues/{entry}/knows", {"knows": "Bob@example.org\ncat@x.org"})
    assert done.status_code == 303
    with stack.db.session() as session:
        assert session.get(SeasonPlayer, entry).knows == ["bob@example.org", "cat@x.org"]  # type: ignore[union-attr]
    after = stack.client.get(done.headers["Location"]).get_data(as_text=True)
    assert (
        "Saved: the people you know in this season." in text_of(after)
        and "bob@example.org\ncat@x.org</textarea>" in after
    )
    other_hub, _ = confirmed_ann_in(stack, "dan@example.org", "Friday")
    rows = all_rows(stack.db)
    bad = post_form(stack.client, stack.app, f"{hub}/leagues/{entry}/knows", {"knows": "not an address"})
    assert bad.status_code == 400 and "is not an e-mail address" in text_of(bad.get_data(as_text=True))
    foreign = post_form(stack.client, stack.app, f"{other_hub}/leagues/{entry}/knows", {"knows": ""})
    assert foreign.status_code == 404  # not Dan's entry
    assert all_rows(stack.db) == rows
    cleared = post_form(stack.client, stack.app, f"{hub}/leagues/{entry}/knows", {"knows": ""})
    assert cleared.status_code == 303
    with stack.db.session() as session:
        assert session.get(SeasonPlayer, entry).knows is None  # type: ignore[union-attr]
