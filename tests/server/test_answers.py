"""Answers: checked by the engine, stored, changeable until the window closes, secret until then, refused when
stale; timeouts apply the H-4 defaults; bots answer by themselves. No worker: the services are called directly
(with an injected clock) and through the Flask client."""

from __future__ import annotations

import html
import json
import re
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

import pytest
import sqlalchemy as sa
from werkzeug.test import TestResponse

import engine
from engine.bots import SensibleBot
from server.db import Database
from server.models import Game, Window
from server.services.play import archive, games, seats, turns
from server.text.grammar import commands_for, parse_reply
from tests.conftest import Stack
from tests.server.test_seat_page import decision_form
from tests.support import (
    AUTH,
    all_rows,
    api_game,
    counting,
    engine_of,
    open_window,
    recording,
    request_in,
    seat_ids,
    stop_signing_clock,
    stored_events,
    without_who_decides,
)

PEOPLE = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"]
CLOSED = "This decision is closed: the game has moved on. Open your link to see what is new."
MALFORMED = 'Send a JSON object {"kind": ..., "answer": ...} (and optionally "window").'


# --- helpers -----------------------------------------------------------------------------------------------------


def new_game(stack: Stack, players: list[str] = PEOPLE, seed: int = 7) -> tuple[int, dict[str, str]]:
    """A game created through the API; returns its id and each person's token by colour."""
    game = api_game(stack.client, players, seed)
    return game.id, game.tokens


def decision(db: Database, game_id: int) -> dict[str, Any]:
    """The open window: id, number, deadline, and its requests by colour."""
    window = open_window(db, game_id)
    assert window is not None
    rows = {
        r.seat.colour: {
            "kind": r.kind,
            "options": r.payload["options"],
            "answer": r.answer,
            "answered_at": r.answered_at,
            "defaulted": r.defaulted,
            "bot": r.seat.bot,
        }
        for r in window.requests
    }
    seats = {r.seat.colour: r.seat_id for r in window.requests}
    return {"id": window.id, "number": window.number, "deadline": window.deadline, "requests": rows, "seats": seats}


def request_row(db: Database, window: dict[str, Any], colour: str) -> dict[str, Any]:
    """A seat's request in a window (``decision``), open or closed (``support.request_in``)."""
    row = request_in(db, window["id"], window["seats"][colour])
    return {"answer": row.answer, "answered_at": row.answered_at, "defaulted": row.defaulted}


def time_out_until(
    db: Database, game_id: int, wanted: Callable[[dict[str, Any]], bool], limit: int = 40
) -> dict[str, Any]:
    """Let windows pass their deadlines (H-4 defaults) until the open window satisfies ``wanted``."""
    for _ in range(limit):
        window = decision(db, game_id)
        if wanted(window):
            return window
        assert turns.advance_window(db, window["id"], now=window["deadline"]) is True
    raise AssertionError("no such window")


def legal_answer(db: Database, game_id: int, colour: str) -> tuple[str, Any]:
    """A legal answer for ``colour``'s open request, chosen by the engine's sensible bot."""
    eng = engine_of(db, game_id)
    req = next(r for r in eng.pending() if r.player == colour)
    return req.kind, SensibleBot(3).decide(eng, req)


def post_answer(stack: Stack, token: str, body: Any) -> TestResponse:
    return stack.client.post(f"/api/seat/{token}/answer", json=body)


def two_voters(window: dict[str, Any]) -> bool:
    reqs = window["requests"]
    return len(reqs) == 2 and all(r["kind"] == "vote" for r in reqs.values())


# --- checked, stored, changed, repeated ----------------------------------------------------------------------------


def test_an_illegal_answer_is_refused_with_the_engines_message_and_nothing_is_stored(stack: Stack) -> None:
    game_id, tokens = new_game(stack)
    window = decision(stack.db, game_id)
    illegal = {"character": "pinup", "location": 2}  # location 2 is not among yellow's dice
    with pytest.raises(engine.IllegalAnswer) as expected:
        engine_of(stack.db, game_id).check("yellow", "place", illegal)
    before = all_rows(stack.db)

    reply = post_answer(stack, tokens["yellow"], {"kind": "place", "answer": illegal})

    assert reply.status_code == 422
    assert reply.json == {"ok": False, "error": str(expected.value)}
    assert str(expected.value).startswith("You cannot place a character at 2; the dice allow")
    assert all_rows(stack.db) == before
    assert request_row(stack.db, window, "yellow")["answered_at"] is None

    with pytest.raises(turns.AnswerError) as refused:
        turns.submit_answer(stack.db, seat_ids(stack.db, game_id)["yellow"], "place", "anywhere")
    assert refused.value.status == 422
    assert str(refused.value) == 'A placement must be an object such as {"character": "tough", "location": 3}.'
    assert all_rows(stack.db) == before


