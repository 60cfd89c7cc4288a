"""The Flask application factory."""

from __future__ import annotations

from flask import Flask
from flask_wtf.csrf import CSRFProtect
from werkzeug.middleware.proxy_fix import ProxyFix

from ..config import ROOT, Settings
from ..db import Database
from ..text import i18n, zones
from . import (
    access,
    api,
    api_leagues,
    chat,
    guard,
    invitations,
    league_organiser,
    league_setup,
    leagues,
    lobby,
    logs,
    mailbox,
    notify,
    organiser,
    prefs,
    replay,
    seat,
    signin,
    standings,
    unsubscribe,
    webhook,
)


def create_app(settings: Settings, db: Database) -> Flask:
    """The web app of one installation. ``db`` hands its after-commit work (advances, mail) to the task queue
    (``server.run.queue.Queue``); without tasks it is left to the sweep."""
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
        DEADMAIL_CSP=access.csp(settings.live_url),
    )
    if settings.trusted_proxies:  # behind reverse proxies: the client (rate limits), scheme and host they were told
        n = settings.trusted_proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n)  # type: ignore[method-assign]
    app.extensions["deadmail"] = access.Deadmail(settings, db)
    i18n.init_app(app)
    # for templates/_zones.html's zone_select
    app.jinja_env.globals.update(zone_groups=zones.zone_groups, zone_names=zones.zone_names)
    csrf = CSRFProtect(app)
    # the JSON API and the mail webhook authenticate each call by its token, not by a cookie
    csrf.exempt(api.bp)
    csrf.exempt(api_leagues.bp)
    csrf.exempt(webhook.bp)
    # RFC 8058: a mailbox provider's one-click POST carries no cookie; its signed address is the proof
    csrf.exempt(unsubscribe.bp)
    guard.init_app(app)  # sizes, JSON depth, NUL and surrogates, ids in range: before the blueprints' routes
    limits = {webhook.bp: webhook.rate, chat.bp: "30/minute", notify.bp: "30/minute"}
    limiter = access.init_limits(app, settings, limits)
    for blueprint in (
        api.bp,
        api_leagues.bp,  # /api/leagues, /api/seasons, /api/l/…: leagues' JSON API
        seat.bp,  # the seat page, one-tap answers, the home page
        webhook.bp,  # POST /inbound/mail
        prefs.bp,  # /p/<token>: preferences
        unsubscribe.bp,  # /unsubscribe/<token>: a mail's one-click unsubscribe (RFC 8058)
        signin.bp,  # /signin, /signin/<token>, /me, /signout: players sign in by mail
        lobby.bp,  # /games/new, /games/<id>, /g/<token>, /invited/<token>, /lobby, /api/lobby: players' own games
        notify.bp,  # /s/<token>/devices, /p/<token>/devices, /p/<token>/notify: devices and how a player is told
        notify.installable,  # manifests and /sw.js: the installable table
        mailbox.bp,  # /mail/<token>: mail written to files
        chat.bp,  # POST /s/<token>/chat: table talk
        replay.bp,  # /s/<token>/replay
        organiser.bp,  # /o/…
        league_setup.bp,  # /o/leagues: every league, a new one
        invitations.bp,  # /i/<key>: a seat offered to a substitute
        leagues.bp,  # /l/<token>: a league's sign-up, /l/confirm/<token>: its confirmation
        league_organiser.bp,  # /lo/<token>: a league's organiser pages (seasons, rounds)
        standings.bp,  # /p/<token>/season/<id>, /ls/<token>: standings; /lo/<token>/season/<id>/…: results
    ):
        app.register_blueprint(blueprint)
    access.limit_endpoints(app, limiter)  # answering and link pages, once every route is registered
    access.init_app(app)  # one handler for invalid links and refused forms; CSP, nosniff, referrer policy
    logs.init_app(app)  # request paths in log lines with their link tokens cut
    return app
