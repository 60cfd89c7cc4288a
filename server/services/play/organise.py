"""What an organiser does to a running game: see who owes what, extend a deadline, pause and resume, replace a
seat (by a bot or another person), resend a seat's link, abandon the game.

Every operation is one transaction and refuses with :class:`OrganiseError` (nothing changed) when it cannot be
done; repeating one that already took effect changes nothing more where that can be told (a resume of a game that
is not paused, an abandon of an abandoned game, a replacement by the seat's current occupant).

The organiser never sees an answer while its window is open: ``owed`` tells only whether each request is answered.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypedDict

from sqlalchemy import select, update
from sqlalchemy.orm import Session

import engine

from ...db import Database, advance_after_commit
from ...models import (
    Game,
    GameStatus,
    MailKind,
    Outbox,
    OutboxStatus,
    Player,
    RequestRow,
    Seat,
    SeatTenure,
    Window,
    WindowStatus,
    utcnow,
)
from ..errors import N_, ShownError
from ..mailflow import outbox
from ..tempo import closes_decided_votes
from . import archive, autopilot, reliability, tenures, turns
from .engines import CACHE
from .games import PlayerSpec, find_or_create_player, zone_of
from .seats import Owed, open_window, owed_requests, revoke_links, standing_order
from .turns import BOT_KINDS

#: the furthest a deadline or a pause may be set, from now.
MAX_AHEAD = timedelta(days=30)
#: a resumed window keeps at least this much time before its deadline.
MIN_LEFT_ON_RESUME = timedelta(minutes=10)


class OrganiseError(ShownError):
    """An organiser's operation that cannot be done; the message says why (nothing was changed; pages translate it)."""


NO_GAME = N_("There is no game %(game)s.")
BAD_DATE = N_("Give a date and time such as 2030-01-31T18:00.")
CHOOSE_EXTENSION = N_("Choose how much later, or give the new deadline.")
CHOOSE_REPLACEMENT = N_("Choose a bot or a person.")


# --- reading -----------------------------------------------------------------------------------------------------


NOT_RUNNING = N_("Game %(game)s is %(status)s: this cannot be done any more.")
NO_SEAT = N_("Game %(game)s has no %(value)s seat.")


def _game(session: Session, game_id: int, *, running: bool = True, lock: bool = True) -> Game:
    query = select(Game).where(Game.id == game_id)
    if lock:
        query = query.with_for_update()
    game = session.execute(query).scalar_one_or_none()
    if game is None:
        raise OrganiseError(NO_GAME, game=game_id)
    if running and game.status != GameStatus.RUNNING:
        raise OrganiseError(NOT_RUNNING, game=game_id, status=game.status, terms=("status",))
    return game


def _locked(session: Session, game_id: int, *, running: bool = True) -> tuple[Game, Window | None]:
    """The game and its open window, both locked: the window first, in the order an advance takes them."""
    window = session.execute(
        select(Window).where(Window.game_id == game_id, Window.status == WindowStatus.OPEN).with_for_update()
    ).scalar_one_or_none()
    return _game(session, game_id, running=running), window


def _seat(session: Session, game_id: int, colour: str) -> Seat:
    seat = session.execute(
        select(Seat).where(Seat.game_id == game_id, Seat.colour == colour).with_for_update()
    ).scalar_one_or_none()
    if seat is None:
        raise OrganiseError(NO_SEAT, game=game_id, value=repr(str(colour)[:16]))
    return seat


class OrganisedSeat(TypedDict):
    colour: str
    #: the person's name and address; None for a bot
    player: str | None
    email: str | None
    bot: str | None
    #: on autopilot or away (public, ``autopilot.table``); None: neither
    presence: autopilot.Presence | None


class OpenWindow(TypedDict):
    number: int
    deadline: datetime
    opened_at: datetime


class Overview(TypedDict):
    """The organiser's overview of a game (``overview``)."""

    id: int
    title: str
    status: str
    round: int
    phase: str
    timezone: str
    close_decided_votes: bool
    paused_until: datetime | None
    outcome: engine.Outcome | None
    seats: list[OrganisedSeat]
    window: OpenWindow | None
    requests: list[Owed]
    tenures: dict[str, list[tenures.Tenure]]
    #: the table as a spectator sees it (``engine.spectator_view``): the organiser's board and scores
    table: engine.SpectatorView


