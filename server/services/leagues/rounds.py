"""League rounds (fixtures): planning a season's next round, the organiser's swap, starting it (one game
per table, each player mailed their table), the next round of a "when_over" season, and the fixed schedule's sweep.

- ``plan`` seats the season's next round with ``seating.seat`` (pure) at the league's table size and stores the
  tables in ``LeagueRound.tables`` (status planned). Available: confirmed entries, minus those who said they skip
  the round (``SeasonPlayer.skips``), minus those away (an ``Absence`` covering the round's start; now when it has
  none). Repeat opponents: the tables of the season's earlier rounds. Declared acquaintances (``SeasonPlayer.knows``,
  addresses): a pair is kept apart when either declared the other. Planning again while the latest round is still
  planned seats that round again (its tables replaced); past the season's last round it is refused. A fixed schedule
  sets the round's ``starts_at`` from ``schedule.round_starts``. A season with divisions first places its confirmed
  players without one by rating (``promotion.place_divisions``), then seats each division at its own tables; a division
  with fewer than 3 available players joins the one above it (or below).
- ``swap`` exchanges two players of a planned round (``seating.swap``): refused when it would seat declared
  acquaintances together, or once the round started.
- ``start`` (``start_round`` in the caller's transaction) plans the round first when it has no tables, or when who is
  available changed since it was planned (a withdrawal, a missed round, an absence, a new confirmation), creates one
  game per table with the league's options and tempo preset (``games.create_in``: windows open, turn mails queued),
  ``Game.round_id`` set, the seats in the stored order of the table; the season goes from sign-up to running at its
  first round (pending sign-ups stay out); each player gets one ``league_fixtures`` mail (key
  ``fixtures:<round>:<player>``) with their game, and the table's estimate (``services.play.estimate``) in its payload.
  A round started twice is refused.
- ``start_next`` plans and starts the season's next round in the caller's transaction (a round the organiser
  planned already is started as it stands: their swaps kept); None once every round was played.
- ``sweep`` (every minute) starts the due round of every season (at most one per season and call): a fixed
  schedule's at its time (its planned round as it stands), a "when_over" season's once every table of its last
  round is over (the game that ends a round cannot start the next in its own transaction: ``rounds`` imports
  ``games``, whose end calls ``game_end``).
  The season's row is locked, so two workers start it once. A due round that cannot be seated (too few available
  players, acquaintances no split keeps apart) is not skipped silently: the reason is kept on the season
  (``Season.unseated``, shown on the league organiser's season page) and the league's organiser address
  (``League.organiser_email``, when set) gets one ``round_unseated`` mail per stall; the sweep tries again each
  minute, and a round seated (by the sweep or the organiser) clears it.

Every refusal is a ``RoundError`` raised before anything is written: nothing changes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, time
from functools import reduce
from itertools import combinations
from operator import and_
from typing import Any, TypedDict

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ...db import Database
from ...models import (
    EntryStatus,
    Game,
    League,
    LeagueRound,
    MailKind,
    Player,
    RoundStatus,
    Season,
    SeasonPlayer,
    SeasonStatus,
    StallJSON,
    utcnow,
)
from ..channel import events as channel_events
from ..errors import N_, ShownError
from ..mailflow import outbox
from ..play import autopilot, estimate, games
from ..play.engines import CACHE
from ..tempo import parse_clock
from . import promotion, schedule, seasons, seating

#: games simulated for the estimate mailed with a round's table (fewer than a single game's: one per table).
ESTIMATE_GAMES = 60

NO_ROUND = N_("There is no round %(round)s.")
ALL_PLANNED = N_("Season %(season)s has %(count)s rounds, all planned already: nothing was changed.")
SEASON_OVER = N_("Season %(season)s is over: nothing was changed.")
STARTED = N_("This round already started: nothing was changed.")
NOT_IN_LEAGUE = N_("There is no such round or season in this league.")
SAME_PLAYER = N_("A player cannot be swapped with themselves: choose two different players. Nothing was changed.")
OTHER_DIVISION = N_(
    "These two players play in different divisions, and each division plays at its own tables: nothing was changed."
)


class RoundError(ShownError):
    """A round that cannot be planned, swapped or started as asked; nothing was changed (pages translate it)."""


# --- reading the season ---------------------------------------------------------------------------------------------


def _season(session: Session, season_id: int, *, lock: bool = False) -> Season:
    season = session.get(Season, season_id, with_for_update=lock)
    if season is None:
        raise RoundError(seasons.NO_SEASON, season=season_id)
    return season


def _round(session: Session, round_id: int, *, lock: bool = False) -> LeagueRound:
    rnd = session.get(LeagueRound, round_id, with_for_update=lock)
    if rnd is None:
        raise RoundError(NO_ROUND, round=round_id)
    return rnd


def _rounds(session: Session, season_id: int) -> list[LeagueRound]:
    return list(
        session.execute(
            select(LeagueRound).where(LeagueRound.season_id == season_id).order_by(LeagueRound.number)
        ).scalars()
    )


def _entries(session: Session, season_id: int) -> list[SeasonPlayer]:
    return list(session.execute(SeasonPlayer.confirmed(season_id)).scalars())


def acquainted(session: Session, entries: Iterable[SeasonPlayer]) -> set[frozenset[int]]:
    """Pairs of the entries' players of whom either declared they know the other (by address)."""
    entries = list(entries)
    players = {
        p.id: p for p in session.execute(select(Player).where(Player.id.in_([e.player_id for e in entries]))).scalars()
    }
    by_address = {p.email.lower(): p.id for p in players.values()}
    pairs: set[frozenset[int]] = set()
    for entry in entries:
        for address in entry.knows or []:
            other = by_address.get(str(address).lower())
            if other is not None and other != entry.player_id:
                pairs.add(frozenset((entry.player_id, other)))
    return pairs


