"""Engine snapshots on the server: ``turns.store_state`` keeps the engine's latest snapshot in ``games.snapshot``,
and ``services.play.engines`` restores a game from it plus the log entries after it and the stored events, instead of
replaying the whole log. No worker: the services are called directly with an injected clock."""

from __future__ import annotations

from collections import OrderedDict
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event as sa_event
from sqlalchemy import select

import engine
from server.models import Game, RequestRow, Window
from server.services.play import archive, engines, turns
from tests.conftest import Stack
from tests.support import T0, check_game, create, open_window, play_window, seat_ids, stored_events


def play_out(stack: Stack, seed: int) -> int:
    """A 4-player game created and played to its end, window after window, by random bots through the services."""
    game_id = create(stack.db, 4, seed).game_id
    now = T0
    for _ in range(400):
        with stack.db.session() as session:
            game = session.get(Game, game_id)
            assert game is not None
            if game.status == "over":
                return game_id
        now += timedelta(minutes=1)
        play_window(stack.db, game_id, seed, now)
    raise AssertionError("the game did not end")


def stored(stack: Stack, game_id: int) -> tuple[dict[str, Any], dict[str, Any] | None, list[dict[str, Any]]]:
    with stack.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game.state, game.snapshot, stored_events(session, game_id)


def test_advances_restore_from_the_snapshot_and_end_as_a_full_replay_does(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the engine cache never kept (every read and advance restores, reading the events from their rows),
    every restore after the setup starts from the stored snapshot and replays less than a round's answers, never
    the whole log; with the cache kept (an advance restores with the cached engine's events), and with snapshots
    switched off (full replays), the same game ends exactly the same: same saved game, snapshot and events."""
    replayed: list[int] = []
    full: list[int] = []
    restore, from_json = engine.Game.restore, engine.Game.from_json

    def counted_restore(data: dict[str, Any], snapshot: dict[str, Any] | None, events: Any) -> engine.Game:
        assert snapshot is not None  # the server asks for a snapshot restore only with a snapshot
        replayed.append(len(data["log"]) - snapshot["log"])
        return restore(data, snapshot, events)

    def counted_from_json(data: dict[str, Any]) -> engine.Game:
        full.append(len(data["log"]))
        return from_json(data)

    put = engines.CACHE.put
    # (games of earlier tests in this process may share this one's id and creation instant: start empty)
    monkeypatch.setattr(engines.CACHE, "_games", OrderedDict())
    monkeypatch.setattr(engines.CACHE, "put", lambda *_args: None)
    monkeypatch.setattr(engine.Game, "restore", staticmethod(counted_restore))
    monkeypatch.setattr(engine.Game, "from_json", staticmethod(counted_from_json))
    with_snapshots = play_out(stack, seed=11)
    state, snapshot, events = stored(stack, with_snapshots)
    assert snapshot is not None and snapshot["log"] < len(state["log"]) and snapshot["state"]["round"] > 1
    assert len(replayed) > 20 and max(full) < 40  # full replays only during the setup (no snapshot yet)
    assert max(replayed) < len(state["log"]) // 3

    monkeypatch.setattr(engines.CACHE, "put", put)  # kept: advances restore with the cached engine's events
    replayed.clear()
    cached = play_out(stack, seed=11)
    assert stored(stack, cached) == (state, snapshot, events)
    assert len(replayed) > 20

    monkeypatch.setattr(engine.Game, "snapshot", lambda _self: None)
    monkeypatch.setattr(engine.Game, "from_json", staticmethod(from_json))
    replayed.clear()
    without = play_out(stack, seed=11)
    state2, snapshot2, events2 = stored(stack, without)
    assert snapshot2 is None and replayed == []
    assert state2 == state and events2 == events
    monkeypatch.undo()
    eng = check_game(stack.db, with_snapshots)
    assert eng.over and eng.to_json() == state


def test_an_answer_on_a_cache_miss_is_checked_without_reading_the_events_and_pages_still_get_them(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Answers spread over many games miss the engine cache: the answer is checked against an engine restored from
    the snapshot without reading the game's events (``EngineCache.checker``), kept apart from the engines pages
    read, so a page after it still gets every event."""
    game_id = create(stack.db, 4, 23).game_id
    now = T0
    for _ in range(60):  # into round 2: a snapshot with events before it
        now += timedelta(minutes=1)
        play_window(stack.db, game_id, 23, now)
        with stack.db.session() as session:
            snapshot = session.execute(select(Game.snapshot).where(Game.id == game_id)).scalar_one()
        if snapshot is not None and snapshot["state"]["round"] >= 2:
            break
    assert snapshot is not None and snapshot["events"] > 0
    window = open_window(stack.db, game_id)
    assert window is not None
    row = window.requests[0]
    seat = seat_ids(stack.db, game_id)[row.seat.colour]
    monkeypatch.setattr(engines.CACHE, "_games", OrderedDict())
    monkeypatch.setattr(engines.CACHE, "_checkers", OrderedDict())
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    sa_event.listen(stack.db.engine, "before_cursor_execute", count)
    try:
        with pytest.raises(turns.AnswerError):
            turns.submit_answer(stack.db, seat, row.kind, {"not": "an answer"}, now=now)
        turns.submit_answer(stack.db, seat, row.kind, row.payload["options"][0], now=now)
    finally:
        sa_event.remove(stack.db.engine, "before_cursor_execute", count)
    assert statements and not any("event_batches" in s for s in statements)  # the events were not read
    assert len(engines.CACHE._checkers) == 1 and len(engines.CACHE._games) == 0
    with stack.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        shown = engines.CACHE.get(game)  # what a page reads: the events from their rows, none a placeholder
        assert engines.UNREAD not in shown.events
        assert shown.events == engine.Game.from_json(game.state).events


def test_closed_windows_keep_their_requests_kind_secret_mark_and_answer_not_their_payload_B_INFO(stack: Stack) -> None:
    """Once its window is closed a request keeps its kind, its ``secret`` mark (from
    ``engine.asked_in_secret`` of its payload when it opened) and its answer (the engine's log has the request);
    the open window's requests keep their payload (the seat page shows it). The game still checks out."""
    game_id = create(stack.db, 4, seed=21).game_id
    marks: dict[tuple[int, int], bool] = {}
    now = T0
    for _ in range(12):
        window = open_window(stack.db, game_id)
        assert window is not None
        for row in window.requests:
            assert row.payload is not None and row.payload["kind"] == row.kind
            marks[(window.number, row.seat_id)] = engine.asked_in_secret(engine.Request.from_json(row.payload))
            assert row.secret is marks[(window.number, row.seat_id)]
        now += timedelta(minutes=1)
        play_window(stack.db, game_id, 21, now)
    assert True in marks.values() and False in marks.values()
    with stack.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        closed = archive.requests_of(game_id, game.archive)
        rows = session.execute(select(RequestRow, Window.status).join(Window, Window.id == RequestRow.window_id)).all()
    assert {(r.window.number, r.seat_id): r.secret for r in closed} == marks
    assert all(not hasattr(r, "payload") for r in closed)  # the archive keeps no payload
    assert {status for _row, status in rows} == {"open"}
    assert all(row.payload is not None for row, status in rows if status == "open")
    check_game(stack.db, game_id)
