"""The JSON API of leagues (server/web/api_leagues.py): organisers create and read leagues and seasons with the
server's token, or one league with its organiser token; anyone signs up through the invitation link and gets one
neutral answer whatever the address's state; players list their entries. Every refusal is a JSON 4xx that changes
nothing, never a 500, whatever the body."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from werkzeug.test import TestResponse

from server.models import EntryStatus, Outbox, Player, Season, SeasonPlayer, utcnow
from server.services.leagues import api, seasons
from server.services.links import player_token
from server.web.api_leagues import NEEDS_TOKEN, SIGNED_UP
from tests.conftest import Stack
from tests.server.test_api_cli import NEEDS_TOKEN as NEEDS_API_TOKEN
from tests.server.test_league_pages import ANN, confirm_link
from tests.support import AUTH, all_rows, forged

DAY = timedelta(days=1)
LEAGUE = {"name": "Tuesday Night", "timezone": "Europe/Warsaw", "table_size": 4, "scoring": "wins"}
SEASON = {"signup_closes": "", "rounds": 3, "schedule": "fixed", "rule": {"weekday": 0, "time": "18:00"}}


def closes(after: timedelta = 7 * DAY) -> str:
    return (utcnow() + after).astimezone().isoformat()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_league(stack: Stack, **fields: Any) -> dict[str, Any]:
    reply = stack.client.post("/api/leagues", json=LEAGUE | fields, headers=AUTH)
    assert reply.status_code == 201, reply.json
    return dict(reply.json or {})


def new_season(stack: Stack, league_id: int, headers: dict[str, str] = AUTH, **fields: Any) -> TestResponse:
    body = SEASON | {"signup_closes": closes()} | fields
    return stack.client.post(f"/api/leagues/{league_id}/seasons", json=body, headers=headers)


def open_league(stack: Stack) -> tuple[int, str]:
    """A league with a season taking sign-ups: its id and invitation token."""
    made = new_league(stack)
    assert new_season(stack, made["id"]).status_code == 201
    return made["id"], made["links"]["invite"]["token"]


def sign_up(stack: Stack, token: str, body: Any = ANN) -> TestResponse:
    return stack.client.post(f"/api/l/{token}/signup", json=body)


def refused(stack: Stack, reply: TestResponse, status: int, message: str, before: Any) -> None:
    """A JSON refusal of ``status`` whose error says ``message``, and no row changed since ``before``."""
    assert reply.status_code == status, reply.get_data(as_text=True)
    assert reply.json is not None and reply.json["ok"] is False and message in reply.json["error"]
    assert all_rows(stack.db) == before


# --- organisers ------------------------------------------------------------------------------------------------------

ORGANISER_CALLS = [
    ("post", "/api/leagues", LEAGUE),
    ("get", "/api/leagues", None),
    ("get", "/api/leagues/1", None),
    ("post", "/api/leagues/1/seasons", SEASON),
    ("get", "/api/seasons/1", None),
    ("post", "/api/leagues/1/links/invite/revoke", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ORGANISER_CALLS)
@pytest.mark.parametrize(
    "headers",
    [{}, bearer(""), bearer("wrong"), {"Authorization": "Basic test-api-token"}, bearer("test-api-token-x")],
)
def test_organiser_calls_need_a_token(
    embedded: Stack, method: str, path: str, body: Any, headers: dict[str, str]
) -> None:
    new_league(embedded)
    before = all_rows(embedded.db)
    reply = getattr(embedded.client, method)(path, json=body, headers=headers)
    assert reply.status_code == 401
    assert reply.json["error"] in (NEEDS_TOKEN, NEEDS_API_TOKEN)
    assert all_rows(embedded.db) == before


def test_a_league_is_created_listed_and_shown_with_its_seasons(stack: Stack) -> None:
    made = new_league(stack, preset="week", tie_breaks=["wins"], standings_public=True)
    league_id = made["id"]
    assert made["ok"] is True and set(made["links"]) == {"invite", "organiser", "public"}
    invite = made["links"]["invite"]
    assert invite["url"] == f"{stack.settings.base_url.rstrip('/')}/l/{invite['token']}"
    assert stack.client.get(f"/l/{invite['token']}").status_code == 404  # the invitation page: no season yet
    season = new_season(stack, league_id, schedule="when_over", rule=None, signup_closes="2099-01-05T18:00:00+01:00")
    assert season.status_code == 201
    assert season.json == {"ok": True, "id": season.json["id"], "league": league_id, "number": 1}
    assert new_season(stack, league_id).json["number"] == 2
    listed = stack.client.get("/api/leagues", headers=AUTH).json
    assert [(x["id"], x["name"], x["season_count"]) for x in listed["leagues"]] == [(league_id, "Tuesday Night", 2)]
    shown = stack.client.get(f"/api/leagues/{league_id}", headers=AUTH).json
    assert (shown["table_size"], shown["scoring"], shown["preset"], shown["tie_breaks"]) == (
        4,
        "wins",
        "week",
        ["wins"],
    )
    assert shown["standings_public"] is True and set(shown["links"]) == set(made["links"])
    for kind, link in shown["links"].items():  # (tokens carry the second they were signed: each opens the league)
        assert seasons.open_league(stack.db, stack.settings.secret_key, kind, link["token"]) == league_id
    first, second = shown["seasons"]
    assert (first["number"], first["schedule"], first["rule"], first["status"]) == (1, "when_over", None, "signup")
    assert first["signup_closes"] == "2099-01-05T17:00:00+00:00"
    assert second["rule"] == {"weekday": 0, "time": "18:00"}
    assert first["entries"] == {"pending": 0, "confirmed": 0, "withdrawn": 0}


def test_a_season_shows_its_entries_with_addresses_to_the_organiser(stack: Stack) -> None:
    league_id, token = open_league(stack)
    assert sign_up(stack, token).status_code == 202
    assert sign_up(stack, token, ANN | {"name": "Bob", "email": "bob@example.org"}).status_code == 202
    stack.client.post(f"/api{confirm_link(stack)}")
    season_id = seasons.signup_season(stack.db, league_id)
    shown = stack.client.get(f"/api/seasons/{season_id}", headers=AUTH).json
    assert [(p["name"], p["status"], p["email"]) for p in shown["players"]] == [
        ("Ann", "pending", "ann@example.org"),
        ("Bob", "confirmed", "bob@example.org"),
    ]
    assert shown["entries"] == {"pending": 1, "confirmed": 1, "withdrawn": 0}
    league = stack.client.get(f"/api/leagues/{league_id}", headers=AUTH).json
    assert league["seasons"][0]["entries"] == shown["entries"]


def test_revoking_a_link_refuses_the_old_one_and_answers_the_new(stack: Stack) -> None:
    league_id, token = open_league(stack)
    reply = stack.client.post(f"/api/leagues/{league_id}/links/invite/revoke", headers=AUTH)
    assert reply.status_code == 200 and reply.json["kind"] == "invite" and reply.json["token"] != token
    before = all_rows(stack.db)
    refused(stack, sign_up(stack, token), 403, "This league link was revoked", before)
    assert sign_up(stack, reply.json["token"]).status_code == 202
    before = all_rows(stack.db)
    for path, status, message in [
        (f"/api/leagues/{league_id}/links/secret/revoke", 404, "'secret' is not a league link"),
        (f"/api/leagues/{league_id + 1}/links/invite/revoke", 404, f"There is no league {league_id + 1}."),
    ]:
        refused(stack, stack.client.post(path, headers=AUTH), status, message, before)


# --- a league's organiser token -------------------------------------------------------------------------------------


def test_a_league_organiser_token_reaches_its_own_league_only(stack: Stack) -> None:
    mine, theirs = new_league(stack), new_league(stack, name="Other")
    token = mine["links"]["organiser"]["token"]
    assert new_season(stack, theirs["id"]).status_code == 201
    created = new_season(stack, mine["id"], headers=bearer(token))
    assert created.status_code == 201 and created.json["league"] == mine["id"]
    shown = stack.client.get(f"/api/leagues/{mine['id']}", headers=bearer(token))
    assert shown.status_code == 200 and shown.json["name"] == "Tuesday Night"
    invite = mine["links"]["invite"]["token"]
    assert sign_up(stack, invite).status_code == 202
    season = stack.client.get(f"/api/seasons/{created.json['id']}", headers=bearer(token)).json
    assert [p["name"] for p in season["players"]] == ["Ann"] and "email" not in season["players"][0]
    other_season = seasons.signup_season(stack.db, theirs["id"])
    before = all_rows(stack.db)
    for reply, message in [
        (stack.client.get(f"/api/leagues/{theirs['id']}", headers=bearer(token)), "There is no league"),
        (new_season(stack, theirs["id"], headers=bearer(token)), "There is no league"),
        (stack.client.get(f"/api/seasons/{other_season}", headers=bearer(token)), "There is no season"),
    ]:
        refused(stack, reply, 404, message, before)
    for method, path, body in ORGANISER_CALLS[:2] + ORGANISER_CALLS[-1:]:  # the server's organiser only
        reply = getattr(stack.client, method)(path.replace("/1/", f"/{mine['id']}/"), json=body, headers=bearer(token))
        refused(stack, reply, 401, "This call needs the organiser's API token", before)
    for kind in ("invite", "public"):  # the league's other links are no organiser token
        reply = stack.client.get(f"/api/leagues/{mine['id']}", headers=bearer(mine["links"][kind]["token"]))
        refused(stack, reply, 401, NEEDS_TOKEN, before)


def test_a_revoked_league_organiser_token_is_refused(stack: Stack) -> None:
    made = new_league(stack)
    token = made["links"]["organiser"]["token"]
    stack.client.post(f"/api/leagues/{made['id']}/links/organiser/revoke", headers=AUTH)
    before = all_rows(stack.db)
    refused(stack, new_season(stack, made["id"], headers=bearer(token)), 403, "was revoked", before)
    reply = stack.client.get(f"/api/leagues/{made['id']}", headers=bearer(token))
    refused(stack, reply, 403, "This league link was revoked", before)


# --- refusals of bodies ----------------------------------------------------------------------------------------------

#: a value of the wrong type for each field of a league.
WRONG_TYPES = [
    ("name", 5), ("name", ["Ann"]), ("language", None), ("timezone", 1.5), ("table_size", "4"), ("table_size", True),
    ("table_size", 4.0), ("options", []), ("preset", 3), ("scoring", {}), ("tie_breaks", "wins"), ("forfeit", False),
    ("standings_public", "yes"), ("standings_public", 1),
]  # fmt: skip
HOSTILE = [[], [LEAGUE], "league", 7, None, True, {"": 1}, {"\u00e9" * 5000: 1}]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "name is required."),
        ({**LEAGUE, "colour": "red"}, "Unknown field 'colour'"),
        ({**LEAGUE, "name": "x" * 321}, "name is at most 320 characters."),
        ({**LEAGUE, "name": "x" * 81}, "A league's name is at most 80 characters."),
        ({**LEAGUE, "name": "  "}, "Give the league a name."),
        ({**LEAGUE, "name": "Ann\nBob"}, "a name is one line"),
        ({**LEAGUE, "table_size": 9}, "A table seats 3 to 6 players"),
        ({**LEAGUE, "language": "fr"}, "'fr' is not a language"),
        ({**LEAGUE, "timezone": "Mars/Olympus"}, "is not an IANA time zone"),
        ({**LEAGUE, "scoring": "elo"}, "'elo' is not a scoring system"),
        ({**LEAGUE, "tie_breaks": [["wins"]]}, "The tie-breaks are each at most once"),
        ({**LEAGUE, "tie_breaks": ["wins", "wins"]}, "The tie-breaks are each at most once"),
        ({**LEAGUE, "forfeit": "none"}, "'none' is not a forfeit rule"),
        ({**LEAGUE, "preset": "slow"}, "'slow' is not a tempo preset"),
        ({**LEAGUE, "options": {"speed": "fast"}}, "unknown option 'speed'"),
        ({**LEAGUE, "options": {"weapons": [[[]]]}}, "The game options are not valid"),
    ]
    + [({**LEAGUE, field: wrong}, f"{field} must be") for field, wrong in WRONG_TYPES]
    + [(body, "") for body in HOSTILE],
)
def test_a_league_refused_changes_nothing(embedded: Stack, body: Any, message: str) -> None:
    before = all_rows(embedded.db)
    refused(embedded, embedded.client.post("/api/leagues", json=body, headers=AUTH), 400, message, before)


@pytest.mark.parametrize(
    ("fields", "status", "message"),
    [
        ({"signup_closes": "2099-01-05T18:00:00"}, 400, "signup_closes must be a date and time with its zone"),
        ({"signup_closes": "next monday"}, 400, "signup_closes must be a date and time with its zone"),
        ({"signup_closes": "2001-01-05T18:00:00Z"}, 400, "The sign-up must close in the future."),
        ({"signup_closes": 1234567890}, 400, "signup_closes must be a text."),
        ({"rounds": 0}, 400, "A season has 1 to 52 rounds."),
        ({"rounds": "3"}, 400, "rounds must be a whole number."),
        ({"rounds": 10**40}, 400, "A season has 1 to 52 rounds."),
        ({"schedule": "monthly"}, 400, 'The schedule is "fixed"'),
        ({"rule": None}, 400, "A fixed schedule needs a weekday"),
        ({"rule": {"weekday": 7, "time": "18:00"}}, 400, "A fixed schedule needs a weekday"),
        ({"rule": {"weekday": 0, "time": "25:00"}}, 400, "A fixed schedule needs a weekday"),
        ({"rule": [0, "18:00"]}, 400, "rule must be an object."),
        ({"schedule": "when_over", "rule": {"weekday": 0, "time": "18:00"}}, 400, 'The schedule is "fixed"'),
        ({"extra": 1}, 400, "Unknown field 'extra'"),
    ],
)
def test_a_season_refused_changes_nothing(embedded: Stack, fields: dict[str, Any], status: int, message: str) -> None:
    league_id = new_league(embedded)["id"]
    before = all_rows(embedded.db)
    refused(embedded, new_season(embedded, league_id, **fields), status, message, before)


@pytest.mark.parametrize("body", [*HOSTILE, {"rounds": 3}, {"signup_closes": "2099-01-05T18:00:00Z"}])
def test_a_season_body_of_the_wrong_shape_is_refused(embedded: Stack, body: Any) -> None:
    league_id = new_league(embedded)["id"]
    before = all_rows(embedded.db)
    reply = embedded.client.post(f"/api/leagues/{league_id}/seasons", json=body, headers=AUTH)
    refused(embedded, reply, 400, "", before)
    refused(embedded, new_season(embedded, league_id + 1), 404, f"There is no league {league_id + 1}.", before)
    refused(embedded, embedded.client.get("/api/seasons/99", headers=AUTH), 404, "There is no season 99.", before)
    refused(embedded, embedded.client.get(f"/api/leagues/{league_id + 1}", headers=AUTH), 404, "no league", before)


RAW_BODIES = [
    b'{"name": "Ann\\u0000"}',
    b'{"name": "\\ud800"}',
    b"[" * 40 + b"]" * 40,
    b'{"name": ' + b"[" * 40 + b"]" * 40 + b"}",
    b"{not json",
    b'"' + b"x" * 70_000 + b'"',
]


@pytest.mark.parametrize("raw", RAW_BODIES)
def test_hostile_raw_bodies_are_refused_by_every_call(embedded: Stack, raw: bytes) -> None:
    league_id, invite = open_league(embedded)
    before = all_rows(embedded.db)
    for path, headers in [
        ("/api/leagues", AUTH),
        (f"/api/leagues/{league_id}/seasons", AUTH),
        (f"/api/l/{invite}/signup", {}),
    ]:
        reply = embedded.client.post(path, data=raw, content_type="application/json", headers=headers)
        assert reply.status_code in (400, 413) and reply.json["ok"] is False, (path, reply.json)
    assert all_rows(embedded.db) == before


# --- sign-ups --------------------------------------------------------------------------------------------------------


def entries(stack: Stack) -> list[tuple[str, str]]:
    with stack.db.session() as session:
        rows = session.execute(sa.select(Player.email, SeasonPlayer.status).join(Player).order_by(SeasonPlayer.id))
        return [(email, str(status)) for email, status in rows.all()]


def test_a_sign_up_by_the_api_is_pending_until_confirmed(stack: Stack) -> None:
    _, token = open_league(stack)
    reply = sign_up(stack, token)
    assert (reply.status_code, reply.json) == (202, {"ok": True, "message": SIGNED_UP})
    assert entries(stack) == [("ann@example.org", EntryStatus.PENDING)]
    link = confirm_link(stack)
    confirmed = stack.client.post(f"/api{link}")
    assert confirmed.status_code == 200
    assert confirmed.json == {
        "ok": True, "confirmed": True, "already": False, "league": "Tuesday Night", "season": 1, "name": "Ann",
    }  # fmt: skip
    assert entries(stack) == [("ann@example.org", EntryStatus.CONFIRMED)]
    assert stack.client.post(f"/api{link}").json["already"] is True


def test_a_sign_ups_answer_is_the_same_for_a_new_a_pending_and_a_confirmed_address(stack: Stack) -> None:
    _, token = open_league(stack)
    new = sign_up(stack, token)
    before = all_rows(stack.db)
    pending = sign_up(stack, token)  # mailed a minute ago: not mailed again
    assert all_rows(stack.db) == before
    stack.client.post(f"/api{confirm_link(stack)}")
    before = all_rows(stack.db)
    confirmed = sign_up(stack, token, ANN | {"name": "Someone Else", "language": "pl"})
    assert all_rows(stack.db) == before
    answers = {
        (r.status_code, r.get_data(as_text=True), r.headers.get("Content-Type")) for r in (new, pending, confirmed)
    }
    assert len(answers) == 1 and "ann@example.org" not in next(iter(answers))[1]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({**ANN, "name": " "}, 400, "Give your name."),
        ({**ANN, "email": "not an address"}, 400, "is not an e-mail address"),
        ({**ANN, "timezone": "Mars/Olympus"}, 400, "is not a time zone"),
        ({**ANN, "quiet_start": "25:00"}, 400, "25:00"),
        ({**ANN, "language": "xx"}, 400, "xx"),
        ({**ANN, "email": "a" * 400 + "@example.org"}, 400, "email is at most 320 characters."),
        ({"name": "Ann"}, 400, "email is required."),
        ({**ANN, "password": "x"}, 400, "Unknown field 'password'"),
    ]
    + [({**ANN, field: wrong}, 400, f"{field} must be a text.") for field in ANN for wrong in (None, 3, ["x"], {})]
    + [(body, 400, "") for body in HOSTILE],
)
def test_a_sign_up_refused_changes_nothing(embedded: Stack, body: Any, status: int, message: str) -> None:
    _, token = open_league(embedded)
    before = all_rows(embedded.db)
    refused(embedded, sign_up(embedded, token, body), status, message, before)


def test_a_sign_up_after_the_close_or_without_a_season_is_refused(stack: Stack) -> None:
    _, token = open_league(stack)
    with stack.db.session() as session:
        session.execute(sa.update(Season).values(signup_closes=utcnow() - timedelta(minutes=1)))
    before = all_rows(stack.db)
    refused(stack, sign_up(stack, token), 409, "The sign-up for this season closed on", before)
    with stack.db.session() as session:
        session.execute(sa.update(Season).values(status="running"))
    before = all_rows(stack.db)  # the season started: its sign-up closed, a state (409) as the README says
    refused(stack, sign_up(stack, token), 409, "The sign-up for this season closed on", before)
    refused(stack, sign_up(stack, forged(token)), 403, "This link is not valid", before)
    invite = new_league(stack, name="No season yet")["links"]["invite"]["token"]
    before = all_rows(stack.db)
    refused(stack, sign_up(stack, invite), 409, "No season of this league is open for sign-ups", before)


def test_a_confirmation_refused_changes_nothing(stack: Stack) -> None:
    _, token = open_league(stack)
    sign_up(stack, token)
    link = confirm_link(stack)
    before = all_rows(stack.db)
    refused(stack, stack.client.post(f"/api{forged(link)}"), 403, "This link is not valid", before)
    with stack.db.session() as session:
        entry_id = session.execute(sa.select(SeasonPlayer.id)).scalar_one()
    seasons.withdraw(stack.db, entry_id, utcnow())
    before = all_rows(stack.db)
    refused(stack, stack.client.post(f"/api{link}"), 409, "You withdrew from this season", before)


# --- players ---------------------------------------------------------------------------------------------------------


def test_a_player_lists_their_entries_by_their_link(stack: Stack) -> None:
    league_id, token = open_league(stack)
    sign_up(stack, token)
    stack.client.post(f"/api{confirm_link(stack)}")
    with stack.db.session() as session:
        player = session.execute(sa.select(Player)).scalar_one()
        link = player_token(stack.settings.secret_key, player.id, player.link_generation)
    reply = stack.client.get(f"/api/p/{link}/leagues")
    assert reply.status_code == 200
    (entry,) = reply.json["entries"]
    assert entry["league"] == {"id": league_id, "name": "Tuesday Night"}
    assert (entry["season"]["number"], entry["season"]["status"], entry["status"]) == (1, "signup", "confirmed")
    before = all_rows(stack.db)
    refused(stack, stack.client.get(f"/api/p/{forged(link)}/leagues"), 403, "This link is not valid", before)
    with stack.db.session() as session:
        session.execute(sa.update(Player).values(link_generation=Player.link_generation + 1))
    refused(stack, stack.client.get(f"/api/p/{link}/leagues"), 403, "replaced by a newer one", all_rows(stack.db))


def test_no_body_of_any_shape_makes_a_500(embedded: Stack) -> None:
    league_id, invite = open_league(embedded)
    season_id = seasons.signup_season(embedded.db, league_id)
    bodies: list[Any] = [*HOSTILE, {"name": "x" * 70_000}, {"a": [1] * 10_000}, -1, 1e308, ""]
    bodies += [{**ANN, **LEAGUE, **SEASON, field: value} for field in ("name", "rounds", "rule") for value in HOSTILE]
    paths = [
        ("/api/leagues", AUTH),
        (f"/api/leagues/{league_id}/seasons", AUTH),
        (f"/api/l/{invite}/signup", {}),
        ("/api/l/confirm/abc", {}),
        (f"/api/leagues/{league_id}/links/public/revoke", AUTH),
        (f"/api/seasons/{season_id}/rounds", AUTH),  # (no confirmed player: refused)
        ("/api/rounds/1/swap", AUTH),
        ("/api/rounds/1/start", AUTH),
        ("/api/games/1/result", AUTH),
        (f"/api/seasons/{season_id}/next", AUTH),
    ]
    with embedded.db.session() as session:
        mailed = session.execute(sa.select(sa.func.count()).select_from(Outbox)).scalar_one()
    for body in bodies:
        for path, headers in paths:
            reply = embedded.client.post(path, json=body, headers=headers)
            assert reply.status_code < 500 and reply.is_json, (path, body, reply.status_code)
    assert embedded.client.get(f"/api/seasons/{season_id}", headers=AUTH).status_code == 200
    with embedded.db.session() as session:  # no sign-up went through
        assert session.execute(sa.select(sa.func.count()).select_from(Outbox)).scalar_one() == mailed


def test_a_season_takes_its_sizes_and_a_sign_up_its_acquaintances_through_the_api(stack: Stack) -> None:
    made = new_league(stack)
    reply = new_season(stack, made["id"], max_players=12, divisions=2, promote=1)
    assert reply.status_code == 201, reply.json
    (season,) = stack.client.get(f"/api/leagues/{made['id']}", headers=AUTH).json["seasons"]
    assert (season["max_players"], season["divisions"], season["promote"]) == (12, 2, 1)
    token = made["links"]["invite"]["token"]
    assert sign_up(stack, token, ANN | {"knows": "Bob@example.org, cy@example.org"}).status_code == 202
    assert stack.client.post(f"/api{confirm_link(stack)}").status_code == 200
    with stack.db.session() as session:
        assert session.execute(sa.select(SeasonPlayer.knows)).scalar_one() == ["bob@example.org", "cy@example.org"]
    before = all_rows(stack.db)
    refused(stack, new_season(stack, made["id"], promote=1), 400, "only between divisions", before)
    refused(stack, new_season(stack, made["id"], divisions="2"), 400, "divisions must be a whole number", before)
    refused(stack, sign_up(stack, token, ANN | {"knows": "not an address"}), 400, "", before)


def confirmed_player(stack: Stack) -> tuple[int, str]:
    """Ann, confirmed in a season taking sign-ups (3 rounds): her player id and preferences link's token."""
    _, token = open_league(stack)
    sign_up(stack, token)
    stack.client.post(f"/api{confirm_link(stack)}")
    with stack.db.session() as session:
        player = session.execute(sa.select(Player)).scalar_one()
        return player.id, player_token(stack.settings.secret_key, player.id, player.link_generation)


