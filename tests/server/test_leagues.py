"""Leagues and seasons (server/services/leagues/seasons.py): creating them with every field checked, sign-ups
from the invitation link confirmed by a mailed signed link, withdrawals, and the league's revocable links. Every refusal
changes nothing."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from server.db import Database
from server.models import (
    EntryStatus,
    League,
    LeagueRound,
    MailKind,
    Player,
    RoundStatus,
    Season,
    SeasonPlayer,
    SeasonStatus,
)
from server.services.leagues import schedule, seasons
from server.services.leagues.seasons import Applicant, LeagueError, LeagueSpec
from server.services.links import LinkError, confirm_token
from server.services.play import games
from tests.conftest import Stack
from tests.server.test_api_cli import cli_env, run
from tests.support import T0, all_rows, compose, mail_settings, rows_of_kind, text_of

DAY = timedelta(days=1)
ANN = Applicant("Ann", "Ann@Example.org", "it", "Europe/Rome", "23:00", "07:00")


def league(db: Database, **fields: Any) -> int:
    return seasons.create_league(db, LeagueSpec(**{"name": "Tuesday", **fields}), now=T0)


def season(db: Database, league_id: int, closes: timedelta = 7 * DAY, **fields: Any) -> int:
    values: dict[str, Any] = {"rounds": 3, "schedule": "fixed", "rule": {"weekday": 0, "time": "18:00"}, **fields}
    return seasons.create_season(
        db, league_id, T0 + closes, values["rounds"], values["schedule"], values["rule"], now=T0
    )


def entry_of(db: Database, entry_id: int) -> SeasonPlayer:
    with db.session() as session:
        entry = session.get(SeasonPlayer, entry_id)
        assert entry is not None
        session.expunge(entry)
        return entry


def confirm_links(stack: Stack) -> list[str]:
    """The confirmation link of each league_confirm mail still to compose, in order."""
    links = []
    for row in rows_of_kind(stack.db, MailKind.LEAGUE_CONFIRM):
        message = compose(stack.db, row.id, mail_settings(stack.settings), now=T0)
        if message is not None:  # (a confirmed entry's mail is not sent any more)
            links += re.findall(r"http://deadmail\.test/l/confirm/(\S+)", text_of(message))
    return links


def refused(db: Database, call: Any, message: str) -> None:
    """``call()`` is refused with ``message`` in its English text, and no row of any table changed."""
    before = all_rows(db)
    with pytest.raises((LeagueError, LinkError), match=message):
        call()
    assert all_rows(db) == before


# --- leagues and seasons ----------------------------------------------------------------------------------------------


def test_a_league_and_its_seasons_are_stored_as_given(stack: Stack) -> None:
    league_id = league(
        stack.db, language="pl", timezone="Europe/Warsaw", table_size=4, preset="week", scoring="wins",
        tie_breaks=["head_to_head", "wins"], forfeit="zero", standings_public=True,
    )  # fmt: skip
    first = season(stack.db, league_id)
    second = season(stack.db, league_id, schedule="when_over", rule=None, rounds=52)
    with stack.db.session() as session:
        seasons = session.execute(sa.select(Season).order_by(Season.id)).scalars().all()
        assert [(s.id, s.number, s.status) for s in seasons] == [(first, 1, "signup"), (second, 2, "signup")]
        assert seasons[0].schedule_rule == {"weekday": 0, "time": "18:00"} and seasons[1].schedule_rule is None
        assert seasons[0].signup_closes == T0 + 7 * DAY
        stored = session.execute(sa.select(League)).scalar_one()
        assert (stored.name, stored.language, stored.timezone, stored.table_size) == (
            "Tuesday",
            "pl",
            "Europe/Warsaw",
            4,
        )
        assert (stored.scoring, stored.forfeit, stored.preset) == ("wins", "zero", "week")
        assert stored.tie_breaks == ["head_to_head", "wins"] and stored.standings_public
        assert stored.options["turn_order"] == "batched"  # the engine's full options, defaults filled in
        assert (stored.invite_generation, stored.organiser_generation, stored.public_generation) == (1, 1, 1)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": "  "}, "Give the league a name"),
        ({"name": "x" * 81}, "at most 80 characters"),
        ({"name": "Tues\nday"}, "a name is one line"),
        ({"table_size": 2}, "A table seats 3 to 6 players, not 2"),
        ({"table_size": 7}, "A table seats 3 to 6 players, not 7"),
        ({"language": "de"}, "not a language deadmail speaks"),
        ({"timezone": "Mars/Olympus"}, "not an IANA time zone"),
        ({"preset": "lightning"}, "not a tempo preset"),
        ({"scoring": "elo"}, "not a scoring system"),
        ({"tie_breaks": ["wins", "wins"]}, "each at most once"),
        ({"tie_breaks": ["coin"]}, "each at most once"),
        ({"forfeit": "forgive"}, "not a forfeit rule"),
        ({"options": {"turn_order": "sideways"}}, "The game options are not valid"),
    ],
)
def test_a_league_refused_changes_nothing(embedded: Stack, fields: dict[str, Any], message: str) -> None:
    refused(embedded.db, lambda: league(embedded.db, **fields), message)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"closes": timedelta(0)}, "must close in the future"),
        ({"rounds": 0}, "1 to 52 rounds"),
        ({"rounds": 53}, "1 to 52 rounds"),
        ({"schedule": "monthly"}, "The schedule is"),
        ({"schedule": "when_over"}, "The schedule is"),  # a rule with "when over"
        ({"rule": {"weekday": 7, "time": "18:00"}}, "A fixed schedule needs"),
        ({"rule": {"weekday": 0, "time": "25:00"}}, "A fixed schedule needs"),
        ({"rule": None}, "A fixed schedule needs"),
    ],
)
def test_a_season_refused_changes_nothing(embedded: Stack, fields: dict[str, Any], message: str) -> None:
    league_id = league(embedded.db)
    refused(embedded.db, lambda: season(embedded.db, league_id, **fields), message)
    refused(embedded.db, lambda: season(embedded.db, league_id + 1), "There is no league")


# --- sign-ups ---------------------------------------------------------------------------------------------------------


def test_sign_up_is_pending_until_the_mailed_link_confirms_it(stack: Stack) -> None:
    season_id = season(stack.db, league(stack.db))
    signed = seasons.sign_up(stack.db, season_id, ANN, now=T0)
    assert not signed.resent
    entry = entry_of(stack.db, signed.season_player_id)
    assert (entry.status, entry.confirmed_at) == (EntryStatus.PENDING, None)
    assert entry.applicant is not None and entry.applicant["name"] == "Ann"
    with stack.db.session() as session:  # nothing of the player before the address confirms: a bare row
        ann = session.execute(sa.select(Player)).scalar_one()
        assert (ann.email, ann.display_name, ann.language, ann.timezone) == ("ann@example.org", "", "en", "UTC")
    (row,) = rows_of_kind(stack.db, MailKind.LEAGUE_CONFIRM)
    assert row.player_id == entry.player_id
    message = compose(stack.db, row.id, mail_settings(stack.settings), now=T0)
    assert message is not None and "ann@example.org" in message["To"]
    assert message["Subject"] == "Tuesday: conferma la tua iscrizione alla stagione 1"
    (token,) = confirm_links(stack)
    assert token == confirm_token(stack.settings.secret_key, entry.id, entry.confirm_generation)
    shown = seasons.confirmation(stack.db, stack.settings.secret_key, token, stack.settings.link_max_age)
    assert shown == seasons.Confirmation(
        league="Tuesday", season=1, name="Ann", email="ann@example.org", status="pending", knows=[]
    )

    done = seasons.confirm(stack.db, stack.settings.secret_key, token, stack.settings.link_max_age, now=T0 + DAY)
    assert not done.already
    entry = entry_of(stack.db, entry.id)
    assert (entry.status, entry.confirmed_at, entry.applicant) == (EntryStatus.CONFIRMED, T0 + DAY, None)
    with stack.db.session() as session:  # a new address takes what was given, once confirmed
        ann = session.execute(sa.select(Player)).scalar_one()
        assert (ann.display_name, ann.language, ann.timezone) == ("Ann", "it", "Europe/Rome")
        assert (ann.quiet_start, ann.quiet_end) == ("23:00", "07:00")
    before = all_rows(stack.db)
    again = seasons.confirm(stack.db, stack.settings.secret_key, token, stack.settings.link_max_age, now=T0 + DAY)
    assert again.already and all_rows(stack.db) == before
    # a confirmed entry's mail is not sent any more
    assert compose(stack.db, row.id, mail_settings(stack.settings), now=T0 + DAY) is None
    # signing up a confirmed address again: no second entry, no mail, nothing changed (and no telling error)
    again_signed = seasons.sign_up(stack.db, season_id, ANN, now=T0 + 2 * DAY)
    assert (again_signed.season_player_id, again_signed.mailed) == (entry.id, False)
    assert all_rows(stack.db) == before


def confirm_last(stack: Stack, now: Any = T0) -> int:
    """Follow the link of the last confirmation mail; the entry's id."""
    row = rows_of_kind(stack.db, MailKind.LEAGUE_CONFIRM)[-1]
    message = compose(stack.db, row.id, mail_settings(stack.settings), now=T0)
    assert message is not None
    (token,) = re.findall(r"http://deadmail\.test/l/confirm/(\S+)", text_of(message))
    key, age = stack.settings.secret_key, stack.settings.link_max_age
    return seasons.confirm(stack.db, key, token, age, now=now).season_player_id


