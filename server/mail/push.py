"""Notifications to devices, composed and sent: chat apps' messages through apprise, Web Push (RFC 8030) through
pywebpush, the payload encrypted for the
browser (RFC 8291, aes128gcm) and the request signed with the server's VAPID key (RFC 8292). Rows come from
``services.notify.nudges`` (claimed once, read in one query, each result recorded as soon as it is known).

What a notification says is in its reader's language and zone: which game, what is asked and by when, and a link
that opens that decision; never a card, a die, a vote or a hand (``compose``). A newer notification of the same game
replaces an older one (the ``Topic``, and the service worker's ``tag``); its time to live ends at the deadline; it
is held through the reader's quiet hours; once its decision is answered or closed it is not sent at all. The push
service's answer decides the rest: 201 sent; 404/410 the subscription is gone (the device is removed); 429 and 5xx
(and a network failure or a timeout) tried again with back-off, never sooner than its ``Retry-After``; any other
4xx failed for good."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import datetime
from email.utils import parseaddr
from urllib.parse import urlencode, urlsplit

import requests
from py_vapid import Vapid02 as Vapid
from pywebpush import WebPusher

from ..config import Settings
from ..db import Database
from ..models import DeviceKind, MailKind, utcnow
from ..present.seat import game_label
from ..services.links import seat_token
from ..services.notify import nudges
from ..services.notify.nudges import Pending
from ..services.tempo import in_quiet_hours
from ..text.glossary import kind_name
from ..text.i18n import format_when, translations

log = logging.getLogger("deadmail.push")

#: seconds to connect to a push service, and to wait for its answer: a service that hangs holds a worker no longer.
TIMEOUT = (5.0, 10.0)
#: the longest time to live asked for (push services keep a message four weeks at most).
MAX_TTL = 28 * 24 * 3600
#: the time to live of a notification without a deadline (a game's end, a test).
DAY = 24 * 3600
#: notifications in flight at once per sender (a push service's answer takes a round trip; they wait together).
CONCURRENCY = 8
#: how long a VAPID token is valid (RFC 8292: at most a day), and how long before its end a new one is signed.
TOKEN_LIFE = 12 * 3600
RENEW_BEFORE = 3600


@dataclass(frozen=True)
class Notification:
    title: str
    body: str
    url: str
    #: one per game: a newer notification of the game replaces the older one (Topic, and the notification's tag).
    topic: str
    ttl: int
    urgency: str

    def payload(self) -> bytes:
        """What the service worker shows (``static/sw.js``)."""
        data = {"title": self.title, "body": self.body, "url": self.url, "tag": self.topic}
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def compose(pending: Pending, settings: Settings, now: datetime) -> Notification:
    """The notification of a claimed row, in its reader's language and zone; nothing secret in it."""
    player, nudge, seat, game, window = pending.player, pending.nudge, pending.seat, pending.game, pending.window
    lang = player.language
    t = translations(lang)
    via = "chat" if pending.device.kind == DeviceKind.CHAT else "push"
    if nudge.kind == "test" or seat is None or game is None:
        title = "deadmail"
        body = t.gettext("Notifications reach this device: you will be told here when a decision is yours.")
        return Notification(title, body, settings.base_url + "/", "test", DAY, "normal")
    title = game_label(lang, game.id, game.title)
    token = seat_token(settings.secret_key, seat.id, seat.link_generation)
    url = f"{settings.base_url}/s/{token}?" + urlencode({"via": via, "n": nudge.id})
    topic = f"game-{game.id}"
    if nudge.kind == MailKind.GAME_OVER or window is None:
        body = t.gettext("The game is over: see how it ended.")
        return Notification(title, body, url, topic, DAY, "normal")
    when, relative = format_when(window.deadline, now, player.timezone, lang)
    what = kind_name(lang, pending.asked or "")
    texts: dict[str, str] = {
        MailKind.LAST_CALL: t.gettext("Everyone else has answered: the table waits for you (%(what)s)."),
        MailKind.REMINDER: t.gettext("Still yours to decide: %(what)s."),
    }
    body = texts.get(nudge.kind, t.gettext("Your decision: %(what)s.")) % {"what": what}
    body += " " + t.gettext("Answer by %(when)s (%(relative)s).") % {"when": when, "relative": relative}
    ttl = max(60, min(MAX_TTL, int((window.deadline - now).total_seconds())))
    urgency = "high" if nudge.kind == MailKind.LAST_CALL else "normal"
    return Notification(title, body, url, topic, ttl, urgency)


def subject(settings: Settings) -> str:
    """The VAPID ``sub``: the server's sender address (a push service's contact when something goes wrong)."""
    address = parseaddr(settings.mail_from)[1]
    return f"mailto:{address}" if "@" in address else settings.base_url


