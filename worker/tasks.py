"""Thin tasks: each one calls a service. Idempotent: a duplicate message does nothing the second time."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any

from celery import Task, shared_task

from server.config import Settings
from server.db import Database
from server.mail.send import send_due, send_one
from server.mail.transports import transport_for
from server.run.queue import ADVANCE, SEND, Queue
from server.services import absences, heartbeat, reminders, rounds, turns


def _settings(task: Task) -> Settings:
    settings = getattr(task.app.conf, "deadmail_settings", None)
    return settings if isinstance(settings, Settings) else Settings.from_env()


@cache
def _database(url: str) -> Database:
    return Database(url)


def _db(task: Task) -> Database:
    """The database, handing the work its transactions ask for (mail to send, advances) to this worker's app."""
    settings = _settings(task)
    return _database(settings.database_url).with_tasks(Queue(settings, task.app))


@shared_task(bind=True, name=ADVANCE)
def advance_window(self: Task, window_id: int) -> None:
    turns.advance_window(_db(self), window_id)


@shared_task(bind=True, name=SEND)
def send_outbox(self: Task, outbox_id: int) -> str:
    settings = _settings(self)
    return send_one(_db(self), outbox_id, transport_for(settings), settings)


@shared_task(bind=True, name="deadmail.sweep")
def sweep(self: Task, now: str | None = None) -> dict[str, Any]:
    """Every minute: apply absences under way to the open windows, advance due windows (also those whose kick was
    lost), write the reminders and digests that are due, send due mail (theirs included: they are due now), write a
    heartbeat; first, start the league rounds whose fixed start has come. Its own transactions ask for no task: the
    mail they write is sent by this same sweep."""
    at = datetime.fromisoformat(now) if now else heartbeat.now()
    settings = _settings(self)
    db = _database(settings.database_url)
    absences.apply_started(db, at)  # an absence that began while a window was open: applied before the advances
    result = {
        "rounds": rounds.sweep(db, at),  # a fixed schedule's due rounds: their games' first mails go out below
        "advanced": turns.sweep_windows(db, at),
        "reminded": len(reminders.plan_reminders(db, at)),
        "digests": len(reminders.release_digests(db, at)),
        "sessions": len(reminders.plan_session_reminders(db, at)),
        "sent": send_due(db, transport_for(settings), settings, at),
    }
    heartbeat.beat(db, "sweep", result)
    return result
