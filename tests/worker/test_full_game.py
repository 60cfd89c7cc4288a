"""A whole game of bots played through HTTP against the database, the broker and a real worker, to the end."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from celery import Celery
from sqlalchemy import func, select

from engine.rules import scores, winners
from server.models import Game, Outbox
from server.services.play import turns
from tests.conftest import Stack
from tests.support import AUTH, api_game, check_game, every_window, people, seat_ids, stored_events

from ..waiting import wait_for
from .conftest import TaskLog

#: how long the worker may take to advance one window (seconds)
ADVANCE_S = 30.0


def status_of(stack: Stack, game_id: int) -> dict[str, Any]:
    """The organiser's view of the game (``GET /api/games/<id>``): status, open window, who owes what."""
    shown = stack.client.get(f"/api/games/{game_id}", headers=AUTH).json
    assert shown is not None
    return shown


def moved_on(stack: Stack, game_id: int, number: int) -> dict[str, Any] | None:
    """The game's status once its window ``number`` is closed (None before)."""
    shown = status_of(stack, game_id)
    if shown["status"] != "running":
        return shown
    # (the window is None when the game was read running just before the advance that ended it committed)
    return shown if shown["window"] is not None and shown["window"]["number"] != number else None


def play(stack: Stack, players: int, seed: int) -> tuple[int, int]:
    """Create a game of ``players`` people by the API and answer every request of every seat by HTTP, window after
    window, each answer a random bot's (``turns.bot_choice``), until the game is over; returns the game id and the
    number of answers the server took."""
    client = stack.client
    stack.app.config["DEADMAIL_ANSWERS_PER_MINUTE"] = 100_000  # bots answer at machine speed from one address
    stack.app.config["DEADMAIL_LINKS_PER_MINUTE"] = 100_000  # and read their seat (GET /api/seat) as fast
    made = api_game(client, people(players), seed=seed)
    ids = seat_ids(stack.db, made.id)
    taken = 0
    shown = status_of(stack, made.id)
    while shown["status"] == "running":
        number = shown["window"]["number"]
        # as players do, each reads its own seat (the public list of who still owes never names those asked in a
        # card window); all read before anyone answers, since the last answer lets the worker move on
        views = {colour: client.get(f"/api/seat/{token}").json for colour, token in made.tokens.items()}
        for colour, view in views.items():
            assert view is not None
            window = view["window"]
            assert window["number"] == number
            if window["request"] is None:
                continue
            assert window["answer"] is None
            seat_id = ids[colour]
            answer = turns.bot_choice(stack.db, seat_id, "random", seed * 1009 + number * 7 + seat_id)
            body = {"kind": window["request"]["kind"], "window": number, "answer": answer}
            result = client.post(f"/api/seat/{made.tokens[colour]}/answer", json=body)
            assert result.status_code == 200, (body, result.json)
            taken += 1
            if result.json["complete"]:  # a vote closed once decided takes no more votes
                break
        shown = wait_for(partial(moved_on, stack, made.id, number), ADVANCE_S, f"the worker to close window {number}")
    assert shown["status"] == "over"
    return made.id, taken


def check_finished(stack: Stack, game_id: int, players: int, taken: int) -> None:
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
        windows, requests = every_window(session, game)  # closed ones from the game's archive
        assert len(windows) == eng.window_no > 10
        assert {w.status for w in windows} == {"closed"}
        rows = [r for _number, r in requests]
        # every request answered by HTTP, once, none defaulted; but votes not cast once decided (check_game)
        assert len(rows) == len(eng.log)
        assert len([r for r in rows if r.answered_at is not None]) == taken
        assert not any(r.defaulted for r in rows)
        over = [e for e in stored_events(session, game_id) if e["type"] == "game_over"]
        assert [{k: v for k, v in e.items() if k != "type"} for e in over] == [outcome]
        over_mail = session.execute(
            select(func.count()).select_from(Outbox).where(Outbox.game_id == game_id, Outbox.kind == "game_over")
        ).scalar()
        assert over_mail == players
    shown = status_of(stack, game_id)
    assert (shown["status"], shown["window"], shown["owed"], shown["outcome"]) == ("over", None, [], outcome)


def all_mail_sent(stack: Stack, game_id: int) -> bool:
    with stack.db.session() as session:
        statuses = session.execute(select(Outbox.status).where(Outbox.game_id == game_id)).scalars().all()
    # "skipped": a mail for a window already closed, whose news a newer mail to the same seat tells (mail/send.py)
    return "sent" in statuses and set(statuses) <= {"sent", "skipped"}


@pytest.mark.long(20)
@pytest.mark.parametrize("stack", ["production"], indirect=True)
def test_a_five_player_game_of_bots_is_played_to_the_end_on_postgresql_and_redis(
    stack: Stack, worker: Celery, task_log: TaskLog
) -> None:
    assert stack.db.engine.dialect.name == "postgresql"
    assert stack.settings.broker_url.startswith("redis://")
    game_id, taken = play(stack, players=5, seed=41)
    check_finished(stack, game_id, 5, taken)
    wait_for(lambda: all_mail_sent(stack, game_id), 30, "every mail to be sent")
    assert task_log.failures == []


@pytest.mark.long(10)
@pytest.mark.parametrize("stack", ["embedded"], indirect=True)
def test_a_four_player_game_of_bots_is_played_to_the_end_on_the_embedded_setup(
    stack: Stack, worker: Celery, task_log: TaskLog
) -> None:
    assert stack.db.engine.dialect.name == "sqlite"
    assert stack.settings.embedded_broker
    game_id, taken = play(stack, players=4, seed=42)
    check_finished(stack, game_id, 4, taken)
    wait_for(lambda: all_mail_sent(stack, game_id), 30, "every mail to be sent")
    assert task_log.failures == []
