"""The JSON API's side of leagues: its bodies read into the arguments of ``services.leagues.seasons``, and
what the API shows of leagues, seasons and a player's entries.

- ``league_spec``, ``season_args`` and ``applicant`` take a parsed JSON body: an object of the named fields only,
  each of its type (a text at most ``MAX_TEXT`` characters); any other body is a ``BodyError`` naming the first
  refused field (the services then check the values themselves); ``signup_closes`` is read by ``inputs.instant``
  (an ``InputError`` when it is not an instant with its zone, or not in ``inputs.YEARS``).
- ``leagues_list``, ``league_view``, ``season_view``, ``season_rounds`` and ``player_entries`` read; instants are
  ISO 8601 in UTC; a season shows its rounds' ids, its players their ids (what a swap takes).
  ``season_view`` lists its entries' addresses only when asked (``emails``: the server's organiser).
- ``skip_args`` reads the body of a missed round; ``league_ratings`` and ``player_ratings`` read the stored OpenSkill
  ratings as the pages show them (``ratings.shown``: unknown while new).
- ``link_urls``: a league's three links, each its token and its address (``leagues.link_url``).
- Rounds and results: ``swap_args``, ``result_args`` and ``next_args`` read the bodies of a swap, a recorded result
  and the next season; ``round_league`` and ``game_league`` name the league a round or game belongs to (what a
  league's organiser token may reach); ``round_json`` and ``standings_json`` read (e-mail addresses in the standings
  only when asked: the server's organiser).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ForwardRef, Required, TypedDict, TypeVar, cast

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from engine.shapes import JSON, JSONObject

from ...db import Database
from ...models import Game, League, LeagueRound, Player, RatingRow, ScheduleRuleJSON, Season, SeasonPlayer, StallJSON
from .. import inputs
from ..errors import N_, ShownError
from . import ratings, recorded, rounds, seasons, standings
from .seasons import LINKS, NO_LEAGUE, NO_SEASON, Applicant, LeagueError, LeagueSpec, Sizes, league_link, link_url
from .stored_ratings import ALL_GAMES

#: the longest text a field of these bodies takes (the longest e-mail address).
MAX_TEXT = 320

NOT_OBJECT = N_("Send a JSON object.")
UNKNOWN_FIELD = N_("Unknown field %(field)s (the fields are %(choices)s): nothing was changed.")
MISSING_FIELD = N_("%(field)s is required.")
NOT_TEXT = N_("%(field)s must be a text.")
NOT_WHOLE = N_("%(field)s must be a whole number.")
NOT_BOOL = N_("%(field)s must be true or false.")
NOT_OBJECT_FIELD = N_("%(field)s must be an object.")
NOT_LIST = N_("%(field)s must be a list.")
TOO_LONG = N_("%(field)s is at most %(count)s characters.")
ONE_OF = N_("Send %(choices)s: one of them.")
NOT_COLOURS = N_("%(field)s must be a list of colours.")


class BodyError(ShownError):
    """A body of the wrong shape: not an object, an unknown or missing field, a value of the wrong type."""


#: a field's kind, as its body's TypedDict declares it: the test its value passes, and the message when not.
KINDS: dict[str, tuple[Callable[[object], bool], str]] = {
    "str": (lambda v: isinstance(v, str), NOT_TEXT),
    "str | None": (lambda v: v is None or isinstance(v, str), NOT_TEXT),
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), NOT_WHOLE),
    "int | None": (lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)), NOT_WHOLE),
    "bool": (lambda v: isinstance(v, bool), NOT_BOOL),
    "JSONObject": (lambda v: isinstance(v, dict), NOT_OBJECT_FIELD),
    "JSONObject | None": (lambda v: v is None or isinstance(v, dict), NOT_OBJECT_FIELD),
    "list[JSON]": (lambda v: isinstance(v, list), NOT_LIST),
}


class LeagueBody(TypedDict, total=False):
    name: Required[str]
    language: str
    timezone: str
    table_size: int
    options: JSONObject
    preset: str | None
    scoring: str
    tie_breaks: list[JSON]
    forfeit: str
    standings_public: bool
    organiser_email: str | None


class SeasonBody(TypedDict, total=False):
    signup_closes: Required[str]
    rounds: Required[int]
    schedule: Required[str]
    rule: JSONObject | None
    max_players: int | None
    divisions: int | None
    promote: int


class ApplicantBody(TypedDict, total=False):
    name: Required[str]
    email: Required[str]
    language: str
    timezone: str
    quiet_start: str
    quiet_end: str
    #: the addresses of people the applicant knows, comma-separated (``leagues.check_knows``).
    knows: str


class SwapBody(TypedDict):
    a: int
    b: int


class SkipBody(TypedDict, total=False):
    round: Required[int]
    undo: bool


class ResultBody(TypedDict, total=False):
    points: JSONObject
    ranking: list[JSON]


class NextBody(TypedDict):
    signup_closes: str


B = TypeVar("B", LeagueBody, SeasonBody, ApplicantBody, SwapBody, SkipBody, ResultBody, NextBody)


#: each body's fields and required fields, read from its TypedDict once (``_shape``).
_SHAPES: dict[object, tuple[dict[str, str], list[str]]] = {}


def _shape(shape: object) -> tuple[dict[str, str], list[str]]:
    """A body's fields with their types as written (this module postpones annotations), and its required fields."""
    if shape in _SHAPES:
        return _SHAPES[shape]
    declared: dict[str, ForwardRef] = getattr(shape, "__annotations__")  # noqa: B009 (typeshed: a TypedDict's)
    written = {name: hint.__forward_arg__ for name, hint in declared.items()}
    kinds = {name: re.sub(r"^Required\[(.*)\]$", r"\1", hint) for name, hint in written.items()}
    total: bool = getattr(shape, "__total__")  # noqa: B009
    _SHAPES[shape] = kinds, [name for name, hint in written.items() if total or hint.startswith("Required[")]
    return _SHAPES[shape]


