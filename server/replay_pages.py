"""The after-game replay page, reached by the signed link of any seat of the finished game."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, render_template, request, url_for
from flask_babel import gettext

from .app import dm
from .pages import _reader  # the seat pages' reader: the language and zone of the seat's player
from .services import replay, seats
from .services.links import LinkError

bp = Blueprint("replay", __name__)

MAX_ROUND = 10_000


def _round_arg() -> int | None:
    raw = request.args.get("round", "")
    if not raw or len(raw) > 6 or not raw.isdigit():
        return None
    return min(int(raw), MAX_ROUND)


@bp.get("/s/<token>/replay")
def seat_replay(token: str) -> Any:
    """One round of the replay, with links to the other rounds; a running game shows nothing of it (409)."""
    s = dm().settings
    try:
        seat_id = seats.seat_from_token(dm().db, s.secret_key, token, s.link_max_age)
    except LinkError as exc:
        return render_template("message.html", title=gettext("Link not valid"), message=exc.translated(gettext)), 403
    _reader(seat_id)
    game_id = replay.game_of_seat(dm().db, seat_id)
    try:
        context = replay.replay_page_context(dm().db, game_id, _round_arg(), g.language)
    except replay.ReplayRefused:
        message = gettext("The replay, with every secret revealed, can be seen once the game is over.")
        return render_template("message.html", title=gettext("Game still running"), message=message, token=token), 409

    def round_url(number: int) -> str:
        return url_for("replay.seat_replay", token=token, round=number)

    return render_template("replay.html", token=token, round_url=round_url, **context)
