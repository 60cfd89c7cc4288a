"""What comes in, checked before a view trusts it; each refusal a clear 4xx and nothing changed.

- Sizes: a body over ``MAX_CONTENT_LENGTH`` (64 KiB; the mail webhook takes up to 1 MiB) is answered 413: JSON
  under /api/ and /inbound/, a page elsewhere.
- JSON (``json_body`` for views; ``services.inputs.parse_json`` for a body already read): nesting deeper than
  ``MAX_DEPTH`` is refused *before* parsing, so a deep body never reaches the recursive parser; a body that is not
  JSON, or (by default) holds a NUL or a lone surrogate, is refused too (400).
- Fields: a query argument, form field or path part holding a NUL or a lone surrogate (``services.inputs``) is
  refused before any view runs (400).
- Ids: ``<int:…>`` in a route takes ASCII digits up to the largest id the database holds (``MAX_ID``); a larger
  one names nothing: 404, as for any id of no row, before any query.
- Under /api/ and /inbound/ every HTTP error (404, 405, an unhandled exception's 500, …) is JSON
  ``{"ok": false, "error": ...}``.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, request
from flask.typing import ResponseReturnValue
from flask_babel import gettext
from werkzeug.exceptions import HTTPException
from werkzeug.routing import IntegerConverter, Map, ValidationError

from engine.shapes import JSON

from ..services import inputs
from ..services.inputs import InputError, parse_json
from .access import json_error, message, say

#: the largest row id (PostgreSQL's ``integer``; SQLite's is larger).
MAX_ID = 2**31 - 1

#: the bodies Flask reads as forms.
FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


class DatabaseId(IntegerConverter):
    """``<int:…>``: ASCII digits naming a row id the database can hold; any other number matches no route (404)."""

    regex = r"[0-9]+"

    def __init__(self, url_map: Map, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", MAX_ID)
        super().__init__(url_map, *args, **kwargs)

    def to_python(self, value: str) -> int:
        if len(value) > len(str(MAX_ID)):  # checked before int(): Python refuses to read very long numbers
            raise ValidationError()
        return super().to_python(value)


def json_body() -> JSON:
    """The request's JSON body (None when it is not sent as JSON); InputError as ``parse_json`` says, 413 when it
    is too large."""
    if not request.is_json:
        return None
    return parse_json(request.get_data(cache=True))


def check_fields() -> None:
    """Before every view: no NUL or lone surrogate in a query argument, form field or path part."""
    fields = list(request.args.items(multi=True))
    if request.mimetype in FORMS:  # (reading the form of another body would read that body, at the app's limit)
        fields += request.form.items(multi=True)
    texts = [text for pair in fields for text in pair]
    texts += [v for v in (request.view_args or {}).values() if isinstance(v, str)]
    if any(inputs.unstorable(text) for text in texts):
        raise InputError(inputs.BAD_CHARACTERS)


def _machine() -> bool:
    """The JSON API and the mail webhook: answered in JSON."""
    return request.path.startswith(("/api/", "/inbound/"))


def refused(exc: InputError) -> ResponseReturnValue:
    """400: the JSON API's ``{"ok": false, "error": ...}`` (in English), a translated page elsewhere."""
    if _machine():
        return json_error(str(exc), 400)
    return message(gettext("Not accepted"), say(exc), 400)


def http_error(exc: HTTPException) -> ResponseReturnValue:
    """HTTP errors (an unhandled exception is a 500): JSON for the API and the webhook; a page for a body too large
    and for an address that opens nothing; Flask's own answer otherwise."""
    if exc.code is None or exc.code < 400:
        return exc
    if _machine():
        text = exc.description or exc.name
        if exc.code == 413:
            text = f"The request is too large (at most {(request.max_content_length or 0) // 1024} KiB)."
        reply = json_error(text, exc.code)
        for name, value in exc.get_headers():
            if name.lower() != "content-type":  # e.g. the Allow of a 405
                reply.headers[name] = value
        return reply
    if exc.code == 413:
        text = gettext("What you sent is too large. Shorten it and send it again; nothing was changed.")
        return message(gettext("Too large"), text, 413)
    if exc.code == 404:  # a page of the site (a phone's width, the reader's language), not Werkzeug's bare one
        text = gettext("There is no page at this address. Check that the link was copied whole.")
        return message(gettext("Page not found"), text, 404)
    return exc


def init_app(app: Flask) -> None:
    """Call before the blueprints are registered (their ``<int:…>`` parts take ``DatabaseId``)."""
    app.url_map.converters["int"] = DatabaseId
    app.before_request(check_fields)
    app.register_error_handler(InputError, refused)
    app.register_error_handler(HTTPException, http_error)
