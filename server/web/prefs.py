"""The preferences page, reached from the link in every mail (/p/<token>): shown in the player's language."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Response, g, redirect, render_template, request, session, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_babel import ngettext
from flask_wtf import FlaskForm
from wtforms import RadioField, SelectChoice, SelectField, StringField
from wtforms.widgets import TimeInput

from engine.data import CHARACTERS

from ..models import utcnow
from ..present import reliability as reliable
from ..present.absences import absences_shown
from ..present.calendar import player_calendar
from ..present.hub import (
    browsers_shown,
    devices_shown,
    games_shown,
    history_shown,
    league_ratings_shown,
    leagues_shown,
    rating_shown,
    reach_shown,
)
from ..present.lobby import tables_shown
from ..present.seat import STANDING_ANSWER_SELECTS, standing_answer_selects
from ..services import calendar, hub, inputs, signin
from ..services.attendance import absences, prefs
from ..services.errors import N_, ShownError
from ..services.links import seat_token
from ..services.lobby import proposals
from ..services.notify import devices, nudges
from ..services.play import reliability
from ..text import away, glossary
from .access import PLAYER_SESSION, dm, player_link, say, signed_in_player

bp = Blueprint("prefs", __name__)

#: each language in its own name: a reader must find theirs whatever the page's language.
LANGUAGE_NAMES = {"en": "English", "it": "Italiano", "pl": "Polski"}
#: the notice after an absence was added or removed (``?away=``).
AWAY_NOTICES = {"added": N_("Your absence is saved."), "removed": N_("Your absence is removed.")}
#: the notice after a hub league form (``?league=``).
LEAGUE_NOTICES = {
    "skipped": N_("Saved: you will miss that round."),
    "unskipped": N_("Saved: you will play that round."),
    "withdrawn": N_("You withdrew from the season."),
    "knows": N_("Saved: the people you know in this season."),
}
#: the notice after a device form (``?devices=``).
DEVICE_NOTICES = {
    "removed": N_("The device is removed: it gets no more notifications."),
    "added": N_("Your chat app is added: send it a test to check that it works."),
    "tested": N_("A test notification is on its way to that device."),
    "saved": N_("Saved: how you are told of your decisions."),
    "gone": N_("That device is no longer on your list."),
}
FIELDS = ("language", "timezone", "quiet_start", "quiet_end", "mail_mode", "digest_hours")


def _order_field(seat_id: int, i: int) -> str:
    return f"order_{seat_id}_{i}"


def prefs_form(data: prefs.Prefs, formdata: Any = None) -> FlaskForm:
    """The form for ``data`` (get_prefs); built per request so its labels are in the page's language."""
    lang = g.language
    characters = [SelectChoice("", _("(none)"))]
    characters += [SelectChoice(c, glossary.character_name(lang, c)) for c in CHARACTERS]
    hours = prefs.DIGEST_HOURS

    class PrefsForm(FlaskForm):  # type: ignore[misc]  # flask-wtf has no types
        language = SelectField(
            _("Language"), choices=[SelectChoice(*item) for item in LANGUAGE_NAMES.items()], validate_choice=False
        )
        timezone = StringField(_("Time zone"))  # shown by templates/_zones.html's zone_select
        quiet_start = StringField(_("Quiet hours start"), widget=TimeInput())
        quiet_end = StringField(_("Quiet hours end"), widget=TimeInput())
        mail_mode = RadioField(
            _("Mail"),
            choices=[
                SelectChoice("each", _("A mail for every event")),
                SelectChoice("digest", _("A digest of everything, now and then")),
            ],
            validate_choice=False,
        )
        digest_hours = SelectField(
            _("Digest interval"),
            choices=[SelectChoice(str(n), ngettext("every %(num)d hour", "every %(num)d hours", n)) for n in hours],
            validate_choice=False,
        )

    for game in data["games"]:
        for i in range(len(CHARACTERS)):
            label = _("Choice %(n)d", n=i + 1)
            setattr(
                PrefsForm,
                _order_field(game["seat_id"], i),
                SelectField(label, choices=characters, validate_choice=False),
            )
    defaults = data["standing"]
    for select in standing_answer_selects(lang, defaults, None):
        field = SelectField(
            select["name"], choices=[SelectChoice(*c) for c in select["choices"]], validate_choice=False
        )
        setattr(PrefsForm, f"standing_{select['key']}", field)
    for i in range(len(CHARACTERS)):
        setattr(
            PrefsForm,
            f"standing_victim_{i}",
            SelectField(_("Choice %(n)d", n=i + 1), choices=characters, validate_choice=False),
        )
    initial: dict[str, Any] = {key: value for key, value in data.items() if key in FIELDS}
    for key in STANDING_ANSWER_SELECTS:
        initial[f"standing_{key}"] = defaults.get(key) or "ask"
    victim = defaults.get("victim")
    victim = victim if isinstance(victim, list) else []
    for i in range(len(CHARACTERS)):
        initial[f"standing_victim_{i}"] = victim[i] if i < len(victim) else ""
    initial["digest_hours"] = str(data["digest_hours"])
    for game in data["games"]:
        order = game["standing_order"]
        for i in range(len(CHARACTERS)):
            initial[_order_field(game["seat_id"], i)] = order[i] if i < len(order) else ""
    return PrefsForm(formdata=formdata, data=initial)


