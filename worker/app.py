"""The Celery app: JSON only, acks late, one message at a time, and a beat schedule of one sweep that fans out into
one task per part (``services.sweeps``).

Start it with ``celery -A worker.app worker`` (and exactly one ``celery -A worker.app beat``), or embedded with
``deadmail up``.
"""

from __future__ import annotations

from celery import Celery
from kombu.entity import Queue as KombuQueue

from server.config import Settings, prepare_data_dir
from server.run import broker
from server.run.queue import PUSH, SEND, SWEEP, mail_queue


def make_celery(settings: Settings | None = None) -> Celery:
    settings = settings or prepare_data_dir(Settings.from_env())
    if settings.embedded_broker:
        broker.register()
    app = Celery("deadmail", broker=settings.broker_url, include=["worker.tasks"])
    app.conf.update(
        broker_transport_options=settings.broker_options,
        broker_connection_retry_on_startup=True,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        # when the broker goes away a running task finishes (a mail half sent is not cut off); its ack is lost, so it
        # runs again, which every task allows (an advance finds its window closed, a sent row is not claimed again)
        worker_cancel_long_running_tasks_on_connection_loss=False,
        worker_hijack_root_logger=False,
        timezone="UTC",
        task_default_queue=settings.queue,
        # mail has its own queue, so a slow SMTP server never delays an advance; workers consume both unless
        # started with -Q (e.g. dedicated mail workers: -Q deadmail.mail)
        task_queues=(KombuQueue(settings.queue), KombuQueue(mail_queue(settings))),
        # (notifications to devices too: a slow push service never delays an advance either)
        task_routes={name: {"queue": mail_queue(settings)} for name in (SEND, PUSH, f"{SWEEP}.mail", f"{SWEEP}.push")},
        beat_schedule={
            "sweep": {"task": SWEEP, "schedule": settings.sweep_every},
        },
    )
    app.conf.deadmail_settings = settings
    return app


celery = make_celery()
app = celery
