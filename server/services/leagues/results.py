"""Results, standings and stored ratings (issue 14).

- ``game_over`` runs in the transaction that ends a game (``turns.open_windows``): every finished game updates the
  stored ratings across all games (``RatingRow`` scope 0) and, for a league game, the league's scope, by
  ``ratings.rate_game`` on the stored mu/sigma (one ``RatingPoint`` per person and scope: the history); the shares
  of partial play are ``hub.finished_game``'s. A league game (``Game.round_id``) writes one ``LeagueResult`` per
  seat, credited to who started the seat, with how it ended (on autopilot, or handed over to a substitute) and the
  substitute, and raises ``Season.results_version``. When every game of the round is over (or abandoned with a
  recorded result) the round is over: ``LEAGUE_RESULTS`` mails to every player of the season; after the last round
  the season is over: ``SEASON_END`` mails.
- ``record_result``: the organiser records the result of an abandoned league game (victory points per colour, or a
  ranking); refused (nothing changed) for a game not in a league, not abandoned, or already recorded.
- Standings are computed from the season's ``LeagueResult``s (``scoring.standings_by_division``, the league's
  system, tie-breaks and forfeit rule; substitutes apart) as each result arrives, in its transaction, and stored: the
  tables' outline in ``SeasonStandings`` (fresh while its version is the season's ``results_version``) and one
  ``SeasonStandingRow`` per ranked row. ``standings_page`` reads one page of each table and the reader's own row by
  index; ``standings`` reads them all (mails, CSV of the page, promotion). A reader finding them stale (after a
  migration) computes and stores them first.
- ``next_season`` creates the next season from the last one in one step (same rounds, schedule, limit, divisions):
  its confirmed players are carried over as *pending* entries, each mailed a confirmation; with divisions, each
  player keeps their division moved by promotion and relegation, and players without one are placed by their league
  rating; a season's first round places its players without a division the same way (``place_divisions``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, true
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ...db import Database
from ...models import (
    EntryStatus,
    Game,
    GameStatus,
    League,
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
    SeatTenure,
    utcnow,
)
from .. import hub, inputs
from ..errors import N_, ShownError
from ..mailflow import outbox
from . import ratings, scoring

#: the scope of the rating across all games.
ALL_GAMES = 0

NO_GAME = N_("There is no game %(game)s.")
NOT_LEAGUE = N_("Game %(game)s is not a league game: nothing was changed.")
NOT_ABANDONED = N_("Game %(game)s was not abandoned: its result comes from the game itself. Nothing was changed.")
ALREADY_RECORDED = N_("The result of game %(game)s is already recorded: nothing was changed.")
BAD_PLACES = N_("Give a result for every colour of the game (%(colours)s), as whole victory points from 0 to 999.")
BAD_RANKING = N_("Rank every colour of the game (%(colours)s) once, the best first.")
RANKING_NO_POINTS = N_(
    "This league scores the game's victory points: give each colour's victory points, not a ranking. "
    "Nothing was changed."
)
NO_SEASON = N_("There is no season %(season)s.")
NOT_OVER = N_("Season %(season)s is not over yet: the next one is created from a finished season.")
HAS_NEXT = N_("The next season of season %(season)s was already created: nothing was changed.")
CLOSES_PAST = N_("The sign-up must close in the future.")
BAD_DAYS = N_("The sign-up of the next season stays open 1 to %(count)s days.")
#: the organiser's form: the next season's sign-up stays open at most this many days.
MAX_SIGNUP_DAYS = 90


class ResultError(ShownError):
    """A result, standings or next season refused: nothing was changed."""


# --- ratings ---------------------------------------------------------------------------------------------------------


def _rate(session: Session, game: ratings.FinishedGame, scope: int, now: datetime) -> None:
    """Apply ``game`` to the stored ratings of ``scope`` and append each rated person's point."""
    people = ratings.rated(game)
    if not people:
        return
    rows = _locked_ratings(session, scope, people, now)
    current = {pid: ratings.Rating(row.mu, row.sigma, row.games) for pid, row in rows.items()}
    ratings.rate_game(current, game)
    for player_id, rating in current.items():
        if not rating.history:
            continue
        row = rows[player_id]
        row.mu, row.sigma, row.games, row.updated_at = rating.mu, rating.sigma, rating.games, now
        session.add(
            RatingPoint(
                player_id=player_id,
                scope=scope,
                game_id=game.id,
                mu=rating.mu,
                sigma=rating.sigma,
                finished_at=game.finished_at,
            )
        )


