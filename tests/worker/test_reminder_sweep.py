"""Reminders and digests through the real worker: the sweep (``deadmail.sweep`` with an injected ``now``) writes
them when due and sends them, re-checked at send time, into the embedded mail folder."""

from __future__ import annotations

from datetime import datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

from celery import Celery
from sqlalchemy import select

from server.db import Database
from server.models import Outbox, Player
from server.services.mailflow import reminders
from server.services.play import turns
from tests.conftest import Stack
from tests.support import IDLE, T0, create, mail_files, request_of, seat_ids, sweep

from .conftest import TaskLog


def new_mail(folder: Path, seen: set[Path]) -> list[EmailMessage]:
    """The mails written since ``seen`` (which is updated)."""
    fresh = [path for path in mail_files(folder) if path not in seen]
    seen.update(fresh)
    return [message_from_bytes(path.read_bytes(), policy=policy.default) for path in fresh]


def addressed(mails: list[EmailMessage]) -> dict[str, str]:
    """Each mail's subject by its recipient's address (one mail each)."""
    found = {str(mail["To"].addresses[0].addr_spec): str(mail["Subject"]) for mail in mails}
    assert len(found) == len(mails)
    return found


def statuses(db: Database, kind: str) -> dict[str, str]:
    with db.session() as session:
        rows = session.execute(select(Player.email, Outbox.status).join(Player).where(Outbox.kind == kind)).all()
        return {email: status for email, status in rows}


def answer_first_option(db: Database, game_id: int, colour: str, at: datetime) -> None:
    seat_id = seat_ids(db, game_id)[colour]
    found = request_of(db, seat_id)
    assert found is not None
    _, row = found
    turns.submit_answer(db, seat_id, row.kind, row.payload["options"][0], now=at)


def test_the_sweep_writes_and_sends_reminders_when_their_step_comes(
    stack: Stack, worker: Celery, task_log: TaskLog
) -> None:
    db, folder, seen = stack.db, stack.settings.mail_dir, set[Path]()
    created = create(db, 3, seed=41)  # P0 yellow, P1 red, P2 blue; deadline T0 + 24 h
    assert sweep(worker, task_log, T0) == IDLE | {"sent": 3}
    assert len(new_mail(folder, seen)) == 3  # the turn notices

    assert sweep(worker, task_log, T0 + timedelta(hours=12) - timedelta(seconds=1)) == IDLE
    assert sweep(worker, task_log, T0 + timedelta(hours=12)) == IDLE | {"reminded": 3, "sent": 3}
    assert statuses(db, "reminder") == {f"p{i}@example.org": "sent" for i in range(3)}
    sent = addressed(new_mail(folder, seen))
    assert sorted(sent) == [f"p{i}@example.org" for i in range(3)]
    assert all(subject.startswith("Reminder: ") for subject in sent.values()), sent

    answer_first_option(db, created.game_id, "yellow", T0 + timedelta(hours=13))
    assert sweep(worker, task_log, T0 + timedelta(hours=22)) == IDLE | {"reminded": 2, "sent": 2}
    assert sorted(addressed(new_mail(folder, seen))) == ["p1@example.org", "p2@example.org"]
    assert sweep(worker, task_log, T0 + timedelta(hours=22)) == IDLE
    assert new_mail(folder, seen) == []


def test_a_reminder_answered_before_it_is_sent_is_skipped(stack: Stack, worker: Celery, task_log: TaskLog) -> None:
    db, folder, seen = stack.db, stack.settings.mail_dir, set[Path]()
    created = create(db, 3, seed=42)
    assert sweep(worker, task_log, T0) == IDLE | {"sent": 3}
    new_mail(folder, seen)
    assert len(reminders.plan_reminders(db, T0 + timedelta(hours=12))) == 3  # written, not yet sent
    answer_first_option(db, created.game_id, "red", T0 + timedelta(hours=12, seconds=10))

    assert sweep(worker, task_log, T0 + timedelta(hours=12, minutes=1)) == IDLE | {"sent": 2}
    assert statuses(db, "reminder") == {"p0@example.org": "sent", "p1@example.org": "skipped", "p2@example.org": "sent"}
    assert sorted(addressed(new_mail(folder, seen))) == ["p0@example.org", "p2@example.org"]


def test_the_sweep_sends_a_digest_when_it_is_due(stack: Stack, worker: Celery, task_log: TaskLog) -> None:
    db, folder, seen = stack.db, stack.settings.mail_dir, set[Path]()
    with db.session() as session:
        session.add(Player(email="p0@example.org", display_name="P0", mail_mode="digest", digest_hours=4))
    create(db, 3, seed=43)
    assert sweep(worker, task_log, T0) == IDLE | {"sent": 2}  # P0's turn notice is held for the digest
    assert sorted(addressed(new_mail(folder, seen))) == ["p1@example.org", "p2@example.org"]
    assert statuses(db, "turn")["p0@example.org"] == "held"

    assert sweep(worker, task_log, T0 + timedelta(hours=4) - timedelta(seconds=1)) == IDLE
    assert sweep(worker, task_log, T0 + timedelta(hours=4)) == IDLE | {"digests": 1, "sent": 1}
    assert statuses(db, "turn")["p0@example.org"] == "merged"
    assert statuses(db, "digest") == {"p0@example.org": "sent"}
    [(to, subject)] = addressed(new_mail(folder, seen)).items()
    assert to == "p0@example.org"
    assert subject.startswith("Your digest: "), subject
