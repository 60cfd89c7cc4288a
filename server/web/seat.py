"""The seat pages, reached by signed links: the game page, its live fragment, and one-tap answers from mails.
A GET changes nothing (during a session of play hours it only records that the seat's page was seen:
``seats.visit``); answers are POSTed by forms (the page's, or a one-tap link's confirm page)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from flask import Blueprint, g, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext

import engine
from engine.shapes import JSON

from ..models import utcnow
from ..present import board
from ..present.chat import page as chat_page
from ..present.seat import (
    STANDING_ANSWER_SELECTS,
    SeatShown,
    newest_first,
    panels,
    seat_shown,
    session_shown,
    standing_answer_lines,
    standing_answer_selects,
)
from ..services import inputs
from ..services.attendance import prefs
from ..services.errors import ShownError
from ..services.notify import nudges
from ..services.play import autopilot, chat, seats, standing_answers, turns
from ..services.play.live import stamps
from ..text.glossary import colour_name
from ..text.grammar import CommandError, parse_reply
from ..text.sentences import describe_answer
from .access import dm, message, reader_language, say, seat_link

bp = Blueprint("pages", __name__)

#: with the live server's stream (``settings.live_url``), how often a page still asks for its live part (seconds):
#: a safety net for a stream a proxy cut; outside sessions of play hours, the stream says when to ask.
LIVE_POLL = 300
#: the longest command a one-tap link or the page's command field may carry.
MAX_COMMAND = 300


@bp.get("/healthz")
def health() -> ResponseReturnValue:
    return {"ok": True}


@bp.get("/")
def home() -> ResponseReturnValue:
    """Where ``deadmail up`` sends people: what deadmail is, a picture of the board, how players and organisers get in
    (in the browser's language)."""
    return render_template("home.html", board=board.sample_board(reader_language()))


def _page(token: str) -> dict[str, Any]:
    """Everything seat.html and seat_live.html show, from the seat's own view and request only."""
    now = utcnow()
    visit = seats.visit(dm().db, g.seat.seat_id, now)
    state = seats.seat_view(dm().db, g.seat.seat_id, now)
    shown = seat_shown(g.language, state, now)
    # every answer is in: the worker moves the game on now, so the page asks again soon (a browser without JavaScript
    # reloads itself: seat.html), and shows the next decision without a reload
    moving = state["window"] is not None and state["window"]["completed"]
    # the notice of a saved answer or of coming back, also in the live fragment, whose address keeps the page's
    # "saved"/"back": once the game moved on, the next poll says that decision is closed
    kept: dict[str, Any] = {key: request.args[key][:12] for key in ("saved", "back") if key in request.args}
    settings = dm().settings
    poll = seats.POLL_MOVING_ON if moving else visit.poll
    if settings.live_url and not moving and visit.session_end is None:
        poll = LIVE_POLL
    return {
        "token": token,
        "shown": shown,
        "panels": panels(g.language, state, now, shown.names),
        # the live server's stream of this game's changes, and the stamp this page was drawn at (services.play.live)
        "live_stream": f"{settings.live_url}/live/{token}" if settings.live_url else None,
        "stamp": stamps(dm().db, [g.seat.game_id]).get(g.seat.game_id, "") if settings.live_url else "",
        "poll": poll,
        "moving": moving,
        "session": None if visit.session_end is None else session_shown(g.language, visit, now, g.timezone),
        # who is on their page now, in every game (the live server records the open pages; public, as in sessions)
        "here": [colour_name(g.language, colour) for colour in visit.here],
        "history": newest_first(shown.history),
        # the location the decision is about, framed on the board
        "board": board.board_svg(
            shown.view, g.language, shown.colour, shown.names, asked=shown.decision.where if shown.decision else None
        ),
        "max_command": MAX_COMMAND,
        # once the game is over: its replay, every secret revealed (server/web/replay.py)
        "replay_url": url_for("replay.seat_replay", token=token) if shown.outcome is not None else None,
        "live_url": url_for("pages.live", token=token, **kept),
        "notice": _notice(shown),
    }


#: how a link was reached (``?via=``, set in notifications, their chat messages and mails): the channel that reached the
#: player, recorded (``nudges.opened``).
CHANNELS = ("push", "chat", "mail")


@bp.get("/s/<token>")
@seat_link
def seat(token: str) -> ResponseReturnValue:
    via = request.args.get("via", "")
    if via in CHANNELS:
        nudges.opened(dm().db, g.seat.seat_id, inputs.small_int(request.args.get("n", ""), 12) or 0, via, utcnow())
    page = _page(token)
    table = chat.table(dm().db, g.seat.seat_id)
    talk = chat_page(
        g.language, table.channels, table.colour, table.colours, running=table.running, tz=g.timezone, now=utcnow()
    )
    settings = standing_answers.seat_settings(dm().db, g.seat.seat_id)
    answer_for_me = {
        "selects": standing_answer_selects(g.language, settings["seat"], settings["defaults"]),
        "lines": standing_answer_lines(g.language, settings["answering"]),
        "saved": request.args.get("standing") == "saved",
    }
    key = dm().settings.vapid_public_key
    return render_template("seat.html", chat=talk, answer_for_me=answer_for_me, notify_key=key, **page)


def _notice(shown: SeatShown) -> str | None:
    """The page's notice: an answer saved (the notice belongs to the decision it saved; once that window closed,
    because the answer was the last one owed or the game moved on, it says so instead of offering to change it),
    or back from the autopilot."""
    if request.args.get("back") == "1" and not shown.autopilot:
        return "back"
    notice = _saved_notice(g.seat.seat_id, request.args.get("saved", ""), shown.window)
    if notice == "open" and shown.decision is not None and not shown.decision.can_change:
        notice = "complete"  # every answer is in: the window closes now, the answer can no longer change
    return notice


def _saved_notice(seat_id: int, saved: str, window: int | None) -> str | None:
    """Which "answer saved" notice the page shows: ``open`` while the saved window is open, ``closed`` once it
    closed with the seat's answer in it (it was the last one owed, or the page is reloaded later)."""
    number = inputs.small_int(saved, 9)
    if number is None or (window is not None and number > window):
        return None
    if number == window:
        return "open"
    return "closed" if seats.answered(dm().db, seat_id, number) else None


@bp.get("/s/<token>/live")
@seat_link
def live(token: str) -> ResponseReturnValue:
    """The changing part of the seat page (decision, board, history) as a fragment, polled by htmx."""
    return render_template("seat_live.html", **_page(token))


# --- one-tap answers from mails: a GET shows what the link would answer, only the POSTed form answers ------------


class _Refused(Exception):
    """A one-tap link that cannot answer; carries the page to show (nothing was changed)."""

    def __init__(self, title: str, text: str, status: int, token: str | None = None) -> None:
        super().__init__(text)
        self.page = message(title, text, status, token)


@dataclass(frozen=True)
class _Tap:
    state: seats.SeatState
    window: seats.SeatWindow
    #: the window's request (the seat owes one: a tap answers it).
    request: engine.RequestJSON
    command: str
    answer: JSON


def _one_tap(token: str, values: Any) -> _Tap:
    """What a one-tap link (or its confirm form) answers, checked against the seat's open request now."""
    state = seats.seat_view(dm().db, g.seat.seat_id)
    window = state["window"]
    if window is None or window["request"] is None or str(values.get("w", "")).strip() != str(window["number"]):
        closed = gettext("This decision is closed: the game has moved on. Nothing was changed.")
        raise _Refused(gettext("Decision closed"), closed, 409, token)
    command = str(values.get("c", ""))
    if not command.strip() or len(command) > MAX_COMMAND or "\n" in command or "\r" in command:
        raise _Refused(gettext("Not understood"), gettext("This link does not hold an answer."), 400, token)
    try:
        answer = parse_reply(command, window["request"], state["view"], g.language)
    except CommandError:
        text = gettext("“%(command)s” is not an answer you can give now. Nothing was changed.", command=command)
        raise _Refused(gettext("Not understood"), text, 400, token) from None
    return _Tap(state, window, window["request"], command, answer)


def _tapped(view: Callable[[str, _Tap], ResponseReturnValue]) -> Callable[[str], ResponseReturnValue]:
    """A one-tap view, given what its link (GET) or form (POST) answers; the page of a refusal otherwise."""

    @wraps(view)
    def checked(token: str) -> ResponseReturnValue:
        try:
            tap = _one_tap(token, request.args if request.method == "GET" else request.form)
        except _Refused as refused:
            return refused.page
        return view(token, tap)

    return checked


@bp.get("/s/<token>/do")
@seat_link
@_tapped
def one_tap(token: str, tap: _Tap) -> ResponseReturnValue:
    """The confirm page of a one-tap link: what the link would answer; opening it changes nothing."""
    shown = seat_shown(g.language, tap.state, utcnow())
    assert shown.decision is not None
    previous = tap.window["answer"]
    return render_template(
        "confirm.html",
        token=token,
        shown=shown,
        meaning=describe_answer(g.language, tap.request, tap.answer),
        previous=None if previous is None else describe_answer(g.language, tap.request, previous),
        command=tap.command,
    )


@bp.post("/s/<token>/do")
@seat_link
@_tapped
def one_tap_confirm(token: str, tap: _Tap) -> ResponseReturnValue:
    """The confirmed answer (a one-tap link's, or the page's form), stored like every answer."""
    number = tap.window["number"]
    try:
        turns.submit_answer(
            dm().db,
            g.seat.seat_id,
            tap.request["kind"],
            tap.answer,
            generation=g.seat.generation,
            window_number=number,
        )
    except turns.AnswerError as exc:
        return message(gettext("Answer not taken"), say(exc), exc.status, token)
    return redirect(url_for("pages.seat", token=token, saved=number), code=303)


# --- standing answers: the seat page's form, and the mails' one-tap "turn off" links ------------------------------


@bp.post("/s/<token>/standing")
@seat_link
def save_standing(token: str) -> ResponseReturnValue:
    """The seat page's "Answer for me" form: each select's value ("" follows the player's preferences)."""
    changes = {key: request.form.get(f"standing_{key}", "") or None for key in STANDING_ANSWER_SELECTS}
    try:
        prefs.set_seat_standing(dm().db, g.seat.seat_id, changes)
    except ShownError as exc:
        return message(gettext("Not saved"), say(exc) + " " + gettext("Nothing was changed."), 422, token)
    return redirect(url_for("pages.seat", token=token, standing="saved"), code=303)


def _off_line() -> tuple[str, dict[str, str] | None]:
    """The setting a turn-off link names, and its line while it answers for the seat (None once off)."""
    key = str(request.values.get("k", ""))[:20]
    lines = standing_answer_lines(g.language, standing_answers.seat_settings(dm().db, g.seat.seat_id)["answering"])
    return key, next((line for line in lines if line["key"] == key), None)


@bp.get("/s/<token>/standing/off")
@seat_link
def standing_off(token: str) -> ResponseReturnValue:
    """The confirm page of a mail's "turn off" link: opening it changes nothing."""
    key, line = _off_line()
    if line is None:
        text = gettext("This standing answer is already off: you will be asked. Nothing was changed.")
        return message(gettext("Already off"), text, 200, token)
    return render_template("standing_answer_off.html", token=token, line=line, key=key)


@bp.post("/s/<token>/standing/off")
@seat_link
def standing_off_confirm(token: str) -> ResponseReturnValue:
    key, line = _off_line()
    if line is not None:
        try:
            prefs.standing_off(dm().db, g.seat.seat_id, key)
        except ShownError as exc:
            return message(gettext("Not saved"), say(exc), 409, token)
    return redirect(url_for("pages.seat", token=token, standing="saved"), code=303)


# --- "I'm back": the autopilot mail's one-tap link and the seat page's button -----------------------------------


@bp.get("/s/<token>/back")
@seat_link
def back_confirm(token: str) -> ResponseReturnValue:
    """The confirm page of the autopilot mail's "I'm back" link: opening it changes nothing."""
    shown = seat_shown(g.language, seats.seat_view(dm().db, g.seat.seat_id), utcnow())
    if not shown.autopilot and not shown.away_until:
        return message(gettext("Nothing to do"), gettext(autopilot.NOT_AWAY), 200, token)
    return render_template("back.html", token=token, shown=shown)


@bp.post("/s/<token>/back")
@seat_link
def back(token: str) -> ResponseReturnValue:
    """I'm back: the seat's autopilot ends from the next decision on (``autopilot.back``)."""
    try:
        autopilot.back(dm().db, g.seat.seat_id, generation=g.seat.generation)
    except ShownError as exc:
        return message(gettext("Nothing to do"), say(exc), 409, token)
    return redirect(url_for("pages.seat", token=token, back="1"), code=303)
