"""The JSON API: organisers create and inspect games; players read their seat and answer."""

from __future__ import annotations

from flask import Blueprint, Response, g, jsonify
from flask.typing import ResponseReturnValue

from ..models import utcnow
from ..services.attendance import absences, prefs
from ..services.errors import ShownError
from ..services.links import LinkError
from ..services.play import autopilot, games, reliability, seats, standing_answers, turns
from ..text import away
from .access import bearer_is_organiser, dm, json_error, seat_link, signed_seat_link
from .guard import json_body

bp = Blueprint("api", __name__, url_prefix="/api")


def organiser() -> Response | None:
    """Organisers' calls carry ``Authorization: Bearer <DEADMAIL_API_TOKEN>``."""
    if not bearer_is_organiser():
        return json_error("This call needs the organiser's API token (Authorization: Bearer …).", 401)
    return None


@bp.post("/games")
def create_game() -> ResponseReturnValue:
    if (denied := organiser()) is not None:
        return denied
    try:
        spec = games.spec_from_json(json_body() or {})
        created = games.create_game(dm().db, spec)
    except games.GameError as exc:
        return json_error(str(exc), 400)
    s = dm().settings
    body = {
        "ok": True,
        "id": created.game_id,
        "seats": games.seat_links(dm().db, created.game_id, s.secret_key, s.base_url),
    }
    return jsonify(body), 201


@bp.post("/games/estimate")
def estimate_game() -> ResponseReturnValue:
    """How long the game of a create call's body would take (nothing is created)."""
    if (denied := organiser()) is not None:
        return denied
    try:
        figures = games.estimate_game(dm().db, games.spec_from_json(json_body() or {}))
    except games.GameError as exc:
        return json_error(str(exc), 400)
    return jsonify({"ok": True, **figures})


@bp.get("/games/<int:game_id>")
def show_game(game_id: int) -> ResponseReturnValue:
    if (denied := organiser()) is not None:
        return denied
    try:
        return jsonify(games.game_status(dm().db, game_id))
    except games.GameError as exc:
        return json_error(str(exc), 404)


@bp.get("/seat/<token>")
@seat_link
def seat(token: str) -> ResponseReturnValue:
    """What the seat's player may know now (``seats.seat_state``: the engine's view and the open request), and the
    player's own reliability over every game (``reliability``)."""
    figures = reliability.of_seat(dm().db, g.seat.seat_id)
    own = None if figures is None else figures.as_json()
    return jsonify({**seats.seat_view(dm().db, g.seat.seat_id), "reliability": own})


@bp.post("/seat/<token>/answer")
@signed_seat_link
def answer(token: str) -> ResponseReturnValue:
    """Store an answer: the link is checked in the answer's own transaction (one per answer)."""
    body = json_body()
    if not isinstance(body, dict) or "kind" not in body or "answer" not in body:
        return json_error('Send a JSON object {"kind": ..., "answer": ...} (and optionally "window").', 400)
    if not isinstance(body["kind"], str):
        return json_error('kind must be a string such as "vote".', 400)
    window = body.get("window")
    if window is not None and (not isinstance(window, int) or isinstance(window, bool)):
        return json_error("window must be the window number of your request.", 400)
    try:
        result = turns.submit_answer(
            dm().db,
            g.signed.seat_id,
            body["kind"][:20],
            body["answer"],
            generation=g.signed.generation,
            window_number=window,
        )
    except turns.AnswerError as exc:
        return json_error(str(exc), exc.status)
    return jsonify({"ok": True, "window": result.window_number, "changed": result.changed, "complete": result.complete})


@bp.get("/seat/<token>/standing")
@seat_link
def get_standing_answers(token: str) -> ResponseReturnValue:
    """The seat's standing answers: its own for this game, its player's defaults, and the effective ones."""
    return jsonify({"ok": True, **standing_answers.seat_settings(dm().db, g.seat.seat_id)})


@bp.put("/seat/<token>/standing")
@seat_link
def set_standing_answers(token: str) -> ResponseReturnValue:
    """Change the seat's standing answers for this game: ``{"camera": "look", "vote": "ask", ...}`` (``victim``: a
    list of characters, kept by the engine as the game's standing order, H-5). Refused: 400, nothing changed."""
    try:
        settings = prefs.set_seat_standing(dm().db, g.seat.seat_id, json_body())
    except ShownError as exc:
        return json_error(str(exc), 409 if exc.msgid == turns.MOVING_ON else 400)
    return jsonify({"ok": True, **settings})


# --- absences and "I'm back" ---------------------------------------------------------------------------------------


@bp.get("/seat/<token>/absences")
@seat_link
def list_absences(token: str) -> ResponseReturnValue:
    """The seat's player's absences under way or to come (UTC instants), and their time zone."""
    player_id, zone = absences.player_of(dm().db, g.seat.seat_id)
    listed = absences.listed(dm().db, player_id, utcnow())
    return jsonify({"ok": True, "timezone": zone, "absences": [absences.as_json(a) for a in listed]})


@bp.post("/seat/<token>/absences")
@seat_link
def add_absence(token: str) -> ResponseReturnValue:
    """Declare an absence of the seat's player: ``{"from": "2026-12-03", "to": "2026-12-06"}`` (the first and the
    last day, in the player's time zone) or ``{"text": "AWAY 3 DEC - 6 DEC"}``. Refused: 400, nothing changed."""
    body = json_body()
    if not isinstance(body, dict) or not ({"from", "to"} <= set(body) or isinstance(body.get("text"), str)):
        return json_error('Send {"from": "2026-12-03", "to": "2026-12-06"} or {"text": "AWAY 3 DEC - 6 DEC"}.', 400)
    player_id, zone = absences.player_of(dm().db, g.seat.seat_id)
    now = utcnow()
    try:
        text = body.get("text")
        if isinstance(text, str):
            span = away.parse_away(text[:300], g.seat.language, zone, now, command=False)
            assert span is not None  # the command word is optional here
            starts, ends = span
        else:
            starts, ends = absences.between(absences.day(body["from"]), absences.day(body["to"]), zone)
        absence_id = absences.declare(dm().db, player_id, starts, ends, now=now)
    except LinkError:
        raise
    except ShownError as exc:
        return json_error(str(exc), 400)
    shown: absences.Away = {"id": absence_id, "from": max(starts, now), "to": ends, "current": starts <= now}
    return jsonify({"ok": True, "absence": absences.as_json(shown)}), 201


@bp.delete("/seat/<token>/absences/<int:absence_id>")
@seat_link
def remove_absence(token: str, absence_id: int) -> ResponseReturnValue:
    """Remove one of the player's absences to come, or end the one under way. 404 when they have no such one."""
    player_id, _zone = absences.player_of(dm().db, g.seat.seat_id)
    try:
        absences.cancel(dm().db, player_id, absence_id)
    except absences.AbsenceError as exc:
        return json_error(str(exc), 404)
    return jsonify({"ok": True})


@bp.post("/seat/<token>/back")
@seat_link
def back(token: str) -> ResponseReturnValue:
    """The seat's player is back (``autopilot.back``): 409 when they were neither on autopilot nor away."""
    try:
        was_on = autopilot.back(dm().db, g.seat.seat_id, generation=g.seat.generation)
    except LinkError:
        raise
    except ShownError as exc:
        return json_error(str(exc), 409)
    return jsonify({"ok": True, "autopilot_was_on": was_on})
