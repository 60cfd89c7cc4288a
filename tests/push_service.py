"""A local push service for the tests, speaking RFC 8030 as a browser vendor's does (no vendor is reachable here).

``PushService`` listens on 127.0.0.1 and hands out subscriptions as a browser's ``PushSubscription.toJSON()`` gives
them (an endpoint, the user agent's P-256 key ``p256dh`` and its 16-byte ``auth`` secret), each bound to the
application server key it was made for. A push message (``POST`` to an endpoint) is taken only as a real service
would: a VAPID token (RFC 8292) for that key, signed ES256, its audience the endpoint's origin, unexpired and at
most a day ahead, with a ``mailto:`` or ``https:`` subject; a ``TTL`` header (RFC 8030 5.2); a body encrypted with
``aes128gcm`` (RFC 8291), which it decrypts with the subscription's private key. It answers 201 and keeps the
message (``received``), or 400/401/403/410 saying what was wrong. ``fail_next`` makes it answer the next
messages with other statuses (429 with ``Retry-After``, 500, 410) to test retries and removals."""

from __future__ import annotations

import base64
import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

#: the longest a VAPID token may reach into the future (RFC 8292 section 2: no more than 24 hours).
MAX_EXPIRY = 24 * 3600


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Subscription:
    endpoint: str
    server_key: str
    private: ec.EllipticCurvePrivateKey
    auth: bytes

    def json(self) -> dict[str, Any]:
        point = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {"endpoint": self.endpoint, "keys": {"p256dh": b64(point), "auth": b64(self.auth)}}


@dataclass
class Received:
    """A push message the service took: which subscription, its decrypted payload and its headers."""

    endpoint: str
    payload: bytes
    ttl: int
    urgency: str | None
    topic: str | None
    claims: dict[str, Any]


@dataclass
class PushService:
    host: str = "127.0.0.1"
    subscriptions: dict[str, Subscription] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    #: statuses (with their extra headers) the next messages get instead of being taken.
    failures: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    refused: list[tuple[int, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, port: int = 0) -> PushService:
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # connections kept alive, as a vendor's service keeps them

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, extra, reason = service.take(self.path, dict(self.headers.items()), body)
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reason)))
                self.end_headers()
                self.wfile.write(reason.encode())

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((self.host, port), Handler)
        self.origin = f"http://{self.host}:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def subscribe(self, server_key: str) -> dict[str, Any]:
        """A new subscription for the application server key ``server_key``, as the browser's JSON."""
        endpoint = f"{self.origin}/push/{b64(os.urandom(12))}"
        made = Subscription(endpoint, server_key, ec.generate_private_key(ec.SECP256R1()), os.urandom(16))
        with self.lock:
            self.subscriptions[endpoint] = made
        return made.json()

    def unsubscribe(self, endpoint: str) -> None:
        """The browser dropped it: the endpoint answers 410 Gone from now on."""
        with self.lock:
            self.subscriptions.pop(endpoint, None)

    def fail_next(self, status: int, count: int = 1, **headers: str) -> None:
        with self.lock:
            self.failures += [(status, {k.replace("_", "-"): v for k, v in headers.items()})] * count

    def take(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str], str]:
        status, extra, reason = self._take(path, {k.lower(): v for k, v in headers.items()}, body)
        if status != 201:
            with self.lock:
                self.refused.append((status, reason))
        return status, extra, reason

    def _take(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str], str]:
        endpoint = self.origin + path
        with self.lock:
            subscription = self.subscriptions.get(endpoint)
            failure = self.failures.pop(0) if self.failures and subscription else None
        if subscription is None:
            return 410, {}, "no such subscription"
        claims = self._vapid(headers.get("authorization", ""), subscription)
        if isinstance(claims, str):
            return 401 if claims.startswith("no") else 403, {}, claims
        if not re.fullmatch(r"[0-9]+", headers.get("ttl", "")):
            return 400, {}, "a TTL header is required"
        if headers.get("content-encoding") != "aes128gcm":
            return 400, {}, "the body must be aes128gcm"
        topic = headers.get("topic")
        if topic is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", topic):
            return 400, {}, "a Topic is at most 32 base64url characters"
        try:
            payload = http_ece.decrypt(body, private_key=subscription.private, auth_secret=subscription.auth)
        except Exception as exc:  # any failure to decrypt is the sender's
            return 400, {}, f"the body does not decrypt: {exc}"
        if failure is not None:
            return failure[0], failure[1], "failing as asked"
        taken = Received(endpoint, payload, int(headers["ttl"]), headers.get("urgency"), topic, claims)
        with self.lock:
            self.received.append(taken)
        return 201, {"Location": f"{endpoint}/message/{len(self.received)}"}, ""

    def _vapid(self, header: str, subscription: Subscription) -> dict[str, Any] | str:
        """The token's claims when the ``vapid t=..., k=...`` header is good for ``subscription``, else why not."""
        found = re.fullmatch(r"vapid\s+t=([^,\s]+)\s*,\s*k=([^,\s]+)", header.strip())
        if found is None:
            return "no vapid authorization"
        token, key = found.groups()
        if key != subscription.server_key:
            return "the key is not the one the subscription was made for"
        try:
            head, body, signature = token.split(".")
            if json.loads(unb64(head)).get("alg") != "ES256":
                return "the token is not ES256"
            public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(key))
            raw = unb64(signature)
            der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
            public.verify(der, f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
            claims: dict[str, Any] = json.loads(unb64(body))
        except (ValueError, InvalidSignature):
            return "the token's signature does not verify"
        origin = re.match(r"https?://[^/]+", subscription.endpoint)
        if origin is None or claims.get("aud") != origin.group(0):
            return "the token's audience is not this push service"
        expiry = claims.get("exp")
        if not isinstance(expiry, int) or not time.time() < expiry <= time.time() + MAX_EXPIRY:
            return "the token has expired or reaches more than a day ahead"
        if not re.match(r"(mailto:|https:)", str(claims.get("sub", ""))):
            return "the token's subject is not a mailto: or https: address"
        return claims
