"""Signed reply addresses: one per seat and window, so a reply by mail says whose answer it is and to what.

``r-<seat>-<window>-<generation>-<mac>@<DEADMAIL_REPLY_DOMAIN>``. The MAC is an HMAC-SHA256 (itsdangerous's key
derivation, salt ``deadmail.reply``) written in lower-case base32, because mail servers may change the case of the
local part. Raising a seat's link generation revokes its reply addresses too.

Table talk (server/services/play/chat.py) has its own kind: ``c-<seat>-<channel>-<generation>-<mac>@…``, a reply to it
posts to the channel. Its MAC is taken over ``chat:<seat>-<channel>-<generation>`` (a turn address signs digits
only), so a turn address can never be read as a chat one, nor the other way round.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

from itsdangerous import Signer

SALT = "deadmail.reply"
MAC_CHARS = 26  # 130 bits
_LOCAL = re.compile(r"^r-(\d{1,12})-(\d{1,9})-(\d{1,9})-([a-z2-7]{26})$")
_CHAT_LOCAL = re.compile(r"^c-(\d{1,12})-(\d{1,12})-(\d{1,9})-([a-z2-7]{26})$")


class ReplyAddressError(ValueError):
    """An address that was not made by this server (a forgery, or a typo)."""


@dataclass(frozen=True)
class ReplyTo:
    seat_id: int
    window: int
    generation: int


def _mac(secret_key: str, value: str) -> str:
    signer = Signer(secret_key, salt=SALT, digest_method=hashlib.sha256)
    raw = signer.algorithm.get_signature(signer.derive_key(), value.encode())
    return base64.b32encode(raw).decode().lower()[:MAC_CHARS]


def _numbers(secret_key: str, domain: str, address: str, local_pattern: re.Pattern[str], mac_prefix: str) -> list[int]:
    """The three numbers of a signed address of one kind; ReplyAddressError unless this server signed it."""
    local, _, host = address.strip().strip("<>").rpartition("@")
    if domain and host.lower() != domain.lower():
        raise ReplyAddressError("not one of our reply addresses")
    match = local_pattern.match(local.lower())
    if match is None:
        raise ReplyAddressError(f"not one of our {'chat ' if mac_prefix else ''}reply addresses")
    *numbers, mac = match.groups()
    if not hmac.compare_digest(mac, _mac(secret_key, mac_prefix + "-".join(numbers))):
        raise ReplyAddressError("the reply address is not signed by this server")
    return [int(n) for n in numbers]


def make(secret_key: str, domain: str, seat_id: int, window: int, generation: int) -> str:
    value = f"{seat_id}-{window}-{generation}"
    return f"r-{value}-{_mac(secret_key, value)}@{domain}"


def read(secret_key: str, domain: str, address: str) -> ReplyTo:
    """The seat, window and link generation of a reply address; ReplyAddressError unless this server signed it."""
    return ReplyTo(*_numbers(secret_key, domain, address, _LOCAL, ""))


@dataclass(frozen=True)
class ChatReplyTo:
    seat_id: int
    channel_id: int
    generation: int


def make_chat(secret_key: str, domain: str, seat_id: int, channel_id: int, generation: int) -> str:
    """The address a reply to a table-talk mail goes to: it posts to ``channel_id`` as ``seat_id``."""
    value = f"{seat_id}-{channel_id}-{generation}"
    return f"c-{value}-{_mac(secret_key, 'chat:' + value)}@{domain}"


def read_chat(secret_key: str, domain: str, address: str) -> ChatReplyTo:
    """The seat, channel and link generation of a chat reply address; ReplyAddressError unless this server signed
    it as one."""
    return ChatReplyTo(*_numbers(secret_key, domain, address, _CHAT_LOCAL, "chat:"))
