"""A whole league season on an injected clock: a league and its season created
through the JSON API (2 divisions, promote 1, a fixed weekly schedule), 12 players signed up through the API and
confirmed by the mailed link (one declared acquaintance pair), 3 rounds started by the worker's sweep at their start,
every game played to the end by people answering through the seat API (``turns.bot_choice`` answers) while the real
worker closes the windows; at every step the fixtures, the standings (against ``scoring`` over the games' outcomes),
the ratings (against ``openskill`` called directly) and both ICS feeds; the league mails queued once per player;
and the next season created with promotion and relegation. On both setups."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from itertools import combinations
from typing import Any

import pytest
import sqlalchemy as sa
from celery import Celery
from icalendar import Calendar
from openskill.models import PlackettLuce

from server.models import (
    EntryStatus,
    Game,
    League,
    LeagueRound,
    MailKind,
    RatingRow,
    RequestRow,
    RoundStatus,
    Season,
    SeasonPlayer,
    SeasonStatus,
    Seat,
    Window,
    WindowStatus,
    utcnow,
)
from server.services import calendar
from server.services.leagues import promotion, schedule, scoring, seating, standings
from server.services.links import seat_token
from server.services.play import turns
from server.services.play.places import outcome_places
from tests.conftest import Stack
from tests.support import AUTH, check_game, compose, mail_settings, rows_of_kind, sweep, text_of

from ..waiting import wait_for
from .conftest import TaskLog

PLAYERS = 12
ROUNDS = 3
RULE = {"weekday": 0, "time": "18:00"}
ZONE = "Europe/Warsaw"
#: how long the worker may take to close the windows of a round's games (seconds)
ADVANCE_S = 60.0
HOST = "deadmail.test"


# --- helpers: the API, the mails, the feeds --------------------------------------------------------------------------


def api(stack: Stack, method: str, path: str, status: int, **kwargs: Any) -> dict[str, Any]:
    reply = getattr(stack.client, method)(path, **kwargs)
    assert reply.status_code == status, (path, reply.get_data(as_text=True))
    return dict(reply.json or {})


def applicant(i: int) -> dict[str, str]:
    """Player ``i``: p0 declares that they know p1; a few keep quiet hours in their own zone."""
    body = {"name": f"Player {i}", "email": f"p{i}@example.org", "timezone": ("Europe/Rome", "America/New_York")[i % 2]}
    if i % 3 == 0:
        body |= {"quiet_start": "23:00", "quiet_end": "07:00"}
    if i == 0:
        body["knows"] = "p1@example.org"
    return body


def confirm_every_mailed_link(stack: Stack) -> None:
    """Follow the link of every confirmation mail (as each player does from their own mail)."""
    for row in rows_of_kind(stack.db, MailKind.LEAGUE_CONFIRM):
        message = compose(stack.db, row.id, mail_settings(stack.settings))
        assert message is not None
        (path,) = re.findall(r"https?://[^/\s]+(/l/confirm/\S+)", text_of(message))
        assert api(stack, "post", f"/api{path}", 200)["already"] is False


def events(body: bytes) -> dict[str, Any]:
    return {str(event["UID"]): event for event in Calendar.from_ical(body).walk("VEVENT")}


def feed(stack: Stack, path: str) -> dict[str, Any]:
    """A feed fetched and parsed back; never a seat's link in it."""
    reply = stack.client.get(path)
    assert reply.status_code == 200 and reply.content_type.startswith("text/calendar")
    assert "/s/" not in reply.get_data(as_text=True)
    return events(reply.data)


def round_uids(league_id: int, numbers: list[int]) -> set[str]:
    return {f"league-{league_id}-season-1-round-{n}@{HOST}" for n in numbers}


# --- helpers: reading the season -------------------------------------------------------------------------------------


def entries(stack: Stack, season_id: int) -> dict[int, SeasonPlayer]:
    with stack.db.session() as session:
        found = session.execute(sa.select(SeasonPlayer).where(SeasonPlayer.season_id == season_id)).scalars()
        return {entry.player_id: entry for entry in found}