def fields(body: object, shape: type[B]) -> B:
    """``body`` when it is an object of ``shape``'s fields (its required ones present), each of the type ``shape``
    declares (a text at most ``MAX_TEXT`` characters); BodyError names the first refused field."""
    kinds, required = _shape(shape)
    if not isinstance(body, dict):
        raise BodyError(NOT_OBJECT)
    for name in body:
        if name not in kinds:
            raise BodyError(UNKNOWN_FIELD, field=repr(name[:40]), choices=", ".join(kinds))
    for name in required:
        if name not in body:
            raise BodyError(MISSING_FIELD, field=name)
    for name, value in body.items():
        test, message = KINDS[kinds[name]]
        if not test(value):
            raise BodyError(message, field=name)
        if isinstance(value, str) and len(value) > MAX_TEXT:
            raise BodyError(TOO_LONG, field=name, count=MAX_TEXT)
    return cast(B, dict(body))


def league_spec(body: object) -> LeagueSpec:
    """A ``POST /api/leagues`` body: the ``LeagueSpec`` fields (``name`` required)."""
    return LeagueSpec(**fields(body, LeagueBody))


@dataclass(frozen=True)
class SeasonArgs:
    signup_closes: datetime
    rounds: int
    schedule: str
    rule: dict[str, Any] | None
    #: the season's limit of players, divisions and promotion (``leagues.Sizes``: checked by ``create_season``).
    sizes: Sizes


def season_args(body: object) -> SeasonArgs:
    """A ``POST /api/leagues/<id>/seasons`` body: ``signup_closes``, ``rounds``, ``schedule`` and (fixed) ``rule``;
    optionally ``max_players``, ``divisions`` and ``promote``."""
    given = fields(body, SeasonBody)
    closes = inputs.instant(given["signup_closes"], "signup_closes")
    sizes = Sizes(given.get("max_players"), given.get("divisions"), given.get("promote", 0))
    return SeasonArgs(closes, given["rounds"], given["schedule"], given.get("rule"), sizes)


def applicant(body: object) -> Applicant:
    """A sign-up's body: ``name`` and ``email`` required, ``language``, ``timezone``, quiet hours optional."""
    return Applicant(**fields(body, ApplicantBody))


def swap_args(body: object) -> tuple[int, int]:
    """A swap's body: the two players' ids ``a`` and ``b``."""
    given = fields(body, SwapBody)
    return given["a"], given["b"]