def test_an_answer_is_stored_may_be_changed_and_repeating_it_changes_nothing(stack: Stack) -> None:
    game_id, tokens = new_game(stack)
    window = decision(stack.db, game_id)
    first, second = window["requests"]["yellow"]["options"][:2]

    reply = post_answer(stack, tokens["yellow"], {"kind": "place", "answer": first, "window": window["number"]})
    assert reply.status_code == 200
    assert reply.json == {"ok": True, "window": window["number"], "changed": True, "complete": False}
    stored = request_row(stack.db, window, "yellow")
    assert stored["answer"] == first
    assert stack.client.get(f"/api/seat/{tokens['yellow']}").json["window"]["answer"] == first

    reply = post_answer(stack, tokens["yellow"], {"kind": "place", "answer": second})
    assert reply.json == {"ok": True, "window": window["number"], "changed": True, "complete": False}
    assert request_row(stack.db, window, "yellow")["answer"] == second
    assert stack.client.get(f"/api/seat/{tokens['yellow']}").json["window"]["answer"] == second

    before = all_rows(stack.db)
    reply = post_answer(stack, tokens["yellow"], {"kind": "place", "answer": second})
    assert reply.json == {"ok": True, "window": window["number"], "changed": False, "complete": False}
    assert all_rows(stack.db) == before  # not even answered_at moved

    result = turns.submit_answer(stack.db, seat_ids(stack.db, game_id)["yellow"], "place", second)
    assert result == turns.Submitted(window["id"], window["number"], changed=False, complete=False)
    assert all_rows(stack.db) == before


def test_an_answer_is_two_reads_and_one_write_when_it_changes_nothing_loaded_lazily(stack: Stack) -> None:
    """Once the checker is cached, an answer reads the seat with its game's window locked (one statement), then the
    game with the window's rows in one statement (all ``_store`` compares: no lazy load of a column), and writes the
    row only when the answer changes it (issue 29: the ORM's flush gave way to one UPDATE)."""
    game_id, _ = new_game(stack)
    window = decision(stack.db, game_id)
    first, second = window["requests"]["yellow"]["options"][:2]
    yellow = seat_ids(stack.db, game_id)["yellow"]
    turns.submit_answer(stack.db, yellow, "place", first, window_number=window["number"])  # caches the checker

    tables: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        words = statement.split()
        verb = words[0].upper()
        if verb in ("SELECT", "UPDATE", "INSERT", "DELETE"):
            table = words[words.index("FROM") + 1] if verb in ("SELECT", "DELETE") else words[1 + (verb == "INSERT")]
            tables.append(f"{verb} {table}")

    sa.event.listen(stack.db.engine, "before_cursor_execute", record)
    try:
        for answer, changed in ((first, False), (second, True), (second, False)):
            tables.clear()
            result = turns.submit_answer(stack.db, yellow, "place", answer, window_number=window["number"])
            assert result.changed is changed
            reads = ["SELECT seats", "SELECT games"]  # (the seats joined with their window, the games with its rows)
            assert tables == reads + (["UPDATE requests"] if changed else [])
    finally:
        sa.event.remove(stack.db.engine, "before_cursor_execute", record)
    assert request_row(stack.db, window, "yellow")["answer"] == second


def test_the_last_owed_answer_completes_the_window_and_asks_for_one_advance(stack: Stack) -> None:
    game_id, _ = new_game(stack)
    window = decision(stack.db, game_id)
    seats = seat_ids(stack.db, game_id)
    db, tasks = recording(stack.db)
    results = []
    for colour in ("yellow", "red", "blue"):
        option = window["requests"][colour]["options"][0]
        results.append(turns.submit_answer(db, seats[colour], "place", option))
        assert tasks.advanced == ([window["id"]] if colour == "blue" else [])  # asked for once the last one is in
    assert [r.complete for r in results] == [False, False, True]
    # repeating the last answer is a no-op: the window is still complete, and its advance is not asked for again
    again = turns.submit_answer(db, seats["blue"], "place", window["requests"]["blue"]["options"][0])
    assert (again.changed, again.complete) == (False, True)
    assert tasks.advanced == [window["id"]]


# --- refused: closed windows, stale forms, wrong kinds -------------------------------------------------------------


