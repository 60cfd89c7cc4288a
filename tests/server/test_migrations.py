"""The Alembic migrations, checked by pytest-alembic's standard tests on SQLite (batch mode) and PostgreSQL:
one head, upgrade from nothing to head, the models match what the migrations build, and every step goes down and
up again; and the data a migration moves is carried (0004: standing orders into the engine's log, the last event
mailed to a seat into the count of events of its view)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.config import Config
from pytest_alembic import MigrationContext
from pytest_alembic.tests import (
    test_model_definitions_match_ddl,
    test_single_head_revision,
    test_up_down_consistency,
    test_upgrade,
)
from sqlalchemy.orm import Session

import engine
from engine.bots import RandomBot, play_game
from server.run.migrate import alembic_config as make_alembic_config

__all__ = [
    "test_model_definitions_match_ddl",
    "test_single_head_revision",
    "test_up_down_consistency",
    "test_upgrade",
]


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'migrations.db'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def alembic_config(database_url: str) -> Config:
    return make_alembic_config(database_url)


@pytest.fixture
def alembic_engine(database_url: str) -> Iterator[sa.Engine]:
    engine = sa.create_engine(database_url, poolclass=sa.pool.NullPool)
    yield engine
    engine.dispose()


def test_the_engine_under_test_is_empty_and_of_its_kind(alembic_engine: sa.Engine, database_url: str) -> None:
    """The standard tests above start from an empty database of the parametrized kind (not a shared one)."""
    assert alembic_engine.dialect.name == database_url.split(":", 1)[0].split("+", 1)[0]
    assert sa.inspect(alembic_engine).get_table_names() == []


def test_head_builds_every_table_of_the_models(alembic_runner: MigrationContext, alembic_engine: sa.Engine) -> None:
    from server.models import Base

    alembic_runner.migrate_up_to("heads")
    tables = set(sa.inspect(alembic_engine).get_table_names())
    assert tables == set(Base.metadata.tables) | {"alembic_version"}
    alembic_runner.migrate_down_to("base")
    assert set(sa.inspect(alembic_engine).get_table_names()) <= {"alembic_version"}


# --- 0004: standing orders move into the engine's log; seats count the events of their view they were told -------

T = datetime(2030, 5, 6, 7, 8)
ORDER = ["pinup", "gunman", "tough", "girl"]


def after_each_window(seed: int, windows: int) -> list[engine.Game]:
    """A 3-player game of random bots, as it stood after each of its first ``windows`` windows (copies)."""
    eng = engine.new_game(["yellow", "red", "blue"], seed=seed)
    bots = {colour: RandomBot(i) for i, colour in enumerate(eng.players)}
    states = []
    for _ in range(windows):
        for req in eng.pending():
            eng.answer(req.player, req.kind, bots[req.player].decide(eng, req))
        states.append(engine.Game.from_json(eng.to_json()))
    return states


def insert_ann(conn: sa.Connection, players: sa.Table | None = None) -> int:
    """A player row as every revision stores one (Ann); returns its id."""
    players = sa.Table("players", sa.MetaData(), autoload_with=conn) if players is None else players
    player_id: int = conn.execute(
        players.insert()
        .values(email="ann@example.org", display_name="Ann", language="en", timezone="UTC", created_at=T)
        .returning(players.c.id)
    ).scalar_one()
    return player_id


def insert_game(conn: sa.Connection, tables: sa.MetaData, eng: engine.Game, status: str) -> int:
    """A game row as the server of revision 0003 stored it: its engine state and every event, with who sees it."""
    games, events = tables.tables["games"], tables.tables["events"]
    game_id: int = conn.execute(
        games.insert()
        .values(
            title="",
            status=status,
            options={},
            seed=eng.config.seed,
            tempo={},
            state=eng.to_json(),
            version=eng.window_no,
            round=eng.round,
            phase=eng.phase,
            created_at=T,
            updated_at=T,
        )
        .returning(games.c.id)
    ).scalar_one()
    conn.execute(
        events.insert(),
        [
            {
                "game_id": game_id,
                "seq": seq,
                "round": 0,
                "type": event["type"],
                "data": {k: v for k, v in event.items() if k not in ("type", "to")},
                "visible_to": event.get("to"),
                "created_at": T,
            }
            for seq, event in enumerate(eng.events)
        ],
    )
    return game_id


def insert_seats(conn: sa.Connection, tables: sa.MetaData, game_id: int, seats: dict[str, dict[str, Any]]) -> None:
    rows = [
        {"game_id": game_id, "position": i, "colour": colour, "link_generation": 1, **columns}
        for i, (colour, columns) in enumerate(seats.items())
    ]
    conn.execute(tables.tables["seats"].insert(), rows)


def seats_of(conn: sa.Connection, game_id: int, *columns: str) -> dict[str, tuple[Any, ...]]:
    found = conn.execute(sa.text(f"SELECT colour, {', '.join(columns)} FROM seats WHERE game_id = :g"), {"g": game_id})
    return {colour: tuple(rest) for colour, *rest in found}


def state_of(conn: sa.Connection, game_id: int) -> tuple[dict[str, Any], int]:
    games = sa.Table("games", sa.MetaData(), autoload_with=conn)
    state, version = conn.execute(sa.select(games.c.state, games.c.version).where(games.c.id == game_id)).one()
    return state, version


def test_0004_gives_stored_orders_to_the_engine_and_counts_the_events_each_seat_was_told(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    alembic_runner.migrate_up_to("0003")
    states = after_each_window(seed=5, windows=8)
    told_at, running = states[2], states[-1]  # mails went out after window 3; the game went on to window 9
    last = len(told_at.events) - 1
    assert told_at.events[last].get("to") == ["blue"]  # the last event mailed is blue's alone
    assert not any(r.kind == "victim" for r in running.pending())  # no order can answer anything here
    finished = engine.new_game(["yellow", "red", "blue"], seed=6)
    play_game(finished, {colour: RandomBot(i) for i, colour in enumerate(finished.players)})
    with alembic_engine.begin() as conn:
        tables = sa.MetaData()
        tables.reflect(conn)
        game_id = insert_game(conn, tables, running, "running")
        orders = {"yellow": None, "red": ORDER, "blue": []}  # blue cleared its order
        insert_seats(conn, tables, game_id, {c: {"standing_order": o, "mailed_seq": last} for c, o in orders.items()})
        over_id = insert_game(conn, tables, finished, "over")
        insert_seats(conn, tables, over_id, {c: {"standing_order": ORDER, "mailed_seq": None} for c in orders})

    alembic_runner.migrate_up_one()

    # each seat was told the events its own view held when the mail went out: fewer than the game's, not the same
    told = {colour: (len(engine.view(told_at, colour)["events"]),) for colour in orders}
    assert all(count < last + 1 for (count,) in told.values()) and len(set(told.values())) > 1
    with alembic_engine.connect() as conn:
        assert seats_of(conn, game_id, "told_events") == told
        assert seats_of(conn, over_id, "told_events") == {c: (None,) for c in orders}  # never mailed
        state, version = state_of(conn, game_id)
        assert version == running.window_no + 1
        eng = engine.Game.from_json(state)  # replays the log, the order included
        assert {c: engine.view(eng, c)["standing_order"] for c in orders} == {
            "yellow": None,
            "red": ORDER,
            "blue": None,
        }
        order_entry = {"player": "red", "standing_order": ORDER, "answer_open": False}
        assert state["log"] == [*running.to_json()["log"], order_entry]
        assert eng.events == running.events and eng.window_no == running.window_no  # nothing was answered
        assert state_of(conn, over_id) == (finished.to_json(), finished.window_no)  # a finished game is left alone
        columns = {c["name"] for c in sa.inspect(conn).get_columns("seats")}
    assert "told_events" in columns and not columns & {"mailed_seq", "standing_order"}

    alembic_runner.migrate_down_to("0003")

    with alembic_engine.connect() as conn:
        restored = seats_of(conn, game_id, "mailed_seq", "standing_order")
        assert state_of(conn, game_id)[0] == state  # the orders stay in the engine's log
    assert restored["blue"] == (last, None)  # blue saw the last event it was mailed up to
    orders_back = {c: json.loads(o) if isinstance(o, str) else o for c, (_, o) in restored.items()}  # SQLite: text
    assert orders_back == {"yellow": None, "red": ORDER, "blue": None}  # the engine's orders are back in the column
    for colour in ("yellow", "red"):  # they had not: the last event they saw before it
        seq = restored[colour][0]
        assert seq < last
        assert running.events[seq].get("to") is None or colour in running.events[seq]["to"]
    alembic_runner.migrate_up_one()  # and up again: the same counts
    with alembic_engine.connect() as conn:
        assert seats_of(conn, game_id, "told_events") == told


def a_pending_victim_request() -> engine.Game:
    """A random-bot game stopped at a window holding a victim request."""
    for seed in range(200):
        eng = engine.new_game(["yellow", "red", "blue"], seed=seed)
        bots = {colour: RandomBot(i) for i, colour in enumerate(eng.players)}
        while not eng.over:
            if any(r.kind == "victim" for r in eng.pending()):
                return eng
            for req in eng.pending():
                eng.answer(req.player, req.kind, bots[req.player].decide(eng, req))
    raise AssertionError("no game reached a victim request")


@pytest.mark.rule("H-5")
def test_0004_never_answers_a_victim_request_waiting_in_an_open_window(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    """A stored order that fits a victim request still open when the migration runs (the window's answers apply
    when it closes) is given to the engine without answering it: the engine's window and events stay as they were,
    so the open window and its rows still match the engine."""
    alembic_runner.migrate_up_to("0003")
    waiting = a_pending_victim_request()
    (victim,) = [r for r in waiting.pending() if r.kind == "victim"]
    order = [c for c in ORDER if c in (victim.options or [])]
    assert order, "the order names a candidate: with answer_open it would answer at once"
    with alembic_engine.begin() as conn:
        tables = sa.MetaData()
        tables.reflect(conn)
        game_id = insert_game(conn, tables, waiting, "running")
        insert_seats(
            conn,
            tables,
            game_id,
            {c: {"standing_order": order if c == victim.player else None} for c in waiting.players},
        )

    alembic_runner.migrate_up_one()

    with alembic_engine.connect() as conn:
        eng = engine.Game.from_json(state_of(conn, game_id)[0])
    assert (eng.window_no, eng.events) == (waiting.window_no, waiting.events)
    assert [r.to_json() for r in eng.pending()] == [r.to_json() for r in waiting.pending()]
    assert eng.standing_answer(victim.player) == order[0]


# --- 0005: players get a link generation; organiser sessions are kept on the server ----------------------------------


def test_0005_gives_every_player_generation_1_so_earlier_preferences_links_keep_working(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine, database_url: str
) -> None:
    from server.db import Database
    from server.services.attendance import prefs
    from server.services.links import PLAYER_SALT, serializer

    alembic_runner.migrate_up_to("0004")
    with alembic_engine.begin() as conn:
        player_id = insert_ann(conn)
    earlier = serializer("secret", PLAYER_SALT).dumps(player_id)  # a link of the release before: a bare id

    alembic_runner.migrate_up_one()

    with alembic_engine.connect() as conn:
        assert conn.execute(sa.text("SELECT link_generation FROM players")).scalar_one() == 1
    alembic_runner.migrate_up_to("heads")  # the models are those of the head
    db = Database(database_url)
    try:
        assert prefs.open_player(db, "secret", earlier, 3600) == player_id
    finally:
        db.dispose()
    alembic_runner.migrate_down_to("0005")
    with alembic_engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO organiser_sessions (id, token, every_game, games, created_at)"
                " VALUES ('s', 't', true, '[]', :t)"
            ),
            {"t": T},
        )

    alembic_runner.migrate_down_one()  # every organiser logs in again

    inspector = sa.inspect(alembic_engine)
    assert "organiser_sessions" not in inspector.get_table_names()
    assert "link_generation" not in {c["name"] for c in inspector.get_columns("players")}


# --- 0006: standing answers on players, seats and request rows -------------------------------------------------------


def test_0006_adds_standing_answers_empty_and_takes_them_away_again(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    alembic_runner.migrate_up_to("0005")
    with alembic_engine.begin() as conn:
        insert_ann(conn)

    alembic_runner.migrate_up_one()

    inspector = sa.inspect(alembic_engine)
    for table in ("players", "seats", "requests"):
        assert "standing" in {c["name"] for c in inspector.get_columns(table)}
    with alembic_engine.begin() as conn:
        assert conn.execute(sa.text("SELECT standing FROM players")).scalar_one() is None  # no defaults: ask me
        conn.execute(sa.text("""UPDATE players SET standing = '{"camera": "look"}'"""))

    alembic_runner.migrate_down_one()

    inspector = sa.inspect(alembic_engine)
    for table in ("players", "seats", "requests"):
        assert "standing" not in {c["name"] for c in inspector.get_columns(table)}


# --- 0009: missed deadlines and absences ------------------------------------------------------------------------------


def test_0009_gives_earlier_requests_to_the_seats_person_and_none_to_a_bot(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    alembic_runner.migrate_up_to("0008")
    with alembic_engine.begin() as conn:
        meta = sa.MetaData()
        players, games, seats, windows, requests = (
            sa.Table(name, meta, autoload_with=conn) for name in ("players", "games", "seats", "windows", "requests")
        )
        ann = insert_ann(conn, players)
        game = conn.execute(
            games.insert()
            .values(
                title="",
                status="running",
                options={},
                seed=1,
                tempo={},
                state={},
                version=1,
                round=0,
                phase="setup",
                created_at=T,
                updated_at=T,
            )
            .returning(games.c.id)
        ).scalar_one()
        person, bot = (
            conn.execute(
                seats.insert()
                .values(game_id=game, position=i, colour=colour, player_id=player, bot=kind, link_generation=1)
                .returning(seats.c.id)
            ).scalar_one()
            for i, (colour, player, kind) in enumerate((("yellow", ann, None), ("red", None, "sensible")))
        )
        window = conn.execute(
            windows.insert()
            .values(game_id=game, number=1, status="open", round=0, phase="setup", opened_at=T, deadline=T)
            .returning(windows.c.id)
        ).scalar_one()
        for i, seat in enumerate((person, bot)):
            conn.execute(
                requests.insert().values(
                    window_id=window, seat_id=seat, position=i, kind="place", payload={}, defaulted=False
                )
            )

    alembic_runner.migrate_up_one()

    with alembic_engine.connect() as conn:
        owed = dict(conn.execute(sa.text("SELECT seat_id, player_id FROM requests")).all())
        assert owed == {person: ann, bot: None}
        assert conn.execute(sa.text("SELECT missed, autopilot_at, extended FROM seats")).all() == [(0, None, 0)] * 2
    alembic_runner.migrate_down_one()
    assert "player_id" not in {c["name"] for c in sa.inspect(alembic_engine).get_columns("requests")}


# --- 0010: calendar feeds ---------------------------------------------------------------------------------------------


def test_0010_gives_every_player_calendar_generation_1_and_every_deadline_revision_0(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    alembic_runner.migrate_up_to("0009")
    with alembic_engine.begin() as conn:
        meta = sa.MetaData()
        players, games, windows = (sa.Table(name, meta, autoload_with=conn) for name in ("players", "games", "windows"))
        conn.execute(
            players.insert().values(
                email="ann@example.org", display_name="Ann", language="en", timezone="UTC", created_at=T
            )
        )
        game = conn.execute(
            games.insert()
            .values(
                title="",
                status="running",
                options={},
                seed=1,
                tempo={},
                state={},
                version=1,
                round=0,
                phase="setup",
                created_at=T,
                updated_at=T,
            )
            .returning(games.c.id)
        ).scalar_one()
        conn.execute(
            windows.insert().values(
                game_id=game, number=1, status="open", round=0, phase="setup", opened_at=T, deadline=T
            )
        )

    alembic_runner.migrate_up_one()

    with alembic_engine.connect() as conn:
        assert conn.execute(sa.text("SELECT calendar_generation FROM players")).scalar_one() == 1
        assert conn.execute(sa.text("SELECT deadline_revision FROM windows")).scalar_one() == 0
    alembic_runner.migrate_down_one()
    inspector = sa.inspect(alembic_engine)
    assert "calendar_generation" not in {c["name"] for c in inspector.get_columns("players")}
    assert "deadline_revision" not in {c["name"] for c in inspector.get_columns("windows")}


# --- 0011: leagues and seasons ----------------------------------------------------------------------------------------


def test_0011_adds_leagues_seasons_and_season_players_with_their_defaults_and_drops_them_again(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    alembic_runner.migrate_up_to("0010")
    with alembic_engine.begin() as conn:
        ann = insert_ann(conn)

    alembic_runner.migrate_up_one()

    with alembic_engine.begin() as conn:
        meta = sa.MetaData()
        leagues, seasons, entries = (
            sa.Table(name, meta, autoload_with=conn) for name in ("leagues", "seasons", "season_players")
        )
        league = conn.execute(
            leagues.insert()
            .values(
                name="Tuesday",
                language="it",
                timezone="Europe/Rome",
                options={},
                scoring="placement",
                tie_breaks=["wins"],
                forfeit="last",
                created_at=T,
            )
            .returning(leagues.c.id)
        ).scalar_one()
        values = {"signup_closes": T, "rounds": 3, "schedule": "when_over", "status": "signup", "created_at": T}
        season = conn.execute(
            seasons.insert().values(league_id=league, number=1, **values).returning(seasons.c.id)
        ).scalar_one()
        with pytest.raises(sa.exc.IntegrityError), conn.begin_nested():  # one season 1 per league
            conn.execute(seasons.insert().values(league_id=league, number=1, **values))
        conn.execute(entries.insert().values(season_id=season, player_id=ann, status="pending", created_at=T))
        with pytest.raises(sa.exc.IntegrityError), conn.begin_nested():  # one entry per player and season
            conn.execute(entries.insert().values(season_id=season, player_id=ann, status="pending", created_at=T))
    with alembic_engine.connect() as conn:
        row = conn.execute(sa.text("SELECT * FROM leagues")).mappings().one()
        assert (row["table_size"], row["invite_generation"], row["organiser_generation"]) == (5, 1, 1)
        assert (row["public_generation"], bool(row["standings_public"])) == (1, False)
        assert conn.execute(sa.text("SELECT confirm_generation FROM season_players")).scalar_one() == 1

    alembic_runner.migrate_down_one()
    tables = set(sa.inspect(alembic_engine).get_table_names())
    assert not tables & {"leagues", "seasons", "season_players"}
    assert "players" in tables


# --- 0012: league rounds, results, standings and ratings --------------------------------------------------------------


def test_0012_adds_rounds_results_standings_and_ratings_keeps_seasons_and_drops_them_again(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    alembic_runner.migrate_up_to("0011")
    with alembic_engine.begin() as conn:
        meta = sa.MetaData()
        players, leagues, seasons = (
            sa.Table(name, meta, autoload_with=conn) for name in ("players", "leagues", "seasons")
        )
        ann = insert_ann(conn, players)
        league = conn.execute(
            leagues.insert()
            .values(
                name="L",
                language="en",
                timezone="UTC",
                options={},
                scoring="placement",
                tie_breaks=[],
                forfeit="last",
                created_at=T,
            )
            .returning(leagues.c.id)
        ).scalar_one()
        values = {"signup_closes": T, "rounds": 3, "schedule": "when_over", "status": "signup", "created_at": T}
        season = conn.execute(
            seasons.insert().values(league_id=league, number=1, **values).returning(seasons.c.id)
        ).scalar_one()

    alembic_runner.migrate_up_one()

    with alembic_engine.begin() as conn:
        meta = sa.MetaData()
        rounds, ratings = (sa.Table(name, meta, autoload_with=conn) for name in ("league_rounds", "ratings"))
        row = conn.execute(sa.text("SELECT promote, results_version, max_players FROM seasons")).one()
        assert tuple(row) == (0, 0, None)  # the season of 0011 is kept, with the new columns' defaults
        conn.execute(rounds.insert().values(season_id=season, number=1, status="planned"))
        with pytest.raises(sa.exc.IntegrityError), conn.begin_nested():  # one round 1 per season
            conn.execute(rounds.insert().values(season_id=season, number=1, status="planned"))
        conn.execute(ratings.insert().values(player_id=ann, scope=0, mu=25.0, sigma=8.3, games=0, updated_at=T))
        with pytest.raises(sa.exc.IntegrityError), conn.begin_nested():  # one rating per player and scope
            conn.execute(ratings.insert().values(player_id=ann, scope=0, mu=25.0, sigma=8.3, games=0, updated_at=T))
        conn.execute(ratings.insert().values(player_id=ann, scope=league, mu=25.0, sigma=8.3, games=0, updated_at=T))

    alembic_runner.migrate_down_one()
    inspector = sa.inspect(alembic_engine)
    tables = set(inspector.get_table_names())
    assert not tables & {"league_rounds", "league_results", "season_standings", "ratings", "rating_points"}
    assert "round_id" not in {c["name"] for c in inspector.get_columns("games")}
    assert "seasons" in tables


# --- 0013: a season's standings stored row by row ----------------------------------------------------------------


def test_0013_adds_standing_rows_drops_the_stored_documents_so_they_are_computed_again_and_drops_the_rows(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    alembic_runner.migrate_up_to("0012")
    with alembic_engine.begin() as conn:
        meta = sa.MetaData()
        leagues, seasons, standings = (
            sa.Table(name, meta, autoload_with=conn) for name in ("leagues", "seasons", "season_standings")
        )
        league = conn.execute(
            leagues.insert()
            .values(
                name="L",
                language="en",
                timezone="UTC",
                options={},
                scoring="placement",
                tie_breaks=[],
                forfeit="last",
                created_at=T,
            )
            .returning(leagues.c.id)
        ).scalar_one()
        values = {"signup_closes": T, "rounds": 3, "schedule": "when_over", "status": "running", "created_at": T}
        season = conn.execute(
            seasons.insert().values(league_id=league, number=1, results_version=4, **values).returning(seasons.c.id)
        ).scalar_one()
        document = {"divisions": [{"name": None, "rows": [{"player": 1}]}], "substitutes": []}
        conn.execute(standings.insert().values(season_id=season, version=4, rows=document, computed_at=T))

    alembic_runner.migrate_up_one()

    with alembic_engine.begin() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM season_standings")).scalar_one() == 0
        rows = sa.Table("season_standing_rows", sa.MetaData(), autoload_with=conn)
        row = {"player_id": 1, "name": "Ann", "rank": 1, "games": 2, "points": 3.5, "wins": 1, "victory_points": 9}
        conn.execute(rows.insert().values(season_id=season, tab=0, position=0, **row))
        with pytest.raises(sa.exc.IntegrityError), conn.begin_nested():  # one row per table position
            conn.execute(rows.insert().values(season_id=season, tab=0, position=0, **row))
        indexes = {tuple(ix["column_names"]) for ix in sa.inspect(conn).get_indexes("season_standing_rows")}
        assert ("season_id", "player_id") in indexes

    alembic_runner.migrate_down_one()
    tables = set(sa.inspect(alembic_engine).get_table_names())
    assert "season_standing_rows" not in tables and "season_standings" in tables


# --- 0016: events and requests stored compactly -----------------------------------------------------------------------


def test_0016_keeps_every_event_and_request_as_it_was_and_makes_a_public_events_audience_sql_null(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    alembic_runner.migrate_up_to("0015")
    data = {"origin": 4, "player": "green", "target": 6, "character": "gunman"}
    payload = {"kind": "move", "player": "red", "options": [{"character": "pinup"}], "destination": 3}
    with alembic_engine.begin() as conn:
        meta = sa.MetaData()
        players, games, seats, windows, requests, events = (
            sa.Table(name, meta, autoload_with=conn)
            for name in ("players", "games", "seats", "windows", "requests", "events")
        )
        game = conn.execute(
            games.insert()
            .values(
                title="",
                status="running",
                options={},
                seed=1,
                tempo={},
                state={},
                version=1,
                round=0,
                phase="setup",
                created_at=T,
                updated_at=T,
            )
            .returning(games.c.id)
        ).scalar_one()
        seat = conn.execute(
            seats.insert()
            .values(game_id=game, position=0, colour="red", bot="random", link_generation=1)
            .returning(seats.c.id)
        ).scalar_one()
        window = conn.execute(
            windows.insert()
            .values(game_id=game, number=1, status="closed", round=1, phase="move", opened_at=T, deadline=T)
            .returning(windows.c.id)
        ).scalar_one()
        conn.execute(
            requests.insert().values(
                window_id=window, seat_id=seat, position=0, kind="move", payload=payload, defaulted=False
            )
        )
        conn.execute(
            events.insert().values(game_id=game, seq=0, round=1, type="moved", data=data, visible_to=None, created_at=T)
        )
        conn.execute(
            events.insert().values(
                game_id=game, seq=1, round=1, type="dice_seen", data={}, visible_to=["red"], created_at=T
            )
        )
    del players

    def stored() -> tuple[list[tuple[Any, ...]], Any]:
        with alembic_engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT data, visible_to FROM events ORDER BY seq")).all()
            loaded = [tuple(json.loads(v) if isinstance(v, str) else v for v in row) for row in rows]
            (value,) = conn.execute(sa.text("SELECT payload FROM requests")).one()
            return loaded, json.loads(value) if isinstance(value, str) else value

    assert stored() == ([(data, None), ({}, ["red"])], payload)
    alembic_runner.migrate_up_one()
    assert stored() == ([(data, None), ({}, ["red"])], payload)
    with alembic_engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM events WHERE visible_to IS NULL")).scalar_one() == 1
    alembic_runner.migrate_down_one()
    assert stored() == ([(data, None), ({}, ["red"])], payload)


# --- 0017: events stored one row per advance --------------------------------------------------------------------------


def test_0017_moves_each_advances_events_into_one_batch_read_back_as_the_engines_and_indexes_open_windows_only(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    """Events stored at one instant with consecutive seqs become one ``event_batches`` row, the engine's own events
    in order; the windows' due instants are indexed alone (for open windows only); the downgrade gives back the same
    rows."""
    alembic_runner.migrate_up_to("0016")
    states = after_each_window(seed=17, windows=6)
    eng = states[-1]
    ends = [len(state.events) for state in states]
    with alembic_engine.begin() as conn:
        tables = sa.MetaData()
        tables.reflect(conn, only=["games", "events"])
        game_id = insert_game(conn, tables, eng, "running")
        for window, (start, end) in enumerate(zip([0, *ends], ends, strict=False)):  # one instant per window
            conn.execute(
                sa.text("UPDATE events SET created_at = :at WHERE game_id = :g AND seq >= :start AND seq < :end"),
                {"at": T + timedelta(minutes=window), "g": game_id, "start": start, "end": end},
            )

    def rows() -> list[tuple[Any, ...]]:
        with alembic_engine.connect() as conn:
            found = conn.execute(
                sa.text("SELECT seq, type, data, visible_to, created_at FROM events ORDER BY seq")
            ).all()
            return [
                (
                    seq,
                    type_,
                    *(json.loads(v) if isinstance(v, str) else v for v in (data, to)),
                    datetime.fromisoformat(str(at)),
                )
                for seq, type_, data, to, at in found
            ]

    before = rows()
    alembic_runner.migrate_up_one()
    expected = json.loads(json.dumps(eng.events))
    with alembic_engine.connect() as conn:
        batches = conn.execute(sa.text("SELECT first_seq, count FROM event_batches ORDER BY first_seq")).all()
        assert [tuple(b) for b in batches] == [
            (start, end - start) for start, end in zip([0, *ends], ends, strict=False) if end > start
        ]
        texts = conn.execute(sa.text("SELECT events FROM event_batches ORDER BY first_seq")).scalars()
        assert [event for text in texts for event in json.loads(text)] == expected
        indexes = {ix["name"]: ix["column_names"] for ix in sa.inspect(conn).get_indexes("windows")}
        assert {name: indexes[name] for name in indexes if name.startswith("ix_windows_open_")} == {
            f"ix_windows_open_{column}": [column]
            for column in ("deadline", "completed_at", "remind_at", "claimed_until")
        }
    alembic_runner.migrate_down_one()
    assert rows() == before
    assert "event_batches" not in sa.inspect(alembic_engine).get_table_names()


def test_0018_marks_the_absences_over_as_applied_leaves_the_others_to_the_sweep_and_drops_the_flag_again(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    """``absences.applied`` (the sweep applies an absence once, when it begins): true for the absences
    already over, false for those under way or to come (the next sweep applies them: applying is idempotent),
    indexed on ``starts_at`` where not applied; the downgrade drops them and keeps the absences."""
    alembic_runner.migrate_up_to("0017")
    past, now = datetime(2001, 1, 1), datetime.now() + timedelta(days=1)  # the tables' naive UTC
    spans = [(past, past + timedelta(days=2)), (past, now + timedelta(days=2)), (now, now + timedelta(days=3))]
    with alembic_engine.begin() as conn:
        player_id = insert_ann(conn)
        absences = sa.Table("absences", sa.MetaData(), autoload_with=conn)
        conn.execute(
            absences.insert(),
            [{"player_id": player_id, "starts_at": s, "ends_at": e, "created_at": past} for s, e in spans],
        )

    alembic_runner.migrate_up_one()
    with alembic_engine.connect() as conn:
        found = conn.execute(sa.text("SELECT applied FROM absences ORDER BY id")).scalars().all()
        assert [bool(applied) for applied in found] == [True, False, False]
        indexes = {ix["name"]: ix["column_names"] for ix in sa.inspect(conn).get_indexes("absences")}
        assert indexes["ix_absences_unapplied"] == ["starts_at"]
    alembic_runner.migrate_down_one()
    with alembic_engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM absences")).scalar_one() == 3
        assert "applied" not in {c["name"] for c in sa.inspect(conn).get_columns("absences")}


# --- 0019: events packed; closed requests without their payload ------------------------------------------------------


def test_0019_packs_events_marks_secret_requests_empties_closed_ones_and_gives_all_back_on_the_way_down(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    """Each batch is packed and ``engines._events`` reads the engine's own events from it (cut at any count);
    requests asked in secret are marked (``engine.asked_in_secret``, B-INFO) and keep the mark once closed; a closed
    window's requests lose their payload, an open one's keep it; the downgrade gives back every event and every
    payload, the closed ones as the engine asked them (its replay)."""
    from server.services.play.engines import _events

    alembic_runner.migrate_up_to("0018")
    states = after_each_window(seed=18, windows=8)
    eng = states[-1]
    ends = [len(state.events) for state in states]
    with alembic_engine.begin() as conn:
        tables = sa.MetaData()
        tables.reflect(conn, only=["games", "seats", "windows", "requests", "event_batches"])
        games, windows = tables.tables["games"], tables.tables["windows"]
        game_id = conn.execute(
            games.insert()
            .values(title="", status="running", options={}, seed=eng.config.seed, tempo={}, state=eng.to_json())
            .values(version=eng.window_no, round=eng.round, phase=eng.phase, created_at=T, updated_at=T)
            .returning(games.c.id)
        ).scalar_one()
        conn.execute(
            tables.tables["event_batches"].insert(),
            [
                {"game_id": game_id, "first_seq": start, "count": end - start, "created_at": T}
                | {"events": json.dumps(eng.events[start:end], separators=(",", ":"))}
                for start, end in zip([0, *ends], ends, strict=False)
                if end > start
            ],
        )
        insert_seats(conn, tables, game_id, {colour: {"bot": "random"} for colour in eng.players})
        seat_of = {colour: seat for colour, (seat,) in seats_of(conn, game_id, "id").items()}
        replayed, done = engine.Game(eng.config), 0
        while True:  # every window of the game, as the engine asked it: closed ones, then the open one
            number = replayed.window_no
            status = "open" if number == eng.window_no else "closed"
            window = conn.execute(
                windows.insert()
                .values(game_id=game_id, number=number, status=status, round=0, phase="x", opened_at=T, deadline=T)
                .returning(windows.c.id)
            ).scalar_one()
            conn.execute(
                tables.tables["requests"].insert(),
                [
                    {"window_id": window, "seat_id": seat_of[req.player], "position": i, "kind": req.kind}
                    | {"payload": req.to_json(), "defaulted": False}
                    for i, req in enumerate(replayed.pending())
                ],
            )
            if status == "open":
                break
            while replayed.window_no == number:
                replayed.replay_entry(eng.log[done])
                done += 1

    def requests() -> list[tuple[Any, ...]]:
        with alembic_engine.connect() as conn:
            found = conn.execute(sa.text("SELECT id, kind, payload FROM requests ORDER BY id")).all()
            return [(id_, kind, json.loads(p) if isinstance(p, str) else p) for id_, kind, p in found]

    def batches() -> list[tuple[Any, ...]]:
        with alembic_engine.connect() as conn:
            found = conn.execute(sa.text("SELECT first_seq, count, events FROM event_batches ORDER BY 1")).all()
            return [tuple(row) for row in found]

    before, events_before = requests(), batches()
    assert {engine.asked_in_secret(engine.Request.from_json(p)) for _, _, p in before} == {True, False}
    alembic_runner.migrate_up_one()
    expected = json.loads(json.dumps(eng.events))
    with alembic_engine.connect() as conn:
        with Session(conn) as session:
            assert _events(session, game_id, len(expected)) == expected
            assert _events(session, game_id, len(expected) // 2) == expected[: len(expected) // 2]
        rows = conn.execute(
            sa.text(
                "SELECT r.id, r.payload, r.secret, w.status FROM requests r JOIN windows w ON w.id = r.window_id"
                " ORDER BY r.id"
            )
        ).all()
    assert [bool(secret) for _, _, secret, _ in rows] == [
        engine.asked_in_secret(engine.Request.from_json(p)) for _, _, p in before
    ]
    assert all((payload is None) == (status == "closed") for _, payload, _, status in rows)
    assert any(status == "open" for *_, status in rows)
    alembic_runner.migrate_down_one()
    assert requests() == before
    assert batches() == events_before


def test_0020_indexes_each_games_open_window_and_a_lookup_reads_that_index_alone(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    """A game's open window is one lookup in ``ix_windows_open_game_id`` (open windows only), not the
    game's windows ANDed with a scan of every open window; the downgrade drops it."""
    alembic_runner.migrate_up_to("0020")
    with alembic_engine.connect() as conn:
        indexes = {ix["name"]: ix["column_names"] for ix in sa.inspect(conn).get_indexes("windows")}
        assert indexes["ix_windows_open_game_id"] == ["game_id"]
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SET enable_seqscan = off"))
            plan = conn.execute(
                sa.text("EXPLAIN SELECT id FROM windows WHERE game_id = 7 AND status = 'open' FOR UPDATE")
            ).scalars()
            used = " ".join(plan)
            assert "ix_windows_open_game_id" in used and "claimed_until" not in used
    alembic_runner.migrate_down_one()
    assert "ix_windows_open_game_id" not in {ix["name"] for ix in sa.inspect(alembic_engine).get_indexes("windows")}


