"""A whole game of bots played through HTTP against the database, the broker and a real worker, to the end
(issue 3: "a full game of bots played through HTTP against PostgreSQL, Redis and a real worker")."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from sqlalchemy import func, select

from engine.rules import scores, winners
from server.demo import bot_answer
from server.models import Event, Game, Outbox, RequestRow, Window

from ..waiting import wait_for
from .conftest import TaskLog
from .support import AUTH, check_game, people

LIMIT_S = 240


def play(stack: Any, players: int, seed: int) -> tuple[int, int]:
    """Create a game of ``players`` people by the API and answer every request of every seat by HTTP until the
    game is over; returns the game id and the number of answers the server took."""
    client = stack.client
    stack.app.config["DEADMAIL_ANSWERS_PER_MINUTE"] = 100_000  # bots answer at machine speed from one address
    reply = client.post("/api/games", json={"players": people(players), "seed": seed}, headers=AUTH)
    assert reply.status_code == 201, reply.json
    game_id = reply.json["id"]
    tokens = [seat["link"].rsplit("/", 1)[1] for seat in reply.json["seats"]]
    rng = random.Random(seed)
    answered: set[tuple[str, int]] = set()
    taken = 0
    status = "running"
    started = time.monotonic()
    while status == "running":
        assert time.monotonic() - started < LIMIT_S, f"game {game_id} not over after {LIMIT_S} s"
        acted = False
        for token in tokens:
            view = client.get(f"/api/seat/{token}").json
            status = view["game"]["status"]
            window = view["window"]
            if window is None or window["request"] is None or (token, window["number"]) in answered:
                continue
            assert window["answer"] is None
            body = {
                "kind": window["request"]["kind"],
                "window": window["number"],
                "answer": bot_answer(window["request"], view["view"], rng),
            }
            result = client.post(f"/api/seat/{token}/answer", json=body)
            assert result.status_code in {200, 409}, (body, result.json)  # 409: the window closed meanwhile
            taken += result.status_code == 200
            answered.add((token, window["number"]))
            acted = True
        if not acted:
            time.sleep(0.01)
    assert status == "over"
    return game_id, taken


def check_finished(stack: Any, game_id: int, players: int, taken: int) -> None:
    eng = check_game(stack.db, game_id)  # every window closed once, in order; the log is the stored answers
    assert eng.over
    outcome = eng.outcome
    assert outcome is not None
    assert outcome["scores"] == scores(eng)
    assert outcome["winners"] == winners(eng)
    assert outcome["cards"] == {p: len(eng.hands[p]) for p in eng.players}
    best = max(outcome["scores"].values())
    assert all(outcome["scores"][w] == best for w in outcome["winners"])
    with stack.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        assert (game.status, game.outcome, game.phase) == ("over", outcome, "over")
        windows = session.execute(select(func.count()).select_from(Window).where(Window.game_id == game_id)).scalar()
        assert windows == eng.window_no > 10
        open_or_resolving = session.execute(
            select(func.count()).select_from(Window).where(Window.game_id == game_id, Window.status != "closed")
        ).scalar()
        assert open_or_resolving == 0
        rows = session.execute(select(RequestRow).join(Window).where(Window.game_id == game_id)).scalars().all()
        assert len(rows) == len(eng.log) == taken  # every request answered by HTTP, once, none defaulted
        assert not any(r.defaulted or r.answered_at is None for r in rows)
        over = session.execute(select(Event.data).where(Event.game_id == game_id, Event.type == "game_over")).one()
        assert over.data == outcome
        over_mail = session.execute(
            select(func.count()).select_from(Outbox).where(Outbox.game_id == game_id, Outbox.kind == "game_over")
        ).scalar()
        assert over_mail == players
    shown = stack.client.get(f"/api/games/{game_id}", headers=AUTH).json
    assert (shown["status"], shown["window"], shown["owed"], shown["outcome"]) == ("over", None, [], outcome)


def all_mail_sent(stack: Any, game_id: int) -> bool:
    with stack.db.session() as session:
        statuses = session.execute(select(Outbox.status).where(Outbox.game_id == game_id)).scalars().all()
    # "skipped": a mail for a window already closed, whose news a newer mail to the same seat tells (mails.py)
    return "sent" in statuses and set(statuses) <= {"sent", "skipped"}


@pytest.mark.parametrize("stack", ["production"], indirect=True)
def test_a_five_player_game_of_bots_is_played_to_the_end_on_postgresql_and_redis(
    stack: Any, worker: Any, task_log: TaskLog
) -> None:
    assert stack.db.engine.dialect.name == "postgresql"
    assert stack.settings.broker_url.startswith("redis://")
    game_id, taken = play(stack, players=5, seed=41)
    check_finished(stack, game_id, 5, taken)
    wait_for(lambda: all_mail_sent(stack, game_id), 30, "every mail to be sent")
    assert task_log.failures == []


@pytest.mark.parametrize("stack", ["embedded"], indirect=True)
def test_a_four_player_game_of_bots_is_played_to_the_end_on_the_embedded_setup(
    stack: Any, worker: Any, task_log: TaskLog
) -> None:
    game_id, taken = play(stack, players=4, seed=42)
    check_finished(stack, game_id, 4, taken)
    wait_for(lambda: all_mail_sent(stack, game_id), 30, "every mail to be sent")
    assert task_log.failures == []
