"""The whole loop once: create a game through the API, answer by HTTP, a real worker advances the window."""

from __future__ import annotations

from typing import Any

from server.services import games

from ..waiting import wait_for

AUTH = {"Authorization": "Bearer test-api-token"}


def test_answers_by_http_are_advanced_by_the_worker(stack: Any, worker: Any) -> None:
    players = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"]
    reply = stack.client.post("/api/games", json={"players": players, "seed": 7}, headers=AUTH)
    assert reply.status_code == 201, reply.json
    game_id = reply.json["id"]
    tokens = [seat["link"].rsplit("/", 1)[1] for seat in reply.json["seats"]]
    first = games.game_status(stack.db, game_id)["window"]["number"]
    for token in tokens:
        view = stack.client.get(f"/api/seat/{token}").json
        req = view["window"]["request"]
        answer = stack.client.post(f"/api/seat/{token}/answer", json={"kind": req["kind"], "answer": req["options"][0]})
        assert answer.status_code == 200, answer.json
    wait_for(lambda: games.game_status(stack.db, game_id)["window"]["number"] > first, timeout=20)
