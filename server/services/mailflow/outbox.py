"""The outbox: notifications written in the same transaction as the change they tell about, and their sending
state (claimed, sent, retried with back-off, failed). Composing and handing a mail to a transport is
``server/mail/send.py``'s job; this module keeps the rows.

A row is sent once: ``claim`` moves it from pending to sending with a conditional UPDATE, so of two workers (or a
task and the sweep) only one gets it; a row left in sending by a dead worker is released after ``STUCK_AFTER``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Table, bindparam, delete, exists, func, select, text, update
from sqlalchemy.orm import Session, aliased
from sqlalchemy.sql.elements import ColumnElement

from ...db import Database, push_after_commit, send_after_commit
from ...models import MailKind, Outbox, OutboxStatus, Player, SeasonPlayer, Seat, Window, WindowStatus, utcnow
from .. import claims
from ..notify import nudges

log = logging.getLogger("deadmail.outbox")

MAX_ATTEMPTS = 10
#: a row left in "sending" this long (a worker died mid-send) is tried again.
STUCK_AFTER = timedelta(minutes=10)
#: notifications a player on a digest receives together (``reminders.release_digests`` sends the digest).
DIGESTED = frozenset({MailKind.TURN, MailKind.UPDATE, MailKind.GAME_OVER})
#: a digest holding a decision that closes within this much time goes at once (``reminders.release_digests``).
URGENT = timedelta(hours=2)
#: a stored ``digest_hours`` beyond this (a week) counts as a week.
MAX_DIGEST_HOURS = 7 * 24
#: kinds told by a seat's own notification; a newer one of these to the same seat covers an older one.
NOTICES = (MailKind.TURN, MailKind.UPDATE, MailKind.GAME_OVER)
#: rows not yet handed to a transport.
UNSENT = (OutboxStatus.PENDING, OutboxStatus.HELD)
#: why a row stuck in "sending" at its last try failed for good (its mail may have gone out).
STUCK_ERROR = "still sending after its last try (the worker died or the database failed): it may have been sent"
#: rows that will still be sent.
WAITING = (OutboxStatus.PENDING, OutboxStatus.SENDING, OutboxStatus.HELD)
#: rows done with: never tried again (``prune`` deletes them once they are old and nothing needs them).
FINAL = (OutboxStatus.SENT, OutboxStatus.SKIPPED, OutboxStatus.MERGED, OutboxStatus.FAILED)
#: the kinds of row whose mail can start a seat's thread (``mail_rows.starts_thread``: the seat's first such row).
THREAD_STARTERS = (MailKind.TURN, MailKind.UPDATE, MailKind.GAME_OVER, MailKind.LINK)
#: kinds whose rows are counted to number the next one (``confirm_entry``, ``leagues.invite``): never pruned.
COUNTED = (MailKind.LEAGUE_CONFIRM, MailKind.LEAGUE_INVITE)
#: the ``next_attempt_at`` of a league invitation held until a season of its league takes sign-ups (never due
#: before: ``release_invitations`` makes it due when one opens).
HELD_UNTIL_SEASON = datetime(9999, 1, 1, tzinfo=UTC)
#: how long a final row is kept by default (``Settings.outbox_keep_days``, ``DEADMAIL_OUTBOX_KEEP_DAYS``).
KEEP = timedelta(days=3)


def notice(
    seat: Seat, kind: MailKind, key: str, payload: dict[str, Any], now: datetime, closes: datetime | None = None
) -> Outbox:
    """A notification for the seat's player; ``key`` makes it unique, so a repeated advance cannot queue it twice.
    Held for the digest when the player asked for one: the digest sweep looks at it at ``digest_due`` (``closes``:
    the deadline of the decision it asks for)."""
    assert seat.player_id is not None and seat.player is not None
    row = player_mail(seat.player_id, kind, key, payload, now)
    row.game_id, row.seat_id = seat.game_id, seat.id
    if kind in DIGESTED and seat.player.mail_mode == "digest":
        row.status = OutboxStatus.HELD
        row.next_attempt_at = digest_due(seat.player, now, closes)
    return row


def digest_span(player: Player) -> timedelta:
    """How long the player's digest gathers notifications: their ``digest_hours`` (4 when unset), at most a week."""
    hours = player.digest_hours if player.digest_hours is not None else 4
    return timedelta(hours=min(max(0, hours), MAX_DIGEST_HOURS))


