"""Games players start themselves: a ``Proposal`` takes seats until it is full, then its game is made.

- ``create``: a signed-in player proposes a game (seats, rules options, tempo preset, the table's language and zone,
  listed in the lobby or not, the date it must fill by); they take its first seat.
- ``invite``: its creator invites addresses; each gets one invitation mail (``MailKind.GAME_INVITE``) and nothing
  else until it accepts (``answer``): the game's mails go to seats only, and seats are made when it starts.
  ``answer`` may also decline, or say "never invite me again" (``Player.no_invitations``).
- ``join``: a signed-in player takes a seat from the lobby (a listed game) or with the shareable link (its
  generation current).
- The last seat taken starts the game (``_start``, in the same transaction); its creator may start it earlier
  with bots in the empty seats (``start``), or ``cancel`` it. One not full by ``fill_by`` is cancelled by the sweep
  (``cancel_unfilled``), each player who joined mailed (``MailKind.GAME_CANCELLED``).
- Limits, counted in the database over the last day: ``GAMES_PER_DAY`` games proposed (``OPEN_PER_DAY`` of them
  listed), ``INVITES_PER_DAY`` invitations sent, ``UNANSWERED_PER_ADDRESS`` invitations waiting at one address.
  A suspended player (``moderation``) proposes, joins and accepts nothing.
- A game the player did not make, or that does not exist, is the same refusal (``NOT_FOUND``): nothing tells ids
  apart.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

import engine
from engine.options import CHOICES

from ...db import Database
from ...models import (
    LANGUAGES,
    Game,
    MailKind,
    Player,
    Proposal,
    ProposalInvitation,
    ProposalSeat,
    ProposalStatus,
    utcnow,
)
from .. import channel, inputs, presets
from ..errors import N_, ShownError
from ..links import LinkError, read_game_invite_token, read_game_link_token
from ..mailflow import outbox
from ..play import games
from ..play.turns import BOT_KINDS
from ..tempo import TempoError, check_timezone


class LobbyError(ShownError):
    """A proposal, invitation or seat refused; the message says why (pages translate it)."""


class NotFound(LobbyError):
    """No such game, or not the reader's to change: the same answer (a 404), so ids tell nothing."""


#: games a player may propose in a day, and of those listed in the lobby.
GAMES_PER_DAY = 5
OPEN_PER_DAY = 3
#: invitations a player may send in a day, at most ``INVITES_AT_ONCE`` in one go.
INVITES_PER_DAY = 30
INVITES_AT_ONCE = 10
#: invitations waiting for an answer at one address, from anyone.
UNANSWERED_PER_ADDRESS = 3
#: how long a proposal may wait for its players, in days.
FILL_DAYS = (1, 30)
DAY = timedelta(days=1)
#: the bot that takes an empty seat when the creator starts the game early.
BOT = "sensible"
assert BOT in BOT_KINDS

NOT_FOUND = N_("There is no such game, or it is not yours to change.")
SUSPENDED = N_("Your account is suspended: you cannot start or join games. Write to the server's organiser.")
NOT_FORMING = N_("This game is no longer taking players.")
FULL = N_("This game is full.")
TOO_MANY_GAMES = N_("You proposed %(count)s games today, the most a day: try again tomorrow.")
TOO_MANY_OPEN = N_("You listed %(count)s open games today, the most a day: invite players instead, or wait a day.")
TOO_MANY_INVITES = N_(
    "You may send %(count)s invitations a day and %(left)s are left today: nothing was sent. Share the game's "
    "link instead."
)
TOO_MANY_ASKS = N_("This game's link was used for many invitations today: ask its creator to invite you.")
TOO_MANY_AT_ONCE = N_("Invite at most %(count)s addresses at once: nothing was sent.")
NO_ADDRESS = N_("Give one or more e-mail addresses, separated by commas or on separate lines.")


#: what turns text around as it is shown (bidirectional overrides and isolates): never in a title others read.
BIDI_CONTROL = re.compile("[\u202a-\u202e\u2066-\u2069]")
BAD_TITLE = N_("The title is one line of plain text, without control characters.")


@dataclass(frozen=True)
class NewGame:
    """A proposal's settings, checked (``read_new_game``)."""

    seats: int
    title: str = ""
    options: Mapping[str, str] | None = None
    preset: str | None = None
    language: str = "en"
    timezone: str = "UTC"
    listed: bool = False
    fill_days: int = 7
    webhook_url: str | None = None


def _text(form: Mapping[str, object], name: str, limit: int) -> str:
    value = form.get(name, "")
    return str(value).strip()[:limit] if isinstance(value, str | int) and not isinstance(value, bool) else ""


