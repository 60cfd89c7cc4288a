"""Games players start themselves (``services.lobby.proposals``, issue 30): the new-game form, a forming game's page
with its creator's forms (invitations, the shareable link, start with bots, cancel) and a member's (give the seat
back), the shareable link's page (``/g/<token>``), the invitation mail's page (``/invited/<token>``), and the lobby of
listed games (``/lobby``, and ``/api/lobby`` as JSON).

- Every page but the two links' needs a signed-in player (``/signin``); pages speak their language, in their zone.
- A game the reader may not see, or that does not exist, is the same 404: nothing tells ids apart.
- Opening a link (GET) changes nothing (mail scanners open links): each change is a POSTed form, answered 303 back
  to the game's page with a notice, or 4xx with the page and the refusal.
- Asking for an invitation with a shareable link answers the same whatever the address (as /signin does).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, jsonify, redirect, render_template, request, session, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext

from engine.options import CHOICES

from ..models import utcnow
from ..present import lobby as shown
from ..services import signin
from ..services.attendance import prefs
from ..services.errors import N_, ShownError
from ..services.links import game_link_token, player_token
from ..services.lobby import proposals
from ..services.lobby.proposals import LobbyError, NotFound
from .access import dm, json_error, message, reader_language, say, signed_in_player

bp = Blueprint("lobby", __name__)

#: the notice after a form (``?done=``).
NOTICES = {
    "created": N_("Your game is ready: invite players, or share its link."),
    "link": N_("A new link is ready: the links given before no longer work."),
    "joined": N_("You have a seat: the game starts when every seat is taken."),
    "left": N_("You gave your seat back."),
    "started": N_("The game has started: open your seat from your games."),
    "cancelled": N_("The game is cancelled: the players who joined are told by mail."),
}
#: the session's key holding what the last invitations did, for the page they come back to.
INVITED = "lobby_invited"
#: the form's fields as ``proposals.read_new_game`` reads them (kept when the form comes back).
FIELDS: tuple[str, ...] = ("seats", "title", "preset", "language", "timezone", "listed", "fill_days", "webhook_url")
FIELDS += tuple(f"option_{name}" for name in CHOICES)


def _notice(done: str) -> str | None:
    return gettext(NOTICES[done]) if done in NOTICES else None


def _signed_in() -> int | None:
    """The signed-in player (their language and zone for the page), or None."""
    player_id = signed_in_player()
    if player_id is not None:
        data = prefs.get_prefs(dm().db, player_id)
        g.language, g.timezone = data["language"], data["timezone"]
    return player_id


def _zone(table_zone: str = "UTC") -> str:
    """The reader's zone (signed in), else the game's."""
    return str(getattr(g, "timezone", None) or table_zone)


def _status(exc: LobbyError) -> int:
    """404 for a game not the reader's, 409 for one full or no longer forming, else 400 (what was sent is wrong)."""
    if isinstance(exc, NotFound):
        return 404
    if exc.msgid in (proposals.FULL, proposals.NOT_FORMING):
        return 409
    return 400


def _to_signin() -> ResponseReturnValue:
    return redirect(url_for("signin.form"), code=303)


def _not_found(exc: LobbyError) -> ResponseReturnValue:
    return message(gettext("Page not found"), say(exc), 404)


# --- a new game -----------------------------------------------------------------------------------------------------


def _new_form(values: dict[str, str], error: str | None = None, status: int = 200) -> ResponseReturnValue:
    context = shown.new_game_form(reader_language(), values, error)
    return render_template("lobby/new.html", **context), status


@bp.get("/games/new")
def new_game() -> ResponseReturnValue:
    """The new-game form (the reader's zone and language are its defaults)."""
    if _signed_in() is None:
        return _to_signin()
    return _new_form({"seats": "4", "language": reader_language(), "timezone": _zone(), "fill_days": "7"})


@bp.post("/games/new")
def create() -> ResponseReturnValue:
    player_id = _signed_in()
    if player_id is None:
        return _to_signin()
    values = {name: str(request.form.get(name, ""))[:1001] for name in FIELDS}
    try:
        new = proposals.read_new_game(request.form.to_dict(), allow_private=dm().settings.webhook_private)
        proposal_id = proposals.create(dm().db, player_id, new)
    except LobbyError as exc:
        return _new_form(values, say(exc), 400)
    return redirect(url_for("lobby.game", proposal_id=proposal_id, done="created"), code=303)


# --- a forming game's page ------------------------------------------------------------------------------------------


