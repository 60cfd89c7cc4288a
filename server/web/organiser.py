"""The organiser's pages (/o/…): create a game, see who owes what, extend, pause, replace, resend, abandon.

Access (``access.organiser_required``): logging in with the organiser API token opens every game; a game's organiser
link (/o/link/<token>, shown when it is created) opens that game only. Both make a server-side session
(``services.organisers``) that logout ends. A player who created a game (issue 30), signed in, has some of the
organiser's powers over that game only (``access.CREATOR_ENDPOINTS``; the pages then show nothing else). The server's
organiser moderates players' own games at /o/players: suspend a player, lift it, who created what. Every change
is one call of server/services/play/organise.py; the pages are built by server/present/organiser.py. A GET never
changes anything. What cannot be undone (replace a player, revoke a player's links, abandon the game) is asked first:
the game page's form POSTs to a page that says what will happen, whose own form confirms it (``_confirmed``). Once
the game is over, its replay opens here too (``replay``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict
from datetime import datetime, timedelta
from typing import Any

from flask import Blueprint, Response, abort, g, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _

from ..models import utcnow
from ..present import organiser as shown
from ..present.hub import reach_shown
from ..present.league import channel_state
from ..services import inputs
from ..services.attendance import substitutes
from ..services.channel import channels
from ..services.channel.urls import ChannelError
from ..services.errors import N_, ShownError
from ..services.leagues import rounds
from ..services.links import league_token, organiser_token
from ..services.lobby import moderation, proposals
from ..services.notify import nudges
from ..services.play import games, organise, reliability, turns
from ..services.tempo import zone
from . import replay as replays
from .access import (
    as_creator,
    dm,
    is_organiser_token,
    log_in,
    log_out,
    message,
    next_path,
    organiser_link,
    organiser_required,
    reader_language,
    remember_game,
    say,
)

bp = Blueprint("organiser", __name__, url_prefix="/o")

#: the longest text taken from a form field.
MAX_FIELD = 4000


@bp.after_request
def no_store(response: Response) -> Response:
    """The organiser's pages show secret links: never kept by a browser or proxy cache."""
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.context_processor
def reader() -> dict[str, object]:
    """Whether the page is opened by a game's creator with their powers only (``access.as_creator``): the menu and
    the game page then show only what they may use."""
    return {"as_creator": as_creator()}


def _field(name: str, limit: int = MAX_FIELD) -> str:
    return str(request.form.get(name, ""))[:limit]


# --- logging in ----------------------------------------------------------------------------------------------------


def _next_url() -> str:
    """Where the login form leads once logged in: the organiser's page the visitor asked for (``access.next_path``)."""
    return next_path(str(request.values.get("next", "")))


@bp.get("/login")
def login_form() -> ResponseReturnValue:
    return render_template("organiser/login.html", error=None, next=_next_url())


@bp.post("/login")
def login() -> ResponseReturnValue:
    """A wrong token is a 401, counted per client with the API's (``access.TOKEN_CHECKS``): beyond ten a minute, 429."""
    if not is_organiser_token(_field("token", 512).strip()):
        error = _("This is not the organiser token.")
        return render_template("organiser/login.html", error=error, next=_next_url()), 401
    log_in()
    return redirect(_next_url() or url_for("organiser.index"), code=303)


@bp.get("/logout")
def logout_form() -> ResponseReturnValue:
    return render_template("organiser/logout.html")


@bp.post("/logout")
def logout() -> ResponseReturnValue:
    log_out()
    return redirect(url_for("organiser.login_form"), code=303)


@bp.get("/link/<token>")
@organiser_link
def organiser_game_link(token: str) -> ResponseReturnValue:
    """Opens the game's organiser pages in this browser; ``?offer=<colour>`` (the autopilot mail's one-tap action)
    goes on to the confirm page of offering that seat to a substitute."""
    remember_game(g.game_id)
    offer = str(request.args.get("offer", ""))[:16]
    if offer:
        return redirect(url_for("organiser.offer_form", game_id=g.game_id, colour=offer), code=303)
    return redirect(url_for("organiser.game", game_id=g.game_id), code=303)


# --- creating a game -----------------------------------------------------------------------------------------------


