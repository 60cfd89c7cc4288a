"""Twenty threads send the last answers of one window at once, by HTTP, with a real worker: the window is advanced
exactly once and no accepted answer is lost."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from celery import Celery
from flask import Flask
from sqlalchemy import func, select

import engine
from server.models import Game, Outbox
from server.run.queue import ADVANCE
from server.services.play import games
from server.web.app import create_app
from tests.conftest import Stack
from tests.support import Recorder, api_game, check_game, every_window, open_window, people, stored_events

from ..waiting import wait_for
from .conftest import TaskLog

THREADS = 20


@dataclass
class Started:
    """A 6-player game created by the API of an app whose tasks are recorded (and sent on to the real queue)."""

    app: Flask
    tasks: Recorder
    game_id: int
    #: the seats' tokens, in seat order
    tokens: list[str]
    #: token -> the seat's open request
    requests: dict[str, dict[str, Any]]

    def colour(self, token: str) -> str:
        return str(self.requests[token]["player"])


def start(stack: Stack, seed: int) -> Started:
    """A 6-player batched game by the API; its first window asks all six to place a character at once."""
    tasks = Recorder(stack.settings)
    app = create_app(stack.settings, stack.db.with_tasks(tasks))
    app.config["TESTING"] = True
    made = api_game(app.test_client(), people(6), seed=seed)
    tokens = list(made.tokens.values())
    requests = {}
    for token in tokens:
        view = app.test_client().get(f"/api/seat/{token}").json
        assert view is not None and view["window"]["number"] == 1
        requests[token] = view["window"]["request"]
    assert sorted(r["kind"] for r in requests.values()) == ["place"] * 6
    return Started(app, tasks, made.id, tokens, requests)


def post_all(app: Flask, jobs: list[tuple[str, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """Send every (token, body) from its own thread and client, all released at the same instant."""
    barrier = threading.Barrier(len(jobs))

    def post(job: tuple[str, dict[str, Any]]) -> tuple[int, dict[str, Any]]:
        token, body = job
        client = app.test_client()
        barrier.wait(timeout=30)
        reply = client.post(f"/api/seat/{token}/answer", json=body)
        assert reply.json is not None
        return reply.status_code, reply.json

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        return list(pool.map(post, jobs))


def window_number(stack: Stack, game_id: int) -> int | None:
    window = open_window(stack.db, game_id)
    return None if window is None else window.number


def settle(stack: Stack, started: Started, task_log: TaskLog) -> None:
    """Wait until window 1 is closed and the worker has run every advance asked for and every mail queued."""
    wait_for(lambda: window_number(stack, started.game_id) == 2, 30, "window 2 to open")
    task_log.wait(ADVANCE, len(started.tasks.advanced))

    def unsent() -> int:
        with stack.db.session() as session:
            waiting = Outbox.status.in_(("pending", "sending"))
            query = select(func.count()).select_from(Outbox).where(Outbox.game_id == started.game_id, waiting)
            return int(session.execute(query).scalar_one())

    wait_for(lambda: unsent() == 0, 30, "every mail of the game to be sent")  # one SEND task per transaction
    assert len(task_log.of(ADVANCE)) == len(started.tasks.advanced)


def expected_after_first_window(stack: Stack, game_id: int, answers: dict[str, Any]) -> engine.Game:
    """The same game played by the engine alone: the six answers applied once, in the window's order."""
    with stack.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        seed, options = game.seed, game.options
    eng = engine.new_game(games.colours_for(6), seed=seed, options=options)
    for req in eng.pending():
        eng.answer(req.player, req.kind, answers[req.player])
    return eng


def check_one_advance(stack: Stack, game_id: int, answers: dict[str, Any]) -> None:
    """The window was applied once, with exactly ``answers`` (colour -> answer)."""
    eng = check_game(stack.db, game_id)  # windows once each, log == stored answers, events contiguous
    expected = expected_after_first_window(stack, game_id, answers)
    with stack.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        assert game.version == 2
        assert game.state == expected.to_json()
        windows, _requests = every_window(session, game)
        assert [(w.number, w.status) for w in windows] == [(1, "closed"), (2, "open")]
        assert stored_events(session, game_id) == json.loads(json.dumps(expected.events))
        log = game.state["log"]
    assert eng.window_no == expected.window_no == 2
    assert len(log) == 6
    assert {e["player"]: e["answer"] for e in log} == answers