def _locked_ratings(session: Session, scope: int, people: list[int], now: datetime) -> dict[int, RatingRow]:
    """The people's rating rows of ``scope``, locked (in id order) until the caller's commit, so that two games ending
    at once both count; a person without one gets a row at the model's start (``games`` 0), inserted in a savepoint
    (the second of two at once reads the first's)."""
    query = select(RatingRow).where(RatingRow.scope == scope, RatingRow.player_id.in_(people))
    known = set(session.execute(query.with_only_columns(RatingRow.player_id)).scalars())
    unrated = ratings.Rating()
    for player_id in (p for p in people if p not in known):
        try:
            with session.begin_nested():
                start = RatingRow(player_id=player_id, scope=scope, games=0, updated_at=now)
                start.mu, start.sigma = unrated.mu, unrated.sigma
                session.add(start)
        except IntegrityError:
            pass
    locked = query.order_by(RatingRow.player_id).with_for_update().execution_options(populate_existing=True)
    return {row.player_id: row for row in session.execute(locked).scalars()}


# --- league results --------------------------------------------------------------------------------------------------


def _credits(session: Session, game: Game) -> dict[str, scoring.Credit]:
    """Colour -> who started the seat, how it ended and who finished it (bots' seats: ``Credit(None)``)."""
    first: dict[int, int | None] = {}
    for seat_id, player_id in session.execute(
        select(SeatTenure.seat_id, SeatTenure.player_id)
        .where(SeatTenure.seat_id.in_([seat.id for seat in game.seats]))
        .order_by(SeatTenure.seat_id, SeatTenure.id)
    ).all():
        first.setdefault(seat_id, player_id)
    out = {}
    for seat in game.seats:
        holder = seat.player_id if seat.bot is None else None
        starter = first.get(seat.id, holder)
        if seat.id not in first and seat.bot is not None:
            starter = None
        if starter is None:
            out[seat.colour] = scoring.Credit(None)
        elif holder != starter:
            out[seat.colour] = scoring.Credit(starter, scoring.Ending.SUBSTITUTED, holder)
        elif seat.autopilot_at is not None:
            out[seat.colour] = scoring.Credit(starter, scoring.Ending.AUTOPILOT)
        else:
            out[seat.colour] = scoring.Credit(starter)
    return out


def _league_of(session: Session, game: Game) -> tuple[LeagueRound, Season] | None:
    if game.round_id is None:
        return None
    league_round = session.get(LeagueRound, game.round_id)
    season = None if league_round is None else session.get(Season, league_round.season_id, with_for_update=True)
    return None if league_round is None or season is None else (league_round, season)


def _write_results(
    session: Session,
    game: Game,
    league_round: LeagueRound,
    season: Season,
    outcome: Mapping[str, Any],
    now: datetime,
    *,
    recorded: bool = False,
) -> None:
    result = scoring.from_outcome(game.id, outcome, _credits(session, game))
    for seat in result.seats:
        session.add(
            LeagueResult(
                season_id=season.id,
                round_id=league_round.id,
                game_id=game.id,
                colour=seat.colour,
                player_id=seat.player,
                ending=seat.ending.value,
                substitute_id=seat.substitute,
                points=seat.points,
                cards=seat.cards,
                winner=seat.winner,
                recorded=recorded,
                finished_at=now,
            )
        )
    season.results_version = (season.results_version or 0) + 1
    session.flush()
    _store(session, season, now)  # here, under the season's lock: no reader waits for the computation


def _rate_both(session: Session, finished: ratings.FinishedGame, league_id: int | None, now: datetime) -> None:
    """The game's placements applied to the ratings across all games and, for a league game, the league's."""
    _rate(session, finished, ALL_GAMES, now)
    if league_id is not None:
        _rate(session, finished, league_id, now)


def game_over(session: Session, game: Game, now: datetime) -> None:
    """The game just ended (its status and outcome are set, in this transaction): ratings, league results, and the
    round's end when it was its last game."""
    session.flush()
    finished = hub.finished_game(session, game.id)
    found = _league_of(session, game)
    if finished is not None:
        _rate_both(session, finished, None if found is None else found[1].league_id, now)
    if found is not None and game.outcome:
        league_round, season = found
        _write_results(session, game, league_round, season, game.outcome, now)
        _round_over(session, league_round, season, now)


