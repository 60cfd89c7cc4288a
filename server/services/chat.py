"""Table talk: a public channel ("all") and private channels between some colours of a game.

Channel keys: ``"all"``, or the sorted colours of the members joined by "+" (``"blue+red"``): 2 to n-1 colours of
the game (all n colours are the public channel). A seat reads and writes only the channels it is a member of.

Text is user input and hostile: control characters and bidirectional overrides are taken out (newlines are kept),
and a message longer than ``MAX_CHARS`` characters or ``MAX_LINES`` lines is refused, never cut, so nothing is
stored that the writer did not see. Pages escape it (Jinja autoescape); mails are plain text plus escaped HTML.

Mail: after a post, every other member seat played by a person gets one outbox row ``chat`` per 10-minute slot
(key ``chat:<seat>:<slot>``, due at the end of the slot), so the messages of a slot go as one digest mail. The mail
lists the messages after ``Seat.chat_mailed_id`` in the seat's channels; ``Seat.chat_mailed_id`` moves on only once
the mail is sent (``mails.record_sent``). Its Reply-To is a signed chat address (``reply_address.make_chat``): a
reply by mail posts to the channel (``reply_by_mail``, called by ``replies.receive``). A chat reply that cannot be
posted (empty, too long, flood, game over, not a member) is recorded on its ``InboundMail`` row (status ``error``)
and its writer (the seat's registered player, never the raw sender) is told why by a ``reply`` mail (result
``chat_error``, at most ``replies.REPLY_LIMITS["chat_error"]`` an hour per seat).

A chat mail due inside the player's quiet hours waits for them to end; a player on the "digest" mail mode gets
the chat row ``held``, so the table talk joins their digest (``reminders.release_digests``, ``mails.compose``).
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import TYPE_CHECKING, Any

import css_inline
from babel.dates import format_datetime
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .. import i18n, narrate
from ..db import Database
from ..models import ChatChannel, ChatMessage, Game, Outbox, Seat, utcnow
from . import reply_address

if TYPE_CHECKING:
    from .mails import Composer

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


class ChatError(ValueError):
    """A message that cannot be posted; nothing was stored. ``code`` names the reason, ``text(lang)`` tells it."""

    def __init__(self, code: str, **values: Any) -> None:
        self.code = code
        self.values = values
        super().__init__(self.text("en"))

    def text(self, lang: str) -> str:
        t = i18n.translations(lang)
        messages = {
            "empty": t.gettext("Your message is empty."),
            "too_long": t.gettext("Your message is too long: at most %(limit)s characters.") % {"limit": MAX_CHARS},
            "too_many_lines": t.gettext("Your message has too many lines: at most %(limit)s.") % {"limit": MAX_LINES},
            "flood": t.gettext(
                "You have written %(count)s messages in the last %(minutes)s minutes: wait a little and try again."
            )
            % {"count": FLOOD_COUNT, "minutes": int(FLOOD_WINDOW.total_seconds() // 60)},
            "not_running": t.gettext("The game is over: the table talk is closed."),
            "channel": t.gettext(
                "Choose at least one other player, and not everybody (write to everyone in the public channel)."
            ),
            "not_member": t.gettext("You are not in this conversation."),
        }
        return messages.get(self.code, t.gettext("Your message could not be posted."))


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
    """The seat's chat mail of this 10-minute slot, unless it is already queued."""
    from .reminders import in_quiet_hours

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
                    kind="chat",
                    payload={"slot": slot},
                    status="held" if held else "pending",
                    created_at=now,
                    next_attempt_at=due,
                )
            )
    except IntegrityError:
        pass  # queued meanwhile by another post of the slot


def post(db: Database, game_id: int, colour: str, key: str, text: str, now: datetime | None = None) -> int:
    """Post ``text`` as ``colour`` to the channel ``key`` of a running game; returns the message id.

    ChatError (nothing stored) for a text that is empty, too long or has too many lines, a writer outside the
    channel, a game that is not running, or a writer over the flood limit.
    """
    now = now or utcnow()
    cleaned = check(text)
    with db.session() as session:
        game = session.get(Game, game_id)
        if game is None:
            raise ChatError("not_member")
        if game.status != "running":
            raise ChatError("not_running")
        seats = list(session.execute(select(Seat).where(Seat.game_id == game_id).order_by(Seat.position)).scalars())
        colours = [s.colour for s in seats]
        if colour not in colours:
            raise ChatError("not_member")
        key = channel_key(str(key).split("+"), colours, colour)
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


