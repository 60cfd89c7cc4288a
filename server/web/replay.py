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


#: a game's events are a few hundred; an index past them shows the round asked for (or the first).
MAX_EVENT = 1_000_000


def _arg(name: str, most: int) -> int | None:
    number = inputs.small_int(request.args.get(name, ""), 7)
    return None if number is None else min(number, most)


@bp.get("/s/<token>/replay")
@seat_link
def seat_replay(token: str) -> ResponseReturnValue:
    """One round of the replay, with links to the other rounds; a running game shows nothing of it (409)."""
    game = games.finished(dm().db, g.seat.game_id)
    if game is None:
        text = gettext("The replay, with every secret revealed, can be seen once the game is over.")
        return message(gettext("Game still running"), text, 409, token)

    def here(round: int | None = None, step: int | None = None) -> str:
        return url_for("replay.seat_replay", token=token, round=round, step=step)

    return show(game, g.language, here, url_for("pages.seat", token=token), token)


def show(
    game: games.Finished, lang: str, here: Callable[..., str], back_url: str, token: str | None = None
) -> ResponseReturnValue:
    """The replay page of a finished ``game`` at the round the query asks for (``?round=``), or after one of its
    events (``?step=``), for a seat's player (``token``) or the organiser; ``here(round=n)`` / ``here(step=i)``:
    this page's link to round n / to event i."""
    context = replay_page(lang, game, _arg("round", MAX_ROUND), _arg("step", MAX_EVENT))
    return render_template("replay.html", token=token, here=here, back_url=back_url, **context)