def _flag(form: Mapping[str, object], name: str) -> bool:
    value = form.get(name)
    return value is True or (isinstance(value, str) and value.strip().lower() in {"1", "on", "true", "yes"})


def read_new_game(form: Mapping[str, object], *, allow_private: bool = False) -> NewGame:
    """The new-game form's fields (or the JSON API's body: the same names) checked; LobbyError naming the first
    wrong one. Fields: ``seats`` (3-6), ``title``, ``option_<name>`` (``engine.options.CHOICES``), ``preset``,
    ``language``, ``timezone``, ``listed``, ``fill_days`` (1-30), ``webhook_url`` (``channel.check_url``: a private
    host only when ``allow_private``, the setting ``DEADMAIL_WEBHOOK_PRIVATE``)."""
    seats = inputs.small_int(_text(form, "seats", 4), 1)
    if seats is None or not 3 <= seats <= 6:
        raise LobbyError(N_("Mall of Horror takes 3 to 6 players: choose how many."))
    title = _text(form, "title", 200)
    if inputs.unstorable(title) or inputs.CONTROL.search(title) or BIDI_CONTROL.search(title):
        raise LobbyError(BAD_TITLE)  # (a NUL, a line break, a text turned around)
    if len(title) > 120:
        raise LobbyError(N_("The title is too long: at most %(count)s characters."), count=120)
    options: dict[str, str] = {}
    for name, choices in CHOICES.items():
        value = _text(form, f"option_{name}", 32)
        if value and value not in choices:
            raise LobbyError(
                N_("%(value)s is not a choice of %(field)s (%(choices)s)"),
                value=repr(value),
                field=name,
                choices=", ".join(choices),
            )
        if value:
            options[name] = value
    try:
        preset = presets.check_preset(_text(form, "preset", 20))
        timezone = check_timezone(_text(form, "timezone", 64) or "UTC")
    except (presets.PresetError, TempoError) as exc:
        raise LobbyError(exc.msgid, **exc.params) from None
    language = _text(form, "language", 8) or "en"
    if language not in LANGUAGES:
        raise LobbyError(N_("The table's language is one of %(choices)s."), choices=", ".join(LANGUAGES))
    fill_days = inputs.small_int(_text(form, "fill_days", 4) or "7", 2)
    if fill_days is None or not FILL_DAYS[0] <= fill_days <= FILL_DAYS[1]:
        raise LobbyError(
            N_("The game must fill within %(first)s to %(last)s days."), first=FILL_DAYS[0], last=FILL_DAYS[1]
        )
    webhook = _text(form, "webhook_url", 2000) or None
    if webhook is not None:
        try:
            webhook = channel.check_url(webhook, allow_private)
        except channel.ChannelError as exc:
            raise LobbyError(exc.msgid, **exc.params) from None
    return NewGame(seats, title, options, preset, language, timezone, _flag(form, "listed"), fill_days, webhook)


def _player(session: Session, player_id: int, *, lock: bool = False) -> Player:
    """The player, not suspended (LobbyError); ``lock``: their row locked (FOR UPDATE), so counts of what they did
    today and a suspension wait for each other."""
    player = session.get(Player, player_id, with_for_update=lock or None)
    if player is None:
        raise NotFound(NOT_FOUND)
    if player.suspended_at is not None:
        raise LobbyError(SUSPENDED)
    return player


def _count(session: Session, query: Any) -> int:
    return int(session.execute(query).scalar_one())


def create(db: Database, creator_id: int, new: NewGame, now: datetime | None = None) -> int:
    """Propose a game; its creator takes its first seat. Returns the proposal's id. LobbyError: suspended, a day's
    limit reached, options the engine refuses."""
    now = now or utcnow()
    try:
        engine.new_game(games.colours_for(new.seats), seed=1, options=dict(new.options or {}))
    except engine.ScenarioError as exc:
        raise LobbyError(str(exc)) from None
    with db.session() as session:  # refused before the estimate's work when it would be (counted again below)
        _check_day(session, _player(session, creator_id), new.listed, now)
    estimate = _estimate(db, new, now)
    with db.session() as session:
        # the creator's row locked: two proposals at once are counted one after the other
        _check_day(session, _player(session, creator_id, lock=True), new.listed, now)
        proposal = Proposal(
            creator_id=creator_id,
            title=new.title,
            seats=new.seats,
            options=dict(new.options or {}),
            preset=new.preset,
            language=new.language,
            timezone=new.timezone,
            listed=new.listed,
            fill_by=now + new.fill_days * DAY,
            status=ProposalStatus.FORMING,
            link_generation=1,
            webhook_url=new.webhook_url,
            estimate=estimate,
            created_at=now,
        )
        session.add(proposal)
        session.flush()
        session.add(ProposalSeat(proposal_id=proposal.id, player_id=creator_id, via="creator", joined_at=now))
        return proposal.id


