"""Configuration from the environment, with embedded defaults that need nothing but Python.

| variable | default (embedded) |
|---|---|
| ``DATABASE_URL`` | ``sqlite:///<data dir>/deadmail.db`` |
| ``CELERY_BROKER_URL`` | ``filesystem://`` (folders under the data dir) |
| ``DEADMAIL_SECRET_KEY`` | a random key kept in ``<data dir>/secret_key`` |
| ``DEADMAIL_BASE_URL`` | where ``deadmail up`` last served from this data dir, else ``http://127.0.0.1:8080`` |
| ``DEADMAIL_API_TOKEN`` | a random token kept in ``<data dir>/api_token`` (organisers' JSON API) |
| ``DEADMAIL_VAPID_PRIVATE_KEY`` | a P-256 key made once, kept in ``<data dir>/vapid_private_key`` (Web Push) |
| ``DEADMAIL_DATA_DIR`` | ``./deadmail-data`` |
| ``DEADMAIL_SWEEP_SECONDS`` | ``60``: how often the sweep runs |
| ``DEADMAIL_SWEEP_BATCH`` | ``100``: items a sweep task takes at once (a full batch enqueues the next) |
| ``DEADMAIL_QUEUE`` | ``deadmail``: the broker queue the web enqueues on and the workers consume |
| ``DEADMAIL_SMTP_URL`` | empty: files in ``<data dir>/mail``; else ``smtp://u:p@host:port`` … (below) |
| ``DEADMAIL_MAIL_FROM`` | ``deadmail <deadmail@localhost>``: the From of every mail |
| ``DEADMAIL_REPLY_DOMAIN`` | ``reply.localhost`` with mail in files (replies written on the mailbox page), else empty |
| ``DEADMAIL_INBOUND_PER_MINUTE`` | ``120``: webhook calls and listener messages taken per minute and client |
| ``DEADMAIL_INBOUND_PER_SENDER`` | ``20``: messages the SMTP/LMTP listener takes per minute from one sender address |
| ``DEADMAIL_ANSWERS_PER_MINUTE`` | ``30``: answers taken per minute and client (web and API) |
| ``DEADMAIL_LINKS_PER_MINUTE`` | ``120``: pages opened from links (and the JSON seat view) per minute and client |
| ``DEADMAIL_TRUSTED_PROXIES`` | ``0``: reverse proxies in front of the web whose ``X-Forwarded-*`` are believed |
| ``DEADMAIL_OUTBOX_KEEP_DAYS`` | ``3``: days a sent (or skipped, merged, failed) mail's row is kept; 1 or more |
| ``DEADMAIL_WEBHOOK_PRIVATE`` | off: webhooks' hosts must be public; ``1``: also this machine and private networks |

``DEADMAIL_SMTP_URL`` forms (read by :func:`parse_smtp_url`; the transport is ``server/mail/transports.py``):

| URL | connection | default port |
|---|---|---|
| ``smtp://host`` | plain SMTP | 25 |
| ``smtp://user:pass@host:587?starttls=1`` | plain, then STARTTLS before AUTH | 587 |
| ``smtps://user:pass@host`` | implicit TLS from the first byte | 465 |

User and password are percent-encoded (``p%40ss`` for ``p@ss``). ``?timeout=`` sets the socket timeout in
seconds (default 30).
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
import secrets
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, parse_qs, unquote, urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import Vapid02 as Vapid

#: the installation's folder: templates, static files, translations and migrations live there.
ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Settings:
    database_url: str
    broker_url: str
    secret_key: str
    base_url: str
    api_token: str
    data_dir: Path
    #: how long a signed seat link stays valid (seconds).
    link_max_age: int = 60 * 24 * 3600
    #: the sweep period (seconds): due windows, stuck mail and heartbeat.
    sweep_every: float = 60.0
    #: how many items one batch of a sweep part claims (``services.sweeps``); a full batch enqueues the next one.
    sweep_batch: int = 100
    broker_options: dict[str, object] = field(default_factory=dict)
    queue: str = "deadmail"
    #: empty: mail goes to files in ``mail_dir``; else where to send it (``parse_smtp_url``, server/mail/transports.py).
    smtp_url: str = ""
    mail_from: str = "deadmail <deadmail@localhost>"
    #: the domain of the signed reply addresses; empty: no reply addresses.
    reply_domain: str = ""
    #: webhook calls (POST /inbound/mail), and messages the SMTP listener takes, per minute and client.
    inbound_per_minute: int = 120
    #: messages the SMTP/LMTP listener takes per minute from one sender address (MAIL FROM).
    inbound_per_sender: int = 20
    #: answers (web and API) taken per minute and client, and pages opened from links.
    answers_per_minute: int = 30
    links_per_minute: int = 120
    #: reverse proxies trusted to say who the client is (``X-Forwarded-*``, Werkzeug's ``ProxyFix``); 0: none.
    trusted_proxies: int = 0
    #: days a final outbox row is kept before ``services.mailflow.outbox.prune`` may delete it (1 or more: see
    #: ``prune``).
    outbox_keep_days: float = 3.0
    #: the server's VAPID key (RFC 8292) signing its Web Push requests: a P-256 private key, base64url (its 32 raw
    #: bytes, or DER), as ``web-push generate-vapid-keys`` and ``vapid --gen`` give it; empty: the data folder's.
    vapid_private_key: str = ""
    #: where open seat pages listen for changes (``deadmail live``, Server-Sent Events), as the browser reaches it:
    #: an origin (``https://live.example.org``) or empty, for none (pages then ask again every 30 s).
    live_url: str = ""
    #: webhook channels (``services.channel``) may post to this machine or a private network's hosts: tests, a
    #: server on a private network. Off: every address a webhook's host resolves to must be public.
    webhook_private: bool = False
    #: DKIM (``server/mail/signing.py``): the selector, the signing domain and the PEM file of the private key; all
    #: three or none (none: mail goes unsigned, as when the relay signs it).
    dkim_selector: str = ""
    dkim_domain: str = ""
    dkim_key_file: str = ""

    @property
    def vapid_public_key(self) -> str:
        """The VAPID public key as browsers take it (``applicationServerKey``): the uncompressed P-256 point,
        base64url without padding."""
        return vapid_public_key(self.vapid_private_key)

    @property
    def embedded_broker(self) -> bool:
        return self.broker_url.startswith("filesystem://")

    @property
    def mail_dir(self) -> Path:
        return self.data_dir / "mail"

    @property
    def smtp(self) -> SMTPConfig | None:
        """The SMTP server mail goes to; None: mail is written to files in ``mail_dir``."""
        return parse_smtp_url(self.smtp_url) if self.smtp_url else None

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides: Any) -> Settings:
        """The settings the environment (``os.environ`` unless ``env``) says, ``overrides`` on top. It only reads:
        an empty ``secret_key`` or ``api_token`` stands for the one stored in the data folder, which
        ``prepare_data_dir`` makes and reads, with the folders the embedded broker needs."""
        env = dict(os.environ if env is None else env)
        data_dir = Path(env.get("DEADMAIL_DATA_DIR", "deadmail-data")).resolve()
        values: dict[str, Any] = {
            "database_url": env.get("DATABASE_URL") or f"sqlite:///{data_dir / 'deadmail.db'}",
            "broker_url": env.get("CELERY_BROKER_URL") or "filesystem://",
            "secret_key": env.get("DEADMAIL_SECRET_KEY") or "",
            "base_url": (env.get("DEADMAIL_BASE_URL") or _served_url(data_dir) or "http://127.0.0.1:8080").rstrip("/"),
            "api_token": env.get("DEADMAIL_API_TOKEN") or "",
            "data_dir": data_dir,
            "sweep_every": float(env.get("DEADMAIL_SWEEP_SECONDS") or 60),
            "sweep_batch": max(1, int(env.get("DEADMAIL_SWEEP_BATCH") or 100)),
            "queue": env.get("DEADMAIL_QUEUE") or "deadmail",
            "smtp_url": (env.get("DEADMAIL_SMTP_URL") or "").strip(),
            "mail_from": (env.get("DEADMAIL_MAIL_FROM") or "").strip() or "deadmail <deadmail@localhost>",
            "reply_domain": (env.get("DEADMAIL_REPLY_DOMAIN") or "").strip().lower(),
            "inbound_per_minute": int(env.get("DEADMAIL_INBOUND_PER_MINUTE") or 120),
            "answers_per_minute": int(env.get("DEADMAIL_ANSWERS_PER_MINUTE") or 30),
            "links_per_minute": int(env.get("DEADMAIL_LINKS_PER_MINUTE") or 120),
            "inbound_per_sender": int(env.get("DEADMAIL_INBOUND_PER_SENDER") or 20),
            "trusted_proxies": int(env.get("DEADMAIL_TRUSTED_PROXIES") or 0),
            "outbox_keep_days": float(env.get("DEADMAIL_OUTBOX_KEEP_DAYS") or 3),
            "vapid_private_key": (env.get("DEADMAIL_VAPID_PRIVATE_KEY") or "").strip(),
            "live_url": (env.get("DEADMAIL_LIVE_URL") or "").strip().rstrip("/"),
            "webhook_private": (env.get("DEADMAIL_WEBHOOK_PRIVATE") or "").strip().lower()
            in ("1", "true", "yes", "on"),
            "dkim_selector": (env.get("DEADMAIL_DKIM_SELECTOR") or "").strip(),
            "dkim_domain": (env.get("DEADMAIL_DKIM_DOMAIN") or "").strip().lower(),
            "dkim_key_file": (env.get("DEADMAIL_DKIM_KEY_FILE") or "").strip(),
        }
        values.update(overrides)
        if not values["smtp_url"] and not values["reply_domain"]:
            values["reply_domain"] = "reply.localhost"  # mail in files: replies are written on the mailbox page
        if values["trusted_proxies"] < 0:
            raise ValueError("DEADMAIL_TRUSTED_PROXIES: the number of reverse proxies in front of the web, 0 or more")
        if values["outbox_keep_days"] < 1:
            raise ValueError("DEADMAIL_OUTBOX_KEEP_DAYS: days a sent mail's row is kept, 1 or more")
        if values["smtp_url"]:
            parse_smtp_url(values["smtp_url"])  # a bad URL stops the start with a ValueError naming the problem
        dkim = [values["dkim_selector"], values["dkim_domain"], values["dkim_key_file"]]
        if any(dkim) and not all(dkim):
            raise ValueError(
                "DKIM: set DEADMAIL_DKIM_SELECTOR, DEADMAIL_DKIM_DOMAIN and DEADMAIL_DKIM_KEY_FILE together"
            )
        if values["dkim_key_file"] and not Path(values["dkim_key_file"]).is_file():
            raise ValueError(f"DEADMAIL_DKIM_KEY_FILE: no such file {values['dkim_key_file']!r}")
        if values["vapid_private_key"]:
            vapid_public_key(values["vapid_private_key"])  # likewise a key that is not a P-256 private key
        if values["broker_url"].startswith("filesystem://") and not values.get("broker_options"):
            folder = data_dir / "broker"
            values["broker_options"] = {
                "data_folder_in": str(folder / "queue"),
                "data_folder_out": str(folder / "queue"),
                "processed_folder": str(folder / "processed"),
                "control_folder": str(folder / "control"),
                "store_processed": False,
                "polling_interval": 0.1,
            }
        return cls(**values)


def prepare_data_dir(settings: Settings) -> Settings:
    """Make what ``settings`` need in the data folder, its owner's only (``private_dir``: a folder others may read is
    closed first): the embedded broker's folders, and a stored secret key and API token where the environment gives
    none. The settings with those two filled in. Every process that serves, works or runs a command calls it once."""
    if settings.embedded_broker:
        for sub in ("queue", "processed", "control"):
            private_dir(settings.data_dir, "broker", sub)
    return replace(
        settings,
        secret_key=settings.secret_key or _stored_secret(settings.data_dir, "secret_key"),
        api_token=settings.api_token or _stored_secret(settings.data_dir, "api_token"),
        vapid_private_key=settings.vapid_private_key or _stored_vapid_key(settings.data_dir),
    )


def _served_url(data_dir: Path) -> str | None:
    """The address ``deadmail up`` last served from this data folder (see ``remember_served_url``)."""
    path = data_dir / "served_url"
    return path.read_text().strip() if path.exists() else None


def remember_served_url(data_dir: Path, url: str) -> None:
    """``deadmail up`` without DEADMAIL_BASE_URL: links made by other commands on this folder point here."""
    write_private(private_dir(data_dir) / "served_url", url.encode())


def _stored_secret(data_dir: Path, name: str) -> str:
    """The embedded default: one random value per installation, kept so links survive restarts."""
    path = private_dir(data_dir) / name
    if not path.exists():
        write_private(path, secrets.token_urlsafe(32).encode())
    return path.read_text().strip()


def _stored_vapid_key(data_dir: Path) -> str:
    """The embedded default VAPID key: made once per installation and kept (browsers' subscriptions are bound to
    it), as the 32 raw bytes of its private value, base64url."""
    path = private_dir(data_dir) / "vapid_private_key"
    if not path.exists():
        key = ec.generate_private_key(ec.SECP256R1())
        write_private(path, base64.urlsafe_b64encode(key.private_numbers().private_value.to_bytes(32, "big")))
    return path.read_text().strip()


def vapid_public_key(private_key: str) -> str:
    """The public key of a VAPID private key (base64url: 32 raw bytes, or DER), as ``applicationServerKey``
    takes it; ValueError naming the variable when it is not a P-256 private key."""
    try:
        key = Vapid.from_string(private_key).private_key
    except (ValueError, TypeError, binascii.Error) as exc:
        raise ValueError(f"DEADMAIL_VAPID_PRIVATE_KEY is not a P-256 private key in base64url ({exc})") from None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
        raise ValueError("DEADMAIL_VAPID_PRIVATE_KEY is not a P-256 (prime256v1) private key")
    point = key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(point).decode().rstrip("=")


# --- the data folder: only its owner may read it ------------------------------------------------------------------

#: the data folder and every folder deadmail makes in it; every file deadmail writes there.
PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
log = logging.getLogger("deadmail.config")


def private_dir(data_dir: Path, *parts: str) -> Path:
    """The data folder (or the folder ``parts`` inside it), made 0700 when missing. A data folder that others may
    open (made by an earlier release, or by hand) is closed first: group and others lose every permission on it and
    on everything in it (``chmod -R go=``), with a warning that says so (a folder deadmail cannot change is left as
    it is, with a warning)."""
    if data_dir.is_dir():
        if stat.S_IMODE(data_dir.stat().st_mode) & 0o077:
            _close(data_dir)
    else:
        data_dir.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    folder = data_dir
    for part in parts:  # one by one: mkdir(parents=True) would make the ones between with the umask's mode
        folder = folder / part
        folder.mkdir(mode=PRIVATE_DIR, exist_ok=True)
    return folder


def _close(data_dir: Path) -> None:
    """Take every permission of group and others away, in the data folder and below (owner's bits kept)."""
    try:
        for folder, _dirs, files in os.walk(data_dir):
            for path in (folder, *(os.path.join(folder, name) for name in files)):
                if not os.path.islink(path):
                    os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) & ~0o077)
    except OSError as exc:
        log.warning(
            "the data folder %s can be read by others and cannot be closed (%s): chmod -R go= it", data_dir, exc
        )
        return
    log.warning("the data folder %s could be read by others: group and others lost their access to it", data_dir)


