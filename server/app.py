"""The Flask application factory."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask
from flask_wtf.csrf import CSRFProtect

from . import i18n
from .config import Settings
from .db import Database
from .queue import Queue

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Deadmail:
    """What every view needs: settings, the database, the task queue."""

    settings: Settings
    db: Database
    queue: Any


def create_app(settings: Settings | None = None, db: Database | None = None, queue: Any = None) -> Flask:
    settings = settings or Settings.from_env()
    app = Flask(__name__, template_folder=str(ROOT / "templates"))
    app.config.update(
        SECRET_KEY=settings.secret_key,
        MAX_CONTENT_LENGTH=64 * 1024,
        JSON_SORT_KEYS=False,
        # signed links open pages for weeks; a form's CSRF token lives as long as the browser session
        WTF_CSRF_TIME_LIMIT=None,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=settings.base_url.startswith("https://"),
        DEADMAIL_INBOUND_PER_MINUTE=settings.inbound_per_minute,
    )
    app.extensions["deadmail"] = Deadmail(settings, db or Database(settings.database_url), queue or Queue(settings))

    from . import api, limits, mailbox, pages, prefs_pages, webhook

    i18n.init_app(app)
    csrf = CSRFProtect(app)
    csrf.exempt(api.bp)  # the JSON API authenticates each call by its token, not by a cookie
    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)
    csrf.exempt(webhook.bp)  # replies by mail over HTTP: authorised by the API token, not a cookie
    limits.init_app(app, settings, {webhook.bp: webhook.rate})
    app.register_blueprint(webhook.bp)
    app.register_blueprint(prefs_pages.bp)
    app.register_blueprint(mailbox.bp)
    return app
