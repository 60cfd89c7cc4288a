"""The Flask application factory."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, current_app
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


def dm() -> Deadmail:
    """The running app's settings, database and queue (for views)."""
    state: Deadmail = current_app.extensions["deadmail"]
    return state


def create_app(settings: Settings | None = None, db: Database | None = None, queue: Any = None) -> Flask:
    settings = settings or Settings.from_env()
    app = Flask(
        __name__, template_folder=str(ROOT / "templates"), static_folder=str(ROOT / "static"), static_url_path="/static"
    )
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
        DEADMAIL_ANSWERS_PER_MINUTE=settings.answers_per_minute,
        DEADMAIL_LINKS_PER_MINUTE=settings.links_per_minute,
    )
    app.extensions["deadmail"] = Deadmail(settings, db or Database(settings.database_url), queue or Queue(settings))

    from . import (
        api,
        chat_pages,
        limits,
        mailbox,
        organiser_pages,
        pages,
        prefs_pages,
        replay_pages,
        security,
        webhook,
    )

    i18n.init_app(app)
    csrf = CSRFProtect(app)
    # the JSON API and the mail webhook authenticate each call by its token, not by a cookie
    csrf.exempt(api.bp)
    csrf.exempt(webhook.bp)
    limiter = limits.init_app(app, settings, {webhook.bp: webhook.rate, chat_pages.bp: "30/minute"})
    for blueprint in (
        api.bp,
        pages.bp,  # the seat page, answering, one-tap links
        webhook.bp,  # POST /inbound/mail
        prefs_pages.bp,  # /p/<token>: preferences
        mailbox.bp,  # /mail/<token>: mail written to files
        chat_pages.bp,  # POST /s/<token>/chat: table talk
        replay_pages.bp,  # /s/<token>/replay
        organiser_pages.bp,  # /o/…
    ):
        app.register_blueprint(blueprint)
    limits.limit_endpoints(app, limiter)  # answering and link pages, once every route is registered
    security.init_app(app)  # CSP, nosniff, referrer policy
    return app