def skip_args(body: object) -> tuple[int, bool]:
    """A missed round's body: the round's ``number``, and ``undo`` (true: the player will play it after all)."""
    given = fields(body, SkipBody)
    return given["round"], bool(given.get("undo", False))


def result_args(body: object) -> JSONObject | list[str]:
    """A recorded result's body: ``points`` (victory points per colour, checked by ``recorded``) or ``ranking``
    (colours, best first)."""
    given = fields(body, ResultBody)
    if len(given) != 1:
        raise BodyError(ONE_OF, choices="points or ranking")
    if "points" in given:
        return dict(given["points"])
    colours = [colour for colour in given["ranking"] if isinstance(colour, str)]
    if len(colours) != len(given["ranking"]):
        raise BodyError(NOT_COLOURS, field="ranking")
    return colours


def next_args(body: object) -> datetime:
    """The next season's body: when its sign-up closes."""
    return inputs.instant(fields(body, NextBody)["signup_closes"], "signup_closes")


# --- reads -----------------------------------------------------------------------------------------------------------


def iso(when: datetime | None) -> str | None:
    """An instant in ISO 8601, in UTC (None stays None)."""
    return None if when is None else when.astimezone(UTC).isoformat()


def link_urls(db: Database, secret_key: str, base_url: str, league_id: int) -> dict[str, dict[str, str]]:
    """The league's current links: for each kind its ``token`` and ``url``; LeagueError when there is no league."""
    links = {}
    for kind in LINKS:
        token = league_link(db, secret_key, league_id, kind)
        links[kind] = {"token": token, "url": link_url(base_url.rstrip("/"), kind, token)}
    return links


@dataclass(frozen=True, slots=True)
class LeagueShown:
    """A league's settings as the API shows them."""

    id: int
    name: str
    language: str
    timezone: str
    table_size: int
    options: JSONObject
    preset: str | None
    scoring: str
    tie_breaks: list[str]
    forfeit: str
    standings_public: bool
    created_at: datetime


@dataclass(frozen=True, slots=True)
class LeagueListed:
    """A league of the list, with its number of seasons."""

    league: LeagueShown
    season_count: int


@dataclass(frozen=True, slots=True)
class Unseated:
    """Why a season's due round could not be seated: its ``round``, the ``reason`` (English) and ``since`` when."""

    round: int
    reason: str
    since: str


@dataclass(frozen=True, slots=True)
class SeasonShown:
    """A season as the API shows it: its settings, its entries by status and the ids of its rounds so far."""

    id: int
    league: int
    number: int
    status: str
    signup_closes: datetime
    rounds: int
    schedule: str
    rule: ScheduleRuleJSON | None
    max_players: int | None
    divisions: int | None
    promote: int
    entries: dict[str, int]
    round_ids: list[int]
    unseated: Unseated | None


@dataclass(frozen=True, slots=True)
class LeagueView:
    """A league's settings and its seasons."""

    league: LeagueShown
    seasons: list[SeasonShown]


def _league_shown(league: League) -> LeagueShown:
    return LeagueShown(
        id=league.id,
        name=league.name,
        language=league.language,
        timezone=league.timezone,
        table_size=league.table_size,
        options=league.options,
        preset=league.preset,
        scoring=league.scoring,
        tie_breaks=league.tie_breaks,
        forfeit=league.forfeit,
        standings_public=league.standings_public,
        created_at=league.created_at,
    )


def leagues_list(db: Database) -> list[LeagueListed]:
    """Every league (id, name, language, zone, …), oldest first, with its number of seasons."""
    with db.session() as session:
        counts = dict(session.execute(select(Season.league_id, func.count()).group_by(Season.league_id)).all())
        rows = session.execute(select(League).order_by(League.id)).scalars().all()
        return [LeagueListed(_league_shown(league), counts.get(league.id, 0)) for league in rows]


def _season_shown(season: Season, counts: dict[str, int], round_ids: list[int]) -> SeasonShown:
    return SeasonShown(
        id=season.id,
        league=season.league_id,
        number=season.number,
        status=season.status,
        signup_closes=season.signup_closes,
        rounds=season.rounds,
        schedule=season.schedule,
        rule=season.schedule_rule,
        max_players=season.max_players,
        divisions=season.divisions,
        promote=season.promote,
        entries=counts,
        round_ids=round_ids,
        unseated=_unseated(season.unseated),
    )


