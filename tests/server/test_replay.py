"""The after-game replay: games played to the end through the services (random answers, some deadlines missed),
then every event of the engine's full log shown round by round with who saw it, the answers revealed, the board at
the end of each round, a running game refused with nothing revealed, round links, languages and forged links."""

from __future__ import annotations

import datetime as dt
import html
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from markupsafe import escape

import engine
from engine.data import CARD_NAMES, characters_for
from server.db import Database
from server.present import replay
from server.services.links import seat_token
from server.services.play import games, seats, turns
from server.text import glossary, sentences
from server.text.sentences import player_label
from tests.conftest import Stack
from tests.support import T0, create_tagged, engine_of, forged, open_window, play_window, table_names

PUBLIC_KEYS = {"characters", "zombies", "closed", "chief", "chief_elected", "hidden", "players", "round", "phase"}


def finish(db: Database, game_id: int, seed: int, miss_every: int = 0) -> engine.Game:
    """Play the game to its end: people answer like random bots, except every ``miss_every``-th window, where
    nobody answers and the deadline passes (the engine's defaults are used)."""
    now = T0
    for step in range(1, 2000):
        window = open_window(db, game_id)
        if window is None:
            eng = engine_of(db, game_id)
            assert eng.over
            return eng
        now += dt.timedelta(minutes=1)
        if miss_every and step % miss_every == 0:
            now = max(now, window.deadline) + dt.timedelta(seconds=1)
            assert turns.advance_window(db, window.id, now=now) is True
        else:
            play_window(db, game_id, seed=seed * 1000 + step, now=now)
    raise AssertionError("the game did not end")


def link(stack: Stack, game_id: int, colour: str) -> str:
    seat = next(s for s in games.seat_links(stack.db, game_id, stack.settings.secret_key, "") if s["colour"] == colour)
    assert seat["link"] is not None
    return str(seat["link"])


def page(stack: Stack, path: str) -> tuple[int, str]:
    response = stack.client.get(path)
    return response.status_code, response.get_data(as_text=True)


def shown(text: str) -> str:
    """As Jinja's autoescape writes it."""
    return str(escape(text))


def test_the_replay_lists_every_event_in_order_grouped_by_round_with_who_saw_it(embedded: Stack) -> None:
    created = create_tagged(embedded.db, 3, seed=41, bots=1)
    eng = finish(embedded.db, created.game_id, seed=41, miss_every=7)
    full = engine.replay(eng)
    steps = replay.rounds(eng, "en")

    # rounds 0 (setup), 1, 2 … in order; each round but the setup opens with its round_started event
    assert [s.round for s in steps] == list(range(len(steps)))
    assert len(steps) == eng.round + 1 and len(steps) >= 3
    assert all(e.type != "round_started" for e in steps[0].events)
    for step in steps[1:]:
        assert step.events[0].type == "round_started"
        assert full["events"][step.events[0].index]["round"] == step.round

    # every event of the full log, once, in order, private ones too with who saw them, told as the sentences tell it
    flat = [e for s in steps for e in s.events]
    assert [e.index for e in flat] == list(range(len(full["events"])))
    for shown_event, event in zip(flat, full["events"], strict=True):
        assert shown_event.type == event["type"]
        assert shown_event.seen_by == event.get("to")
        public = {k: v for k, v in event.items() if k != "to"}
        told = sentences.event_text("en", public, None)
        if event["type"] == "answer_auto":  # with the answer given, revealed
            answer = sentences.told_answer("en", {"kind": event["kind"]}, event["answer"], event["player"])
            assert shown_event.text == f"{told} {answer}"
        else:
            assert shown_event.text == told
        if event.get("to"):
            names = ", ".join(glossary.colour_name("en", c) for c in event["to"])
            assert shown_event.seen_by_text == f"seen by {names}"
        elif "to" in event:
            assert shown_event.seen_by_text == "seen by nobody until now"
        else:
            assert shown_event.seen_by_text is None
    private = [e for e in flat if e.seen_by]
    assert {e.type for e in private} >= {"card_dealt"}
    assert any(e.type == "answer_defaulted" for e in flat)  # some deadlines were missed

    # the answers: every log entry, in order, in the round whose window it answered (a voter of a vote closed once
    # decided missed no deadline)
    answers = [a for s in steps for a in s.answers]
    assert [(a.player, a.kind, a.timeout) for a in answers] == [
        (x["player"], x["kind"], bool(x.get("timeout")) and not x.get("decided")) for x in full["log"]
    ]
    assert any(a.timeout for a in answers) and any(a.kind == "vote" for a in answers)
    assert [a.window for a in answers] == sorted(a.window for a in answers)
    for step in steps:
        assert all(a.kind == "place" for a in step.answers) if step.round == 0 else True
    # the answers in the third person: "Red voted for Green." (with the table's names: "Ann (Red) voted for …")
    red = glossary.colour_name
    votes = [a for a in answers if a.kind == "vote" and not a.timeout and a.answer is not None]
    assert votes and all(a.text == f"{red('en', a.player)} voted for {red('en', a.answer)}." for a in votes)
    not_cast = [a for a in answers if a.kind == "vote" and not a.timeout and a.answer is None]
    assert all(a.text == f"{red('en', a.player)} did not vote: the vote was already decided." for a in not_cast)
    assert not any(re.search(r"\b(you|your)\b", a.text, re.I) for a in answers)
    # and so are the events, those an automatic answer revealed included: the replay has no "you"
    events = [e for s in steps for e in s.events]
    assert any(e.type == "answer_auto" for e in events)
    assert not [e.text for e in events if re.search(r"\b(you|your)\b", e.text, re.I)]