def write_private(path: Path, data: bytes) -> None:
    """Write ``path`` (replaced if it exists) readable by its owner only (0600, whatever the umask)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    with os.fdopen(fd, "wb") as handle:
        os.fchmod(handle.fileno(), PRIVATE_FILE)  # an existing file keeps its mode on open
        handle.write(data)


# --- DEADMAIL_SMTP_URL -------------------------------------------------------------------------------------------

SMTP_WHERE = "DEADMAIL_SMTP_URL"
DEFAULT_SMTP_TIMEOUT = 30.0
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


@dataclass(frozen=True)
class SMTPConfig:
    """What a ``DEADMAIL_SMTP_URL`` says."""

    host: str
    port: int
    implicit_tls: bool = False
    starttls: bool = False
    user: str = ""
    password: str = ""
    timeout: float = DEFAULT_SMTP_TIMEOUT

    def __repr__(self) -> str:  # never print the password
        scheme = "smtps" if self.implicit_tls else "smtp"
        who = f"{self.user}:***@" if self.user else ""
        return f"SMTPConfig({scheme}://{who}{self.host}:{self.port}, starttls={self.starttls}, timeout={self.timeout})"


def parse_smtp_url(url: str) -> SMTPConfig:
    """``smtp://user:pass@host:port[?starttls=1][&timeout=30]`` or ``smtps://…``; ValueError says what is wrong."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("smtp", "smtps"):
        raise ValueError(f"{SMTP_WHERE}: the scheme must be smtp:// or smtps://, not {parts.scheme or 'nothing'!r}")
    if not parts.hostname:
        raise ValueError(f"{SMTP_WHERE}: no host (expected smtp://user:pass@host:port)")
    port = _smtp_port(parts)
    if parts.path not in ("", "/"):
        raise ValueError(f"{SMTP_WHERE}: unexpected path {parts.path!r} (expected smtp://user:pass@host:port)")
    query = _smtp_query(parts.query)
    implicit = parts.scheme == "smtps"
    starttls = _smtp_starttls(query)
    if implicit and starttls:
        raise ValueError(f"{SMTP_WHERE}: smtps:// is already TLS; starttls=1 is for smtp:// only")
    timeout = _smtp_timeout(query)
    user, password = _smtp_credentials(parts)
    if port is None:
        port = 465 if implicit else 587 if starttls else 25
    return SMTPConfig(parts.hostname, port, implicit, starttls, user, password, timeout)


