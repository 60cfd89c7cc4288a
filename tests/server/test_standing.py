"""Standing answers (issue 11, item 3): set per game on the seat and as defaults in the preferences, by the seat
page, the preferences page, a reply command and the JSON API; a request they answer is answered when it opens,
without a "your turn" mail; shown in the player's own mails with a one-tap way to switch one off; private (H-6)."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

import engine
from engine.bots import RandomBot
from server.db import Database
from server.models import Game, Outbox, Player, RequestRow, Seat, Window
from server.services import prefs, standing, turns
from tests.conftest import Stack
from tests.support import T0, create, engine_of, open_window, seat_ids

CAREFUL = {"cards": "pass", "camera": "look", "attack": "if_needed", "vote": "against_leader"}


def set_defaults_of_all(db: Database, game_id: int, settings: dict[str, Any]) -> None:
    with db.session() as session:
        players = [s.player_id for s in session.execute(sa.select(Seat).where(Seat.game_id == game_id)).scalars()]
    for player_id in players:
        assert player_id is not None
        standing.set_defaults(db, player_id, settings)


def play_to_the_end(db: Database, game_id: int, seed: int, limit: int = 800) -> None:
    """Every request still owed answered like a random bot through submit_answer, window after window."""
    bot = RandomBot(seed)
    for _ in range(limit):
        window = open_window(db, game_id)
        if window is None:
            return
        eng = engine_of(db, game_id)
        for row in window.requests:
            if row.answered_at is None:
                req = next(r for r in eng.pending() if r.player == row.seat.colour)
                turns.submit_answer(db, row.seat_id, row.kind, bot.decide(eng, req), now=T0)
        assert turns.advance_window(db, window.id, now=T0) is True
    raise AssertionError("the game went on too long")


@pytest.mark.rule("H-3", "C-3", "VOT-1", "H-6")
def test_requests_answered_from_standing_answers_never_wait_and_send_no_turn_mail(stack: Stack) -> None:
    db = stack.db
    created = create(db, 4, seed=21)
    set_defaults_of_all(db, created.game_id, {**CAREFUL, "victim": ["girl", "gunman", "tough", "pinup"]})
    play_to_the_end(db, created.game_id, seed=21)

    with db.session() as session:
        game = session.get(Game, created.game_id)
        assert game is not None and game.status == "over"
        rows = session.execute(sa.select(RequestRow)).scalars().all()
        turn_keys = set(session.execute(sa.select(Outbox.key).where(Outbox.kind == "turn")).scalars())
        log = game.state["log"]
    by_standing = [row for row in rows if row.standing]
    asked = {(r.kind, (r.payload.get("window") or "")) for r in rows if not r.standing}
    # nobody was ever asked a vote, a camera, a Threat or an attack card window: the settings answered them all
    assert not {kind for kind, _ in asked} & {"vote", "cards", "victim"}
    for row in by_standing:
        assert f"turn:{row.window_id}:{row.seat_id}" not in turn_keys
    standing_log = [entry for entry in log if entry.get("standing")]
    assert by_standing and len(standing_log) >= len(by_standing)  # some in mixed windows, others at once
    eng = engine.Game.from_json(game.state)  # the log replays, standing answers and all
    told = [e for e in eng.events if e["type"] == "answer_standing"]
    assert len(told) == len(standing_log)
    assert all(e["to"] == [e["player"]] for e in told)
