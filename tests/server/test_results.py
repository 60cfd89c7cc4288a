"""Results, standings and stored ratings: ``services/leagues/`` (``game_end``, ``stored_ratings``, ``standings``,
``round_end``, ``recorded``, ``promotion``, ``reading``) and their pages."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from openskill.models import PlackettLuce

from server.db import Database
from server.models import (
    EntryStatus,
    Game,
    LeagueResult,
    LeagueRound,
    MailKind,
    Player,
    RatingPoint,
    RatingRow,
    RoundStatus,
    Season,
    SeasonPlayer,
    SeasonStandingRow,
    SeasonStandings,
    SeasonStatus,
    Seat,
)
from server.services import hub
from server.services.leagues import promotion, ratings, recorded, scoring, seasons, standings
from server.services.leagues.seasons import LeagueSpec
from server.services.links import league_token, player_token
from server.services.play import organise, places
from server.services.play.outcome import finished_game, finished_games
from tests.conftest import Stack
from tests.server.test_hub import expected_games
from tests.server.test_replay import finish
from tests.support import AUTH, T0, all_rows, compose, create_tagged, mail_settings, rows_of_kind, seat_ids, text_of

DAY = timedelta(days=1)


def make_season(db: Database, rounds: int = 2, **fields: Any) -> tuple[int, int]:
    league_id = seasons.create_league(db, LeagueSpec(**{"name": "Results", **fields}), now=T0)
    season_id = seasons.create_season(db, league_id, T0 + DAY, rounds, "when_over", None, now=T0)
    with db.session() as session:
        season = session.get(Season, season_id)
        assert season is not None
        season.status = SeasonStatus.RUNNING
    return league_id, season_id


def league_game(db: Database, season_id: int, number: int, seed: int, tag: int = 1, people: int = 3) -> int:
    """A started round ``number`` (made when missing) with one more game of ``people`` (players p0.<tag>…), whose
    players are confirmed in the season."""
    created = create_tagged(db, people, seed=seed, tag=tag)
    with db.session() as session:
        found = session.execute(
            sa.select(LeagueRound).where(LeagueRound.season_id == season_id, LeagueRound.number == number)
        ).scalar_one_or_none()
        if found is None:
            found = LeagueRound(season_id=season_id, number=number, status=RoundStatus.STARTED, started_at=T0)
            session.add(found)
            session.flush()
        game = session.get(Game, created.game_id)
        assert game is not None
        game.round_id = found.id
        for seat in game.seats:
            known = session.execute(
                sa.select(SeasonPlayer).where(
                    SeasonPlayer.season_id == season_id, SeasonPlayer.player_id == seat.player_id
                )
            ).scalar_one_or_none()
            if known is None and seat.player_id is not None:
                session.add(SeasonPlayer(season_id=season_id, player_id=seat.player_id, status=EntryStatus.CONFIRMED))
    return created.game_id


def results_of(db: Database, game_id: int) -> dict[str, LeagueResult]:
    with db.session() as session:
        found = session.execute(sa.select(LeagueResult).where(LeagueResult.game_id == game_id)).scalars().all()
        session.expunge_all()
        return {r.colour: r for r in found}


def season_row(db: Database, season_id: int) -> Season:
    with db.session() as session:
        season = session.get(Season, season_id)
        assert season is not None
        session.expunge(season)
        return season


def test_a_league_game_ending_writes_results_ratings_and_ends_the_round_and_season_with_mails_once(
    stack: Stack,
) -> None:
    league_id, season_id = make_season(stack.db)
    first = league_game(stack.db, season_id, 1, seed=81)
    finish(stack.db, first, seed=81)
    written = results_of(stack.db, first)
    outcome = stack.db.session
    with outcome() as session:
        game = session.get(Game, first)
        assert game is not None and game.outcome is not None
        scores = game.outcome["scores"]
        holders = {s.colour: s.player_id for s in game.seats}
    assert {c: (r.points, r.player_id, r.ending) for c, r in written.items()} == {
        c: (scores[c], holders[c], "played") for c in scores
    }
    assert season_row(stack.db, season_id).results_version == 1
    # ratings, in both scopes, with a point each
    with stack.db.session() as session:
        stored = session.execute(sa.select(RatingRow.scope, sa.func.count()).group_by(RatingRow.scope)).all()
        points = session.execute(sa.select(sa.func.count()).select_from(RatingPoint)).scalar_one()
    assert dict(stored) == {0: 3, league_id: 3} and points == 6
    # the round is over: one results mail per player, the season goes on
    mails = rows_of_kind(stack.db, MailKind.LEAGUE_RESULTS)
    assert sorted(r.key for r in mails) == sorted(f"results:{mails[0].payload['round']}:{p}" for p in holders.values())
    assert season_row(stack.db, season_id).status == SeasonStatus.RUNNING
    message = compose(stack.db, mails[0].id, mail_settings(stack.settings), now=T0)
    assert message is not None
    text = text_of(message)
    assert "the results of round 1, season 1" in str(message["Subject"])
    assert f"Game {first}: 1. " in text and "Standings:" in text and "/season/" in text
    # a game's places carry its victory points, the standings the league's points, each named
    assert re.search(rf"Game {first}: 1\. [^,]+ \(\d+ victory points?\), 2\. ", text), text
    assert re.search(r"\n1\. [^\n]+: \d+(\.\d+)? league points? \(\d games?\)", text), text
    # the last round: season over, the end mails, and nothing mailed twice
    second = league_game(stack.db, season_id, 2, seed=82)
    finish(stack.db, second, seed=82)
    assert season_row(stack.db, season_id).status == SeasonStatus.OVER
    ends = rows_of_kind(stack.db, MailKind.SEASON_END)
    assert len(ends) == 3 and len(rows_of_kind(stack.db, MailKind.LEAGUE_RESULTS)) == 6
    message = compose(stack.db, ends[0].id, mail_settings(stack.settings), now=T0)
    assert message is not None and "season 1 is over" in str(message["Subject"])
    assert "You finished in place" in text_of(message)


def test_stored_ratings_equal_rate_games_and_openskill_called_directly(embedded: Stack) -> None:
    _league, season_id = make_season(embedded.db, rounds=3)
    ids = [league_game(embedded.db, season_id, 1, seed=90 + n, tag=5) for n in range(2)]
    for n, game_id in enumerate(ids):
        finish(embedded.db, game_id, seed=90 + n)
    games = expected_games(embedded.db, ids)
    expected: dict[int, ratings.Rating] = {}
    for game in games:
        ratings.rate_game(expected, game)
    with embedded.db.session() as session:
        stored = {r.player_id: (r.mu, r.sigma, r.games) for r in session.execute(sa.select(RatingRow)).scalars()}
        assert [finished_game(session, i) for i in ids] == finished_games(session)
    for player_id, rating in expected.items():
        assert stored[player_id] == pytest.approx((rating.mu, rating.sigma, 2))
    # the first game, by openskill itself
    model = PlackettLuce()
    first = games[0]
    teams = [[model.rating()] for _ in first.seats]
    rated = model.rate(teams, ranks=[float(s.placement) for s in first.seats])
    with embedded.db.session() as session:
        after = session.execute(sa.select(RatingPoint).where(RatingPoint.game_id == first.id)).scalars().all()
        got = {p.player_id: (p.mu, p.sigma) for p in after}
    for seat, [team] in zip(first.seats, rated, strict=True):
        assert got[seat.tenures[0].player_id] == pytest.approx((team.mu, team.sigma))
    # the hub reads the stored rating
    player = games[0].seats[0].tenures[0].player_id
    assert player is not None
    assert hub.rating(embedded.db, player) is not None


def test_a_seat_on_autopilot_and_a_substituted_seat_are_credited_by_the_forfeit_rule(embedded: Stack) -> None:
    _league, season_id = make_season(embedded.db, rounds=1, forfeit="zero")
    game_id = league_game(embedded.db, season_id, 1, seed=95, people=4)
    seats = seat_ids(embedded.db, game_id)
    with embedded.db.session() as session:
        starters = {s.colour: s.player_id for s in session.get(Game, game_id).seats}  # type: ignore[union-attr]
        autopiloted = session.get(Seat, seats["yellow"])
        assert autopiloted is not None
        autopiloted.autopilot_at = T0
    colours = list(starters)
    substituted = next(c for c in colours if c != "yellow")
    organise.replace_seat(
        embedded.db,
        game_id,
        substituted,
        player=organise.PlayerSpec(name="Sub", email="sub@example.org"),
        now=T0,
    )
    finish(embedded.db, game_id, seed=95)
    written = results_of(embedded.db, game_id)
    assert written["yellow"].ending == "autopilot" and written["yellow"].player_id == starters["yellow"]
    sub = written[substituted]
    assert sub.ending == "substituted" and sub.player_id == starters[substituted] and sub.substitute_id is not None
    table = standings.standings(embedded.db, season_id)
    rows = {row["player"]: row for row in table.rows()}
    for colour in ("yellow", substituted):
        assert rows[starters[colour]]["points"] == 0 and rows[starters[colour]]["average_place"] is None
    assert [row["player"] for row in table.substitutes] == [sub.substitute_id]
    assert sub.substitute_id not in rows


def stored_rows(db: Database, season_id: int) -> list[tuple[int, int, int]]:
    with db.session() as session:
        found = session.execute(
            sa.select(SeasonStandingRow.tab, SeasonStandingRow.position, SeasonStandingRow.player_id)
            .where(SeasonStandingRow.season_id == season_id)
            .order_by(SeasonStandingRow.tab, SeasonStandingRow.position)
        ).all()
    return [tuple(row) for row in found]


def test_the_standings_are_stored_as_the_result_arrives_read_while_fresh_and_recomputed_when_stale(
    embedded: Stack,
) -> None:
    _league, season_id = make_season(embedded.db, rounds=2)
    game_id = league_game(embedded.db, season_id, 1, seed=83)
    finish(embedded.db, game_id, seed=83)
    with embedded.db.session() as session:  # stored by the game's end, before anyone reads them
        cached = session.get(SeasonStandings, season_id)
        assert cached is not None and cached.version == 1
        assert cached.rows == {"divisions": [{"name": None, "count": 3}], "substitutes": 0}
    stored = stored_rows(embedded.db, season_id)
    assert [(tab, position) for tab, position, _player in stored] == [(0, 0), (0, 1), (0, 2)]
    table = standings.standings(embedded.db, season_id)
    assert [row["player"] for row in table.rows()] == [player for _tab, _pos, player in stored]
    assert table.version == 1
    with embedded.db.session() as session:
        session.execute(sa.delete(SeasonStandingRow).where(SeasonStandingRow.season_id == season_id))
    assert standings.standings(embedded.db, season_id).rows() == []  # fresh: the stored rows, as stored
    with embedded.db.session() as session:
        season = session.get(Season, season_id)
        assert season is not None
        season.results_version += 1
    again = standings.standings(embedded.db, season_id)
    assert again.rows() == table.rows() and again.version == 2
    assert stored_rows(embedded.db, season_id) == stored


def test_a_standings_page_reads_its_rows_and_the_readers_own_row(
    embedded: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    _league, season_id = make_season(embedded.db, rounds=2)
    finish(embedded.db, league_game(embedded.db, season_id, 1, seed=83), seed=83)
    whole = standings.standings(embedded.db, season_id).rows()
    monkeypatch.setattr(standings, "PAGE", 2)
    first, mine = standings.standings_page(embedded.db, season_id, 0, whole[2]["player"])
    assert first.rows() == whole[:2] and first.more == [True, False] and mine == whole[2]
    second, nobody = standings.standings_page(embedded.db, season_id, 1, 999_999)
    assert second.rows() == whole[2:] and second.more == [False, False] and nobody is None
    beyond, _ = standings.standings_page(embedded.db, season_id, 5)
    assert beyond.rows() == [] and [name for name, _rows in beyond.divisions] == [None]


def test_record_result_refusals_change_nothing_then_it_records_and_ends_the_round(embedded: Stack) -> None:
    _league, season_id = make_season(embedded.db, rounds=1)
    loose = create_tagged(embedded.db, 3, seed=84, tag=7).game_id
    running = league_game(embedded.db, season_id, 1, seed=85)
    abandoned = league_game(embedded.db, season_id, 1, seed=86, tag=2)
    organise.abandon(embedded.db, abandoned, now=T0)
    organise.abandon(embedded.db, running, now=T0)
    colours = list(seat_ids(embedded.db, abandoned))
    points = {c: 10 - i for i, c in enumerate(colours)}
    for game_id, given, message in (
        (loose, points, "not a league game"),
        (9999, points, "There is no game"),
        (abandoned, {colours[0]: 3}, "Give a result for every colour"),
        (abandoned, {c: -1 for c in colours}, "Give a result for every colour"),
    ):
        before = all_rows(embedded.db)
        with pytest.raises(standings.ResultError, match=message):
            recorded.record_result(embedded.db, game_id, given, T0)
        assert all_rows(embedded.db) == before
    recorded.record_result(embedded.db, abandoned, points, T0)
    written = results_of(embedded.db, abandoned)
    assert all(r.recorded for r in written.values()) and written[colours[0]].winner
    assert season_row(embedded.db, season_id).status == SeasonStatus.RUNNING  # the other game has no result yet
    before = all_rows(embedded.db)
    with pytest.raises(standings.ResultError, match="already recorded"):
        recorded.record_result(embedded.db, abandoned, points, T0)
    assert all_rows(embedded.db) == before
    recorded.record_result(embedded.db, running, colours, T0)  # a ranking, best first
    assert season_row(embedded.db, season_id).status == SeasonStatus.OVER
    assert len(rows_of_kind(embedded.db, MailKind.SEASON_END)) == 6


def test_record_result_of_a_game_not_abandoned_changes_nothing(embedded: Stack) -> None:
    _league, season_id = make_season(embedded.db, rounds=1)
    game_id = league_game(embedded.db, season_id, 1, seed=87)
    before = all_rows(embedded.db)
    with pytest.raises(standings.ResultError, match="was not abandoned"):
        recorded.record_result(embedded.db, game_id, list(seat_ids(embedded.db, game_id)), T0)
    assert all_rows(embedded.db) == before


def test_next_season_carries_players_over_pending_with_promotion_and_relegation(embedded: Stack) -> None:
    """Two divisions of three, promote 1: the winner of division 2 goes up, the last of division 1 down."""
    league_id, season_id = make_season(embedded.db, rounds=1)
    top = league_game(embedded.db, season_id, 1, seed=88, tag=11)
    bottom = league_game(embedded.db, season_id, 1, seed=89, tag=12)
    with embedded.db.session() as session:
        season = session.get(Season, season_id)
        assert season is not None
        season.divisions, season.promote = 2, 1
        for game_id, division in ((top, "1"), (bottom, "2")):
            for seat in session.get(Game, game_id).seats:  # type: ignore[union-attr]
                entry = session.execute(
                    sa.select(SeasonPlayer).where(
                        SeasonPlayer.season_id == season_id, SeasonPlayer.player_id == seat.player_id
                    )
                ).scalar_one()
                entry.division = division
    for game_id in (top, bottom):
        organise.abandon(embedded.db, game_id, now=T0)
        colours = list(seat_ids(embedded.db, game_id))
        recorded.record_result(embedded.db, game_id, colours, T0)
    table = standings.standings(embedded.db, season_id)
    assert [name for name, _rows in table.divisions] == ["1", "2"]
    first, second = (rows for _name, rows in table.divisions)
    with pytest.raises(standings.ResultError, match="future"):
        promotion.next_season(embedded.db, season_id, T0, T0)
    created = promotion.next_season(embedded.db, season_id, T0 + 7 * DAY, T0)
    with embedded.db.session() as session:
        entries = {
            e.player_id: (e.status, e.division)
            for e in session.execute(sa.select(SeasonPlayer).where(SeasonPlayer.season_id == created)).scalars()
        }
        new = session.get(Season, created)
        assert new is not None and new.previous_id == season_id and new.number == 2 and new.divisions == 2
    expected = {row["player"]: "1" for row in first} | {row["player"]: "2" for row in second}
    expected[first[-1]["player"]] = "2"
    expected[second[0]["player"]] = "1"
    assert entries == {p: (EntryStatus.PENDING, d) for p, d in expected.items()}
    assert len(rows_of_kind(embedded.db, MailKind.LEAGUE_CONFIRM)) == 6
    with pytest.raises(standings.ResultError, match="already created"):
        promotion.next_season(embedded.db, season_id, T0 + 7 * DAY, T0)
    assert league_id


# --- pages --------------------------------------------------------------------------------------------------------


def _finished_season(stack: Stack, **fields: Any) -> tuple[int, int, int]:
    league_id, season_id = make_season(stack.db, rounds=1, **fields)
    game_id = league_game(stack.db, season_id, 1, seed=91)
    finish(stack.db, game_id, seed=91)
    return league_id, season_id, game_id


def test_members_see_the_standings_and_others_are_refused(embedded: Stack) -> None:
    _league, season_id, game_id = _finished_season(embedded)
    secret = embedded.settings.secret_key
    with embedded.db.session() as session:
        member = session.execute(sa.select(Seat.player_id).where(Seat.game_id == game_id)).scalars().first()
    outsider = create_tagged(embedded.db, 3, seed=92, tag=30).game_id
    with embedded.db.session() as session:
        stranger = session.execute(sa.select(Seat.player_id).where(Seat.game_id == outsider)).scalars().first()
    assert member is not None and stranger is not None
    response = embedded.client.get(f"/p/{player_token(secret, member, 1)}/season/{season_id}")
    assert response.status_code == 200
    text = response.get_data(as_text=True)
    assert "Results, season 1" in text and "P0" in text and f"/season/{season_id}/games/{member}" in text
    games = embedded.client.get(f"/p/{player_token(secret, member, 1)}/season/{season_id}/games/{member}")
    body = games.get_data(as_text=True)
    assert games.status_code == 200 and f"game {game_id}" in body and "/replay" in body
    other = next(p for p in _players(embedded.db, season_id) if p != member)
    theirs = embedded.client.get(f"/p/{player_token(secret, member, 1)}/season/{season_id}/games/{other}")
    assert theirs.status_code == 200 and "/replay" not in theirs.get_data(as_text=True)
    refused = embedded.client.get(f"/p/{player_token(secret, stranger, 1)}/season/{season_id}")
    assert refused.status_code == 403 and "Results, season 1" not in refused.get_data(as_text=True)
    # who withdrew after playing still sees the season; who withdrew without playing a game of it does not
    with embedded.db.session() as session:
        session.add(SeasonPlayer(season_id=season_id, player_id=stranger, status="withdrawn", created_at=T0))
        entry = session.execute(
            sa.select(SeasonPlayer).where(SeasonPlayer.season_id == season_id, SeasonPlayer.player_id == member)
        ).scalar_one()
        entry.status = "withdrawn"
    assert embedded.client.get(f"/p/{player_token(secret, member, 1)}/season/{season_id}").status_code == 200
    assert embedded.client.get(f"/p/{player_token(secret, stranger, 1)}/season/{season_id}").status_code == 403


def _players(db: Database, season_id: int) -> list[int]:
    with db.session() as session:
        return list(
            session.execute(sa.select(SeasonPlayer.player_id).where(SeasonPlayer.season_id == season_id)).scalars()
        )


def test_the_public_link_shows_standings_only_when_public_and_not_once_revoked(embedded: Stack) -> None:
    league_id, season_id, game_id = _finished_season(embedded, standings_public=True)
    secret = embedded.settings.secret_key
    url = f"/ls/{league_token(secret, 'public', league_id, 1)}"
    response = embedded.client.get(url)
    text = response.get_data(as_text=True)
    assert response.status_code == 200 and "Results, season 1" in text and "P0" in text
    player = _players(embedded.db, season_id)[0]
    games = embedded.client.get(f"{url}/season/{season_id}/games/{player}")
    assert games.status_code == 200 and f"game {game_id}" in games.get_data(as_text=True)
    assert "/s/" not in games.get_data(as_text=True)
    seasons.revoke(embedded.db, league_id, "public")
    assert embedded.client.get(url).status_code in (403, 404)
    new = f"/ls/{league_token(secret, 'public', league_id, 2)}"
    assert embedded.client.get(new).status_code == 200
    private_league, _season, _game = _finished_season(embedded)
    hidden = embedded.client.get(f"/ls/{league_token(secret, 'public', private_league, 1)}")
    assert hidden.status_code == 403 and "players only" in hidden.get_data(as_text=True)


def test_the_organiser_downloads_the_csv_records_a_result_and_creates_the_next_season(embedded: Stack) -> None:
    league_id, season_id = make_season(embedded.db, rounds=1)
    game_id = league_game(embedded.db, season_id, 1, seed=93)
    organise.abandon(embedded.db, game_id, now=T0)
    secret = embedded.settings.secret_key
    base = f"/lo/{league_token(secret, 'organiser', league_id, 1)}/season/{season_id}"
    embedded.app.config["WTF_CSRF_ENABLED"] = False
    page = embedded.client.get(f"{base}/results").get_data(as_text=True)
    assert f"abandoned game {game_id}" in page
    colours = list(seat_ids(embedded.db, game_id))
    before = all_rows(embedded.db)
    bad = embedded.client.post(f"{base}/record", data={"game": game_id, **{f"points_{c}": "x" for c in colours}})
    assert bad.status_code == 422 and all_rows(embedded.db) == before
    form = {"game": str(game_id), **{f"points_{c}": str(5 + i) for i, c in enumerate(colours)}}
    assert embedded.client.post(f"{base}/record", data=form).status_code == 303
    response = embedded.client.get(f"{base}/standings.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert rows[0] == list(scoring.CSV_HEADER) and len(rows) == 4
    assert embedded.client.post(f"{base}/next", data={"days": "0"}).status_code == 422
    assert embedded.client.post(f"{base}/next", data={"days": "10"}).status_code == 303
    with embedded.db.session() as session:
        assert session.execute(sa.select(Season.id).where(Season.previous_id == season_id)).scalar_one()
    other = f"/lo/{league_token(secret, 'organiser', league_id + 1, 1)}/season/{season_id}/standings.csv"
    assert embedded.client.get(other).status_code in (403, 404)


def test_a_post_without_the_csrf_token_is_refused(embedded: Stack) -> None:
    league_id, season_id = make_season(embedded.db, rounds=1)
    secret = embedded.settings.secret_key
    base = f"/lo/{league_token(secret, 'organiser', league_id, 1)}/season/{season_id}"
    before = all_rows(embedded.db)
    assert embedded.client.post(f"{base}/next", data={"days": "10"}).status_code == 400
    assert all_rows(embedded.db) == before


def test_points_and_places_are_written_in_the_readers_language() -> None:
    from server.present.standings import number

    assert [number("en", 0.75), number("it", 0.75), number("pl", 1.5)] == ["0.75", "0,75", "1,5"]
    assert [number("it", 2.0), number("pl", 12.333), number("en", None)] == ["2", "12,33", "–"]


# --- results recorded as a ranking ------------------------------------------------------------------------------------


def _token(db: Database, secret: str, player_id: int) -> str:
    with db.session() as session:
        player = session.get(Player, player_id)
        assert player is not None
        return player_token(secret, player.id, player.link_generation)


def test_a_result_recorded_as_a_ranking_invents_no_victory_points(stack: Stack) -> None:
    """A ranking places the seats and gives no victory points: none in the standings' column (JSON null, CSV empty,
    "–" on the page, "-" on the command line), none in the victory-points tie-break, none in the round's mail and the
    player's games; a league scoring victory points refuses a ranking."""
    _league, season_id = make_season(stack.db, rounds=1, tie_breaks=["victory_points", "wins"])
    played = league_game(stack.db, season_id, 1, seed=81, tag=1)
    ranked = league_game(stack.db, season_id, 1, seed=82, tag=2)
    finish(stack.db, played, seed=81)
    organise.abandon(stack.db, ranked, now=T0)
    colours = list(seat_ids(stack.db, ranked))[::-1]
    reply = stack.client.post(f"/api/games/{ranked}/result", json={"ranking": colours}, headers=AUTH)
    assert reply.status_code == 200, reply.json
    written = results_of(stack.db, ranked)
    by_place = [written[c].player_id for c in colours]
    assert [written[c].winner for c in colours] == [True, False, False]
    rows = stack.client.get(f"/api/seasons/{season_id}/standings", headers=AUTH).json["divisions"][0]["rows"]
    shown = {r["player"]: r for r in rows}
    assert [(shown[p]["victory_points"], shown[p]["points"], shown[p]["wins"]) for p in by_place] == [
        (None, 1.0, 1),
        (None, 0.5, 0),
        (None, 0.0, 0),
    ]
    players = results_of(stack.db, played)
    assert all(isinstance(shown[r.player_id]["victory_points"], int) for r in players.values())
    table = list(csv.DictReader(io.StringIO(standings.csv(stack.db, season_id))))
    assert {row["victory_points"] for row in table if int(row["player"]) in by_place} == {""}
    page = stack.client.get(f"/p/{_token(stack.db, stack.settings.secret_key, by_place[0])}/season/{season_id}")
    assert page.status_code == 200 and "<td>–</td>" in page.get_data(as_text=True)
    games = stack.client.get(
        f"/p/{_token(stack.db, stack.settings.secret_key, by_place[0])}/season/{season_id}/games/{by_place[0]}"
    )
    assert "place 1 of 3, recorded without victory points" in games.get_data(as_text=True)
    (mail,) = [r for r in rows_of_kind(stack.db, MailKind.LEAGUE_RESULTS) if r.player_id == by_place[0]]
    message = compose(stack.db, mail.id, mail_settings(stack.settings), now=T0)
    assert message is not None
    text = text_of(message)
    assert f"Game {ranked}: 1. " in text and "(-1)" not in text and "(3)" not in text
    # a league scoring victory points: a ranking is refused, nothing changed
    _other, vp_season = make_season(stack.db, rounds=1, name="By points", scoring="victory_points")
    game_id = league_game(stack.db, vp_season, 1, seed=83, tag=3)
    organise.abandon(stack.db, game_id, now=T0)
    before = all_rows(stack.db)
    reply = stack.client.post(
        f"/api/games/{game_id}/result", json={"ranking": list(seat_ids(stack.db, game_id))}, headers=AUTH
    )
    assert reply.status_code == 400 and "scores the game's victory points" in reply.json["error"]
    assert all_rows(stack.db) == before