# --- the page ------------------------------------------------------------------------------------------------------


def channel_title(lang: str, key: str, reader: str) -> str:
    """The channel's name for ``reader``: "Everyone", or "Private: Red and you"."""
    t = i18n.translations(lang)
    if key == PUBLIC:
        return t.gettext("Everyone")
    others = [narrate.colour_name(lang, c) for c in key.split("+") if c != reader]
    return t.gettext("Private: %(colours)s and you") % {"colours": ", ".join(others)}


def _write_to(lang: str, key: str, reader: str) -> str:
    t = i18n.translations(lang)
    if key == PUBLIC:
        return t.gettext("Write to everyone")
    others = [narrate.colour_name(lang, c) for c in key.split("+") if c != reader]
    return t.gettext("Write to %(colours)s only") % {"colours": ", ".join(others)}


def _channels_of(session: Session, game_id: int, colour: str) -> list[ChatChannel]:
    rows = session.execute(select(ChatChannel).where(ChatChannel.game_id == game_id).order_by(ChatChannel.id))
    return [ch for ch in rows.scalars() if _is_member(ch.key, colour)]


def page_context(db: Database, seat_id: int, lang: str, now: datetime | None = None) -> dict[str, Any]:
    """What templates/chat.html shows to one seat: only the channels it is a member of, with their last messages
    (times in the reader's zone), and the other colours to start a private channel with."""
    now = now or utcnow()
    lang = i18n.language(lang)
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None
        game = seat.game
        tz = seat.player.timezone if seat.player is not None else "UTC"
        colours = [s.colour for s in game.seats]
        found = {ch.key: ch for ch in _channels_of(session, game.id, seat.colour)}
        keys = [PUBLIC, *sorted(k for k in found if k != PUBLIC)]
        channels: list[dict[str, Any]] = []
        for key in keys:
            messages: list[ChatMessage] = []
            if key in found:
                messages = list(
                    session.execute(
                        select(ChatMessage)
                        .where(ChatMessage.channel_id == found[key].id)
                        .order_by(ChatMessage.id.desc())
                        .limit(PAGE_MESSAGES)
                    ).scalars()
                )
                messages.reverse()
            channels.append(
                {
                    "key": key,
                    "title": channel_title(lang, key, seat.colour),
                    "label": _write_to(lang, key, seat.colour),
                    "members": [narrate.colour_name(lang, c) for c in members(key, colours)],
                    "messages": [_message_dict(lang, m, seat.colour, now, tz) for m in messages],
                    "last": messages[-1].id if messages else 0,
                }
            )
        public, private = channels[0], sorted(channels[1:], key=lambda c: -c["last"])
        return {
            "colour": seat.colour,
            "colour_name": narrate.colour_name(lang, seat.colour),
            "open": game.status == "running",
            "channels": [public, *private],
            "others": [{"colour": c, "name": narrate.colour_name(lang, c)} for c in colours if c != seat.colour],
            "private_possible": len(colours) > 2,
            "max_chars": MAX_CHARS,
            "max_lines": MAX_LINES,
        }


def _message_dict(lang: str, message: ChatMessage, reader: str, now: datetime, tz: str) -> dict[str, Any]:
    absolute, relative = i18n.format_when(message.created_at, now, tz, lang)
    return {
        "id": message.id,
        "colour": message.colour,
        "colour_name": narrate.colour_name(lang, message.colour),
        "mine": message.colour == reader,
        "text": message.text,
        "when": absolute,
        "relative": relative,
        "iso": message.created_at.isoformat(),
    }


# --- the digest mail -----------------------------------------------------------------------------------------------


@dataclass
class _Unread:
    channel: ChatChannel
    messages: list[ChatMessage]


def stamp(instant: datetime, tz: str, lang: str) -> str:
    zone = i18n.zone(tz)
    local = instant.astimezone(zone)
    stamp = format_datetime(local, "short", tzinfo=zone, locale=i18n.DATE_LOCALES[i18n.language(lang)])
    return f"{stamp} {local.tzname()}"


