"""HTML pages reached by signed links. A GET never changes anything; answers are POSTed by forms."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from flask_wtf.csrf import CSRFError

from .app import Deadmail
from .services import seats, turns
from .services.links import LinkError, read_token

bp = Blueprint("pages", __name__)


def dm() -> Deadmail:
    app_state: Deadmail = current_app.extensions["deadmail"]
    return app_state


def _seat(token: str) -> int:
    s = dm().settings
    return seats.seat_from_token(dm().db, s.secret_key, token, s.link_max_age)


@bp.app_errorhandler(CSRFError)
def csrf_refused(_exc: CSRFError) -> Any:
    message = "This form has expired or did not come from this site. Open your link again and resend it."
    return render_template("message.html", title="Form not accepted", message=message), 400


@bp.get("/healthz")
def health() -> Any:
    return {"ok": True}


@bp.get("/s/<token>")
def seat(token: str) -> Any:
    try:
        data = seats.seat_view(dm().db, _seat(token))
    except LinkError as exc:
        return render_template("message.html", title="Link not valid", message=str(exc)), 403
    notice = request.args.get("saved")
    return render_template("seat.html", token=token, data=data, notice=notice, json=json)


@bp.post("/s/<token>/answer")
def answer(token: str) -> Any:
    s = dm().settings
    try:
        seat_id, generation = read_token(s.secret_key, token, s.link_max_age)
    except LinkError as exc:
        return render_template("message.html", title="Link not valid", message=str(exc)), 403
    raw = request.form.get("answer", "")
    try:
        value = json.loads(raw)
        window = int(request.form.get("window", ""))
    except ValueError:
        return render_template("message.html", title="Not understood", message="The answer could not be read."), 400
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
        return render_template("message.html", title="Link not valid", message=str(exc)), 403
    except turns.AnswerError as exc:
        return render_template("message.html", title="Answer not taken", message=str(exc), token=token), exc.status
    return redirect(url_for("pages.seat", token=token, saved="1"), code=303)