def digest_due(player: Player, now: datetime, closes: datetime | None = None) -> datetime:
    """When the digest sweep first looks at a row held now (its ``next_attempt_at``): once the digest's span has
    passed, or ``URGENT`` before the deadline ``closes`` of the decision it asks for, whichever comes first."""
    due = now + digest_span(player)
    return due if closes is None else max(now, min(due, closes - URGENT))


def look_at_held(session: Session, *where: ColumnElement[bool]) -> None:
    """The digest sweep looks again at once at the held rows matching ``where`` (a player's digest settings changed,
    or a deadline came sooner), instead of at the instant it had planned."""
    session.execute(
        update(Outbox)
        .where(Outbox.status == OutboxStatus.HELD, *where)
        .values(next_attempt_at=Outbox.created_at)
        .execution_options(synchronize_session=False)
    )


def player_mail(player_id: int, kind: MailKind, key: str, payload: dict[str, Any], now: datetime) -> Outbox:
    """A mail to a player that is not about one seat (a reminder, a digest, an organiser link), due now."""
    return Outbox(
        key=key,
        game_id=None,
        player_id=player_id,
        seat_id=None,
        kind=kind,
        payload=payload,
        status=OutboxStatus.PENDING,
        created_at=now,
        next_attempt_at=now,
    )


def confirm_entry(
    session: Session, entry: SeasonPlayer, now: datetime, *, sent: int | None = None, language: str | None = None
) -> None:
    """Queue the confirmation mail of a pending season entry (each mail its own row: a resend is a new one; ``sent``:
    how many it had, counted here when not given), in ``language`` when given (a sign-up's form: the player row may
    not be the applicant's yet), else the player's own."""
    if sent is None:
        sent = session.execute(
            select(func.count()).select_from(Outbox).where(Outbox.key.like(f"league_confirm:{entry.id}:%"))
        ).scalar_one()
    payload: dict[str, Any] = {"entry": entry.id} if language is None else {"entry": entry.id, "lang": language}
    key = f"league_confirm:{entry.id}:{sent + 1}"
    add(session, [player_mail(entry.player_id, MailKind.LEAGUE_CONFIRM, key, payload, now)])


def add(session: Session, rows: Iterable[Outbox]) -> list[Outbox]:
    """Write the rows and the notifications to devices that go with them (``notify.nudges.follow``, which may hold
    a decision's mail on the player's ladder); those to send now go out once the transaction has committed (held
    ones wait)."""
    rows = list(rows)
    pushed = nudges.follow(session, rows, min((row.created_at for row in rows), default=utcnow()))
    session.add_all(rows)
    session.flush()
    send_after_commit(session, (row.id for row in rows if row.status == OutboxStatus.PENDING))
    push_after_commit(session, (nudge.id for nudge in pushed if nudge.next_attempt_at <= nudge.created_at))
    return rows


def claim(db: Database, row_id: int, now: datetime) -> bool:
    """Take a due pending row for sending; False when it is not due, not pending, or taken by someone else."""
    return claim_many(db, now, ids=[row_id]) == [row_id]


def claim_many(db: Database, now: datetime, *, ids: list[int] | None = None, limit: int = 100) -> list[int]:
    """Take due pending rows for sending in one statement: those of ``ids``, or (without ``ids``) up to ``limit`` in
    the order they were written, skipping rows another worker is claiming (``FOR UPDATE SKIP LOCKED``; SQLite has one
    writer). Without ``ids``, rows stuck in 'sending' are released first (``release_stuck``). The claim is dated when
    it is made, not at ``now`` (a sweep's start, which may be long past after a slow SMTP server): a row is released
    as stuck only ``STUCK_AFTER`` after its sender took it, never while that sender still works."""
    with db.session() as session:
        if ids is None:
            _release_stuck(session, now)
        return claims.claim(session, Outbox, now, ids, limit)


def release(db: Database, ids: list[int]) -> None:
    """Claimed rows that were never tried (their batch's connection failed first): pending again, due at once, their
    claim not counted as an attempt."""
    if ids:
        with db.session() as session:
            session.execute(
                update(Outbox)
                .where(Outbox.id.in_(ids), Outbox.status == OutboxStatus.SENDING)
                .values(status=OutboxStatus.PENDING, attempts=Outbox.attempts - 1)
            )


