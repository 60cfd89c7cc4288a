"""Notifications to devices (``Nudge`` rows), with the outbox's discipline: written in the transaction of the change
they tell (``follow``, called by ``mailflow.outbox.add`` for the mail rows it writes), sent after commit by the
worker (``server/mail/push.py``), claimed once with a conditional UPDATE, retried with back-off, a row left in
"sending" by a dead worker released after ``STUCK_AFTER`` (at least once: a push service takes a repeat with the
same Topic as the same notification), never sent twice for one row.

Which mail is followed: a decision asked (turn), the table waiting for the player (last call), a reminder, the end
of a game (``PUSHED``), one notification per device and window. How the player is told (``Player.notify_mode``):
``both`` sends mail and notifications at once; ``first`` climbs a ladder: the channel that last reached them first
(push or chat), the other after ``mail_after`` minutes, the mail last, each step only while the decision is still
unanswered (``unless_answered``); ``mail`` sends mail only. A device known not to reach the player (failing) is
left out of the ladder."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from statistics import median

from sqlalchemy import and_, delete, func, select, true, update
from sqlalchemy.orm import Session

from ...db import Database, push_after_commit
from ...models import (
    Device,
    DeviceKind,
    Game,
    MailKind,
    NotifyMode,
    Nudge,
    Outbox,
    OutboxStatus,
    Player,
    RequestRow,
    Seat,
    Window,
    WindowStatus,
)
from .. import claims
from .devices import MAX_FAILURES

#: the mail kinds a notification follows.
PUSHED = (MailKind.TURN, MailKind.LAST_CALL, MailKind.REMINDER, MailKind.GAME_OVER)
#: the kinds that ask for a decision: not sent once it is answered or closed; the ladder holds their mail.
ASKING = (MailKind.TURN, MailKind.LAST_CALL)
MAX_ATTEMPTS = 8
STUCK_AFTER = timedelta(minutes=5)
#: a final row is deleted this long after it was last tried.
KEEP = timedelta(days=3)


def follow(session: Session, rows: Sequence[Outbox], now: datetime) -> list[Nudge]:
    """The notifications that go with these new mail rows (not yet flushed): one per device of their players and
    per decision, on the ladder of the player's ``notify_mode``; a turn's mail on the ladder waits its step and is
    dropped if answered by then. One query, only when some row is of a ``PUSHED`` kind."""
    told = [row for row in rows if row.kind in PUSHED]
    if not told:
        return []
    found = session.execute(
        select(Device, Player.notify_mode, Player.mail_after, Player.reached_via)
        .join(Player, Player.id == Device.player_id)
        .where(Device.player_id.in_({row.player_id for row in told}), Player.notify_mode != NotifyMode.MAIL)
        .order_by(Device.id)
    ).all()
    devices: dict[int, list[Device]] = defaultdict(list)
    ladder: dict[int, tuple[str, timedelta, str | None]] = {}
    for device, mode, minutes, via in found:
        devices[device.player_id].append(device)
        ladder[device.player_id] = (mode, timedelta(minutes=minutes), via)
    made: list[Nudge] = []
    for row in told:
        # a reminder never goes where the last notification could not be delivered
        known = 1 if row.kind == MailKind.REMINDER else MAX_FAILURES
        mine = [d for d in devices.get(row.player_id, []) if d.failures < known]
        if not mine:
            continue
        mode, step, via = ladder[row.player_id]
        steps = _steps(mine, via) if mode == NotifyMode.FIRST and row.kind in ASKING else {}
        for seat_id, window, part in _about(row):
            for device in mine:
                made.append(
                    Nudge(
                        key=f"{row.key}{part}>{device.id}",
                        device_id=device.id,
                        player_id=row.player_id,
                        seat_id=seat_id,
                        kind=row.kind,
                        window_number=window,
                        status=OutboxStatus.PENDING,
                        attempts=0,
                        created_at=now,
                        next_attempt_at=now + step * steps.get(device.kind, 0),
                    )
                )
        if steps and row.status == OutboxStatus.PENDING:  # the mail: the ladder's last step
            row.payload = {**row.payload, "unless_answered": True}
            row.next_attempt_at = max(row.next_attempt_at, now + step * (max(steps.values()) + 1))
    session.add_all(made)
    return made


def _steps(devices: list[Device], via: str | None) -> dict[str, int]:
    """The ladder's step of each kind of device: the kind that last reached the player first (push when none did),
    then the other."""
    kinds = sorted({d.kind for d in devices}, key=lambda kind: (kind != via, kind != DeviceKind.PUSH))
    return {kind: n for n, kind in enumerate(kinds)}


def _about(row: Outbox) -> list[tuple[int | None, int | None, str]]:
    """What a mail row's notifications are about: (seat, window, key suffix); a reminder's one per decision."""
    if row.kind == MailKind.REMINDER:
        items = row.payload.get("items") or []
        return [
            (item.get("seat"), item.get("window"), f"/{n}") for n, item in enumerate(items) if isinstance(item, dict)
        ]
    window = row.payload.get("window")
    return [(row.seat_id, window if isinstance(window, int) else None, "")]


def add_test(db: Database, player_id: int, device_id: int, now: datetime) -> int | None:
    """A test notification to one of the player's devices ("send me a test"), sent after commit; None when the
    device is not theirs."""
    with db.session() as session:
        device = session.get(Device, device_id)
        if device is None or device.player_id != player_id:
            return None
        nudge = Nudge(
            key=f"test:{device_id}:{now.timestamp():.6f}",
            device_id=device_id,
            player_id=player_id,
            kind="test",
            status=OutboxStatus.PENDING,
            attempts=0,
            created_at=now,
            next_attempt_at=now,
        )
        session.add(nudge)
        session.flush()
        push_after_commit(session, [nudge.id])
        return nudge.id


# --- sending: claimed, read, recorded ---------------------------------------------------------------------------------


def claim_many(db: Database, now: datetime, *, ids: Iterable[int] | None = None, limit: int = 100) -> list[int]:
    """Take due pending rows for sending in one statement: those of ``ids``, or up to ``limit`` in the order they
    were written (after releasing rows stuck in "sending"), skipping rows another worker is claiming."""
    with db.session() as session:
        if ids is None:
            stuck = (Nudge.status == OutboxStatus.SENDING, Nudge.next_attempt_at <= now - STUCK_AFTER)
            session.execute(update(Nudge).where(*stuck).values(status=OutboxStatus.PENDING))
        return claims.claim(session, Nudge, now, ids, limit)


@dataclass(frozen=True)
class Pending:
    """A claimed notification with what telling it needs: its device, its reader, the seat and game it is about,
    and that game's open window now (None when there is none)."""

    nudge: Nudge
    device: Device
    player: Player
    seat: Seat | None
    game: Game | None
    window: Window | None
    #: the kind of the request the seat owes in that window (None: it owes none).
    asked: str | None

    @property
    def stale(self) -> bool:
        """Nothing left to tell: the decision it asks for is answered or closed, the seat is another player's now,
        or the game is no longer running (a game's end is told whatever the state)."""
        if self.nudge.kind == "test":
            return False
        if self.seat is None or self.game is None or self.seat.player_id != self.player.id:
            return True
        if self.nudge.kind == MailKind.GAME_OVER:
            return False
        return self.window is None or self.window.number != self.nudge.window_number or self.asked is None


