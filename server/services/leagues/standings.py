"""A season's standings, computed from its ``LeagueResult``s (``scoring.standings_by_division``, the
league's system, tie-breaks and forfeit rule; substitutes apart) as each result arrives, in its transaction
(``store``), and stored: the tables' outline in ``SeasonStandings`` (fresh while its version is the season's
``results_version``) and one ``SeasonStandingRow`` per ranked row. ``standings_page`` reads one page of each table
and the reader's own row by index; ``standings`` reads them all (mails, CSV of the page, promotion). A reader finding
them stale (after a migration) computes and stores them first. ``round_games`` reads a round's results for its mails;
``csv`` the season's standings as CSV.

``ResultError`` is every refusal of the leagues' results, standings, season pages and next season."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypedDict, cast

from sqlalchemy import delete, insert, select, true
from sqlalchemy.orm import Session

from ...db import Database
from ...models import (
    League,
    LeagueResult,
    OutlineJSON,
    Player,
    Season,
    SeasonPlayer,
    SeasonStandingRow,
    SeasonStandings,
    utcnow,
)
from ..errors import N_, ShownError
from ..play.places import placings
from . import scoring

NO_SEASON = N_("There is no season %(season)s.")


class ResultError(ShownError):
    """A result, standings or next season refused: nothing was changed."""


#: rows of a table on one page of the standings (a season of thousands of players is shown a page at a time).
PAGE = 100

#: the columns of a stored row, as a row's dict names them.
ROW_COLUMNS = ("player", "name", "rank", "games", "points", "wins", "victory_points", "average_place", "division")


class StandingRow(TypedDict):
    """One line of a season's standings (``ROW_COLUMNS``)."""

    player: int
    name: str
    rank: int
    games: int
    points: float
    wins: int
    #: None: a result recorded as a ranking only
    victory_points: int | None
    #: None: no placed game
    average_place: float | None
    division: str | None


@dataclass
class Standings:
    """A season's standings: ``divisions`` as (name or None, rows) from the highest division, and the substitutes'
    appearances apart. Rows are dicts: player, name, rank, games, points, wins, victory_points, average_place
    (None: no placed game), division. A page of them (``standings_page``): only that page's rows of each table, and
    ``more`` per table (the divisions', then the substitutes'): a next page exists."""

    season_id: int
    version: int
    divisions: list[tuple[str | None, list[StandingRow]]] = field(default_factory=list)
    substitutes: list[StandingRow] = field(default_factory=list)
    more: list[bool] = field(default_factory=list)

    def rows(self) -> list[StandingRow]:
        return [row for _name, rows in self.divisions for row in rows]


def _row(row: scoring.Row, names: Mapping[int, str]) -> StandingRow:
    return {
        "player": row.player,
        "name": names.get(row.player, ""),
        "rank": row.rank,
        "games": row.games,
        "points": round(row.points, 6),
        "wins": row.wins,
        "victory_points": row.victory_points,
        "average_place": None if row.average_place is None else round(row.average_place, 6),
        "division": row.division,
    }


#: a stored ending's value -> the ending (a dictionary look-up per seat, not an enum call).
ENDINGS = {ending.value: ending for ending in scoring.Ending}


def _season_games(session: Session, season_id: int) -> list[scoring.GameResult]:
    found = session.execute(
        select(
            LeagueResult.game_id,
            LeagueResult.colour,
            LeagueResult.points,
            LeagueResult.cards,
            LeagueResult.winner,
            LeagueResult.player_id,
            LeagueResult.ending,
            LeagueResult.substitute_id,
        )
        .where(LeagueResult.season_id == season_id)
        .order_by(LeagueResult.finished_at, LeagueResult.game_id, LeagueResult.id)
    ).all()
    seats: dict[int, list[scoring.SeatResult]] = {}
    for game_id, colour, points, cards, winner, player, ending, substitute in found:
        seat = scoring.SeatResult(colour, points, cards, winner, player, ENDINGS[ending], substitute)
        seats.setdefault(game_id, []).append(seat)
    return [scoring.GameResult(game_id, tuple(found)) for game_id, found in seats.items()]


def season_divisions(session: Session, season_id: int) -> dict[int, str]:
    found = session.execute(
        select(SeasonPlayer.player_id, SeasonPlayer.division).where(
            SeasonPlayer.season_id == season_id, SeasonPlayer.division.is_not(None)
        )
    ).all()
    return {player: str(division) for player, division in sorted(found, key=lambda f: (_order(f[1]), f[0]))}