def player_row(db: Database, email: str) -> Player:
    with db.session() as session:
        player = session.execute(sa.select(Player).where(Player.email == email)).scalar_one()
        session.expunge(player)
        return player


def test_a_known_address_keeps_its_name_and_gets_the_zone_typed_once_it_confirms(embedded: Stack) -> None:
    """Nothing of a known player changes before the address confirms; once it does, the zone typed is taken (it was
    dropped: a player stayed UTC), empty quiet hours keep theirs, and the name and language stay theirs."""
    db = embedded.db
    seasons.sign_up(db, season(db, league(db)), ANN, now=T0)
    confirm_last(embedded)
    other = season(db, league(db, name="Friday"))
    mallory = Applicant("Mallory", "ann@example.org", "pl", "Asia/Tokyo", knows="bob@example.org")
    seasons.sign_up(db, other, mallory, now=T0)
    ann = player_row(db, "ann@example.org")
    assert (ann.display_name, ann.language, ann.timezone) == ("Ann", "it", "Europe/Rome")
    # the mail is in the form's language and greets the name typed
    row = rows_of_kind(db, MailKind.LEAGUE_CONFIRM)[-1]
    message = compose(db, row.id, mail_settings(embedded.settings), now=T0)
    assert message is not None and message["Subject"] == "Friday: potwierdź swój zapis na sezon 1"
    assert text_of(message).startswith("Cześć, Mallory!")
    entry_id = confirm_last(embedded)
    ann = player_row(db, "ann@example.org")
    assert (ann.display_name, ann.language, ann.timezone) == ("Ann", "it", "Asia/Tokyo")
    assert (ann.quiet_start, ann.quiet_end) == ("23:00", "07:00")
    assert entry_of(db, entry_id).knows == ["bob@example.org"]