def _met(rounds: Iterable[LeagueRound]) -> Counter[seating.Pair]:
    met: Counter[seating.Pair] = Counter()
    for rnd in rounds:
        for table in rnd.tables or []:
            met.update(frozenset(pair) for pair in combinations(table, 2))
    return met


def _available(session: Session, entries: list[SeasonPlayer], number: int, at: datetime) -> list[seating.Available]:
    present = [e.player_id for e in entries if number not in (e.skips or [])]
    away = autopilot.away_until(session, present, at)
    players = session.execute(select(Player).where(Player.id.in_(present)).order_by(Player.id)).scalars()
    return [seating.Available(p.id, _quiet(p), p.timezone or "UTC") for p in players if p.id not in away]


def _by_division(entries: list[SeasonPlayer], players: list[seating.Available]) -> list[list[seating.Available]]:
    """The available players by division ("1", "2", … then those without one), each seated at its own tables; a
    division with fewer than 3 available players (too few for a table) joins the division above it (or below)."""
    division: dict[seating.PlayerId, str] = {e.player_id: e.division or "" for e in entries}
    names = sorted({division[p.id] for p in players}, key=lambda name: (name == "", len(name), name))
    groups = [[p for p in players if division[p.id] == name] for name in names]
    merged: list[list[seating.Available]] = []
    for group in groups:
        if merged and (len(group) < seating.MIN_TABLE or len(merged[-1]) < seating.MIN_TABLE):
            merged[-1] = merged[-1] + group
        else:
            merged.append(group)
    return merged or [[]]


def _quiet(player: Player) -> tuple[time, time] | None:
    if not (player.quiet_start and player.quiet_end):
        return None
    try:
        return parse_clock(player.quiet_start), parse_clock(player.quiet_end)
    except ShownError:
        return None


def _starts_at(session: Session, season: Season, number: int) -> datetime | None:
    if season.schedule != "fixed" or not season.schedule_rule:
        return None
    league = session.get(League, season.league_id)
    assert league is not None
    starts = schedule.round_starts(season.schedule_rule, league.timezone, season.signup_closes, season.rounds)
    return starts[number - 1]