def skipped(db: Database, row_id: int) -> None:
    """Nothing was left to tell when the row was due: it is never sent."""
    with db.session() as session:
        session.execute(update(Outbox).where(Outbox.id == row_id).values(status=OutboxStatus.SKIPPED))


def sent(db: Database, row_id: int, told: dict[int, int], chat: dict[int, int]) -> None:
    """The transport took the mail: the row is sent, and the seats it told (seat id -> events of their view, seat id
    -> last table-talk message) move their ``told_events`` and ``chat_mailed_id`` on (never back), so they are not
    told the same again. One transaction; on PostgreSQL one statement (the seats' updates in its WITH), so a mark
    costs one round trip to the database, not one per statement with a BEGIN and a COMMIT."""
    if db.is_sqlite:  # (no arrays to update from): a statement per column, run for each seat
        seats = Seat.__table__
        assert isinstance(seats, Table)
        with db.session() as session:
            done = update(Outbox).where(Outbox.id == row_id)
            session.execute(done.values(status=OutboxStatus.SENT, sent_at=utcnow()))
            for column, values in (("told_events", told), ("chat_mailed_id", chat)):
                if not values:
                    continue
                mark = seats.c[column]
                session.execute(
                    update(seats)
                    .where(seats.c.id == bindparam("seat"), mark.is_(None) | (mark < bindparam("value")))
                    .values({column: bindparam("value")}),
                    [{"seat": seat_id, "value": value} for seat_id, value in values.items()],
                )
        return
    # a mark lost only if PostgreSQL itself crashes within the next moments (the mail then goes again, the same
    # Message-ID), never when the worker does: not worth waiting for a disk flush after every mail
    seat_ids = sorted({*told, *chat})
    with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(
            _SENT,
            {
                "row": row_id,
                "now": utcnow().replace(tzinfo=None),
                "seats": seat_ids,
                "told": [told.get(seat_id) for seat_id in seat_ids],
                "chat": [chat.get(seat_id) for seat_id in seat_ids],
            },
        )


#: ``sent`` on PostgreSQL, one statement (one round trip, compiled once): the seats told move their marks on (never
#: back) in its WITH (a row updated twice in one statement keeps only one update: both marks in one); the disk
#: flush is left out for its own transaction only (``set_config(..., true)``).
_SENT = text(
    """
    WITH moved AS (
        UPDATE seats SET told_events = GREATEST(seats.told_events, given.told),
                         chat_mailed_id = GREATEST(seats.chat_mailed_id, given.chat)
        FROM unnest(CAST(:seats AS integer[]), CAST(:told AS integer[]), CAST(:chat AS integer[]))
             AS given(seat, told, chat)
        WHERE seats.id = given.seat
    )
    UPDATE outbox SET status = 'sent', sent_at = :now
    WHERE id = :row AND set_config('synchronous_commit', 'off', true) IS NOT NULL
    """
)


def failed(db: Database, row_id: int, error: str, now: datetime) -> str:
    """The transport refused or could not be reached: 'retry' later with back-off, or 'failed' for good."""
    with db.session() as session:
        row = session.get(Outbox, row_id)
        assert row is not None
        if row.status != OutboxStatus.SENDING:  # marked sent before the failure (say, of QUIT): nothing to try again
            return str(row.status)
        row.last_error = error[:2000]
        if row.attempts >= MAX_ATTEMPTS:
            row.status = OutboxStatus.FAILED
            log.error("outbox %s failed for good: %s", row_id, row.last_error)
            return "failed"
        row.status = OutboxStatus.PENDING
        row.next_attempt_at = now + claims.backoff(row.attempts)
        return "retry"


def due_rows(db: Database, now: datetime, limit: int = 500) -> list[int]:
    """Pending rows whose time has come, after releasing rows stuck in 'sending' (``release_stuck``)."""
    with db.session() as session:
        _release_stuck(session, now)
        rows = session.execute(
            select(Outbox.id)
            .where(Outbox.status == OutboxStatus.PENDING, Outbox.next_attempt_at <= now)
            .order_by(Outbox.id)
            .limit(limit)
        ).scalars()
        return list(rows)