def unread(session: Session, seat: Seat) -> list[_Unread]:
    """The messages after ``Seat.chat_mailed_id`` in the seat's channels (the last MAIL_MESSAGES), by channel."""
    channels = {ch.id: ch for ch in _channels_of(session, seat.game_id, seat.colour)}
    if not channels:
        return []
    rows = list(
        session.execute(
            select(ChatMessage)
            .where(ChatMessage.channel_id.in_(list(channels)), ChatMessage.id > (seat.chat_mailed_id or 0))
            .order_by(ChatMessage.id.desc())
            .limit(MAIL_MESSAGES)
        ).scalars()
    )
    rows.reverse()
    grouped: dict[int, _Unread] = {}
    for message in rows:
        grouped.setdefault(message.channel_id, _Unread(channels[message.channel_id], [])).messages.append(message)
    return sorted(grouped.values(), key=lambda u: (u.channel.key != PUBLIC, u.channel.key))


def compose_chat(composer: Composer, row: Outbox, seat: Seat | None) -> EmailMessage | None:
    """The digest mail of a ``chat`` outbox row; None when the seat has no unread message from another colour
    (told by an earlier mail, or its player left). Records the last message told on the message
    (``deadmail_chat``), for ``mails.record_sent``."""
    from . import mails

    if seat is None or seat.player_id != composer.player.id:
        return None
    groups = unread(composer.session, seat)
    news = [m for g in groups for m in g.messages if m.colour != seat.colour]
    if not news:
        return None
    settings, player, lang, t = composer.settings, composer.player, composer.lang, composer.t
    game = seat.game
    label = mails.game_label(lang, game.id, game.title)
    latest = max(news, key=lambda m: m.id)
    reply_channel = next(g.channel for g in groups if g.channel.id == latest.channel_id)
    sections = [
        {
            "title": channel_title(lang, g.channel.key, seat.colour),
            "messages": [
                {
                    "colour_name": narrate.colour_name(lang, m.colour),
                    "mine": m.colour == seat.colour,
                    "when": stamp(m.created_at, player.timezone, lang),
                    "text": m.text,
                    "lines": m.text.split("\n"),
                }
                for m in g.messages
            ],
        }
        for g in groups
    ]
    count = len(news)
    subject = t.ngettext(
        "%(game)s: %(num)d new message at the table", "%(game)s: %(num)d new messages at the table", count
    ) % {"game": label, "num": count}
    links = composer.links(seat)
    ctx = {
        "name": mails._cap(player.display_name, 80),
        "subject": subject,
        "label": label,
        "colour_name": narrate.colour_name(lang, seat.colour),
        "sections": sections,
        "reply_to": channel_title(lang, reply_channel.key, seat.colour) if settings.reply_domain else None,
        "max_lines": MAX_LINES,
        "seat_url": links.seat,
        "prefs_url": links.prefs,
    }
    text = i18n.render("mail/chat.txt", lang, **ctx)
    html = css_inline.inline(i18n.render("mail/chat.html", lang, **ctx), load_remote_stylesheets=False)
    host = mails._host(settings)
    msg = EmailMessage()
    msg["From"] = settings.mail_from
    msg["To"] = f'"{mails._cap(player.display_name, 80).replace(chr(34), "")}" <{player.email}>'
    msg["Subject"] = mails._cap(subject, 200)
    msg["Date"] = formatdate(localtime=False)
    msg["Message-ID"] = make_msgid(idstring=f"deadmail.{row.key.replace(':', '.')}", domain=host)
    root = mails.thread_root(game.id, seat.id, host)  # the game's thread, started by the seat's first mail
    msg["In-Reply-To"] = root
    msg["References"] = root
    if settings.reply_domain:
        msg["Reply-To"] = reply_address.make_chat(
            settings.secret_key, settings.reply_domain, seat.id, reply_channel.id, seat.link_generation
        )
    msg["Auto-Submitted"] = "auto-generated"
    msg["List-Unsubscribe"] = f"<{links.prefs}>"
    msg.set_content(text)
    msg.add_alternative(html, subtype="html")
    msg["Content-Language"] = lang
    msg.deadmail_chat = {seat.id: max(m.id for g in groups for m in g.messages)}  # type: ignore[attr-defined]
    return msg


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
