"""Table talk: a public channel ("all") and private channels between some colours of a game.

Channel keys: ``"all"``, or the sorted colours of the members joined by "+" (``"blue+red"``): 2 to n-1 colours of
the game (all n colours are the public channel). A seat reads and writes only the channels it is a member of.

Text is user input and hostile: control characters and bidirectional overrides are taken out (newlines are kept),
and a message longer than ``MAX_CHARS`` characters or ``MAX_LINES`` lines is refused, never cut, so nothing is
stored that the writer did not see. Pages escape it (Jinja autoescape); mails are plain text plus escaped HTML.

Mail: after a post, every other member seat played by a person gets one outbox row ``chat`` per 10-minute slot
(key ``chat:<seat>:<slot>``, due at the end of the slot), so the messages of a slot go as one digest mail. The mail
lists the messages after ``Seat.chat_mailed_id`` in the seat's channels; ``Seat.chat_mailed_id`` moves on only once
the mail is sent (``outbox.sent``; the mail itself is ``server/mail/kinds.py``'s). Its Reply-To is a signed chat
address (``reply_address.make_chat``): a reply by mail posts to the channel (``reply_by_mail``, called by
``mail.replies.receive``). A chat reply that cannot be
posted (empty, too long, flood, game over, not a member) is recorded on its ``InboundMail`` row (status ``error``)
and its writer (the seat's registered player, never the raw sender) is told why by a ``reply`` mail (result
``chat_error``, at most ``replies.REPLY_LIMITS["chat_error"]`` an hour per seat).

A chat mail due inside the player's quiet hours waits for them to end; a player on the "digest" mail mode gets
the chat row ``held``, so the table talk joins their digest (``reminders.release_digests``).
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ...db import Database
from ...models import ChatChannel, ChatMessage, Game, GameStatus, MailKind, Outbox, OutboxStatus, Seat, utcnow
from ..errors import N_, ShownError
from ..mailflow import outbox, reply_address
from ..tempo import in_quiet_hours

log = logging.getLogger("deadmail.chat")

PUBLIC = "all"
MAX_CHARS = 1000
MAX_LINES = 20
#: messages shown per channel on the page, and listed at most in one mail.
PAGE_MESSAGES = 50
MAIL_MESSAGES = 100
#: the flood limit: at most FLOOD_COUNT messages per seat in FLOOD_WINDOW.
FLOOD_COUNT = 20
FLOOD_WINDOW = timedelta(minutes=10)
#: the slot of the chat digest mail: messages within one slot go as one mail, sent at the end of the slot.
SLOT = 600

#: bidirectional controls (overrides, embeddings, isolates, marks): they can make a message read as another one.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class ChatError(ShownError):
    """A message that cannot be posted; nothing was stored. ``code`` names the reason (kept with a reply mail that
    tells it), the message says it (pages and mails translate it)."""

    MESSAGES: ClassVar[dict[str, tuple[str, dict[str, Any]]]] = {
        "empty": (N_("Your message is empty."), {}),
        "too_long": (N_("Your message is too long: at most %(limit)s characters."), {"limit": MAX_CHARS}),
        "too_many_lines": (N_("Your message has too many lines: at most %(limit)s."), {"limit": MAX_LINES}),
        "flood": (
            N_("You have written %(count)s messages in the last %(minutes)s minutes: wait a little and try again."),
            {"count": FLOOD_COUNT, "minutes": int(FLOOD_WINDOW.total_seconds() // 60)},
        ),
        "not_running": (N_("The game is over: the table talk is closed."), {}),
        "channel": (
            N_("Choose at least one other player, and not everybody (write to everyone in the public channel)."),
            {},
        ),
        "not_member": (N_("You are not in this conversation."), {}),
    }
    OTHER = N_("Your message could not be posted.")

    def __init__(self, code: str) -> None:
        msgid, params = self.MESSAGES.get(code, (self.OTHER, {}))
        super().__init__(msgid, **params)
        self.code = code


# --- channels ------------------------------------------------------------------------------------------------------


def channel_key(colours: Iterable[str], game_colours: Iterable[str], writer: str) -> str:
    """The key of the channel between ``colours``: "all", or the sorted colours joined by "+".

    ChatError unless they are colours of this game, at least 2 and fewer than all of them, and include the writer.
    """
    chosen = {str(c).strip().lower() for c in colours if str(c).strip()}
    table = set(game_colours)
    if chosen == {PUBLIC} or (table and chosen == table):
        return PUBLIC
    if not chosen <= table or not 2 <= len(chosen) < len(table):
        raise ChatError("channel")
    if writer not in chosen:
        raise ChatError("not_member")
    return "+".join(sorted(chosen))


def members(key: str, game_colours: Iterable[str]) -> list[str]:
    """The colours of a channel."""
    table = list(game_colours)
    return table if key == PUBLIC else [c for c in table if c in key.split("+")]


def _is_member(key: str, colour: str) -> bool:
    return key == PUBLIC or colour in key.split("+")


# --- text ----------------------------------------------------------------------------------------------------------


def clean(text: str) -> str:
    """The text to store: no control characters but newlines (tabs become spaces), no bidirectional controls, no
    trailing spaces, no blank lines around it. The length is checked by ``check``."""
    text = str(text).replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    kept = []
    for ch in text:
        if ch == "\n":
            kept.append(ch)
        elif ch == "\t":
            kept.append(" ")
        elif ch in _BIDI or unicodedata.category(ch) in ("Cc", "Cs"):
            continue
        else:
            kept.append(ch)
    lines = [line.rstrip() for line in "".join(kept).split("\n")]
    return "\n".join(lines).strip("\n").strip()


def check(text: str) -> str:
    """The cleaned text, or ChatError when it is empty, too long or has too many lines (nothing is cut)."""
    cleaned = clean(text)
    if not cleaned:
        raise ChatError("empty")
    if len(cleaned) > MAX_CHARS:
        raise ChatError("too_long")
    if cleaned.count("\n") + 1 > MAX_LINES:
        raise ChatError("too_many_lines")
    return cleaned


# --- posting -------------------------------------------------------------------------------------------------------


def _slot(now: datetime) -> int:
    return int(now.timestamp()) // SLOT


def _channel(session: Session, game_id: int, key: str) -> ChatChannel:
    """The channel row, created on first use; a concurrent creation (unique game and key) is read back."""
    found = session.execute(
        select(ChatChannel).where(ChatChannel.game_id == game_id, ChatChannel.key == key)
    ).scalar_one_or_none()
    if found is not None:
        return found
    try:
        with session.begin_nested():
            channel = ChatChannel(game_id=game_id, key=key)
            session.add(channel)
        return channel
    except IntegrityError:
        return session.execute(
            select(ChatChannel).where(ChatChannel.game_id == game_id, ChatChannel.key == key)
        ).scalar_one()


def _queue_mail(session: Session, seat: Seat, now: datetime) -> None:
    """The seat's chat mail of this 10-minute slot, unless it is already queued (sent when the slot ends)."""
    assert seat.player_id is not None and seat.player is not None
    slot = _slot(now)
    key = f"chat:{seat.id}:{slot}"
    due = datetime.fromtimestamp((slot + 1) * SLOT, UTC)
    held = seat.player.mail_mode == "digest"
    quiet_end = None if held else in_quiet_hours(seat.player, due)
    if quiet_end is not None:  # one mail when the quiet hours end, for every slot inside them
        key, due = f"chat:{seat.id}:q{int(quiet_end.timestamp())}", quiet_end
    if session.execute(select(Outbox.id).where(Outbox.key == key)).first() is not None:
        return
    try:
        with session.begin_nested():
            session.add(
                Outbox(
                    key=key,
                    game_id=seat.game_id,
                    player_id=seat.player_id,
                    seat_id=seat.id,
                    kind=MailKind.CHAT,
                    payload={"slot": slot},
                    status=OutboxStatus.HELD if held else OutboxStatus.PENDING,
                    created_at=now,
                    next_attempt_at=outbox.digest_due(seat.player, now) if held else due,
                )
            )
    except IntegrityError:
        pass  # queued meanwhile by another post of the slot