class Listed(TypedDict):
    """A game in the organiser's list (``recent_games``)."""

    id: int
    title: str
    status: str
    round: int


def overview(db: Database, game_id: int, now: datetime | None = None) -> Overview:
    """The organiser's overview of a game: its state, seats, tenures, spectator table and open window (each request's
    seat, player, kind and whether it is answered).

    Never the answers themselves: they stay secret until the window closes; nor who is asked in a card window
    (``seats.public_requests``): the organiser may be a player too. The table is a spectator's (no hand, no secret
    destination, no die)."""
    now = now or utcnow()
    with db.session() as session:
        game = _game(session, game_id, running=False, lock=False)
        window = open_window(session, game_id)
        requests = owed_requests(session, window)
        presence = autopilot.table(session, game, now)
        seats: list[OrganisedSeat] = [
            {
                "colour": seat.colour,
                "player": seat.player.display_name if seat.player is not None else None,
                "email": seat.player.email if seat.player is not None else None,
                "bot": seat.bot,
                # on autopilot or away (public, ``autopilot.table``)
                "presence": presence.get(seat.colour),
            }
            for seat in game.seats
        ]
        return {
            "id": game.id,
            "title": game.title,
            "status": game.status,
            "round": game.round,
            "phase": game.phase,
            "timezone": game.tempo.get("timezone", "UTC"),
            "close_decided_votes": closes_decided_votes(game.tempo),
            "paused_until": game.paused_until if game.paused_at(now) else None,
            "outcome": game.outcome,
            "seats": seats,
            "window": None
            if window is None
            else {"number": window.number, "deadline": window.deadline, "opened_at": window.opened_at},
            "requests": requests,
            "tenures": tenures.of_game(session, game),
            "table": engine.spectator_view(CACHE.get(game)),
        }


# --- deadlines and pauses ----------------------------------------------------------------------------------------


def extend_deadline(
    db: Database,
    game_id: int,
    *,
    until: datetime | None = None,
    by: timedelta | None = None,
    now: datetime | None = None,
) -> datetime:
    """Move the open window's deadline later: to ``until``, or ``by`` a duration; returns the new deadline."""
    now = now or utcnow()
    if (until is None) == (by is None):
        raise OrganiseError(N_("Give either a new deadline or how much later it should be."))
    if by is not None and by <= timedelta(0):
        raise OrganiseError(N_("A deadline can only be moved later."))
    if until is not None and until.tzinfo is None:
        raise OrganiseError(N_("The new deadline needs a time zone."))
    with db.session() as session:
        _game_row, window = _locked(session, game_id)
        if window is None:
            raise OrganiseError(N_("No decision is open in this game right now."))
        new = until if until is not None else window.deadline + (by or timedelta(0))
        if new <= window.deadline:
            raise OrganiseError(N_("The new deadline must be later than the current one."))
        if new > now + MAX_AHEAD:
            raise OrganiseError(N_("A deadline can be at most 30 days ahead."))
        window.deadline = new
        return new


def pause(db: Database, game_id: int, until: datetime, now: datetime | None = None) -> datetime:
    """Pause the game until ``until``: no window advances before it, and the open window's deadline moves later
    by the pause's length (a longer pause of a paused game adds only the extra part). Returns the new deadline
    (or ``until`` when no window is open)."""
    now = now or utcnow()
    if until.tzinfo is None:
        raise OrganiseError(N_("The end of the pause needs a time zone."))
    if until <= now:
        raise OrganiseError(N_("A pause must end in the future."))
    if until > now + MAX_AHEAD:
        raise OrganiseError(N_("A pause can last at most 30 days."))
    with db.session() as session:
        game, window = _locked(session, game_id)
        start = game.paused_until if game.paused_at(now) else now
        assert start is not None
        if until == start:
            return window.deadline if window is not None else until  # the same pause again: nothing to do
        if until < start:
            raise OrganiseError(N_("The game is already paused until later; resume it first to shorten the pause."))
        game.paused_until = until
        if window is None:
            return until
        window.deadline = window.deadline + (until - start)
        return window.deadline


