"""A seat offered to a substitute: ``/i/<token>``, the invitation's link (its ``token`` is the
invitation's key, not a signed link). A GET shows the offer (public facts only) and changes nothing; the POSTed form
takes the seat and goes on to the seat's own page. An unknown key is answered like every link that opens nothing
(``access.link_refused``); an invitation used or lapsed says so."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext

from ..present.organiser import invitation as invitation_shown
from ..services.attendance import substitutes
from ..services.errors import ShownError
from ..services.links import LinkError, seat_token
from ..services.play import organise
from ..services.play.games import GameError
from .access import dm, message, reader_language, say

bp = Blueprint("invitations", __name__)


def _page(
    token: str, *, values: dict[str, str] | None = None, error: str | None = None, status: int = 200
) -> ResponseReturnValue:
    try:
        offer = substitutes.look(dm().db, token)
    except substitutes.InvitationError as exc:
        return message(gettext("Invitation not valid"), say(exc), 409)
    shown = invitation_shown(reader_language(), offer)
    page = render_template(
        "invitation.html", token=token, offer=shown, values=values or {"name": "", "email": ""}, error=error
    )
    return page, status


@bp.get("/i/<token>")
def show(token: str) -> ResponseReturnValue:
    """The offer: the game, the seat, who plays at the table; and the form that takes the seat."""
    return _page(token)


@bp.post("/i/<token>")
def accept(token: str) -> ResponseReturnValue:
    """Take the seat: the seat's new link is where the substitute goes on."""
    values = {"name": str(request.form.get("name", ""))[:80], "email": str(request.form.get("email", ""))[:320]}
    try:
        taken = substitutes.accept(dm().db, token, values["name"], values["email"], language=reader_language())
    except substitutes.InvitationError as exc:
        if exc.msgid == substitutes.PLAYS_THIS:
            return _page(token, values=values, error=say(exc), status=409)
        return message(gettext("Invitation not valid"), say(exc), 409)
    except GameError as exc:  # not a name and an address: the form again
        return _page(token, values=values, error=say(exc), status=400)
    except organise.OrganiseError as exc:  # an address that plays another seat of the game
        return _page(token, values=values, error=say(exc), status=409)
    except LinkError:
        raise  # an unknown key: answered like every link that opens nothing
    except ShownError as exc:
        return message(gettext("Invitation not valid"), say(exc), 409)
    link = seat_token(dm().settings.secret_key, taken.seat_id, taken.generation)
    return redirect(url_for("pages.seat", token=link), code=303)