# --- planning -------------------------------------------------------------------------------------------------------


def plan_round(session: Session, season: Season, now: datetime) -> LeagueRound:
    """Seat the season's next round (or its latest one again while planned), in the caller's transaction."""
    if season.status == SeasonStatus.OVER:
        raise RoundError(SEASON_OVER, season=season.number)
    rounds = _rounds(session, season.id)
    rnd: LeagueRound | None = None
    if rounds and rounds[-1].status == RoundStatus.PLANNED:
        rnd = rounds[-1]
    elif len(rounds) >= season.rounds:
        raise RoundError(ALL_PLANNED, season=season.number, count=season.rounds)
    number = rnd.number if rnd else len(rounds) + 1
    starts = _starts_at(session, season, number)
    league = session.get(League, season.league_id)
    assert league is not None
    promotion.place_divisions(session, season)  # (a season with divisions: each plays at its own tables)
    entries = _entries(session, season.id)
    at = starts or now
    met = _met(r for r in rounds if r.number < number)
    pairs = acquainted(session, entries)
    tables: list[list[seating.PlayerId]] = []
    try:
        for k, group in enumerate(_by_division(entries, _available(session, entries, number, at))):
            table_plan = seating.Round(
                players=group,
                size=league.table_size,
                met=met,
                acquainted=pairs,
                seed=season.id * 1000 + number + 100_000 * k,
                day=at.date(),
            )
            tables += seating.seat(table_plan)
    except seating.FixturesError as exc:
        raise RoundError(exc.msgid, **exc.params) from None
    if rnd is None:
        rnd = LeagueRound(season_id=season.id, number=number, status=RoundStatus.PLANNED)
        session.add(rnd)
    rnd.tables = [[int(pid) for pid in table] for table in tables]  # type: ignore[call-overload]
    rnd.starts_at = starts
    season.unseated = None  # (seated: a stall the organiser was told of is over)
    session.flush()
    return rnd


def plan(db: Database, season_id: int, now: datetime) -> int:
    """Plan the season's next round (see the module's text); its id. RoundError, nothing changed, when it cannot."""
    with db.session() as session:
        return plan_round(session, _season(session, season_id, lock=True), now).id


def swap(db: Database, round_id: int, player_a: int, player_b: int) -> list[list[int]]:
    """Exchange two players between the tables of a planned round; the new tables. RoundError (nothing changed):
    the round started, one player twice, a player not seated, players of two divisions, or declared acquaintances
    would sit together."""
    if player_a == player_b:
        raise RoundError(SAME_PLAYER)
    with db.session() as session:
        rnd = _round(session, round_id, lock=True)
        if rnd.status != RoundStatus.PLANNED:
            raise RoundError(STARTED)
        entries = _entries(session, rnd.season_id)
        _same_division(entries, rnd.tables or [], player_a, player_b)
        pairs = acquainted(session, entries)
        try:
            tables = seating.swap(rnd.tables or [], player_a, player_b, pairs)
        except seating.FixturesError as exc:
            raise RoundError(exc.msgid, **exc.params) from None
        rnd.tables = [[int(pid) for pid in table] for table in tables]  # type: ignore[call-overload]
        return rnd.tables


def _same_division(entries: list[SeasonPlayer], tables: list[list[int]], a: int, b: int) -> None:
    """RoundError unless the two players may change tables: of the same division, or one of them at a table that
    already mixes divisions (a division too small for a table of its own, ``_by_division``)."""
    division = {e.player_id: e.division for e in entries}
    if division.get(a) == division.get(b):
        return
    mixed = [len({division.get(pid) for pid in table}) > 1 for table in tables if a in table or b in table]
    if not any(mixed):
        raise RoundError(OTHER_DIVISION)


# --- starting -------------------------------------------------------------------------------------------------------


