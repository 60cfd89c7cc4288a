"""League rounds (fixtures: server/services/leagues/rounds.py): planning with skips, withdrawals, pending
sign-ups, absences, acquaintances and repeat opponents; the organiser's swap; the start (games with the league's
options and preset, each player mailed their table once, the season running); the next round of a "when_over"
season; the fixed schedule's sweep. Every refusal changes nothing."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import timedelta
from email import message_from_bytes, policy
from itertools import combinations
from typing import Any

import pytest
import sqlalchemy as sa
from aiosmtpd.controller import Controller

from server.db import Database
from server.mail.send import send_batch
from server.mail.transports import SMTPTransport
from server.models import (
    Absence,
    EntryStatus,
    Game,
    GameStatus,
    League,
    LeagueRound,
    MailKind,
    Player,
    RatingRow,
    RoundStatus,
    Season,
    SeasonPlayer,
    SeasonStatus,
)
from server.services.leagues import promotion, rounds, schedule, seasons
from server.services.leagues.rounds import RoundError
from server.services.leagues.seasons import LeagueSpec
from server.services.links import confirm_token, read_token
from tests.conftest import Stack
from tests.server.test_api_cli import cli_env, run
from tests.server.test_mail_batch import CountingHandler
from tests.support import T0, all_rows, compose, free_port, mail_settings, rows_of_kind, text_of

DAY = timedelta(days=1)
ZONES = ["Europe/Rome", "Europe/Warsaw", "America/New_York", "Asia/Tokyo", "UTC", "Europe/London"]


def make_league(db: Database, **fields: Any) -> int:
    spec = {"name": "Tuesday", "table_size": 4, "preset": "week", "options": {"turn_order": "strict"}, **fields}
    return seasons.create_league(db, LeagueSpec(**spec), now=T0)


def make_season(db: Database, league_id: int, **fields: Any) -> int:
    values: dict[str, Any] = {"rounds": 3, "schedule": "when_over", "rule": None, **fields}
    return seasons.create_season(db, league_id, T0 + DAY, values["rounds"], values["schedule"], values["rule"], now=T0)


def enter(db: Database, season_id: int, count: int, status: str = EntryStatus.CONFIRMED, start: int = 0) -> list[int]:
    """``count`` players entered with ``status`` (quiet 23:00-07:00 in various zones); their ids."""
    ids = []
    with db.session() as session:
        for i in range(start, start + count):
            lang = ("en", "it", "pl")[i % 3]
            player = Player(
                email=f"p{i}@example.org",
                display_name=f"P{i}",
                language=lang,
                timezone=ZONES[i % 6],
                quiet_start="23:00",
                quiet_end="07:00",
            )
            session.add(player)
            session.flush()
            session.add(SeasonPlayer(season_id=season_id, player_id=player.id, status=status, created_at=T0))
            ids.append(player.id)
    return ids


def set_entry(db: Database, player_id: int, **fields: Any) -> None:
    with db.session() as session:
        entry = session.execute(sa.select(SeasonPlayer).where(SeasonPlayer.player_id == player_id)).scalar_one()
        for key, value in fields.items():
            setattr(entry, key, value)


def tables_of(db: Database, round_id: int) -> list[list[int]]:
    with db.session() as session:
        rnd = session.get(LeagueRound, round_id)
        assert rnd is not None and rnd.tables is not None
        return rnd.tables


def refused(db: Database, call: Any, message: str) -> None:
    before = all_rows(db)
    with pytest.raises(RoundError, match=message):
        call()
    assert all_rows(db) == before


def seated(tables: list[list[int]]) -> list[int]:
    return [p for t in tables for p in t]


# --- planning ---------------------------------------------------------------------------------------------------------


def test_every_available_player_is_seated_once_and_the_others_left_out(stack: Stack) -> None:
    season = make_season(stack.db, make_league(stack.db))
    confirmed = enter(stack.db, season, 11)
    pending = enter(stack.db, season, 2, EntryStatus.PENDING, start=11)
    withdrawn = enter(stack.db, season, 1, EntryStatus.WITHDRAWN, start=13)
    set_entry(stack.db, confirmed[0], skips=[1, 3])
    set_entry(stack.db, confirmed[1], skips=[2])
    with stack.db.session() as session:  # away over the round's start (now: a "when_over" round has none)
        session.add(Absence(player_id=confirmed[2], starts_at=T0 - DAY, ends_at=T0 + DAY, created_at=T0))
    tables = tables_of(stack.db, rounds.plan(stack.db, season, T0))
    expected = set(confirmed) - {confirmed[0], confirmed[2]}
    assert sorted(seated(tables)) == sorted(expected)
    assert all(3 <= len(t) <= 6 for t in tables) and not set(seated(tables)) & set(pending + withdrawn)


def test_declared_acquaintances_never_sit_together_and_a_swap_that_would_is_refused(stack: Stack) -> None:
    season = make_season(stack.db, make_league(stack.db))
    ids = enter(stack.db, season, 8)
    set_entry(stack.db, ids[0], knows=["p1@example.org"])  # one-sided: enough
    set_entry(stack.db, ids[2], knows=["P3@Example.org"])
    round_id = rounds.plan(stack.db, season, T0)
    tables = tables_of(stack.db, round_id)
    for a, b in ((ids[0], ids[1]), (ids[2], ids[3])):
        assert not any(a in t and b in t for t in tables)
    mate = next(p for p in next(t for t in tables if ids[1] in t) if p != ids[1])  # put ids[0] beside ids[1]
    refused(stack.db, lambda: rounds.swap(stack.db, round_id, ids[0], mate), "declared they know")
    other = next(p for p in seated(tables) if p not in ids[:4] and not any(p in t and ids[0] in t for t in tables))
    new = rounds.swap(stack.db, round_id, ids[4] if ids[4] != other else ids[5], other)
    assert sorted(seated(new)) == sorted(ids) and new == tables_of(stack.db, round_id)


def test_repeat_opponents_are_avoided_over_the_rounds(stack: Stack) -> None:
    season = make_season(stack.db, make_league(stack.db, table_size=3), rounds=3)
    enter(stack.db, season, 9)
    met: Counter[frozenset[int]] = Counter()
    for k in range(3):
        with stack.db.session() as session:
            rnd = rounds.start_next(session, session.get(Season, season), T0 + k * DAY)  # type: ignore[arg-type]
        assert rnd is not None
        for table in tables_of(stack.db, rnd):
            met.update(frozenset(p) for p in combinations(table, 2))
    assert max(met.values()) == 1  # 9 players, tables of 3: three rounds without meeting anyone twice
    with stack.db.session() as session:
        assert rounds.start_next(session, session.get(Season, season), T0 + 4 * DAY) is None  # type: ignore[arg-type]
    refused(stack.db, lambda: rounds.plan(stack.db, season, T0), "all planned already")


def test_planning_again_replaces_the_planned_round(stack: Stack) -> None:
    season = make_season(stack.db, make_league(stack.db))
    ids = enter(stack.db, season, 8)
    first = rounds.plan(stack.db, season, T0)
    set_entry(stack.db, ids[0], skips=[1])
    assert rounds.plan(stack.db, season, T0) == first
    assert ids[0] not in seated(tables_of(stack.db, first))


def test_too_few_players_is_refused(stack: Stack) -> None:
    season = make_season(stack.db, make_league(stack.db))
    enter(stack.db, season, 2)
    refused(stack.db, lambda: rounds.plan(stack.db, season, T0), "at least 3")


# --- starting ---------------------------------------------------------------------------------------------------------


def test_start_creates_the_games_and_mails_each_player_their_table_once(stack: Stack) -> None:
    league_id = make_league(stack.db)
    season = make_season(stack.db, league_id)
    ids = enter(stack.db, season, 7)  # tables of 4 and 3
    pending = enter(stack.db, season, 1, EntryStatus.PENDING, start=7)
    round_id = rounds.plan(stack.db, season, T0)
    tables = tables_of(stack.db, round_id)
    game_ids = rounds.start(stack.db, round_id, T0)
    assert len(game_ids) == 2
    with stack.db.session() as session:
        assert session.get(Season, season).status == SeasonStatus.RUNNING  # type: ignore[union-attr]
        rnd = session.get(LeagueRound, round_id)
        assert rnd is not None and rnd.status == RoundStatus.STARTED and rnd.started_at == T0
        for t, game_id in enumerate(game_ids, start=1):
            game = session.get(Game, game_id)
            assert game is not None and game.status == GameStatus.RUNNING and game.round_id == round_id
            assert game.title == "Tuesday"  # (the season, round and table are told in each reader's language)
            assert game.options["turn_order"] == "strict" and game.tempo["preset"] == "week"
            assert [s.player_id for s in game.seats] == tables[t - 1]
            assert game.phase != "setup" or game.version > 0
        entry = session.execute(sa.select(SeasonPlayer).where(SeasonPlayer.player_id == pending[0])).scalar_one()
        assert entry.status == EntryStatus.PENDING
    mails = rows_of_kind(stack.db, MailKind.LEAGUE_FIXTURES)
    assert sorted(r.player_id for r in mails) == sorted(ids)
    assert {r.key for r in mails} == {f"fixtures:{round_id}:{p}" for p in ids}
    refused(stack.db, lambda: rounds.start(stack.db, round_id, T0), "already started")
    refused(stack.db, lambda: rounds.swap(stack.db, round_id, ids[0], ids[1]), "already started")


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "en",
            (
                "your table",
                "At your table:",
                "(now ",
                "Tempo: A week by e-mail.",
                "should take about",
                "Open your seat",
                "Season 1, round 1, table 1.",
            ),
        ),
        (
            "it",
            (
                "il tuo tavolo",
                "Al tuo tavolo:",
                "(ora ",
                "Ritmo:",
                "dovrebbe durare circa",
                "Apri il tuo posto",
                "Stagione 1, turno 1, tavolo 1.",
            ),
        ),
        (
            "pl",
            (
                "twój stół",
                "Przy twoim stole:",
                "(teraz ",
                "Tempo:",
                "powinna potrwać około",
                "Otwórz swoje miejsce",
                "Sezon 1, runda 1, stół 1.",
            ),
        ),
    ],
)
def test_the_fixtures_mail_tells_the_table(embedded: Stack, lang: str, words: tuple[str, ...]) -> None:
    stack = embedded
    season = make_season(stack.db, make_league(stack.db))
    ids = enter(stack.db, season, 4)
    with stack.db.session() as session:
        for player in session.execute(sa.select(Player)).scalars():
            player.language = lang
    [game_id] = rounds.start(stack.db, rounds.plan(stack.db, season, T0), T0)
    row = next(r for r in rows_of_kind(stack.db, MailKind.LEAGUE_FIXTURES) if r.player_id == ids[0])
    assert row.payload["estimate"]["days_median"] > 0
    message = compose(stack.db, row.id, mail_settings(stack.settings), now=T0)
    assert message is not None
    text = text_of(message)
    for word in words[1:]:
        assert word in text, (word, text)
    assert words[0] in str(message["Subject"])
    for other in ids[1:]:
        assert f"P{other - ids[0]}: {ZONES[(other - ids[0]) % 6]}" in text
    assert "P0:" not in text
    with stack.db.session() as session:
        seat = next(s for s in session.get(Game, game_id).seats if s.player_id == ids[0])  # type: ignore[union-attr]
        seat_id, generation = seat.id, seat.link_generation
    [token] = re.findall(r"http://deadmail\.test/s/(\S+)", text)  # the seat's signed link (its stamp: when composed)
    assert read_token(stack.settings.secret_key, token, 3600) == (seat_id, generation)
    assert len(re.findall(r"\(now|\(ora|\(teraz", text)) == 3


def test_a_fixed_schedule_starts_its_due_round_once(stack: Stack) -> None:
    league_id = make_league(stack.db, timezone="Europe/Rome")
    season = make_season(stack.db, league_id, schedule="fixed", rule={"weekday": 0, "time": "18:00"})
    enter(stack.db, season, 8)
    with stack.db.session() as session:
        s = session.get(Season, season)
        assert s is not None
        starts = schedule.round_starts(s.schedule_rule or {}, "Europe/Rome", s.signup_closes, s.rounds)
    assert rounds.sweep(stack.db, starts[0] - timedelta(minutes=1)) == 0
    planned = rounds.plan(stack.db, season, T0)  # previewed by the organiser: the sweep starts this one
    assert tables_of(stack.db, planned)
    assert rounds.sweep(stack.db, starts[0]) == 1
    assert rounds.sweep(stack.db, starts[0] + timedelta(minutes=1)) == 0
    with stack.db.session() as session:
        started = session.execute(sa.select(LeagueRound)).scalars().all()
        assert [(r.id, r.number, r.status, r.starts_at) for r in started] == [(planned, 1, "started", starts[0])]
        assert session.execute(sa.select(sa.func.count()).select_from(Game)).scalar_one() == 2
    assert rounds.sweep(stack.db, starts[1]) == 1  # the next week's, planned by the sweep itself


# --- the command line -------------------------------------------------------------------------------------------------


def test_the_round_commands(stack: Stack) -> None:
    season = make_season(stack.db, make_league(stack.db))
    ids = enter(stack.db, season, 8)
    env = cli_env(stack)
    result = run(env, "round", "plan", "--season", str(season), "--json")
    assert result.exit_code == 0, result.output
    planned = json.loads(result.output)
    assert sorted(seated(planned["tables"])) == sorted(ids)
    a, b = planned["tables"][0][0], planned["tables"][1][0]
    result = run(env, "round", "swap", "--round", str(planned["round"]), str(a), str(b))
    assert result.exit_code == 0 and "swapped" in result.output
    assert f"P{a - ids[0]} ({a})" in result.output  # the tables by name, with the ids a swap takes
    result = run(env, "round", "start", "--round", str(planned["round"]), "--json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.output)["games"]) == 2
    result = run(env, "round", "start", "--round", str(planned["round"]))
    assert result.exit_code == 1 and "already started" in result.output


def test_a_season_with_divisions_places_its_players_by_rating_as_its_first_round_starts(embedded: Stack) -> None:
    """Without it a league's first season had no divisions at all: its standings were one table, and the next
    season's promotion and relegation moved nobody."""
    league_id = make_league(embedded.db, table_size=3)
    season_id = seasons.create_season(
        embedded.db, league_id, T0 + DAY, 2, "when_over", None, now=T0, sizes=seasons.Sizes(divisions=2, promote=1)
    )
    ids = enter(embedded.db, season_id, 6)
    with embedded.db.session() as session:  # p5 rated best in the league, p4 next; the rest unrated (by id)
        session.add(RatingRow(player_id=ids[5], scope=league_id, mu=40.0, sigma=2.0, games=5, updated_at=T0))
        session.add(RatingRow(player_id=ids[4], scope=league_id, mu=30.0, sigma=2.0, games=5, updated_at=T0))
    rounds.start(embedded.db, rounds.plan(embedded.db, season_id, T0), T0)
    with embedded.db.session() as session:
        found = dict(session.execute(sa.select(SeasonPlayer.player_id, SeasonPlayer.division)).all())
    assert found == {ids[5]: "1", ids[4]: "1", ids[0]: "1", ids[1]: "2", ids[2]: "2", ids[3]: "2"}