def test_answers_are_refused_once_the_window_is_closed(stack: Stack) -> None:
    game_id, tokens = new_game(stack)
    window = decision(stack.db, game_id)
    option = window["requests"]["yellow"]["options"][0]
    assert post_answer(stack, tokens["yellow"], {"kind": "place", "answer": option}).status_code == 200

    assert turns.advance_window(stack.db, window["id"], now=window["deadline"]) is True
    closed = request_row(stack.db, window, "yellow")
    before = all_rows(stack.db)

    other = window["requests"]["yellow"]["options"][1]
    reply = post_answer(stack, tokens["yellow"], {"kind": "place", "answer": other, "window": window["number"]})
    assert reply.status_code == 409
    assert reply.json == {"ok": False, "error": CLOSED}
    with pytest.raises(turns.AnswerError) as refused:
        turns.submit_answer(
            stack.db, seat_ids(stack.db, game_id)["yellow"], "place", other, window_number=window["number"]
        )
    assert refused.value.status == 409
    assert str(refused.value) == CLOSED
    assert all_rows(stack.db) == before
    assert request_row(stack.db, window, "yellow") == closed
    assert closed["answer"] == option


def test_a_stale_window_number_is_refused_even_when_the_same_kind_is_asked_again(stack: Stack) -> None:
    game_id, tokens = new_game(stack)
    old = decision(stack.db, game_id)
    assert turns.advance_window(stack.db, old["id"], now=old["deadline"]) is True
    new = decision(stack.db, game_id)
    assert new["number"] == old["number"] + 1
    assert new["requests"]["yellow"]["kind"] == "place"  # the old form's kind would fit the new request
    option = new["requests"]["yellow"]["options"][0]
    before = all_rows(stack.db)

    reply = post_answer(stack, tokens["yellow"], {"kind": "place", "answer": option, "window": old["number"]})
    assert reply.status_code == 409
    assert reply.json["error"] == CLOSED
    future = post_answer(stack, tokens["yellow"], {"kind": "place", "answer": option, "window": new["number"] + 1})
    assert future.status_code == 409
    assert all_rows(stack.db) == before

    reply = post_answer(stack, tokens["yellow"], {"kind": "place", "answer": option, "window": new["number"]})
    assert reply.status_code == 200
    assert reply.json["window"] == new["number"]


