"""B-INFO / H-2 / H-6: the public "still deciding" list (seat page and its players' strips, JSON seat view,
organiser page, the API's game status) names only those who have not answered, and never who is asked in a card
window: only players holding a card they may play are asked there, so naming them would tell who holds a Threat, a
Camera or a Weapon."""

from __future__ import annotations

import re
from typing import Any

import pytest

from server.models import Game
from server.services.links import seat_token
from server.services.play import turns
from server.services.tempo import quiet_of, window_deadline
from tests.conftest import Stack
from tests.support import AUTH, T0, create_tagged, engine_of, log_in_as_organiser, open_window, play_window, seat_ids


def token_of(stack: Stack, seat_id: int) -> str:
    return seat_token(stack.settings.secret_key, seat_id, 1)


def public_lists(stack: Stack, game_id: int, tokens: dict[str, str]) -> dict[str, Any]:
    """Every public list of who still decides, as each reader gets it."""
    client = stack.client
    status = client.get(f"/api/games/{game_id}", headers=AUTH).json
    assert status is not None
    log_in_as_organiser(client)
    page = client.get(f"/o/games/{game_id}").get_data(as_text=True)
    with client.session_transaction() as session:
        session.clear()
    owed_section = page.split('<ul class="owed">', 1)[1].split("</ul>", 1)[0] if 'class="owed"' in page else ""
    out: dict[str, Any] = {
        "api": (status["owed"], status["answered"]),
        "organiser": re.findall(r"<li>(.*?)</li>", owed_section, re.S),
    }
    for colour, token in tokens.items():
        view = client.get(f"/api/seat/{token}").json
        assert view is not None
        seat_page = client.get(f"/s/{token}").get_data(as_text=True)
        still = re.search(r'<p class="waiting">(.*?)</p>', seat_page, re.S)
        out[colour] = (view["view"]["waiting_for"], still.group(1) if still else None, marks(seat_page))
    return out


def marks(page: str) -> dict[str, str]:
    """The players' strips marked "still deciding" or "answered" on a seat page: colour -> the mark's class."""
    found = {}
    for strip in re.finditer(r'<div class="player-panel colour-(\w+).*?</li>', page, re.S):
        mark = re.search(r'<span class="panel-status (deciding|answered)">', strip.group(0))
        if mark:
            found[strip[1]] = mark[1]
    return found


def play_to(stack: Stack, game_id: int, wanted: Any) -> None:
    """Play windows (people answering like random bots) until the open window's requests satisfy ``wanted``."""
    now = T0
    for _ in range(200):
        window = open_window(stack.db, game_id)
        assert window is not None, "the game ended first"
        if wanted(window.requests):
            return
        play_window(stack.db, game_id, 11, now)
    pytest.fail("no such window in 200")


@pytest.mark.rule("H-2", "H-6", "VOT-6", "C-3")
def test_a_card_window_names_nobody_it_asked(stack: Stack) -> None:
    """In a card window that asks some seats and not others, every public list is empty, and stays empty when an
    asked seat answers: asked and not asked look alike from outside."""
    game = create_tagged(stack.db, 5, seed=5)
    seats = seat_ids(stack.db, game.game_id)
    play_to(stack, game.game_id, lambda rows: 1 < len(rows) < 5 and all(r.kind == "cards" for r in rows))
    window = open_window(stack.db, game.game_id)
    assert window is not None
    asked = [row.seat.colour for row in window.requests]
    tokens = {colour: token_of(stack, seat_id) for colour, seat_id in seats.items()}

    def nobody(answered: set[str]) -> dict[str, Any]:
        """Nobody named anywhere, nor any strip marked; a seat asked sees only itself, on its own page: still
        deciding until it answers, then answered."""
        mine = {c: "Still deciding: you." if c in asked and c not in answered else None for c in seats}
        own = {c: {c: "answered" if c in answered else "deciding"} if c in asked else {} for c in seats}
        return {"api": ([], []), "organiser": [], **{colour: ([], mine[colour], own[colour]) for colour in seats}}

    assert public_lists(stack, game.game_id, tokens) == nobody(set())

    row = window.requests[0]
    turns.submit_answer(stack.db, row.seat_id, "cards", [], window_number=window.number, now=T0)
    # still open (others asked): nothing changed for anyone else
    assert public_lists(stack, game.game_id, tokens) == nobody({row.seat.colour})
    for colour in seats:  # the seat's own request is on its own page only
        page = stack.client.get(f"/s/{tokens[colour]}").get_data(as_text=True)
        assert ("Choose your answer" in page) == (colour in asked)  # the one who answered may change it