def _check_day(session: Session, creator: Player, listed: bool, now: datetime) -> None:
    """LobbyError when the creator proposed ``GAMES_PER_DAY`` games in the last day (``OPEN_PER_DAY`` listed)."""
    since = select(func.count(Proposal.id)).where(Proposal.creator_id == creator.id, Proposal.created_at > now - DAY)
    if _count(session, since) >= GAMES_PER_DAY:
        raise LobbyError(TOO_MANY_GAMES, count=GAMES_PER_DAY)
    if listed and _count(session, since.where(Proposal.listed)) >= OPEN_PER_DAY:
        raise LobbyError(TOO_MANY_OPEN, count=OPEN_PER_DAY)


def _estimate(db: Database, new: NewGame, now: datetime) -> dict[str, Any]:
    """How long the game should take with people not known yet in its zone (``games.estimate_game``)."""
    people = [games.PlayerSpec(name="", email=f"seat{i}@estimate.invalid") for i in range(new.seats)]
    spec = games.GameSpec(players=people, options=dict(new.options or {}), timezone=new.timezone, preset=new.preset)
    figures = games.estimate_game(db, spec, now, count=40)
    return {"days_median": figures["days_median"], "days_p90": figures["days_p90"]}


def _forming(session: Session, proposal_id: int, creator_id: int | None = None) -> Proposal:
    """The forming proposal, locked; NotFound when there is none (or, given ``creator_id``, it is someone else's),
    LobbyError when it no longer takes players. Every change of a proposal's seats or invitations locks its row first,
    then the players' rows."""
    query = select(Proposal).where(Proposal.id == proposal_id)
    if creator_id is not None:
        query = query.where(Proposal.creator_id == creator_id)
    proposal = session.execute(query.with_for_update()).scalar_one_or_none()
    if proposal is None:
        raise NotFound(NOT_FOUND)
    if proposal.status != ProposalStatus.FORMING:
        raise LobbyError(NOT_FORMING)
    return proposal


def _by_link(session: Session, secret_key: str, token: str, *, lock: bool) -> Proposal:
    """The proposal of a shareable link (its current generation): LinkError for a forged or replaced one; locked and
    forming (``_forming``) when ``lock``."""
    proposal_id, generation = read_game_link_token(secret_key, token)
    proposal = _forming(session, proposal_id) if lock else session.get(Proposal, proposal_id)
    if proposal is None or generation != proposal.link_generation:
        raise LinkError(REPLACED_LINK)
    return proposal


def _members(session: Session, proposal_id: int) -> list[ProposalSeat]:
    query = select(ProposalSeat).where(ProposalSeat.proposal_id == proposal_id)
    return list(session.execute(query.order_by(ProposalSeat.joined_at, ProposalSeat.id)).scalars())


# --- invitations --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Invited:
    """What ``invite`` did per address: ``sent`` mailed; ``skipped`` with why (a msgid)."""

    sent: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]


def split_addresses(text: str) -> list[str]:
    """The addresses of a text (commas, semicolons, spaces or lines between them), each checked; LobbyError naming
    the first that is not one bare address (nothing is sent then)."""
    parts = [part for part in text.replace(",", " ").replace(";", " ").split() if part]
    if not parts:
        raise LobbyError(NO_ADDRESS)
    if len(parts) > INVITES_AT_ONCE:
        raise LobbyError(TOO_MANY_AT_ONCE, count=INVITES_AT_ONCE)
    found: list[str] = []
    for part in parts:
        try:
            address = inputs.email_address(part)
        except inputs.InputError as exc:
            raise LobbyError(exc.msgid, **exc.params) from None
        if address not in found:
            found.append(address)
    return found


ALREADY_INVITED = N_("already invited")
ALREADY_SEATED = N_("already has a seat")
#: what the address asked or what waits there is its own business: one answer for all of it (asked never to be
#: invited, suspended, too many invitations waiting)
NOT_SENT = N_("takes no invitation now")
#: invitations asked for with a game's shareable link, at most, a day per game.
ASKS_PER_DAY = 20
REPLACED_LINK = N_("This invitation link was replaced by a newer one: ask for it.")