def _game_page(proposal_id: int, player_id: int, error: str | None = None, status: int = 200) -> ResponseReturnValue:
    try:
        found = proposals.forming(dm().db, proposal_id, player_id)
    except NotFound as exc:  # (a form refused on a game the reader may no longer see: the refusal alone)
        return _not_found(exc) if error is None else message(gettext("Not done"), error, status)
    game = shown.forming_page(reader_language(), _zone(), utcnow(), found)
    link = None
    if found.creator and game["forming"]:
        token = game_link_token(dm().settings.secret_key, proposal_id, found.link_generation)
        link = dm().settings.base_url + url_for("lobby.shared", token=token)
    invited = session.pop(INVITED, None) if request.method == "GET" else None
    result = None
    if isinstance(invited, dict):
        skipped = [(str(a), str(w)) for a, w in invited.get("skipped", []) if isinstance(a, str) and isinstance(w, str)]
        result = shown.invited_shown(reader_language(), skipped, int(invited.get("sent", 0)))
    page = render_template(
        "lobby/game.html",
        game=game,
        named=proposals.named(dm().db, player_id),
        link=link,
        error=error,
        notice=_notice(str(request.args.get("done", ""))) if error is None else None,
        invited=result,
        addresses=str(request.form.get("addresses", ""))[:4000] if error else "",
    )
    return page, status


@bp.get("/games/<int:proposal_id>")
def game(proposal_id: int) -> ResponseReturnValue:
    """A forming game: its creator's and members' at any time, anyone's while it is listed and forming."""
    player_id = _signed_in()
    if player_id is None:
        return _to_signin()
    return _game_page(proposal_id, player_id)


def _act(proposal_id: int, act: Any, done: str) -> ResponseReturnValue:
    """A form of the game's page: ``act(player_id)``, then 303 back with the notice ``done`` (or the page with the
    refusal)."""
    player_id = _signed_in()
    if player_id is None:
        return _to_signin()
    try:
        started = act(player_id)
    except LobbyError as exc:
        if isinstance(exc, NotFound):
            return _not_found(exc)
        return _game_page(proposal_id, player_id, say(exc), _status(exc))
    if isinstance(started, proposals.Joined) and started.game_id is not None:
        done = "started"
    return redirect(url_for("lobby.game", proposal_id=proposal_id, done=done), code=303)


@bp.post("/games/<int:proposal_id>/invite")
def invite(proposal_id: int) -> ResponseReturnValue:
    """Invite addresses (one textarea): each is mailed one invitation, or skipped with why."""

    def act(player_id: int) -> None:
        text = str(request.form.get("addresses", ""))[:4000]
        done = proposals.invite(dm().db, proposal_id, player_id, text)
        session[INVITED] = {"sent": len(done.sent), "skipped": [[a[:120], why] for a, why in done.skipped]}

    return _act(proposal_id, act, "invited")


@bp.post("/games/<int:proposal_id>/link")
def new_link(proposal_id: int) -> ResponseReturnValue:
    return _act(proposal_id, lambda player_id: proposals.new_link(dm().db, proposal_id, player_id), "link")


@bp.post("/games/<int:proposal_id>/start")
def start(proposal_id: int) -> ResponseReturnValue:
    return _act(proposal_id, lambda player_id: proposals.start(dm().db, proposal_id, player_id), "started")


@bp.post("/games/<int:proposal_id>/cancel")
def cancel(proposal_id: int) -> ResponseReturnValue:
    return _act(proposal_id, lambda player_id: proposals.cancel(dm().db, proposal_id, player_id), "cancelled")


@bp.post("/games/<int:proposal_id>/join")
def join(proposal_id: int) -> ResponseReturnValue:
    """Take a seat of a game listed in the lobby."""
    name = str(request.form.get("name", ""))[:200]
    return _act(proposal_id, lambda player_id: proposals.join(dm().db, proposal_id, player_id, name=name), "joined")


@bp.post("/games/<int:proposal_id>/leave")
def leave(proposal_id: int) -> ResponseReturnValue:
    return _act(proposal_id, lambda player_id: proposals.leave(dm().db, proposal_id, player_id), "left")


# --- the shareable link ---------------------------------------------------------------------------------------------


def _shared_page(token: str, error: str | None = None, status: int = 200, address: str = "") -> ResponseReturnValue:
    player_id = _signed_in()
    table = proposals.by_link(dm().db, dm().settings.secret_key, token)
    member = False
    if player_id is not None:
        try:
            member = proposals.forming(dm().db, table.id, player_id).seated
        except NotFound:
            member = False
    page = render_template(
        "lobby/shared.html",
        token=token,
        game=shown.table_shown(reader_language(), _zone(table.timezone), utcnow(), table),
        signed_in=player_id is not None,
        named=player_id is None or proposals.named(dm().db, player_id),
        member=member,
        error=error,
        address=address,
    )
    return page, status