@bp.get("/")
@organiser_required
def index() -> ResponseReturnValue:
    listed = shown.games_list(reader_language(), organise.recent_games(dm().db))
    secret = dm().settings.secret_key
    found = [  # each league's organiser pages, by its current organiser link
        {
            **asdict(item),
            "url": url_for(
                "league_organiser.league", token=league_token(secret, "organiser", item.id, item.generation)
            ),
        }
        for item in rounds.leagues_list(dm().db)
    ]
    return render_template("organiser/index.html", games=listed, leagues=found)


@bp.get("/new")
@organiser_required
def new_game() -> ResponseReturnValue:
    return render_template("organiser/new.html", **shown.new_game_form(reader_language(), {}, None))


@bp.post("/new")
@organiser_required
def create() -> ResponseReturnValue:
    values = {k: str(v)[:MAX_FIELD] for k, v in request.form.items() if k not in ("csrf_token", "estimate")}
    try:
        spec = games.spec_from_json(games.spec_from_form(request.form, MAX_FIELD))
        if request.form.get("estimate"):  # the Estimate button: the form again, with how long the game would take
            started = time.monotonic()
            figures = games.estimate_game(dm().db, spec)
            form = {**shown.new_game_form(reader_language(), values, None), "estimate": figures}
            form["estimate_seconds"] = max(1, round(time.monotonic() - started))  # the page says it: it may be long
            return render_template("organiser/new.html", **form)
        created = games.create_game(dm().db, spec)
    except games.GameError as exc:
        return render_template("organiser/new.html", **shown.new_game_form(reader_language(), values, say(exc))), 400
    return redirect(url_for("organiser.created_page", game_id=created.game_id), code=303)


@bp.get("/games/<int:game_id>/created")
@organiser_required
def created_page(game_id: int) -> ResponseReturnValue:
    """What a new game gives its organiser: their organiser link and the seats' links to pass on. The creating form
    is redirected here (POST/redirect/GET): reloading this page, or going back and forth, creates nothing. Like every
    organiser page, only for the organiser logged in or this game's organiser session, and never cached."""
    try:
        organise.game_zone(dm().db, game_id)  # the game exists
    except organise.OrganiseError:
        abort(404)
    s = dm().settings
    link = f"{s.base_url}{url_for('organiser.organiser_game_link', token=organiser_token(s.secret_key, game_id))}"
    seats = shown.seats(reader_language(), games.seat_links(dm().db, game_id, s.secret_key, s.base_url))
    return render_template("organiser/created.html", game_id=game_id, organiser_link=link, seats=seats)


# --- one game ------------------------------------------------------------------------------------------------------


def _notice(done: str) -> str | None:
    return {
        "extended": _("The deadline was moved."),
        "paused": _("The game is paused."),
        "resumed": _("The game goes on."),
        "replaced": _("The seat has a new player."),
        "unchanged": _("Nothing changed: the seat already has that player."),
        "resent": _("The link will be sent by e-mail."),
        "abandoned": _("The game is abandoned."),
        "channel_set": _("The webhook address is set: the game's public events are posted there."),
        "channel_removed": _("The webhook address is removed: nothing more is posted."),
        "channel_resumed": _("The webhook channel is resumed: what waited is posted now."),
    }.get(done)


def _offer_urls(game_id: int) -> dict[str, list[str]]:
    """Each seat's offers still open, as links; to a creator, only those of seats they may offer themselves."""
    base = dm().settings.base_url
    pending = substitutes.pending(dm().db, game_id)
    if as_creator():
        pending = {colour: keys for colour, keys in pending.items() if _creator_may_offer(game_id, colour)}
    return {
        colour: [f"{base}{url_for('invitations.show', token=key)}" for key in keys] for colour, keys in pending.items()
    }


def _creator_may_offer(game_id: int, colour: str) -> bool:
    try:
        _offerable(game_id, colour)
    except organise.OrganiseError:
        return False
    return True