class AdvanceBeforeTheLock:
    """Advances a window from another thread just before this thread's next statement reading the ``windows`` table
    (the submit's seat and window lock): an answer racing an advance, made to happen every time. On SQLite the
    answer's transaction holds the write lock from its BEGIN, so the advance has to wait for it (``done`` stays
    False)."""

    def __init__(self, db: Database, window: dict[str, Any]) -> None:
        self.db, self.window = db, window
        self.owner = threading.get_ident()
        self.thread: threading.Thread | None = None
        self.done = False
        self.advanced: list[bool] = []

    def __call__(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if threading.get_ident() != self.owner or self.thread is not None:
            return
        if not re.search(r"(FROM|JOIN) windows", statement):
            return
        self.thread = threading.Thread(target=self._advance)
        self.thread.start()
        self.thread.join(timeout=2 if self.db.is_sqlite else 30)
        self.done = not self.thread.is_alive()

    def _advance(self) -> None:
        self.advanced.append(turns.advance_window(self.db, self.window["id"], now=self.window["deadline"]))

    def finish(self) -> None:
        assert self.thread is not None
        self.thread.join(timeout=60)
        assert self.advanced == [True]


@pytest.mark.parametrize("names_window", [False, True])
def test_an_answer_racing_an_advance_is_checked_under_the_window_lock(
    stack: Stack, monkeypatch: pytest.MonkeyPatch, names_window: bool
) -> None:
    """An answer built for window N arrives while N advances to N+1 (also a placement), the advance made by a worker
    (its engine cache is not this process's). Everything the answer is checked against is read under the open
    window's lock: on PostgreSQL the advance commits first and the answer is refused (with its window: closed;
    without: it binds to N+1, whose state refuses it); on SQLite the advance waits, and the answer is N's."""
    game_id, tokens = new_game(stack)
    old = decision(stack.db, game_id)
    assert engine_of(stack.db, game_id).window_no == old["number"]  # this process's cache holds N's state
    monkeypatch.setattr(turns.CACHE, "put", lambda *_args: None)  # the advance's process keeps its own
    stale = old["requests"]["yellow"]["options"][0]  # yellow's dice change: no option of N is legal in N+1
    body = {"kind": "place", "answer": stale} | ({"window": old["number"]} if names_window else {})
    race = AdvanceBeforeTheLock(stack.db, old)
    sa.event.listen(stack.db.engine, "before_cursor_execute", race)
    try:
        reply = post_answer(stack, tokens["yellow"], body)
    finally:
        sa.event.remove(stack.db.engine, "before_cursor_execute", race)
    race.finish()
    new = decision(stack.db, game_id)
    assert new["number"] == old["number"] + 1
    assert new["requests"]["yellow"]["answered_at"] is None  # never taken as an answer to N+1
    if stack.name == "embedded":
        assert not race.done  # the advance waited for the answer's transaction
        assert (reply.status_code, reply.json["window"]) == (200, old["number"])
        assert request_row(stack.db, old, "yellow") | {"answered_at": None} == {
            "answer": stale,
            "answered_at": None,
            "defaulted": False,
        }
        return
    assert race.done  # the advance committed between the seat's read and the window's lock
    with pytest.raises(engine.IllegalAnswer) as illegal:
        engine_of(stack.db, game_id).check("yellow", "place", stale)
    expected = (409, CLOSED) if names_window else (422, str(illegal.value))
    assert (reply.status_code, reply.json["error"]) == expected
    assert request_row(stack.db, old, "yellow")["defaulted"] is True


def test_a_wrong_kind_is_refused(stack: Stack) -> None:
    game_id, tokens = new_game(stack)
    window = decision(stack.db, game_id)
    before = all_rows(stack.db)
    reply = post_answer(stack, tokens["yellow"], {"kind": "vote", "answer": "red"})
    assert reply.status_code == 409
    assert reply.json == {"ok": False, "error": "You are asked for a place now, not a vote."}
    with pytest.raises(turns.AnswerError) as refused:
        turns.submit_answer(
            stack.db, seat_ids(stack.db, game_id)["yellow"], "move", {"character": "pinup"}, window_number=1
        )
    assert (refused.value.status, str(refused.value)) == (409, "You are asked for a place now, not a move.")
    assert all_rows(stack.db) == before
    assert window["requests"]["yellow"]["answered_at"] is None


def test_a_player_with_nothing_to_decide_is_told_so(stack: Stack) -> None:
    game_id, tokens = new_game(stack)
    window = time_out_until(stack.db, game_id, two_voters)
    (idle,) = {"yellow", "red", "blue"} - set(window["requests"])
    before = all_rows(stack.db)
    reply = post_answer(stack, tokens[idle], {"kind": "vote", "answer": "red"})
    assert reply.status_code == 409
    assert reply.json == {"ok": False, "error": "There is nothing for you to decide right now."}
    assert all_rows(stack.db) == before


# --- secrecy -----------------------------------------------------------------------------------------------------


def test_nobody_sees_another_players_answer_before_the_window_closes(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    stop_signing_clock(monkeypatch)  # the pages' CSRF tokens are the same on every rendering: compared too
    # the vote waits for both voters (a first vote that decided it would close it: test_decided_votes.py)
    game = api_game(stack.client, PEOPLE, 7, close_decided_votes=False)
    game_id, tokens = game.id, game.tokens
    window = time_out_until(stack.db, game_id, two_voters)
    first, second = sorted(window["requests"])
    (idle,) = {"yellow", "red", "blue"} - {first, second}
    client = stack.client

    def seen_by(colour: str) -> tuple[bytes, bytes]:
        return client.get(f"/api/seat/{tokens[colour]}").data, client.get(f"/s/{tokens[colour]}").data

    def unlisted(seen: tuple[bytes, bytes]) -> tuple[Any, str]:
        """What a seat sees but the lists of who still decides and who answered (public: a player who answered moves
        from one to the other, H-1)."""
        data = json.loads(seen[0])
        del data["view"]["waiting_for"], data["answered"]
        return data, without_who_decides(seen[1].decode())

    before = {colour: seen_by(colour) for colour in (second, idle)}
    vote = window["requests"][first]["options"][-1]
    assert post_answer(stack, tokens[first], {"kind": "vote", "answer": vote}).status_code == 200
    # what they saw before, but that the first has answered: never the vote
    answered = {colour: seen_by(colour) for colour in (second, idle)}
    for colour in (second, idle):
        assert unlisted(answered[colour]) == unlisted(before[colour])
    changed_vote = window["requests"][first]["options"][0]
    assert post_answer(stack, tokens[first], {"kind": "vote", "answer": changed_vote}).status_code == 200
    # byte for byte: changing an answer shows nowhere
    for colour in (second, idle):
        assert seen_by(colour) == answered[colour]
    mine = client.get(f"/api/seat/{tokens[first]}").json
    assert mine["window"]["answer"] == changed_vote

    other_vote = window["requests"][second]["options"][0]
    done = post_answer(stack, tokens[second], {"kind": "vote", "answer": other_vote})
    assert done.json["complete"] is True
    assert turns.advance_window(stack.db, window["id"]) is True  # complete: no need to wait for the deadline

    # closed: the votes are public events, seen by everyone, including the player who did not vote
    expected = {first: changed_vote, second: other_vote}
    with stack.db.session() as session:
        revealed = [e for e in stored_events(session, game_id) if e["type"] == "votes_revealed"]
        public = [e["votes"] for e in revealed if "to" not in e]
    assert expected in public
    for colour in (first, second, idle):
        events = client.get(f"/api/seat/{tokens[colour]}").json["view"]["events"]
        assert expected in [e["votes"] for e in events if e["type"] == "votes_revealed"]


def test_votes_are_not_in_any_other_seats_view_while_open(stack: Stack) -> None:
    game_id, tokens = new_game(stack)
    window = time_out_until(stack.db, game_id, two_voters)
    first, second = sorted(window["requests"])
    vote = window["requests"][first]["options"][-1]
    revealed_before = [
        e
        for e in stack.client.get(f"/api/seat/{tokens[second]}").json["view"]["events"]
        if e["type"] == "votes_revealed"
    ]
    sent = post_answer(stack, tokens[first], {"kind": "vote", "answer": vote})
    assert sent.status_code == 200
    view = stack.client.get(f"/api/seat/{tokens[second]}").json
    assert view["window"]["answer"] is None
    assert [e for e in view["view"]["events"] if e["type"] == "votes_revealed"] == revealed_before
    # still deciding: the other voter, unless that vote decided it (closed once decided: nobody is named then, as
    # a vote its player's standing answers gave would still count as missing, H-6)
    others = [{"player": c, "kind": "vote"} for c in window["requests"] if c != first]
    assert view["view"]["waiting_for"] == ([] if sent.json["complete"] else others)
    assert view["answered"] == ([] if sent.json["complete"] else [first])


# --- a GET never changes anything ---------------------------------------------------------------------------------


def test_gets_never_change_anything_even_past_a_deadline(stack: Stack) -> None:
    game_id, tokens = new_game(stack)
    window = decision(stack.db, game_id)
    option = window["requests"]["red"]["options"][0]
    assert post_answer(stack, tokens["red"], {"kind": "place", "answer": option}).status_code == 200
    with stack.db.session() as session:  # the deadline has passed, and no sweep has run yet
        session.get(Window, window["id"]).deadline = window["deadline"] - timedelta(days=2)
    before = all_rows(stack.db)

    client = stack.client
    for colour, token in tokens.items():
        assert client.get(f"/api/seat/{token}").status_code == 200
        assert client.get(f"/s/{token}").status_code == 200
        assert client.get(f"/s/{token}?saved={window['number']}").status_code == 200
        command = commands_for(window["requests"][colour], client.get(f"/api/seat/{token}").json["view"], "en")[0]
        assert client.get(f"/s/{token}/do?w={window['number']}&c={quote(command)}").status_code == 200  # confirm page
        assert client.get(f"/api/seat/{token}/answer").status_code == 405
        assert client.head(f"/s/{token}").status_code == 200
    assert client.get(f"/api/games/{game_id}", headers=AUTH).status_code == 200
    assert client.get("/healthz").status_code == 200

    assert all_rows(stack.db) == before
    assert decision(stack.db, game_id)["id"] == window["id"]


# --- the HTML form ------------------------------------------------------------------------------------------------


def test_the_html_form_saves_an_answer_and_the_page_then_shows_it(stack: Stack) -> None:
    game_id, tokens = new_game(stack)
    token = tokens["blue"]
    window = decision(stack.db, game_id)
    page = stack.client.get(f"/s/{token}").get_data(as_text=True)
    form = decision_form(page)
    assert form["hidden"]["csrf_token"]
    assert {k: v for k, v in form["hidden"].items() if k != "csrf_token"} == {"w": str(window["number"])}
    view = stack.client.get(f"/api/seat/{token}").json
    request_json = window["requests"]["blue"]
    assert form["radios"] == commands_for(request_json, view["view"], "en")
    assert [parse_reply(c, request_json, view["view"], "en") for c in form["radios"]] == request_json["options"]
    assert form["checked"] == []
    assert "Your answer is saved" not in page

    chosen = form["radios"][-1]
    reply = stack.client.post(f"/s/{token}/do", data={**form["hidden"], "c": chosen})
    assert reply.status_code == 303
    assert reply.headers["Location"] == f"/s/{token}?saved={window['number']}"
    assert request_row(stack.db, window, "blue")["answer"] == request_json["options"][-1]

    shown = stack.client.get(reply.headers["Location"]).get_data(as_text=True)
    assert "Your answer is saved. You may change it until the window closes." in shown
    assert decision_form(shown)["checked"] == [chosen]
    # the notice belongs to that decision: a window blue gave no answer in, or one not open yet, shows none
    for number in (window["number"] - 1, window["number"] + 1, "x", "1" * 12):
        assert "Your answer is saved" not in stack.client.get(f"/s/{token}?saved={number}").get_data(as_text=True)

    # once the window closed with blue's answer in it (here the last one owed), the page says so: the game moved on
    for colour, request_json in window["requests"].items():
        if colour != "blue":
            turns.submit_answer(
                stack.db, seat_ids(stack.db, game_id)[colour], request_json["kind"], request_json["options"][0]
            )
    turns.advance_window(stack.db, window["id"])
    assert decision(stack.db, game_id)["number"] > window["number"]
    moved_on = stack.client.get(reply.headers["Location"]).get_data(as_text=True)
    assert "Your answer is saved. That decision is closed now and the game has moved on." in moved_on
    assert "You may change it" not in moved_on


def test_the_html_form_refuses_stale_illegal_and_unreadable_posts(stack: Stack) -> None:
    """The seat page's form posts to /s/<token>/do (a window number ``w`` and a reply command ``c``)."""
    game_id, tokens = new_game(stack)
    token = tokens["blue"]
    old = decision(stack.db, game_id)
    stale_form = decision_form(stack.client.get(f"/s/{token}").get_data(as_text=True))
    assert turns.advance_window(stack.db, old["id"], now=old["deadline"]) is True
    current = decision_form(stack.client.get(f"/s/{token}").get_data(as_text=True))
    assert current["radios"], "blue owes nothing in the second window"
    before = all_rows(stack.db)

    def refused(fields: dict[str, str], status: int, says: str) -> None:
        reply = stack.client.post(f"/s/{token}/do", data=fields)
        assert reply.status_code == status, fields
        assert says in html.unescape(reply.get_data(as_text=True)), fields

    closed = "This decision is closed: the game has moved on. Nothing was changed."
    # the form of a closed decision, and window numbers that are not the open one's
    refused({**stale_form["hidden"], "c": stale_form["radios"][0]}, 409, closed)
    for number in ("", "two", str(old["number"] + 2)):
        refused({**current["hidden"], "w": number, "c": current["radios"][0]}, 409, closed)
    # commands that are not an answer to the open request, and fields that hold none
    for command in ("DANCE", "VOTE RED", "PLACE PINUP 9"):
        refused({**current["hidden"], "c": command}, 400, f"“{command}” is not an answer you can give now.")
    for command in ("", "   ", "X" * 400, current["radios"][0] + "\nVOTE RED"):
        refused({**current["hidden"], "c": command}, 400, "This link does not hold an answer.")
    refused({k: v for k, v in current["hidden"].items() if k != "c"}, 400, "This link does not hold an answer.")
    # without the CSRF token: refused before anything is read
    without_token = {"w": current["hidden"]["w"], "c": current["radios"][0]}
    refused(without_token, 400, "This form has expired or did not come from this site.")
    assert all_rows(stack.db) == before
    # the open decision's form is taken (the refusals above were about what they said)
    assert stack.client.post(f"/s/{token}/do", data={**current["hidden"], "c": current["radios"][0]}).status_code == 303


# --- malformed bodies ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"not json", "The body is not valid JSON."),
        (b'{"kind": "place", "answer": ', "The body is not valid JSON."),
        (b"[1, 2, 3]", MALFORMED),
        (b'"place"', MALFORMED),
        (b"null", MALFORMED),
        (b'{"kind": "place"}', MALFORMED),
        (b'{"answer": {"character": "tough", "location": 1}}', MALFORMED),
        (b'{"kind": "place", "answer": 1, "window": "1"}', "window must be the window number of your request."),
        (b'{"kind": "place", "answer": 1, "window": true}', "window must be the window number of your request."),
        (b'{"kind": "place", "answer": 1, "window": 1.0}', "window must be the window number of your request."),
    ],
)
def test_a_malformed_body_is_a_400_with_a_message_and_changes_nothing(
    embedded: Stack, body: bytes, message: str
) -> None:
    stack = embedded
    _, tokens = new_game(stack)
    before = all_rows(stack.db)
    reply = stack.client.post(f"/api/seat/{tokens['yellow']}/answer", data=body, content_type="application/json")
    assert reply.status_code == 400
    assert reply.json == {"ok": False, "error": message}
    assert all_rows(stack.db) == before