@dataclass(frozen=True)
class Resumed:
    changed: bool
    deadline: datetime | None


def resume(db: Database, game_id: int, now: datetime | None = None) -> Resumed:
    """End a pause early: the deadline comes back by the unused part of the pause, never to less than ten minutes
    from now; a window completed during the pause advances at once. A game that is not paused is left as it is."""
    now = now or utcnow()
    with db.session() as session:
        game, window = _locked(session, game_id)
        if not game.paused_at(now):
            game.paused_until = None
            return Resumed(False, None if window is None else window.deadline)
        assert game.paused_until is not None
        unused = game.paused_until - now
        game.paused_until = None
        if window is None:
            return Resumed(True, None)
        window.deadline = max(window.deadline - unused, now + MIN_LEFT_ON_RESUME)
        if window.completed_at is not None:
            advance_after_commit(session, window.id)
        return Resumed(True, window.deadline)


# --- seats ---------------------------------------------------------------------------------------------------------


@dataclass
class Replaced:
    seat_id: int
    changed: bool
    #: the seat's open request was answered at once by the new bot.
    answered: bool = False
    #: the window is complete (its advance was kicked).
    complete: bool = False


def _tenure(session: Session, game: Game, seat: Seat) -> SeatTenure:
    """The seat's current tenure, made now (from the game's creation) for a seat that never had one."""
    current = session.execute(
        select(SeatTenure)
        .where(SeatTenure.seat_id == seat.id, SeatTenure.ended_at.is_(None))
        .order_by(SeatTenure.id.desc())
    ).scalar_one_or_none()
    if current is None:
        current = SeatTenure(seat_id=seat.id, player_id=seat.player_id, bot=seat.bot, started_at=game.created_at)
        session.add(current)
    return current


def _drop_unsent(session: Session, seat: Seat, player_id: int | None) -> None:
    """Mail not yet sent to the seat's former player would carry the seat's new link: it is not sent."""
    if player_id is None:
        return
    session.execute(
        update(Outbox)
        .where(Outbox.seat_id == seat.id, Outbox.player_id == player_id, Outbox.status.in_(outbox.UNSENT))
        .values(status=OutboxStatus.SKIPPED)
    )


def _check_replacement(bot: str | None, player: PlayerSpec | None) -> None:
    if (bot is None) == (player is None):
        raise OrganiseError(N_("Replace a seat either by a bot or by a person."))
    if bot is not None and bot not in BOT_KINDS:
        raise OrganiseError(
            N_("Unknown bot %(bot)s (bots: %(bots)s)."), bot=repr(str(bot)[:16]), bots=", ".join(BOT_KINDS)
        )
    if player is not None and (player.bot is not None or not player.email):
        raise OrganiseError(N_("A person needs an e-mail address."))


def _newcomer(session: Session, game: Game, seat: Seat, player: PlayerSpec) -> Player | None:
    """The person taking the seat; None when they already play it. OrganiseError when they play another seat."""
    newcomer = find_or_create_player(session, player, zone_of(game))
    if seat.player_id == newcomer.id:
        return None
    refuse_if_seated(session, game, newcomer.email)
    return newcomer


def refuse_if_seated(session: Session, game: Game, email: str) -> None:
    """OrganiseError when the person of ``email`` plays a seat of the game."""
    taken = session.execute(
        select(Seat.colour)
        .join(Player, Player.id == Seat.player_id)
        .where(Seat.game_id == game.id, Player.email == email)
    ).scalar_one_or_none()
    if taken is not None:
        raise OrganiseError(N_("%(email)s already plays the %(colour)s seat of this game."), email=email, colour=taken)


