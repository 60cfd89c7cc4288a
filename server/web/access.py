"""Who may open what, and how fast: every view's way in.

- ``seat_link`` resolves the ``<token>`` of a seat's signed link (``g.seat``; ``signed_seat_link`` only checks its
  signature, for the answer, whose service checks the rest in its one transaction), ``player_link`` a preferences link
  (``g.player_id``), ``organiser_link`` a game's organiser link (``g.game_id``); a link that opens nothing raises
  ``LinkError``, and one error handler answers it: a translated page (403), or JSON under /api/.
- ``organiser_required``: organiser pages, for an organiser logged in with the API token (every game) or who opened
  the game's organiser link (that game only, ``game_id`` in the route), or a game's creator signed in as a player
  (that game only, ``CREATOR_ENDPOINTS`` only: its page, extend, pause, resume, offer a seat, abandon; anything else
  of a game is a 404 for a signed-in player, whether the game exists or not); a visitor asking for a page is sent
  to the login form, with ``next`` to come back to (``next_path``: a path of /o/ only). The session lives on the
  server (``services.organisers``; the cookie names it): logging out ends it for every copy of the cookie, and a new
  organiser token ends every session made with the old one.
- Rate limits (Flask-Limiter), one limiter per app, counted in memory in the embedded default and in Redis when the
  broker is Redis (so every web process shares the counts). Per client address: answering
  ``DEADMAIL_ANSWERS_PER_MINUTE`` (default 30; a fixed window, one increment an answer: ``AnswerCount``), the pages
  a link opens and the JSON seat view
  ``DEADMAIL_LINKS_PER_MINUTE`` (default 120), wrong organiser tokens (login form, API and webhook together) 10;
  beyond, 429: a friendly page (JSON under /api/) with ``Retry-After``. The client is the connection's address, or
  what ``DEADMAIL_TRUSTED_PROXIES`` reverse proxies say it is (``ProxyFix``, app.py). When the counts' storage (the
  broker's Redis) fails, the limiter counts in this process's memory until it is back: answering and reading never
  depend on the broker.
- Security headers on every response: a Content-Security-Policy on HTML (unless the view set its own, as the
  mailbox does for the mail it frames), nosniff and a same-origin referrer everywhere, ``Cache-Control: no-store``
  on everything but static files (what a link opens, organiser pages full of seat links); CSRF refusals as a page.
- Errors: a service that is down (the database, the broker) is a 503 with ``Retry-After``, a page or JSON under
  /api/ (other HTTP errors are JSON there too: ``guard``).
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, cast

from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    after_this_request,
    current_app,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_babel import get_locale, gettext  # type: ignore[import-untyped,unused-ignore]
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFError
from kombu.exceptions import OperationalError as BrokerError
from limits.storage import MemoryStorage, Storage
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy.exc import OperationalError as DatabaseError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from ..config import Settings
from ..db import Database
from ..models import pick_language, utcnow
from ..services import organisers, signin
from ..services.attendance import prefs
from ..services.errors import ShownError
from ..services.leagues import seasons
from ..services.links import LinkError, read_organiser_token, read_token
from ..services.lobby import moderation, proposals
from ..services.play import seats
from ..services.replies import Unavailable
from ..text.refusals import refusal

log = logging.getLogger("deadmail.web")


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

View = Callable[..., ResponseReturnValue]


def _link(read: Callable[[str], object], name: str) -> Callable[[View], View]:
    """A decorator of views whose ``token`` is a link: ``g.<name>`` is what ``read(token)`` opens (LinkError when it
    opens nothing: ``link_refused`` answers)."""

    def decorator(view: View) -> View:
        @wraps(view)
        def opened(token: str, **kwargs: str | int) -> ResponseReturnValue:
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


@dataclass(frozen=True)
class SignedSeat:
    seat_id: int
    generation: int


def _signed_seat(token: str) -> SignedSeat:
    s = dm().settings
    return SignedSeat(*read_token(s.secret_key, token, s.link_max_age))


#: the view's ``token`` is a seat's link, its signature and age checked and nothing read: ``g.signed``
#: (``SignedSeat``). For a view whose service reads the seat and checks the link's generation in its own one
#: transaction (an answer: ``turns.submit_answer``, under the window's lock); a link it refuses is a ``LinkError``.
signed_seat_link = _link(_signed_seat, "signed")
#: the view's ``token`` is a player's preferences link: ``g.player_id``.
player_link = _link(
    lambda token: prefs.open_player(dm().db, dm().settings.secret_key, token, dm().settings.link_max_age), "player_id"
)
#: the view's ``token`` is a game's organiser link: ``g.game_id``.
organiser_link = _link(
    lambda token: read_organiser_token(dm().settings.secret_key, token, dm().settings.link_max_age), "game_id"
)

#: the view's ``token`` is a league's organiser link (``seasons.open_league``, revocable): ``g.league_id``.
league_organiser_link = _link(
    lambda token: seasons.open_league(dm().db, dm().settings.secret_key, "organiser", token), "league_id"
)


def json_error(text: str, status: int) -> Response:
    """A refusal of the JSON API or the webhook: ``{"ok": false, "error": text}`` with ``status``."""
    reply = jsonify({"ok": False, "error": text})
    reply.status_code = status
    return reply


def link_refused(exc: LinkError) -> ResponseReturnValue:
    """The one answer to a link that opens nothing: nothing is shown of what it might have opened."""
    if request.path.startswith("/api/"):
        return json_error(str(exc), 403)
    return message(gettext("Link not valid"), say(exc), 403)


# --- organisers -----------------------------------------------------------------------------------------------------


def is_organiser_token(token: str) -> bool:
    """The organiser token (DEADMAIL_API_TOKEN), compared in constant time, as bytes (any text may be sent)."""
    expected = dm().settings.api_token
    return bool(token and expected) and hmac.compare_digest(token.encode(), expected.encode())


def bearer_is_organiser() -> bool:
    """The request carries ``Authorization: Bearer <organiser token>`` (the API and the mail webhook)."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and is_organiser_token(token.strip())


