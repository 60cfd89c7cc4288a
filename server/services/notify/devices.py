"""A player's devices: browsers subscribed to Web Push (RFC 8030; their keys for RFC 8291) and chat apps' addresses.

Everything from outside is checked before anything is stored: a subscription as a browser's
``PushSubscription.toJSON()`` gives it (an endpoint, a P-256 point ``p256dh`` and a 16-byte ``auth``), its endpoint
https on a named host when the server itself is reached over https (no private address for the worker to be sent
to), at most ``MAX_DEVICES`` per player, and an endpoint belongs to one player only (another player's is refused,
nothing changes). A refusal is a ``DeviceError`` (its msgid says what was wrong; 4xx for the web)."""

from __future__ import annotations

import base64
import binascii
import ipaddress
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from engine.shapes import JSON

from ...db import Database
from ...models import Device, DeviceKind, NotifyMode, Player, Seat
from .. import inputs
from ..errors import N_, ShownError

#: devices one player may have (a flood of subscriptions is refused past it).
MAX_DEVICES = 10
#: the longest endpoint taken (the column's width; vendors' are about 200 characters).
MAX_ENDPOINT = 1000
#: the longest device name.
MAX_NAME = 60
#: permanent failures in a row after which a device is removed (a push service's 404/410 removes it at once).
MAX_FAILURES = 3
#: the minutes a player may choose to wait before the mail of an unanswered decision (``NotifyMode.FIRST``).
MAIL_AFTER = (15, 30, 60, 120, 240, 480)


class DeviceError(ShownError):
    """A device refused; ``status`` is the HTTP status a page or the API answers."""

    def __init__(self, msgid: str, status: int = 400, **params: Any) -> None:
        super().__init__(msgid, **params)
        self.status = status


@dataclass(frozen=True)
class Listed:
    """A device as its player's page lists it."""

    id: int
    kind: str
    name: str
    created_at: datetime
    reached_at: datetime | None
    failing: bool


@dataclass(frozen=True)
class Channels:
    """A player's devices and how they are told (``Player.notify_mode``, ``mail_after``)."""

    devices: list[Listed]
    mode: str
    mail_after: int
    #: per channel, the newest delays it took to reach the player (``Player.reach``).
    reach: dict[str, list[int]]


def _unb64(text: object, size: int) -> bytes | None:
    """``text`` as base64url (padding optional) of exactly ``size`` bytes, else None."""
    if not isinstance(text, str) or len(text) > 2 * size + 4:
        return None
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None
    return data if len(data) == size else None


def _public_host(host: str) -> bool:
    """A host the worker may send to from a server on the internet: a name, not an address, not this machine's."""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return "." in host and not host.endswith((".local", ".localhost", ".internal", ".lan")) and host != "localhost"
    return False


def check_endpoint(endpoint: object, *, secure: bool) -> str:
    """A push endpoint (or a chat app's web address) as taken: a URL of at most ``MAX_ENDPOINT`` characters, https
    on a public host name when ``secure`` (the server is served over https: production), http allowed otherwise."""
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > MAX_ENDPOINT or inputs.CONTROL.search(endpoint):
        raise DeviceError(N_("The subscription has no endpoint, or one that is too long."))
    parts = urlsplit(endpoint)
    schemes = ("https",) if secure else ("https", "http")
    if parts.scheme not in schemes or not parts.hostname:
        raise DeviceError(N_("A push endpoint must be an https address."))
    if secure and not _public_host(parts.hostname):
        raise DeviceError(N_("A push endpoint must be on a push service's public host."))
    return endpoint


def check_subscription(subscription: JSON, *, secure: bool) -> tuple[str, str, str]:
    """The endpoint and keys of a browser's ``PushSubscription.toJSON()``, checked: ``p256dh`` a point of P-256 (65
    bytes, uncompressed), ``auth`` 16 bytes, both base64url; DeviceError (400) otherwise."""
    if not isinstance(subscription, dict):
        raise DeviceError(N_("The subscription is not a browser's push subscription."))
    endpoint = check_endpoint(subscription.get("endpoint"), secure=secure)
    keys = subscription.get("keys")
    keys = keys if isinstance(keys, dict) else {}
    point, auth = _unb64(keys.get("p256dh"), 65), _unb64(keys.get("auth"), 16)
    if point is None or auth is None:
        raise DeviceError(N_("The subscription's keys have the wrong length."))
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise DeviceError(N_("The subscription's key is not a P-256 public key.")) from None
    return endpoint, str(keys["p256dh"]).rstrip("="), str(keys["auth"]).rstrip("=")


def device_name(name: object) -> str:
    """A device's name: one line, at most ``MAX_NAME`` characters; "Device" when empty."""
    text = name if isinstance(name, str) else ""
    if inputs.CONTROL.search(text):
        raise DeviceError(N_("A device's name is one line, without control characters."))
    return text.strip()[:MAX_NAME] or "Device"


def subscribe(db: Database, player_id: int, subscription: JSON, name: object, now: datetime, *, secure: bool) -> int:
    """Store a browser's push subscription for the player (its keys and name renewed when the player had it
    already); its id. Refused (DeviceError, nothing stored): a malformed subscription (400), one another player holds
    (409), more than ``MAX_DEVICES`` (429)."""
    endpoint, p256dh, auth = check_subscription(subscription, secure=secure)
    taken = N_("This device already gets the notifications of another player.")
    named = device_name(name)
    return _store(db, player_id, DeviceKind.PUSH, endpoint, named, now=now, taken=taken, p256dh=p256dh, auth=auth)


