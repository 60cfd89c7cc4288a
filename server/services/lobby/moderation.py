"""The server's organiser moderates players' own games: ``suspend`` a player (no new games, no joining; their
forming games cancelled, each of their seats in running games offered to a substitute: the games go on), lift it,
and ``creators``: who created which games."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from ...db import Database
from ...models import Game, GameStatus, Player, Proposal, ProposalStatus, Seat, utcnow
from ..attendance import substitutes
from ..errors import N_
from ..inputs import InputError, email_address
from .proposals import LobbyError, NotFound, cancel_all_of

log = logging.getLogger("deadmail.lobby")

NO_PLAYER = N_("No player has the address %(value)s.")


def _player_of(db: Database, address: str) -> int:
    try:
        email = email_address(address)
    except InputError as exc:
        raise LobbyError(exc.msgid, **exc.params) from None
    with db.session() as session:
        player_id = session.execute(select(Player.id).where(Player.email == email)).scalar_one_or_none()
    if player_id is None:
        raise NotFound(NO_PLAYER, value=email)
    return player_id


@dataclass(frozen=True)
class Found:
    """A player, as the server's organiser is asked to confirm their suspension (``look``)."""

    player_id: int
    name: str
    email: str
    suspended: bool
    #: forming games they created (cancelled by a suspension)
    forming: int
    #: the running games where they hold a seat (offered to substitutes by a suspension)
    running: tuple[int, ...]


def look(db: Database, address: str) -> Found:
    """The player of ``address``, with what suspending them would change; changes nothing. LobbyError: not an
    address; NotFound: no player has it."""
    player_id = _player_of(db, address)
    with db.session() as session:
        player = session.get(Player, player_id)
        assert player is not None
        forming = session.execute(
            select(func.count(Proposal.id)).where(
                Proposal.creator_id == player_id, Proposal.status == ProposalStatus.FORMING
            )
        ).scalar_one()
        running = session.execute(
            select(Seat.game_id)
            .join(Game, Game.id == Seat.game_id)
            .where(Seat.player_id == player_id, Seat.bot.is_(None), Game.status == GameStatus.RUNNING)
            .distinct()
            .order_by(Seat.game_id)
        ).scalars()
        return Found(
            player_id,
            player.display_name,
            player.email,
            player.suspended_at is not None,
            int(forming),
            tuple(running),
        )


@dataclass(frozen=True)
class Suspended:
    player_id: int
    #: (game id, colour) of each seat offered to a substitute
    offered: tuple[tuple[int, str], ...]


def suspend(db: Database, address: str, now: datetime | None = None) -> Suspended:
    """Suspend the player of ``address``: their forming games are cancelled and their seats in them given back, and
    each seat they hold in a running game is offered to a substitute (the invitation link is on the game's organiser
    page). Suspending again changes nothing."""
    now = now or utcnow()
    player_id = _player_of(db, address)
    with db.session() as session:  # first, alone: a seat being taken (its row shared-locked) ends before, or fails
        player = session.get(Player, player_id, with_for_update=True)
        assert player is not None
        if player.suspended_at is not None:
            return Suspended(player_id, ())
        player.suspended_at = now
    cancel_all_of(db, player_id, now)  # then their forming games, each locked before its seats
    with db.session() as session:
        held = session.execute(
            select(Seat.game_id, Seat.colour)
            .join(Game, Game.id == Seat.game_id)
            .where(Seat.player_id == player_id, Seat.bot.is_(None), Game.status == GameStatus.RUNNING)
            .order_by(Seat.game_id)
        ).all()
    offered = []
    for game_id, colour in held:
        substitutes.offer(db, game_id, colour, now)
        offered.append((game_id, colour))
    log.info("player %s suspended; %d seats offered to substitutes", player_id, len(offered))
    return Suspended(player_id, tuple(offered))


def lift(db: Database, address: str) -> int:
    """Lift a player's suspension; returns their id."""
    player_id = _player_of(db, address)
    with db.session() as session:
        player = session.get(Player, player_id, with_for_update=True)
        assert player is not None
        player.suspended_at = None
    return player_id


@dataclass(frozen=True)
class Creator:
    """A player who created games, with what they created (for the server's organiser)."""

    player_id: int
    name: str
    email: str
    suspended: bool
    #: (proposal id, title, status, game id or None), the newest first
    games: tuple[tuple[int, str, str, int | None], ...]


def creators(db: Database, limit: int = 200) -> list[Creator]:
    """The players who created games, the latest creator first, with every game each created."""
    with db.session() as session:
        latest = func.max(Proposal.id).label("latest")
        ids = [
            row[0]
            for row in session.execute(
                select(Proposal.creator_id, latest).group_by(Proposal.creator_id).order_by(latest.desc()).limit(limit)
            )
        ]
        if not ids:
            return []
        players = {p.id: p for p in session.execute(select(Player).where(Player.id.in_(ids))).scalars()}
        made: dict[int, list[tuple[int, str, str, int | None]]] = {}
        for row in session.execute(
            select(Proposal.creator_id, Proposal.id, Proposal.title, Proposal.status, Proposal.game_id)
            .where(Proposal.creator_id.in_(ids))
            .order_by(Proposal.id.desc())
        ):
            made.setdefault(row[0], []).append((row[1], row[2], row[3], row[4]))
        return [
            Creator(i, players[i].display_name, players[i].email, players[i].suspended_at is not None, tuple(made[i]))
            for i in ids
        ]


def is_suspended(db: Database, player_id: int) -> bool:
    with db.session() as session:
        return (
            session.execute(select(Player.suspended_at).where(Player.id == player_id)).scalar_one_or_none() is not None
        )