def invite(db: Database, proposal_id: int, creator_id: int, text: str, now: datetime | None = None) -> Invited:
    """Invite the addresses of ``text`` to the creator's forming game: one mail each, written with the invitation.
    LobbyError (nothing sent): an address that is not one, too many at once or today, not the creator's game."""
    now = now or utcnow()
    addresses = split_addresses(text)
    with db.session() as session:
        proposal = _forming(session, proposal_id, creator_id)
        _player(session, creator_id, lock=True)  # (two invitations at once are counted one after the other)
        sent_today = _count(
            session,
            select(func.count(ProposalInvitation.id))
            .join(Proposal, Proposal.id == ProposalInvitation.proposal_id)
            .where(
                Proposal.creator_id == creator_id,
                ProposalInvitation.created_at > now - DAY,
                ProposalInvitation.asked.is_(False),
            ),
        )
        if sent_today + len(addresses) > INVITES_PER_DAY:
            raise LobbyError(TOO_MANY_INVITES, count=INVITES_PER_DAY, left=max(0, INVITES_PER_DAY - sent_today))
        sent: list[str] = []
        skipped: list[tuple[str, str]] = []
        for address in addresses:
            why = _invite_one(session, proposal, address, now, asked=False)
            if why is None:
                sent.append(address)
            else:
                skipped.append((address, why))
        return Invited(tuple(sent), tuple(skipped))


def _invite_one(session: Session, proposal: Proposal, address: str, now: datetime, *, asked: bool) -> str | None:
    """Invite ``address`` to the locked forming ``proposal``: the invitation and its mail, written together; why it
    was not (``ALREADY_SEATED``, ``ALREADY_INVITED``, ``NOT_SENT``), or None."""
    player = games.address_player(session, address, proposal.timezone)
    # the address's row locked: what waits there is counted once at a time
    session.refresh(player, with_for_update=True)
    if not player.display_name:  # nobody confirmed anything at this address: the table's language
        player.language = proposal.language
    if session.execute(
        select(ProposalSeat.id).where(ProposalSeat.proposal_id == proposal.id, ProposalSeat.player_id == player.id)
    ).first():
        return ALREADY_SEATED
    known = select(ProposalInvitation.id).where(
        ProposalInvitation.proposal_id == proposal.id, ProposalInvitation.player_id == player.id
    )
    if session.execute(known).first() is not None:
        return ALREADY_INVITED
    waiting = (
        select(func.count(ProposalInvitation.id))
        .join(Proposal, Proposal.id == ProposalInvitation.proposal_id)
        .where(
            ProposalInvitation.player_id == player.id,
            ProposalInvitation.answer.is_(None),
            Proposal.status == ProposalStatus.FORMING,
        )
    )
    if player.no_invitations or player.suspended_at is not None or _count(session, waiting) >= UNANSWERED_PER_ADDRESS:
        return NOT_SENT
    invitation = ProposalInvitation(proposal_id=proposal.id, player_id=player.id, created_at=now, asked=asked)
    session.add(invitation)
    session.flush()
    key, payload = f"game_invite:{invitation.id}", {"invitation": invitation.id}
    outbox.add(session, [outbox.player_mail(player.id, MailKind.GAME_INVITE, key, payload, now)])
    return None


@dataclass(frozen=True)
class Table:
    """A forming game as anyone it concerns is shown it: public facts only (no addresses)."""

    id: int
    title: str
    creator: str
    seats: int
    players: tuple[str, ...]
    preset: str | None
    language: str
    timezone: str
    options: Mapping[str, str]
    fill_by: datetime
    status: str
    listed: bool
    days_median: float | None
    days_p90: float | None
    game_id: int | None


def _tables(session: Session, proposals: list[Proposal]) -> list[Table]:
    """The proposals as tables, their players' names read for all of them in two queries."""
    ids = [p.id for p in proposals]
    seated: dict[int, list[int]] = {i: [] for i in ids}
    for proposal_id, player_id in session.execute(
        select(ProposalSeat.proposal_id, ProposalSeat.player_id)
        .where(ProposalSeat.proposal_id.in_(ids))
        .order_by(ProposalSeat.joined_at, ProposalSeat.id)
    ):
        seated[proposal_id].append(player_id)
    wanted = {i for members in seated.values() for i in members} | {p.creator_id for p in proposals}
    names = {
        row[0]: row[1] for row in session.execute(select(Player.id, Player.display_name).where(Player.id.in_(wanted)))
    }
    return [_table(p, seated[p.id], names) for p in proposals]


