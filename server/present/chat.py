"""Table talk as a seat's player is shown it: on the seat page (its channels, with the last messages) and in the
chat digest mail (the unread messages, by channel). Only the channels the seat is a member of."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from babel.dates import format_datetime

from ..models import ChatMessage
from ..services.play.chat import MAX_CHARS, MAX_LINES, PUBLIC, Channel, members
from ..text import glossary
from ..text.i18n import DATE_LOCALES, format_when, language, translations, zone


def _others(lang: str, key: str, reader: str) -> str:
    """The other members of a private channel, by name."""
    return ", ".join(glossary.colour_name(lang, c) for c in key.split("+") if c != reader)


def channel_title(lang: str, key: str, reader: str) -> str:
    """The channel's name for ``reader``: "Everyone", or "Private: Red and you"."""
    t = translations(lang)
    if key == PUBLIC:
        return t.gettext("Everyone")
    return t.gettext("Private: %(colours)s and you") % {"colours": _others(lang, key, reader)}


def _write_to(lang: str, key: str, reader: str) -> str:
    t = translations(lang)
    if key == PUBLIC:
        return t.gettext("Write to everyone")
    return t.gettext("Write to %(colours)s only") % {"colours": _others(lang, key, reader)}


def stamp(instant: datetime, tz: str, lang: str) -> str:
    """A message's time for a mail: short, in the reader's zone, with the zone's name."""
    local = instant.astimezone(zone(tz))
    stamp = format_datetime(local, "short", tzinfo=zone(tz), locale=DATE_LOCALES[language(lang)])
    return f"{stamp} {local.tzname()}"


@dataclass(frozen=True, slots=True)
class MessageShown:
    """A message on the seat page."""

    id: int
    colour: str
    colour_name: str
    #: written by the reader.
    mine: bool
    text: str
    #: when, in the reader's zone, and how long ago.
    when: str
    relative: str
    #: ISO 8601.
    iso: str


@dataclass(frozen=True, slots=True)
class ChannelShown:
    key: str
    title: str
    #: the label of its form ("Write to everyone").
    label: str
    #: the members' colour names.
    members: list[str]
    messages: list[MessageShown]
    last: int


@dataclass(frozen=True, slots=True)
class Other:
    """Another colour to start a private channel with."""

    colour: str
    name: str


@dataclass(frozen=True, slots=True)
class ChatPage:
    """What templates/chat.html shows."""

    colour: str
    colour_name: str
    #: the game runs: messages may be written.
    open: bool
    channels: list[ChannelShown]
    others: list[Other]
    private_possible: bool
    max_chars: int
    max_lines: int


@dataclass(frozen=True, slots=True)
class MailMessage:
    """A message in a mail."""

    colour_name: str
    mine: bool
    #: ``stamp``.
    when: str
    text: str
    lines: list[str]


@dataclass(frozen=True, slots=True)
class MailChannel:
    title: str
    messages: list[MailMessage]


def _message(lang: str, message: ChatMessage, reader: str, now: datetime, tz: str) -> MessageShown:
    absolute, relative = format_when(message.created_at, now, tz, lang)
    return MessageShown(
        id=message.id,
        colour=message.colour,
        colour_name=glossary.colour_name(lang, message.colour),
        mine=message.colour == reader,
        text=message.text,
        when=absolute,
        relative=relative,
        iso=message.created_at.isoformat(),
    )


def page(
    lang: str, channels: list[Channel], reader: str, colours: list[str], *, running: bool, tz: str, now: datetime
) -> ChatPage:
    """What templates/chat.html shows to the seat of colour ``reader`` (``services.play.chat.channels``), with times
    in its player's zone, and the other colours to start a private channel with."""
    return ChatPage(
        colour=reader,
        colour_name=glossary.colour_name(lang, reader),
        open=running,
        channels=[
            ChannelShown(
                key=channel.key,
                title=channel_title(lang, channel.key, reader),
                label=_write_to(lang, channel.key, reader),
                members=[glossary.colour_name(lang, c) for c in members(channel.key, colours)],
                messages=[_message(lang, m, reader, now, tz) for m in channel.messages],
                last=channel.last,
            )
            for channel in channels
        ],
        others=[Other(c, glossary.colour_name(lang, c)) for c in colours if c != reader],
        private_possible=len(colours) > 2,
        max_chars=MAX_CHARS,
        max_lines=MAX_LINES,
    )


def mail_sections(lang: str, unread: list[Channel], reader: str, tz: str) -> list[MailChannel]:
    """The unread table talk of a mail, by channel (``services.play.chat.unread``)."""
    return [
        MailChannel(
            title=channel_title(lang, channel.key, reader),
            messages=[
                MailMessage(
                    colour_name=glossary.colour_name(lang, m.colour),
                    mine=m.colour == reader,
                    when=stamp(m.created_at, tz, lang),
                    text=m.text,
                    lines=m.text.split("\n")[:MAX_LINES],
                )
                for m in channel.messages
            ],
        )
        for channel in unread
    ]
