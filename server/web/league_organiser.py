"""The league organiser's pages: ``/lo/<token>``, the league's organiser link (``links.league_token``
of kind "organiser", read by ``seasons.open_league``: a revoked one opens nothing). The league (its settings and
seasons), a season (entries, rounds, "plan the next round"), a round (tables with zones and awake overlap, a swap
form, the Start button; once started, its games with links to the organiser's game pages). A new season
(``…/season/new``: the sign-up's close a day and time in the league's zone) and invitations (``…/invite``: mailed
while a season takes sign-ups, else held until one opens; the page lists those waiting). A GET never changes
anything; every form is POSTed with its CSRF token, a refusal re-shows it with its message (400; 409 for the
round's state) and a change answers with a redirect (a reload repeats nothing); starting a round is asked first
(the button POSTs, or a GET of the start address opens, the page that says what will happen, whose own form
confirms it). The league's page also sets, removes and resumes its webhook channel (``services.channel``: a refused
address re-shows the page with its message, 400, nothing stored). Every change is one call of
``services.leagues.rounds``, ``services.leagues.seasons`` or ``services.channel.channels``."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, g, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext

from ..models import utcnow
from ..present import league as shown
from ..services.channel import channels
from ..services.channel.urls import ChannelError
from ..services.errors import N_, ShownError
from ..services.inputs import small_int
from ..services.leagues import rounds, seasons
from ..services.leagues.rounds import RoundError
from ..services.leagues.seasons import LeagueError
from ..services.links import organiser_token
from . import league_forms as forms
from .access import dm, league_organiser_link, logged_in, message, reader_language, say

bp = Blueprint("league_organiser", __name__, url_prefix="/lo")


@bp.after_request
def no_store(response: Response) -> Response:
    """These pages carry the organiser link and seat links: never kept by a cache."""
    response.headers["Cache-Control"] = "no-store"
    return response


def _not_found(exc: RoundError) -> ResponseReturnValue:
    return message(gettext("Not found"), say(exc), 404)


#: the notices after a form's redirect (``?done=``).
NOTICES = {
    "created": N_("The league is created. Next: create its first season, then invite players."),
    "season": N_("The season is created: it takes sign-ups now. Invite players, or share the invitation link."),
    "invited": N_("The invitations are on their way."),
    "held": N_("The invitations wait for a season taking sign-ups: they are mailed as soon as one opens."),
    "channel": N_("The webhook address is set: the league's public events are posted there."),
    "channel_removed": N_("The webhook address is removed: nothing more is posted."),
    "channel_resumed": N_("The webhook channel is resumed: what waited is posted now."),
}


def _notice() -> str | None:
    found = NOTICES.get(str(request.args.get("done", ""))[:20])
    return None if found is None else gettext(found)


def _common() -> dict[str, Any]:
    """What every page of the league's organiser shows: the server organiser's way back to all leagues."""
    return {"all_leagues": logged_in(), "notice": _notice()}


def _league(token: str, url: str = "", error: str | None = None, status: int = 200) -> ResponseReturnValue:
    data = rounds.league_view(dm().db, g.league_id)
    page = shown.league_page(reader_language(), data)
    held = seasons.held_invitations(dm().db, g.league_id)
    found = channels.league_channel(dm().db, g.league_id)
    channel = shown.channel_state(reader_language(), found, data.timezone, utcnow())
    return (
        render_template(
            "league/organiser.html",
            token=token,
            league=page,
            held=held,
            channel=channel,
            channel_url=url,
            channel_error=error,
            **_common(),
        ),
        status,
    )


@bp.get("/<token>")
@league_organiser_link
def league(token: str) -> ResponseReturnValue:
    return _league(token)


@bp.post("/<token>/channel")
@league_organiser_link
def set_channel(token: str) -> ResponseReturnValue:
    """Set the league's webhook address (checked: a refusal re-shows the page with its message, 400, nothing
    stored)."""
    url = str(request.form.get("url", ""))[: forms.URL_LIMIT]
    try:
        channels.set_league_channel(
            dm().db, g.league_id, url, allow_private=dm().settings.webhook_private, now=utcnow()
        )
    except ChannelError as exc:
        return _league(token, url[:1000], say(exc), 400)
    return redirect(url_for("league_organiser.league", token=token, done="channel"), code=303)


@bp.post("/<token>/channel/remove")
@league_organiser_link
def remove_channel(token: str) -> ResponseReturnValue:
    channels.clear_league_channel(dm().db, g.league_id)
    return redirect(url_for("league_organiser.league", token=token, done="channel_removed"), code=303)


@bp.post("/<token>/channel/resume")
@league_organiser_link
def resume_channel(token: str) -> ResponseReturnValue:
    try:
        channels.resume_league_channel(dm().db, g.league_id, utcnow())
    except ChannelError as exc:
        return _league(token, error=say(exc), status=409)
    return redirect(url_for("league_organiser.league", token=token, done="channel_resumed"), code=303)


def _zone() -> str:
    return rounds.league_view(dm().db, g.league_id).timezone


def _season_form(
    token: str, values: dict[str, str], error: str | None = None, status: int = 200
) -> ResponseReturnValue:
    defaults = {"rounds": "3", "schedule": "when_over", "weekday": "0", "time": "18:00", "closes_time": "18:00"}
    page = shown.season_form(reader_language(), defaults | values, _zone(), error)
    return render_template("league/new_season.html", token=token, **page, **_common()), status


@bp.get("/<token>/season/new")
@league_organiser_link
def new_season(token: str) -> ResponseReturnValue:
    return _season_form(token, {})


@bp.post("/<token>/season/new")
@league_organiser_link
def create_season(token: str) -> ResponseReturnValue:
    """Create the league's next season (taking sign-ups); held invitations are mailed now. Then its page."""
    given = forms.values(request.form, forms.SEASON_FIELDS)
    try:
        args = forms.season_args(given, _zone(), gettext("Sign-ups close on"))
        season_id = seasons.create_season(
            dm().db, g.league_id, args.closes, args.rounds, args.schedule, args.rule, now=utcnow(), sizes=args.sizes
        )
    except ShownError as exc:  # (LeagueError, or the date checker's InputError)
        return _season_form(token, given, say(exc), 400)
    return redirect(url_for("league_organiser.season", token=token, season_id=season_id, done="season"), code=303)


