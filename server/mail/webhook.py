"""Inbound mail handed over by a provider's webhook (``POST /inbound/mail``, the view in ``server/web/webhook.py``):
either the raw message, or JSON ``{"to", "from", "subject", "text", "html", "message_id", "headers"}`` made into
one here, then taken like a mail received over SMTP (``replies.receive``)."""

from __future__ import annotations

from email.message import EmailMessage
from typing import Any

#: the longest text or HTML body taken from JSON.
MAX_FIELD = 50_000


def _text(data: dict[str, Any], key: str, limit: int = 998) -> str:
    value = data.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    if len(value) > limit:
        raise ValueError(f"{key} is too long")
    return value


def message_from_json(data: Any) -> tuple[bytes, list[str]]:
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
