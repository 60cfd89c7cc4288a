"""The JSON API of leagues (issue 14).

- Organisers: ``Authorization: Bearer <DEADMAIL_API_TOKEN>`` reaches every league; ``Bearer <a league's organiser
  token>`` (its organiser link's token) reaches that league only: its reads and its new seasons, never another
  league (which does not exist for it: 404), nor the list of leagues, a new league or a revoked link. A revoked
  league organiser token is a 403 saying so; any other token a 401. Entries' e-mail addresses are shown to the
  server's organiser only.
- Sign-ups: ``POST /api/l/<invite token>/signup`` answers 202 with the same words whatever the address's state
  (new, pending, confirmed): nothing tells whether it was known. ``POST /api/l/confirm/<token>`` confirms.
- Players: ``GET /api/p/<player token>/leagues``, their season entries.

Every refusal is ``{"ok": false, "error": ...}`` with a 4xx, and nothing changed. (The rounds and standings of a
season are to come here as ``/api/seasons/<id>/rounds…`` and ``/standings``, calling their services.)
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from flask import Blueprint, Response, g, jsonify, request

from ..models import utcnow
from ..services import league_api, leagues
from ..services.league_api import BodyError
from ..services.leagues import LeagueError
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
#: refusals of the season's state (the body was fine): 409.
CONFLICTS = (leagues.NOT_SIGNUP, leagues.CLOSED)
NOT_FOUND = (leagues.NO_LEAGUE, leagues.NO_SEASON)
NO_SIGNUP_SEASON = "No season of this league is open for sign-ups just now: nothing was changed."

View = Callable[..., Any]


def refusal(exc: LeagueError | BodyError) -> Response:
    """A service's refusal: 404 for a league or season that is not there, 409 for a season's state, else 400."""
    status = 404 if exc.msgid in NOT_FOUND else 409 if exc.msgid in CONFLICTS else 400
    return json_error(str(exc), status)


def _bearer() -> str:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def league_organiser(view: View) -> View:
    """The view needs the server's organiser token (``g.reach`` None: every league) or a league's organiser token
    (``g.reach``: that league's id); 401 for any other, 403 for a revoked league organiser token."""

    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        g.reach = None
        if not bearer_is_organiser():
            try:
                g.reach = leagues.open_league(dm().db, dm().settings.secret_key, "organiser", _bearer())
            except LinkError as exc:
                return json_error(str(exc), 403) if exc.msgid == leagues.REVOKED else json_error(NEEDS_TOKEN, 401)
        return view(*args, **kwargs)

    return guarded


def reaches(league_id: int) -> bool:
    """The caller may see and manage ``league_id`` (``league_organiser``)."""
    return g.reach is None or g.reach == league_id


def _no_league(league_id: int) -> Response:
    return json_error(str(LeagueError(leagues.NO_LEAGUE, league=league_id)), 404)


def _links(league_id: int) -> dict[str, dict[str, str]]:
    s = dm().settings
    return league_api.link_urls(dm().db, s.secret_key, s.base_url, league_id)


# --- organisers ------------------------------------------------------------------------------------------------------


@bp.post("/leagues")
def create_league() -> Any:
    """A new league from the ``LeagueSpec`` fields: 201, its id and its links (invite, organiser, public)."""
    if (denied := organiser()) is not None:
        return denied
    try:
        league_id = leagues.create_league(dm().db, league_api.league_spec(json_body()), utcnow())
    except (LeagueError, BodyError) as exc:
        return refusal(exc)
    return jsonify({"ok": True, "id": league_id, "links": _links(league_id)}), 201


@bp.get("/leagues")
def list_leagues() -> Any:
    if (denied := organiser()) is not None:
        return denied
    return jsonify({"ok": True, "leagues": league_api.leagues_list(dm().db)})


@bp.get("/leagues/<int:league_id>")
@league_organiser
def show_league(league_id: int) -> Any:
    """The league's settings, links and seasons (each with its entries counted by status)."""
    if not reaches(league_id):
        return _no_league(league_id)
    try:
        shown = league_api.league_view(dm().db, league_id)
    except LeagueError as exc:
        return refusal(exc)
    return jsonify({"ok": True, **shown, "links": _links(league_id)})


@bp.post("/leagues/<int:league_id>/seasons")
@league_organiser
def create_season(league_id: int) -> Any:
    """The league's next season: 201, its id and number."""
    if not reaches(league_id):
        return _no_league(league_id)
    try:
        given = league_api.season_args(json_body())
        season_id = leagues.create_season(
            dm().db,
            league_id,
            given.signup_closes,
            given.rounds,
            given.schedule,
            given.rule,
            now=utcnow(),
            sizes=given.sizes,
        )
    except (LeagueError, BodyError) as exc:
        return refusal(exc)
    number = leagues.season_number(dm().db, season_id)
    return jsonify({"ok": True, "id": season_id, "league": league_id, "number": number}), 201


@bp.get("/seasons/<int:season_id>")
@league_organiser
def show_season(season_id: int) -> Any:
    """The season and its entries (name, status; e-mail addresses for the server's organiser only)."""
    try:
        if not reaches(league_api.season_league(dm().db, season_id)):
            raise LeagueError(leagues.NO_SEASON, season=season_id)
        shown = league_api.season_view(dm().db, season_id, emails=g.reach is None)
    except LeagueError as exc:
        return refusal(exc)
    return jsonify({"ok": True, **shown})


@bp.post("/leagues/<int:league_id>/links/<kind>/revoke")
def revoke_link(league_id: int, kind: str) -> Any:
    """Revoke the league's link of ``kind``: every earlier one is refused; the new one."""
    if (denied := organiser()) is not None:
        return denied
    if kind not in leagues.LINKS:
        return json_error(
            str(LeagueError(leagues.BAD_LINK_KIND, value=repr(kind[:40]), choices=", ".join(leagues.LINKS))), 404
        )
    try:
        leagues.revoke(dm().db, league_id, kind)
    except LeagueError as exc:
        return refusal(exc)
    return jsonify({"ok": True, "kind": kind, **_links(league_id)[kind]})


# --- sign-ups --------------------------------------------------------------------------------------------------------


@bp.post("/l/<token>/signup")
def sign_up(token: str) -> Any:
    """Sign an address up for the season taking sign-ups (pending until the mailed link confirms it): 202."""
    league_id = leagues.open_league(dm().db, dm().settings.secret_key, "invite", token)
    try:
        given = league_api.applicant(json_body())
    except BodyError as exc:
        return refusal(exc)
    season_id = leagues.signup_season(dm().db, league_id)
    if season_id is None:
        return json_error(NO_SIGNUP_SEASON, 404)
    try:
        leagues.sign_up(dm().db, season_id, given, utcnow())
    except LeagueError as exc:  # (the address's own state never refuses: ``sign_up`` answers it alike)
        return refusal(exc)
    return jsonify({"ok": True, "message": SIGNED_UP}), 202


@bp.post("/l/confirm/<token>")
def confirm(token: str) -> Any:
    """Confirm the sign-up the mailed link names: the player is in the season."""
    s = dm().settings
    try:
        shown = leagues.confirmation(dm().db, s.secret_key, token, s.link_max_age)
        done = leagues.confirm(dm().db, s.secret_key, token, s.link_max_age, utcnow())
    except LeagueError as exc:
        return json_error(str(exc), 409)
    body = {"league": shown["league"], "season": shown["season"], "name": shown["name"]}
    return jsonify({"ok": True, "confirmed": True, "already": done.already, **body})


# --- players ---------------------------------------------------------------------------------------------------------


@bp.get("/p/<token>/leagues")
@player_link
def player_leagues(token: str) -> Any:
    """The player's season entries: league, season, and their status."""
    return jsonify({"ok": True, "entries": league_api.player_entries(dm().db, g.player_id)})