def _places_outcome(colours: Sequence[str], places: Mapping[str, int] | Sequence[str]) -> dict[str, Any]:
    """An engine-like outcome from the organiser's victory points per colour, or ranking (best first). A ranking
    has no victory points: each colour's "score" is minus its position (-1 the best), which places it and which
    ``scoring.victory_points`` reads as none (nothing is invented)."""
    if isinstance(places, Mapping):
        points = dict(places)
        good = all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 999 for v in points.values())
        if not good or sorted(points) != sorted(colours):
            raise ResultError(BAD_PLACES, colours=list(colours))  # (a list parameter: named one by one)
    else:
        if sorted(places) != sorted(colours):
            raise ResultError(BAD_RANKING, colours=list(colours))
        points = {colour: -i for i, colour in enumerate(places, start=1)}
    best = max(points.values())
    return {"scores": points, "cards": {}, "winners": [c for c in colours if points[c] == best]}


def record_result(
    db: Database,
    game_id: int,
    places: Mapping[str, int] | Sequence[str],
    now: datetime,
    *,
    season_id: int | None = None,
) -> None:
    """The organiser's result of an abandoned league game; then the round may be over. With ``season_id`` (a league
    organiser's page), a game of any other season is answered as one that is not there (nothing told of it)."""
    with db.session() as session:
        game = session.get(Game, game_id, with_for_update=True)
        found = None if game is None else _league_of(session, game)
        if game is None or (season_id is not None and (found is None or found[1].id != season_id)):
            raise ResultError(NO_GAME, game=game_id)
        if found is None:
            raise ResultError(NOT_LEAGUE, game=game_id)
        if game.status != GameStatus.ABANDONED:
            raise ResultError(NOT_ABANDONED, game=game_id)
        done = select(func.count()).select_from(LeagueResult).where(LeagueResult.game_id == game_id)
        if session.execute(done).scalar_one():
            raise ResultError(ALREADY_RECORDED, game=game_id)
        league_round, season = found
        league = session.get(League, season.league_id)
        if league is not None and league.scoring == "victory_points" and not isinstance(places, Mapping):
            raise ResultError(RANKING_NO_POINTS)
        outcome = _places_outcome([seat.colour for seat in game.seats], places)
        _write_results(session, game, league_round, season, outcome, now, recorded=True)
        finished = hub.recorded_game(session, game.id, outcome)
        if finished is not None:  # its placements rated like a finished game's (RatingPoint at the recording)
            _rate_both(session, replace(finished, finished_at=now), season.league_id, now)
        _round_over(session, league_round, season, now)


# --- the end of a round, of a season ---------------------------------------------------------------------------------


def _round_done(session: Session, league_round: LeagueRound) -> bool:
    """Every game of the round is over, or abandoned with a recorded result."""
    if league_round.status != RoundStatus.STARTED:
        return False
    recorded = select(LeagueResult.game_id).where(LeagueResult.round_id == league_round.id)
    open_games = session.execute(
        select(func.count())
        .select_from(Game)
        .where(
            Game.round_id == league_round.id,
            Game.status != GameStatus.OVER,
            ~((Game.status == GameStatus.ABANDONED) & Game.id.in_(recorded)),
        )
    ).scalar_one()
    return open_games == 0


def _players(session: Session, season_id: int) -> list[int]:
    return [entry.player_id for entry in session.execute(SeasonPlayer.confirmed(season_id)).scalars()]


def _round_over(session: Session, league_round: LeagueRound, season: Season, now: datetime) -> None:
    if not _round_done(session, league_round):
        return
    league_round.status = RoundStatus.OVER
    league_round.over_at = now
    players = _players(session, season.id)
    payload = {"round": league_round.id, "season": season.id}
    outbox.add(
        session,
        (
            outbox.player_mail(p, MailKind.LEAGUE_RESULTS, f"results:{league_round.id}:{p}", payload, now)
            for p in players
        ),
    )
    if league_round.number >= season.rounds:
        season.status = SeasonStatus.OVER
        ended = {"season": season.id}
        outbox.add(
            session,
            (outbox.player_mail(p, MailKind.SEASON_END, f"season_end:{season.id}:{p}", ended, now) for p in players),
        )
    # else a "when_over" season's next round is started by the minute sweep (``rounds.due_seasons``): starting it
    # here would create games inside the transaction that ends one (``rounds`` imports ``games``, which end here).


