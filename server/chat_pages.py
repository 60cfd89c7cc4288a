"""Table talk on the seat page: POST /s/<token>/chat posts a message (CSRF-protected, rate limited in app.py).

Fields: ``text`` and either ``channel`` (a channel key the seat is in: "all" or "blue+red") or one or more ``to``
colours (starting, or continuing, the private channel between them and the writer). A posted message sends the
browser back to the seat page (303, ``?chat=sent#chat``); a refused one shows why (422), and nothing is stored.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, redirect, render_template, request, url_for
from flask_babel import gettext

from . import i18n
from .app import dm
from .models import Seat
from .services import chat, seats
from .services.links import LinkError

bp = Blueprint("chat", __name__)

#: a generous cap on what is read from the form before the service checks it (the service refuses > 1000).
MAX_FIELD = 20_000


@bp.post("/s/<token>/chat")
def post(token: str) -> Any:
    s = dm().settings
    try:
        seat_id = seats.seat_from_token(dm().db, s.secret_key, token, s.link_max_age)
    except LinkError as exc:
        return render_template("message.html", title=gettext("Link not valid"), message=exc.translated(gettext)), 403
    with dm().db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None
        game_id, colour = seat.game_id, seat.colour
        colours = [other.colour for other in seat.game.seats]
        player = seat.player
        g.language = i18n.language(player.language if player is not None else "en")  # the reader's language
        g.timezone = player.timezone if player is not None else "UTC"
    text = request.form.get("text", "")[:MAX_FIELD]
    try:
        chosen = [c[:16] for c in request.form.getlist("to")[:10]]
        if chosen:
            key = chat.channel_key([*chosen, colour], colours, colour)
            if key == chat.PUBLIC:  # "private" with everybody: refused rather than posted in public
                raise chat.ChatError("channel")
        else:
            key = request.form.get("channel", chat.PUBLIC)[:100]
        chat.post(dm().db, game_id, colour, key, text)
    except chat.ChatError as exc:
        title = gettext("Message not posted")
        return render_template("message.html", title=title, message=exc.text(g.language), token=token), 422
    return redirect(url_for("pages.seat", token=token, chat="sent", _anchor="chat"), code=303)
