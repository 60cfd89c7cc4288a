"""What the mails of outbox rows read (``server/mail/``): a batch's rows with their readers, seats, tables, open
windows and the seats' first thread rows, read together in a few queries (``load``); which row starts a seat's thread;
and, for each kind of mail, the rows it is about (a reply's inbound mail, an invitation, a sign-up, a league's round
or season...), None once they are gone. The rows are returned as they are, read in the caller's transaction: what a
mail says is ``server/mail/``'s."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session, joinedload

from engine.shapes import JSON

from ...models import (
    Channel,
    EntryStatus,
    Game,
    InboundMail,
    Invitation,
    League,
    LeagueRound,
    MailKind,
    Outbox,
    Player,
    Proposal,
    ProposalInvitation,
    RequestRow,
    Season,
    SeasonPlayer,
    Seat,
    Window,
    WindowStatus,
)
from . import outbox, reminders

#: a seat with its game, and the table's seats and players.
TABLE = joinedload(Seat.game).selectinload(Game.seats).joinedload(Seat.player)


@dataclass(frozen=True)
class Batch:
    """Outbox rows composed together in one transaction (``load``): what their mails read, loaded for all of them in
    a few queries."""

    #: row id -> the row, with its reader (``Outbox.player``).
    rows: dict[int, Outbox]
    #: seat id -> a row's seat, with its game and the table's seats and players.
    seats: dict[int, Seat]
    #: game id -> its open window (None: none), for every game of ``seats``.
    windows: dict[int, Window | None]
    #: window id -> the open window's requests in order, with their seats and players.
    requests: dict[int, list[RequestRow]]
    #: (game id, seat id) -> the id of the seat's first row of a ``THREAD_STARTERS`` kind (None: none).
    first: dict[tuple[int, int], int | None]

    @property
    def games(self) -> dict[int, Game]:
        """Game id -> the game of the batch's seats."""
        return {seat.game_id: seat.game for seat in self.seats.values()}

    def opened(self, seat: Seat) -> tuple[Window | None, RequestRow | None] | None:
        """The seat's ``open_request``, when its game was loaded (else None: read it)."""
        if seat.game_id not in self.windows:
            return None
        window = self.windows[seat.game_id]
        if window is None:
            return None, None
        return window, next((r for r in self.requests[window.id] if r.seat_id == seat.id), None)


def load(session: Session, ids: list[int]) -> Batch:
    """The rows of ``ids`` and what their mails read: the rows and their readers, the seats with their tables, the
    games' open windows with their requests, the seats' first thread rows."""
    query = select(Outbox).where(Outbox.id.in_(ids)).options(joinedload(Outbox.player))
    rows = {row.id: row for row in session.execute(query).scalars()}
    seat_ids = {row.seat_id for row in rows.values() if row.seat_id is not None}
    query_seats = select(Seat).where(Seat.id.in_(seat_ids)).options(TABLE)
    seats = {seat.id: seat for seat in session.execute(query_seats).scalars()} if seat_ids else {}
    games = list(dict.fromkeys(seat.game_id for seat in seats.values()))
    opened = session.execute(
        select(Window).where(Window.game_id.in_(games), Window.status == WindowStatus.OPEN)
    ).scalars()
    windows: dict[int, Window | None] = dict.fromkeys(games)
    windows.update((window.game_id, window) for window in opened)
    requests: dict[int, list[RequestRow]] = {w.id: [] for w in windows.values() if w is not None}
    if requests:
        for request in session.execute(
            select(RequestRow)
            .where(RequestRow.window_id.in_(requests))
            .order_by(RequestRow.window_id, RequestRow.position)
            .options(joinedload(RequestRow.seat, innerjoin=True).joinedload(Seat.player))
        ).scalars():
            requests[request.window_id].append(request)
    first: dict[tuple[int, int], int | None] = {(s.game_id, s.id): None for s in seats.values()}
    if seat_ids:
        firsts = session.execute(
            select(Outbox.game_id, Outbox.seat_id, func.min(Outbox.id))
            .where(
                Outbox.game_id.in_({game_id for game_id, _ in first}),  # through its index, not a scan
                Outbox.seat_id.in_(seat_ids),
                Outbox.kind.in_(outbox.THREAD_STARTERS),
            )
            .group_by(Outbox.game_id, Outbox.seat_id)
        )
        for of_game, of_seat, found in firsts:
            assert of_game is not None and of_seat is not None  # seat_id given: a seat's game
            first[of_game, of_seat] = found
    return Batch(rows, seats, windows, requests, first)