#: the session cookie's key naming the organiser's server-side session (``services.organisers``).
ORGANISER_SESSION = "organiser_session"
#: the session cookie's key naming a signed-in player's server-side session (``services.signin``).
PLAYER_SESSION = "player_session"


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


def local_path() -> str:
    """The path (and query) of this request, to come back to after logging in."""
    query = request.query_string.decode("latin-1")
    return f"{request.path}?{query}" if query else request.path


def next_path(target: str) -> str:
    """``target`` when it is a path of the organiser's pages on this site (/o/…), else ""; nothing else is followed
    after logging in: never another site (``//host``, ``https://…``, ``/\\host``)."""
    target = target[:300]
    local = target.startswith("/o/") and "\\" not in target and not any(ord(c) < 32 for c in target)
    return target if local else ""


#: the organiser's endpoints a game's creator may use on that game (issue 30): its page, extend, pause, resume,
#: offer a seat to a substitute (its confirm page and the offer), abandon (asked, then confirmed), the game's webhook
#: channel (set, remove, resume: the public events only). Nothing else: not
#: the seats' links (``created_page``, the game page's "Players and their links"), resending, replacing or revoking
#: them, nor the replay with every secret revealed.
CREATOR_ENDPOINTS = frozenset(
    {
        "organiser.game",
        "organiser.extend",
        "organiser.pause",
        "organiser.resume",
        "organiser.offer_form",
        "organiser.offer",
        "organiser.abandon",
        "organiser.channel",
    }
)


def signed_in_player() -> int | None:
    """The player this browser is signed in as (``services.signin``; read once per request), or None."""
    if "signed_in_player" not in g:
        g.signed_in_player = signin.find(dm().db, session.get(PLAYER_SESSION), utcnow())
    player_id: int | None = g.signed_in_player
    return player_id


def as_creator() -> bool:
    """This organiser page was opened by the game's creator, with the creator's powers only (``organiser_required``):
    it shows nothing of the other seats' links, nor what the creator may not do."""
    return bool(g.get("as_creator"))


