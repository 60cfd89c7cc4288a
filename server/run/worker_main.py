"""The embedded worker's command (``deadmail up``, ``deadmail demo --auto``): Celery's own ``celery`` command, with
one warning left out.

Celery warns (``celery.platforms.check_privileges``) whenever a worker runs as root, because a root worker that
accepts pickled messages runs whatever a broker hands it. This worker accepts JSON only (worker/app.py), its broker
is a folder of the data folder readable by its owner only, and it runs as whoever started ``deadmail up``, which
serves the web pages as that same user: there is no other user to switch to, and the warning (shown on every start in
a container, where everything runs as root) tells that person nothing they can act on. Only that warning is left out,
only here: a worker started with ``celery -A worker.app worker`` (production) still prints it.
"""

from __future__ import annotations

import warnings

from celery.__main__ import main
from celery.exceptions import SecurityWarning

ROOT_WARNING = "You're running the worker with superuser privileges"


def run() -> None:
    warnings.filterwarnings("ignore", message=ROOT_WARNING, category=SecurityWarning)
    main()


if __name__ == "__main__":
    run()
