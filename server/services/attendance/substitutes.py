"""Substitutes: an organiser offers a seat of a running game by an invitation link; the first person who
accepts it becomes the seat's next tenure.

- ``offer`` makes an ``Invitation`` (a random key, the seat's link generation) for a person's or a bot's seat of a
  running game; given an address, the invitation's link is also mailed there (``invitation`` mail).
- ``look`` tells what the invitation page may show: public facts only (the game, the colour, the round and phase,
  who plays each colour); never a hand, an answer or a link.
- ``accept`` hands the seat over by the organiser's replace path (``organise.give_to_person``: a new tenure, old
  links and reply addresses revoked, unsent mail to the former player dropped, nothing private of theirs kept, a
  ``turn`` or ``link`` mail to the newcomer); the former player is told (``substituted`` mail) and the invitation
  is used.

Refusals change nothing: an unknown key (``LinkError``), an invitation already used, one that lapsed (the seat
changed hands another way since, or the game is no longer running), an address that already plays a seat of the game.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import TypedDict

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ...db import Database
from ...models import Game, GameStatus, Invitation, MailKind, Player, Seat, utcnow
from ..errors import N_, ShownError
from ..links import LinkError
from ..mailflow import outbox
from ..play import organise
from ..play.games import PlayerSpec, find_or_create_player, person, zone_of

log = logging.getLogger("deadmail.substitutes")

#: the longest key looked up (a key is 32 characters).
MAX_KEY = 64

UNKNOWN = N_("This invitation link is not valid: check that you copied all of it.")
USED = N_("This invitation was already used: someone took the seat. Nothing was changed.")
LAPSED = N_("This invitation has lapsed: the seat changed hands since, or the game is no longer running.")
PLAYS_THIS = N_("%(email)s already plays this seat: nothing was changed.")
#: a suspended player, or an address that asked never to be invited (``services.lobby``): one answer for both.
NOT_NOW = N_("This address takes no seat and no invitation now: nothing was changed.")


class InvitationError(ShownError):
    """An invitation that cannot be shown or accepted now; nothing was changed."""


@dataclass(frozen=True)
class Accepted:
    """The seat the substitute now plays: make its link from ``seat_id`` and ``generation``."""

    game_id: int
    seat_id: int
    colour: str
    generation: int
    language: str


def offer(db: Database, game_id: int, colour: str, now: datetime | None = None, *, to: PlayerSpec | None = None) -> str:
    """Offer the seat to a substitute; returns the invitation's key (its link is ``/i/<key>``). ``to``: also mail
    the link to this person (they must not play a seat of the game already). OrganiseError when the game is not
    running or has no such seat."""
    now = now or utcnow()
    with db.session() as session:
        game, _window, seat = organise.lock_seat(session, game_id, colour)
        if game.status != GameStatus.RUNNING:
            raise organise.OrganiseError(organise.NOT_RUNNING, game=game_id, status=game.status, terms=("status",))
        if to is not None:
            organise.refuse_if_seated(session, game, str(to.email))
        invitation = Invitation(
            seat_id=seat.id, key=secrets.token_urlsafe(24), generation=seat.link_generation, created_at=now
        )
        session.add(invitation)
        session.flush()
        if to is not None:
            guest = find_or_create_player(session, to, zone_of(game))
            if guest.no_invitations or guest.suspended_at is not None:
                raise organise.OrganiseError(NOT_NOW)
            row = outbox.player_mail(
                guest.id, MailKind.INVITATION, f"invitation:{invitation.id}", {"invitation": invitation.id}, now
            )
            row.game_id = game.id
            outbox.add(session, [row])
        log.info("game %s: the %s seat is offered to a substitute", game.id, seat.colour)
        return invitation.key


class Offered(TypedDict):
    """The seat an organiser is about to offer (``offerable``)."""

    game: int
    title: str
    colour: str
    #: the player's name; None for a bot
    player: str | None
    bot: str | None
    autopilot: bool


class TablePlayer(TypedDict):
    colour: str
    #: a name, or None for a bot
    player: str | None
    bot: str | None


class Invited(TypedDict):
    """What the invitation page shows (``look``): public facts only."""

    game: int
    title: str
    colour: str
    round: int
    phase: str
    players: list[TablePlayer]


def offerable(db: Database, game_id: int, colour: str) -> Offered:
    """The seat an organiser is about to offer (reads only): ``{"game", "title", "colour", "player" (a name or None),
    "bot", "autopilot" (bool)}``. OrganiseError when there is no such game or seat, or the game is not running."""
    with db.session() as session:
        game = session.get(Game, game_id)
        if game is None:
            raise organise.OrganiseError(organise.NO_GAME, game=game_id)
        if game.status != GameStatus.RUNNING:
            raise organise.OrganiseError(organise.NOT_RUNNING, game=game_id, status=game.status, terms=("status",))
        seat = next((s for s in game.seats if s.colour == colour), None)
        if seat is None:
            raise organise.OrganiseError(organise.NO_SEAT, game=game_id, value=repr(str(colour)[:16]))
        return {
            "game": game.id,
            "title": game.title,
            "colour": seat.colour,
            "player": seat.player.display_name if seat.player is not None else None,
            "bot": seat.bot,
            "autopilot": seat.autopilot_at is not None,
        }


def _key(key: str) -> str:
    """LinkError for what cannot be an invitation's key."""
    if not isinstance(key, str) or not key or len(key) > MAX_KEY:
        raise LinkError(UNKNOWN)
    return key