def test_the_board_of_each_round_is_the_public_board_at_its_end(embedded: Stack) -> None:
    created = create_tagged(embedded.db, 4, seed=42, bots=1)
    eng = finish(embedded.db, created.game_id, seed=42)
    steps = replay.rounds(eng, "en")
    final = engine.spectator_view(eng)
    del final["events"]
    assert steps[-1].board_view == final  # the last round's board is the final public board
    assert steps[-1].board_view["phase"] == "over"

    living_at_start = len(eng.players) * len(characters_for(len(eng.players)))
    eaten = 0
    for step in steps:
        board = step.board_view
        assert set(board) >= PUBLIC_KEYS and board["round"] == step.round
        assert "hands" not in board and "deck" not in board and "dice" not in board
        assert board["hidden"] == [] and board["destinations"] == {}  # hiding and destinations end with the round
        eaten += sum(1 for e in step.events if e.type == "eaten")
        living = sum(len(chars) for chars in board["characters"].values())
        assert living == living_at_start - eaten, f"round {step.round}"
    assert steps[0].board_view["phase"] == "setup"
    assert sum(steps[0].board_view["zombies"].values()) <= 4
    assert [s.board_view["zombies"] for s in steps] != [steps[0].board_view["zombies"]] * len(steps)


def test_a_running_game_is_refused_and_its_page_reveals_nothing(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=43)
    for step in range(6):
        play_window(stack.db, created.game_id, seed=step, now=T0 + dt.timedelta(minutes=step + 1))
    eng = engine_of(stack.db, created.game_id)
    assert not eng.over
    with pytest.raises(ValueError):  # the engine refuses to replay a running game
        replay.rounds(eng, "en")
    assert games.finished(stack.db, created.game_id) is None  # so no replay page can be built for it
    status, text = page(stack, link(stack, created.game_id, "red") + "/replay?round=1")
    assert status == 409
    assert "once the game is over" in text
    secrets = set(eng.deck) | {c for hand in eng.hands.values() for c in hand}
    for card in secrets:
        assert CARD_NAMES[card] not in text
    assert "seen by" not in text and "Round 1" not in text and "vote for" not in text