# --- standings -------------------------------------------------------------------------------------------------------

#: rows of a table on one page of the standings (a season of thousands of players is shown a page at a time).
PAGE = 100

#: the columns of a stored row, as a row's dict names them.
ROW_COLUMNS = ("player", "name", "rank", "games", "points", "wins", "victory_points", "average_place", "division")


@dataclass
class Standings:
    """A season's standings: ``divisions`` as (name or None, rows) from the highest division, and the substitutes'
    appearances apart. Rows are dicts: player, name, rank, games, points, wins, victory_points, average_place
    (None: no placed game), division. A page of them (``standings_page``): only that page's rows of each table, and
    ``more`` per table (the divisions', then the substitutes'): a next page exists."""

    season_id: int
    version: int
    divisions: list[tuple[str | None, list[dict[str, Any]]]] = field(default_factory=list)
    substitutes: list[dict[str, Any]] = field(default_factory=list)
    more: list[bool] = field(default_factory=list)

    def rows(self) -> list[dict[str, Any]]:
        return [row for _name, rows in self.divisions for row in rows]


def _row(row: scoring.Row, names: Mapping[int, str]) -> dict[str, Any]:
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


def _divisions(session: Session, season_id: int) -> dict[int, str]:
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
    by_division = scoring.standings_by_division(games, _divisions(session, season.id), *rules)
    subs = scoring.standings(games, *rules, substitutes=True)
    ids = {row.player for rows in by_division.values() for row in rows} | {row.player for row in subs}
    names = dict(session.execute(select(Player.id, Player.display_name).where(Player.id.in_(sorted(ids)))).all())
    divisions = [
        (name, [_row(row, names) for row in rows])
        for name, rows in sorted(by_division.items(), key=lambda item: _order(item[0]))
    ]
    return Standings(season.id, season.results_version, divisions, [_row(row, names) for row in subs])


def _tabs(table: Standings) -> list[list[dict[str, Any]]]:
    """The stored tables in order: each division's rows, then the substitutes'."""
    return [rows for _name, rows in table.divisions] + [table.substitutes]


