"""Reminders for decisions still owed, and digests of held notifications (both run by the sweep).

- The reminder ladder (``ladder``): a step at 1/2, 1/12 and 1/72 of a window's length before its deadline (for
  24 hours: 12 h, 2 h and 20 min before). A step less than ``MIN_LEAD`` before the deadline, or less than
  ``MIN_GAP`` after the previous step kept, is dropped, so short windows get fewer steps (2 h: two, 20 min: one,
  under 10 min: none).
- ``plan_reminders``: only the latest step due is sent (missed ones are skipped), never inside the player's quiet
  hours (a step due in them goes out at the first sweep after they end, if the deadline is still ahead), one mail
  per player per sweep across all their games. Each step of each request is claimed once by a conditional UPDATE
  of ``RequestRow.reminded``, in the transaction that writes the mail, so concurrent sweeps cannot repeat one.
- ``release_digests``: a player on "digest" gets their held notifications in one mail once the oldest is
  ``digest_hours`` old, or sooner when a decision they owe closes within ``URGENT``; never inside their quiet hours
  unless waiting for them to end would leave less than ``MIN_NOTICE`` before that deadline.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypedDict, TypeGuard
from zoneinfo import ZoneInfo

from sqlalchemy import select, update
from sqlalchemy.orm import Session, load_only

from ...db import Database, send_after_commit
from ...models import (
    WINDOW_OPEN,
    Game,
    GameStatus,
    MailKind,
    Outbox,
    OutboxStatus,
    Player,
    RequestRow,
    Seat,
    TempoJSON,
    Window,
    WindowStatus,
)
from ..tempo import PlayHours, in_quiet_hours
from . import outbox

#: the ladder's steps, as fractions of the window's length: 1/2, 1/12, 1/72.
FRACTIONS = (2, 12, 72)
#: a reminder closer than this to the deadline is too late to be useful.
MIN_LEAD = timedelta(minutes=5)
#: two reminders closer together than this are one too many.
MIN_GAP = timedelta(minutes=5)
#: a digest holding a decision that closes within this much time goes at once.
URGENT = outbox.URGENT
#: inside quiet hours, a digest waits for them to end unless that leaves less than this before a deadline.
MIN_NOTICE = timedelta(minutes=30)
#: how long before a session of play hours its reminder goes out.
SESSION_LEAD = timedelta(minutes=15)


def ladder(duration: timedelta) -> list[timedelta]:
    """How long before the deadline each reminder goes out, longest first (see the module's docstring)."""
    steps: list[timedelta] = []
    for fraction in FRACTIONS:
        lead = timedelta(seconds=round(duration.total_seconds() / fraction))
        if lead < MIN_LEAD or (steps and steps[-1] - lead < MIN_GAP):
            continue
        steps.append(lead)
    return steps


def due_step(opened_at: datetime, deadline: datetime, now: datetime) -> int:
    """The highest ladder step (1-based) whose time has come; 0 for none (or once the deadline has passed)."""
    if now >= deadline:
        return 0
    leads = ladder(deadline - opened_at)
    return max((i for i, lead in enumerate(leads, start=1) if now >= deadline - lead), default=0)


# --- reminders ---------------------------------------------------------------------------------------------------


def next_remind_at(opened_at: datetime, deadline: datetime, after: datetime) -> datetime | None:
    """The first ladder step after ``after`` (``Window.remind_at``); None when no step is left."""
    return min((t for t in (deadline - lead for lead in ladder(deadline - opened_at)) if t > after), default=None)


@dataclass(frozen=True)
class _Owed:
    request_id: int
    seat_id: int
    window: int
    step: int


def plan_reminders(db: Database, now: datetime, limit: int = 1000, more: Callable[[], None] | None = None) -> list[int]:
    """Write one ``reminder`` outbox row per player who owes a decision whose ladder step has come (and is not in
    their quiet hours), for up to ``limit`` windows whose ``remind_at`` has come (claimed: locked, their
    ``remind_at`` moved on to the next step, or to the end of a player's quiet hours while they owe a step); calls
    ``more`` (before writing) when it took a full batch. Returns the new rows' ids, to send after the commit."""
    with db.session() as session:
        windows = session.execute(
            select(Window.id, Window.number, Window.opened_at, Window.deadline, Window.completed_at, Game.status)
            .join(Game, Window.game_id == Game.id)
            .where(WINDOW_OPEN, Window.remind_at <= now, Game.unpaused_at(now))
            .order_by(Window.remind_at)
            .limit(limit)
            .with_for_update(skip_locked=True, of=Window)
        ).all()
        if not windows:
            return []
        if len(windows) == limit and more is not None:
            more()
        rows = session.execute(
            select(RequestRow.id, RequestRow.reminded, RequestRow.window_id, RequestRow.seat_id, Player)
            .join(Seat, RequestRow.seat_id == Seat.id)
            .join(Player, Seat.player_id == Player.id)
            .where(
                RequestRow.window_id.in_([w.id for w in windows]),
                RequestRow.answered_at.is_(None),
                Seat.bot.is_(None),
            )
            .order_by(RequestRow.id)
        ).all()
        owing: dict[int, list[tuple[int, int, int, Player]]] = defaultdict(list)
        for request_id, reminded, window_id, seat_id, player in rows:
            owing[window_id].append((request_id, reminded, seat_id, player))
        quiet: dict[int, datetime | None] = {}
        due: list[tuple[Player, _Owed]] = []
        moved: list[dict[str, Any]] = []
        for window in windows:
            live = window.status == GameStatus.RUNNING and window.completed_at is None and window.deadline > now
            at = next_remind_at(window.opened_at, window.deadline, now) if live else None
            step = due_step(window.opened_at, window.deadline, now) if live else 0
            for request_id, reminded, seat_id, player in owing[window.id]:
                if step <= reminded:
                    continue
                if player.id not in quiet:
                    quiet[player.id] = in_quiet_hours(player, now)
                ends = quiet[player.id]
                if ends is None:
                    due.append((player, _Owed(request_id, seat_id, window.number, step)))
                elif ends < window.deadline:  # the step goes out at the first pass after their quiet hours
                    at = ends if at is None else min(at, ends)
            moved.append({"id": window.id, "remind_at": at})
        session.execute(update(Window), moved)
        claimed: dict[int, list[_Owed]] = defaultdict(list)
        for player, owed in due:  # in request id order, so concurrent sweeps lock rows in the same order
            taken = session.execute(
                update(RequestRow)
                .where(
                    RequestRow.id == owed.request_id,
                    RequestRow.reminded < owed.step,
                    RequestRow.answered_at.is_(None),
                )
                .values(reminded=owed.step)
            )
            if taken.rowcount == 1:  # type: ignore[attr-defined]
                claimed[player.id].append(owed)
        mail = outbox.add(session, (_reminder(player_id, items, now) for player_id, items in claimed.items()))
        return [m.id for m in mail]


def _reminder(player_id: int, items: list[_Owed], now: datetime) -> Outbox:
    # each (request, step) is claimed once, so the first one names this mail uniquely and the same in every sweep
    first = min(items, key=lambda o: o.request_id)
    items_json = [{"seat": o.seat_id, "window": o.window, "step": o.step} for o in items]
    key = f"remind:{player_id}:{first.request_id}:{first.step}"
    return outbox.player_mail(player_id, MailKind.REMINDER, key, {"items": items_json}, now)


class ReminderItem(TypedDict):
    """A decision a reminder asks for, as its mail's payload keeps it."""

    seat: int
    window: int
    step: int


def still_owed(session: Session, items: Iterable[object]) -> list[ReminderItem]:
    """The reminder items whose window is still open and whose request is still unanswered (checked at send time);
    an item not of a reminder's shape is left out."""
    owed: list[ReminderItem] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        seat_id, number, step = item.get("seat"), item.get("window"), item.get("step")
        if not (_is_int(seat_id) and _is_int(number) and _is_int(step)):
            continue
        found = session.execute(
            select(RequestRow.id)
            .join(Window, RequestRow.window_id == Window.id)
            .join(Seat, RequestRow.seat_id == Seat.id)
            .where(
                Seat.id == seat_id,
                Seat.bot.is_(None),
                Window.game_id == Seat.game_id,
                Window.number == number,
                Window.status == WindowStatus.OPEN,
                Window.completed_at.is_(None),
                RequestRow.answered_at.is_(None),
            )
        ).first()
        if found is not None:
            owed.append({"seat": seat_id, "window": number, "step": step})
    return owed


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


# --- sessions of play hours ------------------------------------------------------------------------------------


def session_due(tempo: TempoJSON, now: datetime) -> datetime | None:
    """When the reminder of the next session of the tempo's play hours is due (``Game.session_at``); None without
    play hours."""
    hours = PlayHours.of(tempo)
    return None if hours is None else hours.next_start(now) - SESSION_LEAD


def plan_session_reminders(
    db: Database, now: datetime, limit: int = 1000, more: Callable[[], None] | None = None
) -> list[int]:
    """For up to ``limit`` games (not paused) whose ``session_at`` has come: in the ``SESSION_LEAD`` before a
    session of a running game's play hours, write a ``session`` mail to each person seated in it, once per game,
    seat and session day (its key), and move ``session_at`` on to the next session (null: no play hours, or not
    running). Calls ``more`` when it took a full batch; returns the new rows' ids. The session is the agreed time:
    quiet hours do not hold it back."""
    with db.session() as session:
        due = (
            session.execute(
                select(Game)
                .options(load_only(Game.id, Game.status, Game.tempo, Game.session_at))
                .where(Game.session_at <= now, Game.unpaused_at(now))
                .order_by(Game.session_at)
                .limit(limit)
                .with_for_update(skip_locked=True)
            )
            .scalars()
            .all()
        )
        if len(due) == limit and more is not None:
            more()
        rows: list[Outbox] = []
        for game in due:
            hours = PlayHours.of(game.tempo) if game.status == GameStatus.RUNNING else None
            if hours is None:
                game.session_at = None
                continue
            start = hours.next_start(now)
            if now < start - SESSION_LEAD:
                game.session_at = start - SESSION_LEAD
                continue
            game.session_at = hours.next_start(start) - SESSION_LEAD
            day = start.astimezone(ZoneInfo(hours.zone)).date().isoformat()
            for seat in game.seats:
                if seat.bot is None and seat.player is not None:
                    key = f"session:{game.id}:{seat.id}:{day}"
                    rows.append(outbox.notice(seat, MailKind.SESSION, key, {"start": start.isoformat()}, now))
        if not rows:
            return []
        sent = set(session.execute(select(Outbox.key).where(Outbox.key.in_([r.key for r in rows]))).scalars())
        return [row.id for row in outbox.add(session, (r for r in rows if r.key not in sent))]


# --- digests -----------------------------------------------------------------------------------------------------


def release_digests(db: Database, now: datetime, limit: int = 200, more: Callable[[], None] | None = None) -> list[int]:
    """Merge each digest player's held rows into one ``digest`` row when it is time (see the module's docstring),
    and let go as ordinary mail the held rows of players who left the digest; returns the ids to send.

    Looks only at the players with a held row whose ``next_attempt_at`` has come (``outbox.digest_due``: the span
    has passed or a decision it asks for is near its deadline; ``outbox.look_at_held`` when settings changed), up
    to ``limit`` of them (a full batch calls ``more``), so a pass with nothing due reads nothing more. A player
    looked at whose digest is not due yet gets the instant of the next look."""
    with db.session() as session:
        due = list(
            session.execute(
                select(Outbox.player_id)
                .where(Outbox.status == OutboxStatus.HELD, Outbox.next_attempt_at <= now)
                .group_by(Outbox.player_id)
                .order_by(Outbox.player_id)
                .limit(limit)
            ).scalars()
        )
        if len(due) == limit and more is not None:
            more()
        held = session.execute(
            select(Outbox, Player)
            .join(Player, Outbox.player_id == Player.id)
            .where(Outbox.status == OutboxStatus.HELD, Outbox.player_id.in_(due))
            .order_by(Outbox.id)
            .with_for_update(skip_locked=True, of=Outbox)
        ).all()
        by_player: dict[int, list[Outbox]] = defaultdict(list)
        players: dict[int, Player] = {}
        for row, player in held:
            by_player[player.id].append(row)
            players[player.id] = player
        out: list[int] = []
        digests: list[tuple[list[Outbox], Outbox]] = []
        for player_id, rows in by_player.items():
            player = players[player_id]
            if player.mail_mode != "digest":
                for row in rows:
                    row.status = OutboxStatus.PENDING
                    row.next_attempt_at = now
                out.extend(row.id for row in rows)
                continue
            look = _digest_look(player, rows, _soonest_deadline(session, rows, now), now)
            if look is None:
                digests.append((rows, _digest(player_id, rows, now)))
            else:
                for row in rows:
                    row.next_attempt_at = look
        for rows, _ in digests:
            for row in rows:
                row.status = OutboxStatus.MERGED
        added = outbox.add(session, (digest for _, digest in digests))
        send_after_commit(session, out)
        return [digest.id for digest in added] + out


def _digest_look(player: Player, rows: list[Outbox], soonest: datetime | None, now: datetime) -> datetime | None:
    """None when the player's digest of ``rows`` is due now (``soonest``: the earliest deadline of a decision they
    ask for), else when to look at it again: when it will be old enough, near that deadline, or at the end of the
    quiet hours the player is in, whichever comes first."""
    aged_at = min(row.created_at for row in rows) + outbox.digest_span(player)
    urgent = soonest is not None and soonest - now <= URGENT
    quiet_end = in_quiet_hours(player, now)
    if quiet_end is None:
        if now >= aged_at or urgent:
            return None
    # inside quiet hours: only when waiting for them to end would make the player miss the decision
    elif urgent and soonest is not None and soonest < quiet_end + MIN_NOTICE:
        return None
    later = [at for at in (aged_at, soonest and soonest - URGENT, quiet_end) if at is not None and at > now]
    return min(later, default=now + timedelta(minutes=1))


def _soonest_deadline(session: Session, rows: list[Outbox], now: datetime) -> datetime | None:
    """The earliest deadline of a decision the held ``turn`` rows ask for that is still open and unanswered."""
    deadlines = []
    for row in rows:
        number = row.payload.get("window") if isinstance(row.payload, dict) else None
        if row.kind != MailKind.TURN or row.seat_id is None or not _is_int(number):
            continue
        deadline = session.execute(
            select(Window.deadline)
            .join(RequestRow, RequestRow.window_id == Window.id)
            .where(
                Window.game_id == row.game_id,
                Window.number == number,
                Window.status == WindowStatus.OPEN,
                RequestRow.seat_id == row.seat_id,
                RequestRow.answered_at.is_(None),
            )
        ).scalar_one_or_none()
        if deadline is not None and deadline > now:
            deadlines.append(deadline)
    return min(deadlines, default=None)


def _digest(player_id: int, rows: list[Outbox], now: datetime) -> Outbox:
    # a held row is merged once, so the first one names this digest uniquely
    key = f"digest:{player_id}:{rows[0].id}"
    return outbox.player_mail(player_id, MailKind.DIGEST, key, {"rows": [row.id for row in rows]}, now)