def _table(proposal: Proposal, members: list[int], names: dict[int, str]) -> Table:
    estimate = proposal.estimate or {}
    median, p90 = estimate.get("days_median"), estimate.get("days_p90")
    return Table(
        id=proposal.id,
        title=proposal.title,
        creator=names.get(proposal.creator_id) or "",
        seats=proposal.seats,
        players=tuple(names.get(i) or "?" for i in members),
        preset=proposal.preset,
        language=proposal.language,
        timezone=proposal.timezone,
        options={k: str(v) for k, v in (proposal.options or {}).items()},
        fill_by=proposal.fill_by,
        status=proposal.status,
        listed=proposal.listed,
        days_median=float(median) if isinstance(median, int | float) else None,
        days_p90=float(p90) if isinstance(p90, int | float) else None,
        game_id=proposal.game_id,
    )


@dataclass(frozen=True)
class InvitationView:
    """An invitation as its page shows it to the person who holds its link."""

    invitation_id: int
    table: Table
    email: str
    #: the invited player has a name already (else the page asks for one)
    named: bool
    answer: str | None


def _invitation(session: Session, secret_key: str, token: str) -> ProposalInvitation:
    invitation_id = read_game_invite_token(secret_key, token)
    query = select(ProposalInvitation).where(ProposalInvitation.id == invitation_id)
    invitation = session.execute(query).scalar_one_or_none()
    if invitation is None:
        raise LinkError(N_("This link is not valid."))
    return invitation


def look(db: Database, secret_key: str, token: str) -> InvitationView:
    """The invitation of a mailed link (LinkError: forged), with its game."""
    with db.session() as session:
        invitation = _invitation(session, secret_key, token)
        proposal = session.get(Proposal, invitation.proposal_id)
        player = session.get(Player, invitation.player_id)
        assert proposal is not None and player is not None
        return InvitationView(
            invitation.id, _tables(session, [proposal])[0], player.email, bool(player.display_name), invitation.answer
        )


Answer = Literal["accept", "decline", "never"]
ANSWERS: tuple[Answer, ...] = ("accept", "decline", "never")


@dataclass(frozen=True)
class Answered:
    proposal_id: int
    player_id: int
    answer: str
    #: the game made when this answer took its last seat
    game_id: int | None
    #: answered so before: this answer changed nothing
    again: bool = False


def answer(
    db: Database, secret_key: str, token: str, choice: str, name: str = "", now: datetime | None = None
) -> Answered:
    """Answer an invitation (once; the same answer again changes nothing: ``again``). ``accept`` takes a seat
    (``name``: the player's name when the address has none yet) and may start the game; ``never`` also stops every
    invitation to the address. LinkError: a forged link; LobbyError: answered otherwise before, the game full or
    gone."""
    now = now or utcnow()
    if choice not in ANSWERS:
        raise LobbyError(N_("Choose to accept or to decline."))
    with db.session() as session:
        invitation = _invitation(session, secret_key, token)
        # its game's row first, then the invitation's: the order in which every change of a game's seats locks them
        session.execute(select(Proposal.id).where(Proposal.id == invitation.proposal_id).with_for_update())
        session.refresh(invitation, with_for_update=True)
        stored = {"accept": "accepted", "decline": "declined", "never": "never"}[choice]
        if invitation.answer is not None:
            if invitation.answer != stored:
                raise LobbyError(N_("This invitation was answered already."))
            proposal = session.get(Proposal, invitation.proposal_id)
            game_id = None if proposal is None else proposal.game_id
            return Answered(invitation.proposal_id, invitation.player_id, stored, game_id, again=True)
        player = session.get(Player, invitation.player_id)
        assert player is not None
        game_id = None
        if choice == "accept":
            proposal = _forming(session, invitation.proposal_id)
            game_id = _take_seat(session, proposal, player, "invited", now, name)
        elif choice == "never":
            player.no_invitations = True
            session.execute(
                update(ProposalInvitation)
                .where(ProposalInvitation.player_id == player.id, ProposalInvitation.answer.is_(None))
                .values(answer="never", answered_at=now)
            )
        invitation.answer, invitation.answered_at = stored, now
        return Answered(invitation.proposal_id, player.id, stored, game_id, again=False)


# --- seats ----------------------------------------------------------------------------------------------------------

NEED_NAME = N_("Give the name the other players will see.")