def start_round(session: Session, rnd: LeagueRound, now: datetime) -> list[int]:
    """Start a round in the caller's transaction (the round's row locked by the caller): its games' ids."""
    if rnd.status != RoundStatus.PLANNED:
        raise RoundError(STARTED)
    season = _season(session, rnd.season_id)
    if not rnd.tables or _changed(session, season, rnd, now):
        rnd = plan_round(session, season, now)
    league = session.get(League, season.league_id)
    assert league is not None
    players = {p.id: p for p in session.execute(select(Player).where(Player.id.in_(_seated(rnd)))).scalars()}
    created: list[tuple[Game, Any]] = []
    for t, table in enumerate(rnd.tables or [], start=1):
        spec = games.GameSpec(
            players=[games.PlayerSpec(name=players[pid].display_name, email=players[pid].email) for pid in table],
            options=dict(league.options or {}),
            timezone=league.timezone,
            preset=league.preset,
            # (the league's name alone: pages and mails say the season, round and table in the reader's language)
            title=league.name[:120],
            seed=(season.id * 7919 + rnd.number * 101 + t) % 2**31,
        )
        try:
            game, eng = games.create_in(session, spec, now)
        except games.GameError as exc:
            raise RoundError(exc.msgid, **exc.params) from None
        game.round_id = rnd.id
        created.append((game, eng))
        _mail_table(session, rnd, t, game, [players[pid] for pid in table], now)
    rnd.status, rnd.started_at = RoundStatus.STARTED, now
    if season.status == SeasonStatus.SIGNUP:
        season.status = SeasonStatus.RUNNING
        promotion.place_divisions(session, season)
    session.flush()
    seated = [
        (game, [players[pid] for pid in table]) for (game, _), table in zip(created, rnd.tables or [], strict=True)
    ]
    channel_events.round_started(session, league, season, rnd, seated, now)
    for game, eng in created:
        CACHE.put(game, eng)  # the version it was created at: a rolled-back game is never read by its id again
    return [game.id for game, _ in created]


def _changed(session: Session, season: Season, rnd: LeagueRound, now: datetime) -> bool:
    """Who is available for the planned round is no longer who its tables seat (a player withdrew, said they will
    miss it, is away, or confirmed since it was planned)."""
    available = _available(session, _entries(session, season.id), rnd.number, rnd.starts_at or now)
    return Counter(_seated(rnd)) != Counter(a.id for a in available)


def _seated(rnd: LeagueRound) -> list[int]:
    return [pid for table in rnd.tables or [] for pid in table]


def _mail_table(
    session: Session, rnd: LeagueRound, table: int, game: Game, people: list[Player], now: datetime
) -> None:
    """Each player's ``league_fixtures`` mail: their seat, the season, round and table, and the table's estimate."""
    sims = [games.sim_seat(p, games.zone_of(game)) for p in people]
    figures = estimate.simulate(
        sims, game.options, game.tempo, games=ESTIMATE_GAMES, seed=game.seed, start=now, replay=True
    )
    guess = {"days_median": figures["days_median"], "days_p90": figures["days_p90"]}
    rows = []
    for seat in game.seats:
        assert seat.player_id is not None
        payload = {"round": rnd.id, "table": table, "game": game.id, "seat": seat.id, "estimate": guess}
        row = outbox.player_mail(
            seat.player_id, MailKind.LEAGUE_FIXTURES, f"fixtures:{rnd.id}:{seat.player_id}", payload, now
        )
        row.game_id = game.id
        rows.append(row)
    outbox.add(session, rows)


def start(db: Database, round_id: int, now: datetime) -> list[int]:
    """Start a planned round (see the module's text): its games' ids. RoundError, nothing changed, when started."""
    with db.session() as session:
        rnd = _round(session, round_id)
        _season(session, rnd.season_id, lock=True)  # one start at a time per season (the sweep locks it too)
        session.refresh(rnd, with_for_update=True)
        return start_round(session, rnd, now)


