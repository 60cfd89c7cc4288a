"""Rate limits (Flask-Limiter), one limiter per app: counted in memory in the embedded default, in Redis when the
broker is Redis (so every web process shares the counts).

Per client address: answering (``POST /s/<token>/answer``, ``POST /s/<token>/do``, ``POST /api/seat/<token>/answer``)
``DEADMAIL_ANSWERS_PER_MINUTE`` (default 30), the pages a link opens (``GET /s/<token>``, ``/s/<token>/live``,
``/s/<token>/do``, ``/p/<token>``) ``DEADMAIL_LINKS_PER_MINUTE`` (default 120). Beyond: 429, a friendly page (JSON
under /api/)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, current_app, jsonify, render_template, request
from flask_babel import gettext
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from .config import Settings

#: endpoints that store an answer.
ANSWERING = ("pages.answer", "pages.one_tap_confirm", "api.answer")
#: endpoints that open a page from a link.
LINK_PAGES = ("pages.seat", "pages.live", "pages.one_tap", "prefs.show", "replay.seat_replay")


def init_app(app: Flask, settings: Settings, limited: dict[Blueprint, object]) -> Limiter:
    """A limiter for ``app``; ``limited`` maps blueprints to their limit (a string or a callable giving one)."""
    redis = settings.broker_url.startswith(("redis://", "rediss://"))
    app.config.setdefault("RATELIMIT_STORAGE_URI", settings.broker_url if redis else "memory://")
    app.config.setdefault("RATELIMIT_KEY_PREFIX", settings.queue)  # installations sharing a Redis never meet
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", True)
    app.config.setdefault("RATELIMIT_STRATEGY", "moving-window")  # exact: no burst, no slack at a minute edge
    limiter = Limiter(get_remote_address, app=app)
    for blueprint, limit in limited.items():
        limiter.limit(limit)(blueprint)  # type: ignore[arg-type]
    app.register_error_handler(429, too_many)
    return limiter


def answers_rate() -> str:
    return f"{int(current_app.config['DEADMAIL_ANSWERS_PER_MINUTE'])}/minute"


def links_rate() -> str:
    return f"{int(current_app.config['DEADMAIL_LINKS_PER_MINUTE'])}/minute"


def limit_endpoints(app: Flask, limiter: Limiter) -> None:
    """Answering and link pages get their limits, each counted across its endpoints; call once every blueprint is
    registered."""
    for endpoints, rate, scope in ((ANSWERING, answers_rate, "answers"), (LINK_PAGES, links_rate, "links")):
        for endpoint in endpoints:
            view = app.view_functions.get(endpoint)
            if view is not None:
                app.view_functions[endpoint] = limiter.shared_limit(rate, scope=scope)(view)  # type: ignore[assignment]


def too_many(_exc: Exception) -> Any:
    """429: a page saying to wait a minute (JSON for the API)."""
    message = gettext("Too many requests from your connection: wait a minute, then try again.")
    if request.path.startswith("/api/"):
        reply = jsonify({"ok": False, "error": message})
    else:
        reply = current_app.make_response(render_template("message.html", title=gettext("Slow down"), message=message))
    reply.status_code = 429
    reply.headers["Retry-After"] = "60"
    return reply