def starts_thread(session: Session, row: Outbox, batch: Batch) -> tuple[int, int] | None:
    """(game id, seat id) when the row's mail starts that seat's thread: it is (or, a digest, merges) the seat's first
    row of a ``THREAD_STARTERS`` kind. Decided by the rows alone, never by what was sent before: every attempt gets
    the same Message-ID, and no two rows share one. (When that first row is never sent, nothing on the seat's thread
    carries the root's Message-ID; clients still group the mails that refer to it.)"""
    if row.kind != MailKind.DIGEST and row.kind not in outbox.THREAD_STARTERS:
        return None  # a table-talk mail, a reply's answer, a reminder: never a thread's first
    held = merged(session, row) if row.kind == MailKind.DIGEST else [row]
    seats = {(r.game_id, r.seat_id) for r in held if r.seat_id is not None and r.game_id is not None}
    if len(seats) != 1:
        return None
    ((game_id, seat_id),) = seats
    if (game_id, seat_id) in batch.first:  # else a digest's seat, not one of the batch's rows
        first = batch.first[game_id, seat_id]
    else:
        first = session.execute(
            select(func.min(Outbox.id)).where(
                Outbox.game_id == game_id, Outbox.seat_id == seat_id, Outbox.kind.in_(outbox.THREAD_STARTERS)
            )
        ).scalar()
    return (game_id, seat_id) if any(r.id == first for r in held) else None


def merged(session: Session, row: Outbox) -> list[Outbox]:
    """The held rows a digest row merges, in the order they were written."""
    return outbox.rows(session, [int(i) for i in row.payload.get("rows") or [] if isinstance(i, int)])


# --- what each kind of mail is about ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Digested:
    """A seat a digest tells about."""

    seat: Seat
    #: the digest merges a table-talk row of the seat.
    chat: bool


def digested(session: Session, row: Outbox, player_id: int) -> list[Digested]:
    """The seats of ``player_id`` that the rows a digest row merges are about, each once, in the order the rows were
    written."""
    held = merged(session, row)
    chatty = {item.seat_id for item in held if item.kind == MailKind.CHAT}
    done: set[int] = set()
    found = []
    for item in held:
        if item.seat_id is None or item.seat_id in done or item.player_id != player_id:
            continue
        done.add(item.seat_id)
        seat = session.get(Seat, item.seat_id)
        if seat is not None:
            found.append(Digested(seat, seat.id in chatty))
    return found


@dataclass(frozen=True)
class Owed:
    """A decision a reminder asks for: the seat, and the number of the window it is owed in."""

    seat: Seat
    window: int


def reminded(session: Session, items: Iterable[object]) -> list[Owed]:
    """The decisions of a reminder's items still owed now (``reminders.still_owed``)."""
    owed = []
    for item in reminders.still_owed(session, items):
        seat = session.get(Seat, item["seat"])
        if seat is not None:
            owed.append(Owed(seat, item["window"]))
    return owed


def inbound_sender(session: Session, inbound_id: JSON) -> str | None:
    """Who sent the inbound mail ``inbound_id`` (None: not kept)."""
    inbound = session.get(InboundMail, inbound_id or 0)
    return None if inbound is None else inbound.sender


def game(session: Session, game_id: int | None) -> Game | None:
    """The game an organiser's mail is about."""
    return session.get(Game, game_id or 0)


@dataclass(frozen=True)
class Offer:
    """A seat offered to a substitute."""

    invitation: Invitation
    seat: Seat


def offer(session: Session, invitation_id: JSON) -> Offer | None:
    """The invitation ``invitation_id`` and its seat (whether it can still be accepted is ``substitutes.check``'s)."""
    invitation = session.get(Invitation, invitation_id or 0)
    seat = None if invitation is None else session.get(Seat, invitation.seat_id)
    return None if invitation is None or seat is None else Offer(invitation, seat)