def _unseated(stall: StallJSON | None) -> Unseated | None:
    """Why the season's due round could not be seated (``Season.unseated``, as ``rounds`` stores it); None while
    nothing is stalled."""
    if not stall:
        return None
    reason = str(rounds.unseated_reason(stall))
    return Unseated(stall["round"], reason, stall["since"])


def _round_ids(session: Session, season_ids: list[int]) -> dict[int, list[int]]:
    """Per season: the ids of its rounds planned or started so far, by number."""
    ids: dict[int, list[int]] = {i: [] for i in season_ids}
    rows = session.execute(
        select(LeagueRound.season_id, LeagueRound.id)
        .where(LeagueRound.season_id.in_(season_ids))
        .order_by(LeagueRound.season_id, LeagueRound.number)
    )
    for season_id, round_id in rows.all():
        ids[season_id].append(round_id)
    return ids


def _entry_counts(session: Session, season_ids: list[int]) -> dict[int, dict[str, int]]:
    """Per season: its entries by status (pending, confirmed, withdrawn)."""
    counts: dict[int, dict[str, int]] = {i: {"pending": 0, "confirmed": 0, "withdrawn": 0} for i in season_ids}
    rows = session.execute(
        select(SeasonPlayer.season_id, SeasonPlayer.status, func.count())
        .where(SeasonPlayer.season_id.in_(season_ids))
        .group_by(SeasonPlayer.season_id, SeasonPlayer.status)
    )
    for season_id, status, count in rows.all():
        counts[season_id][str(status)] = count
    return counts


def league_view(db: Database, league_id: int) -> LeagueView:
    """The league's settings and its seasons, each with its entries counted by status; LeagueError: no league."""
    with db.session() as session:
        league = session.get(League, league_id)
        if league is None:
            raise LeagueError(NO_LEAGUE, league=league_id)
        season_rows = session.execute(select(Season).where(Season.league_id == league_id).order_by(Season.number))
        listed = list(season_rows.scalars().all())
        counts = _entry_counts(session, [s.id for s in listed])
        ids = _round_ids(session, [s.id for s in listed])
        return LeagueView(_league_shown(league), [_season_shown(s, counts[s.id], ids[s.id]) for s in listed])


def season_league(db: Database, season_id: int) -> int:
    """The league of a season; LeagueError when there is no such season."""
    with db.session() as session:
        league_id = session.execute(select(Season.league_id).where(Season.id == season_id)).scalar()
        if league_id is None:
            raise LeagueError(NO_SEASON, season=season_id)
        return int(league_id)


@dataclass(frozen=True, slots=True)
class EntryShown:
    """A season's entry: the player's id and name, its status; the address only when asked (else None)."""

    id: int
    name: str
    status: str
    confirmed_at: datetime | None
    email: str | None


@dataclass(frozen=True, slots=True)
class SeasonView:
    """A season and its entries in sign-up order; ``emails``: their addresses were asked for."""

    season: SeasonShown
    players: list[EntryShown]
    emails: bool


def season_view(db: Database, season_id: int, *, emails: bool) -> SeasonView:
    """The season and its entries in sign-up order (name, status; the address only with ``emails``)."""
    with db.session() as session:
        season = session.get(Season, season_id)
        if season is None:
            raise LeagueError(NO_SEASON, season=season_id)
        rows = session.execute(
            select(SeasonPlayer, Player)
            .join(Player, Player.id == SeasonPlayer.player_id)
            .where(SeasonPlayer.season_id == season_id)
            .order_by(SeasonPlayer.id)
        ).all()
        entries = []
        for entry, player in rows:
            # a pending entry of a new address: the name its form gave (nobody confirmed one yet)
            name = player.display_name or str((entry.applicant or {}).get("name", ""))
            email = player.email if emails else None
            entries.append(EntryShown(player.id, name, entry.status, entry.confirmed_at, email))
        counts = _entry_counts(session, [season.id])[season.id]
        ids = _round_ids(session, [season.id])[season.id]
        return SeasonView(_season_shown(season, counts, ids), entries, emails)


