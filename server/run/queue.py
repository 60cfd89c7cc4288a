"""Enqueuing worker tasks by name (the server never imports the worker): the ``Tasks`` every process gives its
``Database``, so work asked for after a commit reaches the workers. A lost message is not lost work: the sweep finds
every due window and pending mail in the database."""

from __future__ import annotations

import logging

from celery import Celery

from ..config import Settings
from . import broker

log = logging.getLogger("deadmail.queue")

ADVANCE = "deadmail.advance_window"
SEND = "deadmail.send_outbox"


def mail_queue(settings: Settings) -> str:
    return f"{settings.queue}.mail"


class Queue:
    """Tasks by name, through ``celery`` (the worker's own app in a worker) or a client of the settings' broker."""

    def __init__(self, settings: Settings, celery: Celery | None = None) -> None:
        if celery is None:
            if settings.embedded_broker:
                broker.register()
            celery = Celery("deadmail-client", broker=settings.broker_url, set_as_current=False)
            celery.conf.update(
                broker_transport_options=settings.broker_options,
                task_serializer="json",
                accept_content=["json"],
                broker_connection_retry_on_startup=True,
                task_default_queue=settings.queue,
                task_routes={SEND: {"queue": mail_queue(settings)}},
            )
        self.celery = celery

    def _send(self, name: str, *args: int) -> None:
        try:
            self.celery.send_task(name, args=list(args), ignore_result=True)
        except Exception:  # the broker is down: the sweep will do it
            log.warning("could not enqueue %s%s; the sweep will pick it up", name, args, exc_info=True)

    def advance(self, window_id: int) -> None:
        self._send(ADVANCE, window_id)

    def send_mail(self, outbox_id: int) -> None:
        self._send(SEND, outbox_id)