@dataclass(frozen=True)
class Substitution:
    """A substitute took over a seat of ``game``."""

    game: Game
    newcomer: Player


def substitution(session: Session, game_id: int | None, newcomer_id: JSON) -> Substitution | None:
    """The game and the substitute of a substitution."""
    found = session.get(Game, game_id or 0)
    newcomer = session.get(Player, newcomer_id or 0)
    return None if found is None or newcomer is None else Substitution(found, newcomer)


@dataclass(frozen=True)
class SignUp:
    """A pending entry to a league season."""

    entry: SeasonPlayer
    season: Season
    league: League


def pending_sign_up(session: Session, entry_id: JSON) -> SignUp | None:
    """The entry ``entry_id`` with its season and league, while it waits for its confirmation."""
    entry = session.get(SeasonPlayer, entry_id or 0)
    season = None if entry is None else session.get(Season, entry.season_id)
    if entry is None or season is None or entry.status != EntryStatus.PENDING:
        return None
    league = session.get(League, season.league_id)
    assert league is not None
    return SignUp(entry, season, league)


@dataclass(frozen=True)
class Fixture:
    """A seat at a league round's table, and the round and season (None: gone)."""

    seat: Seat
    round: LeagueRound | None
    season: Season | None


def fixture(session: Session, seat_id: JSON, round_id: JSON, player_id: int) -> Fixture | None:
    """The seat ``seat_id`` while it is ``player_id``'s, with the league round ``round_id`` and its season."""
    seat = session.get(Seat, seat_id or 0)
    if seat is None or seat.player_id != player_id:
        return None
    found = session.get(LeagueRound, round_id or 0)
    return Fixture(seat, found, None if found is None else session.get(Season, found.season_id))


@dataclass(frozen=True)
class InSeason:
    """A league season, with its league."""

    league: League
    season: Season


def season(session: Session, season_id: JSON) -> InSeason | None:
    """The season ``season_id`` with its league."""
    found = session.get(Season, season_id or 0)
    league = None if found is None else session.get(League, found.league_id)
    return None if found is None or league is None else InSeason(league, found)


@dataclass(frozen=True)
class InRound:
    """A league round, with its season and league."""

    round: LeagueRound
    of: InSeason


def league_round(session: Session, round_id: JSON) -> InRound | None:
    """The league round ``round_id`` with its season and league."""
    found = session.get(LeagueRound, round_id or 0)
    of = None if found is None else season(session, found.season_id)
    return None if found is None or of is None else InRound(found, of)


def league(session: Session, league_id: JSON) -> League | None:
    """The league ``league_id``."""
    return session.get(League, league_id or 0)


@dataclass(frozen=True)
class Proposed:
    """A game a player proposed (``services.lobby``), with its creator's name."""

    proposal: Proposal
    creator: str


def proposal(session: Session, proposal_id: JSON) -> Proposed | None:
    """The proposed game ``proposal_id`` with its creator's name."""
    found = session.get(Proposal, proposal_id) if isinstance(proposal_id, int) else None
    if found is None:
        return None
    creator = session.execute(select(Player.display_name).where(Player.id == found.creator_id)).scalar_one()
    return Proposed(found, creator)


def game_invite(session: Session, invitation_id: JSON) -> tuple[ProposalInvitation, Proposed] | None:
    """The invitation ``invitation_id`` with its proposed game."""
    invitation = session.get(ProposalInvitation, invitation_id) if isinstance(invitation_id, int) else None
    proposed = None if invitation is None else proposal(session, invitation.proposal_id)
    return None if invitation is None or proposed is None else (invitation, proposed)


@dataclass(frozen=True)
class ChannelOf:
    """A webhook channel, with its league or its game."""

    channel: Channel
    league: League | None
    game: Game | None


def channel(session: Session, channel_id: JSON) -> ChannelOf | None:
    """The channel ``channel_id`` with its league (a league's) or its game (a game's); None once it is gone."""
    found = session.get(Channel, channel_id or 0) if isinstance(channel_id, int) else None
    if found is None:
        return None
    league = None if found.league_id is None else session.get(League, found.league_id)
    game = None if found.game_id is None else session.get(Game, found.game_id)
    return ChannelOf(found, league, game)