def _order(division: str | None) -> tuple[int, str]:
    """Divisions "1" (the highest), "2", …; any other name after them, by name."""
    text = division or ""
    return (int(text), "") if text.isdigit() else (1 << 30, text)


def compute(session: Session, season: Season) -> Standings:
    """The season's standings from its results (``scoring.standings_by_division``, the league's system, tie-breaks
    and forfeit rule; substitutes apart)."""
    league = session.get(League, season.league_id)
    assert league is not None
    games = _season_games(session, season.id)
    rules = (league.scoring, tuple(league.tie_breaks or scoring.TIE_BREAKS), league.forfeit)
    by_division = scoring.standings_by_division(games, season_divisions(session, season.id), *rules)
    subs = scoring.standings(games, *rules, substitutes=True)
    ids = {row.player for rows in by_division.values() for row in rows} | {row.player for row in subs}
    names = dict(session.execute(select(Player.id, Player.display_name).where(Player.id.in_(sorted(ids)))).all())
    divisions = [
        (name, [_row(row, names) for row in rows])
        for name, rows in sorted(by_division.items(), key=lambda item: _order(item[0]))
    ]
    return Standings(season.id, season.results_version, divisions, [_row(row, names) for row in subs])


def _tabs(table: Standings) -> list[list[StandingRow]]:
    """The stored tables in order: each division's rows, then the substitutes'."""
    return [rows for _name, rows in table.divisions] + [table.substitutes]


def store(session: Session, season: Season, now: datetime) -> None:
    """Compute the season's standings and store them: the outline in ``SeasonStandings``, the rows apart."""
    table = compute(session, season)
    outline: OutlineJSON = {
        "divisions": [{"name": name, "count": len(rows)} for name, rows in table.divisions],
        "substitutes": len(table.substitutes),
    }
    session.execute(delete(SeasonStandingRow).where(SeasonStandingRow.season_id == season.id))
    stored = [
        {"season_id": season.id, "tab": tab, "position": i, "player_id": row["player"]}
        | {key: value for key, value in row.items() if key != "player"}
        for tab, rows in enumerate(_tabs(table))
        for i, row in enumerate(rows)
    ]
    if stored:
        session.execute(insert(SeasonStandingRow), stored)
    cached = session.get(SeasonStandings, season.id)
    if cached is None:
        session.add(SeasonStandings(season_id=season.id, version=season.results_version, rows=outline, computed_at=now))
    else:
        cached.version, cached.rows, cached.computed_at = season.results_version, outline, now
    session.flush()


def _fresh(session: Session, season_id: int, now: datetime) -> SeasonStandings:
    """The season's stored standings, computed first when missing or stale (under the season's row lock, so that two
    readers never store them twice). Results recompute them as they arrive (``game_end.write_results``): a reader
    computes only after a migration or a change made elsewhere."""
    found = session.execute(
        select(Season.results_version, SeasonStandings)
        .outerjoin(SeasonStandings, SeasonStandings.season_id == Season.id)
        .where(Season.id == season_id)
    ).first()
    if found is None:
        raise ResultError(NO_SEASON, season=season_id)
    version, cached = found
    if cached is not None and cached.version == version:
        return cached
    season = session.get(Season, season_id, with_for_update=True, populate_existing=True)
    assert season is not None
    again = session.get(SeasonStandings, season_id, populate_existing=True)
    if again is None or again.version != season.results_version:
        store(session, season, now)
        again = session.get(SeasonStandings, season_id)
        assert again is not None
    return again


#: a stored row's columns, in ``ROW_COLUMNS``' order (read as plain tuples: no ORM object per row).
_STORED = (
    SeasonStandingRow.player_id,
    *(getattr(SeasonStandingRow, key) for key in ROW_COLUMNS[1:]),
)


def _stored(values: Sequence[Any]) -> StandingRow:
    """A stored row (its ``_STORED`` columns, in ``ROW_COLUMNS``' order) as a ``StandingRow``."""
    return cast(StandingRow, dict(zip(ROW_COLUMNS, values, strict=True)))


def _read(session: Session, cached: SeasonStandings, where: Any, more: list[bool] | None = None) -> Standings:
    """The stored rows matching ``where``, in their tables as ``cached`` outlines them."""
    outline = cached.rows
    names = [d["name"] for d in outline["divisions"]]
    tabs: list[list[StandingRow]] = [[] for _ in range(len(names) + 1)]
    found = session.execute(
        select(SeasonStandingRow.tab, *_STORED)
        .where(SeasonStandingRow.season_id == cached.season_id, where)
        .order_by(SeasonStandingRow.tab, SeasonStandingRow.position)
    ).all()
    for tab, *values in found:
        if tab < len(tabs):
            tabs[tab].append(_stored(values))
    return Standings(cached.season_id, cached.version, list(zip(names, tabs[:-1], strict=True)), tabs[-1], more or [])