def _game_page(
    game_id: int, *, error: str | None = None, status: int = 200, channel_error: str | None = None, url: str = ""
) -> ResponseReturnValue:
    try:
        data = organise.overview(dm().db, game_id)
    except organise.OrganiseError:
        abort(404)
    g.timezone = str(data["timezone"])
    s = dm().settings
    # a creator (usually a player of the game too) is shown no seat's link: each would open another's seat
    links = [] if as_creator() else games.seat_links(dm().db, game_id, s.secret_key, s.base_url)
    figures = reliability.of_game(dm().db, game_id)
    context = shown.game_page(reader_language(), data, links, utcnow(), _offer_urls(game_id), figures)
    notice = _notice(str(request.args.get("done", ""))[:20])
    reach = reach_shown(reader_language(), nudges.game_figures(dm().db, game_id))
    found = channels.of_game(dm().db, game_id)
    channel = channel_state(reader_language(), found, str(data["timezone"]), utcnow())
    return (
        render_template(
            "organiser/game.html",
            error=error,
            notice=notice,
            reach=reach,
            channel=channel,
            channel_error=channel_error,
            channel_url=url,
            **context,
        ),
        status,
    )


@bp.get("/games/<int:game_id>")
@organiser_required
def game(game_id: int) -> ResponseReturnValue:
    return _game_page(game_id)


def _done(game_id: int, what: str) -> ResponseReturnValue:
    return redirect(url_for("organiser.game", game_id=game_id, done=what), code=303)


def _operation(game_id: int, run: Callable[[str], str]) -> ResponseReturnValue:
    """One organiser operation of a POSTed form, given the game's time zone: the game page says it was done, or
    shows why not (nothing changed)."""
    try:
        return _done(game_id, run(organise.game_zone(dm().db, game_id)))
    except ShownError as exc:
        return _refused(game_id, exc)


def _refused(game_id: int, exc: ShownError) -> ResponseReturnValue:
    """The game page saying why an operation was refused (404 for a game that does not exist; 400 for a value that
    cannot be taken, such as a date out of range; else 409)."""
    if isinstance(exc, organise.OrganiseError) and exc.msgid == organise.NO_GAME:
        abort(404)
    return _game_page(game_id, error=say(exc), status=400 if isinstance(exc, inputs.InputError) else 409)


def _when(name: str, tz: str, label: str) -> datetime:
    """The form's datetime-local field ``name``, read in the game's zone (``inputs.local_instant``); OrganiseError
    when it is not one, InputError (naming it ``label``) when it is out of range."""
    instant = inputs.local_instant(_field(name, 40), label, zone(tz))
    if instant is None:
        raise organise.OrganiseError(organise.BAD_DATE)
    return instant


@bp.post("/games/<int:game_id>/extend")
@organiser_required
def extend(game_id: int) -> ResponseReturnValue:
    def run(tz: str) -> str:
        if _field("until", 40).strip():
            organise.extend_deadline(dm().db, game_id, until=_when("until", tz, _("The new deadline")))
            return "extended"
        text = _field("hours", 4)
        hours = inputs.small_int(text, 4) or 0
        if hours not in shown.EXTEND_HOURS:
            raise organise.OrganiseError(organise.CHOOSE_EXTENSION)
        organise.extend_deadline(dm().db, game_id, by=timedelta(hours=hours))
        return "extended"

    return _operation(game_id, run)


@bp.post("/games/<int:game_id>/channel/<any(set, remove, resume):action>")
@organiser_required
def channel(game_id: int, action: str) -> ResponseReturnValue:
    """The game's webhook channel: set its address, remove it, resume it once paused (``channels.change_game``)."""
    url = _field("url", 2000) if action == "set" else ""
    try:
        done = channels.change_game(
            dm().db, game_id, action, url, allow_private=dm().settings.webhook_private, now=utcnow()
        )
    except ChannelError as exc:
        return _game_page(game_id, channel_error=say(exc), status=400 if action == "set" else 409, url=url)
    return _done(game_id, done)


@bp.post("/games/<int:game_id>/pause")
@organiser_required
def pause(game_id: int) -> ResponseReturnValue:
    def run(tz: str) -> str:
        organise.pause(dm().db, game_id, _when("until", tz, _("The end of the pause")))
        return "paused"

    return _operation(game_id, run)


@bp.post("/games/<int:game_id>/resume")
@organiser_required
def resume(game_id: int) -> ResponseReturnValue:
    def run(_tz: str) -> str:
        organise.resume(dm().db, game_id)
        return "resumed"

    return _operation(game_id, run)


