"""The claim of the outbox discipline, shared by mail (``Outbox``), notifications (``Nudge``) and webhook posts
(``ChannelPost``), and the back-off of HTTP senders (``backoff``): due pending rows
move to "sending" in one conditional UPDATE, so of two workers (or a task and the sweep) only one gets a row; each
claim counts as an attempt and is dated when it is made (a row is released as stuck only that long after its
sender took it: each table's own ``release``)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, delete, select, update
from sqlalchemy.orm import Session

from ..models import ChannelPost, Nudge, Outbox, OutboxStatus, utcnow


def claim(
    session: Session,
    table: type[Outbox] | type[Nudge] | type[ChannelPost],
    now: datetime,
    ids: Iterable[int] | None,
    limit: int,
    *where: ColumnElement[bool],
) -> list[int]:
    """Take due pending rows of ``table`` (and ``where``): those of ``ids``, or (without ``ids``) up to ``limit`` in
    the order they were written, skipping rows another worker is claiming (``FOR UPDATE SKIP LOCKED``; SQLite has one
    writer)."""
    due = (table.status == OutboxStatus.PENDING, table.next_attempt_at <= now, *where)
    if ids is None:
        # a CTE, computed once (a subquery under IN may be run again by PostgreSQL's plan, claiming more)
        chosen = (
            select(table.id)
            .where(*due)
            .order_by(table.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
            .cte("chosen")
            .prefix_with("MATERIALIZED", dialect="postgresql")
        )
        which = table.id.in_(select(chosen.c.id))
    else:
        which = table.id.in_(list(ids))
    claimed = session.execute(
        update(table)
        .where(which, *due)
        .values(status=OutboxStatus.SENDING, attempts=table.attempts + 1, next_attempt_at=max(now, utcnow()))
        .returning(table.id)
    ).scalars()
    return sorted(claimed)


#: a receiver's ``Retry-After`` is honoured up to this many seconds.
MAX_RETRY_AFTER = 6 * 3600.0


def backoff(attempts: int, retry_after: float | None = None) -> timedelta:
    """The wait before the next try of a notification or a webhook post: 30 s, 1 min, 2 min … at most an hour;
    never sooner than the receiver's ``Retry-After`` (up to ``MAX_RETRY_AFTER``)."""
    wait = min(3600.0, 30.0 * 2 ** max(0, attempts - 1))
    return timedelta(seconds=max(wait, min(retry_after or 0.0, MAX_RETRY_AFTER)))


#: a notification's or a webhook post's statuses once done with (``prune`` deletes them when old).
FINAL = (OutboxStatus.SENT, OutboxStatus.SKIPPED, OutboxStatus.FAILED)


def prune(session: Session, table: type[Nudge] | type[ChannelPost], now: datetime, limit: int, keep: timedelta) -> int:
    """Delete up to ``limit`` final rows of ``table`` last tried more than ``keep`` ago; how many."""
    old = select(table.id).where(table.status.in_(FINAL), table.next_attempt_at < now - keep).limit(limit)
    ids = list(session.execute(old).scalars())
    if ids:
        session.execute(delete(table).where(table.id.in_(ids)))
    return len(ids)
