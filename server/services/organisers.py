"""Organisers' browser sessions, kept on the server (``OrganiserSession``): the signed session cookie carries only a
session's random id, so ending it here ends it for every copy of the cookie.

- Logging in with the organiser token ``start``\\ s a session that opens every game; opening a game's organiser link
  starts one that opens that game (or adds the game to the browser's session). Logging out ``end``\\ s it.
- Each session keeps the keyed ``fingerprint`` of the organiser token current when it was made; ``find`` opens it
  only while the token is the same, so a new token (DEADMAIL_API_TOKEN or ``<data dir>/api_token`` changed, the
  server restarted) ends every session made before. Sessions last at most ``LIFETIME`` (the session cookie's own).
- Ended, expired and superseded rows are deleted whenever a session starts: the table stays small.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, or_

from ..db import Database
from ..models import OrganiserSession, utcnow

#: how long a session lasts at most (Flask's PERMANENT_SESSION_LIFETIME, which also ages the signed cookie).
LIFETIME = timedelta(days=31)
#: the games one session opens by organiser links, at most (the latest ones).
MAX_GAMES = 20


def fingerprint(secret_key: str, api_token: str) -> str:
    """A keyed fingerprint of the organiser token: tells tokens apart without storing them."""
    return hmac.new(secret_key.encode(), b"deadmail.organiser-token\0" + api_token.encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Opened:
    """A live organiser session: every game, or the games opened by their organiser links."""

    id: str
    every_game: bool
    games: tuple[int, ...]

    def may_open(self, game_id: int) -> bool:
        return self.every_game or game_id in self.games


def start(db: Database, token: str, game_id: int | None = None, now: datetime | None = None) -> str:
    """A new session made with the organiser token of fingerprint ``token``: logged in (every game) without
    ``game_id``, else opened by that game's organiser link. Returns its id (for the session cookie)."""
    now = now or utcnow()
    session_id = secrets.token_urlsafe(32)
    with db.session() as session:
        session.execute(
            delete(OrganiserSession).where(
                or_(OrganiserSession.created_at < now - LIFETIME, OrganiserSession.token != token)
            )
        )
        games = [] if game_id is None else [game_id]
        session.add(
            OrganiserSession(id=session_id, token=token, every_game=game_id is None, games=games, created_at=now)
        )
    return session_id


def find(db: Database, session_id: object, token: str, now: datetime | None = None) -> Opened | None:
    """The session a cookie names; None when there is none, or it was ended, has expired, or was made with another
    organiser token."""
    if not isinstance(session_id, str) or not 0 < len(session_id) <= 64:
        return None
    now = now or utcnow()
    with db.session() as session:
        row = session.get(OrganiserSession, session_id)
        if row is None or row.created_at < now - LIFETIME or not hmac.compare_digest(row.token, token):
            return None
        return Opened(row.id, row.every_game, tuple(i for i in row.games or [] if isinstance(i, int)))


def add_game(db: Database, session_id: str, game_id: int) -> None:
    """The session also opens ``game_id`` (its organiser link was opened in the same browser)."""
    with db.session() as session:
        row = session.get(OrganiserSession, session_id, with_for_update=True)
        if row is not None and game_id not in (row.games or []):
            row.games = [*(row.games or [])[-(MAX_GAMES - 1) :], game_id]


def end(db: Database, session_id: object) -> None:
    """Log out: the session opens nothing any more, whoever holds a copy of its cookie."""
    if isinstance(session_id, str):
        with db.session() as session:
            session.execute(delete(OrganiserSession).where(OrganiserSession.id == session_id))