def first_window_rows(stack: Stack, game_id: int) -> dict[str, tuple[int, Any, bool, bool]]:
    """colour -> (position, answer, defaulted, answered) of window 1's requests (closed: the game's archive)."""
    with stack.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        colours = {seat.id: seat.colour for seat in game.seats}
        _windows, requests = every_window(session, game)
    return {
        colours[r.seat_id]: (r.position, r.answer, r.defaulted, r.answered_at is not None)
        for number, r in requests
        if number == 1
    }


def test_twenty_threads_answer_every_seat_of_a_six_player_window_at_once(
    stack: Stack, worker: Celery, task_log: TaskLog
) -> None:
    started = start(stack, seed=11)
    tokens, requests = started.tokens, started.requests
    answer = {token: requests[token]["options"][i % len(requests[token]["options"])] for i, token in enumerate(tokens)}
    jobs = [(tokens[i % 6], {"kind": "place", "window": 1, "answer": answer[tokens[i % 6]]}) for i in range(THREADS)]

    results = post_all(started.app, jobs)

    statuses = [code for code, _ in results]
    assert set(statuses) <= {200, 409}, results
    accepted = {tokens[i % 6] for i, (code, _) in enumerate(results) if code == 200}
    assert accepted == set(tokens)  # no window closes before all six answered: each seat's first try is taken
    for code, body in results:
        if code == 409:
            assert body["error"].startswith("This decision is closed")
    # the answer that completed the window asked for one advance; the later ones (changes, repeats) none
    assert len(started.tasks.advanced) == 1
    assert sum(1 for code, body in results if code == 200 and body["complete"]) >= 1
    settle(stack, started, task_log)
    check_one_advance(stack, started.game_id, {started.colour(t): answer[t] for t in tokens})
    rows = first_window_rows(stack, started.game_id)
    assert sorted(position for position, *_ in rows.values()) == list(range(6))
    assert {c: rest for c, (_, *rest) in rows.items()} == {started.colour(t): [answer[t], False, True] for t in tokens}


def test_twenty_threads_race_to_give_the_last_answer_with_different_choices(
    stack: Stack, worker: Celery, task_log: TaskLog
) -> None:
    """Five seats have answered; twenty threads send the sixth seat's answer, each a different legal choice, mixed
    with repeats of the others' answers: the answer stored last before the close is the one applied."""
    started = start(stack, seed=12)
    last, others = started.tokens[-1], started.tokens[:-1]
    answers = {started.colour(t): started.requests[t]["options"][0] for t in others}
    client = started.app.test_client()
    for token in others:
        reply = client.post(
            f"/api/seat/{token}/answer", json={"kind": "place", "answer": answers[started.colour(token)]}
        )
        assert reply.status_code == 200 and reply.json is not None and reply.json["complete"] is False
    assert started.tasks.advanced == []
    options = started.requests[last]["options"]
    assert len(options) >= 2
    jobs = [(last, {"kind": "place", "window": 1, "answer": options[i % len(options)]}) for i in range(15)]
    jobs += [(t, {"kind": "place", "window": 1, "answer": answers[started.colour(t)]}) for t in others]

    results = post_all(started.app, jobs)

    assert {code for code, _ in results} <= {200, 409}, results
    taken = [jobs[i][1]["answer"] for i, (code, _) in enumerate(results[:15]) if code == 200]
    assert taken, results
    for (token, _), (code, body) in zip(jobs[15:], results[15:], strict=True):
        assert code == 409 or body["changed"] is False, (token, body)  # a repeat is a no-op
    # the answer that completed the window asked for one advance; the later ones (changes, repeats) none
    assert len(started.tasks.advanced) == 1
    assert sum(1 for code, body in results if code == 200 and body["complete"]) >= 1
    settle(stack, started, task_log)
    stored = {colour: answer for colour, (_, answer, _, _) in first_window_rows(stack, started.game_id).items()}
    assert stored[started.colour(last)] in taken
    answers[started.colour(last)] = stored[started.colour(last)]
    assert stored == answers
    check_one_advance(stack, started.game_id, answers)
