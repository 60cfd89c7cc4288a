"""Inbound mail handed over by a provider's webhook (``POST /inbound/mail``, the view in ``server/web/webhook.py``):
either the raw message, or JSON ``{"to", "from", "subject", "text", "html", "message_id", "headers"}`` made into
one here, then taken like a mail received over SMTP (``replies.receive``)."""

from __future__ import annotations

from email.errors import MessageError
from email.message import EmailMessage
from typing import Any

from ..services.inputs import storable

#: the longest text or HTML body taken from JSON.
MAX_FIELD = 50_000


#: headers of the provider's copy that describe its body, not the one rebuilt here from "text" and "html".
BODY_HEADERS = ("content-", "mime-version")


def _text(data: dict[str, Any], key: str, limit: int = 998) -> str:
    """A text field; NULs dropped and lone surrogates replaced, as for a mail received over SMTP."""
    value = data.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    if len(value) > limit:
        raise ValueError(f"{key} is too long")
    return storable(value)


def message_from_json(data: object) -> tuple[bytes, list[str]]:
    """The JSON form -> a raw message and its recipients (ValueError when malformed)."""
    try:
        return _message(data)
    except (TypeError, LookupError, MessageError) as exc:  # a header the email package cannot take
        raise ValueError(f"a header cannot be used ({type(exc).__name__})") from None


def _message(data: object) -> tuple[bytes, list[str]]:
    if not isinstance(data, dict):
        raise ValueError("send a JSON object")
    to = data.get("to")
    recipients = [to] if isinstance(to, str) else to
    if not isinstance(recipients, list) or not recipients or not all(isinstance(r, str) for r in recipients):
        raise ValueError("to must be an address or a list of addresses")
    recipients = [storable(r[:320]) for r in recipients[:20]]
    message = EmailMessage()
    message["To"] = ", ".join(recipients)
    message["From"] = _text(data, "from")
    message["Subject"] = _text(data, "subject")
    if message_id := _text(data, "message_id"):
        message["Message-ID"] = message_id
    headers = data.get("headers") or {}
    if not isinstance(headers, dict) or len(headers) > 50:
        raise ValueError("headers must be an object of at most 50 names")
    for name, value in headers.items():
        if _kept(name, value, message):
            message[name[:100]] = storable(value[:998])
    text, html = _text(data, "text", MAX_FIELD), _text(data, "html", MAX_FIELD)
    message.set_content(text)
    if html:
        message.add_alternative(html, subtype="html")
    return message.as_bytes(), recipients


def _kept(name: object, value: object, message: EmailMessage) -> bool:
    """A header of ``headers`` copied into the message: texts, not one set from the other fields (a Message-ID only
    when ``message_id`` gave none), not one that describes the provider's body."""
    if not isinstance(name, str) or not isinstance(value, str):
        return False
    lower = name.lower()
    if lower in {"to", "from", "subject"} or lower.startswith(BODY_HEADERS):
        return False
    return lower != "message-id" or message.get("Message-ID") is None
