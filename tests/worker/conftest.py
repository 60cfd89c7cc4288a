"""Helpers for the worker tests: a record of the tasks the in-process worker ran, and waiting without guessing."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from celery.signals import task_failure, task_postrun

from ..waiting import wait_for


@dataclass
class Ran:
    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    retval: Any


@dataclass
class TaskLog:
    """Every task the in-process worker finished (and every failure), in order."""

    ran: list[Ran] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def of(self, name: str) -> list[Ran]:
        with self.lock:
            return [r for r in self.ran if r.name == name]

    def wait(self, name: str, count: int, timeout: float = 30.0) -> list[Ran]:
        """Wait until ``count`` tasks called ``name`` have finished; fail on any task failure."""
        wait_for(lambda: self.failures or len(self.of(name)) >= count, timeout, f"{count} x {name}: {self.of(name)}")
        assert self.failures == []
        return self.of(name)


@pytest.fixture
def task_log() -> Iterator[TaskLog]:
    log = TaskLog()

    def postrun(sender: Any = None, args: Any = None, kwargs: Any = None, retval: Any = None, **_: Any) -> None:
        with log.lock:
            log.ran.append(Ran(sender.name, tuple(args or ()), dict(kwargs or {}), retval))

    def failure(sender: Any = None, exception: Any = None, **_: Any) -> None:
        with log.lock:
            log.failures.append(f"{sender.name}: {exception!r}")

    task_postrun.connect(postrun, weak=False)
    task_failure.connect(failure, weak=False)
    yield log
    task_postrun.disconnect(postrun)
    task_failure.disconnect(failure)
