"""Missed deadlines and absences: the autopilot, "I'm back", and what a declared absence does.

- **Escalation.** Each seat counts its public requests defaulted in a row (``Seat.missed``, ``count_missed``,
  called when a window closes). After ``policy.after_of(tempo)`` of them (the game's ``autopilot_after``, default 2; 0:
  never) the seat goes on autopilot (``Seat.autopilot_at``): from the next window on its requests are answered at
  once (``turns._automatic``: the player's standing answers first, else ``SensibleBot``), logged and marked
  (``RequestRow.autopilot``), so the table no longer waits for it. The player is sent an ``autopilot`` mail with a
  one-tap "I'm back"; the other players a ``table`` mail; the organiser an ``organiser`` mail offering the seat to a
  substitute.
- **B-INFO.** Requests asked in secret (a card window) neither count nor reset the count: being put on autopilot
  right after such a window would tell the table that the player was asked in it.
- **I'm back** (``back``): by the one-tap link, the seat page or the ``BACK`` reply command; the autopilot ends from
  the next request on (an answer it already gave stands), the count starts again, a declared absence under way
  ends now, and the table is told.
- **Absences** (``services.attendance.absences`` declares them): while a player is away, each game's ``absence`` option
  decides: ``autopilot`` (the default) answers their requests like the autopilot; ``extend`` moves the deadline of
  a window asking them to the end of the absence, within ``absence_budget`` seconds per seat and game (default 3
  days; ``extend_for_absence``). A window asked in secret is never extended (it would tell who was asked).

The rules themselves (how the count changes, how far an absence moves a deadline) are ``policy``'s, which the
estimate's simulated games (``estimate``) follow too.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime
from typing import TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...db import Database
from ...models import (
    Absence,
    Game,
    GameStatus,
    MailKind,
    Outbox,
    Player,
    RequestRow,
    Seat,
    TempoJSON,
    Window,
    WindowStatus,
    utcnow,
)
from ..errors import N_, ShownError
from ..links import LinkError, check_generation
from ..mailflow import outbox
from . import policy

log = logging.getLogger("deadmail.autopilot")


class BackError(ShownError):
    """An "I'm back" that changes nothing."""


# --- who is away -------------------------------------------------------------------------------------------------


def away_until(session: Session, player_ids: Iterable[int], now: datetime) -> dict[int, datetime]:
    """Player id -> the end of the absence they are in at ``now`` (absent: not away)."""
    ids = sorted(set(player_ids))
    if not ids:
        return {}
    rows = session.execute(
        select(Absence.player_id, Absence.ends_at).where(
            Absence.player_id.in_(ids), Absence.starts_at <= now, Absence.ends_at > now
        )
    )
    return {player_id: ends for player_id, ends in rows}


def flies(seat: Seat, tempo: TempoJSON | None, away: dict[int, datetime]) -> bool:
    """The person's requests are answered by the autopilot now: it is on, or they are away in a game whose absences
    go on autopilot."""
    if seat.bot is not None or seat.player_id is None:
        return False
    return seat.autopilot_at is not None or (seat.player_id in away and policy.absence_mode(tempo) == "autopilot")


class Presence(TypedDict):
    """What the table may know of a person seat's presence (``table``)."""

    #: its requests are answered at once
    autopilot: bool
    #: ISO 8601; None when not away
    away_until: str | None


def table(session: Session, game: Game, now: datetime, away: dict[int, datetime] | None = None) -> dict[str, Presence]:
    """What the table may know of each person seat's presence (public): ``{"autopilot": bool, "away_until": iso or
    None}`` by colour; ``autopilot``: its requests are answered at once (missed deadlines, or away in a game whose
    absences go on autopilot; away in a game that extends deadlines, the table waits). Only seats on autopilot or
    away are listed. ``away``: ``away_until`` of (at least) the table's people, when the caller read it already."""
    if away is None:
        away = away_until(session, (s.player_id for s in game.seats if s.bot is None and s.player_id), now)
    shown: dict[str, Presence] = {}
    for seat in game.seats:
        until = away.get(seat.player_id or 0)
        if seat.bot is None and (seat.autopilot_at is not None or until is not None):
            shown[seat.colour] = {
                "autopilot": flies(seat, game.tempo, away),
                "away_until": None if until is None else until.isoformat(),
            }
    return shown


# --- escalation ----------------------------------------------------------------------------------------------------


def count_missed(session: Session, game: Game, rows: list[RequestRow], now: datetime) -> None:
    """After a window closed: each person's public request defaulted adds one to their seat's count, one they
    answered themselves starts it again; a seat reaching the game's ``autopilot_after`` goes on autopilot. Requests
    asked in secret, answered by standing answers or by the autopilot, and votes closed as decided change nothing."""
    after = policy.after_of(game.tempo)
    for row in rows:
        seat = row.seat
        if seat.bot is not None or seat.player_id is None:
            continue
        own = row.answered_at is not None and not row.standing and not row.autopilot
        closed = policy.Closed(secret=row.secret, defaulted=row.defaulted, own=own)
        count = policy.counted(after, seat.missed, seat.autopilot_at is not None, closed)
        seat.missed = count.missed
        if count.starts:
            start(session, game, seat, now)


