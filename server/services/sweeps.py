"""The minute sweep, fanned out: beat sends ``deadmail.sweep``, which enqueues one task per part (``PARTS``) for
the same instant; each part task runs one batch here.

A batch claims up to ``limit`` items that are due, read through an index on their due instant (a window's
deadline, ``completed_at`` or ``remind_at``, a game's ``session_at``, an outbox row's status and next attempt),
so a pass with nothing due costs the same whatever the number of games. A batch that claimed a full ``limit``
calls ``more`` before processing them (the task enqueues the part again: another worker takes the next batch in
parallel); there is no cap per minute. A part that did anything asks for the parts that use it in the same pass
(``follow``): new mail is sent by a mail batch after it, windows completed by an absence are advanced. Mail (the
``mail`` part) is sent by the worker through ``server.mail.send.send_batch``, notifications (``push``) through
``server.mail.push.send_nudges`` and webhook posts (``channel``) through ``server.mail.channel.send_posts``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..db import Database
from .attendance import absences
from .channel import posts as channel_posts
from .leagues import rounds
from .lobby import proposals
from .mailflow import outbox, reminders
from .notify import nudges
from .play import turns

PARTS = (
    "absences",
    "rounds",
    "proposals",
    "windows",
    "reminders",
    "digests",
    "sessions",
    "mail",
    "push",
    "channel",
    "prune",
)
#: the parts that use what a part did, run again after it in the same pass when it did anything.
FOLLOW = {
    "absences": ("windows",),
    "rounds": ("mail", "channel"),
    "proposals": ("mail",),
    "windows": ("mail", "push", "channel"),
    "reminders": ("mail", "push"),
    "digests": ("mail",),
    "sessions": ("mail",),
}


@dataclass
class Batch:
    """What one batch of a part did: its counts (the sweep's figures) and the windows it claimed."""

    counts: dict[str, int]
    claimed: list[int] = field(default_factory=list)


def run(part: str, db: Database, now: datetime, limit: int, more: Callable[[], None], keep: timedelta) -> Batch:
    """One batch of ``part`` (any of ``PARTS`` but ``mail``, ``push`` and ``channel``, which the worker sends) at
    ``now``; ``keep``: how long sent mail, notifications and webhook posts are kept."""
    if part == "windows":
        claimed = turns.claim_windows(db, now, limit)
        if len(claimed) == limit:
            more()
        # the lease makes these windows this batch's: it waits for a row lock held briefly (an answer, a reminder)
        return Batch({"advanced": sum(turns.advance_window(db, w, now) for w in claimed)}, claimed)
    if part == "reminders":
        return Batch({"reminded": len(reminders.plan_reminders(db, now, limit, more))})
    if part == "sessions":
        return Batch({"sessions": len(reminders.plan_session_reminders(db, now, limit, more))})
    if part == "digests":
        return Batch({"digests": len(reminders.release_digests(db, now, limit, more))})
    if part == "absences":
        return Batch({"absences": absences.apply_started(db, now, limit, more)})
    if part == "rounds":
        return Batch({"rounds": rounds.sweep(db, now)})
    if part == "proposals":
        return Batch({"cancelled": proposals.cancel_unfilled(db, now, limit, more)})
    if part == "prune":
        pruned = outbox.prune(db, now, limit, keep)
        pruned_nudges = nudges.prune(db, now, limit, keep)
        pruned_posts = channel_posts.prune(db, now, limit, keep)
        if limit in (pruned, pruned_nudges, pruned_posts):
            more()
        return Batch({"pruned": pruned + pruned_nudges + pruned_posts})
    raise ValueError(f"no sweep part {part!r}")


def follow(part: str, counts: dict[str, int]) -> tuple[str, ...]:
    """The parts to run after a batch of ``part`` that did ``counts``."""
    return FOLLOW.get(part, ()) if any(counts.values()) else ()