def test_a_player_known_from_a_game_keeps_the_zone_quiet_hours_and_name_typed(stack: Stack) -> None:
    """A player known from an organiser's game (UTC, no quiet hours) signs up with their zone and quiet hours: the
    confirmation greets the name typed, and confirming applies the zone and quiet hours."""
    db = stack.db
    players = [games.parse_player(p) for p in ("Ann <ann@example.org>", "Bob <bob@example.org>", "Cid <c@x.org>")]
    games.create_game(db, games.GameSpec(players=players, seed=1), now=T0)
    seasons.sign_up(
        db, season(db, league(db)), Applicant("Annie", "ann@example.org", "en", "Europe/Rome", "22:30", "07:00"), now=T0
    )
    before = player_row(db, "ann@example.org")
    row = rows_of_kind(db, MailKind.LEAGUE_CONFIRM)[-1]
    message = compose(db, row.id, mail_settings(stack.settings), now=T0)
    assert message is not None and text_of(message).startswith("Hello Annie,")
    confirm_last(stack)
    ann = player_row(db, "ann@example.org")
    assert (ann.timezone, ann.quiet_start, ann.quiet_end) == ("Europe/Rome", "22:30", "07:00")
    assert ann.display_name == before.display_name == "Ann"  # (seen by name in the games they play)


def test_an_invited_address_gets_the_leagues_zone_and_its_confirmation_greets_the_name_typed(stack: Stack) -> None:
    """An address the server does not know yet is made with the league's zone (what it is shown before it confirms
    is in the league's time, not UTC), and the sign-up's mail greets the name typed, not "Hello,"."""
    db = stack.db
    league_id = league(db, timezone="Europe/Warsaw")
    seasons.invite(db, league_id, ["cat@example.org"], T0)
    assert player_row(db, "cat@example.org").timezone == "Europe/Warsaw"
    seasons.sign_up(db, season(db, league_id), Applicant("Cat", "cat@example.org", "en", "America/New_York"), now=T0)
    row = rows_of_kind(db, MailKind.LEAGUE_CONFIRM)[-1]
    message = compose(db, row.id, mail_settings(stack.settings), now=T0)
    assert message is not None and text_of(message).startswith("Hello Cat,")
    assert player_row(db, "cat@example.org").timezone == "Europe/Warsaw"  # nothing changes before it confirms
    confirm_last(stack)
    cat = player_row(db, "cat@example.org")
    assert (cat.display_name, cat.timezone) == ("Cat", "America/New_York")
    seasons.sign_up(db, season(db, league_id), Applicant("Dan", "dan@example.org", "en"), now=T0)
    assert player_row(db, "dan@example.org").timezone == "Europe/Warsaw"