def season_rounds(stack: Stack, season_id: int) -> list[LeagueRound]:
    with stack.db.session() as session:
        query = sa.select(LeagueRound).where(LeagueRound.season_id == season_id).order_by(LeagueRound.number)
        return list(session.execute(query).scalars())


def round_games(stack: Stack, round_id: int) -> list[Game]:
    with stack.db.session() as session:
        found = session.execute(sa.select(Game).where(Game.round_id == round_id).order_by(Game.id)).scalars().all()
        for game in found:
            _ = [seat.player_id for seat in game.seats]  # loaded before the session ends
        return list(found)


def mails(stack: Stack, story: Story, kind: MailKind) -> Counter[tuple[Any, int | None]]:
    """(the mail's round or season, its player) -> how many were queued, counting rows seen at earlier checks too
    (the sweep prunes sent rows a few days old on the injected clock)."""
    for row in rows_of_kind(stack.db, kind):
        story.seen[row.id] = (
            kind,
            (row.payload or {}).get("round") or (row.payload or {}).get("season"),
            row.player_id,
        )
    return Counter((about, player) for of, about, player in story.seen.values() if of == kind)


# --- helpers: the checks at every step -------------------------------------------------------------------------------


def check_fixtures(stack: Stack, season_id: int, number: int, players: list[int], pair: frozenset[int]) -> None:
    """Every confirmed player seated once, tables of 3 to 6, the acquaintances apart, each division at its own tables,
    and in each division as few repeat opponents as the exact optimum allows (``seating.exact`` on its players)."""
    found = season_rounds(stack, season_id)
    tables = found[number - 1].tables or []
    assert sorted(pid for table in tables for pid in table) == sorted(players)
    assert all(3 <= len(table) <= 6 for table in tables)
    assert not any(pair <= set(table) for table in tables)
    division = {pid: e.division for pid, e in entries(stack, season_id).items()}
    assert all(len({division[pid] for pid in table}) == 1 for table in tables)
    met: Counter[seating.Pair] = Counter()
    for earlier in found[: number - 1]:
        met.update(frozenset(p) for table in earlier.tables or [] for p in combinations(table, 2))
    for name in set(division.values()):
        mine = [pid for pid in players if division[pid] == name]
        rnd = seating.Round([seating.Available(pid) for pid in mine], size=3, met=met, acquainted=[pair])
        best = seating.score(rnd, seating.exact(rnd)).repeats
        assert seating.score(rnd, [t for t in tables if division[t[0]] == name]).repeats == best
        if number == 1:
            assert best == 0


def check_standings(stack: Stack, season_id: int) -> standings.Standings:
    """The season's standings as the server shows them, against ``scoring`` over the finished games' outcomes."""
    divisions = {e.player_id: str(e.division) for e in entries(stack, season_id).values()}
    with stack.db.session() as session:
        season = session.get(Season, season_id)
        league = session.get(League, season.league_id)  # type: ignore[union-attr]
        assert league is not None
        over = session.execute(
            sa.select(Game)
            .join(LeagueRound, LeagueRound.id == Game.round_id)
            .where(LeagueRound.season_id == season_id, Game.status == "over")
            .order_by(Game.id)
        ).scalars()
        played = []
        for game in over:
            assert all(seat.autopilot_at is None and seat.bot is None for seat in game.seats)
            credits = {seat.colour: scoring.Credit(seat.player_id) for seat in game.seats}
            played.append(scoring.from_outcome(game.id, game.outcome or {}, credits))
        expected = scoring.standings_by_division(
            played, divisions, league.scoring, list(league.tie_breaks), league.forfeit
        )
    shown = standings.standings(stack.db, season_id)
    got = {
        name: [(r["player"], r["rank"], r["games"], r["points"], r["wins"]) for r in rows]
        for name, rows in shown.divisions
    }
    want = {
        name: [(r.player, r.rank, r.games, round(r.points, 6), r.wins) for r in rows] for name, rows in expected.items()
    }
    assert got == want
    assert shown.substitutes == []
    return shown


