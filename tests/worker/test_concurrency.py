"""Twenty threads send the last answers of one window at once, by HTTP, with a real worker: the window is advanced
exactly once and no accepted answer is lost (issue 3)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import func, select

import engine
from server.app import create_app
from server.models import Event, Game, Outbox, Window
from server.queue import ADVANCE, SEND
from server.services import games

from ..waiting import wait_for
from .conftest import TaskLog
from .support import AUTH, CountingQueue, check_game, open_window, people

THREADS = 20


def start(stack: Any, seed: int) -> tuple[Any, CountingQueue, int, list[str], dict[str, dict[str, Any]]]:
    """A 6-player batched game by the API; its first window asks all six to place a character at once."""
    queue = CountingQueue(stack.settings)
    app = create_app(stack.settings, stack.db, queue)
    app.config["TESTING"] = True
    reply = app.test_client().post("/api/games", json={"players": people(6), "seed": seed}, headers=AUTH)
    assert reply.status_code == 201, reply.json
    game_id = reply.json["id"]
    tokens = [seat["link"].rsplit("/", 1)[1] for seat in reply.json["seats"]]
    requests = {}
    for token in tokens:
        view = app.test_client().get(f"/api/seat/{token}").json
        assert view["window"]["number"] == 1
        requests[token] = view["window"]["request"]
    assert sorted(r["kind"] for r in requests.values()) == ["place"] * 6
    return app, queue, game_id, tokens, requests


def post_all(app: Any, jobs: list[tuple[str, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """Send every (token, body) from its own thread and client, all released at the same instant."""
    barrier = threading.Barrier(len(jobs))

    def post(job: tuple[str, dict[str, Any]]) -> tuple[int, dict[str, Any]]:
        token, body = job
        client = app.test_client()
        barrier.wait(timeout=30)
        reply = client.post(f"/api/seat/{token}/answer", json=body)
        return reply.status_code, reply.json

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        return list(pool.map(post, jobs))


def settle(stack: Any, queue: CountingQueue, task_log: TaskLog, game_id: int) -> None:
    """Wait until window 1 is closed and the worker has run every advance kicked and every mail queued."""
    wait_for(lambda: open_window(stack.db, game_id).number == 2, 30, "window 2 to open")
    task_log.wait(ADVANCE, len(queue.kicks))
    with stack.db.session() as session:
        mails = session.execute(select(func.count()).select_from(Outbox).where(Outbox.game_id == game_id)).scalar()
    task_log.wait(SEND, mails)
    assert len(task_log.of(ADVANCE)) == len(queue.kicks)


def expected_after_first_window(game_id: int, stack: Any, answers: dict[str, Any]) -> engine.Game:
    """The same game played by the engine alone: the six answers applied once, in the window's order."""
    with stack.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        seed, options = game.seed, game.options
    eng = engine.new_game(games.colours_for(6), seed=seed, options=options)
    for req in eng.pending():
        eng.answer(req.player, req.kind, answers[req.player])
    return eng


def check_one_advance(stack: Any, game_id: int, answers: dict[str, Any], task_log: TaskLog) -> None:
    eng = check_game(stack.db, game_id)  # windows once each, log == stored answers, events contiguous
    expected = expected_after_first_window(game_id, stack, answers)
    with stack.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        assert game.version == 2
        assert game.state == expected.to_json()
        numbers = session.execute(select(Window.number, Window.status).where(Window.game_id == game_id)).all()
        assert sorted(numbers) == [(1, "closed"), (2, "open")]
        seqs = session.execute(select(Event.seq).where(Event.game_id == game_id)).scalars().all()
        assert sorted(seqs) == list(range(len(expected.events)))
    assert eng.window_no == expected.window_no == 2
    assert len(game.state["log"]) == 6
    assert {e["player"]: e["answer"] for e in game.state["log"]} == answers
    # every advance task ran; exactly one of them changed anything
    assert len(task_log.of(ADVANCE)) >= 1