def _smtp_port(parts: SplitResult) -> int | None:
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        raise ValueError(f"{SMTP_WHERE}: the port must be a number from 1 to 65535")
    return port


def _smtp_query(text: str) -> dict[str, list[str]]:
    try:
        query = parse_qs(text, keep_blank_values=True, strict_parsing=bool(text))
    except ValueError:
        raise ValueError(f"{SMTP_WHERE}: cannot read the query {text!r}") from None
    unknown = sorted(set(query) - {"starttls", "timeout"})
    if unknown:
        raise ValueError(f"{SMTP_WHERE}: unknown parameter {unknown[0]!r} (known: starttls, timeout)")
    return query


def _smtp_starttls(query: dict[str, list[str]]) -> bool:
    if "starttls" not in query:
        return False
    value = query["starttls"][-1].lower()
    if value not in _TRUE | _FALSE:
        raise ValueError(f"{SMTP_WHERE}: starttls must be 1 or 0, not {value!r}")
    return value in _TRUE


def _smtp_timeout(query: dict[str, list[str]]) -> float:
    if "timeout" not in query:
        return DEFAULT_SMTP_TIMEOUT
    try:
        timeout = float(query["timeout"][-1])
    except ValueError:
        timeout = 0.0
    if not 0 < timeout <= 3600:
        raise ValueError(f"{SMTP_WHERE}: timeout must be a number of seconds above 0, not {query['timeout'][-1]!r}")
    return timeout


def _smtp_credentials(parts: SplitResult) -> tuple[str, str]:
    user = unquote(parts.username) if parts.username else ""
    password = unquote(parts.password) if parts.password is not None else ""
    if parts.password is not None and not user:
        raise ValueError(f"{SMTP_WHERE}: a password is given without a user")
    if user and parts.password is None:
        raise ValueError(f"{SMTP_WHERE}: the user {user!r} has no password (smtp://user:pass@host)")
    if not (user + password).isascii():  # smtplib sends AUTH in ASCII only
        raise ValueError(f"{SMTP_WHERE}: user and password must be ASCII")
    return user, password