def check_ratings(stack: Stack, league_id: int, games_by_round: list[list[Game]]) -> None:
    """The stored ratings (across all games, and the league's) against openskill's Plackett–Luce replayed over the
    same games: round by round (the tables of a round share no player, so their order within it changes nothing)."""
    model = PlackettLuce()
    rated: dict[int, Any] = {}
    counted: Counter[int] = Counter()
    for games in games_by_round:
        for game in games:
            with stack.db.session() as session:
                stored = session.get(Game, game.id)
                assert stored is not None and stored.outcome
                places = {colour: place for colour, place, _span, _points in outcome_places(stored.outcome)}
                seats = [(seat.player_id, places[seat.colour]) for seat in stored.seats]
            teams = [[rated.get(pid) or model.rating()] for pid, _place in seats]
            after = model.rate(teams, ranks=[place for _pid, place in seats])
            for (pid, _place), (rating,) in zip(seats, after, strict=True):
                rated[pid] = rating
                counted[pid] += 1
    with stack.db.session() as session:
        for scope in (0, league_id):
            rows = session.execute(sa.select(RatingRow).where(RatingRow.scope == scope)).scalars().all()
            assert {row.player_id for row in rows} == set(rated)
            for row in rows:
                want = rated[row.player_id]
                assert (row.mu, row.sigma, row.games) == (
                    pytest.approx(want.mu, abs=1e-9),
                    pytest.approx(want.sigma, abs=1e-9),
                    counted[row.player_id],
                )


def check_feeds(stack: Stack, story: Story, upcoming: list[int]) -> None:
    """Each player's feed lists every decision they owe with its deadline, and the rounds still to start; the
    league's feed lists those round starts."""
    assert set(feed(stack, f"/calendar/league/{story.public}.ics")) == round_uids(story.league_id, upcoming)
    owed: dict[int, dict[str, datetime]] = {pid: {} for pid in story.players}
    with stack.db.session() as session:
        rows = session.execute(
            sa.select(Seat.player_id, Game.id, Window.number, Seat.id, Window.deadline)
            .select_from(RequestRow)
            .join(Window, Window.id == RequestRow.window_id)
            .join(Seat, Seat.id == RequestRow.seat_id)
            .join(Game, Game.id == Seat.game_id)
            .where(Window.status == "open", Game.status == "running", RequestRow.answered_at.is_(None))
        ).all()
    for pid, game_id, window, seat_id, deadline in rows:
        at = deadline if deadline.tzinfo else deadline.replace(tzinfo=UTC)
        owed[pid][f"deadline-{game_id}-{window}-{seat_id}@{HOST}"] = at
    for pid in story.players:
        token = calendar.address(stack.db, stack.settings.secret_key, pid)
        found = feed(stack, f"/calendar/{token}.ics")
        deadlines = {uid: event for uid, event in found.items() if uid.startswith("deadline-")}
        assert {uid: event["DTEND"].dt for uid, event in deadlines.items()} == owed[pid]
        assert set(found) - set(deadlines) == round_uids(story.league_id, upcoming)


# --- helpers: playing a round ----------------------------------------------------------------------------------------


def status_of(stack: Stack, game_id: int) -> dict[str, Any]:
    return api(stack, "get", f"/api/games/{game_id}", 200, headers=AUTH)


def answer_window(stack: Stack, game: Game, number: int, seed: int) -> None:
    """Every seat of the game that owes an answer in window ``number`` answers through the seat API (all read first:
    the last answer lets the worker move on)."""
    tokens = {seat.id: seat_token(stack.settings.secret_key, seat.id, seat.link_generation) for seat in game.seats}
    views = {seat_id: api(stack, "get", f"/api/seat/{token}", 200) for seat_id, token in tokens.items()}
    for seat_id, view in views.items():
        window = view["window"]
        assert window["number"] == number
        if window["request"] is None:
            continue
        answer = turns.bot_choice(stack.db, seat_id, "random", seed * 1009 + number * 7 + seat_id)
        body = {"kind": window["request"]["kind"], "window": number, "answer": answer}
        if api(stack, "post", f"/api/seat/{tokens[seat_id]}/answer", 200, json=body)["complete"]:
            break  # a vote closed once decided takes no more votes