# --- 0021: saved games and snapshots packed --------------------------------------------------------------------------


def test_0021_packs_each_games_saved_game_and_snapshot_read_back_equal_and_unpacks_them_on_the_way_down(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    """A game's saved game and snapshot (or its null snapshot) read back through the models equal to what was
    stored, packed in fewer bytes than their JSON; the downgrade gives back the same JSON."""
    from server.models import Game

    alembic_runner.migrate_up_to("0020")
    eng = after_each_window(seed=20, windows=40)[-1]
    snapshot = eng.snapshot()
    assert snapshot is not None
    stored = json.loads(json.dumps([eng.to_json(), snapshot]))
    with alembic_engine.begin() as conn:
        games = sa.MetaData()
        games.reflect(conn, only=["games"])
        table = games.tables["games"]
        for snap in (stored[1], None):
            conn.execute(
                table.insert()
                .values(title="", status="running", options={}, seed=1, tempo={}, state=stored[0], snapshot=snap)
                .values(version=0, round=0, phase="x", created_at=T, updated_at=T)
            )

    def rows() -> list[tuple[Any, ...]]:
        with alembic_engine.connect() as conn:
            found = conn.execute(sa.text("SELECT id, state, snapshot FROM games ORDER BY id")).all()
        return [tuple(json.loads(v) if isinstance(v, str) else v for v in row) for row in found]

    before = rows()
    assert [row[1:] for row in before] == [tuple(stored), (stored[0], None)]
    alembic_runner.migrate_up_one()
    with alembic_engine.connect() as conn, Session(conn) as session:
        assert session.execute(sa.select(Game.state, Game.snapshot).order_by(Game.id)).all() == [
            tuple(stored),
            (stored[0], None),
        ]
    packed = [value for row in rows() for value in row[1:] if value is not None]
    assert all(isinstance(v, bytes) for v in packed)
    assert len(packed[0]) * 5 < len(json.dumps(stored[0])) and len(packed[1]) * 2 < len(json.dumps(stored[1]))
    alembic_runner.migrate_down_one()
    assert rows() == before


# --- 0022: closed windows folded into the game's archive ---------------------------------------------------------


def test_0022_folds_closed_windows_into_the_games_archive_keeps_open_ones_and_gives_every_row_back_on_the_way_down(
    alembic_runner: MigrationContext, alembic_engine: sa.Engine
) -> None:
    """Each closed window and its requests leave their rows for the game's archive, read back equal
    (``services.play.archive``); the open window and its requests keep their rows (SQLite rebuilds the tables, foreign
    keys off: nothing cascades); the person's ledger counts what reliability counted (a bot's, a secret
    request, standing answers and a vote decided without them do not); ids deleted are never given again (SQLite
    would reuse the highest); the downgrade gives back a closed row per archived window and request."""
    from server.models import Game, Ledger
    from server.packing import GAMES, pack
    from server.services.play import archive, reliability

    alembic_runner.migrate_up_to("0021")
    fields = ("answer", "answered_at", "defaulted", "standing", "autopilot", "secret", "player_id", "kind")
    with alembic_engine.begin() as conn:
        tables = sa.MetaData()
        tables.reflect(conn, only=["games", "players", "seats", "windows", "requests"])
        ann = insert_ann(conn, tables.tables["players"])
        game_id = conn.execute(
            tables.tables["games"]
            .insert()
            .values(title="", status="running", options={}, seed=1, tempo={}, state=pack({"log": []}, GAMES))
            .values(version=0, round=0, phase="x", created_at=T, updated_at=T)
            .returning(tables.tables["games"].c.id)
        ).scalar_one()
        insert_seats(
            conn,
            tables,
            game_id,
            {"red": {"player_id": ann, "bot": None}, "blue": {"player_id": None, "bot": "random"}},
        )
        seat = {colour: s for colour, (s,) in seats_of(conn, game_id, "id").items()}
        windows, requests = tables.tables["windows"], tables.tables["requests"]
        asked = [  # window number -> (red's request, blue's): (fields of ``fields``)
            (
                ("x", T + timedelta(hours=1), False, False, False, False, ann, "place"),
                ("y", T, False, False, False, False, None, "place"),
            ),
            ((None, None, True, False, False, False, ann, "move"), ("z", T, False, False, False, False, None, "move")),
            (
                ("c", T + timedelta(hours=2), False, False, False, True, ann, "cards"),
                ("d", T, False, False, False, False, None, "cards"),
            ),
            (("s", T, False, True, False, False, ann, "vote"), (None, None, False, False, False, False, None, "vote")),
            (
                (None, None, False, False, False, False, ann, "place"),
                ("w", T, False, False, False, False, None, "place"),
            ),
        ]
        for number, pair in enumerate(asked, start=1):
            status = "open" if number == len(asked) else "closed"
            opened = T + timedelta(days=number)
            window = conn.execute(
                windows.insert()
                .values(game_id=game_id, number=number, status=status, round=1, phase="p", opened_at=opened)
                .values(
                    deadline=opened + timedelta(days=1),
                    closed_at=None if status == "open" else opened + timedelta(days=1),
                )
                .returning(windows.c.id)
            ).scalar_one()
            for position, (colour, values) in enumerate(zip(("red", "blue"), pair, strict=True)):
                row = dict(zip(fields, values, strict=True))
                if row["answered_at"] is not None:
                    row["answered_at"] = opened + (row["answered_at"] - T)
                conn.execute(
                    requests.insert()
                    .values(window_id=window, seat_id=seat[colour], position=position, **row)
                    .values(payload={"kind": row["kind"]} if status == "open" else None)
                )

    def rows() -> list[tuple[Any, ...]]:
        with alembic_engine.connect() as conn:
            return [
                tuple(row)
                for row in conn.execute(
                    sa.text(
                        "SELECT w.number, w.status, w.opened_at, w.deadline, w.closed_at, r.seat_id, r.position,"
                        " r.kind, r.answered_at, r.defaulted, r.standing, r.autopilot, r.secret, r.player_id"
                        " FROM requests r JOIN windows w ON w.id = r.window_id ORDER BY w.number, r.position"
                    )
                )
            ]

    before = rows()
    alembic_runner.migrate_up_one()
    assert [row[:2] for row in rows()] == [(5, "open"), (5, "open")]  # the open window's rows, as they were
    with alembic_engine.connect() as conn, Session(conn) as session:
        # the column alone: the model has columns added by later revisions
        stored = session.execute(sa.select(Game.archive).where(Game.id == game_id)).scalar_one()
        closed = archive.requests_of(game_id, stored)
        assert [(r.window.number, r.seat_id, r.kind, r.answer, r.player_id) for r in closed] == [
            (n, seat[c], pair[i][7], pair[i][0], pair[i][6])
            for n, pair in enumerate(asked[:4], start=1)
            for i, c in enumerate(("red", "blue"))
        ]
        assert next(r.answered_at for r in closed if r.answered_at is not None) == T.replace(tzinfo=UTC) + timedelta(
            days=1, hours=1
        )
        figures = reliability.of_players(session, [ann])[ann]
        assert figures.requests == 2  # the place answered and the move missed: not the cards, standing, bots
        ledger = session.get(Ledger, ann)
        assert ledger is not None and ledger.counted == 2 and len(ledger.newest) == 2
        if conn.dialect.name == "sqlite":  # the highest id deleted is not given again
            top = conn.execute(sa.text("SELECT seq FROM sqlite_sequence WHERE name = 'windows'")).scalar_one()
            assert top == 5
    alembic_runner.migrate_down_one()
    assert rows() == before