@bp.get("/g/<token>")
def shared(token: str) -> ResponseReturnValue:
    """A game's shareable link: the game; a signed-in player's Join button, or a newcomer's address form."""
    return _shared_page(token)


@bp.post("/g/<token>")
def join_shared(token: str) -> ResponseReturnValue:
    player_id = _signed_in()
    if player_id is None:
        return _to_signin()
    try:
        name = str(request.form.get("name", ""))[:200]
        joined = proposals.join_by_link(dm().db, dm().settings.secret_key, token, player_id, name=name)
    except LobbyError as exc:
        return _shared_page(token, say(exc), _status(exc))
    done = "started" if joined.game_id is not None else "joined"
    return redirect(url_for("lobby.game", proposal_id=joined.proposal_id, done=done), code=303)


@bp.post("/g/<token>/ask")
def ask(token: str) -> ResponseReturnValue:
    """A newcomer's address: the game's invitation is mailed to it (the same answer whatever the address)."""
    address = str(request.form.get("address", ""))[:320]
    try:
        proposals.ask_seat(dm().db, dm().settings.secret_key, token, address)
    except LobbyError as exc:
        return _shared_page(token, say(exc), _status(exc), address)
    return render_template("lobby/asked.html")


# --- the invitation mail's link -------------------------------------------------------------------------------------


def _invitation_page(token: str, error: str | None = None, status: int = 200, name: str = "") -> ResponseReturnValue:
    found = proposals.look(dm().db, dm().settings.secret_key, token)
    page = render_template(
        "lobby/invited.html",
        token=token,
        invitation=found,
        game=shown.table_shown(reader_language(), _zone(found.table.timezone), utcnow(), found.table),
        error=error,
        name=name,
    )
    return page, status


@bp.get("/invited/<token>")
def invitation(token: str) -> ResponseReturnValue:
    """The invitation: the game, a name field when the address has none yet, and the three answers. Opening it
    changes nothing."""
    return _invitation_page(token)


@bp.post("/invited/<token>")
def answer(token: str) -> ResponseReturnValue:
    choice = str(request.form.get("answer", ""))[:10]
    name = str(request.form.get("name", ""))[:200]
    try:
        done = proposals.answer(dm().db, dm().settings.secret_key, token, choice, name)
    except LobbyError as exc:
        return _invitation_page(token, say(exc), _status(exc), name)
    hub = None
    if not done.again:  # (an invitation's link never expires: answered again, it opens nothing more)
        generation = signin.link_generation(dm().db, done.player_id)
        hub = url_for("prefs.show", token=player_token(dm().settings.secret_key, done.player_id, generation))
    return render_template("lobby/answered.html", done=done, hub=hub)


# --- the lobby ------------------------------------------------------------------------------------------------------

FILTERS = ("seats", "preset", "language", "zone", "hours")


@bp.get("/lobby")
def open_games() -> ResponseReturnValue:
    """The games listed that still take players, filtered by the query string (seats, preset, language, zone and
    hours from it)."""
    player_id = _signed_in()
    values = {name: str(request.args.get(name, ""))[:64] for name in FILTERS}
    lang = reader_language()
    error, games, status = None, [], 200
    try:
        filters = proposals.read_filters(values)
        found = proposals.open_games(dm().db, filters)
        games = shown.tables_shown(lang, _zone(), utcnow(), found, lambda i: url_for("lobby.game", proposal_id=i))
    except LobbyError as exc:
        error, status = say(exc), 400
    page = render_template(
        "lobby/lobby.html",
        games=games,
        error=error,
        signed_in=player_id is not None,
        filters=shown.filters_form(lang, values),
    )
    return page, status


@bp.get("/api/lobby")
def api_open_games() -> ResponseReturnValue:
    """The lobby as JSON: ``{"games": [...]}`` (public facts of each listed game, its page's address)."""
    values = {name: str(request.args.get(name, ""))[:64] for name in FILTERS}
    try:
        found = proposals.open_games(dm().db, proposals.read_filters(values))
    except ShownError as exc:
        return json_error(str(exc), 400)
    base = dm().settings.base_url
    return jsonify(shown.lobby_json(found, lambda i: base + url_for("lobby.game", proposal_id=i)))
