"""The whole loop once: create a game through the API, answer by HTTP, a real worker advances the window."""

from __future__ import annotations

from celery import Celery

from server.services.play import games
from tests.conftest import Stack
from tests.support import api_game

from ..waiting import wait_for


def window_number(stack: Stack, game_id: int) -> int:
    number: int = games.game_status(stack.db, game_id)["window"]["number"]
    return number


def test_answers_by_http_are_advanced_by_the_worker(stack: Stack, worker: Celery) -> None:
    made = api_game(stack.client, ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"])
    first = window_number(stack, made.id)
    for token in made.tokens.values():
        assert window_number(stack, made.id) == first  # incomplete until the last answer: nothing advances
        view = stack.client.get(f"/api/seat/{token}").json
        assert view is not None
        req = view["window"]["request"]
        answer = stack.client.post(f"/api/seat/{token}/answer", json={"kind": req["kind"], "answer": req["options"][0]})
        assert answer.status_code == 200, answer.json
    wait_for(lambda: window_number(stack, made.id) > first, timeout=20, what="the worker to advance the window")