def _take_seat(session: Session, proposal: Proposal, player: Player, via: str, now: datetime, name: str) -> int | None:
    """``player`` takes a seat of the locked forming ``proposal`` (nothing when they have one), named ``name`` when
    nobody named them yet (never after their address); the game's id when that was the last seat (the game starts).
    LobbyError: suspended, full, no name."""
    # the player's row shared-locked: a suspension (which locks it to write) waits for this seat, or this for it
    session.refresh(player, with_for_update={"read": True})
    if player.suspended_at is not None:
        raise LobbyError(SUSPENDED)
    members = _members(session, proposal.id)
    if any(m.player_id == player.id for m in members):
        return None
    if len(members) >= proposal.seats:
        raise LobbyError(FULL)
    if not player.display_name:
        try:
            shown = inputs.person_name(name)
        except inputs.InputError as exc:
            raise LobbyError(exc.msgid, **exc.params) from None
        if not shown:
            raise LobbyError(NEED_NAME)
        player.display_name = shown[:80]
    session.add(ProposalSeat(proposal_id=proposal.id, player_id=player.id, via=via, joined_at=now))
    session.flush()
    if len(members) + 1 == proposal.seats:
        return _start(session, proposal, now)
    return None


@dataclass(frozen=True)
class Joined:
    proposal_id: int
    #: the game made when this seat was its last
    game_id: int | None


def join(db: Database, proposal_id: int, player_id: int, now: datetime | None = None, name: str = "") -> Joined:
    """A signed-in player takes a seat of a game listed in the lobby (``name``: theirs, when they have none yet).
    LobbyError: not listed (NotFound), full, suspended, no longer forming, no name."""
    now = now or utcnow()
    with db.session() as session:
        proposal = _forming(session, proposal_id)
        if not proposal.listed:
            raise NotFound(NOT_FOUND)
        return Joined(proposal.id, _take_seat(session, proposal, _player(session, player_id), "lobby", now, name))


def join_by_link(
    db: Database, secret_key: str, token: str, player_id: int, now: datetime | None = None, name: str = ""
) -> Joined:
    """A signed-in player takes a seat with a game's shareable link (its current generation). LinkError: forged or
    revoked; LobbyError as ``join``."""
    now = now or utcnow()
    with db.session() as session:
        proposal = _by_link(session, secret_key, token, lock=True)
        return Joined(proposal.id, _take_seat(session, proposal, _player(session, player_id), "link", now, name))


def by_link(db: Database, secret_key: str, token: str) -> Table:
    """The game a shareable link invites to (LinkError: forged or revoked)."""
    with db.session() as session:
        return _tables(session, [_by_link(session, secret_key, token, lock=False)])[0]


def named(db: Database, player_id: int) -> bool:
    """Whether the player has a name (else taking a seat asks for one)."""
    with db.session() as session:
        return bool(session.execute(select(Player.display_name).where(Player.id == player_id)).scalar_one_or_none())


def new_link(db: Database, proposal_id: int, creator_id: int) -> int:
    """The creator's new shareable link: the links given before stop working. Returns its generation."""
    with db.session() as session:
        proposal = _forming(session, proposal_id, creator_id)
        proposal.link_generation += 1
        return proposal.link_generation


def leave(db: Database, proposal_id: int, player_id: int) -> None:
    """A player who joined (not its creator) gives their seat back before the game starts."""
    with db.session() as session:
        proposal = _forming(session, proposal_id)
        if proposal.creator_id == player_id:
            raise LobbyError(N_("You created this game: cancel it instead."))
        seat = session.execute(
            select(ProposalSeat).where(ProposalSeat.proposal_id == proposal.id, ProposalSeat.player_id == player_id)
        ).scalar_one_or_none()
        if seat is None:
            raise NotFound(NOT_FOUND)
        session.delete(seat)


def start(db: Database, proposal_id: int, creator_id: int, now: datetime | None = None) -> int:
    """The creator starts their game now, bots in the seats nobody took. Returns the game's id."""
    now = now or utcnow()
    with db.session() as session:
        proposal = _forming(session, proposal_id, creator_id)
        _player(session, creator_id)
        return _start(session, proposal, now)


def _start(session: Session, proposal: Proposal, now: datetime) -> int:
    """Make the locked proposal's game: its players' seats in a random order, bots in the empty ones."""
    members = _members(session, proposal.id)
    people = session.execute(select(Player).where(Player.id.in_([m.player_id for m in members]))).scalars()
    specs = [games.PlayerSpec(name=p.display_name or p.email.split("@")[0], email=p.email) for p in people]
    random.SystemRandom().shuffle(specs)
    specs += [games.PlayerSpec(bot=BOT) for _ in range(proposal.seats - len(specs))]
    spec = games.GameSpec(
        players=specs,
        options=dict(proposal.options or {}),
        timezone=proposal.timezone,
        preset=proposal.preset,
        title=proposal.title,
    )
    game, _engine = games.create_in(session, spec, now)
    game.creator_id = proposal.creator_id
    if proposal.webhook_url:  # checked when the game was proposed, and again before each post
        channel.set_game_channel(session, game.id, proposal.webhook_url, allow_private=True, now=now)
    proposal.status, proposal.game_id, proposal.ended_at = ProposalStatus.STARTED, game.id, now
    return game.id


