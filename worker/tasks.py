"""Thin tasks: each one calls a service. Idempotent: a duplicate message does nothing the second time."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any

from celery import Task, shared_task

from server.config import Settings
from server.db import Database
from server.mailer import transport_for
from server.queue import ADVANCE, SEND
from server.services import heartbeat, outbox, reminders, turns


def _settings(task: Task) -> Settings:
    settings = getattr(task.app.conf, "deadmail_settings", None)
    return settings if isinstance(settings, Settings) else Settings.from_env()


@cache
def _database(url: str) -> Database:
    return Database(url)


def _db(task: Task) -> Database:
    return _database(_settings(task).database_url)


def _mail(task: Task) -> tuple[outbox.Transport, outbox.MailSettings]:
    s = _settings(task)
    return transport_for(s), outbox.MailSettings(s.secret_key, s.base_url, s.mail_from, s.reply_domain)


@shared_task(bind=True, name=ADVANCE)
def advance_window(self: Task, window_id: int) -> None:
    for outbox_id in turns.advance_window(_db(self), window_id) or ():
        self.app.send_task(SEND, args=[outbox_id])


@shared_task(bind=True, name=SEND)
def send_outbox(self: Task, outbox_id: int) -> str:
    return outbox.send_one(_db(self), outbox_id, *_mail(self))


@shared_task(bind=True, name="deadmail.sweep")
def sweep(self: Task, now: str | None = None) -> dict[str, Any]:
    """Every minute: advance due windows (also those whose kick was lost), write the reminders and digests that are
    due, send due mail (theirs included: they are due now), write a heartbeat."""
    at = datetime.fromisoformat(now) if now else heartbeat.now()
    db = _db(self)
    advanced = turns.sweep_windows(db, at)
    reminded = len(reminders.plan_reminders(db, at))
    digests = len(reminders.release_digests(db, at))
    transport, settings = _mail(self)
    sent = sum(outbox.send_one(db, i, transport, settings, at) == "sent" for i in outbox.due_rows(db, at))
    result = {"advanced": advanced, "reminded": reminded, "digests": digests, "sent": sent}
    heartbeat.beat(db, "sweep", result)
    return result
