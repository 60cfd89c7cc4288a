"""Shared steps of the worker tests: creating games, answering, and checking a game's rows against its engine."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

import engine
from server.queue import Queue
from server.services import games

AUTH = {"Authorization": "Bearer test-api-token"}
#: a fixed instant for tests with an injected clock (well away from the wall clock, so only the injected one counts).
T0 = datetime(2031, 3, 4, 12, 0, tzinfo=UTC)


class CountingQueue:
    """The real queue (tasks go through the broker), counting the advance kicks it was asked to send."""

    def __init__(self, settings: Any) -> None:
        self.inner = Queue(settings)
        self.kicks: list[int] = []
        self.mails: list[int] = []
        self.lock = threading.Lock()

    def advance(self, window_id: int) -> None:
        with self.lock:
            self.kicks.append(window_id)
        self.inner.advance(window_id)

    def send_mail(self, outbox_id: int) -> None:
        with self.lock:
            self.mails.append(outbox_id)
        self.inner.send_mail(outbox_id)


def people(count: int) -> list[str]:
    return [f"P{i} <p{i}@example.org>" for i in range(count)]


def create(db: Any, count: int, seed: int, now: datetime = T0, **spec: Any) -> games.Created:
    """A game of ``count`` people created directly through the service, at ``now`` (no mail task sent)."""
    players = [games.parse_player(p) for p in people(count)]
    return games.create_game(db, games.GameSpec(players=players, seed=seed, **spec), now=now)


def seat_ids(db: Any, game_id: int) -> dict[str, int]:
    from server.models import Seat

    with db.session() as session:
        rows = session.execute(select(Seat).where(Seat.game_id == game_id).order_by(Seat.position)).scalars()
        return {seat.colour: seat.id for seat in rows}


def open_window(db: Any, game_id: int) -> Any:
    """The open window with its request rows loaded, or None."""
    from server.models import Window

    with db.session() as session:
        window = session.execute(
            select(Window).where(Window.game_id == game_id, Window.status == "open")
        ).scalar_one_or_none()
        if window is not None:
            for row in window.requests:
                _ = row.seat.colour
        return window


def snapshot(db: Any, game_id: int) -> dict[str, Any]:
    """Everything an advance may change, to compare before and after."""
    from server.models import Event, Game, Outbox, RequestRow, Window

    with db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        windows = session.execute(select(Window).where(Window.game_id == game_id).order_by(Window.number)).scalars()
        requests = session.execute(
            select(RequestRow).join(Window).where(Window.game_id == game_id).order_by(RequestRow.id)
        ).scalars()
        return {
            "version": game.version,
            "state": game.state,
            "status": game.status,
            "windows": [(w.number, w.status, w.closed_at) for w in windows],
            "requests": [(r.id, r.answer, r.answered_at, r.defaulted) for r in requests],
            "events": session.execute(
                select(Event.seq, Event.type).where(Event.game_id == game_id).order_by(Event.id)
            ).all(),
            "outbox": session.execute(select(Outbox.key).where(Outbox.game_id == game_id).order_by(Outbox.id)).all(),
        }


def check_game(db: Any, game_id: int) -> engine.Game:
    """The stored game is exactly what its request rows say: each window closed once, in order, every stored
    answer (or default) applied once and in the engine's log, events stored once each with contiguous numbers.
    Returns the engine restored from the stored state (which replays its log and checks the snapshot)."""
    from server.models import Event, Game, RequestRow, Window

    with db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        eng = engine.Game.from_json(game.state)
        windows = list(
            session.execute(select(Window).where(Window.game_id == game_id).order_by(Window.number)).scalars()
        )
        numbers = [w.number for w in windows]
        assert numbers == list(range(1, len(windows) + 1)), numbers
        assert eng.window_no == len(windows)
        closed = windows if eng.over else windows[:-1]
        assert all(w.status == "closed" and w.closed_at is not None for w in closed)
        if not eng.over:
            assert windows[-1].status == "open" and windows[-1].closed_at is None
            assert windows[-1].number == eng.window_no
        assert game.version == len(closed) + 1
        assert game.status == ("over" if eng.over else "running")
        assert game.outcome == eng.outcome
        log: list[dict[str, Any]] = []
        for window in closed:
            rows = session.execute(
                select(RequestRow).where(RequestRow.window_id == window.id).order_by(RequestRow.position)
            ).scalars()
            for row in rows:
                entry: dict[str, Any] = {"player": row.seat.colour, "kind": row.kind}
                if row.defaulted:
                    entry["timeout"] = True
                else:
                    assert row.answered_at is not None
                    entry["answer"] = row.answer
                log.append(entry)
        assert game.state["log"] == log
        events = session.execute(
            select(Event.seq, Event.type).where(Event.game_id == game_id).order_by(Event.seq)
        ).all()
        assert [e.seq for e in events] == list(range(len(eng.events)))
        assert [e.type for e in events] == [e["type"] for e in eng.events]
    return eng