def test_the_victory_points_tie_break_ignores_a_ranking() -> None:
    """Two players level on placement points: the one with real victory points is ahead of one whose only game was
    recorded as a ranking (which would have "scored" 3 had the ranking been turned into victory points)."""
    seat = scoring.SeatResult
    games = [
        scoring.GameResult(
            1, (seat("red", -1, 0, True, 1), seat("blue", -2, 0, False, 3), seat("green", -3, 0, False, 4))
        ),
        scoring.GameResult(
            2, (seat("red", 2, 0, True, 2), seat("blue", 1, 0, False, 5), seat("green", 0, 0, False, 6))
        ),
    ]
    rows = scoring.standings(games, "placement", ("victory_points",))
    assert [(r.player, r.rank, r.victory_points) for r in rows[:2]] == [(2, 1, 2), (1, 2, None)]
    assert scoring.standings_csv(rows).splitlines()[2].split(",")[8] == ""


def test_a_recorded_result_feeds_the_ratings_like_a_played_game(stack: Stack) -> None:
    league_id, season_id = make_season(stack.db, rounds=1)
    game_id = league_game(stack.db, season_id, 1, seed=84, tag=4)
    organise.abandon(stack.db, game_id, now=T0)
    colours = list(seat_ids(stack.db, game_id))
    points = {c: 20 - 3 * i for i, c in enumerate(colours)}
    recorded.record_result(stack.db, game_id, points, T0 + DAY)
    with stack.db.session() as session:
        holders = dict(session.execute(sa.select(Seat.colour, Seat.player_id).where(Seat.game_id == game_id)).all())
        stored = {
            (r.scope, r.player_id): (r.mu, r.sigma, r.games) for r in session.execute(sa.select(RatingRow)).scalars()
        }
        history = session.execute(sa.select(RatingPoint.scope, RatingPoint.game_id, RatingPoint.finished_at)).all()
    expected: dict[int, ratings.Rating] = {}
    seats = tuple(places.SeatResult(i, (places.Tenure(holders[c], 1.0),)) for i, c in enumerate(colours, start=1))
    ratings.rate_game(expected, places.FinishedGame(game_id, T0 + DAY, seats))
    for scope in (0, league_id):
        for player_id, rating in expected.items():
            assert stored[(scope, player_id)] == pytest.approx((rating.mu, rating.sigma, 1))
    assert sorted(history) == sorted((s, game_id, T0 + DAY) for s in (0, league_id) for _ in holders)
    best, worst = holders[colours[0]], holders[colours[-1]]
    assert stored[(league_id, best)][0] > stored[(league_id, worst)][0]
