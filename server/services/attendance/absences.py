"""A player's declared absences: declared, listed and cancelled; applied at once to the games they play.

An absence is a span of UTC instants (``Absence.starts_at`` to ``ends_at``) for the player, in every game. Pages,
replies and the API give days in the player's own time zone: ``between`` turns the first and last day into the
span (from the start of the first day to the end of the last).

What an absence does in each game is the game's ``absence`` option (``services.play.autopilot``): ``autopilot`` answers
the player's requests at once, ``extend`` moves the deadline of a window asking them to the end of the absence,
within the game's budget. Windows that open during the absence are handled when they open
(``turns.open_windows`` with ``autopilot.away_until``); ``declare`` applies an absence that starts now to the window
open in each game, and ``apply_started`` (the minute sweep) one declared earlier that has just begun.

Refused (``AbsenceError``, nothing changed): an absence entirely in the past, one that ends before it starts, one
longer than ``LONGEST``, one overlapping another of the player's; (``inputs.InputError``) a day not in
``inputs.YEARS``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from typing import TypedDict

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from ...db import Database
from ...models import UNAPPLIED, Absence, Game, GameStatus, Player, RequestRow, Seat, Window, WindowStatus, utcnow
from .. import inputs
from ..errors import N_, ShownError
from ..links import LinkError
from ..play import autopilot, policy, turns
from ..tempo import zone

log = logging.getLogger("deadmail.absences")

#: the longest absence one declaration may make.
LONGEST = timedelta(days=60)

PAST = N_("This absence is already over: nothing was changed.")
REVERSED = N_("An absence must end after it starts: nothing was changed.")
TOO_LONG = N_("An absence may last at most %(days)s days: nothing was changed.")
OVERLAPS = N_("This absence overlaps one you already declared: nothing was changed.")
NO_SUCH = N_("You have no such absence to remove (it may be over already): nothing was changed.")
NOT_A_DAY = N_("“%(value)s” is not a date such as 2026-12-03: nothing was changed.")


class AbsenceError(ShownError):
    """An absence refused; nothing was changed."""


# --- days in the player's zone ---------------------------------------------------------------------------------------


def between(
    first: date, last: date, timezone: str | None, fields: tuple[str, str] = ("from", "to")
) -> tuple[datetime, datetime]:
    """The span of the days ``first`` to ``last`` (both included) in the zone ``timezone``: from the start of the
    first day to the end of the last (the start of the next), in UTC. Days not in ``inputs.YEARS`` are refused
    (``inputs.in_range``, naming ``fields``): near the calendar's ends, a day's start in a zone is no instant."""
    inputs.in_range(first, fields[0])
    inputs.in_range(last, fields[1])
    tz = zone(timezone)
    starts = datetime.combine(first, time(0), tzinfo=tz).astimezone(UTC)
    ends = datetime.combine(last + timedelta(days=1), time(0), tzinfo=tz).astimezone(UTC)
    return starts, ends


def day(value: object) -> date:
    """A day as a form or the API gives it: ``2026-12-03`` (``inputs.iso_day``). AbsenceError otherwise (its range
    is checked by ``between``, which names the fields)."""
    text = str(value if value is not None else "").strip()[:40]
    found = inputs.iso_day(text)
    if found is None:
        raise AbsenceError(NOT_A_DAY, value=text[:20])
    return found


def today(timezone: str | None, now: datetime) -> date:
    """The player's date at ``now``."""
    return now.astimezone(zone(timezone)).date()


# --- declaring, cancelling, listing ----------------------------------------------------------------------------------


def player_of(db: Database, seat_id: int) -> tuple[int, str]:
    """The player (id, time zone) holding a person's seat; LinkError when none does."""
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        if seat is None or seat.player is None or seat.bot is not None:
            raise LinkError(N_("This link is not valid."))
        return seat.player.id, seat.player.timezone or "UTC"


def declare(db: Database, player_id: int, starts: datetime, ends: datetime, now: datetime | None = None) -> int:
    """Store the player's absence from ``starts`` to ``ends`` (aware datetimes; a start before ``now`` is clipped to
    ``now``) and, when it covers ``now``, apply it to the window open in each of their running games. Returns its id.
    AbsenceError, nothing changed: over already, reversed, longer than ``LONGEST``, overlapping another."""
    now = now or utcnow()
    if starts.tzinfo is None or ends.tzinfo is None:
        raise ValueError("absences are aware datetimes")
    if ends <= starts:
        raise AbsenceError(REVERSED)
    if ends <= now:
        raise AbsenceError(PAST)
    starts = max(starts, now)
    if ends - starts > LONGEST:
        raise AbsenceError(TOO_LONG, days=LONGEST.days)
    with db.session() as session:
        # the player's row, locked: two declarations at once are checked one after the other
        player = session.execute(select(Player).where(Player.id == player_id).with_for_update()).scalar_one_or_none()
        if player is None:
            raise LinkError(N_("This link is not valid."))
        overlapping = session.execute(
            select(Absence.id).where(Absence.player_id == player_id, Absence.starts_at < ends, Absence.ends_at > starts)
        ).first()
        if overlapping is not None:
            raise AbsenceError(OVERLAPS)
        absence = Absence(player_id=player_id, starts_at=starts, ends_at=ends, created_at=now, applied=starts <= now)
        session.add(absence)
        session.flush()
        log.info("player %s is away from %s to %s", player_id, starts.isoformat(), ends.isoformat())
        if starts <= now:
            _apply(session, player_id, ends, now)
        return absence.id