def test_an_unconfirmed_name_is_never_kept(embedded: Stack) -> None:
    """A stranger signs an address up and never confirms: an organiser's game later names the player as it says."""
    db = embedded.db
    seasons.sign_up(db, season(db, league(db)), Applicant("Mallory", "ann@example.org", "pl"), now=T0)
    assert player_row(db, "ann@example.org").display_name == ""
    players = [games.parse_player(p) for p in ("Ann <ann@example.org>", "Bob <bob@example.org>", "Cid <c@x.org>")]
    games.create_game(db, games.GameSpec(players=players, seed=1), now=T0)
    assert player_row(db, "ann@example.org").display_name == "Ann"


def test_signing_up_again_while_pending_mails_the_link_again_not_too_often(stack: Stack) -> None:
    season_id = season(stack.db, league(stack.db))
    first = seasons.sign_up(stack.db, season_id, ANN, now=T0)
    before = all_rows(stack.db)
    soon = seasons.sign_up(stack.db, season_id, ANN, now=T0 + timedelta(minutes=5))
    assert not soon.mailed and all_rows(stack.db) == before  # mailed a moment ago: nothing changes
    again = seasons.sign_up(stack.db, season_id, ANN, now=T0 + timedelta(minutes=11))
    assert again.resent and again.mailed and again.season_player_id == first.season_player_id
    links = confirm_links(stack)
    # the same link (its entry and generation; signed with the second each mail was composed): the first still works
    assert len(links) == 2 and links[0].split(".")[0] == links[1].split(".")[0]
    for link in links:
        assert seasons.confirmation(stack.db, stack.settings.secret_key, link, 3600).status == "pending"
    with stack.db.session() as session:
        assert session.execute(sa.select(sa.func.count()).select_from(SeasonPlayer)).scalar_one() == 1


@pytest.mark.parametrize(
    ("applicant", "message"),
    [
        (Applicant("", "ann@example.org"), "Give your name"),
        (Applicant("Ann\r\nBcc: x", "ann@example.org"), "a name is one line"),
        (Applicant("Ann", "ann"), "is not an e-mail address"),
        (Applicant("Ann", "Ann <ann@example.org>"), "is not an e-mail address"),
        (Applicant("Ann", "ann@example.org", "de"), "not a language"),
        (Applicant("Ann", "ann@example.org", "en", "Mars/Olympus"), "not a time zone"),
        (Applicant("Ann", "ann@example.org", "en", "UTC", "23:00", ""), "both the start and the end"),
        (Applicant("Ann", "ann@example.org", "en", "UTC", "26:00", "07:00"), "not a time of day"),
    ],
)
def test_a_sign_up_with_bad_input_changes_nothing(embedded: Stack, applicant: Applicant, message: str) -> None:
    season_id = season(embedded.db, league(embedded.db))
    refused(embedded.db, lambda: seasons.sign_up(embedded.db, season_id, applicant, now=T0), message)


def test_a_sign_up_after_the_close_or_out_of_the_signup_status_changes_nothing(stack: Stack) -> None:
    db = stack.db
    season_id = season(db, league(db, timezone="Europe/Rome"), closes=DAY)
    # (written in the league's zone, the one its seasons are set in: 12:00 UTC is 13:00 in Rome in March)
    refused(
        db, lambda: seasons.sign_up(db, season_id, ANN, now=T0 + DAY), r"closed on 2031-03-05 13:00 \(Europe/Rome\)"
    )
    with db.session() as session:
        row = session.get(Season, season_id)
        assert row is not None
        row.status = SeasonStatus.RUNNING
    refused(db, lambda: seasons.sign_up(db, season_id, ANN, now=T0), "does not take sign-ups")
    refused(db, lambda: seasons.sign_up(db, season_id + 1, ANN, now=T0), "There is no season")


def test_a_confirmation_after_the_close_is_refused(embedded: Stack) -> None:
    db, key, age = embedded.db, embedded.settings.secret_key, embedded.settings.link_max_age
    season_id = season(db, league(db), closes=DAY)
    seasons.sign_up(db, season_id, ANN, now=T0)
    (token,) = confirm_links(embedded)
    refused(db, lambda: seasons.confirm(db, key, token, age, now=T0 + DAY), "closed on")