def start_next(session: Session, season: Season, now: datetime) -> int | None:
    """Plan and start the season's next round in the caller's transaction; its id, or None when every round was
    played (or the season is over)."""
    rounds = _rounds(session, season.id)
    if season.status == SeasonStatus.OVER or (
        len(rounds) >= season.rounds and all(r.status != RoundStatus.PLANNED for r in rounds)
    ):
        return None
    rnd = _to_start(session, season, now)
    start_round(session, rnd, now)
    return rnd.id


def _to_start(session: Session, season: Season, now: datetime) -> LeagueRound:
    """The round to start next: the planned one as the organiser left it (their swaps kept), else one planned now."""
    rounds = _rounds(session, season.id)
    if rounds and rounds[-1].status == RoundStatus.PLANNED and rounds[-1].tables:
        return rounds[-1]
    return plan_round(session, season, now)


def due_seasons(db: Database, now: datetime) -> list[int]:
    """The seasons whose next round is due: a fixed schedule's whose start has come, and a running "when_over"
    season's once every table of its last round is over."""
    with db.session() as session:
        running = session.execute(
            select(Season).where(Season.status.in_((SeasonStatus.SIGNUP, SeasonStatus.RUNNING)))
        ).scalars()
        return [s.id for s in running if _due(session, s, now)]


def _due(session: Session, season: Season, now: datetime) -> bool:
    rounds = _rounds(session, season.id)
    started = [r for r in rounds if r.status != RoundStatus.PLANNED]
    number = len(started) + 1
    if number > season.rounds:
        return False
    if season.schedule == "when_over":  # the first round is the organiser's to start
        return season.status == SeasonStatus.RUNNING and bool(started) and started[-1].status == RoundStatus.OVER
    starts = _starts_at(session, season, number)
    return starts is not None and starts <= now


def sweep(db: Database, now: datetime) -> int:
    """Start the due round of each season (``due_seasons``; one per season and call, the season's row locked and the
    round checked again under the lock): how many started. A season whose round cannot be seated is kept as
    ``unseated`` and its organiser told once (``_unseated``); the next sweep tries again."""
    started = 0
    for season_id in due_seasons(db, now):
        try:
            with db.session() as session:
                season = _season(session, season_id, lock=True)
                if not _due(session, season, now):
                    continue  # another worker started it
                started += start_next(session, season, now) is not None
        except RoundError as exc:  # too few players, or acquaintances no split keeps apart
            _unseated(db, season_id, exc, now)
    return started


def unseated_reason(stall: StallJSON) -> ShownError:
    """Why a stored stall (``Season.unseated``, written by ``_unseated``) says the due round could not be seated."""
    return ShownError(stall["msgid"], **stall["params"])


def _unseated(db: Database, season_id: int, exc: RoundError, now: datetime) -> None:
    """Keep why the season's due round could not be seated; the first time (a new stall), mail the league's
    organiser address when it has one (``round_unseated``, in the league's language)."""
    with db.session() as session:
        season = _season(session, season_id, lock=True)
        if not _due(session, season, now):
            return  # started meanwhile
        number = len([r for r in _rounds(session, season.id) if r.status != RoundStatus.PLANNED]) + 1
        new = season.unseated is None
        since = now.isoformat() if season.unseated is None else season.unseated["since"]
        stall: StallJSON = {"round": number, "msgid": exc.msgid, "params": dict(exc.params), "since": since}
        if season.unseated != stall:  # (written when it changes, not each minute)
            season.unseated = stall
        league = session.get(League, season.league_id)
        assert league is not None
        if new and league.organiser_email:
            organiser = games.address_player(session, league.organiser_email, league.timezone)
            payload = {"season": season.id, "lang": league.language}
            key = f"round_unseated:{season.id}:{number}:{int(now.timestamp())}"
            outbox.add(session, [outbox.player_mail(organiser.id, MailKind.ROUND_UNSEATED, key, payload, now)])