def _render(
    form: FlaskForm,
    data: prefs.Prefs,
    token: str,
    error: str | None = None,
    status: int = 200,
    *,
    away_values: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
) -> ResponseReturnValue:
    lang = g.language
    errors = errors or {}
    figures = reliability.hub(dm().db, g.player_id, [game["game_id"] for game in data["games"]])
    games = [
        {
            **game,
            "colour_name": glossary.colour_name(lang, game["colour"]),
            "fields": [form[_order_field(game["seat_id"], i)] for i in range(len(CHARACTERS))],
            "reliability": reliable.shown(lang, figures.games[game["game_id"]]),
        }
        for game in data["games"]
    ]
    notice = None
    done = str(request.args.get("away", ""))
    if done in AWAY_NOTICES:
        notice = _(AWAY_NOTICES[done])
    if request.args.get("league") in LEAGUE_NOTICES:
        notice = _(LEAGUE_NOTICES[str(request.args.get("league"))])
    if request.args.get("calendar") == "new":
        notice = _("Your calendar has a new address: the old one no longer works.")
    if request.args.get("devices") in DEVICE_NOTICES:
        notice = _(DEVICE_NOTICES[str(request.args.get("devices"))])
    if request.args.get("saved") == "1":
        notice = _("Your preferences are saved.")
        if request.args.get("answered") == "1":
            notice += " " + _("Your standing order has answered a victim choice you still owed.")
    s = dm().settings
    feed = s.base_url + url_for("prefs.calendar_feed", token=calendar.address(dm().db, s.secret_key, g.player_id))
    answer_for_me = {
        "selects": [form[f"standing_{key}"] for key in STANDING_ANSWER_SELECTS],
        "victim": [form[f"standing_victim_{i}"] for i in range(len(CHARACTERS))],
    }

    def seat_url(seat_id: int, generation: int) -> str:
        return url_for("pages.seat", token=seat_token(s.secret_key, seat_id, generation))

    def replay_url(seat_id: int, generation: int) -> str:
        return url_for("replay.seat_replay", token=seat_token(s.secret_key, seat_id, generation))

    found = hub.games(dm().db, g.player_id)
    overall = hub.rating(dm().db, g.player_id)
    browsers = signin.browsers(dm().db, g.player_id, session.get(PLAYER_SESSION), utcnow())
    page = render_template(
        "prefs.html",
        hub_games=games_shown(lang, data["timezone"], utcnow(), found, seat_url, replay_url),
        forming=tables_shown(
            lang,
            data["timezone"],
            utcnow(),
            proposals.mine(dm().db, g.player_id),
            lambda proposal_id: url_for("lobby.game", proposal_id=proposal_id),
        ),
        created_games=proposals.created_games(dm().db, g.player_id),
        # a game's organiser page opens to its creator signed in in this browser (a hub's link is not enough)
        creator_here=signed_in_player() == g.player_id,
        rating=rating_shown(lang, overall),
        history=history_shown(overall),
        league_ratings=league_ratings_shown(lang, hub.league_ratings(dm().db, g.player_id)),
        form=form,
        data=data,
        games=games,
        token=token,
        error=error,
        notice=notice,
        answer_for_me=answer_for_me,
        reliability={"overall": reliable.shown(lang, figures.overall), "about": reliable.about(lang)},
        absences=absences_shown(absences.listed(dm().db, g.player_id, utcnow()), data["timezone"], lang),
        away_error=errors.get("away_error"),
        away_values=away_values or {},
        away_example=away.example(lang),
        signed_in=browsers_shown(lang, data["timezone"], utcnow(), browsers),
        calendar={"https": feed, "webcal": "webcal://" + feed.split("://", 1)[1]},
        hub_leagues=leagues_shown(lang, data["timezone"], utcnow(), hub.league_entries(dm().db, g.player_id, utcnow())),
        league_error=errors.get("league_error"),
        notify=_notify(token, lang, data["timezone"], errors.get("devices_error")),
    )
    return page, status