def cancel(db: Database, player_id: int, absence_id: int, now: datetime | None = None) -> None:
    """Remove one of the player's absences still to come, or end the one under way now (what it already did
    stands). AbsenceError (nothing changed) for another's, a past one, or one that does not exist."""
    now = now or utcnow()
    with db.session() as session:
        absence = session.execute(
            select(Absence).where(Absence.id == absence_id).with_for_update()
        ).scalar_one_or_none()
        if absence is None or absence.player_id != player_id or absence.ends_at <= now:
            raise AbsenceError(NO_SUCH)
        if absence.starts_at < now:
            absence.ends_at = now
        else:
            session.delete(absence)


#: an absence under way or to come (``listed``): "from" and "to" as UTC instants
Away = TypedDict("Away", {"id": int, "from": datetime, "to": datetime, "current": bool})
#: an ``Away`` in the JSON API: its instants as ISO 8601 texts
AwayJSON = TypedDict("AwayJSON", {"id": int, "from": str, "to": str, "current": bool})


def listed(db: Database, player_id: int, now: datetime) -> list[Away]:
    """The player's absences under way or to come, in order: ``{"id", "from", "to", "current"}`` (UTC instants)."""
    with db.session() as session:
        rows = session.execute(
            select(Absence)
            .where(Absence.player_id == player_id, Absence.ends_at > now)
            .order_by(Absence.starts_at, Absence.id)
        ).scalars()
        return [{"id": a.id, "from": a.starts_at, "to": a.ends_at, "current": a.starts_at <= now} for a in rows]


def as_json(item: Away) -> AwayJSON:
    """One of ``listed``'s absences for the JSON API."""
    return {
        "id": item["id"],
        "from": item["from"].isoformat(),
        "to": item["to"].isoformat(),
        "current": item["current"],
    }


# --- applying an absence under way -----------------------------------------------------------------------------------


def apply_started(
    db: Database, now: datetime | None = None, limit: int = 200, more: Callable[[], None] | None = None
) -> int:
    """The minute sweep: absences declared earlier that have begun, each applied once to the window open in each game
    of its player (they may have begun while a window was open; windows opening later are handled when they open).
    Up to ``limit`` of them, read through ``ix_absences_unapplied``, so a pass with none begun reads nothing; a full
    batch calls ``more`` (another batch takes the rest). Each is applied and marked in one transaction, under its
    row's lock (skipped when another batch holds it): one failure leaves it for the next sweep and never stops the
    batch. Returns how many games it changed."""
    now = now or utcnow()
    with db.session() as session:
        begun = list(
            session.execute(
                select(Absence.id).where(UNAPPLIED, Absence.starts_at <= now).order_by(Absence.starts_at).limit(limit)
            ).scalars()
        )
    if len(begun) == limit and more is not None:
        more()
    changed = 0
    for absence_id in begun:
        try:
            with db.session() as session:
                absence = session.execute(
                    select(Absence).where(Absence.id == absence_id, UNAPPLIED).with_for_update(skip_locked=True)
                ).scalar_one_or_none()
                if absence is None:  # applied meanwhile, or another batch has it
                    continue
                absence.applied = True
                if absence.ends_at > now:
                    changed += _apply(session, absence.player_id, absence.ends_at, now)
        except SQLAlchemyError:
            log.exception("absence %s: not applied this minute (tried again at the next sweep)", absence_id)
    return changed


def _apply(session: Session, player_id: int, until: datetime, now: datetime) -> int:
    """The player is away until ``until``: in each running game, under the open window's lock, their unanswered
    request is answered by the autopilot (games whose absences go on autopilot; the window may complete) or the
    window's deadline waits for them within the budget (games that extend; never a window asked in secret).
    Returns how many games changed."""
    game_ids = list(
        session.execute(
            select(Seat.game_id)
            .join(Game, Game.id == Seat.game_id)
            .where(Seat.player_id == player_id, Seat.bot.is_(None), Game.status == GameStatus.RUNNING)
            .order_by(Seat.game_id)
        ).scalars()
    )
    changed = 0
    for game_id in game_ids:
        window = session.execute(
            select(Window).where(Window.game_id == game_id, Window.status == WindowStatus.OPEN).with_for_update()
        ).scalar_one_or_none()
        game = session.get(Game, game_id)
        if window is None or window.completed_at is not None or game is None or game.status != GameStatus.RUNNING:
            continue
        seat = next((s for s in game.seats if s.player_id == player_id and s.bot is None), None)
        if seat is None:
            continue
        rows = list(session.execute(select(RequestRow).where(RequestRow.window_id == window.id)).scalars())
        if not any(r.seat_id == seat.id and r.answered_at is None for r in rows):
            continue
        # a window asked in secret is left alone (B-INFO): answered or extended the moment the table sees "away",
        # it would tell them the player was asked in it; its default counts for nothing
        secret = any(r.secret for r in rows)
        if policy.absence_mode(game.tempo) == "autopilot":
            if secret:
                continue
            try:
                changed += turns.answer_as_bot(session, game, seat, window, now)
            except turns.AnswerError:  # the window is moving on: the next one opens with the player away
                log.info("game %s: window %s is moving on; the absence applies from the next", game_id, window.id)
            continue
        if autopilot.extend_for_absence(game, window, [seat], secret, {player_id: until}) is not None:
            changed += 1
    return changed