class Pusher:
    """Sends Web Push requests over one HTTP session (connections kept), VAPID tokens signed once per push service
    origin and reused until shortly before they expire."""

    def __init__(
        self, settings: Settings, concurrency: int = CONCURRENCY, timeout: tuple[float, float] = TIMEOUT
    ) -> None:
        self.vapid = Vapid.from_string(settings.vapid_private_key)
        self.subject = subject(settings)
        self.http = requests.Session()
        # push services are reached directly (the environment's proxy settings are not read for every request)
        self.http.trust_env = False
        adapter = requests.adapters.HTTPAdapter(pool_connections=16, pool_maxsize=max(10, concurrency))
        self.http.mount("https://", adapter)
        self.http.mount("http://", adapter)
        self.pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="push")
        self.tokens: dict[str, tuple[float, dict[str, str]]] = {}
        self.lock = threading.Lock()
        self.timeout = timeout

    def authorization(self, endpoint: str) -> dict[str, str]:
        parts = urlsplit(endpoint)
        origin = f"{parts.scheme}://{parts.netloc}"
        now = time.time()
        with self.lock:
            found = self.tokens.get(origin)
            if found is None or found[0] - now < RENEW_BEFORE:
                expires = int(now) + TOKEN_LIFE
                found = (expires, self.vapid.sign({"aud": origin, "exp": expires, "sub": self.subject}))
                self.tokens[origin] = found
            return found[1]

    def send(self, pending: Pending, note: Notification) -> requests.Response:
        device = pending.device
        subscription = {"endpoint": device.endpoint, "keys": {"p256dh": device.p256dh, "auth": device.auth}}
        headers = {**self.authorization(device.endpoint), "Topic": note.topic, "Urgency": note.urgency}
        pusher = WebPusher(subscription, requests_session=self.http)
        response: requests.Response = pusher.send(note.payload(), headers=headers, ttl=note.ttl, timeout=self.timeout)
        return response

    def close(self) -> None:
        self.pool.shutdown(wait=True)
        self.http.close()


#: seconds a chat app's service may take to answer.
CHAT_TIMEOUT = 10.0


def send_chat(address: str, note: Notification) -> bool:
    """A notification as a chat message through apprise (the same code whatever the app): whether it was taken."""
    import apprise  # (here: only a sender of chat messages pays its import)

    sender = apprise.Apprise()
    sender.add(address)
    return bool(sender.notify(body=f"{note.body}\n{note.url}", title=note.title, timeout=CHAT_TIMEOUT))


def _retry_after(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    return float(value) if value.isdigit() else None


def send_nudges(
    db: Database,
    settings: Settings,
    now: datetime | None = None,
    *,
    ids: Iterable[int] | None = None,
    limit: int = 100,
    pusher: Pusher | None = None,
) -> dict[int, str]:
    """Claim due notifications (those of ``ids``, or up to ``limit`` in order) and send them, up to the pusher's
    ``CONCURRENCY`` at once, each recorded as soon as its service answered; every row's result: 'sent', 'retry',
    'failed', 'gone' (the device removed), 'held' (quiet hours) or 'skipped' (nothing left to tell). A worker that
    dies mid-batch leaves its rows claimed: those in flight may be sent again after ``nudges.STUCK_AFTER`` (the same
    Topic and tag: the repeat replaces the notification shown), the others once."""
    now = now or utcnow()
    claimed = nudges.claim_many(db, now, ids=ids, limit=limit)
    if not claimed:
        return {}
    own = pusher is None
    pusher = pusher or Pusher(settings)
    results: dict[int, str] = {}
    try:
        flying: dict[Future[Outcome], Pending] = {}
        for pending in nudges.read(db, claimed):
            if pending.stale:
                nudges.skipped(db, pending.nudge.id)
                results[pending.nudge.id] = "skipped"
            elif (quiet_end := in_quiet_hours(pending.player, now)) is not None and pending.nudge.kind != "test":
                nudges.hold(db, pending.nudge.id, quiet_end)
                results[pending.nudge.id] = "held"
            else:
                flying[pusher.pool.submit(_attempt, pending, settings, now, pusher)] = pending
        for done in as_completed(flying):
            pending = flying[done]
            results[pending.nudge.id] = _record(db, pending, done.result(), now)
        nudges.reached(db, sorted({p.device.id for p in flying.values() if results[p.nudge.id] == "sent"}), now)
    finally:
        if own:
            pusher.close()
    return results


@dataclass(frozen=True)
class Outcome:
    """What became of one try: 'sent', 'gone' (the subscription no longer exists) or 'failed' (why, whether for
    good, and the service's ``Retry-After``)."""

    result: str
    error: str = ""
    permanent: bool = False
    retry_after: float | None = None


def deliver(pending: Pending, note: Notification, pusher: Pusher) -> Outcome:
    """Hand the notification to the device's push service or chat app."""
    if pending.device.kind == DeviceKind.CHAT:
        taken = send_chat(pending.device.endpoint, note)
        return Outcome("sent") if taken else Outcome("failed", "the chat app did not take the message")
    response = pusher.send(pending, note)
    status = response.status_code
    if 200 <= status < 300:
        return Outcome("sent")
    if status in (404, 410):
        return Outcome("gone")
    permanent = status < 500 and status != 429
    return Outcome("failed", f"HTTP {status}: {response.text[:300]}", permanent, _retry_after(response))


def _attempt(pending: Pending, settings: Settings, now: datetime, pusher: Pusher) -> Outcome:
    """One try (in the pusher's threads): composed and delivered; any exception is a failed try."""
    try:
        return deliver(pending, compose(pending, settings, now), pusher)
    except requests.RequestException as exc:  # the network, a timeout: tried again later
        return Outcome("failed", f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a bug: a failed try like any other, never a loop for ever
        log.exception("nudge %s: could not be sent", pending.nudge.id)
        return Outcome("failed", f"{type(exc).__name__}: {exc}")


def _record(db: Database, pending: Pending, outcome: Outcome, now: datetime) -> str:
    nudge_id, device_id = pending.nudge.id, pending.device.id
    if outcome.result == "sent":
        nudges.sent(db, nudge_id, now)
    elif outcome.result == "gone":
        nudges.gone(db, device_id)
    else:
        error, permanent, after = outcome.error, outcome.permanent, outcome.retry_after
        return nudges.failed(db, nudge_id, device_id, error, now, permanent=permanent, retry_after=after)
    return outcome.result
