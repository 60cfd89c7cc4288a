"""Enqueuing worker tasks by name (the server never imports the worker): the ``Tasks`` every process gives its
``Database``, so work asked for after a commit reaches the workers. A lost message is not lost work: the sweep finds
every due window and pending mail in the database, so a broker that is down costs a request no error and at most
about two seconds (one retry, short timeouts): the failure is logged and the work left to the sweep."""

from __future__ import annotations

import logging

from celery import Celery

from ..config import Settings
from . import broker

log = logging.getLogger("deadmail.queue")

ADVANCE = "deadmail.advance_window"
#: one outbox row id, or a list of them (a transaction's mail, sent over one connection).
SEND = "deadmail.send_outbox"
#: a list of ``Nudge`` ids (a transaction's notifications to devices).
PUSH = "deadmail.send_nudges"
#: the minute sweep (beat); its parts are ``deadmail.sweep.<part>`` (``services.sweeps.PARTS``).
SWEEP = "deadmail.sweep"
#: how long a client waits for the broker (seconds), to connect and for each answer.
PUBLISH_TIMEOUT = 1.0
#: one retry (a connection the broker dropped is opened again), then the work is left to the sweep.
PUBLISH_RETRY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}


def mail_queue(settings: Settings) -> str:
    return f"{settings.queue}.mail"


def client_options(settings: Settings) -> dict[str, object]:
    """The broker's transport options for a client that only publishes: short socket timeouts on Redis."""
    if settings.broker_url.startswith(("redis://", "rediss://")):
        return {"socket_connect_timeout": PUBLISH_TIMEOUT, "socket_timeout": PUBLISH_TIMEOUT, **settings.broker_options}
    return settings.broker_options


class Queue:
    """Tasks by name, through ``celery`` (the worker's own app in a worker) or a client of the settings' broker."""

    def __init__(self, settings: Settings, celery: Celery | None = None) -> None:
        if celery is None:
            if settings.embedded_broker:
                broker.register()
            celery = Celery("deadmail-client", broker=settings.broker_url, set_as_current=False)
            celery.conf.update(
                broker_transport_options=client_options(settings),
                broker_connection_timeout=PUBLISH_TIMEOUT,
                task_publish_retry_policy=PUBLISH_RETRY,
                task_serializer="json",
                accept_content=["json"],
                broker_connection_retry_on_startup=True,
                task_default_queue=settings.queue,
                task_routes={SEND: {"queue": mail_queue(settings)}, PUSH: {"queue": mail_queue(settings)}},
            )
        self.celery = celery

    def _send(self, name: str, *args: object) -> None:
        try:
            self.celery.send_task(name, args=list(args), ignore_result=True)
        except Exception:  # the broker is down: the sweep will do it
            log.warning("could not enqueue %s%s; the sweep will pick it up", name, args, exc_info=True)

    def advance(self, window_id: int) -> None:
        self._send(ADVANCE, window_id)

    def send_mail(self, outbox_ids: list[int]) -> None:
        self._send(SEND, list(outbox_ids))

    def send_push(self, nudge_ids: list[int]) -> None:
        self._send(PUSH, list(nudge_ids))