def _standings(session: Session, season_id: int, now: datetime) -> Standings:
    cached = _fresh(session, season_id, now)
    return _read(session, cached, true())


def standings(db: Database, season_id: int, now: datetime | None = None) -> Standings:
    """The season's standings, every row: the stored ones while fresh, else computed and stored."""
    with db.session() as session:
        return _standings(session, season_id, now or utcnow())


def standings_in(session: Session, season_id: int, now: datetime) -> Standings:
    """``standings`` within a caller's session (the mails)."""
    return _standings(session, season_id, now)


def standings_page(
    db: Database, season_id: int, page: int, reader: int | None = None, now: datetime | None = None
) -> tuple[Standings, StandingRow | None]:
    """One page (0, 1, …) of ``PAGE`` rows of each table of the season's standings, and the reader's own row in
    the divisions (None: no reader, or not ranked): two indexed reads of the stored rows."""
    with db.session() as session:
        cached = _fresh(session, season_id, now or utcnow())
        outline = cached.rows
        counts = [d["count"] for d in outline["divisions"]] + [outline["substitutes"]]
        start, end = page * PAGE, (page + 1) * PAGE
        shown = SeasonStandingRow.position.between(start, end - 1)
        table = _read(session, cached, shown, [count > end for count in counts])
        mine = None
        if reader is not None:
            own = session.execute(
                select(*_STORED)
                .where(
                    SeasonStandingRow.season_id == season_id,
                    SeasonStandingRow.player_id == reader,
                    SeasonStandingRow.tab < len(counts) - 1,
                )
                .order_by(SeasonStandingRow.tab)
                .limit(1)
            ).first()
            mine = None if own is None else _stored(own)
        return table, mine


@dataclass(frozen=True)
class Placed:
    """One seat of a league game's result: place (ties share it), the name credited, victory points (None: a result
    recorded as a ranking)."""

    place: int
    name: str
    points: int | None
    player_id: int | None


def round_games(session: Session, round_id: int, player_id: int) -> list[tuple[int, list[Placed]]]:
    """The results of the round's games that ``player_id`` was credited in (started a seat of, or substituted in):
    (game id, seats by place)."""
    mine = select(LeagueResult.game_id).where(
        LeagueResult.round_id == round_id,
        (LeagueResult.player_id == player_id) | (LeagueResult.substitute_id == player_id),
    )
    found = session.execute(
        select(LeagueResult, Player.display_name)
        .outerjoin(Player, Player.id == LeagueResult.player_id)
        .where(LeagueResult.game_id.in_(mine))
        .order_by(LeagueResult.game_id, LeagueResult.id)
    ).all()
    by_game: dict[int, list[tuple[LeagueResult, str]]] = {}
    for result, name in found:
        by_game.setdefault(result.game_id, []).append((result, name or ""))
    out = []
    for game_id, seats in by_game.items():
        points = {r.colour: r.points for r, _ in seats}
        cards = {r.colour: r.cards for r, _ in seats}
        who = {r.colour: (name or r.colour, r.player_id) for r, name in seats}
        placed = placings(list(points), points, cards)
        out.append(
            (
                game_id,
                [Placed(place, who[c][0], scoring.victory_points(points[c]), who[c][1]) for c, place, _span in placed],
            )
        )
    return out


def csv(db: Database, season_id: int) -> str:
    """The season's standings as CSV (``scoring.standings_csv``), every division."""
    with db.session() as session:
        season = session.get(Season, season_id)
        if season is None:
            raise ResultError(NO_SEASON, season=season_id)
        league = session.get(League, season.league_id)
        assert league is not None
        games = _season_games(session, season.id)
        rules = (league.scoring, tuple(league.tie_breaks or scoring.TIE_BREAKS), league.forfeit)
        by_division = scoring.standings_by_division(games, season_divisions(session, season.id), *rules)
        rows = [row for _name, found in sorted(by_division.items(), key=lambda i: _order(i[0])) for row in found]
        rows += scoring.standings(games, *rules, substitutes=True)
        ids = sorted({row.player for row in rows})
        names = dict(session.execute(select(Player.id, Player.display_name).where(Player.id.in_(ids))).all())
    return scoring.standings_csv(rows, names)