def play_round(stack: Stack, games: list[Game], seed: int, first_window: Any) -> None:
    """Play the round's games side by side to their end; ``first_window()`` is called once every game has opened its
    first window (the feeds are checked there)."""
    answered = {game.id: 0 for game in games}
    first_window()
    while True:
        shown = {game.id: status_of(stack, game.id) for game in games}
        running = [game for game in games if shown[game.id]["status"] == "running"]
        if not running:
            break
        for game in running:
            window = shown[game.id]["window"]
            if window is not None and window["number"] != answered[game.id]:
                answer_window(stack, game, window["number"], seed + game.id)
                answered[game.id] = window["number"]

        def moved(running: list[Game] = running) -> bool:
            """Each running game ended or opened a window after the one answered. Read in one query, not through
            the API (whose game answer is checked once a window above): polling it took a fifth of this test's CPU
            from the worker it waits for."""
            opened = sa.func.max(Window.number).filter(Window.status == WindowStatus.OPEN)
            with stack.db.session() as session:
                now = session.execute(
                    sa.select(Game.id, Game.status, opened)
                    .outerjoin(Window, Window.game_id == Game.id)
                    .where(Game.id.in_([game.id for game in running]))
                    .group_by(Game.id, Game.status)
                ).all()
            return all(status != "running" or number not in (None, answered[id_]) for id_, status, number in now)

        wait_for(moved, ADVANCE_S, "the worker to close the round's windows")
    for game in games:
        assert check_game(stack.db, game.id).over


# --- the story -------------------------------------------------------------------------------------------------------


@dataclass
class Story:
    """The league and season under test, its players (ids in sign-up order) and the declared acquaintance pair."""

    league_id: int
    public: str
    season_id: int
    starts: list[datetime]
    players: list[int]
    pair: frozenset[int]
    #: every league mail row seen so far: id -> (kind, its round or season, its player) (``mails``).
    seen: dict[int, tuple[MailKind, Any, int | None]] = field(default_factory=dict)


def open_season(stack: Stack) -> Story:
    """A league and its season (2 divisions, promote 1) through the API; twelve sign-ups through the invitation link,
    each confirmed by the mailed link."""
    body = {"name": "Monday Mall", "timezone": ZONE, "table_size": 3, "scoring": "placement", "standings_public": True}
    league = api(stack, "post", "/api/leagues", 201, headers=AUTH, json=body)
    league_id = league["id"]
    closes = (utcnow() + timedelta(days=1)).replace(microsecond=0)
    body = {"signup_closes": closes.isoformat(), "rounds": ROUNDS, "schedule": "fixed", "rule": RULE}
    season = api(
        stack,
        "post",
        f"/api/leagues/{league_id}/seasons",
        201,
        headers=AUTH,
        json=body | {"divisions": 2, "promote": 1},
    )
    (shown,) = api(stack, "get", f"/api/leagues/{league_id}", 200, headers=AUTH)["seasons"]
    assert (season["number"], shown["divisions"], shown["promote"]) == (1, 2, 1)
    invite = league["links"]["invite"]["token"]
    for i in range(PLAYERS):
        api(stack, "post", f"/api/l/{invite}/signup", 202, json=applicant(i))
    confirm_every_mailed_link(stack)
    signed = entries(stack, season["id"])
    assert [e.status for e in signed.values()] == [EntryStatus.CONFIRMED] * PLAYERS
    players = sorted(signed)
    pair = frozenset(players[:2])  # p0 and p1, signed up first
    assert (signed[players[0]].knows, signed[players[1]].knows) == (["p1@example.org"], None)
    starts = schedule.round_starts(RULE, ZONE, closes, ROUNDS)
    return Story(league_id, league["links"]["public"]["token"], season["id"], starts, players, pair)


