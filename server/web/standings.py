"""A season's standings and results.

- ``/p/<player token>/season/<id>``: the standings for a player of the season (their hub link); any other player is
  refused. ``…/season/<id>/games/<player id>``: that player's games of the season with their results; the replay
  link only for the reader's own seats (a seat's link is never shown to anyone else).
- ``/ls/<public token>``: the league's seasons and their standings, only while the league shows its standings
  publicly (``League.standings_public``); ``/ls/<token>/season/<id>/games/<player id>`` as above, without links.
- ``/lo/<organiser token>/season/<id>/results``: the organiser's page: standings, the CSV download
  (``…/standings.csv``), a form to record an abandoned game's result and a button to create the next season (POST,
  CSRF). A refusal shows its message and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from functools import wraps
from typing import Any

from flask import Blueprint, Response, g, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext

from ..models import utcnow
from ..present import standings as shown
from ..services import inputs
from ..services.attendance import prefs
from ..services.errors import ShownError
from ..services.leagues import promotion, reading, recorded, seasons, standings
from ..services.links import seat_token
from .access import dm, message, player_link, reader_language, say

bp = Blueprint("standings", __name__)


def _league(which: str, token: str) -> int:
    return seasons.open_league(dm().db, dm().settings.secret_key, which, token)


def _refused(exc: ShownError, status: int = 404) -> ResponseReturnValue:
    return message(gettext("Nothing to show"), say(exc), status)


def _games_urls(endpoint: str, **values: Any) -> Callable[[int], str]:
    """``url_for(endpoint, player_id=…, **values)`` for each row of a table: built once (the route ends with the
    player's id), then only the id changes."""
    head, _zero = url_for(endpoint, player_id=0, **values).rsplit("/", 1)
    return lambda player_id: f"{head}/{player_id}"


def _page(season: reading.SeasonShown, games_url: Callable[[int], str] | None, **extra: Any) -> dict[str, Any]:
    """The season's standings, a page (``?page=``, from 0) of each division, and the reader's own row (``you``)."""
    number = min(inputs.small_int(request.args.get("page", ""), 4) or 0, 9999)
    table, row = standings.standings_page(dm().db, season.season_id, number, extra.get("you"))
    mine: dict[str, Any] | None = None
    if row is not None:  # its points written as the table writes them ("0", "0.75"), not as a float ("0.0")
        mine = {
            **row,
            "points_text": shown.number(g.language, row["points"]),
            "count": shown.plural_of(row["points"]),
        }
    return {
        "season": season,
        "tables": shown.tables(g.language, table, games_url),
        "page": number,
        "mine": mine,
        **extra,
    }


def _own_language() -> str:
    """A player link's pages speak the player's own language (as their hub does), not the browser's."""
    return str(prefs.get_prefs(dm().db, g.player_id)["language"])


@bp.get("/p/<token>/season/<int:season_id>")
@player_link
def member(token: str, season_id: int) -> ResponseReturnValue:
    g.language = _own_language()
    try:
        season = reading.season_of_member(dm().db, season_id, g.player_id)
    except standings.ResultError as exc:
        return _refused(exc, 403)

    games_url = _games_urls("standings.member_games", token=token, season_id=season_id)
    page = _page(season, games_url, you=g.player_id, back=url_for("prefs.show", token=token))
    return render_template("standings/season.html", seasons=[page])


@bp.get("/p/<token>/season/<int:season_id>/games/<int:player_id>")
@player_link
def member_games(token: str, season_id: int, player_id: int) -> ResponseReturnValue:
    g.language = _own_language()
    try:
        season = reading.season_of_member(dm().db, season_id, g.player_id)
    except standings.ResultError as exc:
        return _refused(exc, 403)
    back = url_for("standings.member", token=token, season_id=season_id)
    return _games(season, player_id, g.player_id, back)


def _games(season: reading.SeasonShown, player_id: int, reader: int | None, back: str) -> ResponseReturnValue:
    name, found = reading.player_games(dm().db, season.season_id, player_id, reader)
    secret = dm().settings.secret_key
    listed = [
        {
            "game": game,
            "replay": None
            if game.seat_id is None
            else url_for("replay.seat_replay", token=seat_token(secret, game.seat_id, game.generation)),
        }
        for game in found
    ]
    return render_template("standings/games.html", season=season, name=name, games=listed, back=back)


@bp.get("/ls/<token>")
def public(token: str) -> ResponseReturnValue:
    g.language = reader_language()
    league_id = _league("public", token)
    try:
        seasons = reading.public_seasons(dm().db, league_id)
    except standings.ResultError as exc:
        return _refused(exc, 403)
    pages = []
    for season in seasons:
        pages.append(_page(season, _games_urls("standings.public_games", token=token, season_id=season.season_id)))
    return render_template("standings/season.html", seasons=pages)


@bp.get("/ls/<token>/season/<int:season_id>/games/<int:player_id>")
def public_games(token: str, season_id: int, player_id: int) -> ResponseReturnValue:
    g.language = reader_language()
    league_id = _league("public", token)
    try:
        reading.public_seasons(dm().db, league_id)
        season = reading.season_of_league(dm().db, season_id, league_id)
    except standings.ResultError as exc:
        return _refused(exc, 403)
    return _games(season, player_id, None, url_for("standings.public", token=token))


# --- the organiser ---------------------------------------------------------------------------------------------------


def organised(
    view: Callable[[str, reading.SeasonShown], ResponseReturnValue],
) -> Callable[[str, int], ResponseReturnValue]:
    """A view of ``/lo/<token>/season/<id>/…``: ``season`` is the league's season the organiser link opens (a season
    of another league is refused)."""

    @wraps(view)
    def opened(token: str, season_id: int) -> ResponseReturnValue:
        g.language = reader_language()
        try:
            season = reading.season_of_league(dm().db, season_id, _league("organiser", token))
        except standings.ResultError as exc:
            return _refused(exc)
        return view(token, season)

    return opened


def _organiser_page(
    token: str, season: reading.SeasonShown, error: str | None = None, status: int = 200
) -> ResponseReturnValue:
    page = _page(season, None)
    unrecorded = recorded.unrecorded(dm().db, season.season_id)
    notice = {"recorded": gettext("The result is recorded."), "next": gettext("The next season is created.")}
    return (
        render_template(
            "standings/organiser.html",
            seasons=[page],
            token=token,
            unrecorded=unrecorded,
            error=error,
            notice=notice.get(request.args.get("done", "")),
        ),
        status,
    )


@bp.get("/lo/<token>/season/<int:season_id>/results")
@organised
def organiser(token: str, season: reading.SeasonShown) -> ResponseReturnValue:
    return _organiser_page(token, season)


@bp.get("/lo/<token>/season/<int:season_id>/standings.csv")
@organised
def standings_csv(token: str, season: reading.SeasonShown) -> ResponseReturnValue:
    season_id = season.season_id
    name = f"standings-season-{season.number}.csv"
    return Response(
        standings.csv(dm().db, season_id),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


def _points(colours: list[str]) -> dict[str, Any]:
    """The form's victory points per colour (a field not a whole number is passed on as text: refused)."""
    out: dict[str, Any] = {}
    for colour in colours:
        raw = request.form.get(f"points_{colour}", "").strip()
        number = inputs.small_int(raw, 3)
        out[colour] = raw if number is None else number
    return out


@bp.post("/lo/<token>/season/<int:season_id>/record")
@organised
def record(token: str, season: reading.SeasonShown) -> ResponseReturnValue:
    season_id = season.season_id
    raw = request.form.get("game", "")
    games = dict(recorded.unrecorded(dm().db, season_id))
    game_id = inputs.small_int(raw, 12) or 0
    try:
        recorded.record_result(dm().db, game_id, _points(games.get(game_id, [])), utcnow(), season_id=season_id)
    except ShownError as exc:
        return _organiser_page(token, season, error=say(exc), status=422)
    return redirect(url_for("standings.organiser", token=token, season_id=season_id, done="recorded"), code=303)


@bp.post("/lo/<token>/season/<int:season_id>/next")
@organised
def next_season(token: str, season: reading.SeasonShown) -> ResponseReturnValue:
    season_id = season.season_id
    try:
        closes = _closes(season)
        created = promotion.next_season(dm().db, season_id, closes, utcnow())
    except ShownError as exc:
        return _organiser_page(token, season, error=say(exc), status=422)
    return redirect(url_for("standings.organiser", token=token, season_id=created, done="next"), code=303)


def _closes(_season: reading.SeasonShown) -> datetime:
    """The sign-up's close from the form: in this many days (1 to ``promotion.MAX_SIGNUP_DAYS``)."""
    raw = request.form.get("days", "").strip()
    days = inputs.small_int(raw, 3) or 0
    if not 1 <= days <= promotion.MAX_SIGNUP_DAYS:
        raise standings.ResultError(promotion.BAD_DAYS, count=promotion.MAX_SIGNUP_DAYS)
    return utcnow() + timedelta(days=days)
