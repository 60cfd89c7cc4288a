"""The JSON API of leagues.

- Organisers: ``Authorization: Bearer <DEADMAIL_API_TOKEN>`` reaches every league; ``Bearer <a league's organiser
  token>`` (its organiser link's token) reaches that league only: its reads and its new seasons, never another
  league (which does not exist for it: 404), nor the list of leagues, a new league or a revoked link. A revoked
  league organiser token is a 403 saying so; any other token a 401. Entries' e-mail addresses are shown to the
  server's organiser only.
- Sign-ups: ``POST /api/l/<invite token>/signup`` answers 202 with the same words whatever the address's state
  (new, pending, confirmed): nothing tells whether it was known. ``POST /api/l/confirm/<token>`` confirms.
- Players: ``GET /api/p/<player token>/leagues``, their season entries and ratings; by the same token they
  withdraw from a season (``…/leagues/<entry>/withdraw``) and say they will miss a round, or undo it
  (``…/leagues/<entry>/skip``), as on their hub's page (``web.leagues``).
- Ratings (organisers): ``GET /api/leagues/<id>/ratings``, the league's OpenSkill ratings.
- The league's webhook channel (organisers): ``PUT /api/leagues/<id>/channel`` ``{"url": …}`` sets it (a refused
  address: 400, nothing stored), ``DELETE`` removes it, ``POST …/channel/resume`` resumes it once paused (409
  without one); ``GET /api/leagues/<id>`` shows it (``channel``: null when none).

- Rounds (organisers): plan a season's next round, read a round, swap two players, start it
  (``services.leagues.rounds``).
- Results (organisers): a season's standings (JSON, CSV), an abandoned game's result, the next season
  (``services.leagues.standings``, ``recorded``, ``promotion``). A season's standings are read also by its players
  (``/api/p/<player token>/…``) and, when the league shows them publicly, by anyone with its public link
  (``/api/ls/<public token>/…``); e-mail addresses only by the server's organiser.

Every refusal is ``{"ok": false, "error": ...}`` with a 4xx, and nothing changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import wraps
from typing import Any

from flask import Blueprint, Response, g, jsonify, request
from flask.typing import ResponseReturnValue

from engine.shapes import JSON, JSONObject

from ..models import utcnow
from ..services.channel import channels
from ..services.channel.urls import ChannelError
from ..services.errors import ShownError
from ..services.inputs import InputError
from ..services.leagues import api, promotion, reading, recorded, rounds, seasons, seating, standings
from ..services.leagues.api import BodyError
from ..services.leagues.seasons import LeagueError
from ..services.links import LinkError
from .access import bearer_is_organiser, dm, json_error, player_link
from .api import organiser
from .guard import json_body

bp = Blueprint("api_leagues", __name__, url_prefix="/api")

NEEDS_TOKEN = "This call needs the organiser's API token or the league's organiser token (Authorization: Bearer …)."
#: the answer to every sign-up that was taken, or that the address's state made moot (already in, mailed just now).
SIGNED_UP = (
    "If this address can join the season, a mail is on its way to it with a link to confirm; "
    "nobody is signed up before following that link."
)
#: refusals of the state of a season, round or game (the body was fine): 409.
CONFLICTS = (
    seasons.NOT_SIGNUP,
    seasons.CLOSED,
    rounds.STARTED,
    rounds.ALL_PLANNED,
    rounds.SEASON_OVER,
    seating.TOO_FEW,
    seating.APART,
    seating.SWAP_ACQUAINTED,
    recorded.NOT_LEAGUE,
    recorded.NOT_ABANDONED,
    recorded.ALREADY_RECORDED,
    promotion.NOT_OVER,
    promotion.HAS_NEXT,
    seasons.NOT_CONFIRMED,
    seasons.ROUND_STARTED,
    seasons.ALREADY_SKIPPED,
    seasons.NOT_SKIPPED,
    seasons.ALREADY_WITHDRAWN,
    seasons.SEASON_OVER,
)
NOT_FOUND = (
    seasons.NO_LEAGUE,
    seasons.NO_SEASON,
    seasons.NOT_IN,
    rounds.NO_ROUND,
    rounds.NOT_IN_LEAGUE,
    recorded.NO_GAME,
    reading.OTHER_LEAGUE,
)
#: what a reader's link does not open: 403.
FORBIDDEN = (reading.NOT_MEMBER, reading.NOT_PUBLIC)
NO_SIGNUP_SEASON = "No season of this league is open for sign-ups just now: nothing was changed."

View = Callable[..., ResponseReturnValue]


def refusal(exc: ShownError) -> Response:
    """A service's refusal: 404 for a league, season, round or game that is not there (or not the caller's), 403 for
    standings the link does not open, 409 for a state, else 400."""
    status = (
        404 if exc.msgid in NOT_FOUND else 403 if exc.msgid in FORBIDDEN else 409 if exc.msgid in CONFLICTS else 400
    )
    return json_error(str(exc), status)


def _bearer() -> str:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def league_organiser(view: View) -> View:
    """The view needs the server's organiser token (``g.reach`` None: every league) or a league's organiser token
    (``g.reach``: that league's id); 401 for any other, 403 for a revoked league organiser token."""

    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> ResponseReturnValue:
        g.reach = None
        if not bearer_is_organiser():
            try:
                g.reach = seasons.open_league(dm().db, dm().settings.secret_key, "organiser", _bearer())
            except LinkError as exc:
                return json_error(str(exc), 403) if exc.msgid == seasons.REVOKED else json_error(NEEDS_TOKEN, 401)
        return view(*args, **kwargs)

    return guarded


def reaches(league_id: int) -> bool:
    """The caller may see and manage ``league_id`` (``league_organiser``)."""
    return g.reach is None or g.reach == league_id


def _no_league(league_id: int) -> Response:
    return json_error(str(LeagueError(seasons.NO_LEAGUE, league=league_id)), 404)


def _season_reached(season_id: int) -> int:
    """The season's league when the caller reaches it; else the season is not there for them (LeagueError)."""
    league_id = api.season_league(dm().db, season_id)
    if not reaches(league_id):
        raise LeagueError(seasons.NO_SEASON, season=season_id)
    return league_id


def _round_league(round_id: int) -> int:
    """The round's league when the caller reaches it; else the round is not there for them (RoundError)."""
    league_id = api.round_league(dm().db, round_id)
    if not reaches(league_id):
        raise rounds.RoundError(rounds.NO_ROUND, round=round_id)
    return league_id


def _links(league_id: int) -> dict[str, dict[str, str]]:
    s = dm().settings
    return api.link_urls(dm().db, s.secret_key, s.base_url, league_id)


# --- JSON of the services' reads ------------------------------------------------------------------------------------


def _league_json(league: api.LeagueShown) -> JSONObject:
    return {
        "id": league.id,
        "name": league.name,
        "language": league.language,
        "timezone": league.timezone,
        "table_size": league.table_size,
        "options": league.options,
        "preset": league.preset,
        "scoring": league.scoring,
        "tie_breaks": list[JSON](league.tie_breaks),
        "forfeit": league.forfeit,
        "standings_public": league.standings_public,
        "created_at": api.iso(league.created_at),
    }


def _season_json(season: api.SeasonShown) -> JSONObject:
    unseated, rule = season.unseated, season.rule
    return {
        "id": season.id,
        "league": season.league,
        "number": season.number,
        "status": season.status,
        "signup_closes": api.iso(season.signup_closes),
        "rounds": season.rounds,
        "schedule": season.schedule,
        "rule": None if rule is None else {"weekday": rule["weekday"], "time": rule["time"]},
        "max_players": season.max_players,
        "divisions": season.divisions,
        "promote": season.promote,
        "entries": dict[str, JSON](season.entries),
        "round_ids": list[JSON](season.round_ids),
        "unseated": None
        if unseated is None
        else {"round": unseated.round, "reason": unseated.reason, "since": unseated.since},
    }


def _entry_json(entry: api.EntryShown, emails: bool) -> JSONObject:
    shown: JSONObject = {
        "id": entry.id,
        "name": entry.name,
        "status": entry.status,
        "confirmed_at": api.iso(entry.confirmed_at),
    }
    return shown | ({"email": entry.email} if emails else {})


def _round_listed_json(listed: api.RoundListed) -> JSONObject:
    return {
        "id": listed.id,
        "number": listed.number,
        "status": listed.status,
        "starts_at": api.iso(listed.starts_at),
        "tables": listed.tables,
        "games": list[JSON](listed.games),
    }


def _player_entry_json(entry: api.PlayerEntry) -> JSONObject:
    return {
        "id": entry.id,
        "league": {"id": entry.league_id, "name": entry.league_name},
        "season": {"id": entry.season_id, "number": entry.season_number, "status": entry.season_status},
        "status": entry.status,
        "skips": list[JSON](entry.skips),
        "signup_closes": api.iso(entry.signup_closes),
        "rounds": entry.rounds,
    }


def _rating_json(shown: api.RatingShown) -> JSONObject:
    return {"rating": shown.rating, "uncertainty": shown.uncertainty, "new": shown.new, "games": shown.games}


def _player_ratings_json(found: api.PlayerRatings) -> JSONObject:
    overall = found.all_games
    leagues: list[JSON] = [
        {"league": {"id": r.league_id, "name": r.league_name}, **_rating_json(r.rating)} for r in found.leagues
    ]
    return {"all_games": None if overall is None else _rating_json(overall), "leagues": leagues}


# --- organisers ------------------------------------------------------------------------------------------------------


@bp.post("/leagues")
def create_league() -> ResponseReturnValue:
    """A new league from the ``LeagueSpec`` fields: 201, its id and its links (invite, organiser, public)."""
    if (denied := organiser()) is not None:
        return denied
    try:
        league_id = seasons.create_league(dm().db, api.league_spec(json_body()), utcnow())
    except (LeagueError, BodyError) as exc:
        return refusal(exc)
    return jsonify({"ok": True, "id": league_id, "links": _links(league_id)}), 201


@bp.get("/leagues")
def list_leagues() -> ResponseReturnValue:
    if (denied := organiser()) is not None:
        return denied
    listed = api.leagues_list(dm().db)
    shown = [{**_league_json(one.league), "season_count": one.season_count} for one in listed]
    return jsonify({"ok": True, "leagues": shown})


@bp.get("/leagues/<int:league_id>")
@league_organiser
def show_league(league_id: int) -> ResponseReturnValue:
    """The league's settings, links and seasons (each with its entries counted by status)."""
    if not reaches(league_id):
        return _no_league(league_id)
    try:
        view = api.league_view(dm().db, league_id)
    except LeagueError as exc:
        return refusal(exc)
    shown = {**_league_json(view.league), "seasons": [_season_json(s) for s in view.seasons]}
    channel = _channel_json(channels.league_channel(dm().db, league_id))
    return jsonify({"ok": True, **shown, "channel": channel, "links": _links(league_id)})


def _channel_json(channel: channels.ChannelShown | None) -> JSON:
    if channel is None:
        return None
    return {
        "url": channel.url,
        "paused_at": None if channel.paused_at is None else api.iso(channel.paused_at),
        "failures": channel.failures,
        "last_error": channel.last_error,
        "waiting": channel.waiting,
    }


@bp.put("/leagues/<int:league_id>/channel")
@league_organiser
def set_channel(league_id: int) -> ResponseReturnValue:
    """Set the league's webhook address (``{"url": …}``): 200 and the channel; a refused address 400, nothing
    stored."""
    if not reaches(league_id):
        return _no_league(league_id)
    try:
        body = json_body()
        url = body.get("url") if isinstance(body, dict) else None
        settings = dm().settings
        channels.set_league_channel(dm().db, league_id, url, allow_private=settings.webhook_private, now=utcnow())
    except (ChannelError, InputError) as exc:
        return refusal(exc)
    return jsonify({"ok": True, "channel": _channel_json(channels.league_channel(dm().db, league_id))})


@bp.delete("/leagues/<int:league_id>/channel")
@league_organiser
def remove_channel(league_id: int) -> ResponseReturnValue:
    """Remove the league's webhook address: whether it had one."""
    if not reaches(league_id):
        return _no_league(league_id)
    return jsonify({"ok": True, "removed": channels.clear_league_channel(dm().db, league_id)})


@bp.post("/leagues/<int:league_id>/channel/resume")
@league_organiser
def resume_channel(league_id: int) -> ResponseReturnValue:
    """Resume the league's paused channel: what waited is posted; 409 without a channel."""
    if not reaches(league_id):
        return _no_league(league_id)
    try:
        channels.resume_league_channel(dm().db, league_id, utcnow())
    except ChannelError as exc:
        return json_error(str(exc), 409)
    return jsonify({"ok": True, "channel": _channel_json(channels.league_channel(dm().db, league_id))})


@bp.post("/leagues/<int:league_id>/seasons")
@league_organiser
def create_season(league_id: int) -> ResponseReturnValue:
    """The league's next season: 201, its id and number."""
    if not reaches(league_id):
        return _no_league(league_id)
    try:
        given = api.season_args(json_body())
        season_id = seasons.create_season(
            dm().db,
            league_id,
            given.signup_closes,
            given.rounds,
            given.schedule,
            given.rule,
            now=utcnow(),
            sizes=given.sizes,
        )
    except (LeagueError, BodyError, InputError) as exc:
        return refusal(exc)
    number = seasons.season_number(dm().db, season_id)
    return jsonify({"ok": True, "id": season_id, "league": league_id, "number": number}), 201


@bp.get("/seasons/<int:season_id>")
@league_organiser
def show_season(season_id: int) -> ResponseReturnValue:
    """The season and its entries (name, status; e-mail addresses for the server's organiser only)."""
    try:
        _season_reached(season_id)
        view = api.season_view(dm().db, season_id, emails=g.reach is None)
    except LeagueError as exc:
        return refusal(exc)
    players = [_entry_json(entry, view.emails) for entry in view.players]
    return jsonify({"ok": True, **_season_json(view.season), "players": players})


@bp.get("/seasons/<int:season_id>/rounds")
@league_organiser
def season_rounds(season_id: int) -> ResponseReturnValue:
    """The season's rounds planned or started so far (id, number, status, start, tables, games)."""

    def listed() -> dict[str, Any]:
        _season_reached(season_id)
        listed = [_round_listed_json(r) for r in api.season_rounds(dm().db, season_id)]
        return {"season": season_id, "rounds": listed}

    return answer(listed)


@bp.get("/leagues/<int:league_id>/ratings")
@league_organiser
def league_ratings(league_id: int) -> ResponseReturnValue:
    """The league's ratings (OpenSkill): each rated player's rating, uncertainty and games, the highest first."""
    if not reaches(league_id):
        return _no_league(league_id)

    def rated() -> JSONObject:
        found = api.league_ratings(dm().db, league_id)
        rows: list[JSON] = [{"player": r.player, "name": r.name, **_rating_json(r.rating)} for r in found]
        return {"league": league_id, "ratings": rows}

    return answer(rated)


@bp.post("/leagues/<int:league_id>/links/<kind>/revoke")
def revoke_link(league_id: int, kind: str) -> ResponseReturnValue:
    """Revoke the league's link of ``kind``: every earlier one is refused; the new one."""
    if (denied := organiser()) is not None:
        return denied
    if kind not in seasons.LINKS:
        return json_error(
            str(LeagueError(seasons.BAD_LINK_KIND, value=repr(kind[:40]), choices=", ".join(seasons.LINKS))), 404
        )
    try:
        seasons.revoke(dm().db, league_id, kind)
    except LeagueError as exc:
        return refusal(exc)
    return jsonify({"ok": True, "kind": kind, **_links(league_id)[kind]})


# --- rounds ----------------------------------------------------------------------------------------------------------


def answer(call: Callable[[], Mapping[str, object]], status: int = 200) -> ResponseReturnValue:
    """``{"ok": true, **call()}`` with ``status``; a service's refusal (``refusal``) when it refuses."""
    try:
        shown = call()
    except ShownError as exc:
        return refusal(exc)
    return jsonify({"ok": True, **shown}), status


@bp.post("/seasons/<int:season_id>/rounds")
@league_organiser
def plan_round(season_id: int) -> ResponseReturnValue:
    """Plan the season's next round (or its planned round again): 201 and the round, as ``show_round``."""

    def planned() -> api.RoundJSON:
        league_id = _season_reached(season_id)
        return api.round_json(dm().db, league_id, rounds.plan(dm().db, season_id, utcnow()))

    return answer(planned, 201)


@bp.get("/rounds/<int:round_id>")
@league_organiser
def show_round(round_id: int) -> ResponseReturnValue:
    """The round: status, start, tables (players' id, name, zone; hours all are awake), and once started its games."""
    return answer(lambda: api.round_json(dm().db, _round_league(round_id), round_id))


@bp.post("/rounds/<int:round_id>/swap")
@league_organiser
def swap_players(round_id: int) -> ResponseReturnValue:
    """Swap two players (``{"a": id, "b": id}``) between the tables of a planned round: the round as it is now."""

    def swapped() -> api.RoundJSON:
        league_id = _round_league(round_id)
        rounds.swap(dm().db, round_id, *api.swap_args(json_body()))
        return api.round_json(dm().db, league_id, round_id)

    return answer(swapped)


@bp.post("/rounds/<int:round_id>/start")
@league_organiser
def start_round(round_id: int) -> ResponseReturnValue:
    """Start a planned round: one game per table, each player mailed their table; 201 and the games' ids."""

    def started() -> dict[str, Any]:
        _round_league(round_id)
        return {"round": round_id, "games": rounds.start(dm().db, round_id, utcnow())}

    return answer(started, 201)


# --- results ---------------------------------------------------------------------------------------------------------


@bp.get("/seasons/<int:season_id>/standings")
@league_organiser
def season_standings(season_id: int) -> ResponseReturnValue:
    """The season's standings per division, substitutes apart (addresses for the server's organiser only)."""

    def table() -> api.StandingsJSON:
        _season_reached(season_id)
        return api.standings_json(dm().db, season_id, emails=g.reach is None)

    return answer(table)


@bp.get("/seasons/<int:season_id>/standings.csv")
@league_organiser
def standings_csv(season_id: int) -> ResponseReturnValue:
    """The season's standings as CSV (``scoring.standings_csv``)."""
    try:
        _season_reached(season_id)
        text = standings.csv(dm().db, season_id)
    except ShownError as exc:
        return refusal(exc)
    name = f"standings-season-{seasons.season_number(dm().db, season_id)}.csv"
    return Response(text, mimetype="text/csv", headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.post("/games/<int:game_id>/result")
@league_organiser
def record_result(game_id: int) -> ResponseReturnValue:
    """Record an abandoned league game's result: ``{"points": {"red": 12, …}}`` or ``{"ranking": ["red", …]}``."""

    def record() -> dict[str, Any]:
        if g.reach is not None and api.game_league(dm().db, game_id) != g.reach:
            raise standings.ResultError(recorded.NO_GAME, game=game_id)
        recorded.record_result(dm().db, game_id, api.result_args(json_body()), utcnow())
        return {"game": game_id, "recorded": True}

    return answer(record)


@bp.post("/seasons/<int:season_id>/next")
@league_organiser
def next_season(season_id: int) -> ResponseReturnValue:
    """The next season of a finished one (``{"signup_closes": …}``): 201, its id, league and number."""

    def created() -> dict[str, Any]:
        league_id = _season_reached(season_id)
        made = promotion.next_season(dm().db, season_id, api.next_args(json_body()), utcnow())
        return {"id": made, "league": league_id, "number": seasons.season_number(dm().db, made)}

    return answer(created, 201)


@bp.get("/p/<token>/seasons/<int:season_id>/standings")
@player_link
def member_standings(token: str, season_id: int) -> ResponseReturnValue:
    """A season's standings for one of its players (their preferences link's token)."""

    def table() -> api.StandingsJSON:
        reading.season_of_member(dm().db, season_id, g.player_id)
        return api.standings_json(dm().db, season_id, emails=False)

    return answer(table)


@bp.get("/ls/<token>/seasons/<int:season_id>/standings")
def public_standings(token: str, season_id: int) -> ResponseReturnValue:
    """A season's standings by the league's public link, while the league shows its standings publicly."""
    league_id = seasons.open_league(dm().db, dm().settings.secret_key, "public", token)

    def table() -> api.StandingsJSON:
        reading.public_seasons(dm().db, league_id)
        reading.season_of_league(dm().db, season_id, league_id)
        return api.standings_json(dm().db, season_id, emails=False)

    return answer(table)


# --- sign-ups --------------------------------------------------------------------------------------------------------


@bp.post("/l/<token>/signup")
def sign_up(token: str) -> ResponseReturnValue:
    """Sign an address up for the season taking sign-ups (pending until the mailed link confirms it): 202."""
    league_id = seasons.open_league(dm().db, dm().settings.secret_key, "invite", token)
    try:
        given = api.applicant(json_body())
    except BodyError as exc:
        return refusal(exc)
    season_id = seasons.signup_season(dm().db, league_id)
    if season_id is None:  # a state of the league, not a missing thing: its latest season's sign-up closed, or none yet
        closed = seasons.signup_closed(dm().db, league_id)
        return json_error(NO_SIGNUP_SEASON if closed is None else str(closed), 409)
    try:
        seasons.sign_up(dm().db, season_id, given, utcnow())
    except LeagueError as exc:  # (the address's own state never refuses: ``sign_up`` answers it alike)
        return refusal(exc)
    return jsonify({"ok": True, "message": SIGNED_UP}), 202


@bp.post("/l/confirm/<token>")
def confirm(token: str) -> ResponseReturnValue:
    """Confirm the sign-up the mailed link names: the player is in the season."""
    s = dm().settings
    try:
        shown = seasons.confirmation(dm().db, s.secret_key, token, s.link_max_age)
        done = seasons.confirm(dm().db, s.secret_key, token, s.link_max_age, utcnow())
    except LeagueError as exc:
        return json_error(str(exc), 409)
    body = {"league": shown.league, "season": shown.season, "name": shown.name}
    return jsonify({"ok": True, "confirmed": True, "already": done.already, **body})


# --- players ---------------------------------------------------------------------------------------------------------


@bp.get("/p/<token>/leagues")
@player_link
def player_leagues(token: str) -> ResponseReturnValue:
    """The player's season entries (league, season, their status, the rounds they will miss) and their ratings."""
    db = dm().db
    return jsonify(
        {
            "ok": True,
            "entries": [_player_entry_json(entry) for entry in api.player_entries(db, g.player_id)],
            "ratings": _player_ratings_json(api.player_ratings(db, g.player_id)),
        }
    )


@bp.post("/p/<token>/leagues/<int:entry_id>/withdraw")
@player_link
def withdraw(token: str, entry_id: int) -> ResponseReturnValue:
    """Withdraw from a season (``seasons.withdraw``, as the hub's button): not seated in its later rounds."""

    def withdrawn() -> dict[str, Any]:
        seasons.check_owner(dm().db, entry_id, g.player_id)
        seasons.withdraw(dm().db, entry_id, utcnow())
        return {"entry": entry_id, "status": "withdrawn"}

    return answer(withdrawn)


@bp.post("/p/<token>/leagues/<int:entry_id>/skip")
@player_link
def skip(token: str, entry_id: int) -> ResponseReturnValue:
    """``{"round": 2}``: the player will miss that round (not yet started); ``{"round": 2, "undo": true}``: they will
    play it after all (``seasons.skip``, ``seasons.unskip``, as the hub's form). The rounds they will miss."""

    def skipped() -> dict[str, Any]:
        number, undo = api.skip_args(json_body())
        seasons.check_owner(dm().db, entry_id, g.player_id)
        skips = (seasons.unskip if undo else seasons.skip)(dm().db, entry_id, number, utcnow())
        return {"entry": entry_id, "skips": skips}

    return answer(skipped)