def read(db: Database, ids: list[int]) -> list[Pending]:
    """The claimed rows of ``ids`` with their devices, readers, seats, games and open windows, in one query."""
    asked = (
        select(RequestRow.kind)
        .where(RequestRow.window_id == Window.id, RequestRow.seat_id == Seat.id, RequestRow.answered_at.is_(None))
        .limit(1)
        .scalar_subquery()
    )
    with db.session() as session:
        rows = session.execute(
            select(Nudge, Device, Player, Seat, Game, Window, asked)
            .join(Device, Device.id == Nudge.device_id)
            .join(Player, Player.id == Nudge.player_id)
            .outerjoin(Seat, Seat.id == Nudge.seat_id)
            .outerjoin(Game, Game.id == Seat.game_id)
            .outerjoin(Window, and_(Window.game_id == Seat.game_id, Window.status != WindowStatus.CLOSED))
            .where(Nudge.id.in_(ids))
            .order_by(Nudge.id)
        ).all()
        return [Pending(*row) for row in rows]


def sent(db: Database, nudge_id: int, now: datetime) -> None:
    """The push service or chat app took it: the row is sent (one statement, committed at once; on PostgreSQL
    without waiting for a disk flush: a mark lost only if PostgreSQL itself crashes, and then the notification
    goes again, replacing itself)."""
    done = update(Nudge).where(Nudge.id == nudge_id).values(status=OutboxStatus.SENT, sent_at=now, last_error=None)
    if db.is_sqlite:
        with db.session() as session:
            session.execute(done)
        return
    quick = done.where(func.set_config("synchronous_commit", "off", true()).is_not(None))  # (this statement's only)
    with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(quick)


def reached(db: Database, device_ids: list[int], now: datetime) -> None:
    """These devices were reached now (a batch's notifications taken): their failures forgotten."""
    if device_ids:
        with db.session() as session:
            session.execute(update(Device).where(Device.id.in_(device_ids)).values(reached_at=now, failures=0))


def skipped(db: Database, nudge_id: int) -> None:
    """Nothing was left to tell when it was due: never sent."""
    with db.session() as session:
        session.execute(update(Nudge).where(Nudge.id == nudge_id).values(status=OutboxStatus.SKIPPED))


def hold(db: Database, nudge_id: int, until: datetime) -> None:
    """Not now (the player's quiet hours): pending again until ``until``, the claim not counted as a try."""
    with db.session() as session:
        session.execute(
            update(Nudge)
            .where(Nudge.id == nudge_id, Nudge.status == OutboxStatus.SENDING)
            .values(status=OutboxStatus.PENDING, next_attempt_at=until, attempts=Nudge.attempts - 1)
        )


