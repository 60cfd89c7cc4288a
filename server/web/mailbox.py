"""The embedded default's mailbox: the mail written to files, listed and shown, so a game can be played locally.

Only when mail goes to files (no DEADMAIL_SMTP_URL). The organiser's token (printed by ``deadmail up``) opens it.
The list shows 50 mails a page, newest first, filtered by game and by recipient (GET parameters: ``game``, ``to``,
``page``), their dates in the zone the reader chose (``tz``, remembered in a cookie; UTC until then, named). Mail to
the bots of ``deadmail demo --auto`` is left out. A mail's HTML is served on its own with a CSP sandbox and shown in a
sandboxed frame: it runs no script and cannot reach this page, but its links open the game's pages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, make_response, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from markupsafe import Markup, escape

from ..mail import folder as folder_of_mail
from ..mail import replies
from ..mail.folder import is_demo, listed
from ..present.chat import stamp
from ..services import inputs
from ..services.errors import N_
from ..services.links import LinkError, read_mailbox_token
from ..services.tempo import timezones
from . import access
from .access import dm, reader_language

bp = Blueprint("mailbox", __name__)

#: mails on a page of the list.
PAGE = 50
#: the cookie that remembers the zone the reader chose for the mailbox's dates.
TZ_COOKIE = "deadmail_mailbox_tz"
#: the longest recipient looked for (an e-mail address is at most 320 characters).
MAX_ADDRESS = 320
#: the longest reply written on the page.
MAX_REPLY = 10_000
SANDBOX = "sandbox allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation"
_URL = re.compile(r"https?://[^\s<>\"']+")


def _closed(token: str) -> ResponseReturnValue | None:
    """None when the mailbox may be shown; else the page that says why not (LinkError for a link not valid)."""
    s = dm().settings
    if s.smtp_url:
        return access.message(
            _("No mailbox here"), _("This server sends its mail by SMTP: there is no mailbox page."), 404
        )
    if not read_mailbox_token(s.secret_key, token):  # answered by the one handler of invalid links
        raise LinkError(N_("This mailbox link is not valid: use the one `deadmail up` printed."))
    return None


def _find(name: str) -> Path | None:
    """The mail file called ``name`` in the mail folder, and nowhere else (no other path can be reached)."""
    folder = dm().settings.mail_dir
    if len(name) > 255 or "/" in name or "\\" in name or not folder.is_dir():
        return None
    path = folder / name
    return path if path.name == name and folder_of_mail.is_mail(path) else None


@dataclass
class Chosen:
    """What the reader asked the list for, each value checked; ``errors`` say what was set aside and why."""

    game: int | None = None
    to: str = ""
    page: int = 1
    tz: str = "UTC"
    #: the zone was chosen now (a parameter): the cookie remembers it
    new_tz: bool = False
    errors: list[str] = field(default_factory=list)

    def args(self, **changed: Any) -> dict[str, Any]:
        """The list's parameters (the page's links keep the filters)."""
        given = {
            "game": self.game,
            "to": self.to or None,
            "tz": self.tz if self.new_tz else None,  # else the cookie has it
            "page": self.page if self.page > 1 else None,
        }
        return {k: v for k, v in {**given, **changed}.items() if v is not None}


def _chosen(args: Mapping[str, str], cookies: Mapping[str, str]) -> Chosen:
    chosen = Chosen()
    game = str(args.get("game", ""))
    if game:
        chosen.game = inputs.small_int(game, 9)
        if chosen.game is None:
            chosen.errors.append(_("The game must be a number, such as 7: all games are listed."))
    to = str(args.get("to", "")).strip()
    if to and (len(to) > MAX_ADDRESS or not to.isprintable()):
        chosen.errors.append(_("That is not an e-mail address: every recipient is listed."))
    else:
        chosen.to = to.lower()
    page = str(args.get("page", ""))
    if page:
        number = inputs.small_int(page, 6)
        if not number:
            chosen.errors.append(_("The page must be a number, such as 2: the first page is shown."))
        chosen.page = number or 1
    tz = str(args.get("tz", ""))
    if tz in timezones():
        chosen.tz, chosen.new_tz = tz, True
    else:
        if tz:
            chosen.errors.append(
                _("%(zone)s is not a time zone such as Europe/Rome: the dates are in UTC.", zone=repr(tz[:60]))
            )
        remembered = str(cookies.get(TZ_COOKIE, ""))
        chosen.tz = remembered if remembered in timezones() else "UTC"
    return chosen


def linkify(text: str) -> Markup:
    """Plain text, escaped, with its web addresses made links."""
    escaped = str(escape(text))
    return Markup(_URL.sub(lambda m: f'<a href="{m.group(0)}">{m.group(0)}</a>', escaped))


def _top_target(html: str) -> str:
    """Links in the framed mail open in the whole window (the seat page needs its own, unsandboxed, window)."""
    base = '<base target="_top">'
    match = re.search(r"<head[^>]*>", html, re.IGNORECASE)
    return html[: match.end()] + base + html[match.end() :] if match else base + html


@bp.get("/mail/<token>")
def listing(token: str) -> ResponseReturnValue:
    if (closed := _closed(token)) is not None:
        return closed
    chosen = _chosen(request.args, request.cookies)
    every = listed(dm().settings.mail_dir)
    mails = [m for m in every if not is_demo(m)]
    shown = [
        m for m in mails if (chosen.game is None or m.game == chosen.game) and (not chosen.to or m.address == chosen.to)
    ]
    pages = max(1, -(-len(shown) // PAGE))
    chosen.page = min(chosen.page, pages)
    first = (chosen.page - 1) * PAGE
    lang = reader_language()
    rows = [
        {"mail": m, "iso": m.date.isoformat().replace("+00:00", "Z"), "when": stamp(m.date, chosen.tz, lang)}
        for m in shown[first : first + PAGE]
    ]
    page = render_template(
        "mailbox.html",
        token=token,
        rows=rows,
        chosen=chosen,
        count=len(shown),
        total=len(mails),
        first=first + 1,
        last=first + len(rows),
        pages=pages,
        games=sorted({m.game for m in mails if m.game is not None}, reverse=True),
        recipients=sorted({m.address for m in mails if m.address}),
        demo=len(every) - len(mails),
        folder=dm().settings.mail_dir,
        replied=request.args.get("replied", "")[:20],
    )
    response = make_response(page, 400 if chosen.errors else 200)
    if chosen.new_tz:
        response.set_cookie(
            TZ_COOKIE,
            chosen.tz,
            max_age=365 * 86400,
            path="/mail/",
            samesite="Lax",
            httponly=True,
            secure=request.is_secure,
        )
    return response


@bp.get("/mail/<token>/<name>")
def message(token: str, name: str) -> ResponseReturnValue:
    if (closed := _closed(token)) is not None:
        return closed
    path = _find(name)
    if path is None:
        return access.message(_("No such mail"), _("This mail is not in the mailbox."), 404)
    mail = folder_of_mail.read(path)
    text = folder_of_mail.part(mail, "plain")
    info = path.stat()
    tz = _chosen({}, request.cookies).tz
    return render_template(
        "mailbox_message.html",
        token=token,
        name=name,
        headers=folder_of_mail.headers(path),
        when=stamp(folder_of_mail.entry(path, info.st_mtime_ns, info.st_size).date, tz, reader_language()),
        has_html=folder_of_mail.part(mail, "html") is not None,
        text=None if text is None else linkify(text),
        sandbox=SANDBOX.removeprefix("sandbox "),
    )


@bp.get("/mail/<token>/<name>/html")
def message_html(token: str, name: str) -> ResponseReturnValue:
    if (closed := _closed(token)) is not None:
        return closed
    path = _find(name)
    html = None if path is None else folder_of_mail.part(folder_of_mail.read(path), "html")
    if html is None:
        return access.message(_("No such mail"), _("This mail is not in the mailbox."), 404)
    # the mail's inline pictures (cid: addresses) come from this mailbox, as a mail client shows them
    pictures = url_for("mailbox.message_picture", token=token, name=name, cid="_")[:-1]
    html = re.sub(r'src="cid:([^"]+)"', lambda m: f'src="{pictures}{m.group(1)}"', html)
    response = Response(_top_target(html), mimetype="text/html")
    response.headers["Content-Security-Policy"] = SANDBOX
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@bp.get("/mail/<token>/<name>/cid/<cid>")
def message_picture(token: str, name: str, cid: str) -> ResponseReturnValue:
    """An inline picture of a mail (a part with that Content-ID), as its HTML part shows it."""
    if (closed := _closed(token)) is not None:
        return closed
    path = _find(name)
    found = None if path is None else folder_of_mail.related(folder_of_mail.read(path), cid)
    if found is None:
        return access.message(_("No such mail"), _("This mail is not in the mailbox."), 404)
    data, mimetype = found
    response = Response(data, mimetype=mimetype)
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@bp.post("/mail/<token>/<name>/reply")
def reply(token: str, name: str) -> ResponseReturnValue:
    """A reply written on the page, taken exactly as one that came by mail (server/mail/replies.py)."""
    if (closed := _closed(token)) is not None:
        return closed
    path = _find(name)
    original = None if path is None else folder_of_mail.read(path)
    target = "" if original is None else str(original.get("Reply-To", ""))
    if original is None or not target:
        return access.message(_("No reply possible"), _("This mail takes no reply."), 404)
    letter = EmailMessage()
    letter["From"] = str(original["To"])
    letter["To"] = target
    letter["Subject"] = f"Re: {original['Subject']}"
    letter["Message-ID"] = make_msgid(domain="mailbox.localhost")
    letter["In-Reply-To"] = str(original["Message-ID"])
    letter.set_content(request.form.get("body", "")[:MAX_REPLY] or " ")
    received = replies.receive(dm().db, dm().settings, letter.as_bytes(), [target])
    return redirect(url_for("mailbox.listing", token=token, replied=received.status), code=303)