def _notify(token: str, lang: str, timezone: str, error: str | None) -> dict[str, Any]:
    """The hub's notifications section: the devices, how the player is told, what the subscribe button needs."""
    found = devices.channels(dm().db, g.player_id)
    minutes = [(n, ngettext("%(num)d minute", "%(num)d minutes", n)) for n in devices.MAIL_AFTER]
    return {
        "devices": devices_shown(lang, timezone, utcnow(), found.devices),
        "reach": reach_shown(lang, nudges.figures([found.reach])),
        "mode": found.mode,
        "mail_after": found.mail_after,
        "minutes": minutes,
        "key": dm().settings.vapid_public_key,
        "subscribe": url_for("notify.subscribe_player", token=token),
        "error": error,
    }


@bp.get("/p/<token>")
@player_link
def show(token: str) -> ResponseReturnValue:
    data = prefs.get_prefs(dm().db, g.player_id)
    g.language = data["language"]
    return _render(prefs_form(data), data, token)


@bp.post("/p/<token>")
@player_link
def save(token: str) -> ResponseReturnValue:
    data = prefs.get_prefs(dm().db, g.player_id)
    g.language = data["language"]
    form = prefs_form(data, formdata=request.form)
    values = {key: form[key].data for key in FIELDS}
    orders = {
        game["seat_id"]: [form[_order_field(game["seat_id"], i)].data or "" for i in range(len(CHARACTERS))]
        for game in data["games"]
    }
    defaults: dict[str, str | list[str]] = {
        key: form[f"standing_{key}"].data or "ask" for key in STANDING_ANSWER_SELECTS
    }
    defaults["victim"] = [form[f"standing_victim_{i}"].data or "" for i in range(len(CHARACTERS))]
    try:
        saved = prefs.save_prefs(dm().db, g.player_id, values, orders, defaults)
    except ShownError as exc:
        return _render(form, data, token, error=say(exc), status=422)
    args: dict[str, Any] = {"token": token, "saved": "1"} | ({"answered": "1"} if saved.answered else {})
    return redirect(url_for("prefs.show", **args), code=303)


