"""A game's closed windows folded into its archive (storage): a live game keeps rows for its open window
only, the archive holds every closed window and request as they were (``support.check_game`` compares it with the
engine's log after every game played in the tests), and ids once deleted are never given again (mail keys carry
them)."""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa

from server.models import Game, MailKind, Outbox, RequestRow, Window
from server.services.play import archive
from tests.conftest import Stack
from tests.support import T0, check_game, create, every_window, open_window, play_window


def test_a_live_game_keeps_rows_for_its_open_window_only_and_its_archive_holds_the_closed_ones(stack: Stack) -> None:
    game_id = create(stack.db, 4, seed=31).game_id
    asked: dict[int, list[tuple[int, str]]] = {}
    for step in range(10):
        window = open_window(stack.db, game_id)
        assert window is not None
        asked[window.number] = [(r.seat_id, r.kind) for r in window.requests]
        play_window(stack.db, game_id, 31, T0 + timedelta(minutes=step))
    with stack.db.session() as session:
        windows = session.execute(sa.select(Window.number, Window.status).where(Window.game_id == game_id)).all()
        requests = session.execute(sa.select(RequestRow.window_id).distinct()).scalars().all()
        game = session.get(Game, game_id)
        assert game is not None
        closed = archive.requests_of(game_id, game.archive)
        every, _requests = every_window(session, game)
    assert windows == [(11, "open")] and len(requests) == 1
    assert {number: [(r.seat_id, r.kind) for r in closed if r.window.number == number] for number in asked} == asked
    assert [w.number for w in every] == list(range(1, 12))
    assert all(
        r.closed_at >= r.opened_at and (r.answered_at is None) == r.defaulted for r in closed if r.kind != "vote"
    )
    check_game(stack.db, game_id)  # every archived answer is the engine's log, in order


def test_ids_of_deleted_rows_are_never_given_again_so_mail_keys_stay_unique(stack: Stack) -> None:
    """SQLite gives the highest id again once its row is deleted unless the table is AUTOINCREMENT: the last window
    of a finished game would lend its id, and its mail keys (``turn:<window id>:...``, ``lastcall:<window id>``,
    ``remind:...:<request id>:...``), to the next game's first window."""
    first = create(stack.db, 3, seed=2).game_id
    seen_windows: set[int] = set()
    seen_requests: set[int] = set()
    for step in range(400):
        window = open_window(stack.db, first)
        if window is None:
            break
        seen_windows.add(window.id)
        seen_requests |= {r.id for r in window.requests}
        play_window(stack.db, first, 2, T0 + timedelta(minutes=step))
    assert open_window(stack.db, first) is None  # over: its last window's rows are gone
    second = create(stack.db, 3, seed=3).game_id
    window = open_window(stack.db, second)
    assert window is not None
    assert window.id > max(seen_windows) and min(r.id for r in window.requests) > max(seen_requests)
    with stack.db.session() as session:
        keys = session.execute(sa.select(Outbox.key).where(Outbox.kind == MailKind.TURN)).scalars().all()
    assert len(keys) == len(set(keys))