def _confirmed(game_id: int, what: str, fields: dict[str, str], **asked: Any) -> ResponseReturnValue | None:
    """None when the form was confirmed (``confirm=1``); else the page asking to confirm ``what`` (nothing changed):
    its button POSTs ``fields`` again, confirmed. A game that is not running (for revoking links: one abandoned; a
    finished game's players keep their links to see the end and the replay), or a seat it does not have, is refused
    at once."""
    if _field("confirm", 4) == "1":
        return None
    try:
        data = organise.overview(dm().db, game_id)
    except organise.OrganiseError:
        abort(404)
    colour = fields.get("colour")
    if data["status"] != "running" and not (what == "revoke" and data["status"] == "over"):
        exc = organise.OrganiseError(organise.NOT_RUNNING, game=game_id, status=data["status"], terms=("status",))
        return _refused(game_id, exc)
    if colour is not None and colour not in {seat["colour"] for seat in data["seats"]}:
        return _refused(game_id, organise.OrganiseError(organise.NO_SEAT, game=game_id, value=colour))
    shown_asked = shown.confirmation(reader_language(), what, data, colour, **asked)
    return render_template(
        "organiser/confirm.html", asked=shown_asked, action=request.path, fields=list(fields.items()), game_id=game_id
    )


@bp.post("/games/<int:game_id>/replace")
@organiser_required
def replace(game_id: int) -> ResponseReturnValue:
    """Replace a seat's player, once confirmed (``_confirmed``): by a bot, or a person."""
    colour, by, name, email = _field("colour", 16), _field("by", 16), _field("name", 80), _field("email", 320)
    try:
        person = games.person(name, email) if by == "person" else None  # apart: a name never becomes an address
        if person is None and by not in turns.BOT_KINDS:
            raise organise.OrganiseError(organise.CHOOSE_REPLACEMENT)
    except ShownError as exc:
        return _refused(game_id, exc)
    fields = {"colour": colour, "by": by, "name": name, "email": email}
    newcomer = f"{person.name} <{person.email}>" if person is not None else ""
    asking = _confirmed(game_id, "replace", fields, by=by, person=newcomer)
    if asking is not None:
        return asking

    def run(_tz: str) -> str:
        if person is not None:
            result = organise.replace_seat(dm().db, game_id, colour, player=person)
        else:
            result = organise.replace_seat(dm().db, game_id, colour, bot=by)
        return "replaced" if result.changed else "unchanged"

    return _operation(game_id, run)


@bp.post("/games/<int:game_id>/resend")
@organiser_required
def resend(game_id: int) -> ResponseReturnValue:
    """Send a player's link again; with ``rotate=1``, once confirmed (``_confirmed``), revoke its old links first."""
    colour, rotate = _field("colour", 16), _field("rotate", 4) == "1"
    if rotate:
        asking = _confirmed(game_id, "revoke", {"colour": colour, "rotate": "1"})
        if asking is not None:
            return asking

    def run(_tz: str) -> str:
        organise.resend_link(dm().db, game_id, colour, rotate=rotate)
        return "resent"

    return _operation(game_id, run)


@bp.post("/games/<int:game_id>/abandon")
@organiser_required
def abandon(game_id: int) -> ResponseReturnValue:
    """End the game for everyone, once confirmed (``_confirmed``)."""
    asking = _confirmed(game_id, "abandon", {})
    if asking is not None:
        return asking

    def run(_tz: str) -> str:
        organise.abandon(dm().db, game_id)
        return "abandoned"

    return _operation(game_id, run)


@bp.get("/games/<int:game_id>/replay")
@organiser_required
def replay(game_id: int) -> ResponseReturnValue:
    """The replay of a game that is over, every secret revealed (as its players see it from their seats); while it
    runs, nothing of it (409)."""
    game = games.finished(dm().db, game_id)
    if game is None:
        try:
            status = organise.overview(dm().db, game_id)["status"]
        except organise.OrganiseError:
            abort(404)
        if status == "abandoned":
            return message(_("Game abandoned"), _("An abandoned game has no replay."), 409)
        text = _("The replay, with every secret revealed, can be seen once the game is over.")
        return message(_("Game still running"), text, 409)

    def here(round: int | None = None, step: int | None = None) -> str:
        return url_for("organiser.replay", game_id=game_id, round=round, step=step)

    return replays.show(game, reader_language(), here, url_for("organiser.game", game_id=game_id))


# --- substitutes ---------------------------------------------------------------------------------------------------