def _invite_page(token: str, text: str = "", error: str | None = None, status: int = 200) -> ResponseReturnValue:
    db, secret = dm().db, dm().settings.secret_key
    signup = seasons.signup_page(db, g.league_id).season
    link = seasons.link_url(dm().settings.base_url, "invite", seasons.league_link(db, secret, g.league_id, "invite"))
    page = {
        "addresses": text,
        "error": error,
        "link": link,
        "open": signup is not None and signup.closes > utcnow(),
        "held": seasons.held_invitations(db, g.league_id),
        "limit": seasons.MAX_INVITES,
    }
    return render_template("league/invite.html", token=token, **page, **_common()), status


@bp.get("/<token>/invite")
@league_organiser_link
def invite_form(token: str) -> ResponseReturnValue:
    return _invite_page(token)


@bp.post("/<token>/invite")
@league_organiser_link
def invite(token: str) -> ResponseReturnValue:
    """Invite the addresses: mailed while a season takes sign-ups, else held until one does."""
    text = str(request.form.get("addresses", ""))[: forms.INVITE_LIMIT]
    try:
        seasons.invite(dm().db, g.league_id, forms.addresses(text), utcnow())
    except LeagueError as exc:
        return _invite_page(token, text, say(exc), 400)
    done = "held" if seasons.held_invitations(dm().db, g.league_id) else "invited"
    return redirect(url_for("league_organiser.invite_form", token=token, done=done), code=303)


def _season(token: str, season_id: int, error: str | None = None, status: int = 200) -> ResponseReturnValue:
    try:
        data = rounds.season_view(dm().db, g.league_id, season_id)
    except RoundError as exc:
        return _not_found(exc)
    zone = _zone()
    page = shown.season_page(reader_language(), data, zone, utcnow())
    entries = shown.entry_rows(reader_language(), data.entries, zone, utcnow())
    return (
        render_template("league/season.html", token=token, season=page, entries=entries, error=error, **_common()),
        status,
    )


