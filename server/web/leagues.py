"""A league's sign-up pages: ``/l/<token>``, the league's invitation link, shows the season taking
sign-ups and the form (name, address, language, time zone, quiet hours, people the player knows); the POSTed form
signs the address up, pending, and mails it the confirmation link ``/l/confirm/<token>``, answering the same whatever
the address's state (it never tells whether an address is signed up). That link's GET only shows what confirming means
(mail scanners follow links); the POSTed button confirms. Pages speak the browser's language. A revoked or forged
link is answered like every link that opens nothing (``access.link_refused``); a refusal shows its message and
changes nothing."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlsplit

from flask import Blueprint, Response, g, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext

from ..models import utcnow
from ..present.calendar import league_calendar
from ..services import calendar, hub, inputs
from ..services.attendance import prefs
from ..services.inputs import small_int
from ..services.leagues import seasons
from ..services.leagues.seasons import Applicant, LeagueError
from ..text.i18n import format_when
from .access import dm, message, player_link, reader_language, say
from .prefs import LANGUAGE_NAMES, render_hub

bp = Blueprint("leagues", __name__)

FIELDS = ("name", "email", "language", "timezone", "quiet_start", "quiet_end")
#: the acquaintances' field: up to ``seasons.MAX_KNOWS`` addresses.
KNOWS_LIMIT = 400 * seasons.MAX_KNOWS
#: refusals of the season's state (the form was fine): 409; any other (the form's values): 400.
CONFLICTS = (seasons.NOT_SIGNUP, seasons.CLOSED)


def _league(token: str) -> int:
    return seasons.open_league(dm().db, dm().settings.secret_key, "invite", token)


def _signup(
    token: str, league_id: int, values: dict[str, str] | None = None, error: str | None = None, status: int = 200
) -> ResponseReturnValue:
    lang = reader_language()
    shown = seasons.signup_page(dm().db, league_id)
    season = shown.season
    if season is None:
        text = gettext("No season of %(league)s is open for sign-ups just now.", league=shown.league)
        return message(gettext("No season is open for sign-ups"), text, 404)
    closes, relative = format_when(season.closes, utcnow(), shown.timezone, lang)
    defaults = {"name": "", "email": "", "language": lang, "timezone": shown.timezone}
    page = render_template(
        "league/signup.html",
        token=token,
        league=shown.league,
        season=season.number,
        closes=closes,
        relative=relative,
        values=defaults | {"quiet_start": "", "quiet_end": "", "knows": ""} | (values or {}),
        full=season.full,
        languages=LANGUAGE_NAMES,
        guess_zone=values is None,  # the form's first showing: the browser's zone is offered (static/deadmail.js)
        error=error,
    )
    return page, status


@bp.get("/l/<token>")
def signup(token: str) -> ResponseReturnValue:
    """The league, its season taking sign-ups and the form; opening it changes nothing."""
    return _signup(token, _league(token))


@bp.post("/l/<token>")
def sign_up(token: str) -> ResponseReturnValue:
    """Sign up (pending): the page then says to confirm from the mail."""
    league_id = _league(token)
    values = {key: str(request.form.get(key, ""))[:320] for key in FIELDS}
    values["knows"] = str(request.form.get("knows", ""))[:KNOWS_LIMIT]
    season_id = seasons.signup_season(dm().db, league_id)
    if season_id is None:
        return _signup(token, league_id)
    try:
        seasons.sign_up(dm().db, season_id, Applicant(**values), utcnow())
    except LeagueError as exc:
        return _signup(token, league_id, values, say(exc), 409 if exc.msgid in CONFLICTS else 400)
    # the same answer whether the address is new, pending, mailed just now or confirmed (it tells nothing of it)
    return render_template("league/check_mail.html")


def _confirmation(token: str) -> seasons.Confirmation:
    s = dm().settings
    return seasons.confirmation(dm().db, s.secret_key, token, s.link_max_age)


@bp.get("/l/confirm/<token>")
def confirm_page(token: str) -> ResponseReturnValue:
    """What confirming means, and its button; opening the link changes nothing."""
    try:
        shown = _confirmation(token)
    except LeagueError as exc:
        return message(gettext("Sign-up not confirmed"), say(exc), 409)
    return render_template("league/confirm.html", token=token, shown=shown)


@bp.post("/l/confirm/<token>")
def confirm(token: str) -> ResponseReturnValue:
    """Confirm the sign-up: the player is in the season."""
    s = dm().settings
    knows = request.form.get("knows")  # (None: the form without the field; the list is kept)
    try:
        shown = _confirmation(token)
    except LeagueError as exc:
        return message(gettext("Sign-up not confirmed"), say(exc), 409)
    try:
        done = seasons.confirm(dm().db, s.secret_key, token, s.link_max_age, utcnow(), knows=knows)
    except LeagueError as exc:
        if exc.msgid in (inputs.BAD_EMAIL, seasons.TOO_MANY_KNOWS):  # the form again, with what was typed
            shown = replace(shown, knows=[line for line in (knows or "").splitlines() if line.strip()])
            return render_template("league/confirm.html", token=token, shown=shown, error=say(exc)), 400
        return message(gettext("Sign-up not confirmed"), say(exc), 409)
    return render_template("league/confirmed.html", shown=shown, already=done.already)


@bp.get("/calendar/league/<token>.ics")
def league_feed(token: str) -> ResponseReturnValue:
    """The league's calendar (ICS): the round starts of its seasons, at the league's public link (revoked with it:
    ``deadmail league revoke --kind public``); no seat's link in it."""
    s = dm().settings
    league_id = seasons.open_league(dm().db, s.secret_key, "public", token)
    url = seasons.link_url(s.base_url, "public", token)
    name, lang, rounds = calendar.league_rounds(dm().db, league_id, utcnow(), url)
    body = league_calendar(lang, name, rounds, urlsplit(s.base_url).hostname or "deadmail", utcnow())
    reply = Response(body, content_type="text/calendar; charset=utf-8")
    reply.headers["Content-Disposition"] = 'inline; filename="league.ics"'
    return reply