def _hand_over(
    session: Session, game: Game, seat: Seat, newcomer: Player | None, bot: str | None, now: datetime
) -> None:
    """End the seat's tenure and start the next: old links and reply addresses revoked, unsent mail to the former
    player dropped, the former player's standing order cleared from the engine (it was their choice). Nothing private
    to the former player stays with the seat (``_fresh_start``)."""
    former = seat.player_id
    _tenure(session, game, seat).ended_at = now
    session.add(
        SeatTenure(seat_id=seat.id, player_id=None if newcomer is None else newcomer.id, bot=bot, started_at=now)
    )
    seat.player = newcomer
    seat.player_id = None if newcomer is None else newcomer.id
    seat.bot = bot
    seat.link_generation += 1
    _drop_unsent(session, seat, former)
    if seat.autopilot_at is not None and newcomer is not None:  # the table was told it is on autopilot
        outbox.add(session, autopilot.tell_table(game, seat, "new", int(now.timestamp()), now))
    _fresh_start(session, seat)
    session.flush()
    if standing_order(seat):
        fresh = CACHE.fresh(game)
        fresh.set_standing_order(seat.colour, [])  # never answers: the newcomer starts without one
        turns.store_state(game, fresh, now)


def _fresh_start(session: Session, seat: Seat) -> None:
    """The seat as a newcomer takes it: none of the former player's standing answers for the game, missed deadlines,
    autopilot, absence extension used, or presence on the page; ``told_events`` starts again, so the newcomer's first
    mail tells the seat's whole story as its view holds it. (Table talk already mailed is not mailed again: it is the
    colour's, on the seat page.) The seat's open request is the newcomer's to answer (``RequestRow.player_id``: it
    counts for their tenure, not the former player's)."""
    seat.standing = None
    seat.missed = 0
    seat.autopilot_at = None
    seat.extended = 0
    seat.seen_at = None
    seat.told_events = None
    open_windows = select(Window.id).where(Window.game_id == seat.game_id, Window.status == WindowStatus.OPEN)
    session.execute(
        update(RequestRow)
        .where(
            RequestRow.seat_id == seat.id,
            RequestRow.answered_at.is_(None),
            RequestRow.window_id.in_(open_windows.scalar_subquery()),
        )
        .values(player_id=seat.player_id if seat.bot is None else None)
    )


def lock_seat(session: Session, game_id: int, colour: str) -> tuple[Game, Window | None, Seat]:
    """The game (whatever its status), its open window and one of its seats, locked in the order an advance takes
    them; OrganiseError when there is no such game or seat."""
    game, window = _locked(session, game_id, running=False)
    return game, window, _seat(session, game.id, colour)


def give_to_person(
    session: Session, game: Game, seat: Seat, window: Window | None, player: PlayerSpec, now: datetime
) -> Player | None:
    """Hand the seat (locked, with its game and open window) over to a person: a new tenure (``_hand_over``) and a
    ``turn`` or ``link`` mail to them. None when they already play it; OrganiseError when they play another seat."""
    newcomer = _newcomer(session, game, seat, player)
    if newcomer is None:
        return None
    _hand_over(session, game, seat, newcomer, None, now)
    outbox.add(session, [_newcomer_mail(session, seat, window, now)])
    return newcomer


def replace_seat(
    db: Database,
    game_id: int,
    colour: str,
    *,
    bot: str | None = None,
    player: PlayerSpec | None = None,
    now: datetime | None = None,
) -> Replaced:
    """Give the seat to a bot (``bot``: "sensible" or "random") or to another person (``player``).

    Ends the seat's tenure and starts a new one (``_hand_over``). A bot answers the seat's open request at once
    (the window may complete: its advance is kicked after the commit); a person is sent a ``turn`` mail when the
    seat owes an answer, else a ``link`` mail."""
    now = now or utcnow()
    _check_replacement(bot, player)
    with db.session() as session:
        game, window = _locked(session, game_id)
        seat = _seat(session, game.id, colour)
        if player is not None:
            return Replaced(seat.id, changed=give_to_person(session, game, seat, window, player, now) is not None)
        if seat.bot == bot:
            return Replaced(seat.id, changed=False)
        _hand_over(session, game, seat, None, bot, now)
        result = Replaced(seat.id, changed=True)
        result.answered = window is not None and turns.answer_as_bot(session, game, seat, window, now)
        result.complete = window is not None and window.completed_at is not None
        return result