def test_the_page_steps_round_by_round_with_plain_links(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=44)
    eng = finish(stack.db, created.game_id, seed=44)
    names = table_names(stack.db, created.game_id)
    steps = replay.rounds(eng, "en", names)
    base = link(stack, created.game_id, "yellow") + "/replay"

    status, text = page(stack, base)
    assert status == 200
    assert " style=" not in text  # the CSP forbids inline styles
    for number in range(1, len(steps)):
        assert f'href="{base}?round={number}"' in text  # the list of rounds
    assert 'rel="prev"' not in text  # the setup comes first
    winners = [player_label("en", c, names) for c in eng.outcome["winners"]]  # type: ignore[index]
    assert f"Winners: {', '.join(winners)}" in text
    for colour, points in eng.outcome["scores"].items():  # type: ignore[index]
        assert re.search(rf"{re.escape(player_label('en', colour, names))}.*?</th>\s*<td>{points}</td>", text)
    assert "Tied on points, the player with more cards left in hand wins" in text

    # follow the "next" links from the setup to the last round; each page shows its round, all of it
    visited = []
    path: str | None = base
    while path is not None:
        status, text = page(stack, html.unescape(path))
        assert status == 200
        number = len(visited)
        visited.append(number)
        step = steps[number]
        title = "Setup" if number == 0 else f"Round {number}"
        assert f'<strong aria-current="page">{title}</strong>' in text
        for event in step.events:
            assert shown(event.text) in text
            if event.seen_by_text:
                assert shown(f"({event.seen_by_text})") in text
        for answer in step.answers:
            assert f'aria-hidden="true"></span> {shown(answer.text)}</li>' in text
        found = re.search(r'<a rel="next" href="([^"]+)"', text)
        if found is not None:
            assert html.unescape(found[1]).endswith(f"?round={number + 1}")
            assert re.search(rf'<a rel="prev" href="[^"]+\?round={number - 1}"', text) or number == 0
        path = None if found is None else found[1]
    assert visited == [s.round for s in steps]
    last = steps[-1]
    assert "Game over" in text and last.board_view["phase"] == "over"

    # a round that does not exist shows the setup; a round number that is not one is ignored
    for query in ("?round=999", "?round=-1", "?round=abc", "?round=" + "9" * 50):
        status, text = page(stack, base + query)
        assert status == 200 and '<strong aria-current="page">Setup</strong>' in text


@pytest.mark.parametrize("lang", ["it", "pl"])
def test_the_replay_speaks_the_language_of_the_seat(embedded: Stack, lang: str) -> None:
    created = create_tagged(embedded.db, 3, seed=45, prefs={0: {"language": lang}})
    eng = finish(embedded.db, created.game_id, seed=45)
    names = table_names(embedded.db, created.game_id)
    steps = replay.rounds(eng, lang, names)
    status, text = page(embedded, link(embedded, created.game_id, "yellow") + "/replay?round=1")
    assert status == 200
    assert f'<html lang="{lang}"' in text
    for event in steps[1].events:
        assert shown(event.text) in text
        assert event.text.startswith(
            sentences.event_text(lang, {"type": event.type, **_fields(eng, event.index)}, None, names)
        )
    assert shown(glossary.location_name(lang, 5)) in text
    english = replay.rounds(eng, "en", names)[1].events
    assert any(e.text != en.text for e, en in zip(steps[1].events, english, strict=True))


def _fields(eng: engine.Game, index: int) -> dict[str, Any]:
    return {k: v for k, v in eng.events[index].items() if k not in ("to", "type")}


def test_forged_or_revoked_links_hostile_names_and_the_organiser_context(embedded: Stack) -> None:
    created = create_tagged(embedded.db, 3, seed=46, prefs={1: {"display_name": "<b>Mallory</b>" + "x" * 200}})
    eng = finish(embedded.db, created.game_id, seed=46)
    good = link(embedded, created.game_id, "red")
    status, text = page(embedded, good + "/replay")
    assert status == 200
    assert "<b>Mallory" not in text
    names = re.findall(r"&lt;b&gt;Mallory&lt;/b&gt;(x*)", text)
    assert names and all(len(x) == 80 - len("<b>Mallory</b>") for x in names)  # escaped, and capped
    status, text = page(embedded, forged(good) + "/replay")
    assert status == 403 and "seen by" not in text
    assert page(embedded, "/s/forged/replay")[0] == 403
    other_key = seat_token("another-secret", 1, 1)
    assert page(embedded, f"/s/{other_key}/replay")[0] == 403
    seat_id = seats.rotate_link(embedded.db, created.game_id, "red")
    status, text = page(embedded, good + "/replay")
    assert status == 403 and "seen by" not in text
    fresh = seat_token(embedded.settings.secret_key, seat_id, 2)
    assert page(embedded, f"/s/{fresh}/replay")[0] == 200

    # what the page shows of a round is the replay's round
    game = games.finished(embedded.db, created.game_id)
    assert game is not None and game.engine.to_json() == eng.to_json()
    context = replay.replay_page("en", game, 2)
    assert context["round"] == 2 and context["previous"] == 1 and context["next"] == 3
    names = {c: n[:80] if n else None for c, n in game.people.items()}
    assert context["step"].events == replay.rounds(eng, "en", names)[2].events
    board = dict(context["board"])
    told = board.pop("events")  # the round's public events so far: the board draws its moves and votes from them
    assert board == replay.rounds(eng, "en")[2].board_view
    last = context["step"].events[-1].index
    assert told == [e for e in engine.replay(eng)["events"][: last + 1] if e.get("to") is None]
    assert any(e["type"] == "round_started" and e["round"] == 2 for e in told)
    assert games.finished(embedded.db, created.game_id + 99) is None