def start(session: Session, game: Game, seat: Seat, now: datetime) -> None:
    """Put the seat on autopilot: the player is sent the one-tap "I'm back", the table and the organiser are told."""
    seat.autopilot_at = now
    log.info("game %s: seat %s is on autopilot after %d missed deadlines", game.id, seat.id, seat.missed)
    stamp = int(now.timestamp())
    mail = [outbox.notice(seat, MailKind.AUTOPILOT, f"autopilot:{seat.id}:{stamp}", {"missed": seat.missed}, now)]
    mail += tell_table(game, seat, "autopilot", stamp, now)
    organiser = _organiser(session, game)
    if organiser is not None:
        row = outbox.player_mail(
            organiser.id,
            MailKind.ORGANISER,
            f"organiser:{game.id}:autopilot:{seat.id}:{stamp}",
            {"about": "autopilot", "colour": seat.colour, "missed": seat.missed},
            now,
        )
        row.game_id = game.id
        mail.append(row)
    outbox.add(session, mail)


def tell_table(game: Game, seat: Seat, status: str, stamp: int, now: datetime) -> list[Outbox]:
    """A ``table`` mail to every other person at the table: ``seat`` is on autopilot, back, or (``new``) taken over
    by a substitute."""
    payload = {"colour": seat.colour, "status": status}
    return [
        outbox.notice(other, MailKind.TABLE, f"table:{seat.id}:{status}:{stamp}:{other.id}", payload, now)
        for other in game.seats
        if other.id != seat.id and other.bot is None and other.player_id is not None
    ]


def _organiser(session: Session, game: Game) -> Player | None:
    if not game.organiser_email:
        return None
    return session.execute(select(Player).where(Player.email == game.organiser_email)).scalar_one_or_none()


# --- I'm back ------------------------------------------------------------------------------------------------------

NOT_AWAY = N_("You are not on autopilot nor away in this game: nothing was changed.")


def back(db: Database, seat_id: int, *, generation: int | None = None, now: datetime | None = None) -> bool:
    """The seat's player is back: the autopilot ends from the next request on, the count of missed deadlines
    starts again, and an absence they are in ends now; the table is told. BackError (nothing changed) when the seat
    was neither on autopilot nor away; LinkError for a revoked link. True when the autopilot was on."""
    now = now or utcnow()
    with db.session() as session:
        game_id = session.execute(select(Seat.game_id).where(Seat.id == seat_id)).scalar_one_or_none()
        if game_id is None:
            raise LinkError(N_("This link is not valid."))
        # the open window's lock first, as an advance takes it: no advance counts or answers for the seat meanwhile
        session.execute(
            select(Window.id).where(Window.game_id == game_id, Window.status == WindowStatus.OPEN).with_for_update()
        )
        seat = session.get(Seat, seat_id, populate_existing=True)
        assert seat is not None
        if generation is not None:
            check_generation(seat, generation)
        game = seat.game
        if game.status != GameStatus.RUNNING or seat.bot is not None or seat.player_id is None:
            raise BackError(N_("This game is not running: nothing was changed."))
        absences = list(
            session.execute(
                select(Absence).where(
                    Absence.player_id == seat.player_id, Absence.starts_at <= now, Absence.ends_at > now
                )
            ).scalars()
        )
        was_on = seat.autopilot_at is not None
        if not was_on and not absences:
            raise BackError(NOT_AWAY)
        for absence in absences:
            absence.ends_at = now
        seat.autopilot_at = None
        seat.missed = 0
        if was_on:
            outbox.add(session, tell_table(game, seat, "back", int(now.timestamp()), now))
        log.info("game %s: seat %s is back", game.id, seat.id)
        return was_on


# --- absences that extend deadlines --------------------------------------------------------------------------------


def extend_for_absence(
    game: Game, window: Window, asked: list[Seat], secret: bool, away: dict[int, datetime]
) -> datetime | None:
    """In a game whose absences extend deadlines: the window's deadline moved to the end of the absence of each
    away player it asks, as far as each one's budget in the game allows (``Seat.extended`` is charged). Never in a
    window asked in secret. Returns the new deadline, None when unchanged."""
    if secret or policy.absence_mode(game.tempo) != "extend":
        return None
    budget, moved = policy.budget_of(game.tempo), None
    for seat in asked:
        until = away.get(seat.player_id or 0)
        if seat.bot is not None or until is None:
            continue
        target = policy.extended_for_absence(window.deadline, until, budget - seat.extended)
        if target > window.deadline:
            seat.extended += int((target - window.deadline).total_seconds())
            window.deadline = moved = target
    return moved