@pytest.mark.parametrize("kind", [5, None, ["place"]])
def test_a_kind_that_is_not_a_string_is_a_malformed_body(embedded: Stack, kind: Any) -> None:
    stack = embedded
    _, tokens = new_game(stack)
    before = all_rows(stack.db)
    reply = post_answer(stack, tokens["yellow"], {"kind": kind, "answer": {"character": "tough", "location": 1}})
    assert reply.status_code == 400, reply.json
    assert reply.json["ok"] is False
    assert "kind" in reply.json["error"]
    assert all_rows(stack.db) == before


def test_huge_strings_get_a_short_message_and_change_nothing(stack: Stack) -> None:
    game_id, tokens = new_game(stack)
    token = tokens["yellow"]
    before = all_rows(stack.db)

    huge_answer = post_answer(stack, token, {"kind": "place", "answer": "x" * 60_000})
    assert huge_answer.status_code == 422
    assert huge_answer.json["error"] == 'A placement must be an object such as {"character": "tough", "location": 3}.'

    huge_field = post_answer(stack, token, {"kind": "place", "answer": {"character": "y" * 60_000, "location": 1}})
    assert huge_field.status_code == 422
    assert len(huge_field.json["error"]) < 300
    assert "y" * 41 not in huge_field.json["error"]

    huge_kind = post_answer(stack, token, {"kind": "k" * 60_000, "answer": 1})
    assert huge_kind.status_code == 409
    assert huge_kind.json["error"] == f"You are asked for a place now, not a {'k' * 20}."
    assert all_rows(stack.db) == before
    assert decision(stack.db, game_id)["requests"]["yellow"]["answered_at"] is None