# --- cancelling -----------------------------------------------------------------------------------------------------


def _cancel(session: Session, proposal: Proposal, reason: str, now: datetime, *, tell_creator: bool) -> None:
    proposal.status, proposal.ended_at = ProposalStatus.CANCELLED, now
    rows = [
        outbox.player_mail(
            m.player_id,
            MailKind.GAME_CANCELLED,
            f"game_cancelled:{proposal.id}:{m.player_id}",
            {"proposal": proposal.id, "reason": reason},
            now,
        )
        for m in _members(session, proposal.id)
        if tell_creator or m.player_id != proposal.creator_id
    ]
    outbox.add(session, rows)


def cancel(db: Database, proposal_id: int, creator_id: int, now: datetime | None = None) -> None:
    """The creator cancels their forming game; each player who joined is mailed."""
    now = now or utcnow()
    with db.session() as session:
        _cancel(session, _forming(session, proposal_id, creator_id), "creator", now, tell_creator=False)


def cancel_unfilled(db: Database, now: datetime, limit: int, more: Callable[[], None]) -> int:
    """The sweep: forming games past their ``fill_by`` cancelled, their players mailed. Returns how many."""
    with db.session() as session:
        due = (
            session.execute(
                select(Proposal)
                .where(Proposal.status == ProposalStatus.FORMING, Proposal.fill_by <= now)
                .order_by(Proposal.fill_by)
                .limit(limit)
                .with_for_update(skip_locked=True)
            )
            .scalars()
            .all()
        )
        if len(due) == limit:  # another batch takes the next ones meanwhile
            more()
        for proposal in due:
            _cancel(session, proposal, "unfilled", now, tell_creator=True)
        return len(due)


def cancel_all_of(db: Database, player_id: int, now: datetime) -> None:
    """A suspended player's forming games are cancelled (their players mailed), their seats in others' given back
    (each game's row locked first, as every change of its seats), and their unanswered invitations declined."""
    joined = select(ProposalSeat.proposal_id).where(ProposalSeat.player_id == player_id)
    with db.session() as session:
        for proposal in session.execute(
            select(Proposal)
            .where(
                Proposal.status == ProposalStatus.FORMING,
                or_(Proposal.creator_id == player_id, Proposal.id.in_(joined)),
            )
            .order_by(Proposal.id)
            .with_for_update()
        ).scalars():
            if proposal.creator_id == player_id:
                _cancel(session, proposal, "suspended", now, tell_creator=False)
            else:
                session.execute(
                    delete(ProposalSeat).where(
                        ProposalSeat.proposal_id == proposal.id, ProposalSeat.player_id == player_id
                    )
                )
        session.execute(
            update(ProposalInvitation)
            .where(ProposalInvitation.player_id == player_id, ProposalInvitation.answer.is_(None))
            .values(answer="declined", answered_at=now)
        )


# --- reading ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Filters:
    """The lobby's filters; None: any."""

    seats: int | None = None
    preset: str | None = None
    language: str | None = None
    #: games whose zone is at most ``hours`` from this one's (now)
    zone: str | None = None
    hours: int = 3


def read_filters(args: Mapping[str, object]) -> Filters:
    """The lobby's query string checked; LobbyError naming a wrong value."""
    seats = _text(args, "seats", 4)
    count = inputs.small_int(seats, 1) if seats else None
    if seats and (count is None or not 3 <= count <= 6):
        raise LobbyError(N_("Mall of Horror takes 3 to 6 players: choose how many."))
    try:
        preset = presets.check_preset(_text(args, "preset", 20))
        zone = _text(args, "zone", 64)
        zone_name = check_timezone(zone) if zone else None
    except (presets.PresetError, TempoError) as exc:
        raise LobbyError(exc.msgid, **exc.params) from None
    language = _text(args, "language", 8) or None
    if language is not None and language not in LANGUAGES:
        raise LobbyError(N_("The table's language is one of %(choices)s."), choices=", ".join(LANGUAGES))
    hours_text = _text(args, "hours", 4) or "3"
    hours = inputs.small_int(hours_text, 2)
    if hours is None or hours > 12:
        raise LobbyError(N_("hours is a whole number from 0 to 12"))
    return Filters(count, preset, language, zone_name, hours)


def _offset_hours(zone: str, now: datetime) -> float:
    offset = now.astimezone(ZoneInfo(zone)).utcoffset()
    return 0.0 if offset is None else offset.total_seconds() / 3600


LOBBY_SIZE = 100