@pytest.mark.rule("H-1", "VOT-3")
def test_still_deciding_names_only_those_who_have_not_answered(stack: Stack) -> None:
    """A vote: once a voter has answered, no public list names them any more (nor their vote)."""
    game = create_tagged(stack.db, 5, seed=5)
    seats = seat_ids(stack.db, game.game_id)
    play_to(stack, game.game_id, lambda rows: len(rows) >= 3 and all(r.kind == "vote" for r in rows))
    window = open_window(stack.db, game.game_id)
    assert window is not None
    voters = [row.seat.colour for row in window.requests]
    first = window.requests[0]
    eng = engine_of(stack.db, game.game_id)
    vote = next(r for r in eng.pending() if r.player == first.seat.colour).options[0]
    turns.submit_answer(stack.db, first.seat_id, "vote", vote, window_number=window.number, now=T0)

    tokens = {colour: token_of(stack, seat_id) for colour, seat_id in seats.items()}
    lists = public_lists(stack, game.game_id, tokens)
    waiting = voters[1:]
    assert [o["colour"] for o in lists["api"][0]] == waiting
    assert lists["api"][1] == [first.seat.colour]
    for colour in seats:
        assert [w["player"] for w in lists[colour][0]] == waiting
        assert lists[colour][1] is not None and first.seat.colour.capitalize() not in lists[colour][1]
        # the strips: the voter who answered is marked so on every page, the others still deciding
        assert lists[colour][2] == {first.seat.colour: "answered", **{c: "deciding" for c in waiting}}
    # every vote in (or the vote decided): nobody is named either way, in the seat views or on the strips (H-6: a
    # vote its player's standing answers gave counts as not in until then)
    for row in window.requests[1:]:
        if turns.submit_answer(stack.db, row.seat_id, "vote", vote, window_number=window.number, now=T0).complete:
            break
    lists = public_lists(stack, game.game_id, tokens)
    for colour in seats:
        assert lists[colour][0] == [] and lists[colour][2] == {}


@pytest.mark.rule("H-2", "H-6")
def test_a_card_windows_deadline_does_not_tell_who_is_asked(stack: Stack) -> None:
    """A deadline kept out of the quiet hours of the players asked would tell, in a card window, who they are: it is
    kept out of every player's quiet hours instead, whoever is asked."""
    hours = [("00:00", "05:00"), ("05:00", "10:00"), ("10:00", "15:00"), ("15:00", "20:00"), None]
    prefs = {i: {"quiet_start": q[0], "quiet_end": q[1]} for i, q in enumerate(hours) if q is not None}
    game = create_tagged(stack.db, 5, seed=5, prefs=prefs)
    play_to(stack, game.game_id, lambda rows: 1 < len(rows) < 5 and all(r.kind == "cards" for r in rows))
    window = open_window(stack.db, game.game_id)
    assert window is not None
    with stack.db.session() as session:
        game_row = session.get(Game, game.game_id)
        assert game_row is not None
        everyone = [q for seat in game_row.seats if seat.player and (q := quiet_of(seat.player))]
        tempo = game_row.tempo
    assert len(everyone) == 4
    assert window.deadline == window_deadline(window.opened_at, ["cards"], tempo, everyone)