@bp.get("/<token>/season/<int:season_id>")
@league_organiser_link
def season(token: str, season_id: int) -> ResponseReturnValue:
    return _season(token, season_id)


@bp.post("/<token>/season/<int:season_id>/plan")
@league_organiser_link
def plan(token: str, season_id: int) -> ResponseReturnValue:
    """Plan the season's next round (or its planned one again): then its page."""
    try:
        rounds.season_view(dm().db, g.league_id, season_id)
        round_id = rounds.plan(dm().db, season_id, utcnow())
    except RoundError as exc:
        return _season(token, season_id, say(exc), 409)
    return redirect(url_for("league_organiser.round_page", token=token, round_id=round_id), code=303)


def _round_shown(data: rounds.RoundShown) -> dict[str, Any]:
    """The round as its pages show it, each player with their division (placed when the round was planned)."""
    placed = rounds.divisions(dm().db, data["season_id"])
    return shown.round_page(reader_language(), data, placed, utcnow())


def _round(token: str, round_id: int, error: str | None = None, status: int = 200) -> ResponseReturnValue:
    try:
        data = rounds.round_view(dm().db, g.league_id, round_id)
    except RoundError as exc:
        return _not_found(exc)
    page = _round_shown(data)
    secret = dm().settings.secret_key
    links = {
        game["id"]: url_for("organiser.organiser_game_link", token=organiser_token(secret, game["id"]))
        for game in data["games"]
    }
    groups = shown.swap_groups(page["tables"])
    return (
        render_template(
            "league/round.html", token=token, rnd=page, links=links, groups=groups, error=error, **_common()
        ),
        status,
    )


@bp.get("/<token>/round/<int:round_id>")
@league_organiser_link
def round_page(token: str, round_id: int) -> ResponseReturnValue:
    return _round(token, round_id)


def _player(name: str) -> int:
    return small_int(str(request.form.get(name, ""))[:12], 10) or 0


@bp.post("/<token>/round/<int:round_id>/swap")
@league_organiser_link
def swap(token: str, round_id: int) -> ResponseReturnValue:
    try:
        rounds.round_view(dm().db, g.league_id, round_id)
    except RoundError as exc:
        return _not_found(exc)
    try:
        rounds.swap(dm().db, round_id, _player("first"), _player("second"))
    except RoundError as exc:  # (a player with themselves is a bad request, as the API answers; the rest a conflict)
        return _round(token, round_id, say(exc), 400 if exc.msgid == rounds.SAME_PLAYER else 409)
    return redirect(url_for("league_organiser.round_page", token=token, round_id=round_id), code=303)


def _asking_to_start(token: str, data: rounds.RoundShown) -> ResponseReturnValue:
    """The page saying what starting the planned round does; its form confirms (nothing is changed by showing it)."""
    return render_template("league/start.html", token=token, rnd=_round_shown(data), **_common())


@bp.get("/<token>/round/<int:round_id>/start")
@league_organiser_link
def start_page(token: str, round_id: int) -> ResponseReturnValue:
    """The page asking to start the round (a link or a reload of the start address): nothing is changed."""
    try:
        data = rounds.round_view(dm().db, g.league_id, round_id)
    except RoundError as exc:
        return _not_found(exc)
    if data["status"] != "planned":
        return redirect(url_for("league_organiser.round_page", token=token, round_id=round_id), code=303)
    return _asking_to_start(token, data)


@bp.post("/<token>/round/<int:round_id>/start")
@league_organiser_link
def start(token: str, round_id: int) -> ResponseReturnValue:
    """Without ``confirm=1``: the page saying what starting does (nothing changed); with it, the round starts."""
    try:
        data = rounds.round_view(dm().db, g.league_id, round_id)
    except RoundError as exc:
        return _not_found(exc)
    if data["status"] != "planned":
        return _round(token, round_id, say(RoundError(rounds.STARTED)), 409)
    if str(request.form.get("confirm", ""))[:4] != "1":
        return _asking_to_start(token, data)
    try:
        rounds.start(dm().db, round_id, utcnow())
    except RoundError as exc:
        return _round(token, round_id, say(exc), 409)
    return redirect(url_for("league_organiser.round_page", token=token, round_id=round_id), code=303)
