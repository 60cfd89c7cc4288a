"""The embedded default's mailbox: the mail written to files, listed and shown, so a game can be played locally.

Only when mail goes to files (no DEADMAIL_SMTP_URL). The organiser's token (printed by ``deadmail up``) opens it.
A mail's HTML is served on its own with a CSP sandbox and shown in a sandboxed frame: it runs no script and
cannot reach this page, but its links open the game's pages.
"""

from __future__ import annotations

import re
from email import policy
from email.message import EmailMessage
from email.parser import BytesHeaderParser, BytesParser
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup, escape

from ..mail import replies
from ..services.errors import N_
from ..services.links import LinkError, read_mailbox_token
from . import access
from .access import dm

bp = Blueprint("mailbox", __name__)

#: the newest mails listed (older ones stay in the folder).
LIMIT = 500
#: the longest reply written on the page.
MAX_REPLY = 10_000
SANDBOX = "sandbox allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation"
_URL = re.compile(r"https?://[^\s<>\"']+")


def _closed(token: str) -> Any:
    """None when the mailbox may be shown; else the page that says why not (LinkError for a link not valid)."""
    s = dm().settings
    if s.smtp_url:
        return access.message(
            _("No mailbox here"), _("This server sends its mail by SMTP: there is no mailbox page."), 404
        )
    if not read_mailbox_token(s.secret_key, token):  # answered by the one handler of invalid links
        raise LinkError(N_("This mailbox link is not valid: use the one `deadmail up` printed."))
    return None


def mail_files(folder: Path) -> list[Path]:
    """The mail files in ``folder``, newest first."""
    if not folder.is_dir():
        return []
    files = [p for p in folder.iterdir() if _is_mail(p)]
    return sorted(files, key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True)


def _is_mail(path: Path) -> bool:
    return path.suffix == ".eml" and not path.name.startswith(".") and path.is_file()


def _find(name: str) -> Path | None:
    """The mail file called ``name`` in the mail folder, and nowhere else (no other path can be reached)."""
    folder = dm().settings.mail_dir
    if len(name) > 255 or "/" in name or "\\" in name or not folder.is_dir():
        return None
    path = folder / name
    return path if path.name == name and _is_mail(path) else None


def _headers(path: Path) -> dict[str, str]:
    with path.open("rb") as fp:
        head = BytesHeaderParser(policy=policy.default).parse(fp)
    return {key: str(head.get(key, "")) for key in ("Date", "From", "To", "Subject", "Reply-To")}


def _read(path: Path) -> EmailMessage:
    with path.open("rb") as fp:
        message = BytesParser(policy=policy.default).parse(fp)
    assert isinstance(message, EmailMessage)
    return message


def _part(message: EmailMessage, subtype: str) -> str | None:
    part = message.get_body(preferencelist=(subtype,))
    if part is None:
        return None
    content = part.get_content()
    return content if isinstance(content, str) else None


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
def listing(token: str) -> Any:
    if (closed := _closed(token)) is not None:
        return closed
    files = mail_files(dm().settings.mail_dir)
    mails = [{"name": p.name, **_headers(p)} for p in files[:LIMIT]]
    return render_template(
        "mailbox.html",
        token=token,
        mails=mails,
        total=len(files),
        folder=dm().settings.mail_dir,
        replied=request.args.get("replied", "")[:20],
    )


@bp.get("/mail/<token>/<name>")
def message(token: str, name: str) -> Any:
    if (closed := _closed(token)) is not None:
        return closed
    path = _find(name)
    if path is None:
        return access.message(_("No such mail"), _("This mail is not in the mailbox."), 404)
    mail = _read(path)
    text = _part(mail, "plain")
    return render_template(
        "mailbox_message.html",
        token=token,
        name=name,
        headers=_headers(path),
        has_html=_part(mail, "html") is not None,
        text=None if text is None else linkify(text),
        sandbox=SANDBOX.removeprefix("sandbox "),
    )


@bp.get("/mail/<token>/<name>/html")
def message_html(token: str, name: str) -> Any:
    if (closed := _closed(token)) is not None:
        return closed
    path = _find(name)
    html = None if path is None else _part(_read(path), "html")
    if html is None:
        return access.message(_("No such mail"), _("This mail is not in the mailbox."), 404)
    response = Response(_top_target(html), mimetype="text/html")
    response.headers["Content-Security-Policy"] = SANDBOX
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@bp.post("/mail/<token>/<name>/reply")
def reply(token: str, name: str) -> Any:
    """A reply written on the page, taken exactly as one that came by mail (server/mail/replies.py)."""
    if (closed := _closed(token)) is not None:
        return closed
    path = _find(name)
    original = None if path is None else _read(path)
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