@dataclass(frozen=True, slots=True)
class RoundListed:
    """A round planned or started: its number of ``tables`` and the ids of its ``games`` once started."""

    id: int
    number: int
    status: str
    starts_at: datetime | None
    tables: int
    games: list[int]


def season_rounds(db: Database, season_id: int) -> list[RoundListed]:
    """The season's rounds planned or started so far, by number; LeagueError when there is no such season."""
    with db.session() as session:
        if session.get(Season, season_id) is None:
            raise LeagueError(NO_SEASON, season=season_id)
        found = session.execute(
            select(LeagueRound).where(LeagueRound.season_id == season_id).order_by(LeagueRound.number)
        ).scalars()
        listed = list(found)
        games: dict[int, list[int]] = {r.id: [] for r in listed}
        for round_id, game_id in session.execute(
            select(Game.round_id, Game.id).where(Game.round_id.in_(list(games))).order_by(Game.id)
        ).all():
            games[round_id or 0].append(game_id)  # (every game selected has a round)
        return [RoundListed(r.id, r.number, r.status, r.starts_at, len(r.tables or []), games[r.id]) for r in listed]


@dataclass(frozen=True, slots=True)
class PlayerEntry:
    """One of a player's season entries: its league, its season (and the season's status), its own status."""

    id: int
    league_id: int
    league_name: str
    season_id: int
    season_number: int
    season_status: str
    status: str
    skips: list[int]
    signup_closes: datetime
    rounds: int


def player_entries(db: Database, player_id: int) -> list[PlayerEntry]:
    """The player's season entries, newest season first: league, season, the season's and the entry's status."""
    with db.session() as session:
        return [
            PlayerEntry(
                id=entry.id,
                league_id=league.id,
                league_name=league.name,
                season_id=season.id,
                season_number=season.number,
                season_status=season.status,
                status=entry.status,
                skips=list(entry.skips or []),
                signup_closes=season.signup_closes,
                rounds=season.rounds,
            )
            for entry, season, league in seasons.season_entries(session, player_id)
        ]


def round_league(db: Database, round_id: int) -> int:
    """The league of a round; RoundError when there is no such round."""
    with db.session() as session:
        found = session.execute(
            select(Season.league_id)
            .join(LeagueRound, LeagueRound.season_id == Season.id)
            .where(LeagueRound.id == round_id)
        ).scalar()
        if found is None:
            raise rounds.RoundError(rounds.NO_ROUND, round=round_id)
        return int(found)


def game_league(db: Database, game_id: int) -> int | None:
    """The league of a game (None: a game of no league); ResultError when there is no such game."""
    with db.session() as session:
        game = session.get(Game, game_id)
        if game is None:
            raise standings.ResultError(recorded.NO_GAME, game=game_id)
        found = session.execute(
            select(Season.league_id)
            .join(LeagueRound, LeagueRound.season_id == Season.id)
            .where(LeagueRound.id == game.round_id)
        ).scalar()
        return None if found is None else int(found)


class RoundJSON(TypedDict):
    """``rounds.RoundShown`` in the API: its start in ISO 8601."""

    id: int
    number: int
    season_id: int
    season: int
    status: str
    starts_at: str | None
    tables: list[rounds.RoundTable]
    games: list[rounds.RoundGame]


def round_json(db: Database, league_id: int, round_id: int) -> RoundJSON:
    """A round of the league (``rounds.round_view``: status, tables of players with id, name and zone, games), its
    start in ISO 8601."""
    shown = rounds.round_view(db, league_id, round_id)
    return {**shown, "starts_at": iso(shown["starts_at"])}


class EmailedRow(standings.StandingRow):
    """A row with its player's address (the organiser's API only)."""

    email: str | None


class DivisionJSON(TypedDict):
    name: str | None
    #: ``EmailedRow``s in the organiser's API
    rows: Sequence[standings.StandingRow]


class SeasonHead(TypedDict):
    id: int
    league: int
    number: int
    status: str


class StandingsJSON(TypedDict):
    """A season's standings in the API (``standings_json``)."""

    season: SeasonHead
    divisions: list[DivisionJSON]
    substitutes: Sequence[standings.StandingRow]