def _tokens(text: str) -> list[tuple[str, str, str]]:
    """(location, colour, character) of every token on the page's board."""
    found = re.search(r'<svg class="board".*?</svg>', text, re.S)
    assert found is not None
    svg = "{http://www.w3.org/2000/svg}"
    rooms = [g for g in ET.fromstring(found[0]).iter(f"{svg}g") if "location" in (g.get("class") or "").split()]
    return sorted(
        (str(room.get("data-location")), str(token.get("data-colour")), str(token.get("data-character")))
        for room in rooms
        for token in room.iter(f"{svg}g")
        if "token" in (token.get("class") or "").split()
    )


@pytest.mark.rule("H-6")
def test_the_replay_steps_event_by_event_with_the_board_as_each_was_told(stack: Stack) -> None:
    """From a round's page, "Step through this round" opens its first event; "Next event" (the → key's link) goes
    on, across rounds, each page naming its event, marking it in the list and drawing the board as it was told
    (the characters where they stood then, the place the event names framed); the last event has no next."""
    created = create_tagged(stack.db, 3, seed=45)
    eng = finish(stack.db, created.game_id, seed=45)
    events = engine.replay(eng)["events"]
    boards = engine.replay_steps(eng).event_boards
    base = link(stack, created.game_id, "red") + "/replay"
    status, text = page(stack, base + "?round=1")
    first = next(i for i, e in enumerate(events) if e["type"] == "round_started" and e["round"] == 1)
    assert status == 200
    found = re.search(r'<a class="button" data-key="ArrowRight" href="([^"]+)"', text)
    assert found is not None and html.unescape(found[1]).endswith(f"?step={first}#replay-mall")
    path = html.unescape(found[1]).split("#")[0]
    for index in range(first, first + 40):
        status, text = page(stack, path)
        assert status == 200 and " style=" not in text
        assert f"Event {index + 1} of {len(events)}" in text
        assert re.search(rf'<a href="[^"]+\?step={index}#replay-mall" aria-current="step">', text)
        expected = sorted(
            (str(loc), colour, character)
            for colour, placed in boards[index]["characters"].items()
            for character, loc in placed.items()
        )
        assert _tokens(text) == expected, events[index]
        place = events[index].get("location")
        framed = re.findall(r'<g class="location[^"]* asked" data-location="(\d+)"', text)
        assert framed == ([str(place)] if isinstance(place, int) else [])
        back = re.search(r'data-key="ArrowLeft" href="([^"]+)"', text)
        assert back is not None and html.unescape(back[1]).endswith(f"?step={index - 1}#replay-mall")
        found = re.search(r'data-key="ArrowRight" href="([^"]+)"', text)
        assert found is not None
        path = html.unescape(found[1]).split("#")[0]
        assert path.endswith(f"?step={index + 1}")
    status, text = page(stack, f"{base}?step={len(events) - 1}")
    assert status == 200 and f"Event {len(events)} of {len(events)}" in text
    assert 'data-key="ArrowRight"' not in text and "Game over" in text
    # an event that does not exist shows a round as before (the setup when none is asked)
    for query in ("?step=999999", "?step=-1", "?step=x", "?step=" + "9" * 40):
        status, text = page(stack, base + query)
        assert status == 200 and '<strong aria-current="page">Setup</strong>' in text and "Event 1 of" not in text