def tables(db: Database, round_id: int) -> list[list[int]]:
    """The round's tables (player ids); empty when it has none yet."""
    with db.session() as session:
        return list(_round(session, round_id).tables or [])


def names(db: Database, player_ids: Iterable[int]) -> dict[int, str]:
    """The players' names (the organiser's command line shows the tables by name and id)."""
    with db.session() as session:
        found = session.execute(select(Player.id, Player.display_name).where(Player.id.in_(list(player_ids))))
        return {pid: name for pid, name in found}


# --- what the league organiser's pages read -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LeagueItem:
    """A league of the organiser's list: the number of its ``seasons``, its organiser link's ``generation``."""

    id: int
    name: str
    seasons: int
    generation: int


def leagues_list(db: Database) -> list[LeagueItem]:
    """Every league, oldest first."""
    with db.session() as session:
        counts = dict(session.execute(select(Season.league_id, func.count()).group_by(Season.league_id)).all())
        return [
            LeagueItem(league.id, league.name, counts.get(league.id, 0), league.organiser_generation)
            for league in session.execute(select(League).order_by(League.id)).scalars()
        ]


@dataclass(frozen=True, slots=True)
class SeasonItem:
    """A season of the league organiser's page, with its counts of confirmed and pending players."""

    id: int
    number: int
    status: str
    rounds: int
    schedule: str
    confirmed: int
    pending: int


@dataclass(frozen=True, slots=True)
class LeagueOverview:
    """The league's settings and its seasons."""

    id: int
    name: str
    language: str
    timezone: str
    table_size: int
    preset: str | None
    scoring: str
    options: dict[str, Any]
    seasons: list[SeasonItem]


def league_view(db: Database, league_id: int) -> LeagueOverview:
    """The league's settings and its seasons, each with its counts of confirmed and pending players."""
    with db.session() as session:
        league = session.get(League, league_id)
        if league is None:
            raise RoundError(seasons.NO_LEAGUE, league=league_id)
        counts: dict[tuple[int, str], int] = {
            (season_id, status): n
            for season_id, status, n in session.execute(
                select(SeasonPlayer.season_id, SeasonPlayer.status, func.count())
                .join(Season, Season.id == SeasonPlayer.season_id)
                .where(Season.league_id == league_id)
                .group_by(SeasonPlayer.season_id, SeasonPlayer.status)
            )
        }
        season_rows = session.execute(select(Season).where(Season.league_id == league_id).order_by(Season.number))
        return LeagueOverview(
            id=league.id,
            name=league.name,
            language=league.language,
            timezone=league.timezone,
            table_size=league.table_size,
            preset=league.preset,
            scoring=league.scoring,
            options=league.options,
            seasons=[
                SeasonItem(
                    id=s.id,
                    number=s.number,
                    status=s.status,
                    rounds=s.rounds,
                    schedule=s.schedule,
                    confirmed=counts.get((s.id, EntryStatus.CONFIRMED), 0),
                    pending=counts.get((s.id, EntryStatus.PENDING), 0),
                )
                for s in season_rows.scalars()
            ],
        )


def _in_league(session: Session, league_id: int, season_id: int) -> Season:
    season = session.get(Season, season_id)
    if season is None or season.league_id != league_id:
        raise RoundError(NOT_IN_LEAGUE)
    return season


@dataclass(frozen=True, slots=True)
class EntryItem:
    """What the organiser sees of a sign-up: never its address or link."""

    name: str
    status: str
    confirmed_at: datetime | None
    division: str | None


@dataclass(frozen=True, slots=True)
class RoundItem:
    """A round of the season's page: its number of ``tables``."""

    id: int
    number: int
    status: str
    starts_at: datetime | None
    tables: int