# --- the player's hub: absences and withdrawing (``templates/hub_leagues.html``) ------------------------------------


def _own(entry_id: int) -> None:
    seasons.check_owner(dm().db, entry_id, g.player_id)


@bp.post("/p/<token>/leagues/<int:entry_id>/skip")
@player_link
def hub_skip(token: str, entry_id: int) -> ResponseReturnValue:
    """Say the player will miss a round (``round``), or undo it (``undo``); the hub again."""
    number = small_int(str(request.form.get("round", ""))[:4], 3)
    undo = request.form.get("undo") == "1"
    try:
        _own(entry_id)
        (seasons.unskip if undo else seasons.skip)(dm().db, entry_id, number, utcnow())
    except LeagueError as exc:
        return render_hub(token, 409, league_error=say(exc))
    done = "unskipped" if undo else "skipped"
    return redirect(url_for("prefs.show", token=token, league=done) + "#leagues", code=303)


@bp.post("/p/<token>/leagues/<int:entry_id>/knows")
@player_link
def hub_knows(token: str, entry_id: int) -> ResponseReturnValue:
    """Change the people the player knows in a season they play (``knows``); the hub again."""
    try:
        _own(entry_id)
        seasons.set_knows(dm().db, entry_id, str(request.form.get("knows", ""))[:KNOWS_LIMIT])
    except LeagueError as exc:
        return render_hub(
            token, {seasons.NOT_IN: 404, seasons.NOT_PLAYING: 409}.get(exc.msgid, 400), league_error=say(exc)
        )
    return redirect(url_for("prefs.show", token=token, league="knows") + "#leagues", code=303)


@bp.get("/p/<token>/leagues/<int:entry_id>/withdraw")
@player_link
def hub_withdraw_page(token: str, entry_id: int) -> ResponseReturnValue:
    """What withdrawing means, and its button; opening it changes nothing."""
    g.language = prefs.get_prefs(dm().db, g.player_id)["language"]  # the player's own language
    try:
        _own(entry_id)
    except LeagueError as exc:
        return render_hub(token, 404, league_error=say(exc))
    (entry,) = [e for e in hub.league_entries(dm().db, g.player_id, utcnow()) if e.entry_id == entry_id]
    title = gettext("%(league)s, season %(season)s", league=entry.league, season=entry.season)
    return render_template("league/withdraw.html", token=token, entry_id=entry_id, title=title)


@bp.post("/p/<token>/leagues/<int:entry_id>/withdraw")
@player_link
def hub_withdraw(token: str, entry_id: int) -> ResponseReturnValue:
    try:
        _own(entry_id)
        seasons.withdraw(dm().db, entry_id, utcnow())
    except LeagueError as exc:
        return render_hub(token, 409, league_error=say(exc))
    return redirect(url_for("prefs.show", token=token, league="withdrawn") + "#leagues", code=303)
