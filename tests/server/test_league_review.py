"""Defects found in reviewing the leagues (each test failed before its fix)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import sqlalchemy as sa

from server.db import Database
from server.models import Game, Player, RatingPoint, RatingRow, Season, SeasonPlayer, Seat
from server.services.leagues import rounds, schedule, seasons, stored_ratings
from server.services.links import league_token, player_token
from server.services.play import organise, outcome
from tests.conftest import Stack, _stack
from tests.server.test_replay import finish
from tests.server.test_results import league_game, make_season
from tests.server.test_rounds import enter, make_league, tables_of
from tests.server.test_rounds import make_season as make_season_of
from tests.support import T0, all_rows, create_tagged, seat_ids


def test_the_organiser_forms_refuse_non_ascii_digits_without_a_500(embedded: Stack) -> None:
    """``"²".isdigit()`` is true but ``int("²")`` fails: the game, points and days fields are refused, not a 500."""
    league_id, season_id = make_season(embedded.db, rounds=1)
    game_id = league_game(embedded.db, season_id, 1, seed=93)
    organise.abandon(embedded.db, game_id, now=T0)
    base = f"/lo/{league_token(embedded.settings.secret_key, 'organiser', league_id, 1)}/season/{season_id}"
    embedded.app.config["WTF_CSRF_ENABLED"] = False
    colours = list(seat_ids(embedded.db, game_id))
    assert embedded.client.get(f"{base}/results").status_code == 200  # (the standings' cache is written)
    before = all_rows(embedded.db)
    points = {f"points_{c}": "5" for c in colours}
    assert embedded.client.post(f"{base}/record", data={"game": "²", **points}).status_code == 422
    bad_points = {**points, f"points_{colours[0]}": "²"}
    assert embedded.client.post(f"{base}/record", data={"game": str(game_id), **bad_points}).status_code == 422
    assert embedded.client.post(f"{base}/next", data={"days": "²"}).status_code == 422
    assert all_rows(embedded.db) == before


def test_recording_a_result_for_another_leagues_game_tells_nothing_of_it(embedded: Stack) -> None:
    """The organiser of one league posting another league's game id is answered as for a game that is not there
    (not its colours, nor whether it is abandoned, recorded or a league game), and nothing changes."""
    league_id, season_id = make_season(embedded.db, rounds=1)
    _other_league, other_season = make_season(embedded.db, rounds=1)
    theirs = league_game(embedded.db, other_season, 1, seed=94, tag=2)
    organise.abandon(embedded.db, theirs, now=T0)
    base = f"/lo/{league_token(embedded.settings.secret_key, 'organiser', league_id, 1)}/season/{season_id}"
    embedded.app.config["WTF_CSRF_ENABLED"] = False
    assert embedded.client.get(f"{base}/results").status_code == 200
    before = all_rows(embedded.db)
    colours = list(seat_ids(embedded.db, theirs))
    points = {f"points_{c}": "5" for c in colours}
    answer = embedded.client.post(f"{base}/record", data={"game": str(theirs), **points})
    missing = embedded.client.post(f"{base}/record", data={"game": "999999", **points})
    assert answer.status_code == missing.status_code == 422
    assert "There is no game 999999." in missing.get_data(as_text=True)
    assert f"There is no game {theirs}." in answer.get_data(as_text=True)
    assert all_rows(embedded.db) == before
    with embedded.db.session() as session:
        game = session.get(Game, theirs)
        assert game is not None and game.status == "abandoned"


def test_a_players_games_page_never_names_someone_outside_the_season(embedded: Stack) -> None:
    """``…/season/<id>/games/<player id>``, for a member or at the public link: any id of a person not in the
    season shows no name (display names of the server's other players are not read by counting ids)."""
    league_id, season_id = make_season(embedded.db, rounds=1, standings_public=True)
    member_game = league_game(embedded.db, season_id, 1, seed=95, tag=3)
    stranger_game = create_tagged(embedded.db, 3, seed=96, tag=4).game_id
    with embedded.db.session() as session:
        member = session.execute(sa.select(Seat.player_id).where(Seat.game_id == member_game)).scalars().first()
        stranger = session.execute(sa.select(Seat.player_id).where(Seat.game_id == stranger_game)).scalars().first()
        assert member is not None and stranger is not None
        hidden = session.get(Player, stranger)
        assert hidden is not None
        hidden.display_name = "Zebedee Secret"
    secret = embedded.settings.secret_key
    urls = [
        f"/p/{player_token(secret, member, 1)}/season/{season_id}/games/{stranger}",
        f"/ls/{league_token(secret, 'public', league_id, 1)}/season/{season_id}/games/{stranger}",
    ]
    for url in urls:
        response = embedded.client.get(url)
        assert response.status_code in (200, 404) and "Zebedee" not in response.get_data(as_text=True)


def test_the_fixed_schedules_sweep_starts_the_tables_the_organiser_swapped(stack: Stack) -> None:
    """A round planned and swapped by the organiser before its fixed start is started as it stands (the sweep used
    to seat it again, losing the swap)."""
    league_id = make_league(stack.db, timezone="Europe/Rome")
    season = make_season_of(stack.db, league_id, schedule="fixed", rule={"weekday": 0, "time": "18:00"})
    enter(stack.db, season, 8)
    with stack.db.session() as session:
        s = session.get(Season, season)
        assert s is not None
        starts = schedule.round_starts(s.schedule_rule or {}, "Europe/Rome", s.signup_closes, s.rounds)
    planned = rounds.plan(stack.db, season, T0)
    first, second = tables_of(stack.db, planned)
    swapped = rounds.swap(stack.db, planned, first[0], second[0])
    assert rounds.sweep(stack.db, starts[0]) == 1
    assert tables_of(stack.db, planned) == swapped
    with stack.db.session() as session:
        seated = [
            sorted(session.execute(sa.select(Seat.player_id).where(Seat.game_id == game.id)).scalars())
            for game in session.execute(sa.select(Game).order_by(Game.id)).scalars()
        ]
    assert seated == [sorted(table) for table in swapped]


def _waiting_on_a_lock(db: Database) -> bool:
    with db.session() as session:
        query = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        return bool(session.execute(sa.text(query)).scalar_one())


def _rate_twice_at_once(db: Database, first: int, second: int, scope: int) -> None:
    """Rate ``first`` in one transaction and, while it is open, ``second`` in another (a thread): the second waits
    for the first (checked in PostgreSQL's own view of waiting sessions) before the first commits."""
    done: list[BaseException | None] = []

    def other() -> None:
        try:
            with db.session() as session:
                game = outcome.finished_game(session, second)
                assert game is not None
                stored_ratings._rate(session, game, scope, T0)
            done.append(None)
        except BaseException as exc:
            done.append(exc)

    with db.session() as session:
        game = outcome.finished_game(session, first)
        assert game is not None
        stored_ratings._rate(session, game, scope, T0)
        session.flush()
        thread = threading.Thread(target=other)
        thread.start()
        for _ in range(2000):  # until the other transaction waits on this one's rows (or has finished: the defect)
            if done or _waiting_on_a_lock(db):
                break
            time.sleep(0.005)
    thread.join()
    assert done == [None]


def test_two_games_ending_at_once_both_count_in_their_players_ratings(postgres_url: str, tmp_path: Path) -> None:
    """Two games of the same people ending in two transactions at once: each rating counts both (the second read
    the row before the first committed and overwrote it; a person's first rating was inserted twice)."""
    stack = _stack("production", tmp_path, postgres_url, "memory://")
    try:
        games = [create_tagged(stack.db, 3, seed=seed, tag=5).game_id for seed in (97, 98)]
        for game_id, seed in zip(games, (97, 98), strict=True):
            finish(stack.db, game_id, seed=seed)
        with stack.db.session() as session:
            people = sorted(session.execute(sa.select(Seat.player_id).where(Seat.game_id == games[0])).scalars())

        def counted(scope: int) -> list[int]:
            with stack.db.session() as session:
                found = sa.select(RatingRow.games).where(RatingRow.scope == scope, RatingRow.player_id.in_(people))
                return sorted(session.execute(found).scalars())

        assert counted(0) == [2, 2, 2]
        _rate_twice_at_once(stack.db, games[0], games[1], 7)  # nobody rated in scope 7 yet: rows inserted
        assert counted(7) == [2, 2, 2]
        with stack.db.session() as session:
            session.execute(sa.delete(RatingPoint).where(RatingPoint.scope == 0))
        _rate_twice_at_once(stack.db, games[0], games[1], 0)  # rows there: updated
        assert counted(0) == [4, 4, 4]
    finally:
        stack.db.dispose()


def test_a_player_who_withdrew_or_skips_after_the_round_was_planned_is_not_seated_at_its_start(stack: Stack) -> None:
    """The round's tables were planned before one player withdrew and another said they will miss it: starting it
    seats neither (it is planned again without them)."""
    season = make_season_of(stack.db, make_league(stack.db))
    ids = enter(stack.db, season, 10)
    planned = rounds.plan(stack.db, season, T0)
    with stack.db.session() as session:
        entries = {
            e.player_id: e.id
            for e in session.execute(sa.select(SeasonPlayer).where(SeasonPlayer.season_id == season)).scalars()
        }
    seasons.withdraw(stack.db, entries[ids[0]], T0)
    seasons.skip(stack.db, entries[ids[1]], 1, T0)
    rounds.start(stack.db, planned, T0)
    with stack.db.session() as session:
        seated = set(session.execute(sa.select(Seat.player_id)).scalars())
    assert ids[0] not in seated and ids[1] not in seated and seated == set(ids[2:])
