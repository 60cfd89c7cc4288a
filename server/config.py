"""Configuration from the environment, with embedded defaults that need nothing but Python.

| variable | default (embedded) |
|---|---|
| ``DATABASE_URL`` | ``sqlite:///<data dir>/deadmail.db`` |
| ``CELERY_BROKER_URL`` | ``filesystem://`` (folders under the data dir) |
| ``DEADMAIL_SECRET_KEY`` | a random key kept in ``<data dir>/secret_key`` |
| ``DEADMAIL_BASE_URL`` | where ``deadmail up`` last served from this data dir, else ``http://127.0.0.1:8080`` |
| ``DEADMAIL_API_TOKEN`` | a random token kept in ``<data dir>/api_token`` (organisers' JSON API) |
| ``DEADMAIL_DATA_DIR`` | ``./deadmail-data`` |
| ``DEADMAIL_SWEEP_SECONDS`` | ``60``: how often the sweep runs |
| ``DEADMAIL_QUEUE`` | ``deadmail``: the broker queue the web enqueues on and the workers consume |
| ``DEADMAIL_SMTP_URL`` | empty: files in ``<data dir>/mail``; ``smtp://u:p@host:port``, ``smtps://``, ``?starttls=1`` |
| ``DEADMAIL_MAIL_FROM`` | ``deadmail <deadmail@localhost>``: the From of every mail |
| ``DEADMAIL_REPLY_DOMAIN`` | ``reply.localhost`` with mail in files (replies written on the mailbox page), else empty |
| ``DEADMAIL_INBOUND_PER_MINUTE`` | ``120``: webhook calls taken per minute and client |
| ``DEADMAIL_ANSWERS_PER_MINUTE`` | ``30``: answers taken per minute and client (web and API) |
| ``DEADMAIL_LINKS_PER_MINUTE`` | ``120``: pages opened from links per minute and client |
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


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
    broker_options: dict[str, Any] = field(default_factory=dict)
    queue: str = "deadmail"
    #: empty: mail goes to files in ``mail_dir``; else where to send it (see ``server/mailer.py``).
    smtp_url: str = ""
    mail_from: str = "deadmail <deadmail@localhost>"
    #: the domain of the signed reply addresses; empty: no reply addresses.
    reply_domain: str = ""
    #: webhook calls (POST /inbound/mail) taken per minute and client.
    inbound_per_minute: int = 120
    #: answers (web and API) taken per minute and client, and pages opened from links.
    answers_per_minute: int = 30
    links_per_minute: int = 120

    @property
    def embedded_broker(self) -> bool:
        return self.broker_url.startswith("filesystem://")

    @property
    def mail_dir(self) -> Path:
        return self.data_dir / "mail"

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides: Any) -> Settings:
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
            "queue": env.get("DEADMAIL_QUEUE") or "deadmail",
            "smtp_url": (env.get("DEADMAIL_SMTP_URL") or "").strip(),
            "mail_from": (env.get("DEADMAIL_MAIL_FROM") or "").strip() or "deadmail <deadmail@localhost>",
            "reply_domain": (env.get("DEADMAIL_REPLY_DOMAIN") or "").strip().lower(),
            "inbound_per_minute": int(env.get("DEADMAIL_INBOUND_PER_MINUTE") or 120),
            "answers_per_minute": int(env.get("DEADMAIL_ANSWERS_PER_MINUTE") or 30),
            "links_per_minute": int(env.get("DEADMAIL_LINKS_PER_MINUTE") or 120),
        }
        values.update(overrides)
        if not values["smtp_url"] and not values["reply_domain"]:
            values["reply_domain"] = "reply.localhost"  # mail in files: replies are written on the mailbox page
        if values["smtp_url"]:
            from .mailer import parse_smtp_url

            parse_smtp_url(values["smtp_url"])  # a bad URL stops the start with a ValueError naming the problem
        for key, name in (("secret_key", "secret_key"), ("api_token", "api_token")):
            if not values[key]:
                values[key] = _stored_secret(data_dir, name)
        if values["broker_url"].startswith("filesystem://") and not values.get("broker_options"):
            folder = data_dir / "broker"
            for sub in ("queue", "processed", "control"):
                (folder / sub).mkdir(parents=True, exist_ok=True)
            values["broker_options"] = {
                "data_folder_in": str(folder / "queue"),
                "data_folder_out": str(folder / "queue"),
                "processed_folder": str(folder / "processed"),
                "control_folder": str(folder / "control"),
                "store_processed": False,
                "polling_interval": 0.1,
            }
        return cls(**values)


def _served_url(data_dir: Path) -> str | None:
    """The address ``deadmail up`` last served from this data folder (see ``remember_served_url``)."""
    path = data_dir / "served_url"
    return path.read_text().strip() if path.exists() else None


def remember_served_url(data_dir: Path, url: str) -> None:
    """``deadmail up`` without DEADMAIL_BASE_URL: links made by other commands on this folder point here."""
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "served_url").write_text(url)


def _stored_secret(data_dir: Path, name: str) -> str:
    """The embedded default: one random value per installation, kept so links survive restarts."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / name
    if not path.exists():
        path.write_text(secrets.token_urlsafe(32))
        path.chmod(0o600)
    return path.read_text().strip()