def _creator_may(game_id: int, player_id: int) -> bool:
    """A creator's powers over the game: its creator, not suspended (a suspended player's games go on without
    them deciding anything: the server's organiser offers their seats)."""
    if request.endpoint not in CREATOR_ENDPOINTS:
        return False
    db = dm().db
    return bool(proposals.created_games(db, player_id, game_id)) and not moderation.is_suspended(db, player_id)


def organiser_required(view: View) -> View:
    """Organiser pages: logged in, or (for a route with ``game_id``) the game's organiser link opened before, or the
    game's creator signed in as a player, for ``CREATOR_ENDPOINTS`` only (``as_creator``). A signed-in player asking
    for anything else of a game is a 404, the same whether the game exists or not. A visitor asking for a page is
    sent to the login form (302), which brings them back; other requests (a form POSTed) are a 401."""

    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> ResponseReturnValue:
        game_id = kwargs.get("game_id")
        if logged_in() or (game_id is not None and may_open(game_id)):
            return view(*args, **kwargs)
        if game_id is not None and (player_id := signed_in_player()) is not None:
            if not _creator_may(game_id, player_id):
                abort(404)
            g.as_creator = True
            return view(*args, **kwargs)
        if request.method == "GET":  # a page: the login form, which comes back here (a local path only)
            return redirect(url_for("organiser.login_form", next=local_path()), code=302)
        return message(gettext("Not allowed"), gettext("Log in as the organiser first."), 401)

    return guarded


# --- rate limits ----------------------------------------------------------------------------------------------------

#: endpoints that store an answer.
ANSWERING = (
    "pages.one_tap_confirm",
    "pages.back",
    "api.answer",
    "invitations.accept",
    "api.add_absence",
    "api.remove_absence",
    "api.back",
    "prefs.add_absence",
    "prefs.remove_absence",
    "prefs.new_calendar_address",
    "leagues.sign_up",
    "leagues.confirm",
    "league_organiser.plan",
    "league_organiser.swap",
    "league_organiser.start",
    "api_leagues.sign_up",
    "api_leagues.confirm",
    "lobby.create",
    "lobby.invite",
    "lobby.new_link",
    "lobby.start",
    "lobby.cancel",
    "lobby.join",
    "lobby.leave",
    "lobby.join_shared",
    "lobby.ask",
    "lobby.answer",
)
#: endpoints that open a page (or the JSON seat view) from a link.
LINK_PAGES = (
    "signin.link",
    "signin.open_link",
    "pages.seat",
    "pages.live",
    "pages.one_tap",
    "pages.back_confirm",
    "prefs.show",
    "replay.seat_replay",
    "api.seat",
    "invitations.show",
    "api.list_absences",
    "leagues.signup",
    "leagues.confirm_page",
    "league_organiser.league",
    "league_organiser.season",
    "league_organiser.round_page",
    "api_leagues.player_leagues",
    "api_leagues.member_standings",
    "api_leagues.public_standings",
    "lobby.shared",
    "lobby.invitation",
    "unsubscribe.page",
    "unsubscribe.change",
)
#: endpoints that check the organiser's token (the login form, the API's and the webhook's ``Bearer``): wrong tokens
#: are counted.
TOKEN_CHECKS = (
    "organiser.login",
    "api.create_game",
    "api.show_game",
    "webhook.inbound_mail",
    "api_leagues.create_league",
    "api_leagues.list_leagues",
    "api_leagues.show_league",
    "api_leagues.create_season",
    "api_leagues.show_season",
    "api_leagues.revoke_link",
    "api_leagues.plan_round",
    "api_leagues.show_round",
    "api_leagues.swap_players",
    "api_leagues.start_round",
    "api_leagues.season_standings",
    "api_leagues.standings_csv",
    "api_leagues.record_result",
    "api_leagues.next_season",
)
#: wrong organiser tokens taken per client and minute, across ``TOKEN_CHECKS``; beyond, every try is a 429.
TOKEN_GUESSES = "10/minute"
#: how long to wait, when a service is down, before trying again (seconds).
RETRY_UNAVAILABLE = 30


