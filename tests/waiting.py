"""Waiting for something a real worker does, with a bound (tests never sleep a fixed time for it)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

#: the longest pause between two polls (seconds).
MAX_PAUSE = 0.2


def wait_for(predicate: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
    """Poll ``predicate`` until it returns something true, and return that; AssertionError after ``timeout``. The
    pause between polls grows from 10 ms to ``MAX_PAUSE``: a predicate is often a query or a page, and polling it
    every 20 ms for a worker's whole round took CPU from that worker, on two cores shared by four test processes."""
    end = time.monotonic() + timeout
    pause = 0.01
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(pause)
        pause = min(pause * 1.5, MAX_PAUSE)
    raise AssertionError(f"timed out waiting for {what or predicate}")