def _store(session: Session, season: Season, now: datetime) -> None:
    """Compute the season's standings and store them: the outline in ``SeasonStandings``, the rows apart."""
    table = compute(session, season)
    outline = {
        "divisions": [{"name": name, "count": len(rows)} for name, rows in table.divisions],
        "substitutes": len(table.substitutes),
    }
    session.execute(delete(SeasonStandingRow).where(SeasonStandingRow.season_id == season.id))
    stored = [
        {"season_id": season.id, "tab": tab, "position": i, "player_id": row["player"]}
        | {key: row[key] for key in ROW_COLUMNS[1:]}
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
    readers never store them twice). Results recompute them as they arrive (``_write_results``): a reader computes
    only after a migration or a change made elsewhere."""
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
        _store(session, season, now)
        again = session.get(SeasonStandings, season_id)
        assert again is not None
    return again


#: a stored row's columns, in ``ROW_COLUMNS``' order (read as plain tuples: no ORM object per row).
_STORED = (
    SeasonStandingRow.player_id,
    *(getattr(SeasonStandingRow, key) for key in ROW_COLUMNS[1:]),
)


def _read(session: Session, cached: SeasonStandings, where: Any, more: list[bool] | None = None) -> Standings:
    """The stored rows matching ``where``, in their tables as ``cached`` outlines them."""
    outline = cached.rows
    names = [d["name"] for d in outline.get("divisions") or []]
    tabs: list[list[dict[str, Any]]] = [[] for _ in range(len(names) + 1)]
    found = session.execute(
        select(SeasonStandingRow.tab, *_STORED)
        .where(SeasonStandingRow.season_id == cached.season_id, where)
        .order_by(SeasonStandingRow.tab, SeasonStandingRow.position)
    ).all()
    for tab, *values in found:
        if tab < len(tabs):
            tabs[tab].append(dict(zip(ROW_COLUMNS, values, strict=True)))
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
) -> tuple[Standings, dict[str, Any] | None]:
    """One page (0, 1, …) of ``PAGE`` rows of each table of the season's standings, and the reader's own row in
    the divisions (None: no reader, or not ranked): two indexed reads of the stored rows."""
    with db.session() as session:
        cached = _fresh(session, season_id, now or utcnow())
        outline = cached.rows
        counts = [d["count"] for d in outline.get("divisions") or []] + [outline.get("substitutes") or 0]
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
            mine = None if own is None else dict(zip(ROW_COLUMNS, own, strict=True))
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
        placed = scoring.placings(list(points), points, cards)
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
        by_division = scoring.standings_by_division(games, _divisions(session, season.id), *rules)
        rows = [row for _name, found in sorted(by_division.items(), key=lambda i: _order(i[0])) for row in found]
        rows += scoring.standings(games, *rules, substitutes=True)
        ids = sorted({row.player for row in rows})
        names = dict(session.execute(select(Player.id, Player.display_name).where(Player.id.in_(ids))).all())
    return scoring.standings_csv(rows, names)


# --- the next season -------------------------------------------------------------------------------------------------


def _placed_by_rating(session: Session, league_id: int, players: Sequence[int], count: int) -> dict[int, str]:
    """``players`` split into ``count`` divisions "1" (the highest) … by their league rating's ordinal, best first
    (no rating: last, by id); the divisions as even as can be."""
    found = dict(
        session.execute(
            select(RatingRow.player_id, RatingRow.mu - 3 * RatingRow.sigma).where(
                RatingRow.scope == league_id, RatingRow.player_id.in_(list(players))
            )
        ).all()
    )
    ordered = sorted(players, key=lambda p: (p not in found, -float(found.get(p, 0.0)), p))
    size = max(1, math.ceil(len(ordered) / max(1, count)))
    return {player: str(min(count, i // size + 1)) for i, player in enumerate(ordered)}


def moves(season: Season, table: Standings) -> dict[int, str]:
    """Player -> the division they move to in the next season (promotion and relegation of the top and bottom
    ``season.promote`` of each division "1" (the highest) … ``season.divisions``); nobody without divisions."""
    count = season.divisions or 0
    if not count or not season.promote:
        return {}
    order = [str(i) for i in range(1, count + 1)]
    by_division = {name: [scoring.Row(row["player"]) for row in rows] for name, rows in table.divisions}
    ranked = {name: by_division.get(name, []) for name in order}
    return {move.player: move.destination for move in scoring.promotion_relegation(ranked, season.promote, order)}


def _moved(session: Session, season: Season, players: Sequence[int], now: datetime) -> dict[int, str]:
    """Each player's division in the next season: their division moved by promotion and relegation; players
    without one placed by rating."""
    count = season.divisions or 0
    before = _divisions(session, season.id)
    kept = {p: before[p] for p in players if p in before}
    moved = moves(season, _standings(session, season.id, now))
    kept |= {p: division for p, division in moved.items() if p in kept}
    rest = [p for p in players if p not in kept]
    return kept | _placed_by_rating(session, season.league_id, rest, count) if rest else kept


def place_divisions(session: Session, season: Season) -> None:
    """A season with divisions, as a round is planned or started: each confirmed player without a division (every player
    of a league's first season) is placed by their league rating (``_placed_by_rating``)."""
    if not season.divisions:
        return
    entries = session.execute(
        select(SeasonPlayer).where(
            SeasonPlayer.season_id == season.id,
            SeasonPlayer.status == EntryStatus.CONFIRMED,
            SeasonPlayer.division.is_(None),
        )
    ).scalars()
    unplaced = {entry.player_id: entry for entry in entries}
    placed = _placed_by_rating(session, season.league_id, list(unplaced), season.divisions) if unplaced else {}
    for player_id, division in placed.items():
        unplaced[player_id].division = division


def next_season(db: Database, season_id: int, signup_closes: datetime, now: datetime) -> int:
    """The next season of a finished one (its id): same rounds, schedule, limit and divisions; its confirmed players
    carried over as pending entries, each mailed a confirmation, with their divisions and the acquaintances they
    declared (``SeasonPlayer.knows``: still kept apart; the confirmation page lets them change the list).
    ``signup_closes`` out of ``inputs.YEARS`` (however its caller read it) is an ``InputError``."""
    inputs.in_range(signup_closes, "signup_closes")
    with db.session() as session:
        season = session.get(Season, season_id, with_for_update=True)
        if season is None:
            raise ResultError(NO_SEASON, season=season_id)
        if season.status != SeasonStatus.OVER:
            raise ResultError(NOT_OVER, season=season.number)
        if session.execute(select(Season.id).where(Season.previous_id == season.id)).first() is not None:
            raise ResultError(HAS_NEXT, season=season.number)
        if signup_closes <= now:
            raise ResultError(CLOSES_PAST)
        number = session.execute(select(func.max(Season.number)).where(Season.league_id == season.league_id))
        created = Season(
            league_id=season.league_id,
            number=(number.scalar_one() or 0) + 1,
            signup_closes=signup_closes,
            rounds=season.rounds,
            schedule=season.schedule,
            schedule_rule=season.schedule_rule,
            status=SeasonStatus.SIGNUP,
            max_players=season.max_players,
            divisions=season.divisions,
            promote=season.promote,
            previous_id=season.id,
            results_version=0,
            created_at=now,
        )
        session.add(created)
        session.flush()
        outbox.release_invitations(session, season.league_id, now)  # invitations held until a season takes sign-ups
        carried = list(session.execute(SeasonPlayer.confirmed(season.id)).scalars())
        players = [entry.player_id for entry in carried]
        knows = {entry.player_id: entry.knows for entry in carried}
        divisions = _moved(session, season, players, now) if season.divisions else {}
        for player_id in players:
            entry = SeasonPlayer(
                season_id=created.id,
                player_id=player_id,
                status=EntryStatus.PENDING,
                division=divisions.get(player_id),
                knows=list(knows[player_id] or []) or None,  # (kept apart again; editable as they confirm)
                created_at=now,
            )
            session.add(entry)
            session.flush()
            outbox.confirm_entry(session, entry, now)
        return created.id


# --- what the pages read ---------------------------------------------------------------------------------------------


NOT_MEMBER = N_("You are not in season %(season)s of this league.")
OTHER_LEAGUE = N_("There is no season %(season)s in this league.")
NOT_PUBLIC = N_("This league's standings are shown to its players only.")


@dataclass(frozen=True)
class SeasonShown:
    season_id: int
    number: int
    league_id: int
    league: str
    status: str
    standings_public: bool


def _shown(session: Session, season: Season) -> SeasonShown:
    league = session.get(League, season.league_id)
    assert league is not None
    return SeasonShown(season.id, season.number, league.id, league.name, season.status, league.standings_public)


def season_of_member(db: Database, season_id: int, player_id: int) -> SeasonShown:
    """The season, for a player with an entry in it (confirmed, or withdrawn after playing); else ResultError."""
    with db.session() as session:
        season = session.get(Season, season_id)
        entry = session.execute(
            select(SeasonPlayer.status).where(SeasonPlayer.season_id == season_id, SeasonPlayer.player_id == player_id)
        ).scalar_one_or_none()
        if season is None or entry is None or entry == EntryStatus.PENDING:
            raise ResultError(NOT_MEMBER, season=season_id)
        if entry == EntryStatus.WITHDRAWN and not _played_in(session, season_id, player_id):
            raise ResultError(NOT_MEMBER, season=season_id)
        return _shown(session, season)


def _played_in(session: Session, season_id: int, player_id: int) -> bool:
    """The player has a result in the season, or holds a seat of one of its games."""
    result = select(LeagueResult.id).where(
        LeagueResult.season_id == season_id,
        (LeagueResult.player_id == player_id) | (LeagueResult.substitute_id == player_id),
    )
    seat = (
        select(Seat.id)
        .join(Game, Game.id == Seat.game_id)
        .join(LeagueRound, LeagueRound.id == Game.round_id)
        .where(LeagueRound.season_id == season_id, Seat.player_id == player_id)
    )
    return session.execute(select(result.exists() | seat.exists())).scalar_one()


def season_of_league(db: Database, season_id: int, league_id: int) -> SeasonShown:
    """The season when it is the league's; else ResultError."""
    with db.session() as session:
        season = session.get(Season, season_id)
        if season is None or season.league_id != league_id:
            raise ResultError(OTHER_LEAGUE, season=season_id)
        return _shown(session, season)


def public_seasons(db: Database, league_id: int) -> list[SeasonShown]:
    """The league's seasons, the newest first, when its standings are public; else ResultError."""
    with db.session() as session:
        league = session.get(League, league_id)
        if league is None or not league.standings_public:
            raise ResultError(NOT_PUBLIC)
        found = session.execute(
            select(Season).where(Season.league_id == league_id).order_by(Season.number.desc())
        ).scalars()
        return [_shown(session, season) for season in found]


@dataclass(frozen=True)
class SeasonGame:
    """One of a player's games of a season, as a page lists it: the seat's result once there is one; ``seat_id`` and
    ``generation`` only when the reader holds the seat (its replay link is theirs)."""

    game_id: int
    round: int
    status: str
    colour: str
    ending: str | None
    points: int | None
    place: int | None
    of: int
    substitute: bool
    seat_id: int | None = None
    generation: int = 0


def player_games(db: Database, season_id: int, player_id: int, reader_id: int | None) -> tuple[str, list[SeasonGame]]:
    """(the player's name, their games of the season by round): every seat they were credited with, or started. A
    person with neither an entry nor a game in the season: ("", []) (nobody's name is read by trying ids)."""
    with db.session() as session:
        entered = select(SeasonPlayer.id).where(
            SeasonPlayer.season_id == season_id, SeasonPlayer.player_id == player_id
        )
        name = session.execute(select(Player.display_name).where(Player.id == player_id)).scalar_one_or_none()
        results = session.execute(
            select(LeagueResult).where(
                LeagueResult.season_id == season_id,
                (LeagueResult.player_id == player_id) | (LeagueResult.substitute_id == player_id),
            )
        ).scalars()
        credited = {(r.game_id, r.colour): r for r in results}
        rounds = select(LeagueRound.id).where(LeagueRound.season_id == season_id)
        former = select(SeatTenure.seat_id).where(SeatTenure.player_id == player_id)
        seats = session.execute(
            select(Game.id, Game.status, LeagueRound.number, Seat.id, Seat.colour, Seat.player_id, Seat.bot)
            .join(Seat, Seat.game_id == Game.id)
            .join(LeagueRound, LeagueRound.id == Game.round_id)
            .where(Game.round_id.in_(rounds))
            .order_by(LeagueRound.number, Game.id, Seat.position)
        ).all()
        places = _places(session, {game_id for game_id, *_ in seats})
        mine = set(session.execute(former).scalars())
        out = []
        for game_id, status, number, seat_id, colour, holder, bot in seats:
            result = credited.get((game_id, colour))
            if result is None and holder != player_id and seat_id not in mine:
                continue
            place, of = places.get(game_id, {}).get(colour, (None, 0))
            held = reader_id is not None and reader_id == player_id == holder and bot is None
            seat = session.get(Seat, seat_id) if held and status == GameStatus.OVER else None
            out.append(
                SeasonGame(
                    game_id,
                    number,
                    status,
                    colour,
                    None if result is None else result.ending,
                    None if result is None else scoring.victory_points(result.points),
                    place,
                    of,
                    result is not None and result.substitute_id == player_id,
                    None if seat is None else seat.id,
                    0 if seat is None else seat.link_generation,
                )
            )
        if not out and session.execute(entered).first() is None:
            return "", []
        return name or "", out


def _places(session: Session, game_ids: set[int]) -> dict[int, dict[str, tuple[int, int]]]:
    """Game id -> colour -> (place, of how many), from the stored results."""
    found = session.execute(
        select(LeagueResult.game_id, LeagueResult.colour, LeagueResult.points, LeagueResult.cards).where(
            LeagueResult.game_id.in_(sorted(game_ids))
        )
    ).all()
    by_game: dict[int, tuple[dict[str, int], dict[str, int]]] = {}
    for game_id, colour, points, cards in found:
        by_game.setdefault(game_id, ({}, {}))[0][colour] = points
        by_game[game_id][1][colour] = cards
    return {
        game_id: {c: (place, len(points)) for c, place, _span in scoring.placings(list(points), points, cards)}
        for game_id, (points, cards) in by_game.items()
    }


def unrecorded(db: Database, season_id: int) -> list[tuple[int, list[str]]]:
    """The season's abandoned games without a recorded result: (game id, colours), for the organiser's form."""
    with db.session() as session:
        recorded = select(LeagueResult.game_id).where(LeagueResult.season_id == season_id)
        rounds = select(LeagueRound.id).where(LeagueRound.season_id == season_id)
        found = session.execute(
            select(Game.id, Seat.colour)
            .join(Seat, Seat.game_id == Game.id)
            .where(Game.round_id.in_(rounds), Game.status == GameStatus.ABANDONED, Game.id.not_in(recorded))
            .order_by(Game.id, Seat.position)
        ).all()
    out: dict[int, list[str]] = {}
    for game_id, colour in found:
        out.setdefault(game_id, []).append(colour)
    return list(out.items())
