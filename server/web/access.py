"""Who may open what, and how fast: every view's way in.

- ``seat_link`` resolves the ``<token>`` of a seat's signed link (``g.seat``), ``player_link`` a preferences link
  (``g.player_id``), ``organiser_link`` a game's organiser link (``g.game_id``); a link that opens nothing raises
  ``LinkError``, and one error handler answers it: a translated page (403), or JSON under /api/.
- ``organiser_required``: organiser pages, for an organiser logged in with the API token (every game) or who opened
  the game's organiser link (that game only, ``game_id`` in the route). The session lives on the server
  (``services.organisers``; the cookie names it): logging out ends it for every copy of the cookie, and a new
  organiser token ends every session made with the old one.
- Rate limits (Flask-Limiter), one limiter per app, counted in memory in the embedded default and in Redis when the
  broker is Redis (so every web process shares the counts). Per client address: answering
  ``DEADMAIL_ANSWERS_PER_MINUTE`` (default 30), the pages a link opens ``DEADMAIL_LINKS_PER_MINUTE`` (default 120);
  beyond, 429: a friendly page (JSON under /api/).
- Security headers on every response: a Content-Security-Policy on HTML (unless the view set its own, as the
  mailbox does for the mail it frames), nosniff and a same-origin referrer everywhere; CSRF refusals as a page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, jsonify, render_template, request, session
from flask_babel import get_locale, gettext  # type: ignore[import-untyped,unused-ignore]
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFError
from limits import parse as parse_limit

from ..config import Settings
from ..db import Database
from ..models import pick_language
from ..services import organisers, prefs, seats
from ..services.errors import ShownError
from ..services.links import LinkError, read_organiser_token
from ..text.refusals import refusal


@dataclass
class Deadmail:
    """What every view needs: the settings and the database (whose after-commit work goes to the task queue)."""

    settings: Settings
    db: Database


def dm() -> Deadmail:
    """The running app's settings and database (for views)."""
    state: Deadmail = current_app.extensions["deadmail"]
    return state


def reader_language() -> str:
    """The language of the page being rendered: the reader's, once a view knows it, else the browser's."""
    return pick_language(str(get_locale() or "en"))


def say(exc: ShownError) -> str:
    """A service's refusal in the reader's language."""
    return refusal(exc, reader_language())


def message(title: str, text: str, status: int, token: str | None = None) -> tuple[str, int]:
    """A page that says one thing (templates/message.html); ``token`` adds a link back to the seat."""
    return render_template("message.html", title=title, message=text, token=token), status


# --- links ----------------------------------------------------------------------------------------------------------

View = Callable[..., Any]


def _link(read: Callable[[str], Any], name: str) -> Callable[[View], View]:
    """A decorator of views whose ``token`` is a link: ``g.<name>`` is what ``read(token)`` opens (LinkError when it
    opens nothing: ``link_refused`` answers)."""

    def decorator(view: View) -> View:
        @wraps(view)
        def opened(token: str, **kwargs: Any) -> Any:
            setattr(g, name, read(token))
            return view(token, **kwargs)

        return opened

    return decorator


def _seat(token: str) -> seats.SeatLink:
    s = dm().settings
    seat = seats.open_seat(dm().db, s.secret_key, token, s.link_max_age)
    g.language, g.timezone = seat.language, seat.timezone  # the page speaks its player's language, in their zone
    return seat


#: the view's ``token`` opens a seat: ``g.seat`` (``seats.SeatLink``), in its player's language and time zone.
seat_link = _link(_seat, "seat")
#: the view's ``token`` is a player's preferences link: ``g.player_id``.
player_link = _link(
    lambda token: prefs.open_player(dm().db, dm().settings.secret_key, token, dm().settings.link_max_age), "player_id"
)
#: the view's ``token`` is a game's organiser link: ``g.game_id``.
organiser_link = _link(
    lambda token: read_organiser_token(dm().settings.secret_key, token, dm().settings.link_max_age), "game_id"
)


def link_refused(exc: LinkError) -> Any:
    """The one answer to a link that opens nothing: nothing is shown of what it might have opened."""
    if request.path.startswith("/api/"):
        return jsonify({"ok": False, "error": str(exc)}), 403
    return message(gettext("Link not valid"), say(exc), 403)


