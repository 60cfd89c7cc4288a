"""The server organiser's leagues: ``/o/leagues`` lists every league with a link to its organiser pages
(``/lo/<token>``, by its current organiser link: the same pages the league's organiser opens from their link), and
``/o/leagues/new`` creates one (the form POSTed with CSRF; a refusal re-shows it with its message, 400, nothing
stored; once created, its organiser page, so a reload never creates it twice)."""

from __future__ import annotations

from dataclasses import asdict

from flask import Blueprint, Response, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from ..models import utcnow
from ..present import league as shown
from ..services.leagues import rounds, scoring, seasons
from ..services.leagues.seasons import LeagueError
from ..services.links import league_token
from . import league_forms as forms
from .access import dm, organiser_required, reader_language, say

bp = Blueprint("league_setup", __name__, url_prefix="/o/leagues")


@bp.after_request
def no_store(response: Response) -> Response:
    """These pages carry the leagues' organiser links: never kept by a cache."""
    response.headers["Cache-Control"] = "no-store"
    return response


def _organiser_url(league_id: int, generation: int) -> str:
    token = league_token(dm().settings.secret_key, "organiser", league_id, generation)
    return url_for("league_organiser.league", token=token)


@bp.get("")
@organiser_required
def index() -> ResponseReturnValue:
    found = [{**asdict(item), "url": _organiser_url(item.id, item.generation)} for item in rounds.leagues_list(dm().db)]
    return render_template("league/leagues.html", leagues=found)


def _form(values: dict[str, str], error: str | None = None, status: int = 200) -> ResponseReturnValue:
    defaults = {"language": reader_language(), "table_size": "5", "scoring": "placement"}  # (zone: the browser's)
    defaults |= {"forfeit": "last"} | {name: b for name, b in zip(forms.TIE_FIELDS, scoring.TIE_BREAKS, strict=True)}
    page = shown.league_form(reader_language(), defaults | values, error)
    return render_template("league/new.html", **page), status


@bp.get("/new")
@organiser_required
def new_league() -> ResponseReturnValue:
    return _form({})


@bp.post("/new")
@organiser_required
def create_league() -> ResponseReturnValue:
    """Create the league; then its organiser page (which says what to do next)."""
    given = forms.values(request.form, forms.LEAGUE_FIELDS + forms.TIE_FIELDS)
    try:
        league_id = seasons.create_league(dm().db, forms.league_spec(given), utcnow())
    except LeagueError as exc:
        return _form(given, say(exc), 400)
    token = seasons.league_link(dm().db, dm().settings.secret_key, league_id, "organiser")
    return redirect(url_for("league_organiser.league", token=token, done="created"), code=303)