def test_a_link_for_another_entry_or_an_old_generation_is_refused(stack: Stack) -> None:
    db, key, age = stack.db, stack.settings.secret_key, stack.settings.link_max_age
    season_id = season(db, league(db))
    ann = seasons.sign_up(db, season_id, ANN, now=T0).season_player_id
    bob = seasons.sign_up(db, season_id, Applicant("Bob", "bob@example.org"), now=T0).season_player_id
    forged = confirm_token("another-secret", bob, 1)
    refused(db, lambda: seasons.confirm(db, key, forged, age, now=T0), "not valid")
    refused(db, lambda: seasons.confirm(db, key, confirm_token(key, bob + 99, 1), age, now=T0), "not valid")
    refused(db, lambda: seasons.confirm(db, key, confirm_token(key, ann, 2), age, now=T0), "replaced by a newer one")
    assert entry_of(db, bob).status == EntryStatus.PENDING
    # withdrawn and signed up again: the first link is of the old generation
    old = confirm_token(key, ann, 1)
    seasons.withdraw(db, ann, now=T0)
    refused(db, lambda: seasons.confirm(db, key, old, age, now=T0), "You withdrew")
    seasons.sign_up(db, season_id, ANN, now=T0 + DAY)
    refused(db, lambda: seasons.confirm(db, key, old, age, now=T0 + DAY), "replaced by a newer one")
    assert seasons.confirm(db, key, confirm_token(key, ann, 3), age, now=T0 + DAY).season_player_id == ann


def test_withdraw_while_signing_up_or_running_not_after(stack: Stack) -> None:
    db = stack.db
    season_id = season(db, league(db))
    entry_id = seasons.sign_up(db, season_id, ANN, now=T0).season_player_id
    (token,) = confirm_links(stack)
    seasons.confirm(db, stack.settings.secret_key, token, stack.settings.link_max_age, now=T0)
    with db.session() as session:
        row = session.get(Season, season_id)
        assert row is not None
        row.status = SeasonStatus.RUNNING
    seasons.withdraw(db, entry_id, now=T0 + DAY)
    entry = entry_of(db, entry_id)
    assert (entry.status, entry.withdrawn_at, entry.confirm_generation) == ("withdrawn", T0 + DAY, 2)
    refused(db, lambda: seasons.withdraw(db, entry_id, now=T0 + DAY), "already withdrawn")
    refused(db, lambda: seasons.withdraw(db, entry_id + 1, now=T0 + DAY), "no such sign-up")
    bob = seasons.sign_up(db, season(db, league(db)), Applicant("Bob", "bob@example.org"), now=T0).season_player_id
    with db.session() as session:
        for row in session.execute(sa.select(Season)).scalars():
            row.status = SeasonStatus.OVER
    refused(db, lambda: seasons.withdraw(db, bob, now=T0 + DAY), "is over")


# --- league links -----------------------------------------------------------------------------------------------------


def test_a_revoked_league_link_is_refused_and_the_new_one_opens(stack: Stack) -> None:
    db, key = stack.db, stack.settings.secret_key
    league_id = league(db)
    links = {which: seasons.league_link(db, key, league_id, which) for which in seasons.LINKS}
    assert len(set(links.values())) == 3
    for which, token in links.items():
        assert seasons.open_league(db, key, which, token) == league_id
    # a link of one kind does not open another
    refused(db, lambda: seasons.open_league(db, key, "organiser", links["invite"]), "not valid")
    assert seasons.revoke(db, league_id, "invite") == 2
    refused(db, lambda: seasons.open_league(db, key, "invite", links["invite"]), "was revoked")
    assert seasons.open_league(db, key, "organiser", links["organiser"]) == league_id  # the others still work
    fresh = seasons.league_link(db, key, league_id, "invite")
    assert fresh != links["invite"] and seasons.open_league(db, key, "invite", fresh) == league_id
    refused(db, lambda: seasons.revoke(db, league_id, "everything"), "not a league link")
    refused(db, lambda: seasons.revoke(db, league_id + 1, "public"), "There is no league")


def test_the_signup_season_is_the_latest_taking_sign_ups(embedded: Stack) -> None:
    db = embedded.db
    league_id = league(db)
    assert seasons.signup_season(db, league_id) is None
    season(db, league_id)
    second = season(db, league_id)
    assert seasons.signup_season(db, league_id) == second


# --- the command line -------------------------------------------------------------------------------------------------