def init_limits(app: Flask, settings: Settings, limited: dict[Blueprint, object]) -> Limiter:
    """A limiter for ``app``; ``limited`` maps blueprints to their limit (a string or a callable giving one)."""
    redis = settings.broker_url.startswith(("redis://", "rediss://"))
    app.config.setdefault("RATELIMIT_STORAGE_URI", settings.broker_url if redis else "memory://")
    if redis:  # a Redis that does not answer costs a request one second at most, then the limiter counts in memory
        app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", {"socket_connect_timeout": 1, "socket_timeout": 1})
    app.config.setdefault("RATELIMIT_KEY_PREFIX", settings.queue)  # installations sharing a Redis never meet
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", True)
    app.config.setdefault("RATELIMIT_STRATEGY", "moving-window")  # exact: no burst, no slack at a minute edge
    # the storage fails (the broker's Redis is down): count in this process's memory until it answers again (checked
    # with a back-off), and never fail a request over a count
    app.config.setdefault("RATELIMIT_IN_MEMORY_FALLBACK_ENABLED", True)
    app.config.setdefault("RATELIMIT_SWALLOW_ERRORS", True)
    limiter = Limiter(get_remote_address, app=app)
    app.extensions["deadmail.limiter"] = limiter  # (views that count on their own: /signin)
    for blueprint, limit in limited.items():
        limiter.limit(limit)(blueprint)  # type: ignore[arg-type]
    app.register_error_handler(429, too_many)
    return limiter


def links_rate() -> str:
    return f"{int(current_app.config['DEADMAIL_LINKS_PER_MINUTE'])}/minute"


def _refused_token(response: Response) -> bool:
    return response.status_code == 401


class AnswerCount:
    """The answers' limit (``ANSWERING``, counted together per client address): a fixed window of a minute from a
    client's first answer, one increment per answer (``limits``' INCR-and-EXPIRE script: one round trip to the
    shared Redis, microseconds in memory), its count giving the ``X-RateLimit-*`` headers. Flask-Limiter's moving
    window cost two scripts an answer (the hit, then the window read again for the headers) and a millisecond of
    CPU (issue 29); a fixed window lets a client send up to twice the limit across a minute's edge, harmless for
    answers (each checked, a repeat changes nothing). When the shared storage fails the answers are counted in
    this process's memory for ``RETRY_UNAVAILABLE`` seconds, then the storage is tried again."""

    def __init__(self, limiter: Limiter, prefix: str) -> None:
        self.limiter, self.prefix = limiter, prefix  # (its ``enabled`` switches every limit on or off)
        self.shared: Storage = limiter.storage
        self.local = MemoryStorage()
        self.down_until = 0.0

    def hit(self, address: str) -> int:
        """Count one answer from ``address``; how many it sent in its window, this one included."""
        key = f"{self.prefix}/answers/{address}"
        if self.down_until <= time.monotonic():
            try:
                return self.shared.incr(key, 60)
            except self.shared.base_exceptions as exc:
                log.warning("the answers' rate limit counts in memory for %d s: %s", RETRY_UNAVAILABLE, exc)
                self.down_until = time.monotonic() + RETRY_UNAVAILABLE
        return self.local.incr(key, 60)


def _count_answers(view: View, count: AnswerCount) -> View:
    @wraps(view)
    def counted(*args: Any, **kwargs: Any) -> ResponseReturnValue:
        if not count.limiter.enabled:
            return view(*args, **kwargs)
        most = int(current_app.config["DEADMAIL_ANSWERS_PER_MINUTE"])
        sent = count.hit(get_remote_address())
        if sent > most:
            return too_many(None)

        @after_this_request
        def headers(response: Response) -> Response:
            response.headers["X-RateLimit-Limit"] = str(most)
            response.headers["X-RateLimit-Remaining"] = str(most - sent)
            return response

        return view(*args, **kwargs)

    return counted