def test_a_body_over_the_size_limit_is_refused_with_a_json_message(stack: Stack) -> None:
    _, tokens = new_game(stack)
    before = all_rows(stack.db)
    reply = post_answer(stack, tokens["yellow"], {"kind": "place", "answer": "x" * 100_000})
    assert reply.status_code == 413
    assert all_rows(stack.db) == before
    assert reply.is_json, reply.get_data(as_text=True)[:200]
    assert reply.json["ok"] is False


# --- deadlines: the H-4 defaults ---------------------------------------------------------------------------------


def test_at_the_deadline_missing_answers_get_the_h4_defaults_and_are_logged_defaulted(stack: Stack) -> None:
    game_id, tokens = new_game(stack)
    window = decision(stack.db, game_id)
    answer = window["requests"]["yellow"]["options"][-1]
    assert post_answer(stack, tokens["yellow"], {"kind": "place", "answer": answer}).status_code == 200
    expected = engine.Game.from_json(engine_of(stack.db, game_id).to_json())  # a copy to play ahead on
    events_before = len(expected.events)
    expected.answer("yellow", "place", answer)
    expected.timeout("red", "place")
    expected.timeout("blue", "place")

    deadline: datetime = window["deadline"]
    assert turns.advance_window(stack.db, window["id"], now=deadline - timedelta(microseconds=1)) is False
    assert decision(stack.db, game_id)["id"] == window["id"]
    assert turns.due_windows(stack.db, deadline - timedelta(seconds=1)) == []
    assert turns.due_windows(stack.db, deadline) == [window["id"]]

    assert turns.advance_window(stack.db, window["id"], now=deadline) is True
    assert turns.advance_window(stack.db, window["id"], now=deadline) is False  # applied once

    assert request_row(stack.db, window, "yellow") == {
        "answer": answer,
        "answered_at": request_row(stack.db, window, "yellow")["answered_at"],
        "defaulted": False,
    }
    for colour in ("red", "blue"):
        assert request_row(stack.db, window, colour) == {"answer": None, "answered_at": None, "defaulted": True}
    with stack.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        assert game.state == expected.to_json()  # the engine's H-4 defaults, exactly
        closed = archive.windows_of(game.archive)[window["number"]]
        assert (closed.id, closed.closed_at) == (window["id"], deadline)
        events = stored_events(session, game_id)[events_before:]
        rows = [(e["type"], {k: v for k, v in e.items() if k not in ("type", "to")}, e.get("to")) for e in events]
    defaulted = [(data, to) for kind, data, to in rows if kind == "answer_defaulted"]
    assert defaulted == [({"player": "red", "kind": "place"}, None), ({"player": "blue", "kind": "place"}, None)]
    assert [r[0] for r in rows] == [e["type"] for e in expected.events[events_before:]]
    nxt = decision(stack.db, game_id)
    assert nxt["number"] == window["number"] + 1
    assert nxt["deadline"] == deadline + timedelta(hours=24)


