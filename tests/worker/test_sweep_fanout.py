"""The sweep fans out: beat only enqueues one task per part; each part claims one batch of what is due
through an index and enqueues itself again after a full batch. Shown with the real worker: batches are claimed
once under two beats and four worker threads, a pass with nothing due runs the same statements whatever the number of
games, and reminders and session reminders go out once when due."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from celery import Celery

from server.models import Game, MailKind, Outbox, Seat, Window
from server.services.attendance import absences
from server.services.play import games
from server.services.tempo import parse_deadlines, parse_play_hours
from tests.conftest import Stack, running_worker
from tests.support import (
    IDLE,
    T0,
    create_tagged,
    every_window,
    rows_of_kind,
    stored_events,
    summed,
    sweep,
    sweep_parts,
    utc,
)

from .conftest import TaskLog


def window_numbers(stack: Stack) -> dict[int, list[tuple[int, str]]]:
    """Game -> its windows' numbers and statuses, closed (its archive) and open."""
    with stack.db.session() as session:
        games = session.execute(sa.select(Game).order_by(Game.id)).scalars().all()
        return {game.id: [(w.number, w.status) for w in every_window(session, game)[0]] for game in games}


def test_two_beats_and_four_worker_threads_claim_each_due_window_in_one_batch_and_advance_it_once(
    stack: Stack, task_log: TaskLog
) -> None:
    ids = [create_tagged(stack.db, 3, seed=500 + i, deadlines={"default": 3600}).game_id for i in range(30)]
    with stack.db.session() as session:
        first = set(session.execute(sa.select(Window.id)).scalars())
    settings = replace(stack.settings, sweep_batch=4)
    with running_worker(settings, concurrency=4) as app:  # four consumers taking batches at once
        parts = sweep_parts(app, task_log, T0 + timedelta(hours=1), beats=2)

    batches = [r.retval["claimed"] for r in parts if r.retval["part"] == "windows"]
    claimed = [window_id for batch in batches for window_id in batch]
    assert sorted(claimed) == sorted(first)  # each due window claimed once, in one batch
    assert all(len(batch) <= 4 for batch in batches) and len(batches) >= 30 // 4
    assert summed(parts)["advanced"] == 30
    assert window_numbers(stack) == {g: [(1, "closed"), (2, "open")] for g in ids}
    with stack.db.session() as session:
        for game_id in ids:
            stored_events(session, game_id)  # stored once each: no batch overlaps another


@contextmanager
def statements() -> Iterator[list[str]]:
    """The SQL statements run (by any engine of this process) meanwhile."""
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(statement)

    sa.event.listen(sa.Engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        sa.event.remove(sa.Engine, "before_cursor_execute", count)


def seats_player(stack: Stack, game_id: int) -> int:
    """The second person's player of the game."""
    with stack.db.session() as session:
        return session.execute(
            sa.select(Seat.player_id).where(Seat.game_id == game_id, Seat.player_id.is_not(None)).order_by(Seat.id)
        ).all()[1][0]


def test_a_pass_with_nothing_due_runs_the_same_statements_with_1_and_with_21_live_games(
    stack: Stack, worker: Celery, task_log: TaskLog
) -> None:
    create_tagged(stack.db, 3, seed=600)
    sweep(worker, task_log, T0)  # the first mails
    with statements() as few:
        assert sweep(worker, task_log, T0 + timedelta(minutes=1)) == IDLE
    digest = {0: {"mail_mode": "digest", "digest_hours": 4}}  # each new game's first player gets a digest
    ids = [create_tagged(stack.db, 3, seed=601 + i, prefs=digest).game_id for i in range(20)]
    for player_id in (seats_player(stack, game_id) for game_id in ids):  # away now (applied at once), and later
        absences.declare(stack.db, player_id, T0, T0 + timedelta(days=2), now=T0)
        absences.declare(stack.db, player_id, T0 + timedelta(days=3), T0 + timedelta(days=4), now=T0)
    sweep(worker, task_log, T0 + timedelta(minutes=1))
    with statements() as many:
        assert sweep(worker, task_log, T0 + timedelta(minutes=2)) == IDLE
    assert len(many) == len(few)  # with 20 players away and 20 digests gathering
    with stack.db.session() as session:
        assert session.execute(sa.select(sa.func.count()).where(Outbox.status == "held")).scalar_one() == 20


@pytest.mark.long(9)
def test_reminders_and_session_reminders_go_out_once_under_two_beats(
    stack: Stack, worker: Celery, task_log: TaskLog
) -> None:
    create_tagged(stack.db, 3, seed=700)  # 24 h windows: the first reminder 12 h in
    assert sweep(worker, task_log, T0, beats=2) == IDLE | {"sent": 3}
    assert sweep(worker, task_log, T0 + timedelta(hours=12), beats=2) == IDLE | {"reminded": 3, "sent": 3}
    assert sweep(worker, task_log, T0 + timedelta(hours=12, minutes=1), beats=2) == IDLE

    start = utc(2026, 2, 3, 19, 30)  # 20:30 in Rome
    hours = parse_play_hours("Mon-Sun 20:30-22:00 Europe/Rome", "10m")
    players = [games.PlayerSpec(name=f"S{i}", email=f"s{i}@example.org") for i in range(3)]
    spec = games.GameSpec(players=players, deadlines=parse_deadlines(["24h"]), play_hours=hours, seed=7)
    games.create_game(stack.db, spec, now=utc(2026, 2, 3, 10))
    sweep(worker, task_log, utc(2026, 2, 3, 10))
    assert sweep(worker, task_log, start - timedelta(minutes=16), beats=2)["sessions"] == 0
    assert sweep(worker, task_log, start - timedelta(minutes=15), beats=2)["sessions"] == 3
    assert sweep(worker, task_log, start - timedelta(minutes=5), beats=2)["sessions"] == 0
    assert len(rows_of_kind(stack.db, MailKind.SESSION)) == 3
    assert sweep(worker, task_log, start + timedelta(days=1, minutes=-15), beats=2)["sessions"] == 3
    assert len(rows_of_kind(stack.db, MailKind.SESSION)) == 6
