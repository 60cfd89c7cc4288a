"""HTML pages reached by signed links. A GET never changes anything; answers are POSTed by forms."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask import Blueprint, current_app, g, redirect, render_template, request, url_for
from flask_babel import gettext
from flask_wtf.csrf import CSRFError

from . import i18n, narrate
from .app import Deadmail
from .commands import CommandError, parse_reply
from .models import Seat, utcnow
from .services import mails, seats, turns
from .services.links import LinkError, read_token

bp = Blueprint("pages", __name__)


def dm() -> Deadmail:
    app_state: Deadmail = current_app.extensions["deadmail"]
    return app_state


def _seat(token: str) -> int:
    s = dm().settings
    return seats.seat_from_token(dm().db, s.secret_key, token, s.link_max_age)


def _reader(seat_id: int) -> None:
    """Pages of a seat speak its player's language and give times in their zone (``flask.g``, read by i18n)."""
    with dm().db.session() as session:
        seat = session.get(Seat, seat_id)
        player = seat.player if seat is not None else None
        g.language = i18n.language(player.language if player is not None else "en")
        g.timezone = player.timezone if player is not None else "UTC"


@bp.app_errorhandler(CSRFError)
def csrf_refused(_exc: CSRFError) -> Any:
    message = gettext("This form has expired or did not come from this site. Open your link again and resend it.")
    return render_template("message.html", title=gettext("Form not accepted"), message=message), 400


@bp.get("/healthz")
def health() -> Any:
    return {"ok": True}


@bp.get("/s/<token>")
def seat(token: str) -> Any:
    try:
        seat_id = _seat(token)
    except LinkError as exc:
        return render_template("message.html", title=gettext("Link not valid"), message=str(exc)), 403
    _reader(seat_id)
    try:
        data = seats.seat_view(dm().db, seat_id)
    except LinkError as exc:
        return render_template("message.html", title=gettext("Link not valid"), message=str(exc)), 403
    notice = request.args.get("saved")
    return render_template("seat.html", token=token, data=data, notice=notice, json=json)


@bp.post("/s/<token>/answer")
def answer(token: str) -> Any:
    s = dm().settings
    try:
        seat_id, generation = read_token(s.secret_key, token, s.link_max_age)
    except LinkError as exc:
        return render_template("message.html", title=gettext("Link not valid"), message=str(exc)), 403
    raw = request.form.get("answer", "")
    try:
        value = json.loads(raw)
        window = int(request.form.get("window", ""))
    except ValueError:
        _reader(seat_id)
        title, message = gettext("Not understood"), gettext("The answer could not be read.")
        return render_template("message.html", title=title, message=message), 400
    try:
        turns.submit_answer(
            dm().db,
            seat_id,
            request.form.get("kind", "")[:20],
            value,
            generation=generation,
            window_number=window,
            kick=dm().queue.advance,
        )
    except LinkError as exc:
        _reader(seat_id)
        return render_template("message.html", title=gettext("Link not valid"), message=str(exc)), 403
    except turns.AnswerError as exc:
        _reader(seat_id)
        title = gettext("Answer not taken")
        return render_template("message.html", title=title, message=str(exc), token=token), exc.status
    return redirect(url_for("pages.seat", token=token, saved="1"), code=303)


# --- one-tap answers from mails: a GET shows what the link would answer, only the POSTed form answers ------------

MAX_COMMAND = 300


class _Refused(Exception):
    """A one-tap link that cannot answer; carries the page to show (nothing was changed)."""

    def __init__(self, title: str, message: str, status: int, token: str | None = None) -> None:
        super().__init__(message)
        self.page = render_template("message.html", title=title, message=message, token=token), status


@dataclass(frozen=True)
class _Tap:
    seat_id: int
    generation: int
    data: dict[str, Any]
    window: dict[str, Any]
    command: str
    answer: Any


def _one_tap(token: str, values: Any) -> _Tap:
    """What a one-tap link (or its confirm form) answers, checked against the seat's open request now."""
    s = dm().settings
    try:
        seat_id = seats.seat_from_token(dm().db, s.secret_key, token, s.link_max_age)
        generation = read_token(s.secret_key, token, s.link_max_age)[1]
    except LinkError as exc:
        raise _Refused(gettext("Link not valid"), str(exc), 403) from None
    _reader(seat_id)
    data = seats.seat_view(dm().db, seat_id)
    window = data["window"]
    if window is None or window["request"] is None or str(values.get("w", "")).strip() != str(window["number"]):
        closed = gettext("This decision is closed: the game has moved on. Nothing was changed.")
        raise _Refused(gettext("Decision closed"), closed, 409, token)
    command = str(values.get("c", ""))
    if not command.strip() or len(command) > MAX_COMMAND or "\n" in command or "\r" in command:
        raise _Refused(gettext("Not understood"), gettext("This link does not hold an answer."), 400, token)
    try:
        answer = parse_reply(command, window["request"], data["view"], g.language)
    except CommandError:
        message = gettext("“%(command)s” is not an answer you can give now. Nothing was changed.", command=command)
        raise _Refused(gettext("Not understood"), message, 400, token) from None
    return _Tap(seat_id, generation, data, window, command, answer)


@bp.get("/s/<token>/do")
def one_tap(token: str) -> Any:
    """The confirm page of a one-tap link: what the link would answer; opening it changes nothing."""
    try:
        tap = _one_tap(token, request.args)
    except _Refused as refused:
        return refused.page
    lang, request_json = g.language, tap.window["request"]
    deadline, relative = i18n.format_when(datetime.fromisoformat(tap.window["deadline"]), utcnow(), g.timezone, lang)
    previous = tap.window["answer"]
    return render_template(
        "confirm.html",
        token=token,
        label=mails.game_label(lang, tap.data["game"]["id"], tap.data["game"]["title"] or ""),
        colour=narrate.colour_name(lang, tap.data["seat"]["colour"]),
        request_text=narrate.request_text(lang, request_json),
        meaning=mails.describe_answer(lang, request_json, tap.answer),
        previous=None if previous is None else mails.describe_answer(lang, request_json, previous),
        command=tap.command,
        window=tap.window["number"],
        deadline=deadline,
        relative=relative,
    )


@bp.post("/s/<token>/do")
def one_tap_confirm(token: str) -> Any:
    """The confirmed one-tap answer, stored through the same path as every web answer."""
    try:
        tap = _one_tap(token, request.form)
    except _Refused as refused:
        return refused.page
    try:
        turns.submit_answer(
            dm().db,
            tap.seat_id,
            tap.window["request"]["kind"],
            tap.answer,
            generation=tap.generation,
            window_number=tap.window["number"],
            kick=dm().queue.advance,
        )
    except LinkError as exc:
        return render_template("message.html", title=gettext("Link not valid"), message=str(exc)), 403
    except turns.AnswerError as exc:
        return render_template(
            "message.html", title=gettext("Answer not taken"), message=str(exc), token=token
        ), exc.status
    return redirect(url_for("pages.seat", token=token, saved="1"), code=303)
