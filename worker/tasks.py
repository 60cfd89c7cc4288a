"""Thin tasks: each one calls a service. Idempotent: a duplicate message does nothing the second time."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache
from typing import TypedDict

from celery import Task, shared_task

from server.config import Settings, prepare_data_dir
from server.db import Database
from server.mail.channel import send_posts
from server.mail.push import Pusher, send_nudges
from server.mail.send import full, send_batch, send_one, send_rows
from server.mail.transports import transport_for
from server.run.queue import ADVANCE, PUSH, SEND, SWEEP, Queue
from server.services import heartbeat, sweeps
from server.services.play import turns


def _settings(task: Task) -> Settings:
    settings = getattr(task.app.conf, "deadmail_settings", None)
    return settings if isinstance(settings, Settings) else prepare_data_dir(Settings.from_env())


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
def send_outbox(self: Task, outbox_ids: int | list[int]) -> str | dict[str, str]:
    """One row (messages queued before rows were sent together): its result; a list: each row's, over one connection."""
    settings = _settings(self)
    if isinstance(outbox_ids, int):
        return send_one(_db(self), outbox_ids, transport_for(settings), settings)
    results = send_rows(_db(self), outbox_ids, transport_for(settings), settings)
    return {str(row_id): result for row_id, result in results.items()}


_PUSHERS: dict[str, Pusher] = {}


def _pusher(settings: Settings) -> Pusher:
    """This process's Web Push sender (its HTTP connections and VAPID tokens kept between tasks)."""
    key = f"{settings.vapid_private_key}|{settings.mail_from}"
    if key not in _PUSHERS:
        _PUSHERS[key] = Pusher(settings)
    return _PUSHERS[key]


@shared_task(bind=True, name=PUSH)
def send_push(self: Task, nudge_ids: list[int]) -> dict[str, str]:
    """A transaction's notifications to devices: each row's result."""
    settings = _settings(self)
    results = send_nudges(_db(self), settings, ids=nudge_ids, pusher=_pusher(settings))
    return {str(nudge_id): result for nudge_id, result in results.items()}


@shared_task(bind=True, name=SWEEP)
def sweep(self: Task, now: str | None = None) -> dict[str, str | list[str]]:
    """Beat, every minute: enqueue one task per part of the sweep (``services.sweeps``) for the same instant, and
    write the heartbeat. It does no work itself."""
    at = now or heartbeat.now().isoformat()
    for part in sweeps.PARTS:
        self.app.send_task(f"{SWEEP}.{part}", kwargs={"now": at})
    info: dict[str, str | list[str]] = {"now": at, "parts": list(sweeps.PARTS)}
    heartbeat.beat(_database(_settings(self).database_url), "sweep", info)
    return info


class PartDone(TypedDict):
    """What one batch of a sweep part did (the task's result): its counts, the windows it claimed, the parts it
    enqueued."""

    part: str
    counts: dict[str, int]
    claimed: list[int]
    then: list[str]


def _part(self: Task, part: str, now: str) -> PartDone:
    """One batch of a sweep part; enqueues the part again after a full batch, and the parts that follow it. Its own
    transactions ask for no task: the mail they write is sent by a mail batch of the same pass."""
    settings = _settings(self)
    db = _database(settings.database_url)
    at = datetime.fromisoformat(now)
    then: list[str] = []

    def enqueue(name: str) -> None:
        self.app.send_task(f"{SWEEP}.{name}", kwargs={"now": now})
        then.append(name)

    if part == "mail":
        results = send_batch(db, transport_for(settings), settings, at, settings.sweep_batch)
        if full(results, settings.sweep_batch):
            enqueue(part)
        batch = sweeps.Batch({"sent": sum(result == "sent" for result in results.values())})
    elif part == "push":
        results = send_nudges(db, settings, at, limit=settings.sweep_batch, pusher=_pusher(settings))
        if len(results) == settings.sweep_batch:
            enqueue(part)
        batch = sweeps.Batch({"pushed": sum(result == "sent" for result in results.values())})
    elif part == "channel":
        results = send_posts(db, settings, at, limit=settings.sweep_batch)
        if len(results) == settings.sweep_batch:
            enqueue(part)
        batch = sweeps.Batch({"posted": sum(result == "sent" for result in results.values())})
    else:
        keep = timedelta(days=settings.outbox_keep_days)
        batch = sweeps.run(part, db, at, settings.sweep_batch, lambda: enqueue(part), keep)
    for name in sweeps.follow(part, batch.counts):
        enqueue(name)
    return {"part": part, "counts": batch.counts, "claimed": batch.claimed, "then": then}


def _part_task(part: str) -> Task:
    @shared_task(bind=True, name=f"{SWEEP}.{part}")
    def run(self: Task, now: str) -> PartDone:
        return _part(self, part, now)

    return run


PART_TASKS = {part: _part_task(part) for part in sweeps.PARTS}
