"""A webhook's address checked before it is stored (and again before each post: a name may resolve elsewhere by
then): an http(s) URL of at most ``MAX_URL`` characters, on one line, without a user name or password, on a named
host or an address; unless private addresses are allowed (``Settings.webhook_private``, tests and a server on a
private network), every address its host resolves to is a public one (not this machine's, a private network's,
link-local, multicast or reserved), so the worker never posts into the network it runs in."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from ..errors import N_, ShownError
from ..inputs import CONTROL

#: the longest address taken (the column's width).
MAX_URL = 1000

NOT_A_WEBHOOK = N_("Give the web address of an incoming webhook, such as https://discord.com/api/webhooks/….")
TOO_LONG = N_("A webhook address is at most %(max)s characters.")
CREDENTIALS = N_("A webhook address must not carry a user name or a password.")
PRIVATE = N_("A webhook address must be on a public host, not this machine's or a private network's.")
UNKNOWN_HOST = N_("The webhook address's host could not be found.")


class ChannelError(ShownError):
    """A webhook address or a channel's change refused: nothing was changed."""


def check_url(url: object, allow_private: bool) -> str:
    """``url`` as stored when it is a webhook's address deadmail posts to; ChannelError (a msgid) when it is not."""
    if not isinstance(url, str) or not url.strip():
        raise ChannelError(NOT_A_WEBHOOK)
    url = url.strip()
    if len(url) > MAX_URL:
        raise ChannelError(TOO_LONG, max=MAX_URL)
    if CONTROL.search(url) or any(c.isspace() for c in url):
        raise ChannelError(NOT_A_WEBHOOK)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ChannelError(NOT_A_WEBHOOK) from None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ChannelError(NOT_A_WEBHOOK)
    if "@" in parts.netloc or parts.username is not None or parts.password is not None:
        raise ChannelError(CREDENTIALS)
    host = (parts.hostname or "").rstrip(".")
    if not host or host.startswith("-") or any(c in host for c in "\\%"):
        raise ChannelError(NOT_A_WEBHOOK)
    if not allow_private:
        for address in _addresses(host, port or (443 if parts.scheme.lower() == "https" else 80)):
            if not address.is_global or address.is_multicast:
                raise ChannelError(PRIVATE)
    return url


def _addresses(host: str, port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """The addresses ``host`` names (itself when it is one); ChannelError when it resolves to none."""
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    if host.lower() == "localhost" or host.lower().endswith(".localhost"):
        raise ChannelError(PRIVATE)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise ChannelError(UNKNOWN_HOST) from None
    addresses = []
    for _family, _type, _proto, _name, sockaddr in found:
        text = str(sockaddr[0]).split("%", 1)[0]
        address = ipaddress.ip_address(text)
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        addresses.append(address)
    if not addresses:
        raise ChannelError(UNKNOWN_HOST)
    return addresses