def test_league_and_season_create_on_the_command_line(stack: Stack) -> None:
    env = cli_env(stack)
    given = ("league", "create", "--name", "Tuesday", "--size", "4", "--tie-break", "wins", "--preset", "week")
    made = run(env, *given, "--email", "Org@example.org", "--json")
    assert made.exit_code == 0, made.output
    created = json.loads(made.output)
    assert set(created["links"]) == {"invite", "organiser", "public"}
    key = stack.settings.secret_key
    assert seasons.open_league(stack.db, key, "invite", created["links"]["invite"]["token"]) == created["id"]
    base = stack.settings.base_url
    for kind, path in (("invite", "/l/"), ("organiser", "/lo/"), ("public", "/ls/")):
        assert created["links"][kind]["url"] == f"{base}{path}{created['links'][kind]['token']}"
    with stack.db.session() as session:
        stored = session.get(League, created["id"])
        assert stored is not None and (stored.table_size, stored.tie_breaks, stored.preset) == (4, ["wins"], "week")
        assert stored.organiser_email == "org@example.org"
    closes = "2999-01-01T18:00+01:00"
    args = ("season", "create", "--league", str(created["id"]), "--signup-closes", closes, "--rounds", "3")
    first = run(env, *args, "--schedule", "fixed", "--weekday", "0", "--time", "18:00")
    assert first.exit_code == 0, first.output
    assert json.loads(first.output) == {"id": json.loads(first.output)["id"], "league": created["id"], "number": 1}
    second = run(env, *args)
    assert second.exit_code == 0 and json.loads(second.output)["number"] == 2
    before = all_rows(stack.db)
    for bad, message in (
        (("league", "create", "--name", "x", "--size", "9"), "A table seats 3 to 6 players, not 9"),
        (("league", "create", "--name", "x", "--email", "x"), "is not an e-mail address"),
        ((*args, "--schedule", "fixed"), "A fixed schedule needs"),
        (("season", "create", "--league", "999", "--signup-closes", closes, "--rounds", "3"), "There is no league 999"),
        (("season", "create", "--league", "1", "--signup-closes", "soon", "--rounds", "3"), "give a time such as"),
    ):
        result = run(env, *bad)
        assert result.exit_code != 0 and message in result.output
    assert all_rows(stack.db) == before


def test_a_fixed_schedule_starts_rounds_weekly_at_the_same_local_time_across_a_clock_change() -> None:
    from datetime import UTC, datetime

    rule = {"weekday": 0, "time": "18:00"}  # Mondays 18:00 in Rome; summer time ends on Sunday 25 October 2026
    starts = schedule.round_starts(rule, "Europe/Rome", datetime(2026, 10, 20, 12, tzinfo=UTC), 3)
    assert starts == [
        datetime(2026, 10, 26, 17, tzinfo=UTC),
        datetime(2026, 11, 2, 17, tzinfo=UTC),
        datetime(2026, 11, 9, 17, tzinfo=UTC),
    ]
    summer = schedule.round_starts(rule, "Europe/Rome", datetime(2026, 10, 12, 12, tzinfo=UTC), 3)  # a Monday
    assert [s.hour for s in summer] == [16, 16, 17] and [s.day for s in summer] == [12, 19, 26]
    # the first start is strictly after the sign-up closes: closing at the very start moves it a week on
    assert schedule.round_starts(rule, "Europe/Rome", datetime(2026, 10, 26, 17, tzinfo=UTC), 1) == [
        datetime(2026, 11, 2, 17, tzinfo=UTC)
    ]


# --- races, limits, acquaintances, absences ---------------------------------------------------------------------------