def test_a_player_misses_a_round_undoes_it_and_withdraws_by_their_link(stack: Stack) -> None:
    _, link = confirmed_player(stack)
    (entry,) = stack.client.get(f"/api/p/{link}/leagues").json["entries"]
    path = f"/api/p/{link}/leagues/{entry['id']}"
    assert entry["skips"] == []
    missed = stack.client.post(f"{path}/skip", json={"round": 2})
    assert (missed.status_code, missed.json) == (200, {"ok": True, "entry": entry["id"], "skips": [2]})
    assert stack.client.post(f"{path}/skip", json={"round": 3}).json["skips"] == [2, 3]
    assert stack.client.get(f"/api/p/{link}/leagues").json["entries"][0]["skips"] == [2, 3]
    before = all_rows(stack.db)
    for body, status, message in [
        ({"round": 2}, 409, "You already said you will miss round 2"),
        ({"round": 4}, 400, "Season 1 has rounds 1 to 3"),
        ({"round": 1, "undo": True}, 409, "You did not say you would miss round 1"),
        ({"round": "2"}, 400, "round must be a whole number."),
        ({"round": 2, "undo": "yes"}, 400, "undo must be true or false."),
        ({}, 400, "round is required."),
        (None, 400, "Send a JSON object."),
    ]:
        refused(stack, stack.client.post(f"{path}/skip", json=body), status, message, before)
    undone = stack.client.post(f"{path}/skip", json={"round": 2, "undo": True})
    assert (undone.status_code, undone.json["skips"]) == (200, [3])
    withdrawn = stack.client.post(f"{path}/withdraw")
    assert (withdrawn.status_code, withdrawn.json) == (200, {"ok": True, "entry": entry["id"], "status": "withdrawn"})
    assert entries(stack) == [("ann@example.org", EntryStatus.WITHDRAWN)]
    before = all_rows(stack.db)
    refused(stack, stack.client.post(f"{path}/withdraw"), 409, "You have already withdrawn", before)
    refused(stack, stack.client.post(f"{path}/skip", json={"round": 1}), 409, "Only a confirmed player", before)


