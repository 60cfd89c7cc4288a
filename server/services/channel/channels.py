"""A league's or a game's webhook channel: at most one per league and one per game (``Channel.league_id`` or
``Channel.game_id``). Setting an address checks it first (``urls.check_url``: refused, nothing is stored) and
starts the channel afresh (its failures forgotten, not paused); removing it deletes its waiting posts with it;
resuming a paused channel sends what waits."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, delete, select, update
from sqlalchemy.orm import Session

from ...db import Database
from ...models import Channel, ChannelPost, Game, League, OutboxStatus, utcnow
from ..errors import N_
from .urls import ChannelError, check_url

NO_LEAGUE = N_("There is no league %(league)s.")
NO_GAME = N_("There is no game %(game)s.")
NO_CHANNEL = N_("No webhook address is set: nothing was changed.")


@dataclass(frozen=True, slots=True)
class ChannelShown:
    """A channel as its organiser sees it: its address, failed tries in a row, the last error, when it was paused
    (None: it posts), and the posts waiting to go."""

    url: str
    failures: int
    last_error: str | None
    paused_at: datetime | None
    waiting: int


def _owner(league_id: int | None, game_id: int | None) -> ColumnElement[bool]:
    assert (league_id is None) != (game_id is None), "a league's or a game's channel"
    return Channel.league_id == league_id if league_id is not None else Channel.game_id == game_id


def find(session: Session, *, league_id: int | None = None, game_id: int | None = None) -> Channel | None:
    """The league's (or the game's) channel, None when it has none."""
    return session.execute(
        select(Channel).where(_owner(league_id, game_id)).order_by(Channel.id).limit(1)
    ).scalar_one_or_none()


def _set(session: Session, url: str, now: datetime, *, league_id: int | None, game_id: int | None) -> Channel:
    channel = find(session, league_id=league_id, game_id=game_id)
    if channel is None:
        channel = Channel(url=url, league_id=league_id, game_id=game_id, failures=0, created_at=now)
        session.add(channel)
    else:
        if channel.url != url:  # posts waiting for the old address are not for the new one
            session.execute(
                delete(ChannelPost).where(
                    ChannelPost.channel_id == channel.id, ChannelPost.status == OutboxStatus.PENDING
                )
            )
        channel.url = url
    channel.failures, channel.last_error, channel.paused_at = 0, None, None
    session.flush()
    return channel


def set_league_channel(db: Database, league_id: int, url: object, *, allow_private: bool, now: datetime) -> int:
    """Set the league's webhook address (checked first; ChannelError, nothing stored, when refused): its channel's
    id. The league's row is locked: two organisers at once make one channel."""
    checked = check_url(url, allow_private)
    with db.session() as session:
        if session.get(League, league_id, with_for_update=True) is None:
            raise ChannelError(NO_LEAGUE, league=league_id)
        return _set(session, checked, now, league_id=league_id, game_id=None).id


def set_game_channel(
    session: Session, game_id: int, url: object, *, allow_private: bool, now: datetime | None = None
) -> int:
    """Set a game's webhook address in the caller's transaction (its creator's, from ``services.lobby`` when its
    game starts): checked first (ChannelError, nothing stored); the channel's id."""
    checked = check_url(url, allow_private)
    if session.get(Game, game_id, with_for_update=True) is None:
        raise ChannelError(NO_GAME, game=game_id)
    return _set(session, checked, now or utcnow(), league_id=None, game_id=game_id).id


def clear_game_channel(session: Session, game_id: int) -> bool:
    """Remove a game's webhook address (and its waiting posts) in the caller's transaction: whether it had one."""
    found = session.execute(delete(Channel).where(Channel.game_id == game_id).returning(Channel.id)).all()
    return bool(found)


def clear_league_channel(db: Database, league_id: int) -> bool:
    """Remove the league's webhook address and its waiting posts: whether it had one."""
    with db.session() as session:
        found = session.execute(delete(Channel).where(Channel.league_id == league_id).returning(Channel.id)).all()
        return bool(found)


def _resume(session: Session, channel: Channel | None, now: datetime) -> None:
    if channel is None:
        raise ChannelError(NO_CHANNEL)
    channel.failures, channel.paused_at = 0, None
    session.execute(  # what waited goes now
        update(ChannelPost)
        .where(ChannelPost.channel_id == channel.id, ChannelPost.status == OutboxStatus.PENDING)
        .values(next_attempt_at=now)
    )


def resume_league_channel(db: Database, league_id: int, now: datetime) -> None:
    """The organiser resumes the league's paused channel: its posts go again (ChannelError when it has none)."""
    with db.session() as session:
        _resume(session, find(session, league_id=league_id), now)


def resume_game_channel(session: Session, game_id: int, now: datetime) -> None:
    """A game's creator resumes its paused channel, in the caller's transaction (ChannelError when it has none)."""
    _resume(session, find(session, game_id=game_id), now)


def shown(session: Session, *, league_id: int | None = None, game_id: int | None = None) -> ChannelShown | None:
    """The league's (or the game's) channel as its organiser sees it; None when it has none."""
    channel = find(session, league_id=league_id, game_id=game_id)
    if channel is None:
        return None
    waiting = session.execute(
        select(ChannelPost.id).where(ChannelPost.channel_id == channel.id, ChannelPost.status == OutboxStatus.PENDING)
    ).all()
    return ChannelShown(channel.url, channel.failures, channel.last_error, channel.paused_at, len(waiting))


def league_channel(db: Database, league_id: int) -> ChannelShown | None:
    """``shown`` for a league, in its own transaction (the organiser's page and the API)."""
    with db.session() as session:
        return shown(session, league_id=league_id)


def game_channel(session: Session, game_id: int) -> ChannelShown | None:
    """``shown`` for a game, in the caller's transaction (its creator's page)."""
    return shown(session, game_id=game_id)


def of_game(db: Database, game_id: int) -> ChannelShown | None:
    """``shown`` for a game, in its own transaction (the game's organiser page)."""
    with db.session() as session:
        return shown(session, game_id=game_id)


def change_game(db: Database, game_id: int, action: str, url: object, *, allow_private: bool, now: datetime) -> str:
    """The game page's channel form: ``set`` the address ``url`` (checked), ``remove`` it, or ``resume`` a paused
    channel. Returns what was done; ChannelError (nothing changed) when refused."""
    with db.session() as session:
        if action == "set":
            set_game_channel(session, game_id, url, allow_private=allow_private, now=now)
            return "channel_set"
        if action == "remove":
            return "channel_removed" if clear_game_channel(session, game_id) else "unchanged"
        if action == "resume":
            resume_game_channel(session, game_id, now)
            return "channel_resumed"
    raise ChannelError(N_("Choose to set, remove or resume the channel."))
