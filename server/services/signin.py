"""Players sign in by mail: a link asked for at /signin, mailed, opened once, that starts a browser session.

- ``ask``: the player of an address is mailed a sign-in link (a ``SigninLink`` row and its outbox row, in one
  transaction); an address that is no player's gets nothing, and the page says the same either way.
- ``open_link``: the link's row is used (once, within ``LINK_LIFETIME``) and a ``PlayerSession`` starts; the
  signed session cookie carries only its random id, so ending the row ends it for every copy of the cookie.
- ``find``: the player a session cookie names, while the session lasts (``LIFETIME`` from its start).
- ``end`` (this browser) and ``end_all`` ("sign out everywhere", from the player's hub: the links to the hub given so
  far end too).
- Used and old links, and expired sessions, are deleted whenever a link is asked for or opened: the tables stay
  small.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from ..db import Database
from ..models import MailKind, Player, PlayerSession, SigninLink, utcnow
from .errors import N_
from .inputs import email_address
from .links import LinkError, read_signin_token
from .mailflow.outbox import add, player_mail

#: how long a mailed sign-in link opens (once).
LINK_LIFETIME = timedelta(minutes=30)
#: how long a signed-in browser stays signed in at most (Flask's PERMANENT_SESSION_LIFETIME is not shorter).
LIFETIME = timedelta(days=31)
#: how often a session's ``seen_at`` is written at most.
SEEN_EVERY = timedelta(hours=1)

USED = N_("This sign-in link was used already: ask for a new one.")
EXPIRED = N_("This sign-in link has expired: ask for a new one.")


def ask(db: Database, address: str, now: datetime | None = None) -> None:
    """Mail a sign-in link to the player of ``address`` (InputError when it is not one bare address); nothing when
    the address is no player's."""
    email = email_address(address)
    now = now or utcnow()
    with db.session() as session:
        player_id = session.execute(select(Player.id).where(Player.email == email)).scalar_one_or_none()
        if player_id is None:
            return
        session.execute(
            delete(SigninLink).where(SigninLink.player_id == player_id, SigninLink.created_at < now - LINK_LIFETIME)
        )
        link = SigninLink(player_id=player_id, created_at=now)
        session.add(link)
        session.flush()
        add(session, [player_mail(player_id, MailKind.SIGNIN, f"signin:{link.id}", {"link": link.id}, now)])


@dataclass(frozen=True)
class Link:
    """A sign-in link that still opens: whose it is (shown on the page before it is used)."""

    id: int
    player_id: int
    email: str


def _live(session: Session, link_id: object, now: datetime) -> Link:
    """The link ``link_id`` names while it still opens: not used, not older than ``LINK_LIFETIME``; LinkError
    saying which otherwise."""
    found = session.execute(
        select(SigninLink.id, SigninLink.used_at, SigninLink.created_at, Player.id, Player.email)
        .join(Player, Player.id == SigninLink.player_id)
        .where(SigninLink.id == link_id)
    ).one_or_none()
    if found is None:
        raise LinkError(N_("This link is not valid."))
    found_id, used_at, created_at, player_id, email = found
    if used_at is not None:
        raise LinkError(USED)
    if created_at < now - LINK_LIFETIME:
        raise LinkError(EXPIRED)
    return Link(found_id, player_id, email)


def mailable(session: Session, link_id: object, player_id: int, now: datetime) -> Link | None:
    """The link of a sign-in mail to ``player_id`` when it is theirs and still opens; None (the mail is not sent)
    otherwise."""
    try:
        link = _live(session, link_id, now)
    except LinkError:
        return None
    return link if link.player_id == player_id else None


def check_link(db: Database, secret_key: str, token: str, now: datetime | None = None) -> Link:
    """The unused, unexpired link a token names; LinkError otherwise. Changes nothing."""
    link_id = read_signin_token(secret_key, token, int(LINK_LIFETIME.total_seconds()))
    with db.session() as session:
        return _live(session, link_id, now or utcnow())


def open_link(db: Database, secret_key: str, token: str, agent: str, now: datetime | None = None) -> str:
    """Use the link (once) and start a session for its player; the session's id (for the session cookie).
    LinkError for a link used, expired, or not ours."""
    link_id = read_signin_token(secret_key, token, int(LINK_LIFETIME.total_seconds()))
    now = now or utcnow()
    session_id = secrets.token_urlsafe(32)
    with db.session() as session:
        link = _live(session, link_id, now)
        used = session.execute(
            update(SigninLink)
            .where(SigninLink.id == link.id, SigninLink.used_at.is_(None))
            .values(used_at=now)
            .execution_options(synchronize_session=False)
        )
        if used.rowcount != 1:  # type: ignore[attr-defined]  # (another request used it since the read)
            raise LinkError(USED)
        session.execute(delete(PlayerSession).where(PlayerSession.created_at < now - LIFETIME))
        session.add(
            PlayerSession(id=session_id, player_id=link.player_id, agent=agent[:120], created_at=now, seen_at=now)
        )
    return session_id


def find(db: Database, session_id: object, now: datetime | None = None) -> int | None:
    """The player a session cookie names; None when it names none, or the session was ended or has expired."""
    if not isinstance(session_id, str) or not 0 < len(session_id) <= 64:
        return None
    now = now or utcnow()
    with db.session() as session:
        row = session.get(PlayerSession, session_id)
        if row is None or row.created_at < now - LIFETIME:
            return None
        if row.seen_at < now - SEEN_EVERY:
            row.seen_at = now
        return row.player_id


def link_generation(db: Database, player_id: int) -> int:
    """The player's current link generation: their hub's link is made of it."""
    with db.session() as session:
        return int(session.execute(select(Player.link_generation).where(Player.id == player_id)).scalar_one())


@dataclass(frozen=True)
class Browser:
    """A signed-in browser, as the player's hub lists it."""

    agent: str
    created_at: datetime
    seen_at: datetime
    current: bool


def browsers(db: Database, player_id: int, current: object, now: datetime | None = None) -> list[Browser]:
    """The player's live sessions, newest first; ``current``: this browser's session id (marked)."""
    now = now or utcnow()
    with db.session() as session:
        rows = session.scalars(
            select(PlayerSession)
            .where(PlayerSession.player_id == player_id, PlayerSession.created_at >= now - LIFETIME)
            .order_by(PlayerSession.created_at.desc())
        ).all()
        return [Browser(r.agent, r.created_at, r.seen_at, r.id == current) for r in rows]


def end(db: Database, session_id: object) -> None:
    """Sign this browser out: its session opens nothing any more, whoever holds a copy of its cookie."""
    if isinstance(session_id, str):
        with db.session() as session:
            session.execute(delete(PlayerSession).where(PlayerSession.id == session_id))


def end_all(db: Database, player_id: int) -> int:
    """Sign out everywhere: every session of the player ends, and so does every link to their hub given so far (a
    signed-in browser was sent to one: its generation is raised, as when a seat's links are revoked; the next mail
    carries a new one). How many sessions there were."""
    with db.session() as session:
        ended = session.execute(delete(PlayerSession).where(PlayerSession.player_id == player_id))
        session.execute(update(Player).where(Player.id == player_id).values(link_generation=Player.link_generation + 1))
        return int(ended.rowcount)  # type: ignore[attr-defined]
