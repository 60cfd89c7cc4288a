"""Outbox pruning: final rows older than the keep time go, in batches, except the rows something still
needs (deduplication by key, the seat's thread root, a waiting digest's rows, counted league mails)."""

from __future__ import annotations

from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select, update

from server.config import Settings
from server.db import Database
from server.mail.send import send_due
from server.models import MailKind, Outbox, OutboxStatus, Player
from server.services.mailflow import outbox, reminders
from server.services.play import games, turns
from tests.conftest import Stack
from tests.support import T0, Sink, create, open_window, outbox_ids, play_window, rows_of_kind

LATER = T0 + timedelta(days=30)


def keys(db: Database) -> set[str]:
    with db.session() as session:
        return set(session.execute(select(Outbox.key)).scalars())


def send_all(stack: Stack, now: datetime) -> None:
    send_due(stack.db, Sink(), stack.settings, now)


def prune_all(db: Database, now: datetime) -> int:
    pruned = 0
    while (step := outbox.prune(db, now)) > 0:
        pruned += step
    return pruned


def add_row(db: Database, kind: MailKind, key: str, status: OutboxStatus, **fields: Any) -> int:
    with db.session() as session:
        player = session.execute(select(Player)).scalars().first()
        assert player is not None
        row = outbox.player_mail(player.id, kind, key, fields.pop("payload", {}), T0)
        row.status = status
        for name, value in fields.items():
            setattr(row, name, value)
        session.add(row)
        session.flush()
        return row.id


def test_the_open_windows_rows_and_each_seats_thread_root_survive_older_rows_go(stack: Stack) -> None:
    """turn:/update: keys are per window: kept while their window is open (an advance or answer could write them
    again), pruned once it is closed, except each seat's first thread-starting row (headers.message_id's root)."""
    game_id = create(stack.db, 3, seed=5).game_id
    send_all(stack, T0)
    first = set(outbox_ids(stack.db, game_id))
    assert first and prune_all(stack.db, LATER) == 0  # window 1 open: its turn rows stay (and they are the roots)
    now = T0
    for _ in range(3):
        now += timedelta(minutes=5)
        play_window(stack.db, game_id, seed=5, now=now)
        send_all(stack, now)
    window = open_window(stack.db, game_id)
    assert window is not None
    with stack.db.session() as session:
        current = set(
            session.execute(
                select(Outbox.id).where(Outbox.game_id == game_id, Outbox.created_at >= window.opened_at)
            ).scalars()
        )
    before = set(outbox_ids(stack.db, game_id))
    assert prune_all(stack.db, now + timedelta(days=1)) == 0  # not yet older than the keep time
    pruned = prune_all(stack.db, LATER)
    left = set(outbox_ids(stack.db, game_id))
    assert pruned == len(before - left) > 0
    assert first | current <= left  # the thread roots and the open window's rows
    assert left == first | current
    # a repeated advance of a closed window (its rows pruned) writes nothing again
    assert not turns.advance_window(stack.db, window.id - 1, now=now)
    assert set(outbox_ids(stack.db, game_id)) == left


def test_pruning_is_batched_and_keeps_young_and_unsent_rows(stack: Stack) -> None:
    create(stack.db, 3, seed=6)
    for i in range(7):
        add_row(stack.db, MailKind.CHAT, f"chat:old:{i}", OutboxStatus.SENT)
    add_row(stack.db, MailKind.CHAT, "chat:young", OutboxStatus.SENT, next_attempt_at=LATER - timedelta(hours=1))
    add_row(stack.db, MailKind.CHAT, "chat:pending", OutboxStatus.PENDING)
    add_row(stack.db, MailKind.CHAT, "chat:failed", OutboxStatus.FAILED)
    assert outbox.prune(stack.db, LATER, limit=3) == 3
    assert outbox.prune(stack.db, LATER, limit=3) == 3
    assert outbox.prune(stack.db, LATER, limit=3) == 2  # the last old one and the failed one
    assert outbox.prune(stack.db, LATER, limit=3) == 0
    assert {"chat:young", "chat:pending"} <= keys(stack.db)
    assert not any(k.startswith("chat:old") for k in keys(stack.db)) and "chat:failed" not in keys(stack.db)


def test_a_waiting_digests_merged_rows_survive_until_it_is_sent(stack: Stack) -> None:
    create(stack.db, 3, seed=7)
    merged = [add_row(stack.db, MailKind.CHAT, f"chat:held:{i}", OutboxStatus.MERGED) for i in range(2)]
    digest = add_row(stack.db, MailKind.DIGEST, "digest:1:1", OutboxStatus.PENDING, payload={"rows": merged})
    assert prune_all(stack.db, LATER) == 0
    with stack.db.session() as session:
        session.execute(update(Outbox).where(Outbox.id == digest).values(status=OutboxStatus.SENT))
    assert prune_all(stack.db, LATER) == 3


def test_counted_league_mails_are_never_pruned_so_the_next_key_is_new(stack: Stack) -> None:
    """``confirm_entry`` numbers a resend by counting the entry's rows: pruning one would give a taken key again."""
    create(stack.db, 3, seed=8)
    with stack.db.session() as session:
        player = session.execute(select(Player)).scalars().first()
        assert player is not None
        entry = SimpleNamespace(id=41, player_id=player.id)
        outbox.confirm_entry(session, entry, T0, language="en")  # type: ignore[arg-type]
        outbox.confirm_entry(session, entry, T0, language="en")  # type: ignore[arg-type]
    with stack.db.session() as session:
        session.execute(update(Outbox).values(status=OutboxStatus.SENT))
    assert prune_all(stack.db, LATER) == 0
    with stack.db.session() as session:
        outbox.confirm_entry(session, entry, LATER, language="en")  # type: ignore[arg-type]
    assert {"league_confirm:41:1", "league_confirm:41:2", "league_confirm:41:3"} <= keys(stack.db)


@pytest.mark.parametrize("days", ["0.5", "0"])
def test_the_keep_time_is_a_day_or_more(tmp_path: Any, days: str) -> None:
    """A session's (``session:{game}:{seat}:{day}``) and a chat slot's keys are checked within a day of their row."""
    with pytest.raises(ValueError, match="DEADMAIL_OUTBOX_KEEP_DAYS"):
        Settings.from_env({"DEADMAIL_DATA_DIR": str(tmp_path), "DEADMAIL_OUTBOX_KEEP_DAYS": days})
    assert Settings.from_env({"DEADMAIL_DATA_DIR": str(tmp_path)}).outbox_keep_days == 3


def test_a_sent_session_reminder_is_kept_while_its_key_is_checked_so_it_is_not_sent_twice(stack: Stack) -> None:
    """``session:{game}:{seat}:{day}`` keys are checked by ``plan_session_reminders`` from 15 minutes before the
    session: a prune in between (with any keep time of a day or more) leaves them, so no second reminder."""
    from .test_play_hours import SESSION_START, spec

    db = stack.db
    games.create_game(db, spec(), now=SESSION_START - timedelta(hours=9))
    first = reminders.plan_session_reminders(db, SESSION_START - timedelta(minutes=15))
    assert len(first) == 3
    send_all(stack, SESSION_START - timedelta(minutes=14))
    assert outbox.prune(db, SESSION_START - timedelta(minutes=5), keep=timedelta(days=1)) == 0
    assert reminders.plan_session_reminders(db, SESSION_START - timedelta(minutes=5)) == []
    assert len(rows_of_kind(db, MailKind.SESSION)) == 3
