"""Signing in by mail (``services.signin``): /signin asks for a link, the mailed link's page signs this browser in,
/me opens the signed-in player's hub, /signout signs this browser out.

- Asking answers the same whatever the address (a player's, nobody's, mailed a minute ago): it tells nothing of it.
  Asking is limited per connection and per address (``PER_CLIENT``, ``PER_ADDRESS``): beyond, a 429 that says why.
- Opening the mailed link changes nothing (mail scanners open links); its page's button signs in.
"""

from __future__ import annotations

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import parse

from ..models import utcnow
from ..services import signin
from ..services.errors import ShownError
from ..services.inputs import email_address
from ..services.links import player_token
from .access import PLAYER_SESSION, dm, say, signed_in_player

bp = Blueprint("signin", __name__)

#: sign-in links asked for from one connection, and for one address (whether a player's or not), per hour.
PER_CLIENT = parse("10/hour")
PER_ADDRESS = parse("3/hour")


def _within_limits(email: str) -> str | None:
    """Count this request for its connection and its address; why it is refused, or None."""
    limiter: Limiter = current_app.extensions["deadmail.limiter"]
    if not limiter.enabled:
        return None
    prefix = str(current_app.config["RATELIMIT_KEY_PREFIX"])  # (installations sharing a Redis never meet)
    try:
        if not limiter.limiter.hit(PER_CLIENT, prefix, "signin-client", get_remote_address()):
            return gettext("Too many sign-in links were asked for from your connection: try again in an hour.")
        if not limiter.limiter.hit(PER_ADDRESS, prefix, "signin-address", email):
            return gettext(
                "Too many sign-in links were asked for this address: use the latest, or try again in an hour."
            )
    except limiter.storage.base_exceptions:  # the shared count is down: asking is not limited meanwhile (each ask
        # still mails one link, to the player's own address)
        return None
    return None


@bp.get("/signin")
def form() -> ResponseReturnValue:
    """The form: an address; a browser already signed in goes to its hub."""
    if signed_in_player() is not None:
        return redirect(url_for("signin.me"), code=303)
    return render_template("signin.html", address="", out=request.args.get("out"))


@bp.post("/signin")
def ask() -> ResponseReturnValue:
    """Mail a sign-in link to the player of the address; the same page whatever the address's state."""
    address = str(request.form.get("address", ""))[:320]
    try:
        email = email_address(address)
    except ShownError as exc:
        return render_template("signin.html", address=address, error=say(exc)), 400
    refused = _within_limits(email)
    if refused is not None:
        return render_template("signin.html", address=address, error=refused), 429, {"Retry-After": "3600"}
    signin.ask(dm().db, email, utcnow())
    return render_template("signin_sent.html")


@bp.get("/signin/<token>")
def link(token: str) -> ResponseReturnValue:
    """The mailed link: whose it is, and the button that signs in (opening it changes nothing)."""
    found = signin.check_link(dm().db, dm().settings.secret_key, token, utcnow())
    return render_template("signin_confirm.html", token=token, email=found.email)


@bp.post("/signin/<token>")
def open_link(token: str) -> ResponseReturnValue:
    """Sign this browser in (the link is used up) and open the hub."""
    agent = str(request.user_agent.string or "")
    opened = signin.open_link(dm().db, dm().settings.secret_key, token, agent, utcnow())
    signin.end(dm().db, session.get(PLAYER_SESSION))  # (the session this browser had, if any, ends)
    session[PLAYER_SESSION] = opened
    session.permanent = True  # the cookie lasts as long as the session may (PERMANENT_SESSION_LIFETIME)
    return redirect(url_for("signin.me"), code=303)


@bp.get("/me")
def me() -> ResponseReturnValue:
    """The signed-in player's hub (their games and preferences); the sign-in form for anyone else."""
    player_id = signed_in_player()
    if player_id is None:
        return redirect(url_for("signin.form"), code=303)
    generation = signin.link_generation(dm().db, player_id)
    return redirect(url_for("prefs.show", token=player_token(dm().settings.secret_key, player_id, generation)))


@bp.post("/signout")
def sign_out() -> ResponseReturnValue:
    """Sign this browser out: a copy of its cookie opens nothing any more."""
    signin.end(dm().db, session.pop(PLAYER_SESSION, None))
    return redirect(url_for("signin.form", out="1"), code=303)
