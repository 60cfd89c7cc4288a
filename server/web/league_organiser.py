"""The league organiser's pages (issue 14): ``/lo/<token>``, the league's organiser link (``links.league_token``
of kind "organiser", read by ``leagues.open_league``: a revoked one opens nothing). The league (its settings and
seasons), a season (entries, rounds, "plan the next round"), a round (tables with zones and awake overlap, a swap
form, the Start button; once started, its games with links to the organiser's game pages). A GET never changes
anything; every form is POSTed with its CSRF token; starting a round is asked first (the button POSTs to a page
that says what will happen, whose own form confirms it). Every change is one call of ``services.rounds``."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, redirect, render_template, request, url_for
from flask_babel import gettext

from ..models import utcnow
from ..present import league as shown
from ..services import rounds
from ..services.inputs import small_int
from ..services.links import organiser_token
from ..services.rounds import RoundError
from .access import dm, league_organiser_link, message, reader_language, say

bp = Blueprint("league_organiser", __name__, url_prefix="/lo")


@bp.after_request
def no_store(response: Any) -> Any:
    """These pages carry the organiser link and seat links: never kept by a cache."""
    response.headers["Cache-Control"] = "no-store"
    return response


def _not_found(exc: RoundError) -> Any:
    return message(gettext("Not found"), say(exc), 404)


@bp.get("/<token>")
@league_organiser_link
def league(token: str) -> Any:
    data = rounds.league_view(dm().db, g.league_id)
    return render_template("league/organiser.html", token=token, league=shown.league_page(reader_language(), data))


def _season(token: str, season_id: int, error: str | None = None, status: int = 200) -> Any:
    try:
        data = rounds.season_view(dm().db, g.league_id, season_id)
    except RoundError as exc:
        return _not_found(exc)
    zone = rounds.league_view(dm().db, g.league_id)["timezone"]
    page = shown.season_page(reader_language(), data, zone, utcnow())
    return render_template("league/season.html", token=token, season=page, error=error), status


@bp.get("/<token>/season/<int:season_id>")
@league_organiser_link
def season(token: str, season_id: int) -> Any:
    return _season(token, season_id)


@bp.post("/<token>/season/<int:season_id>/plan")
@league_organiser_link
def plan(token: str, season_id: int) -> Any:
    """Plan the season's next round (or its planned one again): then its page."""
    try:
        rounds.season_view(dm().db, g.league_id, season_id)
        round_id = rounds.plan(dm().db, season_id, utcnow())
    except RoundError as exc:
        return _season(token, season_id, say(exc), 409)
    return redirect(url_for("league_organiser.round_page", token=token, round_id=round_id), code=303)


def _round(token: str, round_id: int, error: str | None = None, status: int = 200) -> Any:
    try:
        data = rounds.round_view(dm().db, g.league_id, round_id)
    except RoundError as exc:
        return _not_found(exc)
    page = shown.round_page(reader_language(), data, utcnow())
    secret = dm().settings.secret_key
    links = {
        game["id"]: url_for("organiser.organiser_game_link", token=organiser_token(secret, game["id"]))
        for game in data["games"]
    }
    return render_template("league/round.html", token=token, rnd=page, links=links, error=error), status


@bp.get("/<token>/round/<int:round_id>")
@league_organiser_link
def round_page(token: str, round_id: int) -> Any:
    return _round(token, round_id)


def _player(name: str) -> int:
    return small_int(str(request.form.get(name, ""))[:12], 10) or 0


@bp.post("/<token>/round/<int:round_id>/swap")
@league_organiser_link
def swap(token: str, round_id: int) -> Any:
    try:
        rounds.round_view(dm().db, g.league_id, round_id)
    except RoundError as exc:
        return _not_found(exc)
    try:
        rounds.swap(dm().db, round_id, _player("first"), _player("second"))
    except RoundError as exc:
        return _round(token, round_id, say(exc), 409)
    return redirect(url_for("league_organiser.round_page", token=token, round_id=round_id), code=303)


@bp.post("/<token>/round/<int:round_id>/start")
@league_organiser_link
def start(token: str, round_id: int) -> Any:
    """Without ``confirm=1``: the page saying what starting does (nothing changed); with it, the round starts."""
    try:
        data = rounds.round_view(dm().db, g.league_id, round_id)
    except RoundError as exc:
        return _not_found(exc)
    if data["status"] != "planned":
        return _round(token, round_id, say(RoundError(rounds.STARTED)), 409)
    if str(request.form.get("confirm", ""))[:4] != "1":
        page = shown.round_page(reader_language(), data, utcnow())
        return render_template("league/start.html", token=token, rnd=page)
    try:
        rounds.start(dm().db, round_id, utcnow())
    except RoundError as exc:
        return _round(token, round_id, say(exc), 409)
    return redirect(url_for("league_organiser.round_page", token=token, round_id=round_id), code=303)