def limit_endpoints(app: Flask, limiter: Limiter) -> None:
    """Answering and link pages get their limits, each counted across its endpoints (answers by ``AnswerCount``),
    and the organiser's token checks count the wrong tokens (only those: an organiser using the right one is never
    slowed); call once every blueprint is registered."""
    count = AnswerCount(limiter, str(app.config["RATELIMIT_KEY_PREFIX"]))
    for endpoint in ANSWERING:
        view = app.view_functions.get(endpoint)
        if view is not None:
            app.view_functions[endpoint] = limiter.exempt(_count_answers(cast(View, view), count))
    _skip_answers(app, limiter)
    shared = {
        LINK_PAGES: limiter.shared_limit(links_rate, scope="links"),
        TOKEN_CHECKS: limiter.shared_limit(
            TOKEN_GUESSES, scope="organiser-token", deduct_when=_refused_token, override_defaults=False
        ),  # on top of the webhook's own limit
    }
    for endpoints, limit in shared.items():
        for endpoint in endpoints:
            view = app.view_functions.get(endpoint)
            if view is not None:
                app.view_functions[endpoint] = limit(view)  # type: ignore[assignment]


def _skip_answers(app: Flask, limiter: Limiter) -> None:
    """Flask-Limiter checks every request in a ``before_request`` hook of its own, which costs an exempt view
    about 0.1 ms of CPU (resolving its limits to find none; issue 29): answers, counted by ``AnswerCount``, skip
    it."""
    check = limiter._check_request_limit
    answering = frozenset(ANSWERING)

    def check_unless_answering() -> None:
        if request.endpoint not in answering:
            check()

    hooks = app.before_request_funcs.get(None, [])
    if check in hooks:  # (a limiter switched off by RATELIMIT_ENABLED registers no hook)
        hooks[hooks.index(check)] = check_unless_answering


def come_back(status: int, after: int, title: str, text: str, api_text: str | None = None) -> Response:
    """``status`` with ``Retry-After: after`` seconds: a page saying ``text``, or under /api/ JSON (``api_text``, or
    ``text``)."""
    if request.path.startswith("/api/"):
        reply = json_error(api_text or text, status)
    else:
        reply = current_app.make_response(render_template("message.html", title=title, message=text))
        reply.status_code = status
    reply.headers["Retry-After"] = str(after)
    return reply


def too_many(_exc: Exception | None) -> ResponseReturnValue:
    """429: a page saying to wait a minute (JSON for the API)."""
    text = gettext("Too many requests from your connection: wait a minute, then try again.")
    return come_back(429, 60, gettext("Slow down"), text)


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


def csp(live_url: str) -> str:
    """The pages' Content-Security-Policy: ``CSP``, and the live server's origin for the seat pages' stream."""
    return f"{CSP}; connect-src 'self' {live_url}" if live_url else CSP


def headers(response: Response) -> Response:
    if response.mimetype == "text/html" and "Content-Security-Policy" not in response.headers:
        response.headers["Content-Security-Policy"] = current_app.config["DEADMAIL_CSP"]
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if request.endpoint != "static":  # links, seat links on organiser pages, answers: kept by no cache, no back button
        response.headers["Cache-Control"] = "no-store"
    return response


def csrf_refused(_exc: CSRFError) -> ResponseReturnValue:
    text = gettext("This form has expired or did not come from this site. Open your link again and resend it.")
    return message(gettext("Form not accepted"), text, 400)


# --- errors ---------------------------------------------------------------------------------------------------------

#: a service the request needed is down (the database, the broker): 503, try again soon.
UNAVAILABLE = (DatabaseError, PoolTimeout, Unavailable, RedisConnectionError, RedisTimeoutError, BrokerError)


def unavailable(exc: Exception) -> ResponseReturnValue:
    """A service is down: 503 with ``Retry-After``, a page or JSON; nothing of the request is kept."""
    log.warning("503: a service is unavailable (%s)", type(getattr(exc, "orig", None) or exc).__name__)
    text = gettext("The game server cannot reach its database or queue just now: try again in a minute.")
    api_text = "A service is unavailable: try again in a minute."
    return come_back(503, RETRY_UNAVAILABLE, gettext("Try again soon"), text, api_text)


def init_app(app: Flask) -> None:
    """The error handlers for links, forms and services that are down (HTTP errors: ``guard``), and the security
    headers."""
    app.register_error_handler(LinkError, link_refused)
    app.register_error_handler(CSRFError, csrf_refused)
    for kind in UNAVAILABLE:
        app.register_error_handler(kind, unavailable)
    app.after_request(headers)