def test_each_division_plays_at_its_own_tables_and_one_too_small_for_a_table_joins_its_neighbour(
    embedded: Stack,
) -> None:
    """Promotion and relegation mean something only when a division's players meet one another: a round never
    mixes divisions, unless a division has fewer available players than a table needs."""
    league_id = make_league(embedded.db, table_size=3)
    season_id = seasons.create_season(
        embedded.db, league_id, T0 + DAY, 3, "when_over", None, now=T0, sizes=seasons.Sizes(divisions=2, promote=1)
    )
    ids = enter(embedded.db, season_id, 9)
    division = {pid: ("1" if i < 3 else "2") for i, pid in enumerate(ids)}  # three in division 1, six in 2
    for pid, name in division.items():
        set_entry(embedded.db, pid, division=name)
    tables = tables_of(embedded.db, rounds.plan(embedded.db, season_id, T0))
    assert sorted(len(t) for t in tables) == [3, 3, 3]
    assert all(len({division[p] for p in table}) == 1 for table in tables)  # no table mixes divisions
    assert sorted(p for t in tables for p in t) == sorted(ids)
    # the organiser may not swap players of two divisions (nothing changes), but may within one
    round_id = rounds.plan(embedded.db, season_id, T0)
    tables = tables_of(embedded.db, round_id)
    first, second = next(t for t in tables if division[t[0]] == "1"), [t for t in tables if division[t[0]] == "2"]
    refused(embedded.db, lambda: rounds.swap(embedded.db, round_id, first[0], second[0][0]), "different divisions")
    swapped = rounds.swap(embedded.db, round_id, second[0][0], second[1][0])
    assert second[0][0] in next(t for t in swapped if second[1][0] not in t and division[t[0]] == "2")
    # two of division 1 say they will miss round 1: the one left cannot make a table and plays with division 2
    set_entry(embedded.db, ids[0], skips=[1])
    set_entry(embedded.db, ids[1], skips=[1])
    tables = tables_of(embedded.db, rounds.plan(embedded.db, season_id, T0))
    assert sorted(p for t in tables for p in t) == sorted(ids[2:])
    assert all(3 <= len(t) <= 6 for t in tables)