@bp.get("/games/<int:game_id>/offer")
@organiser_required
def offer_form(game_id: int) -> ResponseReturnValue:
    """The confirm page of offering a seat to a substitute (from the game page, or the autopilot mail's one-tap
    link): opening it changes nothing; its form POSTs the offer."""
    try:
        seat = _offerable(game_id, str(request.args.get("colour", ""))[:16])
    except organise.OrganiseError as exc:
        return _refused(game_id, exc)
    return render_template("organiser/offer.html", seat=shown.offered_seat(reader_language(), seat))


#: a game's creator (usually a player of it) offers only a seat nobody plays any more: it would hand another
#: player's seat, hand and all, to whoever they give the link.
CREATOR_OFFERS = N_("As the game's creator you may offer a seat only once its player is on autopilot, or a bot's seat.")


def _offerable(game_id: int, colour: str) -> substitutes.Offered:
    """The seat about to be offered (``substitutes.offerable``); OrganiseError for a creator when it is a person's
    who still plays (``CREATOR_OFFERS``)."""
    seat = substitutes.offerable(dm().db, game_id, colour)
    if as_creator() and not (seat["bot"] or seat["autopilot"]):
        raise organise.OrganiseError(CREATOR_OFFERS)
    return seat


@bp.post("/games/<int:game_id>/offer")
@organiser_required
def offer(game_id: int) -> ResponseReturnValue:
    """Offer a seat to a substitute: the page shows the invitation's link to pass on (and mails it to the address
    given, if any)."""
    colour, email = _field("colour", 16), _field("email", 320).strip()
    try:
        to = games.person(_field("name", 80), email) if email else None
        seat = _offerable(game_id, colour)
        key = substitutes.offer(dm().db, game_id, colour, to=to)
    except ShownError as exc:
        return _refused(game_id, exc)
    link = f"{dm().settings.base_url}{url_for('invitations.show', token=key)}"
    page = render_template(
        "organiser/offered.html", seat=shown.offered_seat(reader_language(), seat), link=link, mailed=to
    )
    return page, 201


# --- players' own games: moderation ---------------------------------------------------------------------------------


def _players_page(
    *, error: str | None = None, status: int = 200, notice: str | None = None, done: dict[str, object] | None = None
) -> ResponseReturnValue:
    found = shown.creators_list(reader_language(), moderation.creators(dm().db))
    page = render_template("organiser/players.html", creators=found, error=error, notice=notice, done=done)
    return page, status


def _player(address: str) -> moderation.Found | ResponseReturnValue:
    """The player of the form's address, or the page saying why not (400: not an address; 404: nobody's)."""
    try:
        return moderation.look(dm().db, address)
    except proposals.LobbyError as exc:
        return _players_page(error=say(exc), status=404 if isinstance(exc, proposals.NotFound) else 400)


@bp.get("/players")
@organiser_required
def players() -> ResponseReturnValue:
    """Players' own games, for the server's organiser only: suspend a player or lift it, and who created what."""
    return _players_page()


@bp.post("/players/suspend")
@organiser_required
def suspend() -> ResponseReturnValue:
    """Suspend a player, once confirmed (as what cannot be undone: their forming games are cancelled, their seats
    offered); the page then says which seats were offered, each linking to its game's page."""
    found = _player(_field("address", 320))
    if not isinstance(found, moderation.Found):
        return found
    if found.suspended:
        return _players_page(notice=_("%(email)s is suspended already.", email=found.email))
    if _field("confirm", 4) != "1":
        asked = shown.suspension_confirmation(reader_language(), found)
        back = url_for("organiser.players")
        fields = [("address", found.email)]
        return render_template("organiser/confirm.html", asked=asked, action=request.path, fields=fields, back=back)
    done = moderation.suspend(dm().db, found.email, utcnow())
    return _players_page(done=shown.suspension_done(reader_language(), found, done))


@bp.post("/players/lift")
@organiser_required
def lift() -> ResponseReturnValue:
    """Lift a player's suspension: they may create and join games again."""
    found = _player(_field("address", 320))
    if not isinstance(found, moderation.Found):
        return found
    if not found.suspended:
        return _players_page(notice=_("%(email)s is not suspended.", email=found.email))
    moderation.lift(dm().db, found.email)
    return _players_page(notice=_("%(email)s may play again.", email=found.email))
