"""The after-game replay page, reached by the signed link of any seat of the finished game."""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, g, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext

from ..present.replay import replay_page
from ..services import inputs
from ..services.play import games
from .access import dm, message, seat_link

bp = Blueprint("replay", __name__)

MAX_ROUND = 10_000


def _round_arg() -> int | None:
    raw = request.args.get("round", "")
    number = inputs.small_int(raw, 6)
    return None if number is None else min(number, MAX_ROUND)


@bp.get("/s/<token>/replay")
@seat_link
def seat_replay(token: str) -> ResponseReturnValue:
    """One round of the replay, with links to the other rounds; a running game shows nothing of it (409)."""
    game = games.finished(dm().db, g.seat.game_id)
    if game is None:
        text = gettext("The replay, with every secret revealed, can be seen once the game is over.")
        return message(gettext("Game still running"), text, 409, token)

    def round_url(number: int) -> str:
        return url_for("replay.seat_replay", token=token, round=number)

    return show(game, g.language, round_url, url_for("pages.seat", token=token), token)


def show(
    game: games.Finished, lang: str, round_url: Callable[[int], str], back_url: str, token: str | None = None
) -> ResponseReturnValue:
    """The replay page of a finished ``game`` at the round the query asks for (``?round=``), for a seat's player
    (``token``) or the organiser."""
    return render_template(
        "replay.html", token=token, round_url=round_url, back_url=back_url, **replay_page(lang, game, _round_arg())
    )