def test_a_player_acts_on_their_own_entries_only(stack: Stack) -> None:
    _, link = confirmed_player(stack)
    (entry,) = stack.client.get(f"/api/p/{link}/leagues").json["entries"]
    with stack.db.session() as session:
        other = Player(email="cy@example.org", display_name="Cy", created_at=utcnow())
        session.add(other)
        session.flush()
        theirs = player_token(stack.settings.secret_key, other.id, other.link_generation)
    before = all_rows(stack.db)
    for path, body in [("withdraw", None), ("skip", {"round": 1})]:
        reply = stack.client.post(f"/api/p/{theirs}/leagues/{entry['id']}/{path}", json=body)
        refused(stack, reply, 404, "There is no such sign-up.", before)
        reply = stack.client.post(f"/api/p/{forged(link)}/leagues/{entry['id']}/{path}", json=body)
        refused(stack, reply, 403, "This link is not valid", before)


def test_every_body_field_has_a_checked_kind_and_the_required_ones_are_named() -> None:
    """Each body's TypedDict declares its fields' types; ``fields`` checks each by ``KINDS``, so a field of a type
    without a kind would be a server error on its first use: none is."""
    shapes = (api.LeagueBody, api.SeasonBody, api.ApplicantBody, api.SwapBody, api.SkipBody, api.ResultBody)
    for shape in (*shapes, api.NextBody):
        kinds, _ = api._shape(shape)
        assert set(kinds.values()) <= set(api.KINDS), shape.__name__
    assert api._shape(api.SeasonBody)[1] == ["signup_closes", "rounds", "schedule"]
    assert api._shape(api.SwapBody)[1] == ["a", "b"]
    assert api._shape(api.ResultBody)[1] == []