def test_twenty_threads_answer_every_seat_of_a_six_player_window_at_once(
    stack: Any, worker: Any, task_log: TaskLog
) -> None:
    app, queue, game_id, tokens, requests = start(stack, seed=11)
    colour = {token: requests[token]["player"] for token in tokens}
    answer = {token: requests[token]["options"][i % len(requests[token]["options"])] for i, token in enumerate(tokens)}
    jobs = [(tokens[i % 6], {"kind": "place", "window": 1, "answer": answer[tokens[i % 6]]}) for i in range(THREADS)]

    results = post_all(app, jobs)

    statuses = [code for code, _ in results]
    assert set(statuses) <= {200, 409}, results
    accepted = {tokens[i % 6] for i, (code, _) in enumerate(results) if code == 200}
    assert accepted == set(tokens)  # no window closes before all six answered: each seat's first try is taken
    for code, body in results:
        if code == 409:
            assert body["error"].startswith("This decision is closed")
    # the answer that completed the window kicked one advance; the later ones (changes, repeats) none
    assert len(queue.kicks) == 1
    assert sum(1 for code, body in results if code == 200 and body["complete"]) >= 1
    settle(stack, queue, task_log, game_id)
    check_one_advance(stack, game_id, {colour[t]: answer[t] for t in tokens}, task_log)
    with stack.db.session() as session:
        first = session.execute(select(Window).where(Window.game_id == game_id, Window.number == 1)).scalar_one()
        rows = {r.seat.colour: (r.position, r.answer, r.defaulted, r.answered_at is not None) for r in first.requests}
    assert sorted(p for p, *_ in rows.values()) == list(range(6))
    assert {c: rest for c, (_, *rest) in rows.items()} == {colour[t]: [answer[t], False, True] for t in tokens}


def test_twenty_threads_race_to_give_the_last_answer_with_different_choices(
    stack: Any, worker: Any, task_log: TaskLog
) -> None:
    """Five seats have answered; twenty threads send the sixth seat's answer, each a different legal choice, mixed
    with repeats of the others' answers: the answer stored last before the close is the one applied."""
    app, queue, game_id, tokens, requests = start(stack, seed=12)
    colour = {token: requests[token]["player"] for token in tokens}
    last, others = tokens[-1], tokens[:-1]
    answers = {colour[t]: requests[t]["options"][0] for t in others}
    client = app.test_client()
    for token in others:
        reply = client.post(f"/api/seat/{token}/answer", json={"kind": "place", "answer": answers[colour[token]]})
        assert reply.status_code == 200 and reply.json["complete"] is False
    assert queue.kicks == []
    options = requests[last]["options"]
    assert len(options) >= 2
    jobs = [(last, {"kind": "place", "window": 1, "answer": options[i % len(options)]}) for i in range(15)]
    jobs += [(t, {"kind": "place", "window": 1, "answer": answers[colour[t]]}) for t in others]

    results = post_all(app, jobs)

    assert {code for code, _ in results} <= {200, 409}, results
    taken = [jobs[i][1]["answer"] for i, (code, _) in enumerate(results[:15]) if code == 200]
    assert taken, results
    for (token, _), (code, body) in zip(jobs[15:], results[15:], strict=True):
        assert code == 409 or body["changed"] is False, (token, body)  # a repeat is a no-op
    # the answer that completed the window kicked one advance; the later ones (changes, repeats) none
    assert len(queue.kicks) == 1
    assert sum(1 for code, body in results if code == 200 and body["complete"]) >= 1
    settle(stack, queue, task_log, game_id)
    with stack.db.session() as session:
        first = session.execute(select(Window).where(Window.game_id == game_id, Window.number == 1)).scalar_one()
        stored = {r.seat.colour: r.answer for r in first.requests}
    assert stored[colour[last]] in taken
    answers[colour[last]] = stored[colour[last]]
    assert stored == answers
    check_one_advance(stack, game_id, answers, task_log)