def post(
    db: Database,
    game_id: int,
    colour: str,
    key: str,
    text: str,
    now: datetime | None = None,
    *,
    to: Iterable[str] = (),
) -> int:
    """Post ``text`` as ``colour`` to the channel ``key`` of a running game, or, when ``to`` names colours, to the
    private channel between them and the writer (never the public one); returns the message id.

    ChatError (nothing stored) for a text that is empty, too long or has too many lines, a writer outside the
    channel, a game that is not running, or a writer over the flood limit.
    """
    now = now or utcnow()
    cleaned = check(text)
    with db.session() as session:
        game = session.get(Game, game_id)
        if game is None:
            raise ChatError("not_member")
        if game.status != GameStatus.RUNNING:
            raise ChatError("not_running")
        seats = list(session.execute(select(Seat).where(Seat.game_id == game_id).order_by(Seat.position)).scalars())
        colours = [s.colour for s in seats]
        if colour not in colours:
            raise ChatError("not_member")
        chosen = list(to)
        key = channel_key([*chosen, colour] if chosen else str(key).split("+"), colours, colour)
        if chosen and key == PUBLIC:  # "private" with everybody: refused rather than posted in public
            raise ChatError("channel")
        channel_ids = select(ChatChannel.id).where(ChatChannel.game_id == game_id)
        recent = session.execute(
            select(func.count(ChatMessage.id)).where(
                ChatMessage.channel_id.in_(channel_ids),
                ChatMessage.colour == colour,
                ChatMessage.created_at > now - FLOOD_WINDOW,
            )
        ).scalar_one()
        if recent >= FLOOD_COUNT:
            raise ChatError("flood")
        channel = _channel(session, game_id, key)
        message = ChatMessage(channel_id=channel.id, colour=colour, text=cleaned, created_at=now)
        session.add(message)
        session.flush()
        for seat in seats:
            if (
                seat.colour != colour
                and seat.player_id is not None
                and seat.bot is None
                and _is_member(key, seat.colour)
            ):
                _queue_mail(session, seat, now)
        return message.id


