"""Dates, times and durations from outside, far from now: every one goes through ``services.inputs``
(``instant``, ``local_instant``, ``day``, ``in_range``: the years 2000 to 2999) or ``tempo.parse_duration`` (1 second
to 30 days, however many digits), so a value out of range is a clear refusal that changes nothing: 400 on a page and
in the API, a usage error on the command line, an error reply by mail. Never a 500 (Python's calendar ends at the
years 1 and 9999: ``9999-12-31T23:59:59-14:00`` is no instant in UTC, and reading it raised OverflowError)."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from server.mail import replies
from server.mail.send import send_one
from server.mail.transports import FileTransport
from server.services import inputs
from server.services.leagues import promotion, seasons
from server.services.links import mailbox_token, player_token
from server.services.tempo import TempoError, parse_duration
from server.text import away
from tests.conftest import Stack
from tests.server.test_absences import last_reply, reply_setup
from tests.server.test_api_cli import assert_clean_error, cli_env, run
from tests.server.test_api_leagues import SEASON, new_league, open_league, refused
from tests.server.test_mailbox import write_mail
from tests.support import (
    AUTH,
    T0,
    all_rows,
    api_game,
    compose,
    create_tagged,
    csrf_token,
    letter,
    mail_settings,
    outbox_ids,
    player_of,
    post_form,
    rows_of,
    seat_ids,
    text_of,
)

#: instants no calendar holds in UTC or in some zone, and years no one means.
FAR_INSTANTS = [
    "9999-12-31T23:59:59-14:00",
    "0001-01-01T00:00:00+14:00",
    "9999-12-31T23:59:59+00:00",
    "1999-12-31T23:00Z",
]
#: texts that are no instant at all (a year of five digits, a day without a time or zone).
NO_INSTANTS = ["99999-01-01", "9999-12-31", "99999-01-01T00:00:00+00:00"]
HUGE_DURATIONS = ["9" * 400, "999999999999h", "1" + "0" * 20 + "d", "vote=" + "9" * 400]
OUT_OF_RANGE = "is out of range"


# --- the checker -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", FAR_INSTANTS)
def test_an_instant_out_of_range_is_refused_naming_its_field(text: str) -> None:
    with pytest.raises(inputs.InputError, match="signup_closes is out of range") as refused_:
        inputs.instant(text, "signup_closes")
    assert refused_.value.msgid == inputs.OUT_OF_RANGE and text in str(refused_.value)


@pytest.mark.parametrize("text", [*NO_INSTANTS, "", "soon", "2031-03-11T18:00", "x" * 5000])
def test_a_text_that_is_no_instant_with_its_zone_is_refused(text: str) -> None:
    with pytest.raises(inputs.InputError, match="signup_closes must be a date and time with its zone"):
        inputs.instant(text, "signup_closes")


def test_the_first_and_last_instants_taken_are_instants_in_utc_and_in_every_zone() -> None:
    first = inputs.instant("2000-01-01T00:00:00+14:00", "at")
    last = inputs.instant("2999-12-31T23:59:59-14:00", "at")
    assert (first, last) == (datetime(1999, 12, 31, 10, tzinfo=UTC), datetime(3000, 1, 1, 13, 59, 59, tzinfo=UTC))
    for zone in ("Pacific/Kiritimati", "Etc/GMT+12", "America/St_Johns"):
        assert first.astimezone(ZoneInfo(zone)) == first and last.astimezone(ZoneInfo(zone)) == last
    assert inputs.instant("2031-03-01T18:00", "at", naive=UTC) == datetime(2031, 3, 1, 18, tzinfo=UTC)
    with pytest.raises(inputs.InputError, match="at is out of range"):
        inputs.instant("9999-12-31T23:59:59", "at", naive=timezone(timedelta(hours=-14)))


def test_a_form_time_and_a_day_out_of_range_are_refused() -> None:
    kiritimati = ZoneInfo("Pacific/Kiritimati")
    assert inputs.local_instant("2999-12-31T23:59", "until", kiritimati) == datetime(2999, 12, 31, 9, 59, tzinfo=UTC)
    assert inputs.local_instant("2031-03-11T18:00:30", "until", ZoneInfo("UTC")) == datetime(
        2031, 3, 11, 18, 0, 30, tzinfo=UTC
    )
    for text in ("tomorrow", "２０３１-01-01T00:00", "2031-01-01T00:00+99:00", "2031-01-01T24:00", "2031-02-30T10:00"):
        assert inputs.local_instant(text, "until", kiritimati) is None
    for text in ("0001-01-01T00:00", "9999-12-31T23:59"):
        with pytest.raises(inputs.InputError, match="until is out of range"):
            inputs.local_instant(text, "until", ZoneInfo("Pacific/Honolulu"))
    assert inputs.day("2999-12-31", "to") == date(2999, 12, 31)
    for text in ("9999-12-31", "0001-01-01", "1999-12-31"):
        with pytest.raises(inputs.InputError, match="to is out of range"):
            inputs.day(text, "to")
    for text in ("99999-01-01", "2031-02-30", "٢٠٣١-01-01", None):
        with pytest.raises(inputs.InputError, match="to must be a date such as"):
            inputs.day(text, "to")


@pytest.mark.parametrize("text", HUGE_DURATIONS[:3])
def test_a_huge_duration_is_refused(text: str) -> None:
    with pytest.raises(TempoError, match="a deadline must be between 1 second and 30 days"):
        parse_duration(text)


# --- the JSON API ----------------------------------------------------------------------------------------------------


def test_a_season_with_a_sign_up_close_out_of_range_is_refused_by_both_calls(stack: Stack) -> None:
    """The defect: ``POST /api/leagues/<id>/seasons`` and ``POST /api/seasons/<id>/next`` answered 500."""
    league_id, _token = open_league(stack)
    season_id = stack.client.get(f"/api/leagues/{league_id}", headers=AUTH).json["seasons"][0]["id"]
    before = all_rows(stack.db)
    for text in FAR_INSTANTS:
        body = SEASON | {"signup_closes": text}
        reply = stack.client.post(f"/api/leagues/{league_id}/seasons", json=body, headers=AUTH)
        refused(stack, reply, 400, f"signup_closes is out of range: '{text}'", before)
        reply = stack.client.post(f"/api/seasons/{season_id}/next", json={"signup_closes": text}, headers=AUTH)
        refused(stack, reply, 400, f"signup_closes is out of range: '{text}'", before)
    for text in NO_INSTANTS:
        reply = stack.client.post(
            f"/api/leagues/{league_id}/seasons", json=SEASON | {"signup_closes": text}, headers=AUTH
        )
        refused(stack, reply, 400, "signup_closes must be a date and time with its zone", before)
        reply = stack.client.post(f"/api/seasons/{season_id}/next", json={"signup_closes": text}, headers=AUTH)
        refused(stack, reply, 400, "signup_closes must be a date and time with its zone", before)


def test_games_and_estimates_with_huge_durations_are_refused(embedded: Stack) -> None:
    players = ["Ann <ann@x.example>", "Bob <bob@x.example>", "bot"]
    before = all_rows(embedded.db)
    bodies = [{"deadlines": [text]} for text in HUGE_DURATIONS]
    bodies += [{"last_call": "9" * 400}, {"absence": "extend", "absence_budget": "9" * 400}]
    bodies += [{"play_hours": "Mon-Sun 20:30-22:00 Europe/Rome", "play_deadline": "9" * 400}]
    for body in bodies:
        for path in ("/api/games", "/api/games/estimate"):
            reply = embedded.client.post(path, json={"players": players, **body}, headers=AUTH)
            assert reply.status_code == 400, (path, body, reply.get_data(as_text=True))
            assert "a deadline must be between 1 second and 30 days" in reply.json["error"], reply.json
    assert all_rows(embedded.db) == before


def test_an_absence_out_of_range_by_the_api_is_refused(stack: Stack) -> None:
    game = api_game(stack.client, ["Ann <ann@example.org>", "Bob <bob@example.org>", "bot"])
    token = next(iter(game.tokens.values()))
    before = all_rows(stack.db)
    for body, message in (
        ({"from": "9999-12-30", "to": "9999-12-31"}, "from is out of range: '9999-12-30'"),
        ({"from": "2031-12-30", "to": "9999-12-31"}, "to is out of range: '9999-12-31'"),
        ({"from": "0001-01-01", "to": "2031-01-01"}, "from is out of range"),
        ({"from": "99999-01-01", "to": "99999-01-02"}, "is not a date such as"),
        ({"text": "AWAY 31 DEC 9999"}, "AWAY is out of range"),
        ({"text": "0001-01-01 - 0001-01-02"}, "AWAY is out of range"),
    ):
        reply = stack.client.post(f"/api/seat/{token}/absences", json=body)
        assert reply.status_code == 400 and message in reply.json["error"], (body, reply.json)
    assert all_rows(stack.db) == before


# --- pages -----------------------------------------------------------------------------------------------------------


def test_the_absences_form_refuses_days_out_of_range_and_shows_itself_again(stack: Stack) -> None:
    game = api_game(stack.client, ["Ann <ann@example.org>", "Bob <bob@example.org>", "bot"])
    player = player_of(stack.web_db, seat_ids(stack.web_db, game.id)[next(iter(game.tokens))])
    token = player_token(stack.settings.secret_key, player.id, 1)
    before = all_rows(stack.db)
    for values, message in (
        ({"from": "9999-12-30", "to": "9999-12-31"}, "First day away is out of range: &#39;9999-12-30&#39;"),
        ({"from": "2031-12-30", "to": "9999-12-31"}, "Last day away is out of range: &#39;9999-12-31&#39;"),
        ({"from": "0001-01-01", "to": "0001-01-02"}, "First day away is out of range"),
    ):
        reply = post_form(stack.client, stack.app, f"/p/{token}/absences", values)
        page = reply.get_data(as_text=True)
        assert reply.status_code == 400 and message in page, page
        assert f'value="{values["to"]}"' in page  # the form again, with what was given
    assert all_rows(stack.db) == before


def test_the_organisers_extend_and_pause_refuse_times_out_of_range(organiser: Stack) -> None:
    created = create_tagged(organiser.db, 3, seed=7)
    base = f"/o/games/{created.game_id}"
    before = all_rows(organiser.db)
    for path, named in ((f"{base}/extend", "The new deadline"), (f"{base}/pause", "The end of the pause")):
        for text in ("0001-01-01T00:00", "9999-12-31T23:59", "1999-12-31T23:59"):
            reply = post_form(organiser.client, organiser.app, path, {"until": text})
            page = reply.get_data(as_text=True)
            assert reply.status_code == 400 and f"{named} is out of range: &#39;{text}&#39;" in page, page
    assert all_rows(organiser.db) == before


# --- the command line ------------------------------------------------------------------------------------------------


def test_the_command_line_refuses_sign_up_closes_out_of_range_as_a_usage_error(stack: Stack) -> None:
    env = cli_env(stack)
    league_id = new_league(stack)["id"]
    made = run(
        env, "season", "create", "--league", str(league_id), "--signup-closes", "2999-01-01T18:00", "--rounds", "3"
    )
    assert made.exit_code == 0, made.output
    season_id = str(json.loads(made.stdout)["id"])
    before = all_rows(stack.db)
    for text in [*FAR_INSTANTS, "9999-12-31T23:59:59"]:
        created = run(env, "season", "create", "--league", str(league_id), "--signup-closes", text, "--rounds", "3")
        assert_clean_error(created, 2, f"Invalid value for '--signup-closes': the time is out of range: '{text}'")
        following = run(env, "season", "next", "--season", season_id, "--signup-closes", text)
        assert_clean_error(following, 2, f"Invalid value for '--signup-closes': the time is out of range: '{text}'")
    for text in NO_INSTANTS[:1]:
        created = run(env, "season", "create", "--league", str(league_id), "--signup-closes", text, "--rounds", "3")
        assert_clean_error(created, 2, f"'{text}': give a time such as 2031-03-01T18:00")
    assert all_rows(stack.db) == before


def test_the_command_line_refuses_huge_durations(embedded: Stack) -> None:
    env = cli_env(embedded)
    before = all_rows(embedded.db)
    create = ["game", "create", "--player", "Ann <ann@example.org>", "--player", "bot", "--player", "bot"]
    for extra in (
        ["--deadline", "9" * 400],
        ["--deadline", "vote=999999999999h"],
        ["--last-call", "9" * 400],
        ["--absence", "extend", "--absence-budget", "9" * 400],
        ["--play-hours", "Mon-Sun 20:30-22:00 Europe/Rome", "--play-deadline", "9" * 400],
    ):
        assert_clean_error(run(env, *create, *extra), 1, "a deadline must be between 1 second and 30 days")
        assert_clean_error(run(env, *create, *extra, "--estimate"), 1, "a deadline must be between")
    demo = run(env, "demo", "--auto", "--deadline", "9" * 400)  # refused before any server starts
    assert_clean_error(demo, 2, "Invalid value for --deadline: '9999")
    assert all_rows(embedded.db) == before


# --- replies by mail -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "line", "said"),
    [
        ("en", "AWAY 9999-12-30 - 9999-12-31", "AWAY is out of range: '9999-12-30'"),
        ("en", "AWAY 1 JAN 0001", "AWAY is out of range: '0001-01-01'"),
        ("it", "ASSENTE 30 DIC 9999 - 31 DIC 9999", "ASSENTE"),
        ("pl", "NIEOBECNY 2999-12-31 - 9999-12-31", "NIEOBECNY"),
    ],
)
def test_away_by_reply_out_of_range_is_refused_and_told(stack: Stack, language: str, line: str, said: str) -> None:
    db = stack.db
    settings = mail_settings(stack.settings)
    _game_id, _seat, email, address = reply_setup(stack, language)
    before = all_rows(db)["absences"]
    received = replies.receive(db, settings, letter(email, address, line), [address], T0)
    assert received.status == "error"
    assert all_rows(db)["absences"] == before
    row = last_reply(stack)
    assert row.payload["result"] == "refused" and row.payload["refusal"]["msgid"] == inputs.OUT_OF_RANGE
    mail = compose(db, row.id, settings, now=T0)
    assert mail is not None and said in text_of(mail), text_of(mail)
    with pytest.raises(inputs.InputError, match=f"{said.split(maxsplit=1)[0]} is out of range"):
        away.parse_away(line, language, "Pacific/Kiritimati", T0)


def test_away_out_of_range_written_on_the_mailbox_page_gets_the_error_reply(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=3, absences={})
    first = rows_of(stack.db, outbox_ids(stack.db, created.game_id))[0]
    transport = FileTransport(stack.settings.mail_dir)
    assert send_one(stack.db, first.id, transport, stack.settings, now=T0) == "sent"
    [path] = stack.settings.mail_dir.glob("*.eml")
    before = all_rows(stack.db)["absences"]
    reply_url = f"/mail/{mailbox_token(stack.settings.secret_key)}/{path.name}/reply"
    body = {"body": "AWAY 9999-12-30 - 9999-12-31", "csrf_token": csrf_token(stack.client, stack.app)}
    sent = stack.client.post(reply_url, data=body)
    assert sent.status_code == 303 and sent.headers["Location"].endswith("replied=error")
    assert all_rows(stack.db)["absences"] == before
    row = last_reply(stack)
    assert row.payload["result"] == "refused" and row.payload["refusal"]["msgid"] == inputs.OUT_OF_RANGE
    mail = compose(stack.db, row.id, stack.settings, now=T0)
    assert mail is not None and "AWAY is out of range: '9999-12-30'" in text_of(mail), text_of(mail)


@pytest.mark.parametrize("header", ["Fri, 31 Dec 9999 23:59:59 -1400", "Mon, 01 Jan 99999 00:00:00 +0000"])
def test_a_mail_file_dated_far_away_is_listed_by_the_mailbox_at_its_files_time(embedded: Stack, header: str) -> None:
    name = write_mail(embedded, 1, "Ann <ann@example.org>", "Mall of Horror, game 7: your decision (Round 1)")
    path = embedded.settings.mail_dir / name
    path.write_bytes(re.sub(rb"\nDate: [^\n]*\n", f"\nDate: {header}\n".encode(), path.read_bytes(), count=1))
    os.utime(path, ns=(10**18, 10**18))
    page = embedded.client.get(f"/mail/{mailbox_token(embedded.settings.secret_key)}")
    assert page.status_code == 200 and name in page.get_data(as_text=True)


def test_the_services_refuse_a_sign_up_close_out_of_range_whoever_read_it(stack: Stack) -> None:
    """Defence in depth for pages still to come: a season's close read elsewhere than ``inputs`` (a form's own
    parsing, with the zone attached but not converted) is refused by ``create_season`` and ``next_season``."""
    league_id, _token = open_league(stack)
    season_id = stack.client.get(f"/api/leagues/{league_id}", headers=AUTH).json["seasons"][0]["id"]
    before = all_rows(stack.db)
    far = [
        datetime(9999, 12, 31, 23, 59, tzinfo=timezone(timedelta(hours=-14))),
        datetime(1, 1, 1, tzinfo=ZoneInfo("Pacific/Kiritimati")),
    ]
    for when in far:
        with pytest.raises(inputs.InputError, match="signup_closes is out of range"):
            seasons.create_season(stack.db, league_id, when, 3, "when_over", None, now=datetime.now(UTC))
        with pytest.raises(inputs.InputError, match="signup_closes is out of range"):
            promotion.next_season(stack.db, season_id, when, datetime.now(UTC))
    assert all_rows(stack.db) == before