# --- seating with acquaintances; a round that cannot be seated -------------------------------------------------------


def test_six_players_of_a_size_5_league_with_a_known_pair_are_planned_three_and_three(stack: Stack) -> None:
    """One table of 6 is the league's preferred seating of six players, but it cannot keep a declared pair apart:
    the round was refused ("cannot all sit at different tables"); it is now two tables of 3, the pair apart."""
    season = make_season(stack.db, make_league(stack.db, table_size=5))
    ids = enter(stack.db, season, 6)
    set_entry(stack.db, ids[0], knows=["p1@example.org"])
    tables = tables_of(stack.db, rounds.plan(stack.db, season, T0))
    assert sorted(map(len, tables)) == [3, 3] and sorted(seated(tables)) == sorted(ids)
    assert not any(ids[0] in t and ids[1] in t for t in tables)


@pytest.mark.parametrize("count", [12, 13, 14])
def test_two_divisions_with_a_known_pair_in_one_are_planned(stack: Stack, count: int) -> None:
    """12-14 players in two divisions: a division of 6 sat as one table of 6, so a known pair in it blocked the
    season; each division now plays at its own tables with the pair apart."""
    league_id = make_league(stack.db, table_size=5)
    season = seasons.create_season(
        stack.db, league_id, T0 + DAY, 3, "when_over", None, now=T0, sizes=seasons.Sizes(divisions=2, promote=1)
    )
    ids = enter(stack.db, season, count)
    division = {pid: ("1" if i < count // 2 else "2") for i, pid in enumerate(ids)}
    for pid, name in division.items():
        set_entry(stack.db, pid, division=name)
    for first in (0, count // 2):  # a pair in each division (6 or 7 players each)
        set_entry(stack.db, ids[first], knows=[f"p{first + 1}@example.org"])
    tables = tables_of(stack.db, rounds.plan(stack.db, season, T0))
    assert sorted(seated(tables)) == sorted(ids)
    assert all(len({division[p] for p in table}) == 1 for table in tables)
    for first in (0, count // 2):
        assert not any(ids[first] in t and ids[first + 1] in t for t in tables)


def unseatable_season(db: Database, **league: Any) -> tuple[int, int, list[int]]:
    """A running "when_over" season whose first round is over and whose second cannot be seated: three players left
    for round 2, two of whom declared they know each other. (league id, season id, player ids)"""
    league_id = make_league(db, table_size=3, **league)
    season = make_season(db, league_id, rounds=2)
    ids = enter(db, season, 4)
    with db.session() as session:
        s = session.get(Season, season)
        assert s is not None
        s.status = SeasonStatus.RUNNING
        session.add(LeagueRound(season_id=season, number=1, status=RoundStatus.OVER, tables=[ids], started_at=T0))
    set_entry(db, ids[3], skips=[2])
    set_entry(db, ids[0], knows=["p1@example.org"])
    return league_id, season, ids


def test_a_round_that_cannot_be_seated_tells_the_organiser_once_and_clears_once_seated(stack: Stack) -> None:
    """The sweep skipped a due round it could not seat without telling anyone: the season stalled. Now the reason is
    kept on the season, the league's organiser address gets one mail (not one a minute), and a round seated clears
    it."""
    _, season, ids = unseatable_season(stack.db, organiser_email="Org@Example.org")
    handler = CountingHandler()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:  # each minute: the sweep, then the due mail sent over real SMTP
        transport = SMTPTransport.from_url(f"smtp://127.0.0.1:{controller.port}?timeout=5")
        for minute in range(3):
            assert rounds.sweep(stack.db, T0 + timedelta(minutes=minute)) == 0
            send_batch(stack.db, transport, mail_settings(stack.settings), T0 + timedelta(minutes=minute))
    finally:
        controller.stop()
    assert len(handler.accepted) == 1  # once per stall, not once a minute
    sent = message_from_bytes(handler.accepted[0], policy=policy.default)
    assert sent["To"] == "org@example.org" and "round 2 of season 1 cannot be seated" in str(sent["Subject"])
    mails = rows_of_kind(stack.db, MailKind.ROUND_UNSEATED)
    assert len(mails) == 1
    with stack.db.session() as session:
        organiser = session.get(Player, mails[0].player_id)
        s = session.get(Season, season)
        assert organiser is not None and organiser.email == "org@example.org" and s is not None
        assert s.unseated is not None and s.unseated["round"] == 2 and "know each other" in s.unseated["msgid"]
        assert s.unseated["since"] == T0.isoformat()
    message = compose(stack.db, mails[0].id, mail_settings(stack.settings), now=T0)
    assert message is not None and message["To"].addresses[0].addr_spec == "org@example.org"
    text = text_of(message)
    assert "Round 2 of season 1 of Tuesday is due" in text and "know each other" in text
    token = re.search(r"/lo/([^/\s]+)/season/(\d+)", text)
    assert token is not None and int(token.group(2)) == season
    page = stack.client.get(f"/lo/{token.group(1)}/season/{season}")
    shown = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.get_data(as_text=True)))
    assert page.status_code == 200 and "Round 2 is due but cannot be seated" in shown and "know each other" in shown
    set_entry(stack.db, ids[0], knows=None)  # the declaration is taken back: the three are seated and start
    assert rounds.sweep(stack.db, T0 + timedelta(minutes=5)) == 1
    with stack.db.session() as session:
        s = session.get(Season, season)
        assert s is not None and s.unseated is None
    assert len(rows_of_kind(stack.db, MailKind.ROUND_UNSEATED)) == 1
    assert compose(stack.db, mails[0].id, mail_settings(stack.settings), now=T0) is None  # seated: nothing to tell
    page = stack.client.get(f"/lo/{token.group(1)}/season/{season}")
    assert "cannot be seated" not in page.get_data(as_text=True)


def test_a_round_that_cannot_be_seated_without_an_organiser_address_is_shown_only(stack: Stack) -> None:
    _, season, _ = unseatable_season(stack.db)
    assert rounds.sweep(stack.db, T0) == 0
    assert rows_of_kind(stack.db, MailKind.ROUND_UNSEATED) == []
    with stack.db.session() as session:
        s = session.get(Season, season)
        assert s is not None and s.unseated is not None


def test_a_league_takes_its_organisers_address(stack: Stack) -> None:
    league_id = make_league(stack.db, organiser_email=" Org@Example.org ")
    with stack.db.session() as session:
        assert session.get(League, league_id).organiser_email == "org@example.org"  # type: ignore[union-attr]
    before = all_rows(stack.db)
    with pytest.raises(seasons.LeagueError, match="not an e-mail address"):
        make_league(stack.db, organiser_email="not an address")
    assert all_rows(stack.db) == before


# --- acquaintances carried over to the next season -------------------------------------------------------------------


def next_season_of(stack: Stack, count: int, knows: dict[int, list[str]]) -> tuple[int, list[int]]:
    """A finished season of ``count`` players of a league of size 3 (``knows``: index -> addresses declared), and
    its next season (promotion.next_season): the new season's id, the players."""
    season = make_season(stack.db, make_league(stack.db, table_size=3), rounds=3)
    ids = enter(stack.db, season, count)
    for index, addresses in knows.items():
        set_entry(stack.db, ids[index], knows=addresses)
    with stack.db.session() as session:
        s = session.get(Season, season)
        assert s is not None
        s.status = SeasonStatus.OVER
    return promotion.next_season(stack.db, season, T0 + 7 * DAY, T0), ids


def confirm_all(stack: Stack, season: int, knows: dict[int, str] | None = None) -> None:
    """Follow each pending entry's confirmation link (``knows``: player id -> the list typed on the page)."""
    with stack.db.session() as session:
        pending = session.execute(sa.select(SeasonPlayer).where(SeasonPlayer.season_id == season)).scalars().all()
        links = {e.player_id: confirm_token(stack.settings.secret_key, e.id, e.confirm_generation) for e in pending}
    for player_id, token in links.items():
        typed = (knows or {}).get(player_id)
        seasons.confirm(stack.db, stack.settings.secret_key, token, stack.settings.link_max_age, T0, knows=typed)


def test_acquaintances_carry_over_to_the_next_season_and_keep_its_rounds_and_swaps_apart(stack: Stack) -> None:
    """Pairs kept apart all season 1 shared tables in season 2 (the next season lost ``knows``, and confirming
    cleared it): they are carried, kept apart in each round, and a swap that would seat them together is refused."""
    created, ids = next_season_of(stack, 9, {0: ["p1@example.org"], 2: ["p3@example.org"]})
    with stack.db.session() as session:
        carried = dict(
            session.execute(
                sa.select(SeasonPlayer.player_id, SeasonPlayer.knows).where(SeasonPlayer.season_id == created)
            ).all()
        )
    assert carried[ids[0]] == ["p1@example.org"] and carried[ids[2]] == ["p3@example.org"] and carried[ids[4]] is None
    link = seasons.confirmation(stack.db, stack.settings.secret_key, token_of(stack, created, ids[0]), 3600)
    assert link.knows == ["p1@example.org"]  # shown on the confirmation page, to change there
    confirm_all(stack, created)
    for k in range(3):
        with stack.db.session() as session:
            rnd = rounds.start_next(session, session.get(Season, created), T0 + (k + 8) * DAY)  # type: ignore[arg-type]
        assert rnd is not None
        tables = tables_of(stack.db, rnd)
        for a, b in ((ids[0], ids[1]), (ids[2], ids[3])):
            assert not any(a in t and b in t for t in tables), (k, tables)
    with stack.db.session() as session:  # the last round planned again, still planned, to try a swap
        session.execute(sa.update(LeagueRound).where(LeagueRound.id == rnd).values(status=RoundStatus.PLANNED))
    tables = tables_of(stack.db, rnd)
    mate = next(p for p in next(t for t in tables if ids[1] in t) if p != ids[1])
    refused(stack.db, lambda: rounds.swap(stack.db, rnd, ids[0], mate), "declared they know")


def token_of(stack: Stack, season: int, player_id: int) -> str:
    with stack.db.session() as session:
        entry = session.execute(
            sa.select(SeasonPlayer).where(SeasonPlayer.season_id == season, SeasonPlayer.player_id == player_id)
        ).scalar_one()
        return confirm_token(stack.settings.secret_key, entry.id, entry.confirm_generation)


def test_the_carried_acquaintances_are_changed_as_the_player_confirms(stack: Stack) -> None:
    created, ids = next_season_of(stack, 6, {0: ["p1@example.org"]})
    before = all_rows(stack.db)
    with pytest.raises(seasons.LeagueError, match="not an e-mail address"):
        seasons.confirm(stack.db, stack.settings.secret_key, token_of(stack, created, ids[0]), 3600, T0, knows="nope")
    assert all_rows(stack.db) == before  # refused: still pending, the list unchanged
    confirm_all(stack, created, {ids[0]: "P2@example.org\n", ids[3]: "p4@example.org, p5@example.org"})
    with stack.db.session() as session:
        now = dict(
            session.execute(
                sa.select(SeasonPlayer.player_id, SeasonPlayer.knows).where(SeasonPlayer.season_id == created)
            ).all()
        )
    assert now[ids[0]] == ["p2@example.org"] and now[ids[3]] == ["p4@example.org", "p5@example.org"]
    assert now[ids[1]] is None