# --- reading ------------------------------------------------------------------------------------------------------


@dataclass
class Channel:
    """A channel a seat is in, with its messages (the last ones asked for), oldest first."""

    key: str
    id: int | None
    messages: list[ChatMessage]

    @property
    def last(self) -> int:
        return self.messages[-1].id if self.messages else 0


def _channels_of(session: Session, game_id: int, colour: str) -> list[ChatChannel]:
    rows = session.execute(select(ChatChannel).where(ChatChannel.game_id == game_id).order_by(ChatChannel.id))
    return [ch for ch in rows.scalars() if _is_member(ch.key, colour)]


def channels(session: Session, seat: Seat, limit: int = PAGE_MESSAGES) -> list[Channel]:
    """The channels the seat is in, the public one always first (even before anyone wrote), then the private ones
    by their latest message; each with its last ``limit`` messages."""
    found = {ch.key: ch for ch in _channels_of(session, seat.game_id, seat.colour)}
    out = []
    for key in [PUBLIC, *sorted(k for k in found if k != PUBLIC)]:
        messages: list[ChatMessage] = []
        if key in found:
            messages = list(
                session.execute(
                    select(ChatMessage)
                    .where(ChatMessage.channel_id == found[key].id)
                    .order_by(ChatMessage.id.desc())
                    .limit(limit)
                ).scalars()
            )
            messages.reverse()
        out.append(Channel(key, found[key].id if key in found else None, messages))
    return [out[0], *sorted(out[1:], key=lambda c: -c.last)]


def unread(session: Session, seat: Seat) -> list[Channel]:
    """The messages after ``Seat.chat_mailed_id`` in the seat's channels (the last MAIL_MESSAGES), by channel."""
    found = {ch.id: ch for ch in _channels_of(session, seat.game_id, seat.colour)}
    if not found:
        return []
    rows = list(
        session.execute(
            select(ChatMessage)
            .where(ChatMessage.channel_id.in_(list(found)), ChatMessage.id > (seat.chat_mailed_id or 0))
            .order_by(ChatMessage.id.desc())
            .limit(MAIL_MESSAGES)
        ).scalars()
    )
    rows.reverse()
    grouped: dict[int, Channel] = {}
    for message in rows:
        channel = found[message.channel_id]
        grouped.setdefault(channel.id, Channel(channel.key, channel.id, [])).messages.append(message)
    return sorted(grouped.values(), key=lambda c: (c.key != PUBLIC, c.key))


# --- replies by mail -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MailPost:
    #: applied, wrong_sender, forged, error
    status: str
    detail: str
    seat_id: int | None
    #: the ChatError code of an ``error``.
    code: str = ""


def reply_by_mail(
    db: Database, to: reply_address.ChatReplyTo, sender: str, text: str, now: datetime | None = None
) -> MailPost:
    """A reply by mail to a chat address (the quoted mail and signature already stripped): posted to the channel
    when it comes from the seat's player and the address is the seat's current one."""
    with db.session() as session:
        seat = session.get(Seat, to.seat_id)
        channel = session.get(ChatChannel, to.channel_id)
        player = seat.player if seat is not None else None
        if seat is None or player is None or channel is None or channel.game_id != seat.game_id:
            return MailPost("forged", "no such seat or channel", None)
        if seat.link_generation != to.generation:
            return MailPost("forged", "revoked address", seat.id)
        if sender.strip().lower() != player.email.strip().lower():
            return MailPost("wrong_sender", f"from {sender}", seat.id)
        game_id, colour, key = seat.game_id, seat.colour, channel.key
    try:
        post(db, game_id, colour, key, text, now=now)
    except ChatError as exc:
        log.info("chat reply of seat %s not posted: %s", to.seat_id, exc.code)
        return MailPost("error", f"chat {key}: {exc.code}", to.seat_id, exc.code)
    return MailPost("applied", f"chat {key}", to.seat_id)


@dataclass
class Table:
    """The table talk a seat may read: its channels (``channels``), the game's colours, whether it is running."""

    colour: str
    channels: list[Channel]
    colours: list[str]
    running: bool


def table(db: Database, seat_id: int) -> Table:
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None
        game = seat.game
        colours = [s.colour for s in game.seats]
        return Table(seat.colour, channels(session, seat), colours, game.status == GameStatus.RUNNING)