def open_games(db: Database, filters: Filters, now: datetime | None = None) -> list[Table]:
    """The games listed in the lobby that still take players, the soonest to fill first (at most ``LOBBY_SIZE``)."""
    now = now or utcnow()
    query = select(Proposal).where(Proposal.status == ProposalStatus.FORMING, Proposal.listed, Proposal.fill_by > now)
    if filters.seats is not None:
        query = query.where(Proposal.seats == filters.seats)
    if filters.preset is not None:
        query = query.where(Proposal.preset == filters.preset)
    if filters.language is not None:
        query = query.where(Proposal.language == filters.language)
    with db.session() as session:
        query = query.order_by(Proposal.fill_by, Proposal.id)
        # (a zone filter is applied here, on every listed game: the lobby's page is cut after it)
        found = list(session.execute(query if filters.zone else query.limit(LOBBY_SIZE)).scalars())
        if filters.zone is not None:
            here = _offset_hours(filters.zone, now.astimezone(UTC))
            found = [p for p in found if abs(_offset_hours(p.timezone, now) - here) <= filters.hours]
        return _tables(session, found[:LOBBY_SIZE])


@dataclass(frozen=True)
class Forming:
    """A forming game as its page shows it to a reader: the table, whether they have a seat or made it, and (to its
    creator only) who was invited and how they answered."""

    table: Table
    seated: bool
    creator: bool
    link_generation: int
    invitations: tuple[tuple[str, str | None], ...]


def forming(db: Database, proposal_id: int, player_id: int) -> Forming:
    """A game's page for a signed-in player: theirs (made or joined) at any status, or listed while it forms;
    NotFound for any other."""
    with db.session() as session:
        proposal = session.get(Proposal, proposal_id)
        if proposal is None:
            raise NotFound(NOT_FOUND)
        seated = any(m.player_id == player_id for m in _members(session, proposal.id))
        creator = proposal.creator_id == player_id
        if not (seated or creator or (proposal.listed and proposal.status == ProposalStatus.FORMING)):
            raise NotFound(NOT_FOUND)
        invitations: tuple[tuple[str, str | None], ...] = ()
        if creator:
            invitations = tuple(
                (row[0], row[1])
                for row in session.execute(
                    select(Player.email, ProposalInvitation.answer)
                    .join(Player, Player.id == ProposalInvitation.player_id)
                    .where(ProposalInvitation.proposal_id == proposal.id)
                    .order_by(ProposalInvitation.id)
                )
            )
        return Forming(_tables(session, [proposal])[0], seated, creator, proposal.link_generation, invitations)


def mine(db: Database, player_id: int) -> list[Table]:
    """The forming games the player made or joined, for their hub (the newest first)."""
    with db.session() as session:
        joined = select(ProposalSeat.proposal_id).where(ProposalSeat.player_id == player_id)
        found = session.execute(
            select(Proposal)
            .where(Proposal.status == ProposalStatus.FORMING, Proposal.id.in_(joined))
            .order_by(Proposal.id.desc())
        ).scalars()
        return _tables(session, list(found))


def ask_seat(db: Database, secret_key: str, token: str, address: str, now: datetime | None = None) -> None:
    """Someone not signed in, with a game's shareable link, gives their address: it is mailed the game's invitation
    (one mail, accepted from it, as the creator's invitations; at most ``ASKS_PER_DAY`` a day per game, not counted
    as the creator's), unless it asked never to be invited, is suspended, has one for this game already or too many
    waiting (then nothing is sent, and the answer is the same: it tells nothing of the address). LinkError: forged or
    revoked link; LobbyError: not one address, the game no longer forming, the day's asks used up."""
    now = now or utcnow()
    try:
        email = inputs.email_address(address)
    except inputs.InputError as exc:
        raise LobbyError(exc.msgid, **exc.params) from None
    with db.session() as session:
        proposal = _by_link(session, secret_key, token, lock=True)
        asked_today = select(func.count(ProposalInvitation.id)).where(
            ProposalInvitation.proposal_id == proposal.id,
            ProposalInvitation.asked.is_(True),
            ProposalInvitation.created_at > now - DAY,
        )
        if _count(session, asked_today) >= ASKS_PER_DAY:
            raise LobbyError(TOO_MANY_ASKS)
        _invite_one(session, proposal, email, now, asked=True)


def created_games(db: Database, player_id: int, game_id: int | None = None) -> set[int]:
    """The ids of the games the player created (the organiser's powers over each); given ``game_id``, that one only
    (empty when it is not theirs)."""
    query = select(Game.id).where(Game.creator_id == player_id)
    with db.session() as session:
        return set(session.execute(query if game_id is None else query.where(Game.id == game_id)).scalars())