@bp.post("/p/<token>/absences")
@player_link
def add_absence(token: str) -> ResponseReturnValue:
    """Declare an absence: the first and the last day (``from``, ``to``: 2026-12-03), in the player's time zone."""
    data = prefs.get_prefs(dm().db, g.player_id)
    g.language = data["language"]
    values = {key: str(request.form.get(key, ""))[:40] for key in ("from", "to")}
    try:
        first, last = absences.day(values["from"]), absences.day(values["to"])
        labels = (_("First day away"), _("Last day away"))  # the form's: a day out of range is named by them
        starts, ends = absences.between(first, last, data["timezone"], labels)
        absences.declare(dm().db, g.player_id, starts, ends)
    except ShownError as exc:  # 400 for a day out of range (``inputs.YEARS``), 422 for an absence refused
        status = 400 if isinstance(exc, inputs.InputError) else 422
        return _render(
            prefs_form(data), data, token, errors={"away_error": say(exc)}, away_values=values, status=status
        )
    return redirect(url_for("prefs.show", token=token, away="added") + "#absences", code=303)


@bp.post("/p/<token>/absences/<int:absence_id>/remove")
@player_link
def remove_absence(token: str, absence_id: int) -> ResponseReturnValue:
    data = prefs.get_prefs(dm().db, g.player_id)
    g.language = data["language"]
    try:
        absences.cancel(dm().db, g.player_id, absence_id)
    except ShownError as exc:
        return _render(prefs_form(data), data, token, errors={"away_error": say(exc)}, status=422)
    return redirect(url_for("prefs.show", token=token, away="removed") + "#absences", code=303)


@bp.post("/p/<token>/calendar")
@player_link
def new_calendar_address(token: str) -> ResponseReturnValue:
    """Revoke the player's calendar address and make a new one (shown on the page)."""
    calendar.new_address(dm().db, dm().settings.secret_key, g.player_id)
    return redirect(url_for("prefs.show", token=token, calendar="new") + "#calendar", code=303)


@bp.post("/p/<token>/signout")
@player_link
def sign_out_everywhere(token: str) -> ResponseReturnValue:
    """Sign out everywhere: every browser signed in by a mailed link (``/signin``) is signed out, this one too, and
    the links to this page given so far stop opening it (``signin.end_all``)."""
    if signed_in_player() == g.player_id:
        session.pop(PLAYER_SESSION, None)  # (a browser signed in as another player stays so)
    signin.end_all(dm().db, g.player_id)
    return redirect(url_for("signin.form", out="all"), code=303)


@bp.get("/calendar/<token>.ics")
def calendar_feed(token: str) -> ResponseReturnValue:
    """The player's calendar (ICS): each decision they owe and its deadline. The address is its own revocable
    secret (``services.calendar``); a revoked or forged one is refused like any link (403)."""
    s = dm().settings
    player_id = calendar.open_calendar(dm().db, s.secret_key, token)

    def seat_url(_seat_id: int, _generation: int) -> str:
        # never a seat link: a calendar address lives for months in a calendar service, and revoking a seat's links
        # must not be undone by the next fetch of the feed
        return s.base_url + url_for("pages.home")

    rounds = calendar.player_rounds(dm().db, player_id, utcnow(), s.base_url + url_for("pages.home"))
    feed = calendar.feed(dm().db, player_id, seat_url, rounds)
    body = player_calendar(feed, urlsplit(s.base_url).hostname or "deadmail", utcnow())
    reply = Response(body, content_type="text/calendar; charset=utf-8")
    reply.headers["Content-Disposition"] = 'inline; filename="deadmail.ics"'
    return reply


def render_hub(token: str, status: int, *, league_error: str = "", devices_error: str = "") -> ResponseReturnValue:
    """The hub again with a form's refusal: ``league_error`` (``server/web/leagues.py``) or ``devices_error``
    (``server/web/notify.py``)."""
    data = prefs.get_prefs(dm().db, g.player_id)
    g.language = data["language"]
    errors = {"league_error": league_error, "devices_error": devices_error}
    return _render(prefs_form(data), data, token, status=status, errors=errors)