def _emailed(rows: list[standings.StandingRow], emails: dict[int, str] | None) -> Sequence[standings.StandingRow]:
    """The rows, each with its player's ``email`` when ``emails`` (player id -> address) is given."""
    if emails is None:
        return rows
    emailed: list[EmailedRow] = [{**row, "email": emails.get(row["player"])} for row in rows]
    return emailed


def standings_json(db: Database, season_id: int, *, emails: bool) -> StandingsJSON:
    """The season's standings (``standings.standings``): per division its rows (rank, player, name, points, games,
    wins, victory points, average place), the substitutes' apart; each row's ``email`` only with ``emails``."""
    table = standings.standings(db, season_id)
    found: dict[int, str] | None = None
    if emails:
        ids = sorted({row["player"] for row in table.rows() + table.substitutes})
        with db.session() as session:
            found = dict(session.execute(select(Player.id, Player.email).where(Player.id.in_(ids))).all())
    divisions: list[DivisionJSON] = [{"name": name, "rows": _emailed(rows, found)} for name, rows in table.divisions]
    substitutes = _emailed(table.substitutes, found)
    with db.session() as session:
        season = session.get(Season, season_id)
        assert season is not None
        head: SeasonHead = {
            "id": season.id,
            "league": season.league_id,
            "number": season.number,
            "status": season.status,
        }
    return {"season": head, "divisions": divisions, "substitutes": substitutes}


# --- ratings ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RatingShown:
    """A stored rating as pages show it (``ratings.shown``): ``rating`` (the conservative ordinal) and
    ``uncertainty`` rounded, both None while ``new`` (under ``ratings.NEW_BELOW`` games); and its ``games``."""

    rating: int | None
    uncertainty: int | None
    new: bool
    games: int


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A rated player of a league."""

    player: int
    name: str
    rating: RatingShown


@dataclass(frozen=True, slots=True)
class LeagueRating:
    """A player's rating in one league (``league_id``, ``league_name``)."""

    league_id: int
    league_name: str
    rating: RatingShown


@dataclass(frozen=True, slots=True)
class PlayerRatings:
    """A player's ratings: over all games (None before their first rated game) and per league."""

    all_games: RatingShown | None
    leagues: list[LeagueRating]


def _rating_shown(games: int, mu: float, sigma: float) -> RatingShown:
    shown = ratings.shown(ratings.Rating(mu, sigma, games))
    return RatingShown(shown.ordinal, shown.uncertainty, shown.new, games)


def league_ratings(db: Database, league_id: int) -> list[PlayerRating]:
    """The league's ratings (OpenSkill, its own scope): every rated player, the highest rating first, new players
    last; LeagueError: no league."""
    with db.session() as session:
        if session.get(League, league_id) is None:
            raise LeagueError(NO_LEAGUE, league=league_id)
        found = session.execute(
            select(Player.id, Player.display_name, RatingRow.games, RatingRow.mu, RatingRow.sigma)
            .join(Player, Player.id == RatingRow.player_id)
            .where(RatingRow.scope == league_id)
            .order_by(Player.id)
        ).all()
    rows = [PlayerRating(pid, name, _rating_shown(games, mu, sigma)) for pid, name, games, mu, sigma in found]
    return sorted(rows, key=lambda r: (r.rating.new, -(r.rating.rating or 0), r.player))


def player_ratings(db: Database, player_id: int) -> PlayerRatings:
    """The player's own ratings: over all games and each league's they have one in, by league name."""
    with db.session() as session:
        found = session.execute(
            select(RatingRow.scope, League.name, RatingRow.games, RatingRow.mu, RatingRow.sigma)
            .outerjoin(League, League.id == RatingRow.scope)
            .where(RatingRow.player_id == player_id)
            .order_by(League.name, RatingRow.scope)
        ).all()
    overall = [_rating_shown(games, mu, sigma) for scope, _n, games, mu, sigma in found if scope == ALL_GAMES]
    leagues = [
        LeagueRating(scope, name, _rating_shown(games, mu, sigma))
        for scope, name, games, mu, sigma in found
        if scope != ALL_GAMES and name is not None
    ]
    return PlayerRatings(overall[0] if overall else None, leagues)