def test_the_sweep_applies_defaults_only_to_due_windows(stack: Stack) -> None:
    first_id, _ = new_game(stack, seed=7)
    second_id, _ = new_game(stack, players=["Di <di@example.org>", "Ed <ed@example.org>", "Flo <flo@example.org>"])
    early = decision(stack.db, first_id)
    later = decision(stack.db, second_id)
    with stack.db.session() as session:
        session.get(Window, later["id"]).deadline = later["deadline"] + timedelta(hours=1)

    assert turns.sweep_windows(stack.db, now=early["deadline"]) == 1
    assert decision(stack.db, first_id)["number"] == early["number"] + 1
    assert decision(stack.db, second_id)["id"] == later["id"]
    assert turns.sweep_windows(stack.db, now=early["deadline"]) == 0


# --- bots ----------------------------------------------------------------------------------------------------------


def test_bot_seats_answer_by_themselves_and_the_game_waits_only_for_the_human(stack: Stack) -> None:
    game_id, tokens = new_game(stack, players=["bot", "Ann <ann@example.org>", "bot:random"], seed=11)
    (human,) = tokens
    assert human == "red"
    bots_answered = 0
    for _ in range(12):
        window = decision(stack.db, game_id)
        status = games.game_status(stack.db, game_id)
        mine = window["requests"][human]
        # a card window names nobody (B-INFO)
        secret = engine.asked_in_secret(engine.Request(human, engine.Kind(mine["kind"]), mine["options"]))
        assert [o["colour"] for o in status["owed"]] == ([] if secret else [human])
        for colour, req in window["requests"].items():
            if colour != human:
                assert req["bot"] is not None
                assert req["answered_at"] is not None
                bots_answered += 1
        kind, answer = legal_answer(stack.db, game_id, human)
        reply = post_answer(stack, tokens[human], {"kind": kind, "answer": answer, "window": window["number"]})
        assert reply.status_code == 200, reply.json
        assert reply.json["complete"] is True
        assert turns.advance_window(stack.db, window["id"]) is True
    assert bots_answered > 0
    assert games.game_status(stack.db, game_id)["round"] >= 1


