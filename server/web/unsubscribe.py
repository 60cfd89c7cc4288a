"""One-click unsubscribe (RFC 8058): every mail that does not answer something the player did carries
``List-Unsubscribe: <…/unsubscribe/<token>>`` and ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``.

- ``POST /unsubscribe/<token>`` with ``List-Unsubscribe=One-Click`` (what a mailbox provider sends, with no cookie and
  no CSRF token: the signed address is the proof) switches the player to the digest: one mail every few hours, their
  games go on. It answers 200 with the page, never a redirect (RFC 8058 section 3.2).
- ``GET /unsubscribe/<token>`` (a reader following the address by hand, or a mail scanner) changes nothing: the page
  says what the button does, and offers a mail for every event again (the undo) or the digest.
- A forged, too old or revoked address (``prefs.open_unsubscribe``) is refused as every link is (``access``).
"""

from __future__ import annotations

from flask import Blueprint, render_template, request, url_for
from flask.typing import ResponseReturnValue

from ..services.attendance import prefs
from ..services.links import player_token
from .access import dm, say

bp = Blueprint("unsubscribe", __name__)


def _page(token: str, found: prefs.Unsubscribe, done: bool = False, error: str | None = None) -> str:
    hub = url_for("prefs.show", token=player_token(dm().settings.secret_key, found.player_id, found.generation))
    return render_template("unsubscribe.html", token=token, mode=found.mail_mode, done=done, error=error, hub=hub)


@bp.get("/unsubscribe/<token>")
def page(token: str) -> ResponseReturnValue:
    return _page(token, prefs.open_unsubscribe(dm().db, dm().settings.secret_key, token))


@bp.post("/unsubscribe/<token>")
def change(token: str) -> ResponseReturnValue:
    """The one-click POST (``List-Unsubscribe=One-Click``: the digest), or the page's own buttons (``mode``)."""
    one_click = request.form.get("List-Unsubscribe") == "One-Click"
    mode = "digest" if one_click else str(request.form.get("mode", ""))[:8]
    try:
        found = prefs.set_mail_mode(dm().db, dm().settings.secret_key, token, mode)
    except prefs.PrefsError as exc:
        found = prefs.open_unsubscribe(dm().db, dm().settings.secret_key, token)
        return _page(token, found, error=say(exc)), 400
    return _page(token, found, done=True)