@pytest.mark.parametrize("stack", ["production"], indirect=True)  # (SQLite takes one writer at a time)
def test_two_sign_ups_of_a_new_address_at_once_make_one_player(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another sign-up makes the player between this one's select and insert: the savepoint's insert fails on the
    unique address and the row is read back (no IntegrityError, no 500)."""
    db = stack.db
    first, second = season(db, league(db)), season(db, league(db, name="Friday"))
    real = sa.orm.Session.execute
    raced: list[bool] = []

    def execute(self: sa.orm.Session, statement: Any, *args: Any, **kwargs: Any) -> Any:
        result = real(self, statement, *args, **kwargs)
        text = str(statement)
        if not raced and text.startswith("SELECT players.") and "players.email" in text.rsplit("WHERE", maxsplit=1)[-1]:
            raced.append(True)  # the other sign-up commits its player now, after this select saw none
            seasons.sign_up(db, second, ANN, now=T0)
            return real(self, sa.select(Player).where(sa.false()))
        return result

    monkeypatch.setattr(sa.orm.Session, "execute", execute)
    signed = seasons.sign_up(db, first, ANN, now=T0)
    monkeypatch.undo()
    assert raced
    with db.session() as session:
        assert session.execute(sa.select(sa.func.count()).select_from(Player)).scalar_one() == 1
        player_ids = set(session.execute(sa.select(SeasonPlayer.player_id)).scalars())
    assert len(player_ids) == 1 and entry_of(db, signed.season_player_id).status == EntryStatus.PENDING


def test_a_full_season_refuses_a_confirmation(stack: Stack) -> None:
    db = stack.db
    league_id = league(db)
    season_id = seasons.create_season(
        db, league_id, T0 + DAY, 3, "when_over", None, now=T0, sizes=seasons.Sizes(max_players=3)
    )
    for name in ("ann", "bob", "cid"):
        seasons.sign_up(db, season_id, Applicant(name, f"{name}@example.org"), now=T0)
        confirm_last(stack)
    page = seasons.signup_page(db, league_id)
    assert page.season is not None and page.season.full
    seasons.sign_up(db, season_id, Applicant("Dan", "dan@example.org"), now=T0)
    token = confirm_links(stack)[-1]
    key, age = stack.settings.secret_key, stack.settings.link_max_age
    refused(db, lambda: seasons.confirm(db, key, token, age, now=T0), "This season is full: .*Nothing was changed")


@pytest.mark.parametrize(
    ("sizes", "message"),
    [
        ({"max_players": 2}, "limit is 3 to 10000 players"),
        ({"max_players": "ten"}, "limit is 3 to 10000 players"),
        ({"divisions": 0}, "1 to 20 divisions"),
        ({"divisions": 21}, "1 to 20 divisions"),
        ({"promote": -1}, "Promotion and relegation"),
        ({"promote": 2}, "only between divisions"),
        ({"promote": 2, "divisions": 1}, "only between divisions"),
    ],
)
def test_a_season_with_bad_sizes_changes_nothing(embedded: Stack, sizes: dict[str, Any], message: str) -> None:
    db = embedded.db
    league_id = league(db)
    create = seasons.create_season
    refused(
        db, lambda: create(db, league_id, T0 + DAY, 3, "when_over", None, now=T0, sizes=seasons.Sizes(**sizes)), message
    )


def test_sizes_are_stored(embedded: Stack) -> None:
    db = embedded.db
    sizes = seasons.Sizes(max_players=24, divisions=2, promote=3)
    season_id = seasons.create_season(db, league(db), T0 + DAY, 3, "when_over", None, now=T0, sizes=sizes)
    with db.session() as session:
        row = session.get(Season, season_id)
        assert row is not None and (row.max_players, row.divisions, row.promote) == (24, 2, 3)


def test_declared_acquaintances_are_checked_and_stored_at_confirm(embedded: Stack) -> None:
    db = embedded.db
    season_id = season(db, league(db))
    knows = "Bob@Example.org, cid@example.org\n\nbob@example.org\nann@example.org"
    entry_id = seasons.sign_up(db, season_id, Applicant("Ann", "ann@example.org", knows=knows), now=T0).season_player_id
    assert entry_of(db, entry_id).knows is None  # nothing until confirmed
    confirm_last(embedded)
    assert entry_of(db, entry_id).knows == ["bob@example.org", "cid@example.org"]  # once each, not one's own
    other = season(db, league(db))
    many = ",".join(f"p{k}@example.org" for k in range(21))
    refused(db, lambda: seasons.sign_up(db, other, Applicant("Ann", "a@x.org", knows=many), now=T0), "at most 20")
    bad = Applicant("Ann", "a@x.org", knows="bob@example.org; cid")
    refused(db, lambda: seasons.sign_up(db, other, bad, now=T0), "is not an e-mail address")


def test_a_confirmed_player_says_they_will_miss_a_round_not_yet_started(stack: Stack) -> None:
    db = stack.db
    season_id = season(db, league(db))
    entry_id = seasons.sign_up(db, season_id, ANN, now=T0).season_player_id
    refused(db, lambda: seasons.skip(db, entry_id, 2, T0), "Only a confirmed player")
    confirm_last(stack)
    assert seasons.skip(db, entry_id, 3, T0) == [3]
    assert seasons.skip(db, entry_id, 2, T0) == [2, 3]
    refused(db, lambda: seasons.skip(db, entry_id, 2, T0), "already said you will miss round 2")
    refused(db, lambda: seasons.skip(db, entry_id, 4, T0), "rounds 1 to 3")
    refused(db, lambda: seasons.skip(db, entry_id, 0, T0), "rounds 1 to 3")
    refused(db, lambda: seasons.unskip(db, entry_id, 1, T0), "did not say you would miss round 1")
    with db.session() as session:
        session.add(LeagueRound(season_id=season_id, number=1, status=RoundStatus.STARTED))
        session.add(LeagueRound(season_id=season_id, number=2, status=RoundStatus.STARTED))
    refused(db, lambda: seasons.skip(db, entry_id, 1, T0), "Round 1 has already started")
    refused(db, lambda: seasons.unskip(db, entry_id, 2, T0), "Round 2 has already started")
    assert seasons.unskip(db, entry_id, 3, T0) == [2]
    refused(db, lambda: seasons.skip(db, entry_id + 99, 3, T0), "no such sign-up")


# --- invitations and links on the command line ----------------------------------------------------------------------


def test_league_invite_link_and_revoke_on_the_command_line(stack: Stack) -> None:
    env, db, key = cli_env(stack), stack.db, stack.settings.secret_key
    league_id = league(db, language="pl")
    before = all_rows(db)
    for bad, message in (
        (("league", "invite", "--league", str(league_id), "ann@example.org", "not an address"), "not an e-mail"),
        (("league", "invite", "--league", "999", "ann@example.org"), "There is no league 999"),
        (("league", "link", "--league", "999", "--kind", "invite"), "There is no league 999"),
        (("league", "revoke", "--league", str(league_id), "--kind", "everything"), "Invalid value for '--kind'"),
    ):
        result = run(env, *bad)
        assert result.exit_code != 0 and message in result.output, result.output
    assert all_rows(db) == before
    invited = run(env, "league", "invite", "--league", str(league_id), "--json", "Ann@Example.org", "bob@example.org")
    assert invited.exit_code == 0, invited.output
    invited_json = {"league": league_id, "invited": ["ann@example.org", "bob@example.org"], "held": True}
    assert json.loads(invited.output) == invited_json  # no season takes sign-ups: they wait for one
    rows = rows_of_kind(db, MailKind.LEAGUE_INVITE)
    assert len(rows) == 2
    message = compose(db, rows[0].id, mail_settings(stack.settings), now=T0)
    assert message is not None and "ann@example.org" in message["To"] and "Tuesday" in message["Subject"]
    assert message["Content-Language"] == "pl"
    (link,) = re.findall(r"http://deadmail\.test/l/(\S+)", text_of(message))
    assert seasons.open_league(db, key, "invite", link) == league_id
    assert player_row(db, "ann@example.org").display_name == ""  # nobody named the invited address

    shown = run(env, "league", "link", "--league", str(league_id), "--kind", "invite", "--json")
    current = json.loads(shown.output)  # (a token is signed with its time: compare what it opens)
    assert shown.exit_code == 0 and seasons.open_league(db, key, "invite", current["token"]) == league_id
    assert current["url"] == f"http://deadmail.test/l/{current['token']}"
    plain = run(env, "league", "link", "--league", str(league_id), "--kind", "public")
    public = plain.output.strip().removeprefix("http://deadmail.test/ls/")
    assert public != plain.output.strip() and seasons.open_league(db, key, "public", public) == league_id
    revoked = run(env, "league", "revoke", "--league", str(league_id), "--kind", "invite", "--json")
    assert revoked.exit_code == 0, revoked.output
    fresh = json.loads(revoked.output)["token"]
    assert fresh != link and seasons.open_league(db, key, "invite", fresh) == league_id
    refused(db, lambda: seasons.open_league(db, key, "invite", link), "was revoked")
    # a mail composed after the revocation carries the new link
    again = compose(db, rows[1].id, mail_settings(stack.settings), now=T0)
    assert again is not None
    (mailed,) = re.findall(r"http://deadmail\.test/l/(\S+)", text_of(again))
    assert seasons.open_league(db, key, "invite", mailed) == league_id  # (not the revoked one: that is refused)
    said = run(env, "league", "revoke", "--league", str(league_id), "--kind", "organiser")
    assert said.exit_code == 0 and "no longer work" in said.output and "/lo/" in said.output


def test_season_create_takes_its_sizes_on_the_command_line(stack: Stack) -> None:
    env = cli_env(stack)
    league_id = league(stack.db)
    args = ("season", "create", "--league", str(league_id), "--signup-closes", "2999-01-01T18:00", "--rounds", "3")
    made = run(env, *args, "--max-players", "12", "--divisions", "2", "--promote", "1")
    assert made.exit_code == 0, made.output
    with stack.db.session() as session:
        row = session.get(Season, json.loads(made.output)["id"])
        assert row is not None and (row.max_players, row.divisions, row.promote) == (12, 2, 1)
    before = all_rows(stack.db)
    bad = run(env, *args, "--max-players", "2")
    assert bad.exit_code != 0 and "limit is 3 to 10000 players" in bad.output
    assert all_rows(stack.db) == before