def test_an_answer_through_the_api_is_one_transaction_of_at_most_three_statements(stack: Stack) -> None:
    """The counted answer path (issue 29): a POST to /api/seat/<token>/answer, checker cached, is one commit and at
    most three SQL statements (the seat with its locked window, the game with the window's rows, the write), the
    link's check among them (no transaction of its own before the answer's), and loads no ORM object (plain rows:
    the ORM's loading was a third of an answer's CPU); a revoked link is refused in that same transaction."""
    game_id, tokens = new_game(stack)
    window = decision(stack.db, game_id)
    first, second = window["requests"]["yellow"]["options"][:2]
    body = {"kind": "place", "window": window["number"]}
    assert post_answer(stack, tokens["yellow"], {**body, "answer": first}).status_code == 200  # caches the checker
    for answer in (second, first, first):
        with counting(stack.db) as counted:
            assert post_answer(stack, tokens["yellow"], {**body, "answer": answer}).status_code == 200
        assert counted.commits == 1 and counted.statements <= 3 and counted.loaded == 0, counted
    assert seats.rotate_link(stack.db, game_id, "yellow")
    with counting(stack.db) as counted:
        refused = post_answer(stack, tokens["yellow"], {**body, "answer": second})
    assert refused.status_code == 403 and refused.is_json
    assert counted.statements <= 1 and counted.commits == 0  # (the seat read, rolled back)
    assert request_row(stack.db, window, "yellow")["answer"] == first


#: what a seat page and an advance cost today (SQL statements, commits), on SQLite and PostgreSQL: upper bounds a
#: change must not cross (issue 29: a past change doubled an answer's CPU and no check noticed). Lower them when a
#: change makes them cheaper.
SEAT_PAGE = (22, 5)
ADVANCE = {"embedded": (25, 1), "production": (21, 1)}


def test_a_seat_page_and_an_advance_cost_at_most_what_they_cost_today(stack: Stack) -> None:
    """Four windows of a game: each advance (the engine's step, the new window, its rows, the events, the mail
    rows) is one commit and a bounded number of statements; each seat page after it too."""
    game_id, tokens = new_game(stack)
    stack.client.get(f"/s/{tokens['red']}")  # the templates and the checker cached
    for _ in range(4):
        window = decision(stack.db, game_id)
        for colour, request in window["requests"].items():
            body = {"kind": request["kind"], "answer": request["options"][0], "window": window["number"]}
            assert post_answer(stack, tokens[colour], body).status_code == 200
        with counting(stack.db) as advance:
            assert turns.advance_window(stack.db, window["id"]) is True
        most, commits = ADVANCE[stack.name]
        assert advance.statements <= most and advance.commits == commits, advance
        for colour in tokens:
            with counting(stack.db) as page:
                assert stack.client.get(f"/s/{tokens[colour]}").status_code == 200
            assert page.statements <= SEAT_PAGE[0] and page.commits <= SEAT_PAGE[1], (colour, page)