# --- organisers -----------------------------------------------------------------------------------------------------


#: the session cookie's key naming the organiser's server-side session (``services.organisers``).
ORGANISER_SESSION = "organiser_session"


def _token_print() -> str:
    return organisers.fingerprint(dm().settings.secret_key, dm().settings.api_token)


def organiser_session() -> organisers.Opened | None:
    """This browser's live organiser session (read once per request); None when it has none, or it was logged out,
    has expired, or was made with an earlier organiser token."""
    if "organiser_session" not in g:
        g.organiser_session = organisers.find(dm().db, session.get(ORGANISER_SESSION), _token_print())
    opened: organisers.Opened | None = g.organiser_session
    return opened


def logged_in() -> bool:
    opened = organiser_session()
    return opened is not None and opened.every_game


def may_open(game_id: int) -> bool:
    opened = organiser_session()
    return opened is not None and opened.may_open(game_id)


def log_in() -> None:
    """The organiser token was given: a new session that opens every game (any earlier one of this browser ends)."""
    organisers.end(dm().db, session.get(ORGANISER_SESSION))
    session[ORGANISER_SESSION] = organisers.start(dm().db, _token_print())
    g.pop("organiser_session", None)


def log_out() -> None:
    """End this browser's organiser session on the server: a copy of its cookie opens nothing any more."""
    organisers.end(dm().db, session.pop(ORGANISER_SESSION, None))
    g.pop("organiser_session", None)


def remember_game(game_id: int) -> None:
    """An organiser link was opened in this browser: that game's pages open (at most the last 20 games)."""
    opened = organiser_session()
    if opened is None:
        session[ORGANISER_SESSION] = organisers.start(dm().db, _token_print(), game_id)
    else:
        organisers.add_game(dm().db, opened.id, game_id)
    g.pop("organiser_session", None)


def organiser_required(view: View) -> View:
    """Organiser pages: logged in, or (for a route with ``game_id``) the game's organiser link opened before."""

    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        game_id = kwargs.get("game_id")
        if logged_in() or (game_id is not None and may_open(game_id)):
            return view(*args, **kwargs)
        if request.method == "GET":  # the login form, which comes back here
            return render_template("organiser/login.html", error=None, next=request.path), 401
        return message(gettext("Not allowed"), gettext("Log in as the organiser first."), 401)

    return guarded


# --- rate limits ----------------------------------------------------------------------------------------------------

#: endpoints that store an answer.
ANSWERING = ("pages.one_tap_confirm", "api.answer")
#: endpoints that open a page from a link.
LINK_PAGES = ("pages.seat", "pages.live", "pages.one_tap", "prefs.show", "replay.seat_replay")
#: login attempts taken per client and minute.
LOGIN_LIMIT = "10 per minute"


def init_limits(app: Flask, settings: Settings, limited: dict[Blueprint, object]) -> Limiter:
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


def login_allowed() -> bool:
    """One more organiser login attempt from this client; Flask-Limiter's storage counts them."""
    for limiter in current_app.extensions.get("limiter") or ():
        return bool(
            limiter.limiter.hit(parse_limit(LOGIN_LIMIT), dm().settings.queue, "organiser-login", get_remote_address())
        )
    return True


def too_many(_exc: Exception) -> Any:
    """429: a page saying to wait a minute (JSON for the API)."""
    text = gettext("Too many requests from your connection: wait a minute, then try again.")
    if request.path.startswith("/api/"):
        reply = jsonify({"ok": False, "error": text})
    else:
        reply = current_app.make_response(render_template("message.html", title=gettext("Slow down"), message=text))
    reply.status_code = 429
    reply.headers["Retry-After"] = "60"
    return reply


# --- security headers -----------------------------------------------------------------------------------------------

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


def csrf_refused(_exc: CSRFError) -> Any:
    text = gettext("This form has expired or did not come from this site. Open your link again and resend it.")
    return message(gettext("Form not accepted"), text, 400)


def init_app(app: Flask) -> None:
    """The error handlers for links and forms, and the security headers."""
    app.register_error_handler(LinkError, link_refused)
    app.register_error_handler(CSRFError, csrf_refused)
    app.after_request(headers)