def _store(
    db: Database, player_id: int, kind: str, endpoint: str, name: str, *, now: datetime, taken: str, **keys: str
) -> int:
    """The player's device at ``endpoint`` (its name and keys renewed when they had it already); its id. DeviceError:
    another player holds it (409, ``taken``), or the player has ``MAX_DEVICES`` already (429)."""
    with db.session() as session:
        found = session.execute(select(Device).where(Device.endpoint == endpoint)).scalar_one_or_none()
        if found is not None and found.player_id != player_id:
            raise DeviceError(taken, 409)
        if found is not None:
            found.name, found.failures = name, 0
            for key, value in keys.items():
                setattr(found, key, value)
            return found.id
        _room_for_one(session, player_id)
        device = Device(
            player_id=player_id, kind=kind, endpoint=endpoint, name=name, created_at=now, failures=0, **keys
        )
        session.add(device)
        session.flush()
        return device.id


def _room_for_one(session: Session, player_id: int) -> None:
    count = session.execute(select(func.count()).where(Device.player_id == player_id)).scalar_one()
    if count >= MAX_DEVICES:
        raise DeviceError(N_("You have %(count)s devices already: remove one first."), 429, count=MAX_DEVICES)


def channels(db: Database, player_id: int) -> Channels:
    """The player's devices (oldest first) and how they are told."""
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise DeviceError(N_("This link is not valid."), 404)
        rows = session.execute(select(Device).where(Device.player_id == player_id).order_by(Device.id)).scalars()
        listed = [
            Listed(d.id, d.kind, d.name, d.created_at, d.reached_at, d.failures > 0 and d.reached_at is None)
            for d in rows
        ]
        return Channels(listed, player.notify_mode, player.mail_after, dict(player.reach or {}))


def remove(db: Database, player_id: int, device_id: int) -> bool:
    """Remove one of the player's devices (its notifications not yet sent go with it); False when it was not
    theirs or is gone already."""
    with db.session() as session:
        gone = session.execute(delete(Device).where(Device.id == device_id, Device.player_id == player_id))
        return bool(gone.rowcount)  # type: ignore[attr-defined]


def set_mode(db: Database, player_id: int, mode: object, mail_after: object) -> None:
    """How the player is told once they have a device: ``NotifyMode`` and the minutes before the mail (one of
    ``MAIL_AFTER``); DeviceError (400) for anything else, nothing changed."""
    if mode not in tuple(NotifyMode):
        raise DeviceError(N_("Choose how you are told: mail and notifications, notifications first, or mail only."))
    minutes = inputs.small_int(mail_after, 3) if isinstance(mail_after, str) else mail_after
    if isinstance(minutes, bool) or minutes not in MAIL_AFTER:
        raise DeviceError(N_("The mail follows after 15, 30, 60, 120, 240 or 480 minutes."))
    with db.session() as session:
        session.execute(update(Player).where(Player.id == player_id).values(notify_mode=mode, mail_after=minutes))


def seat_player(db: Database, seat_id: int) -> int:
    """The player of a seat, whose devices a seat page subscribes; DeviceError (404) for a bot's seat."""
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        if seat is None or seat.player_id is None or seat.bot is not None:
            raise DeviceError(N_("This seat is not played by a person."), 404)
        return seat.player_id


def check_chat_address(address: object, *, secure: bool) -> str:
    """A chat app's notification address as apprise reads it (``discord://…``, ``tgram://…``, ``ntfys://…``,
    ``matrixs://…``, ``json://…``); DeviceError (400) for anything apprise does not know, or, when ``secure``, one
    whose host is this machine or a private network's (the worker would post there)."""
    if not isinstance(address, str) or not address.strip() or len(address) > MAX_ENDPOINT:
        raise DeviceError(N_("Give the address of your chat app's notifications, such as ntfys://ntfy.sh/your-topic."))
    address = address.strip()
    if inputs.CONTROL.search(address) or any(c.isspace() for c in address):
        raise DeviceError(N_("A chat app's address is one line, without spaces."))
    import apprise  # (here: a tenth of a second to import, which every process would pay at start)

    plugin = apprise.Apprise.instantiate(address, suppress_exceptions=True)
    if not plugin:
        raise DeviceError(N_("That is not a chat app's address deadmail knows (Discord, Telegram, Matrix, ntfy …)."))
    host = str(getattr(plugin, "host", "") or "")
    if secure and host and not _public_chat_host(host):
        raise DeviceError(N_("A chat app's address must be on a public host."))
    return address


def _public_chat_host(host: str) -> bool:
    """A chat app's host from a server on the internet: not an address of this machine or a private network, not a
    local name (an apprise service's ``host`` may also be a webhook's id: not an address, and fine)."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_global
    except ValueError:
        return host != "localhost" and not host.endswith((".local", ".localhost", ".internal", ".lan"))


def add_chat(db: Database, player_id: int, address: object, name: object, now: datetime, *, secure: bool) -> int:
    """Store a chat app's address for the player; its id. Refused (DeviceError, nothing stored): an address apprise
    does not read (400), one another player holds (409), more than ``MAX_DEVICES`` (429)."""
    endpoint = check_chat_address(address, secure=secure)
    taken = N_("This address already gets the notifications of another player.")
    return _store(db, player_id, DeviceKind.CHAT, endpoint, device_name(name), now=now, taken=taken)
