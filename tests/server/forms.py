"""Posting forms as a browser does: with the CSRF token of the client's session."""

from __future__ import annotations

from typing import Any

from flask_wtf.csrf import generate_csrf


def csrf_token(client: Any, app: Any) -> str:
    """A CSRF token valid for ``client``'s session, as a page the client opened would have given it."""
    with client.session_transaction() as session, app.test_request_context():
        from flask import session as ctx_session

        token = generate_csrf()
        session["csrf_token"] = ctx_session["csrf_token"]
    return token