def start_and_play(stack: Stack, worker: Celery, task_log: TaskLog, story: Story, number: int) -> list[Game]:
    """Round ``number``: started by the worker's sweep at its start (not a minute before, once), its fixtures
    checked, its games played to the end; the feeds checked while the games' first windows are open."""
    at = story.starts[number - 1]
    assert sweep(worker, task_log, at - timedelta(minutes=1))["rounds"] == 0
    assert sweep(worker, task_log, at)["rounds"] == 1
    assert sweep(worker, task_log, at + timedelta(minutes=1))["rounds"] == 0
    check_fixtures(stack, story.season_id, number, story.players, story.pair)
    games = round_games(stack, season_rounds(stack, story.season_id)[number - 1].id)
    assert len(games) == PLAYERS // 3
    upcoming = list(range(number + 1, ROUNDS + 1))
    play_round(stack, games, 1000 * number, partial(check_feeds, stack, story, upcoming))
    assert season_rounds(stack, story.season_id)[number - 1].status == RoundStatus.OVER
    return games


def check_round_over(stack: Stack, story: Story, games_by_round: list[list[Game]]) -> None:
    """After a round: standings, ratings, feeds, and one fixtures and one results mail per player and round."""
    check_standings(stack, story.season_id)
    check_ratings(stack, story.league_id, games_by_round)
    check_feeds(stack, story, list(range(len(games_by_round) + 1, ROUNDS + 1)))
    round_ids = [r.id for r in season_rounds(stack, story.season_id)]
    once = Counter({(r, p): 1 for r in round_ids for p in story.players})
    assert mails(stack, story, MailKind.LEAGUE_FIXTURES) == once
    assert mails(stack, story, MailKind.LEAGUE_RESULTS) == once


def check_next_season(stack: Stack, story: Story) -> None:
    """The next season, created from the last in one step: everyone carried over pending (mailed a confirmation),
    the winner of division 2 promoted and the last of division 1 relegated."""
    first, second = (rows for _name, rows in check_standings(stack, story.season_id).divisions)
    later = story.starts[-1] + timedelta(days=1)
    created = promotion.next_season(stack.db, story.season_id, later + timedelta(days=7), later)
    expected = {row["player"]: "1" for row in first} | {row["player"]: "2" for row in second}
    expected[first[-1]["player"]], expected[second[0]["player"]] = "2", "1"
    carried = {pid: (e.status, e.division) for pid, e in entries(stack, created).items()}
    assert carried == {pid: (EntryStatus.PENDING, division) for pid, division in expected.items()}
    assert len(rows_of_kind(stack.db, MailKind.LEAGUE_CONFIRM)) == 2 * PLAYERS


@pytest.mark.long(60)
@pytest.mark.parametrize("stack", ["embedded", "production"], indirect=True)
def test_a_whole_season_is_played_on_an_injected_clock(stack: Stack, worker: Celery, task_log: TaskLog) -> None:
    stack.app.config["DEADMAIL_ANSWERS_PER_MINUTE"] = 100_000  # the people answer at machine speed from one address
    stack.app.config["DEADMAIL_LINKS_PER_MINUTE"] = 100_000
    story = open_season(stack)
    check_feeds(stack, story, upcoming=[1, 2, 3])

    games_by_round: list[list[Game]] = []
    for number in range(1, ROUNDS + 1):
        games_by_round.append(start_and_play(stack, worker, task_log, story, number))
        if number == 1:  # the divisions were placed as the season started: by rating, none yet, so by sign-up
            divisions = {pid: e.division for pid, e in entries(stack, story.season_id).items()}
            assert divisions == {pid: "1" if k < PLAYERS // 2 else "2" for k, pid in enumerate(story.players)}
        check_round_over(stack, story, games_by_round)

    with stack.db.session() as session:
        assert session.get(Season, story.season_id).status == SeasonStatus.OVER  # type: ignore[union-attr]
    assert mails(stack, story, MailKind.SEASON_END) == Counter({(story.season_id, p): 1 for p in story.players})
    assert sweep(worker, task_log, story.starts[-1] + timedelta(days=7))["rounds"] == 0  # no fourth round

    check_next_season(stack, story)
    assert task_log.failures == []
