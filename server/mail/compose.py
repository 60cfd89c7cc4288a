"""The mails: one outbox row -> one translated mail (plain text and HTML with inlined CSS), a composer per kind
(``kinds``: the games' mails, ``league_kinds``: the leagues'), rows composed together in batches.

``Seat.told_events`` (how many events of its own view a seat was told) is moved on only once the mail is sent:
``compose`` returns what it told with the message (:class:`Mail`), and ``send.send_one`` records it after the
transport accepted the mail.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from sqlalchemy.orm import Session

from ..config import Settings
from ..db import Database
from ..models import MailKind, Outbox, Seat, utcnow
from ..services.mailflow import mail_rows
from ..services.play.seats import Shared
from . import league_kinds, lobby_kinds
from .drafts import Draft, Mail
from .kinds import Composer, notice_mail, shared_parts

log = logging.getLogger("deadmail.mail")

_SEAT_KINDS: dict[str, Callable[[Composer, Outbox, Seat], Draft | None]] = {
    MailKind.TURN: Composer.notice,
    MailKind.UPDATE: Composer.notice,
    MailKind.GAME_OVER: Composer.notice,
    MailKind.REPLY: Composer.reply,
    MailKind.LINK: Composer.link,
    MailKind.LAST_CALL: Composer.last_call,
    MailKind.SESSION: Composer.session_soon,
    MailKind.AUTOPILOT: Composer.autopilot,
    MailKind.TABLE: Composer.table,
}
_PLAYER_KINDS: dict[str, Callable[[Composer, Outbox], Draft | None]] = {
    MailKind.REMINDER: Composer.reminder,
    MailKind.DIGEST: Composer.digest,
    MailKind.ORGANISER: Composer.organiser,
    MailKind.SIGNIN: Composer.signin,
    MailKind.INVITATION: Composer.invitation,
    MailKind.SUBSTITUTED: Composer.substituted,
    MailKind.LEAGUE_CONFIRM: league_kinds.league_confirm,
    MailKind.LEAGUE_FIXTURES: league_kinds.league_fixtures,
    MailKind.LEAGUE_RESULTS: league_kinds.league_results,
    MailKind.SEASON_END: league_kinds.season_end,
    MailKind.LEAGUE_INVITE: league_kinds.league_invite,
    MailKind.ROUND_UNSEATED: league_kinds.round_unseated,
    MailKind.GAME_INVITE: lobby_kinds.game_invite,
    MailKind.GAME_CANCELLED: lobby_kinds.game_cancelled,
    MailKind.CHANNEL_PAUSED: league_kinds.channel_paused,
}


def compose(db: Database, row_id: int, settings: Settings, now: datetime | None = None) -> Mail | None:
    """The mail for one outbox row, or None when nothing is left to tell (the row is then skipped)."""
    ((_row_id, mail),) = compose_batch(db, [row_id], settings, now)
    if isinstance(mail, Exception):
        raise mail
    return mail


def compose_batch(
    db: Database, ids: list[int], settings: Settings, now: datetime | None = None
) -> list[tuple[int, Mail | Exception | None]]:
    """The mails of the first rows of ``ids`` (at least one), composed in order in one transaction: each row's
    mail, None (nothing left to tell), or the exception composing it raised (a bug, or the database: it ends
    the list). The list also ends before a mail telling a seat what an earlier mail of the list tells it too
    (``Mail.told``, ``Mail.chat``): that one is composed again once the earlier mails are sent and recorded, from what
    they told, as when each mail was composed just before it was sent.

    The rows' mails read what ``mail_rows.load`` read for all of them in a few queries, and each table's public parts
    are built once (``kinds.shared_parts``); every mail is still built from its own reader's view (``seat_state``,
    ``engine.view``)."""
    now = now or utcnow()
    composed: list[tuple[int, Mail | Exception | None]] = []
    touched: set[int] = set()
    try:
        with db.session() as session:
            batch = mail_rows.load(session, ids)
            shared = shared_parts(session, batch, now)
            for row_id in ids:
                try:
                    mail = _compose_row(session, settings, batch, shared, row_id, now)
                except Exception as exc:  # the row fails (``send._send``); the transaction may be lost: stop here
                    composed.append((row_id, exc))
                    break
                told = set() if mail is None else {*mail.told, *mail.chat}
                if told & touched:
                    break
                touched |= told
                composed.append((row_id, mail))
    except Exception as exc:  # the rows could not be read (or the transaction ended badly): the first row fails
        if not composed:
            return [(ids[0], exc)]
    return composed


def _compose_row(
    session: Session,
    settings: Settings,
    batch: mail_rows.Batch,
    shared: dict[int, Shared],
    row_id: int,
    now: datetime,
) -> Mail | None:
    row = batch.rows.get(row_id)
    if row is None:
        return None
    lang = row.payload.get("lang") if isinstance(row.payload.get("lang"), str) else None
    composer = Composer(session, settings, row.player, now, lang, batch, shared=shared)
    seat = batch.seats.get(row.seat_id) if row.seat_id else None
    draft: Draft | None = None
    if row.kind == MailKind.CHAT:
        return None if seat is None else composer.chat(row, seat)
    if row.kind in _SEAT_KINDS and seat is not None:
        draft = _SEAT_KINDS[row.kind](composer, row, seat)
    elif row.kind in _PLAYER_KINDS:
        draft = _PLAYER_KINDS[row.kind](composer, row)
    else:
        log.warning("outbox %s: cannot compose a %r mail", row.id, row.kind)
    return None if draft is None else notice_mail(composer, row, draft)


__all__ = ["Mail", "compose", "compose_batch"]
