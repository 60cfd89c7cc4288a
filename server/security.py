"""Security headers on every response: a Content-Security-Policy on HTML (unless the view set its own, as the
mailbox page does for the mail it frames), nosniff and a same-origin referrer everywhere."""

from __future__ import annotations

from flask import Flask, Response

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "frame-ancestors 'none'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-src 'self'",  # the mailbox page frames its own mail
    ]
)


def headers(response: Response) -> Response:
    if response.mimetype == "text/html" and "Content-Security-Policy" not in response.headers:
        response.headers["Content-Security-Policy"] = CSP
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


def init_app(app: Flask) -> None:
    app.after_request(headers)
