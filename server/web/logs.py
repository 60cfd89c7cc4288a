"""Log lines never carry a link's token: a request path that holds one is logged with the token cut to its first
four characters (``/s/WzE0…/answer``), whoever logs it.

``CutTokens`` rewrites every record of the loggers that write request paths: Flask's (the app's logger: "Exception
on /s/<token>/do [POST]"), werkzeug's request log (the development server, the browser tests), waitress' (``deadmail
up``: "Exception while serving …") and gunicorn's error and access logs (request line and referrer). deadmail's own
log calls name rows by id, never by link.
"""

from __future__ import annotations

import logging
import re

from flask import Flask

#: a path segment that is a link's token: seat pages and the seat API, preferences, the mailbox, organiser links,
#: league links (organiser, public, invitation, sign-up confirmation), calendars (the longer prefix first), sign-in
#: links, and players' own games' shareable links and invitations.
TOKEN_IN_PATH = re.compile(
    r"(/(?:s|p|mail|o/link|api/seat|lo|ls|l/confirm|l|calendar/league|calendar|signin|g|invited|unsubscribe)/)([A-Za-z0-9_.-]{5,})"
)
#: the loggers that write request paths (besides each app's own).
PATH_LOGGERS = ("werkzeug", "waitress", "gunicorn.error", "gunicorn.access")


def cut_tokens(text: str) -> str:
    """``text`` with the token of every link path in it cut to its first four characters and "…"."""
    return TOKEN_IN_PATH.sub(lambda found: f"{found[1]}{found[2][:4]}…", text)


class CutTokens(logging.Filter):
    """Rewrites a record whose message holds a link's path (its arguments formatted in first)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cut = cut_tokens(message)
        if cut != message:
            record.msg, record.args = cut, ()
        return True


FILTER = CutTokens()


def init_app(app: Flask) -> None:
    """Cut tokens out of the app's log and the web servers' (a logger keeps one copy of the filter)."""
    for logger in (app.logger, *(logging.getLogger(name) for name in PATH_LOGGERS)):
        logger.addFilter(FILTER)
