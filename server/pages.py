"""HTML pages reached by signed links. A GET never changes anything; answers are POSTed by forms."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask import Blueprint, g, redirect, render_template, request, url_for
from flask_babel import gettext
from flask_wtf.csrf import CSRFError

from . import i18n, narrate
from .app import dm
from .board import board_svg
from .commands import CommandError, commands_for, parse_reply
from .models import Seat, utcnow
from .services import chat, mails, seats, turns
from .services.links import LinkError, read_token

bp = Blueprint("pages", __name__)


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


@bp.get("/")
def home() -> Any:
    """Where ``deadmail up`` sends people: how players and organisers get in."""
    return render_template("home.html")


def _table(data: dict[str, Any]) -> dict[str, Any]:
    """The seat's view as the page reads it. Once the game is over ``seat_view`` gives the replay (every secret
    revealed); the page then shows its final position, and of its events those the seat saw during the game."""
    view = data["view"]
    if "state" not in view:
        return dict(view)
    colour = data["seat"]["colour"]
    state = view["state"]
    return {
        "players": list(view["config"]["players"]),
        **{k: v for k, v in state.items() if k not in ("hands", "deck", "dice")},
        "hidden": [],
        "hand_sizes": {p: len(h) for p, h in state["hands"].items()},
        "waiting_for": [],
        "outcome": view["outcome"],
        "over": True,
        "you": colour,
        "hand": list(state["hands"].get(colour, [])),
        "dice": None,
        "requests": [],
        "events": [
            {k: v for k, v in e.items() if k != "to"}
            for e in view["events"]
            if e.get("to") is None or colour in e["to"]
        ],
    }


def history(lang: str, events: list[dict[str, Any]], reader: str) -> list[dict[str, Any]]:
    """The view's events as sentences, grouped by round (``round_started`` opens one), newest round and newest
    line first."""
    t = i18n.translations(lang)
    rounds: list[dict[str, Any]] = [{"round": 0, "title": t.gettext("Setting up"), "lines": []}]
    for event in events:
        if event.get("type") == "round_started":
            number = int(event.get("round") or 0)
            rounds.append({"round": number, "title": t.gettext("Round %(number)s") % {"number": number}, "lines": []})
        rounds[-1]["lines"].append(narrate.event_text(lang, event, reader))
    for group in rounds:
        group["lines"].reverse()
    return [group for group in reversed(rounds) if group["lines"]]


def _decision(lang: str, view: dict[str, Any], window: dict[str, Any]) -> dict[str, Any]:
    """The open request as a form: each legal command with what it means, and the stored answer."""
    request_json = window["request"]
    stored = window["answer"]
    choices = []
    for line in commands_for(request_json, view, lang):
        try:
            meaning = parse_reply(line, request_json, view, lang)
        except CommandError:  # commands_for lists only legal commands; never shown without a meaning
            continue
        choices.append(
            {
                "command": line,
                "label": mails.describe_answer(lang, request_json, meaning),
                "checked": stored is not None and meaning == stored,
            }
        )
    truck = None
    if request_json.get("kind") == "truck":
        truck = [narrate.card_entry(lang, c) for c in request_json.get("cards") or []]
    return {
        "text": narrate.request_text(lang, request_json, view.get("phase")),
        "choices": choices,
        "answer": None if stored is None else mails.describe_answer(lang, request_json, stored),
        "truck": truck,
    }


def seat_context(token: str, data: dict[str, Any]) -> dict[str, Any]:
    """Everything seat.html shows, from the seat's view and its own request row only."""
    lang = g.language
    view = _table(data)
    colour = data["seat"]["colour"]
    window = data["window"]
    deadline = relative = None
    if window is not None:
        deadline, relative = i18n.format_when(datetime.fromisoformat(window["deadline"]), utcnow(), g.timezone, lang)
    owing = []
    for item in view.get("waiting_for") or []:
        name = narrate.colour_name(lang, item["player"])
        if name not in owing:
            owing.append(name)
    outcome = None
    if view.get("outcome"):
        result = view["outcome"]
        outcome = {
            "winners": [narrate.colour_name(lang, c) for c in result.get("winners") or []],
            "scores": [
                {"name": narrate.colour_name(lang, c), "score": (result.get("scores") or {})[c]}
                for c in view["players"]
                if c in (result.get("scores") or {})
            ],
        }
    return {
        "token": token,
        "data": data,
        "view": view,
        "label": mails.game_label(lang, data["game"]["id"], data["game"]["title"] or ""),
        "colour": colour,
        "colour_name": narrate.colour_name(lang, colour),
        "phase": narrate.phase_name(lang, str(view.get("phase") or "setup")),
        "board": board_svg(view, lang, colour),
        "window": window,
        "decision": None if window is None or window["request"] is None else _decision(lang, view, window),
        "deadline": deadline,
        "relative": relative,
        "owing": owing,
        "hand": [narrate.card_entry(lang, c) for c in view.get("hand") or []],
        "dice": view.get("dice"),
        "history": history(lang, view.get("events") or [], colour),
        "outcome": outcome,
        "max_command": MAX_COMMAND,
    }


def _open_seat(token: str) -> tuple[int, dict[str, Any]]:
    """The seat a link opens and its view; ``_Refused`` (403) for a link that opens nothing."""
    try:
        seat_id = _seat(token)
        _reader(seat_id)
        return seat_id, seats.seat_view(dm().db, seat_id)
    except LinkError as exc:
        raise _Refused(gettext("Link not valid"), exc.translated(gettext), 403) from None


@bp.get("/s/<token>")
def seat(token: str) -> Any:
    try:
        seat_id, data = _open_seat(token)
    except _Refused as refused:
        return refused.page
    window = data["window"]
    # the notice belongs to the decision it saved: a reload after the game moved on does not repeat it
    notice = window is not None and request.args.get("saved") == str(window["number"])
    talk = chat.page_context(dm().db, seat_id, g.language)  # table talk (templates/chat.html)
    return render_template("seat.html", notice=notice, chat=talk, **seat_context(token, data))


@bp.get("/s/<token>/live")
def live(token: str) -> Any:
    """The changing part of the seat page (decision, board, history) as a fragment, polled by htmx."""
    try:
        _seat_id, data = _open_seat(token)
    except _Refused as refused:
        return refused.page
    return render_template("seat_live.html", **seat_context(token, data))


@bp.post("/s/<token>/answer")
def answer(token: str) -> Any:
    s = dm().settings
    try:
        seat_id, generation = read_token(s.secret_key, token, s.link_max_age)
    except LinkError as exc:
        return render_template("message.html", title=gettext("Link not valid"), message=exc.translated(gettext)), 403
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
        return render_template("message.html", title=gettext("Link not valid"), message=exc.translated(gettext)), 403
    except turns.AnswerError as exc:
        _reader(seat_id)
        title = gettext("Answer not taken")
        return render_template("message.html", title=title, message=exc.translated(gettext), token=token), exc.status
    return redirect(url_for("pages.seat", token=token, saved=window), code=303)


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
        raise _Refused(gettext("Link not valid"), exc.translated(gettext), 403) from None
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
        return render_template("message.html", title=gettext("Link not valid"), message=exc.translated(gettext)), 403
    except turns.AnswerError as exc:
        return render_template(
            "message.html", title=gettext("Answer not taken"), message=exc.translated(gettext), token=token
        ), exc.status
    return redirect(url_for("pages.seat", token=token, saved=tap.window["number"]), code=303)
