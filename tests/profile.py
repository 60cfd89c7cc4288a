"""How thorough a test run is. ``DEADMAIL_TEST_PROFILE=full`` (``.ci/run`` sets it) tries every property test's
full number of examples and every far value of the hostile walks; the default, ``quick``, a developer's run, tries a
fifth of the examples (at least 5) and half the far values. Every test runs in both."""

from __future__ import annotations

import os
from typing import TypeVar

T = TypeVar("T")

FULL = os.environ.get("DEADMAIL_TEST_PROFILE", "quick") == "full"


def examples(count: int) -> int:
    """The number of examples a property test tries in this run: ``count`` in a full run."""
    return count if FULL else max(5, count // 5)


def some(values: list[T]) -> list[T]:
    """The values a walk tries in this run: all in a full run, every second otherwise."""
    return values if FULL else values[::2]
