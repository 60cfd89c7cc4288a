"""Replies by mail over HTTP: ``POST /inbound/mail``, for mail providers that forward inbound mail to a URL.

Authorised by ``Authorization: Bearer <DEADMAIL_API_TOKEN>``. The body is either the raw message
(``Content-Type: message/rfc822``; the recipient in an ``X-Original-To`` header or ``?to=``) or JSON
``{"to", "from", "subject", "text", "html", "message_id", "headers"}`` (``mail.webhook``). Answers
``{"ok": true, "status": ...}`` (the statuses of ``mail.replies.receive``); 503 when the database is unavailable,
so the provider retries.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import RequestEntityTooLarge

from ..mail import replies
from ..mail.webhook import message_from_json
from ..services.inputs import parse_json
from .access import bearer_is_organiser, dm, json_error

bp = Blueprint("webhook", __name__, url_prefix="/inbound")


def rate() -> str:
    """Calls per minute and client (DEADMAIL_INBOUND_PER_MINUTE; more: 429, the provider retries later)."""
    return f"{int(current_app.config['DEADMAIL_INBOUND_PER_MINUTE'])}/minute"


@bp.errorhandler(429)
def too_many(_exc: Exception) -> Response:
    return json_error("Too many messages: try again in a minute.", 429)


@bp.post("/mail")
def inbound_mail() -> ResponseReturnValue:
    if not bearer_is_organiser():
        return json_error("This call needs the API token (Authorization: Bearer …).", 401)
    request.max_content_length = replies.MAX_MESSAGE
    try:
        body = request.get_data(cache=False)
    except RequestEntityTooLarge:
        return json_error("The message is too large (at most 1 MiB).", 413)
    kind = (request.mimetype or "").lower()
    if kind == "message/rfc822":
        recipients = request.args.getlist("to") + request.headers.getlist("X-Original-To")
        raw = body
    elif kind == "application/json":
        try:
            raw, recipients = message_from_json(parse_json(body or b"null", strict=False))
        except ValueError as exc:
            return json_error(f"Malformed message: {str(exc)[:200]}", 400)
    else:
        return json_error("Send message/rfc822 (the raw message) or application/json.", 415)
    try:
        received = replies.receive(dm().db, dm().settings, raw, recipients[:20])
    except replies.Unavailable:
        return json_error("Temporarily unavailable: try again later.", 503)
    return jsonify({"ok": True, "status": received.status})