def gone(db: Database, device_id: int) -> None:
    """The push service says the subscription is gone (404, 410): the device is removed, its rows with it."""
    with db.session() as session:
        session.execute(delete(Device).where(Device.id == device_id))


def failed(
    db: Database,
    nudge_id: int,
    device_id: int,
    error: str,
    now: datetime,
    *,
    permanent: bool,
    retry_after: float | None,
) -> str:
    """A try that failed: 'retry' later with back-off (429, 5xx, the network, a chat app that did not take it), or
    'failed' for good (a permanent refusal, or too many tries). A device that failed ``MAX_FAILURES`` notifications
    in a row for good is removed (a success resets the count)."""
    with db.session() as session:
        nudge = session.get(Nudge, nudge_id)
        if nudge is None or nudge.status != OutboxStatus.SENDING:
            return "skipped"
        nudge.last_error = error[:2000]
        if permanent or nudge.attempts >= MAX_ATTEMPTS:  # given up: a failure of the device
            nudge.status = OutboxStatus.FAILED
            device = session.get(Device, device_id)
            if device is not None:
                device.failures += 1
                device.last_error = nudge.last_error
                if device.failures >= MAX_FAILURES:
                    session.delete(device)
            return "failed"
        nudge.status = OutboxStatus.PENDING
        nudge.next_attempt_at = now + claims.backoff(nudge.attempts, retry_after)
        return "retry"


#: the newest delays kept per channel in ``Player.reach``.
REACH_KEPT = 20


def opened(db: Database, seat_id: int, nudge_id: int, channel: str, now: datetime) -> None:
    """The seat's player opened their page from notification ``nudge_id`` (0: from a mail's link, ``?via=mail``):
    the channel reached them (the ladder starts there next time), and how long it took is kept for their figures
    (from a mail: since the decision they owe was asked, once per decision)."""
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        player = None if seat is None or seat.player_id is None else session.get(Player, seat.player_id)
        if seat is None or player is None:
            return
        nudge = session.get(Nudge, nudge_id) if nudge_id else None
        if nudge is not None and nudge.seat_id == seat_id and nudge.opened_at is None:
            nudge.opened_at = now
            took(player, channel, now - (nudge.sent_at or nudge.created_at))
        elif nudge is None and channel == "mail" and (asked := _asked_at(session, seat)) is not None:
            again = player.reached_via == "mail" and player.reached_at is not None and player.reached_at >= asked
            if not again:  # the first opening from a mail since the decision was asked
                took(player, "mail", now - asked)
        player.reached_via, player.reached_at = channel, now


def _asked_at(session: Session, seat: Seat) -> datetime | None:
    """When the window that asks ``seat`` a decision opened (None: it owes none now)."""
    return session.execute(
        select(Window.opened_at)
        .join(RequestRow, RequestRow.window_id == Window.id)
        .where(
            Window.game_id == seat.game_id,
            Window.status == WindowStatus.OPEN,
            RequestRow.seat_id == seat.id,
            RequestRow.answered_at.is_(None),
        )
    ).scalar_one_or_none()


def took(player: Player, channel: str, after: timedelta) -> None:
    """A channel reached the player ``after`` its notification (or the decision's opening): kept in their figures."""
    reach = dict(player.reach or {})
    reach[channel] = [*reach.get(channel, []), max(0, int(after.total_seconds()))][-REACH_KEPT:]
    player.reach = reach


def answered_by_mail(db: Database, seat_id: int, window_id: int, now: datetime) -> None:
    """The seat's player answered by replying to a mail: mail reached them, this long after the window opened."""
    with db.session() as session:
        seat, window = session.get(Seat, seat_id), session.get(Window, window_id)
        player = None if seat is None or seat.player_id is None else session.get(Player, seat.player_id)
        if player is not None and window is not None:
            took(player, "mail", now - window.opened_at)
            player.reached_via, player.reached_at = "mail", now


def game_figures(db: Database, game_id: int) -> dict[str, tuple[int, int]]:
    """``figures`` counted over the people seated in a game (the organiser's game page)."""
    with db.session() as session:
        reaches = session.execute(
            select(Player.reach).join(Seat, Seat.player_id == Player.id).where(Seat.game_id == game_id)
        ).scalars()
        return figures(list(reaches))


def figures(reaches: Iterable[dict[str, list[int]] | None]) -> dict[str, tuple[int, int]]:
    """Per channel, counted over players: how many times it reached them and the median seconds it took."""
    delays: dict[str, list[int]] = defaultdict(list)
    for reach in reaches:
        for channel, seconds in (reach or {}).items():
            delays[channel] += [s for s in seconds if isinstance(s, int)]
    return {channel: (len(found), int(median(found))) for channel, found in sorted(delays.items()) if found}


def prune(db: Database, now: datetime, limit: int = 1000, keep: timedelta = KEEP) -> int:
    """Delete up to ``limit`` final rows last tried more than ``keep`` ago; how many."""
    with db.session() as session:
        return claims.prune(session, Nudge, now, limit, keep)
