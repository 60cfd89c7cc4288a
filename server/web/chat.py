"""Table talk on the seat page: POST /s/<token>/chat posts a message (CSRF-protected, rate limited in app.py).

Fields: ``text`` and either ``channel`` (a channel key the seat is in: "all" or "blue+red") or one or more ``to``
colours (starting, or continuing, the private channel between them and the writer). A posted message sends the
browser back to the seat page (303, ``?chat=sent#chat``); a refused one shows why (422), and nothing is stored.
"""

from __future__ import annotations

from flask import Blueprint, g, redirect, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext

from ..services.play import chat
from .access import dm, message, say, seat_link

bp = Blueprint("chat", __name__)

#: a generous cap on what is read from the form before the service checks it (the service refuses > 1000).
MAX_FIELD = 20_000


@bp.post("/s/<token>/chat")
@seat_link
def post(token: str) -> ResponseReturnValue:
    text = request.form.get("text", "")[:MAX_FIELD]
    chosen = [c[:16] for c in request.form.getlist("to")[:10]]
    try:
        chat.post(
            dm().db, g.seat.game_id, g.seat.colour, request.form.get("channel", chat.PUBLIC)[:100], text, to=chosen
        )
    except chat.ChatError as exc:
        return message(gettext("Message not posted"), say(exc), 422, token)
    return redirect(url_for("pages.seat", token=token, chat="sent", _anchor="chat"), code=303)
