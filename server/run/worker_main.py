"""The embedded worker's command (``deadmail up``, ``deadmail demo --auto``): Celery's own ``celery`` command, with
one warning left out.

Celery warns (``celery.platforms.check_privileges``) whenever a worker runs as root, because a root worker that
accepts pickled messages runs whatever a broker hands it. This worker accepts JSON only (worker/app.py), its broker
is a folder of the data folder readable by its owner only, and it runs as whoever started ``deadmail up``, which
serves the web pages as that same user: there is no other user to switch to, and the warning (shown on every start in
a container, where everything runs as root) tells that person nothing they can act on. Only that warning is left out,
only here: a worker started with ``celery -A worker.app worker`` (production) still prints it.

It also stops quietly and at once when asked (``_quiet_stops``).
"""

from __future__ import annotations

import warnings

from celery import platforms, signals
from celery.__main__ import main
from celery.exceptions import SecurityWarning
from celery.worker import state

from . import broker

ROOT_WARNING = "You're running the worker with superuser privileges"


def _stop_quietly(*_args: object) -> None:
    """Stop after the task at hand (Celery's warm shutdown), saying nothing: the command that started this worker
    says it stopped. The filesystem broker's polling ends at once (``broker.stopping``)."""
    broker.stopping.set()
    state.should_stop = platforms.EX_OK


def _quiet_stops(**_kwargs: object) -> None:
    """Once the worker is ready, SIGTERM and SIGINT stop it quietly and at once, instead of Celery's handlers, which
    print "Warm shutdown", warn "Hitting Ctrl+C again will initiate cold shutdown" and wait out their 2-second polls
    twice. ``deadmail up`` stops its worker with SIGTERM; the worker is in a process group of its own, so a Ctrl+C in
    the terminal reaches ``deadmail up`` only."""
    for name in ("SIGTERM", "SIGINT"):
        platforms.signals[name] = _stop_quietly


def run() -> None:
    warnings.filterwarnings("ignore", message=ROOT_WARNING, category=SecurityWarning)
    signals.worker_ready.connect(_quiet_stops, weak=False)
    main()


if __name__ == "__main__":
    run()