@dataclass(frozen=True, slots=True)
class SeasonOverview:
    """A season of the league: its entries, rounds, whether another can be planned, and ``unseated``: why the
    sweep could not seat the due round (``Season.unseated``), or None."""

    id: int
    number: int
    status: str
    rounds_count: int
    schedule: str
    entries: list[EntryItem]
    divisions: int | None
    rounds: list[RoundItem]
    can_plan: bool
    unseated: StallJSON | None


def season_view(db: Database, league_id: int, season_id: int) -> SeasonOverview:
    """A season of the league: its entries (name, status), rounds (number, status, start, tables) and why its due
    round could not be seated (``unseated``, or None)."""
    with db.session() as session:
        season = _in_league(session, league_id, season_id)
        entries = session.execute(
            select(SeasonPlayer, Player)
            .join(Player, Player.id == SeasonPlayer.player_id)
            .where(SeasonPlayer.season_id == season_id)
            .order_by(Player.display_name, Player.id)
        )
        return SeasonOverview(
            id=season.id,
            number=season.number,
            status=season.status,
            rounds_count=season.rounds,
            schedule=season.schedule,
            entries=[
                EntryItem(
                    name=p.display_name or str((e.applicant or {}).get("name") or ""),
                    status=e.status,
                    confirmed_at=e.confirmed_at,
                    division=e.division,
                )
                for e, p in entries
            ],
            divisions=season.divisions,
            rounds=[
                RoundItem(r.id, r.number, r.status, r.starts_at, len(r.tables or []))
                for r in _rounds(session, season_id)
            ],
            can_plan=season.status != SeasonStatus.OVER and (len(_rounds(session, season_id)) < season.rounds),
            unseated=season.unseated,
        )


def divisions(db: Database, season_id: int) -> dict[int, str | None]:
    """The division of each confirmed player of the season (None: none), by player id: the organiser's round page
    shows them before the first game (the seating places them, ``promotion.place_divisions``)."""
    with db.session() as session:
        return {e.player_id: e.division for e in _entries(session, season_id)}


class TablePerson(TypedDict):
    id: int
    name: str
    zone: str


class RoundTable(TypedDict):
    players: list[TablePerson]
    #: the hours of the round's day all of them are awake
    awake: int


class RoundGame(TypedDict):
    id: int
    #: the table's number, from 1
    table: int
    status: str


class RoundShown(TypedDict):
    """A round of the league (``round_view``)."""

    id: int
    number: int
    season_id: int
    #: the season's number
    season: int
    status: str
    starts_at: datetime | None
    tables: list[RoundTable]
    games: list[RoundGame]


def round_view(db: Database, league_id: int, round_id: int) -> RoundShown:
    """A round of the league: its tables (players' ``id``, ``name``, ``zone``; the hours all are awake on the
    round's day), and once started its games (``id``, ``title``, ``status``)."""
    with db.session() as session:
        rnd = _round(session, round_id)
        season = _in_league(session, league_id, rnd.season_id)
        seated = _seated(rnd)
        players = {p.id: p for p in session.execute(select(Player).where(Player.id.in_(seated))).scalars()}
        day = (rnd.starts_at or rnd.started_at or utcnow()).date()
        tables: list[RoundTable] = []
        for table in rnd.tables or []:
            shown = [players[pid] for pid in table if pid in players]
            masks = [seating.awake_hours(_quiet(p), p.timezone or "UTC", day) for p in shown]
            tables.append(
                {
                    "players": [{"id": p.id, "name": p.display_name, "zone": p.timezone or "UTC"} for p in shown],
                    "awake": reduce(and_, masks, seating.ALL_DAY).bit_count(),
                }
            )
        found = session.execute(select(Game).where(Game.round_id == rnd.id).order_by(Game.id)).scalars()
        return {
            "id": rnd.id,
            "number": rnd.number,
            "season_id": season.id,
            "season": season.number,
            "status": rnd.status,
            "starts_at": rnd.starts_at,
            "tables": tables,
            "games": [{"id": g.id, "table": k, "status": g.status} for k, g in enumerate(found, start=1)],
        }