def _release_stuck(session: Session, now: datetime) -> None:
    """Rows stuck in 'sending' by a dead worker (or a mark that failed): tried again, or failed for good once they
    had ``MAX_ATTEMPTS`` tries like any failing row."""
    stuck = (Outbox.status == OutboxStatus.SENDING, Outbox.next_attempt_at <= now - STUCK_AFTER)
    given_up = session.execute(
        update(Outbox)
        .where(*stuck, Outbox.attempts >= MAX_ATTEMPTS)
        .values(status=OutboxStatus.FAILED, last_error=STUCK_ERROR)
        .returning(Outbox.id)
    ).scalars()
    for row_id in given_up:
        log.error("outbox %s failed for good: %s", row_id, STUCK_ERROR)
    session.execute(update(Outbox).where(*stuck).values(status=OutboxStatus.PENDING))


def covered(session: Session, row: Outbox) -> bool:
    """A newer notification to the same seat is still to be sent: it tells everything this one would."""
    newer = session.execute(
        select(Outbox.id).where(
            Outbox.seat_id == row.seat_id,
            Outbox.id > row.id,
            Outbox.kind.in_(NOTICES),
            Outbox.status.in_(WAITING),
        )
    ).first()
    return newer is not None


def rows(session: Session, ids: Iterable[int]) -> list[Outbox]:
    """The outbox rows of ``ids``, in the order they were written (a digest's held rows)."""
    return list(session.execute(select(Outbox).where(Outbox.id.in_(list(ids))).order_by(Outbox.id)).scalars())


def prune(db: Database, now: datetime, limit: int = 1000, keep: timedelta = KEEP) -> int:
    """Delete up to ``limit`` final rows last tried more than ``keep`` ago that nothing needs any more; returns how
    many. Kept whatever their age: rows written while their game's window is still open (the window's keys, ``turn:``,
    ``update:``, ``lastcall:``, ``absent:``, must stay taken while an advance or an answer could write them again), a
    seat's first row of a ``THREAD_STARTERS`` kind (its Message-ID is the seat's thread root), rows a waiting digest
    merges, and ``COUNTED`` kinds. Other keys are made once (a reminder's request and step, a reply's inbound mail)
    or only within a day of their row (a chat slot, a session's day: ``keep`` must be a day or more)."""
    first = aliased(Outbox)
    first_starter = (
        select(func.min(first.id))
        .where(first.game_id == Outbox.game_id, first.seat_id == Outbox.seat_id, first.kind.in_(THREAD_STARTERS))
        .scalar_subquery()
    )
    open_window = exists().where(
        Window.game_id == Outbox.game_id, Window.status != WindowStatus.CLOSED, Window.opened_at <= Outbox.created_at
    )
    with db.session() as session:
        digests = session.execute(
            select(Outbox.payload).where(Outbox.status.in_(WAITING), Outbox.kind == MailKind.DIGEST)
        ).scalars()
        merged = [i for payload in digests for i in payload.get("rows") or [] if isinstance(i, int)]
        old = (
            select(Outbox.id)
            .where(
                Outbox.status.in_(FINAL),
                Outbox.next_attempt_at < now - keep,
                Outbox.kind.not_in(COUNTED),
                Outbox.id.not_in(merged),
                ~open_window,
                (Outbox.kind.not_in(THREAD_STARTERS)) | (Outbox.id != first_starter),
            )
            .limit(limit)
        )
        ids = list(session.execute(old).scalars())
        if ids:
            session.execute(delete(Outbox).where(Outbox.id.in_(ids)))
        return len(ids)


def held_invitations(league_id: int) -> tuple[ColumnElement[bool], ...]:
    """The conditions of the league's invitations held until one of its seasons takes sign-ups."""
    return (
        Outbox.kind == MailKind.LEAGUE_INVITE,
        Outbox.key.like(f"league_invite:{league_id}:%"),
        Outbox.status == OutboxStatus.PENDING,
        Outbox.next_attempt_at == HELD_UNTIL_SEASON,
    )


def release_invitations(session: Session, league_id: int, now: datetime) -> None:
    """A season of the league opened for sign-ups: its held invitations are mailed (once the transaction commits)."""
    ids = list(
        session.execute(
            update(Outbox)
            .where(*held_invitations(league_id))
            .values(next_attempt_at=now)
            .returning(Outbox.id)
            .execution_options(synchronize_session=False)
        ).scalars()
    )
    send_after_commit(session, ids)
