"""Votes close once decided (the tempo's ``close_decided_votes``), on both databases with an
injected clock: a 5-player game of people reaches a vote of three voters that two of them decide. The window
completes without the third, who is shown as not having voted (not as having missed the deadline) and may no longer
vote; with ``close_decided_votes: false`` the vote waits for the third."""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

import pytest

import engine
from server.db import Database
from server.models import Game
from server.services.play import turns
from server.text.sentences import event_text
from tests.conftest import Stack
from tests.support import T0, api_game, open_window, play_window, recording, request_in, stored_events

PLAYERS = [f"P{i} <p{i}.votes@example.org>" for i in range(5)]


def reach_vote(db: Database, game_id: int) -> tuple[int, int, dict[str, int], list[tuple[str, str]], str]:
    """Play windows (people answering like random bots) until a vote of three voters opens that two of them decide
    by voting alike (the first of the two alone does not). Returns the window's id and number, the voters' seat ids,
    the two votes (colour, voted for) in order, and the third voter's colour."""
    for step in range(400):
        window = open_window(db, game_id)
        assert window is not None, "the game ended before such a vote"
        requests = [r.payload for r in window.requests]
        if len(requests) == 3 and all(r["kind"] == "vote" for r in requests):
            seats = {r.seat.colour: r.seat_id for r in window.requests}
            for (a, b), choice in itertools.product(itertools.permutations(seats, 2), requests[0]["options"]):
                asked = [engine.Request.from_json(r) for r in requests]
                alone = engine.vote_decided(asked, {a: choice})
                if not alone and engine.vote_decided(asked, {a: choice, b: choice}):
                    third = next(c for c in seats if c not in (a, b))
                    return window.id, window.number, seats, [(a, choice), (b, choice)], third
        play_window(db, game_id, seed=step, now=T0 + timedelta(minutes=step))
    raise AssertionError("no vote of three voters decided by two")


def events_of(db: Database, game_id: int, type_: str) -> list[dict[str, Any]]:
    with db.session() as session:
        rows = [e for e in stored_events(session, game_id) if e["type"] == type_]
        return [{"data": {k: v for k, v in e.items() if k not in ("type", "to")}, "to": e.get("to")} for e in rows]


def row_of(db: Database, window_id: int, seat_id: int) -> Any:
    """A seat's request in a window, open or closed (``support.request_in``)."""
    return request_in(db, window_id, seat_id)


@pytest.mark.rule("VOT-4", "H-4")
def test_a_vote_closes_once_two_of_three_voters_decide_it(stack: Stack) -> None:
    """Two votes decide it: the window completes and advances before its deadline; the third voter did not vote
    (a public ``vote_not_cast``, not defaulted) and can neither vote nor make the others change theirs (409)."""
    game = api_game(stack.client, PLAYERS, seed=5)
    with stack.db.session() as session:
        tempo = session.get(Game, game.id).tempo  # type: ignore[union-attr]
    assert tempo["close_decided_votes"] is True  # recorded for a new game
    db, recorder = recording(stack.db)
    window_id, number, seats, (first, second), third = reach_vote(db, game.id)
    at = T0 + timedelta(days=1)
    done = turns.submit_answer(db, seats[first[0]], "vote", first[1], window_number=number, now=at)
    assert not done.complete and window_id not in recorder.advanced
    done = turns.submit_answer(db, seats[second[0]], "vote", second[1], window_number=number, now=at)
    assert done.complete and recorder.advanced.count(window_id) == 1  # its advance is kicked after the commit
    for colour in (third, first[0]):  # a late vote, a change of vote: the vote is closed
        options = row_of(db, window_id, seats[colour]).payload["options"]
        with pytest.raises(turns.AnswerError) as refused:
            turns.submit_answer(db, seats[colour], "vote", options[-1], window_number=number, now=at)
        assert refused.value.status == 409 and refused.value.msgid == turns.VOTE_DECIDED
    assert turns.advance_window(db, window_id, now=at)  # well before the deadline
    missing = row_of(db, window_id, seats[third])
    assert missing.answered_at is None and not missing.defaulted  # not a missed deadline
    assert row_of(db, window_id, seats[first[0]]).answer == first[1]
    (not_cast,) = events_of(db, game.id, "vote_not_cast")
    assert not_cast["data"]["player"] == third and not_cast["to"] is None  # votes are public
    assert [e for e in events_of(db, game.id, "answer_defaulted") if e["data"]["player"] == third] == []
    (revealed, *_) = [e for e in events_of(db, game.id, "votes_revealed") if third in e["data"]["votes"]][-1:]
    assert revealed["data"]["votes"][third] is None
    # the players see it in their language, on the page and in mails (both come from the events)
    said = {lang: event_text(lang, {"type": "vote_not_cast", **not_cast["data"]}, None) for lang in ("en", "it", "pl")}
    assert "did not vote: the vote was already decided" in said["en"]
    assert len(set(said.values())) == 3
    page = stack.client.get(f"/s/{game.tokens[third]}").get_data(as_text=True)
    assert "You did not vote: the vote was already decided." in page
    page = stack.client.get(f"/s/{game.tokens[first[0]]}").get_data(as_text=True)
    assert "did not vote: the vote was already decided." in page


@pytest.mark.rule("VOT-4", "H-4")
def test_with_close_decided_votes_false_a_decided_vote_waits_for_every_voter(stack: Stack) -> None:
    """The organiser turned it off (JSON API): two deciding votes leave the window open until the third votes."""
    game = api_game(stack.client, PLAYERS, seed=5, close_decided_votes=False)
    db, recorder = recording(stack.db)
    window_id, number, seats, (first, second), third = reach_vote(db, game.id)
    at = T0 + timedelta(days=1)
    for colour, choice in (first, second):
        assert not turns.submit_answer(db, seats[colour], "vote", choice, window_number=number, now=at).complete
    assert window_id not in recorder.advanced
    assert not turns.advance_window(db, window_id, now=at)  # not complete, not due
    options = row_of(db, window_id, seats[third]).payload["options"]
    assert turns.submit_answer(db, seats[third], "vote", options[0], window_number=number, now=at).complete
    assert turns.advance_window(db, window_id, now=at)
    assert events_of(db, game.id, "vote_not_cast") == []
