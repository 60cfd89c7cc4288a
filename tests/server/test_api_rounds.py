"""The JSON API of league rounds and results (server/web/api_leagues.py): organisers plan, read, swap and start
rounds, read standings (JSON and CSV), record an abandoned game's result and create the next season, with the
server's token or their league's organiser token (their own league only); a season's players read its standings by
their player link, and anyone by the public link when the league shows them. Addresses reach the server's organiser
only. Every refusal is a JSON 4xx that changes nothing."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
import sqlalchemy as sa

from server.db import Database
from server.models import (
    Game,
    League,
    LeagueRound,
    Player,
    RatingRow,
    RoundStatus,
    Season,
    SeasonPlayer,
    SeasonStatus,
    Seat,
    utcnow,
)
from server.services.leagues import ratings, rounds, seasons, standings
from server.services.links import player_token
from server.services.play import organise
from tests.conftest import Stack
from tests.server.test_api_cli import assert_clean_error, cli_env, run
from tests.server.test_api_leagues import HOSTILE, RAW_BODIES, bearer, closes, new_league, new_season, refused
from tests.server.test_replay import finish
from tests.server.test_results import league_game
from tests.server.test_results import make_season as results_season
from tests.server.test_rounds import enter, make_league, make_season, unseatable_season
from tests.support import AUTH, all_rows, create_tagged, seat_ids


def organiser_token(stack: Stack, league_id: int) -> dict[str, str]:
    return bearer(seasons.league_link(stack.db, stack.settings.secret_key, league_id, "organiser"))


def season_with_players(stack: Stack, count: int = 8, start: int = 0, **league: Any) -> tuple[int, int, list[int]]:
    """A league (tables of 4) with a "when_over" season of ``count`` confirmed players (p<start>…): ids of both, the
    players."""
    league_id = make_league(stack.db, **league)
    season_id = make_season(stack.db, league_id)
    return league_id, season_id, enter(stack.db, season_id, count, start=start)


def plan(stack: Stack, season_id: int, headers: dict[str, str] = AUTH) -> Any:
    return stack.client.post(f"/api/seasons/{season_id}/rounds", headers=headers)


def game_ids(db: Database, round_id: int) -> list[int]:
    with db.session() as session:
        return list(session.execute(sa.select(Game.id).where(Game.round_id == round_id).order_by(Game.id)).scalars())


# --- rounds ----------------------------------------------------------------------------------------------------------


def test_a_round_is_planned_shown_swapped_and_started_once(stack: Stack) -> None:
    league_id, season_id, players = season_with_players(stack)
    planned = plan(stack, season_id, organiser_token(stack, league_id))
    assert planned.status_code == 201, planned.json
    round_id = planned.json["id"]
    assert (planned.json["number"], planned.json["status"], planned.json["season_id"]) == (1, "planned", season_id)
    shown = stack.client.get(f"/api/rounds/{round_id}", headers=AUTH).json
    tables = [[p["id"] for p in t["players"]] for t in shown["tables"]]
    assert sorted(p for t in tables for p in t) == sorted(players) and [len(t) for t in tables] == [4, 4]
    ann = shown["tables"][0]["players"][0]
    assert set(ann) == {"id", "name", "zone"} and ann["name"].startswith("P") and "/" in ann["zone"] + "/"
    a, b = tables[0][0], tables[1][0]
    swapped = stack.client.post(f"/api/rounds/{round_id}/swap", json={"a": a, "b": b}, headers=AUTH)
    assert swapped.status_code == 200
    after = [[p["id"] for p in t["players"]] for t in swapped.json["tables"]]
    assert b in after[0] and a in after[1] and after == rounds.tables(stack.db, round_id)
    started = stack.client.post(f"/api/rounds/{round_id}/start", headers=organiser_token(stack, league_id))
    assert started.status_code == 201
    assert started.json == {"ok": True, "round": round_id, "games": game_ids(stack.db, round_id)}
    assert len(started.json["games"]) == 2
    shown = stack.client.get(f"/api/rounds/{round_id}", headers=AUTH).json
    assert shown["status"] == "started" and [g["id"] for g in shown["games"]] == started.json["games"]
    before = all_rows(stack.db)
    again = stack.client.post(f"/api/rounds/{round_id}/start", headers=AUTH)
    refused(stack, again, 409, "This round already started: nothing was changed.", before)
    swap = stack.client.post(f"/api/rounds/{round_id}/swap", json={"a": a, "b": b}, headers=AUTH)
    refused(stack, swap, 409, "This round already started", before)


def test_round_refusals_change_nothing(embedded: Stack) -> None:
    league_id, season_id, players = season_with_players(embedded)
    empty = make_season(embedded.db, league_id)
    enter(embedded.db, empty, 2, start=20)
    before = all_rows(embedded.db)
    refused(
        embedded, plan(embedded, empty), 409, "A round needs at least 3 available players; 2 are available.", before
    )
    refused(embedded, plan(embedded, 9999), 404, "There is no season 9999.", before)
    for method, path in [("get", "/api/rounds/9999"), ("post", "/api/rounds/9999/start")]:
        refused(embedded, getattr(embedded.client, method)(path, headers=AUTH), 404, "There is no round 9999.", before)
    round_id = plan(embedded, season_id).json["id"]
    before = all_rows(embedded.db)
    for body, status, message in [
        ({"a": players[0]}, 400, "b is required."),
        ({"a": players[0], "b": "2"}, 400, "b must be a whole number."),
        ({"a": players[0], "b": True}, 400, "b must be a whole number."),
        ({"a": players[0], "b": players[1], "c": 3}, 400, "Unknown field 'c'"),
        ({"a": players[0], "b": 10**40}, 400, "Only players seated in this round can be swapped."),
        ([players[0], players[1]], 400, "Send a JSON object."),
        (None, 400, "Send a JSON object."),
    ]:
        reply = embedded.client.post(f"/api/rounds/{round_id}/swap", json=body, headers=AUTH)
        refused(embedded, reply, status, message, before)
    for _ in range(2):  # planned again while planned: the same round; then the season's 3 rounds are all planned
        assert plan(embedded, season_id).json["id"] == round_id
    with embedded.db.session() as session:
        for number in (2, 3):
            session.add(LeagueRound(season_id=season_id, number=number, status=RoundStatus.OVER))
        session.get(LeagueRound, round_id).status = RoundStatus.OVER  # type: ignore[union-attr]
    before = all_rows(embedded.db)
    refused(embedded, plan(embedded, season_id), 409, "has 3 rounds, all planned already", before)


def test_a_seasons_rounds_are_listed_and_its_players_shown_with_the_ids_a_swap_takes(stack: Stack) -> None:
    league_id, season_id, players = season_with_players(stack)
    path = f"/api/seasons/{season_id}/rounds"
    assert stack.client.get(path, headers=AUTH).json == {"ok": True, "season": season_id, "rounds": []}
    round_id = plan(stack, season_id).json["id"]
    listed = stack.client.get(path, headers=organiser_token(stack, league_id))
    assert listed.status_code == 200
    assert listed.json["rounds"] == [
        {"id": round_id, "number": 1, "status": "planned", "starts_at": None, "tables": 2, "games": []}
    ]
    season = stack.client.get(f"/api/seasons/{season_id}", headers=AUTH).json
    assert season["round_ids"] == [round_id] and sorted(p["id"] for p in season["players"]) == sorted(players)
    (shown,) = [s for s in stack.client.get(f"/api/leagues/{league_id}", headers=AUTH).json["seasons"]]
    assert shown["round_ids"] == [round_id]
    tables = rounds.tables(stack.db, round_id)
    a, b = tables[0][0], tables[1][0]
    ids = {p["name"]: p["id"] for p in season["players"]}  # the ids the season shows are the ones a swap takes
    assert {a, b} <= set(ids.values())
    swapped = stack.client.post(f"/api/rounds/{round_id}/swap", json={"a": a, "b": b}, headers=AUTH)
    assert swapped.status_code == 200
    started = stack.client.post(f"/api/rounds/{round_id}/start", headers=AUTH).json["games"]
    (done,) = stack.client.get(path, headers=AUTH).json["rounds"]
    assert (done["status"], done["games"]) == ("started", started)
    _, other, _ = season_with_players(stack, start=10, name="Other")
    before = all_rows(stack.db)
    token = organiser_token(stack, league_id)
    refused(stack, stack.client.get(f"/api/seasons/{other}/rounds", headers=token), 404, "There is no season", before)
    refused(stack, stack.client.get("/api/seasons/9999/rounds", headers=AUTH), 404, "There is no season 9999.", before)
    refused(stack, stack.client.get(path), 401, "This call needs the organiser's API token", before)


def test_a_player_swapped_with_themselves_is_refused(stack: Stack) -> None:
    _, season_id, _ = season_with_players(stack)
    round_id = plan(stack, season_id).json["id"]
    seated = rounds.tables(stack.db, round_id)[0][0]
    before = all_rows(stack.db)
    reply = stack.client.post(f"/api/rounds/{round_id}/swap", json={"a": seated, "b": seated}, headers=AUTH)
    refused(stack, reply, 400, "A player cannot be swapped with themselves", before)
    with pytest.raises(rounds.RoundError, match="cannot be swapped with themselves"):  # the page and the CLI too
        rounds.swap(stack.db, round_id, seated, seated)
    assert all_rows(stack.db) == before


def test_a_league_organiser_token_reaches_its_own_rounds_and_results_only(stack: Stack) -> None:
    mine, season_id, players = season_with_players(stack)
    theirs, other_season, _ = season_with_players(stack, start=10, name="Other")
    round_id = plan(stack, other_season).json["id"]
    game = league_game(stack.db, other_season, 2, seed=95, tag=5)
    organise.abandon(stack.db, game, now=utcnow())
    token = organiser_token(stack, mine)
    before = all_rows(stack.db)
    for method, path, body, message in [
        ("post", f"/api/seasons/{other_season}/rounds", None, f"There is no season {other_season}."),
        ("get", f"/api/rounds/{round_id}", None, f"There is no round {round_id}."),
        ("post", f"/api/rounds/{round_id}/swap", {"a": players[0], "b": players[1]}, "There is no round"),
        ("post", f"/api/rounds/{round_id}/start", None, "There is no round"),
        ("get", f"/api/seasons/{other_season}/standings", None, "There is no season"),
        ("get", f"/api/seasons/{other_season}/standings.csv", None, "There is no season"),
        ("post", f"/api/games/{game}/result", {"ranking": list(seat_ids(stack.db, game))}, f"There is no game {game}."),
        ("post", f"/api/seasons/{other_season}/next", {"signup_closes": closes()}, "There is no season"),
    ]:
        refused(stack, getattr(stack.client, method)(path, json=body, headers=token), 404, message, before)
        reply = getattr(stack.client, method)(path, json=body)  # (wrong tokens: 10 a minute)
        refused(stack, reply, 401, "This call needs the organiser's API token", before)
    seasons.revoke(stack.db, mine, "organiser")
    before = all_rows(stack.db)
    refused(stack, plan(stack, season_id, token), 403, "This league link was revoked", before)
    assert theirs


# --- standings -------------------------------------------------------------------------------------------------------


def finished_season(stack: Stack, tag: int = 1, **league: Any) -> tuple[int, int, int]:
    """A league (``league``'s fields) whose one-round season ended with one finished game of players p<n>.<tag>:
    league, season, game."""
    league_id, season_id = results_season(stack.db, rounds=1, **league)
    game_id = league_game(stack.db, season_id, 1, seed=91, tag=tag)
    finish(stack.db, game_id, seed=91)
    return league_id, season_id, game_id


def members(db: Database, game_id: int) -> list[Player]:
    with db.session() as session:
        found = session.execute(
            sa.select(Player).join(Seat, Seat.player_id == Player.id).where(Seat.game_id == game_id)
        )
        return list(found.scalars())


def test_standings_reach_organisers_members_and_the_public_link_addresses_the_server_organiser_only(
    stack: Stack,
) -> None:
    league_id, season_id, game_id = finished_season(stack, tag=2, standings_public=True)
    secret = stack.settings.secret_key
    people = members(stack.db, game_id)
    table = standings.standings(stack.db, season_id)
    server = stack.client.get(f"/api/seasons/{season_id}/standings", headers=AUTH)
    assert server.status_code == 200
    assert server.json["season"] == {"id": season_id, "league": league_id, "number": 1, "status": "over"}
    (division,) = server.json["divisions"]
    assert division["name"] is None and server.json["substitutes"] == []
    emails = {p.id: p.email for p in people}
    assert [(r["player"], r["email"]) for r in division["rows"]] == [(r["player"], emails[r["player"]]) for r in
                                                                       table.rows()]  # fmt: skip
    row = division["rows"][0]
    assert set(row) >= {"rank", "player", "name", "points", "games", "wins", "victory_points", "average_place"}
    assert (row["rank"], row["games"]) == (1, 1)
    without = {**server.json, "divisions": [{"name": None, "rows": table.rows()}]}
    public = seasons.league_link(stack.db, secret, league_id, "public")
    member = player_token(secret, people[0].id, people[0].link_generation)
    for path, headers in [
        (f"/api/seasons/{season_id}/standings", organiser_token(stack, league_id)),
        (f"/api/p/{member}/seasons/{season_id}/standings", {}),
        (f"/api/ls/{public}/seasons/{season_id}/standings", {}),
    ]:
        reply = stack.client.get(path, headers=headers)
        assert reply.status_code == 200 and reply.json == without, path
        assert "@" not in reply.get_data(as_text=True), path
    listed = stack.client.get(f"/api/seasons/{season_id}/standings.csv", headers=AUTH)
    assert listed.status_code == 200 and listed.mimetype == "text/csv"
    assert 'filename="standings-season-1.csv"' in listed.headers["Content-Disposition"]
    assert len(list(csv.reader(io.StringIO(listed.get_data(as_text=True))))) == 1 + len(people)


def test_standings_are_refused_to_others(stack: Stack) -> None:
    league_id, season_id, game_id = finished_season(stack)  # standings shown to players only
    _, other_season, other_game = finished_season(stack, tag=2, standings_public=True)
    secret = stack.settings.secret_key
    member = members(stack.db, game_id)[0]
    stranger = members(stack.db, other_game)[0]
    public = seasons.league_link(stack.db, secret, league_id, "public")
    other_public = seasons.league_link(stack.db, secret, league_id + 1, "public")
    standings.standings(stack.db, season_id)  # the cache written: nothing below writes
    before = all_rows(stack.db)
    stranger_token = player_token(secret, stranger.id, stranger.link_generation)
    member_token = player_token(secret, member.id, member.link_generation)
    for path, status, message in [
        (f"/api/p/{stranger_token}/seasons/{season_id}/standings", 403, f"You are not in season {season_id}"),
        (f"/api/p/{member_token}/seasons/9999/standings", 403, "You are not in season 9999"),
        (f"/api/p/{member_token[:-3]}abc/seasons/{season_id}/standings", 403, "This link is not valid"),
        (f"/api/ls/{public}/seasons/{season_id}/standings", 403, "shown to its players only"),
        (f"/api/ls/{other_public}/seasons/{season_id}/standings", 404, f"There is no season {season_id} in this"),
        (f"/api/ls/{public[:-3]}abc/seasons/{season_id}/standings", 403, "This link is not valid"),
        (f"/api/seasons/{season_id}/standings", 401, "This call needs the organiser's API token"),
        ("/api/seasons/9999/standings.csv", 404, "There is no season 9999."),
    ]:
        headers = AUTH if path.endswith(".csv") else {}
        refused(stack, stack.client.get(path, headers=headers), status, message, before)
    assert other_season


# --- recorded results and the next season ----------------------------------------------------------------------------


def test_an_abandoned_games_result_is_recorded_once_and_the_next_season_created_once(stack: Stack) -> None:
    league_id, season_id = results_season(stack.db, rounds=1)
    game_id = league_game(stack.db, season_id, 1, seed=93)
    colours = list(seat_ids(stack.db, game_id))
    path = f"/api/games/{game_id}/result"
    before = all_rows(stack.db)
    refused(stack, stack.client.post(path, json={"ranking": colours}, headers=AUTH), 409, "was not abandoned", before)
    organise.abandon(stack.db, game_id, now=utcnow())
    before = all_rows(stack.db)
    refused(
        stack,
        stack.client.post(f"/api/seasons/{season_id}/next", json={"signup_closes": closes()}, headers=AUTH),
        409,
        f"Season {1} is not over yet",
        before,
    )
    for body, message in [
        ({}, "Send points or ranking: one of them."),
        ({"points": {}, "ranking": []}, "Send points or ranking: one of them."),
        ({"points": {colours[0]: 3}}, "Give a result for every colour of the game"),
        ({"points": {c: -1 for c in colours}}, "Give a result for every colour"),
        ({"points": {c: "7" for c in colours}}, "Give a result for every colour"),
        ({"points": {c: 10**40 for c in colours}}, "Give a result for every colour"),
        (
            {"points": {c: 5 for c in colours[:-1]}},
            f"Give a result for every colour of the game ({', '.join(colours)})",
        ),
        ({"ranking": colours[:-1]}, f"Rank every colour of the game ({', '.join(colours)}) once, the best first."),
        ({"ranking": [colours[0]] * len(colours)}, "Rank every colour of the game"),
        ({"ranking": [[c] for c in colours]}, "ranking must be a list of colours."),
        ({"ranking": [{"c": 1}]}, "ranking must be a list of colours."),
        ({"points": [1, 2, 3]}, "points must be an object."),
        ({"winner": colours[0]}, "Unknown field 'winner'"),
    ]:
        refused(stack, stack.client.post(path, json=body, headers=AUTH), 400, message, before)
    refused(stack, stack.client.post("/api/games/9999/result", json={"ranking": colours}, headers=AUTH), 404,
            "There is no game 9999.", before)  # fmt: skip
    points = {c: 10 + i for i, c in enumerate(colours)}
    recorded = stack.client.post(path, json={"points": points}, headers=organiser_token(stack, league_id))
    assert (recorded.status_code, recorded.json) == (200, {"ok": True, "game": game_id, "recorded": True})
    with stack.db.session() as session:
        assert session.get(Season, season_id).status == SeasonStatus.OVER  # type: ignore[union-attr]
    best = max(points, key=points.__getitem__)
    rows = stack.client.get(f"/api/seasons/{season_id}/standings", headers=AUTH).json["divisions"][0]["rows"]
    assert rows[0]["victory_points"] == points[best] and rows[0]["wins"] == 1
    before = all_rows(stack.db)
    again = stack.client.post(path, json={"points": points}, headers=AUTH)
    refused(stack, again, 409, f"The result of game {game_id} is already recorded", before)
    nxt = f"/api/seasons/{season_id}/next"
    for body, message in [
        ({"signup_closes": "2001-01-05T18:00:00Z"}, "The sign-up must close in the future."),
        ({"signup_closes": "2099-01-05T18:00:00"}, "signup_closes must be a date and time with its zone"),
        ({}, "signup_closes is required."),
        ({"signup_closes": closes(), "rounds": 2}, "Unknown field 'rounds'"),
    ]:
        refused(stack, stack.client.post(nxt, json=body, headers=AUTH), 400, message, before)
    created = stack.client.post(nxt, json={"signup_closes": closes()}, headers=organiser_token(stack, league_id))
    assert created.status_code == 201
    assert created.json == {"ok": True, "id": created.json["id"], "league": league_id, "number": 2}
    with stack.db.session() as session:
        assert session.get(Season, created.json["id"]).previous_id == season_id  # type: ignore[union-attr]
    before = all_rows(stack.db)
    twice = stack.client.post(nxt, json={"signup_closes": closes()}, headers=AUTH)
    refused(stack, twice, 409, "The next season of season 1 was already created", before)


def test_a_game_of_no_league_is_refused(embedded: Stack) -> None:
    game_id = create_tagged(embedded.db, 3, seed=96, tag=40).game_id
    organise.abandon(embedded.db, game_id, now=utcnow())
    before = all_rows(embedded.db)
    reply = embedded.client.post(f"/api/games/{game_id}/result", json={"ranking": ["red"]}, headers=AUTH)
    refused(embedded, reply, 409, f"Game {game_id} is not a league game", before)


# --- season sizes ----------------------------------------------------------------------------------------------------


def test_a_season_takes_its_sizes(stack: Stack) -> None:
    league_id = new_league(stack)["id"]
    created = new_season(stack, league_id, max_players=12, divisions=2, promote=1)
    assert created.status_code == 201
    with stack.db.session() as session:
        season = session.get(Season, created.json["id"])
        assert season is not None and (season.max_players, season.divisions, season.promote) == (12, 2, 1)
    plain = new_season(stack, league_id, max_players=None, divisions=None)
    assert plain.status_code == 201
    before = all_rows(stack.db)
    for fields, message in [
        ({"promote": 1}, "Promotion"),
        ({"divisions": 0}, "division"),
        ({"max_players": 2}, "player"),
        ({"max_players": "12"}, "max_players must be a whole number."),
        ({"divisions": 2.0}, "divisions must be a whole number."),
        ({"promote": None}, "promote must be a whole number."),
    ]:
        refused(stack, new_season(stack, league_id, **fields), 400, message, before)


# --- hostile bodies --------------------------------------------------------------------------------------------------


def test_no_body_of_any_shape_makes_a_500_nor_a_change(embedded: Stack) -> None:
    league_id, season_id, players = season_with_players(embedded)
    round_id = plan(embedded, season_id).json["id"]
    game_id = league_game(embedded.db, season_id, 2, seed=97, tag=7)
    organise.abandon(embedded.db, game_id, now=utcnow())
    bodies: list[Any] = [*HOSTILE, {"a": "x" * 70_000}, {"a": [1] * 10_000}, -1, 1e308, ""]
    bodies += [{"a": v, "b": v, "points": v, "ranking": v, "signup_closes": v} for v in HOSTILE]
    bodies += [{"points": {"red": v}} for v in HOSTILE] + [{"ranking": [v]} for v in HOSTILE]
    paths = [f"/api/rounds/{round_id}/swap", f"/api/games/{game_id}/result", f"/api/seasons/{season_id}/next"]
    before = all_rows(embedded.db)
    for body in bodies:
        for path in paths:
            reply = embedded.client.post(path, json=body, headers=AUTH)
            assert 400 <= reply.status_code < 500 and reply.is_json, (path, body, reply.status_code)
    for raw in RAW_BODIES:
        for path in paths:
            reply = embedded.client.post(path, data=raw, content_type="application/json", headers=AUTH)
            assert reply.status_code in (400, 413) and reply.json["ok"] is False, (path, reply.json)
    assert all_rows(embedded.db) == before
    assert league_id and players


# --- the command line ------------------------------------------------------------------------------------------------


def test_the_command_line_prints_standings_records_a_result_and_creates_the_next_season(embedded: Stack) -> None:
    env = cli_env(embedded)
    league_id, season_id = results_season(embedded.db, rounds=1)
    game_id = league_game(embedded.db, season_id, 1, seed=93)
    colours = list(seat_ids(embedded.db, game_id))
    points = ",".join(f"{c}={5 + i}" for i, c in enumerate(colours))
    early = run(env, "season", "next", "--season", str(season_id), "--signup-closes", closes())
    assert_clean_error(early, 1, "is not over yet")
    before = all_rows(embedded.db)
    assert_clean_error(run(env, "season", "record", "--game", str(game_id), "--points", points), 1, "not abandoned")
    organise.abandon(embedded.db, game_id, now=utcnow())
    before = all_rows(embedded.db)
    for given, message in [
        ("red=x", "give each colour once with its victory points"),
        (f"{colours[0]}=1,{colours[0]}=2", "give each colour once"),
        ("red", "give each colour once"),
        (f"{colours[0]}=3", "Give a result for every colour of the game"),
    ]:
        assert_clean_error(run(env, "season", "record", "--game", str(game_id), "--points", given), 1, message)
    assert_clean_error(run(env, "season", "standings", "--season", "9999"), 1, "There is no season 9999.")
    both = run(env, "season", "standings", "--season", str(season_id), "--csv", "--json")
    assert both.exit_code == 2 and "give --csv or --json, not both" in both.stderr
    assert all_rows(embedded.db) == before
    recorded = run(env, "season", "record", "--game", str(game_id), "--points", points, "--json")
    assert recorded.exit_code == 0, recorded.output
    assert json.loads(recorded.stdout) == {"game": game_id, "recorded": True, "points": dict(
        (c, 5 + i) for i, c in enumerate(colours))}  # fmt: skip
    again = run(env, "season", "record", "--game", str(game_id), "--points", points)
    assert_clean_error(again, 1, "is already recorded")
    text = run(env, "season", "standings", "--season", str(season_id))
    assert text.exit_code == 0 and text.stdout.startswith(f"season 1 of league {league_id} (over)\nstandings:\n  1. ")
    assert f"{5 + len(colours) - 1} victory points" in text.stdout.splitlines()[2]
    shown = json.loads(run(env, "season", "standings", "--season", str(season_id), "--json").stdout)
    assert all(r["email"].endswith("@example.org") for r in shown["divisions"][0]["rows"])
    listed = run(env, "season", "standings", "--season", str(season_id), "--csv")
    assert listed.stdout.splitlines() == standings.csv(embedded.db, season_id).splitlines()
    bad = run(env, "season", "next", "--season", str(season_id), "--signup-closes", "soon")
    assert_clean_error(bad, 2, "'soon': give a time such as")
    created = run(env, "season", "next", "--season", str(season_id), "--signup-closes", closes(), "--json")
    assert created.exit_code == 0, created.output
    out = json.loads(created.stdout)
    assert (out["league"], out["number"]) == (league_id, 2)
    twice = run(env, "season", "next", "--season", str(season_id), "--signup-closes", closes())
    assert_clean_error(twice, 1, "was already created")


def test_six_players_of_a_size_5_league_with_a_known_pair_are_planned_by_the_api(stack: Stack) -> None:
    """It answered 409 "cannot all sit at different tables", though 3 + 3 keeps the pair apart."""
    league_id, season_id, players = season_with_players(stack, 6, table_size=5)
    with stack.db.session() as session:
        entry = session.execute(sa.select(SeasonPlayer).where(SeasonPlayer.player_id == players[0])).scalar_one()
        entry.knows = ["p1@example.org"]
    planned = plan(stack, season_id, organiser_token(stack, league_id))
    assert planned.status_code == 201, planned.json
    tables = [[p["id"] for p in t["players"]] for t in planned.json["tables"]]
    assert sorted(map(len, tables)) == [3, 3] and not any({players[0], players[1]} <= set(t) for t in tables)


def test_a_league_is_created_with_its_organisers_address(stack: Stack) -> None:
    made = stack.client.post("/api/leagues", headers=AUTH, json={"name": "Org", "organiser_email": "Org@Example.org"})
    assert made.status_code == 201, made.json
    with stack.db.session() as session:
        league = session.get(League, made.json["id"])
        assert league is not None and league.organiser_email == "org@example.org"
    before = all_rows(stack.db)
    for bad in ("Org <org@example.org>", 12):
        refused_ = stack.client.post("/api/leagues", headers=AUTH, json={"name": "Org", "organiser_email": bad})
        assert refused_.status_code == 400 and refused_.json["ok"] is False, refused_.json
    assert all_rows(stack.db) == before


def test_a_season_whose_due_round_cannot_be_seated_says_so_in_the_api(stack: Stack) -> None:
    league_id, season_id, _ = unseatable_season(stack.db)
    shown = stack.client.get(f"/api/seasons/{season_id}", headers=organiser_token(stack, league_id))
    assert shown.status_code == 200 and shown.json["unseated"] is None
    rounds.sweep(stack.db, utcnow())
    stalled = stack.client.get(f"/api/seasons/{season_id}", headers=organiser_token(stack, league_id)).json
    assert stalled["unseated"]["round"] == 2 and "know each other" in stalled["unseated"]["reason"]


# --- ratings ---------------------------------------------------------------------------------------------------------


def test_ratings_are_read_by_the_organiser_per_league_and_by_each_player_for_themselves(stack: Stack) -> None:
    league_id, season_id, game_id = finished_season(stack, tag=6)
    people = {p.id: p for p in members(stack.db, game_id)}
    path = f"/api/leagues/{league_id}/ratings"
    reply = stack.client.get(path, headers=organiser_token(stack, league_id))
    assert reply.status_code == 200 and reply.json["league"] == league_id
    listed = reply.json["ratings"]
    assert {r["player"] for r in listed} == set(people)
    assert all((r["games"], r["new"], r["rating"], r["uncertainty"]) == (1, True, None, None) for r in listed)
    assert {r["name"] for r in listed} == {p.display_name for p in people.values()}
    with stack.db.session() as session:  # five games each: no longer new, shown as the pages show them
        session.execute(sa.update(RatingRow).values(games=5))
        stored = {(r.scope, r.player_id): r for r in session.execute(sa.select(RatingRow)).scalars()}
        expected = {k: ratings.shown(ratings.Rating(r.mu, r.sigma, r.games)) for k, r in stored.items()}
        session.expunge_all()
    listed = stack.client.get(path, headers=AUTH).json["ratings"]
    assert [(r["player"], r["rating"], r["uncertainty"]) for r in listed] == sorted(
        ((p, expected[(league_id, p)].ordinal, expected[(league_id, p)].uncertainty) for p in people),
        key=lambda t: (-(t[1] or 0), t[0]),
    )
    assert listed[0]["rating"] >= listed[-1]["rating"] and not listed[0]["new"]
    player = next(iter(people.values()))
    link = player_token(stack.settings.secret_key, player.id, player.link_generation)
    mine = stack.client.get(f"/api/p/{link}/leagues").json["ratings"]
    assert mine["all_games"] == {
        "rating": expected[(0, player.id)].ordinal, "uncertainty": expected[(0, player.id)].uncertainty,
        "new": False, "games": 5,
    }  # fmt: skip
    (league,) = mine["leagues"]
    assert league["league"] == {"id": league_id, "name": "Results"} and league["games"] == 5
    _, other_season, _ = season_with_players(stack, start=30, name="Other")
    with stack.db.session() as session:
        other = session.get(Season, other_season).league_id  # type: ignore[union-attr]
    before = all_rows(stack.db)
    token = organiser_token(stack, league_id)
    refused(stack, stack.client.get(f"/api/leagues/{other}/ratings", headers=token), 404, "There is no league", before)
    refused(stack, stack.client.get("/api/leagues/9999/ratings", headers=AUTH), 404, "There is no league 9999.", before)
    refused(stack, stack.client.get(path), 401, "This call needs the organiser's API token", before)
    assert season_id
