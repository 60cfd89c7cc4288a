"""Posts to webhook channels (``ChannelPost`` rows), with the outbox's discipline: written in the transaction of
the change they tell (``post``), one per channel and event (the key is unique: an event told twice is posted once),
sent by the worker's ``channel`` sweep part (``server/mail/channel.py``), claimed once with a conditional UPDATE
(``claims``), retried with back-off (never sooner than the receiver's ``Retry-After``), a row left in "sending" by a
dead worker released after ``STUCK_AFTER``; final rows pruned after ``keep``.

A channel counts its failed tries in a row (a post taken resets it); after ``MAX_FAILURES`` it is paused: nothing
more is sent to it, the post that failed and the events written since wait, and its organiser gets one
``channel_paused`` mail (a league's ``organiser_email``; a game's creator). Resuming it (``channels``) sends what
waits."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ...db import Database
from ...models import Channel, ChannelPost, Game, League, MailKind, OutboxStatus
from .. import claims
from ..mailflow import outbox
from ..play import games
from . import channels

#: failed tries in a row that pause a channel.
MAX_FAILURES = 5
#: tries of one post (429, 5xx, the network) before it is given up.
MAX_ATTEMPTS = 8
STUCK_AFTER = timedelta(minutes=5)
#: a final row is deleted this long after it was last tried.
KEEP = timedelta(days=3)


def post(
    session: Session,
    key: str,
    payload: dict[str, Any],
    now: datetime,
    *,
    league_id: int | None = None,
    game_id: int | None = None,
) -> ChannelPost | None:
    """Write the event ``payload`` (public facts only: ``events`` builds them) for the league's (or the game's)
    channel in the caller's transaction, once per ``key`` (a paused channel's wait for it to resume): the row, or None
    when there is no channel or the event was written already."""
    channel = channels.find(session, league_id=league_id, game_id=game_id)
    if channel is None:
        return None
    stored = f"{channel.id}/{key}"[:160]
    if session.execute(select(ChannelPost.id).where(ChannelPost.key == stored)).first() is not None:
        return None
    row = ChannelPost(
        key=stored,
        channel_id=channel.id,
        payload=payload,
        status=OutboxStatus.PENDING,
        attempts=0,
        created_at=now,
        next_attempt_at=now,
    )
    try:
        with session.begin_nested():  # (another transaction wrote it meanwhile: its row stands)
            session.add(row)
    except IntegrityError:
        return None
    return row


# --- sending: claimed, read, recorded ---------------------------------------------------------------------------------


def claim_many(db: Database, now: datetime, *, ids: Iterable[int] | None = None, limit: int = 100) -> list[int]:
    """Take due pending posts of channels not paused in one statement: those of ``ids``, or up to ``limit`` in the
    order they were written (after releasing rows stuck in "sending"), skipping rows another worker is claiming."""
    with db.session() as session:
        if ids is None:
            stuck = (ChannelPost.status == OutboxStatus.SENDING, ChannelPost.next_attempt_at <= now - STUCK_AFTER)
            session.execute(update(ChannelPost).where(*stuck).values(status=OutboxStatus.PENDING))
        live = ChannelPost.channel_id.in_(select(Channel.id).where(Channel.paused_at.is_(None)))
        return claims.claim(session, ChannelPost, now, ids, limit, live)


@dataclass(frozen=True, slots=True)
class Pending:
    """A claimed post with its channel's address."""

    id: int
    channel_id: int
    url: str
    payload: dict[str, Any]
    attempts: int


def read(db: Database, ids: list[int]) -> list[Pending]:
    """The claimed posts of ``ids`` with their channels' addresses, in the order they were written (one query)."""
    with db.session() as session:
        found = session.execute(
            select(ChannelPost.id, ChannelPost.channel_id, Channel.url, ChannelPost.payload, ChannelPost.attempts)
            .join(Channel, Channel.id == ChannelPost.channel_id)
            .where(ChannelPost.id.in_(ids))
            .order_by(ChannelPost.id)
        ).all()
        return [Pending(*row) for row in found]


def sent(db: Database, post_id: int, now: datetime) -> None:
    """The receiver took it: the post is sent and its channel's failures are forgotten."""
    with db.session() as session:
        row = session.get(ChannelPost, post_id)
        if row is None:
            return
        row.status, row.sent_at, row.last_error = OutboxStatus.SENT, now, None
        session.execute(update(Channel).where(Channel.id == row.channel_id).values(failures=0, last_error=None))


def release(db: Database, ids: list[int]) -> None:
    """Claimed posts that were not tried (their channel was paused meanwhile): pending again, their claim not
    counted as a try."""
    if ids:
        with db.session() as session:
            session.execute(
                update(ChannelPost)
                .where(ChannelPost.id.in_(ids), ChannelPost.status == OutboxStatus.SENDING)
                .values(status=OutboxStatus.PENDING, attempts=ChannelPost.attempts - 1)
            )


def failed(db: Database, post_id: int, error: str, now: datetime, *, permanent: bool, retry_after: float | None) -> str:
    """A try that failed: 'retry' later with back-off (429, 5xx, the network), 'failed' for good (another 4xx, an
    address refused, too many tries), or 'paused': the channel's ``MAX_FAILURES``-th failure in a row, the channel
    paused (the post waits for its resumption) and its organiser mailed once."""
    with db.session() as session:
        row = session.get(ChannelPost, post_id)
        if row is None or row.status != OutboxStatus.SENDING:
            return "skipped"
        channel = session.get(Channel, row.channel_id, with_for_update=True)
        assert channel is not None
        row.last_error = channel.last_error = error[:2000]
        channel.failures += 1
        if channel.failures >= MAX_FAILURES and channel.paused_at is None:
            channel.paused_at = now
            row.status, row.next_attempt_at = OutboxStatus.PENDING, now
            _tell_paused(session, channel, now)
            return "paused"
        if permanent or row.attempts >= MAX_ATTEMPTS:
            row.status = OutboxStatus.FAILED
            return "failed"
        row.status = OutboxStatus.PENDING
        row.next_attempt_at = now + claims.backoff(row.attempts, retry_after)
        return "retry"


def _tell_paused(session: Session, channel: Channel, now: datetime) -> None:
    """One ``channel_paused`` mail to the channel's organiser: the league's organiser address, or the game's creator
    (none when the league has no address)."""
    payload: dict[str, Any] = {"channel": channel.id}
    player_id: int | None = None
    if channel.league_id is not None:
        league = session.get(League, channel.league_id)
        if league is not None and league.organiser_email:
            player_id = games.address_player(session, league.organiser_email, league.timezone).id
            payload["lang"] = league.language
    elif channel.game_id is not None:
        game = session.get(Game, channel.game_id)
        player_id = None if game is None else game.creator_id
    if player_id is not None:
        key = f"channel_paused:{channel.id}:{int(now.timestamp())}"
        outbox.add(session, [outbox.player_mail(player_id, MailKind.CHANNEL_PAUSED, key, payload, now)])


def prune(db: Database, now: datetime, limit: int = 1000, keep: timedelta = KEEP) -> int:
    """Delete up to ``limit`` final posts last tried more than ``keep`` ago; how many."""
    with db.session() as session:
        return claims.prune(session, ChannelPost, now, limit, keep)