def _find(session: Session, key: str) -> Invitation:
    """The invitation of ``key``; LinkError when there is none."""
    invitation = session.execute(select(Invitation).where(Invitation.key == _key(key))).scalar_one_or_none()
    if invitation is None:
        raise LinkError(UNKNOWN)
    return invitation


def check(invitation: Invitation, seat: Seat, game: Game) -> None:
    """InvitationError unless the invitation can still be accepted."""
    if invitation.used_at is not None:
        raise InvitationError(USED)
    if seat.link_generation != invitation.generation or game.status != GameStatus.RUNNING:
        raise InvitationError(LAPSED)


def look(db: Database, key: str, now: datetime | None = None) -> Invited:
    """What the invitation page shows: ``{"game", "title", "colour", "round", "phase", "players": [{"colour",
    "player" (a name, or None), "bot"}]}``; public facts only. LinkError for an unknown key, InvitationError for one
    used or lapsed."""
    with db.session() as session:
        invitation = _find(session, key)
        seat = session.get(Seat, invitation.seat_id)
        assert seat is not None
        game = seat.game
        check(invitation, seat, game)
        return {
            "game": game.id,
            "title": game.title,
            "colour": seat.colour,
            "round": game.round,
            "phase": game.phase,
            "players": [
                {
                    "colour": other.colour,
                    "player": other.player.display_name if other.player is not None else None,
                    "bot": other.bot,
                }
                for other in game.seats
            ],
        }


def accept(
    db: Database, key: str, name: object, email: object, now: datetime | None = None, *, language: str | None = None
) -> Accepted:
    """The substitute (``name``, ``email``) takes the seat: its next tenure starts now. ``language``: the one a
    person new to deadmail is given (the page's). Refusals (nothing changed): LinkError (unknown key),
    InvitationError (used, lapsed, they already play this seat), GameError (not a name and an address),
    OrganiseError (they play another seat of the game)."""
    now = now or utcnow()
    with db.session() as session:
        found = session.execute(
            select(Invitation.id, Seat.game_id, Seat.colour)
            .join(Seat, Seat.id == Invitation.seat_id)
            .where(Invitation.key == _key(key))
        ).first()
        if found is None:
            raise LinkError(UNKNOWN)
        invitation_id, game_id, colour = found
        # the game, its open window, the seat and the invitation, locked: of two people accepting, one takes the seat
        game, window, seat = organise.lock_seat(session, game_id, colour)
        invitation = session.execute(
            select(Invitation).where(Invitation.id == invitation_id).with_for_update()
        ).scalar_one()
        check(invitation, seat, game)
        spec = person(name, email)
        known = session.execute(select(Player.suspended_at).where(Player.email == spec.email)).first()
        if known is not None and known[0] is not None:
            raise InvitationError(NOT_NOW)
        is_new = known is None
        former = seat.player_id
        newcomer = organise.give_to_person(session, game, seat, window, spec, now)
        if newcomer is None:
            raise InvitationError(PLAYS_THIS, email=spec.email)
        if is_new and language:
            newcomer.language = language
        taken = session.execute(
            update(Invitation)
            .where(Invitation.id == invitation.id, Invitation.used_at.is_(None))
            .values(used_at=now, used_by=newcomer.id)
        )
        if taken.rowcount != 1:  # type: ignore[attr-defined]
            raise InvitationError(USED)
        if former is not None:
            row = outbox.player_mail(
                former,
                MailKind.SUBSTITUTED,
                f"substituted:{seat.id}:{seat.link_generation}",
                {"colour": seat.colour, "by": newcomer.id},
                now,
            )
            row.game_id = game.id
            outbox.add(session, [row])
        log.info("game %s: a substitute took the %s seat", game.id, seat.colour)
        return Accepted(game.id, seat.id, seat.colour, seat.link_generation, newcomer.language or "en")


def pending(db: Database, game_id: int) -> dict[str, list[str]]:
    """Colour -> the keys of the seat's invitations that can still be accepted (the organiser's page lists them)."""
    with db.session() as session:
        game = session.get(Game, game_id)
        if game is None or game.status != GameStatus.RUNNING:
            return {}
        seats = {seat.id: seat for seat in game.seats}
        rows = session.execute(
            select(Invitation)
            .where(Invitation.seat_id.in_(list(seats)), Invitation.used_at.is_(None))
            .order_by(Invitation.id)
        ).scalars()
        out: dict[str, list[str]] = {}
        for invitation in rows:
            seat = seats[invitation.seat_id]
            if invitation.generation == seat.link_generation:
                out.setdefault(seat.colour, []).append(invitation.key)
        return out
