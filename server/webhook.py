"""Replies by mail over HTTP: ``POST /inbound/mail``, for mail providers that forward inbound mail to a URL.

Authorised by ``Authorization: Bearer <DEADMAIL_API_TOKEN>``. The body is either the raw message
(``Content-Type: message/rfc822``; the recipient in an ``X-Original-To`` header or ``?to=``) or JSON
``{"to", "from", "subject", "text", "html", "message_id", "headers"}``. Answers ``{"ok": true, "status": ...}``
(the statuses of ``services.replies.receive``); 503 when the database is unavailable, so the provider retries.
"""

from __future__ import annotations

import hmac
from email.message import EmailMessage
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from .api import error
from .app import dm
from .services import replies

bp = Blueprint("webhook", __name__, url_prefix="/inbound")


def rate() -> str:
    """Calls per minute and client (DEADMAIL_INBOUND_PER_MINUTE; more: 429, the provider retries later)."""
    return f"{int(current_app.config['DEADMAIL_INBOUND_PER_MINUTE'])}/minute"


@bp.errorhandler(429)
def too_many(_exc: Exception) -> tuple[Response, int]:
    return error("Too many messages: try again in a minute.", 429)


MAX_FIELD = 50_000


def _authorised() -> bool:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    return (
        scheme.lower() == "bearer"
        and bool(token)
        and hmac.compare_digest(token.encode(), dm().settings.api_token.encode())
    )


def _text(data: dict[str, Any], key: str, limit: int = 998) -> str:
    value = data.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    if len(value) > limit:
        raise ValueError(f"{key} is too long")
    return value


def _from_json(data: Any) -> tuple[bytes, list[str]]:
    """The JSON form -> a raw message and its recipients (ValueError when malformed)."""
    if not isinstance(data, dict):
        raise ValueError("send a JSON object")
    to = data.get("to")
    recipients = [to] if isinstance(to, str) else to
    if not isinstance(recipients, list) or not recipients or not all(isinstance(r, str) for r in recipients):
        raise ValueError("to must be an address or a list of addresses")
    message = EmailMessage()
    message["To"] = ", ".join(r[:320] for r in recipients[:20])
    message["From"] = _text(data, "from")
    message["Subject"] = _text(data, "subject")
    if message_id := _text(data, "message_id"):
        message["Message-ID"] = message_id
    headers = data.get("headers") or {}
    if not isinstance(headers, dict) or len(headers) > 50:
        raise ValueError("headers must be an object of at most 50 names")
    for name, value in headers.items():
        if isinstance(name, str) and isinstance(value, str) and name.lower() not in {"to", "from", "subject"}:
            message[name[:100]] = value[:998]
    text, html = _text(data, "text", MAX_FIELD), _text(data, "html", MAX_FIELD)
    message.set_content(text)
    if html:
        message.add_alternative(html, subtype="html")
    return message.as_bytes(), recipients[:20]


@bp.post("/mail")
def inbound_mail() -> Any:
    if not _authorised():
        return error("This call needs the API token (Authorization: Bearer …).", 401)
    request.max_content_length = replies.MAX_MESSAGE
    try:
        body = request.get_data(cache=False)
    except RequestEntityTooLarge:
        return error("The message is too large (at most 1 MiB).", 413)
    kind = (request.mimetype or "").lower()
    if kind == "message/rfc822":
        recipients = request.args.getlist("to") + request.headers.getlist("X-Original-To")
        raw = body
    elif kind == "application/json":
        try:
            raw, recipients = _from_json(current_app.json.loads(body or b"null"))
        except ValueError as exc:
            return error(f"Malformed message: {str(exc)[:200]}", 400)
    else:
        return error("Send message/rfc822 (the raw message) or application/json.", 415)
    state = dm()
    try:
        received = replies.receive(state.db, state.settings, raw, recipients[:20], state.queue.advance)
    except replies.Unavailable:
        return error("Temporarily unavailable: try again later.", 503)
    for outbox_id in received.outbox_ids:
        state.queue.send_mail(outbox_id)
    return jsonify({"ok": True, "status": received.status})