def _newcomer_mail(session: Session, seat: Seat, window: Window | None, now: datetime) -> Outbox:
    """A ``turn`` mail when the seat owes an answer in the open window, else a ``link`` mail."""
    owes = (
        window is not None
        and session.execute(
            select(RequestRow.id).where(
                RequestRow.window_id == window.id, RequestRow.seat_id == seat.id, RequestRow.answered_at.is_(None)
            )
        ).first()
        is not None
    )
    if owes:
        assert window is not None
        key = f"turn:{window.id}:{seat.id}:g{seat.link_generation}"
        return outbox.notice(seat, MailKind.TURN, key, {"window": window.number}, now)
    return _link_row(seat, now)


def _link_row(seat: Seat, now: datetime) -> Outbox:
    return outbox.notice(seat, MailKind.LINK, f"link:{seat.id}:{seat.link_generation}:{secrets.token_hex(6)}", {}, now)


def resend_link(db: Database, game_id: int, colour: str, rotate: bool = False, now: datetime | None = None) -> int:
    """Queue a ``link`` mail (the seat's current situation and its link) to the seat's player, sent after the
    commit; returns its outbox id. ``rotate`` revokes the seat's earlier links and reply addresses, and its player's
    preferences links, first. A link mail
    still waiting to be sent is reused rather than doubled (unless the links were rotated: then the waiting one is
    dropped)."""
    now = now or utcnow()
    with db.session() as session:
        game = _game(session, game_id, running=False)
        if game.status == GameStatus.ABANDONED:
            raise OrganiseError(N_("Game %(game)s is abandoned: this cannot be done any more."), game=game_id)
        seat = _seat(session, game.id, colour)
        if seat.player_id is None:
            raise OrganiseError(N_("The %(colour)s seat is played by a bot: it has no link."), colour=seat.colour)
        waiting = session.execute(
            select(Outbox).where(
                Outbox.seat_id == seat.id,
                Outbox.player_id == seat.player_id,
                Outbox.kind == MailKind.LINK,
                Outbox.status.in_(outbox.UNSENT),
            )
        ).scalar_one_or_none()
        if rotate:
            revoke_links(seat)
            if waiting is not None:
                waiting.status = OutboxStatus.SKIPPED
        elif waiting is not None:
            return waiting.id
        (row,) = outbox.add(session, [_link_row(seat, now)])
        return row.id


# --- abandoning ----------------------------------------------------------------------------------------------------


def abandon(db: Database, game_id: int, now: datetime | None = None) -> bool:
    """Stop the game for good: its open window is closed without being applied and mail not yet sent for it is
    dropped. False when it was already abandoned."""
    now = now or utcnow()
    with db.session() as session:
        game, _window = _locked(session, game_id, running=False)
        if game.status == GameStatus.ABANDONED:
            return False
        if game.status != GameStatus.RUNNING:
            raise OrganiseError(
                N_("Game %(game)s is %(status)s: it cannot be abandoned."),
                game=game_id,
                status=game.status,
                terms=("status",),
            )
        game.status = GameStatus.ABANDONED
        game.paused_until = None
        game.updated_at = now
        unclosed = session.execute(
            select(Window)
            .where(Window.game_id == game.id, Window.status.in_((WindowStatus.OPEN, WindowStatus.RESOLVING)))
            .with_for_update()
        ).scalars()
        closing = [(window, list(window.requests)) for window in unclosed]
        for window, rows in closing:
            reliability.record(session, reliability.counted_of(window, rows))
        archive.fold(session, game, closing, now)
        session.execute(
            update(Outbox)
            .where(Outbox.game_id == game.id, Outbox.status.in_(outbox.UNSENT))
            .values(status=OutboxStatus.SKIPPED)
        )
        return True


# --- listing -------------------------------------------------------------------------------------------------------


def recent_games(db: Database, limit: int = 100) -> list[Listed]:
    """The newest games: id, title, status, round."""
    with db.session() as session:
        rows = session.execute(
            select(Game.id, Game.title, Game.status, Game.round).order_by(Game.id.desc()).limit(limit)
        ).all()
    return [{"id": r.id, "title": r.title, "status": r.status, "round": r.round} for r in rows]


def game_zone(db: Database, game_id: int) -> str:
    """The game's time zone (organisers' dates are read and shown in it); OrganiseError for no such game."""
    with db.session() as session:
        game = _game(session, game_id, running=False, lock=False)
        return game.tempo.get("timezone", "UTC")
