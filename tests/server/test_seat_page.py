"""The player's page (/s/<token>): the board picture, the decision form of legal answers only, the history, the
secrets it never shows, its security headers, rate limits, the htmx fragment, and its languages."""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

import engine
from engine.data import CHARACTERS
from server.db import Database
from server.models import Player, RequestRow, Seat
from server.present.seat import history, newest_first
from server.services.play import games
from server.text import glossary, sentences
from server.text.grammar import commands_for, fallback_choices, parse_reply
from server.text.sentences import describe_answer
from server.web.access import CSP
from tests.conftest import Stack
from tests.support import T0, create, engine_of, open_window, play_window, stop_signing_clock, without_who_decides

ROOT = Path(__file__).resolve().parents[2]


# the board picture itself is tested in tests/server/test_board.py


# --- pages of real games ----------------------------------------------------------------------------------------


def links(stack: Stack, game_id: int) -> dict[str, str]:
    rows = games.seat_links(stack.db, game_id, stack.settings.secret_key, stack.settings.base_url)
    return {r["colour"]: r["link"].rsplit("/", 1)[1] for r in rows if r["link"]}


def decision_form(page: str) -> dict[str, Any]:
    found = re.search(r'<form id="decision-.*?</form>', page, re.S)
    assert found, "no decision form"
    form = found.group(0)
    return {
        "hidden": dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form)),
        # the listed choices (the board's picker also has a placement's fallbacks, in labels not shown)
        "radios": [
            html.unescape(v)
            for v in re.findall(r'<label class="choice"><input type="radio" name="c" value="([^"]*)"', form)
        ],
        "unlisted": [
            html.unescape(v)
            for v in re.findall(r'<label class="choice" hidden><input type="radio" name="c" value="([^"]*)"', form)
        ],
        "checked": [html.unescape(v) for v in re.findall(r'name="c" value="([^"]*)" checked', form)],
    }


@pytest.mark.long(7)
def test_the_decision_form_lists_exactly_the_legal_commands_and_posting_one_stores_it(stack: Stack) -> None:
    stack.app.config["DEADMAIL_LINKS_PER_MINUTE"] = 100_000  # a dozen windows read at machine speed from one address
    game_id = create(stack.db, 3, seed=5).game_id
    tokens = links(stack, game_id)
    kinds = set()
    for _ in range(12):
        window = open_window(stack.db, game_id)
        if window is None:
            break
        for token in tokens.values():
            seat = stack.client.get(f"/api/seat/{token}").json
            page = stack.client.get(f"/s/{token}").get_data(as_text=True)
            request_json = seat["window"]["request"]
            if request_json is None:
                assert '<form id="decision-' not in page
                continue
            kinds.add(request_json["kind"])
            form = decision_form(page)
            assert form["radios"] == commands_for(request_json, seat["view"], "en")
            fallbacks = fallback_choices(request_json, seat["view"], "en")
            assert form["unlisted"] == [c for c, _ in fallbacks]
            for command, value in fallbacks:  # the answer made with the command is the one it reads as
                assert parse_reply(command, request_json, seat["view"], "en") == value
            assert form["hidden"]["w"] == str(window.number)
            for command in form["radios"]:
                meaning = parse_reply(command, request_json, seat["view"], "en")
                assert html.escape(command) in page
                assert html.escape(describe_answer("en", request_json, meaning, seat["names"])) in page
        # one seat answers by the form: the answer stored is what its command means
        owing = [c for c, t in tokens.items() if stack.client.get(f"/api/seat/{t}").json["window"]["request"]]
        if owing:
            colour = owing[0]
            token = tokens[colour]
            page = stack.client.get(f"/s/{token}").get_data(as_text=True)
            form = decision_form(page)
            chosen = form["radios"][-1]
            seat = stack.client.get(f"/api/seat/{token}").json
            reply = stack.client.post(f"/s/{token}/do", data={**form["hidden"], "c": chosen})
            assert reply.status_code == 303, reply.get_data(as_text=True)
            stored = request_answer(stack.db, window.id, colour)
            assert stored == parse_reply(chosen, seat["window"]["request"], seat["view"], "en")
            again = stack.client.get(reply.headers["Location"]).get_data(as_text=True)
            if len(owing) == 1:  # the last answer owed: the window closes now, the page promises no change
                assert "Every answer is in: the game moves on now." in again and "Your answer so far:" not in again
                assert '<form id="decision-' not in again and "You may change it" not in again
            else:
                assert decision_form(again)["checked"] == [chosen]
                assert "Your answer so far:" in again and "You may change it until the window closes." in again
        play_window(stack.db, game_id, 5, T0)
    assert {"place", "cards", "vote"} <= kinds


def request_answer(db: Database, window_id: int, colour: str) -> Any:
    with db.session() as session:
        return session.execute(
            sa.select(RequestRow.answer)
            .join(Seat, Seat.id == RequestRow.seat_id)
            .where(RequestRow.window_id == window_id, Seat.colour == colour)
        ).scalar_one()


def test_a_typed_command_combining_cards_is_taken(embedded: Stack) -> None:
    stack = embedded
    game_id = create(stack.db, 3, seed=5).game_id
    tokens = links(stack, game_id)
    for _ in range(40):
        window = open_window(stack.db, game_id)
        assert window is not None
        for colour, token in tokens.items():
            seat = stack.client.get(f"/api/seat/{token}").json
            request_json = seat["window"]["request"]
            if request_json is None or request_json["kind"] != "cards":
                continue
            page = stack.client.get(f"/s/{token}").get_data(as_text=True)
            assert 'id="command-' in page and "Or type a command" in page
            hidden = decision_form(page)["hidden"]
            bad = stack.client.post(f"/s/{token}/do", data={**hidden, "c": "PLAY NOTHING AT ALL"})
            assert bad.status_code == 400
            assert request_answer(stack.db, window.id, colour) is None
            reply = stack.client.post(f"/s/{token}/do", data={**hidden, "c": "pass"})
            assert reply.status_code == 303
            assert request_answer(stack.db, window.id, colour) == []
            return
        play_window(stack.db, game_id, 5, T0)
    raise AssertionError("no card window came")


def test_history_is_newest_first_grouped_by_round_and_only_the_readers_events(embedded: Stack) -> None:
    stack = embedded
    game_id = create(stack.db, 3, seed=9).game_id
    tokens = links(stack, game_id)
    while True:
        play_window(stack.db, game_id, 9, T0)
        eng = engine_of(stack.db, game_id)
        if eng.round >= 2 or eng.over:
            break
    assert not eng.over
    colour = "red" if "red" in tokens else next(iter(tokens))
    view = engine.view(eng, colour)
    page = stack.client.get(f"/s/{tokens[colour]}").get_data(as_text=True)
    section = page[page.index('<section class="history"') :]
    # the current round open, earlier rounds folded (<details>, readable without JavaScript)
    titles = [t.strip() for t in re.findall(r"(?:<h3>|<summary>)([^<]*)", section)]
    assert section.count("<details") == len(titles) - 1 and "<details open" not in section
    assert (
        titles[:3] == [f"Round {eng.round}", *([f"Round {eng.round - 1}"] if eng.round > 1 else []), "Setting up"][:3]
    )
    shown = [html.unescape(x) for x in re.findall(r"<li>(.*?)</li>", section, re.S)]
    names = stack.client.get(f"/api/seat/{tokens[colour]}").json["names"]
    assert sorted(n for n in names.values() if n) == ["P0", "P1", "P2"]  # the table's names: "P1 (Blue)"
    rounds = newest_first(history("en", view["events"], colour, names=names))
    assert titles == [r.title for r in rounds]
    assert shown == [line for r in rounds for line in r.lines]
    # newest first: the page lists the view's events in reverse within each round, the last event on top
    assert shown[0] == sentences.event_text("en", view["events"][-1], colour, names)
    # nothing the reader may not see: another player's dealt card, the deck order
    for event in eng.events:
        to = event.get("to")
        if to is not None and colour not in to:
            line = sentences.event_text("en", {k: v for k, v in event.items() if k != "to"}, colour, names)
            assert html.escape(line) not in page, line


def test_a_page_never_shows_another_players_hand_or_answer(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    stop_signing_clock(monkeypatch)  # the pages' CSRF tokens are the same on every rendering: compared too
    game_id = create(stack.db, 3, seed=11).game_id
    tokens = links(stack, game_id)
    for _ in range(30):
        window = open_window(stack.db, game_id)
        assert window is not None
        owing = [c for c, t in tokens.items() if stack.client.get(f"/api/seat/{t}").json["window"]["request"]]
        if len(owing) >= 2:
            break
        play_window(stack.db, game_id, 11, T0)
    first, other = owing[0], owing[1]

    def pages() -> dict[str, str]:
        return {c: stack.client.get(f"/s/{t}").get_data(as_text=True) for c, t in tokens.items() if c != first}

    before = pages()
    # the first seat answers: the others' pages only stop listing it as still deciding (H-1), in the list and on its
    # player's panel
    hidden = decision_form(stack.client.get(f"/s/{tokens[first]}").get_data(as_text=True))
    answer = {**hidden["hidden"], "c": hidden["radios"][0]}
    assert stack.client.post(f"/s/{tokens[first]}/do", data=answer).status_code == 303
    after = pages()
    name = first.capitalize()
    waiting = re.compile(r'<p class="waiting">.*?</p>', re.S)
    deciding = re.compile(r' <span class="panel-status deciding">[^<]*</span>')
    panel = re.compile(rf'<div class="player-panel colour-{first}\b.*?</li>', re.S)
    for colour, page in after.items():
        assert name in waiting.search(before[colour]).group(0)  # type: ignore[union-attr]
        assert name not in (m.group(0) if (m := waiting.search(page)) else "")
        assert deciding.search(panel.search(before[colour]).group(0))  # type: ignore[union-attr]
        assert not deciding.search(panel.search(page).group(0))  # type: ignore[union-attr]
        assert without_who_decides(page) == without_who_decides(before[colour])
    # then changes its answer: nobody else's page changes by a byte
    answer["c"] = hidden["radios"][-1]
    assert stack.client.post(f"/s/{tokens[first]}/do", data=answer).status_code == 303
    assert pages() == after
    # the hands: what each card does is shown for the reader's own cards only
    eng = engine_of(stack.db, game_id)
    page = stack.client.get(f"/s/{tokens[other]}").get_data(as_text=True)
    own = set(eng.hands[other])
    truck = set(engine.view(eng, other)["requests"][0].get("cards") or [])
    for colour in eng.players:
        for card in eng.hands[colour]:
            if colour != other and card not in own | truck:
                assert html.escape(glossary.card_text("en", card)) not in page, (colour, card)
    for card in own:
        assert html.escape(glossary.card_text("en", card)) in page


# --- the fragment, headers, limits, languages ------------------------------------------------------------------


def test_the_live_fragment_is_the_changing_part_of_the_page(embedded: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    stack = embedded
    stop_signing_clock(monkeypatch)  # the CSRF tokens of the fragment and of the page are the same
    game_id = create(stack.db, 3, seed=5).game_id
    token = next(iter(links(stack, game_id).values()))
    page = stack.client.get(f"/s/{token}").get_data(as_text=True)
    live = stack.client.get(f"/s/{token}/live")
    assert live.status_code == 200
    fragment = live.get_data(as_text=True)
    assert "<html" not in fragment and "<!doctype" not in fragment.lower()
    assert fragment.lstrip().startswith('<div id="live"')
    assert f'hx-get="/s/{token}/live"' in fragment and 'hx-trigger="refresh, every 30s"' in fragment
    for part in ('<svg class="board"', '<form id="decision-', '<section class="history"'):
        assert part in fragment and part in page
    assert fragment.strip() in page
    assert stack.client.get("/s/forged.token.here/live").status_code == 403
    # htmx is loaded deferred from our own static folder, pinned, and the file is the one recorded
    assert '<script src="/static/vendor/htmx-2.0.4.min.js" defer></script>' in page
    vendored = stack.client.get("/static/vendor/htmx-2.0.4.min.js")
    assert vendored.status_code == 200
    digest = hashlib.sha256(vendored.data).hexdigest()
    vendored.close()
    assert digest in (ROOT / "static" / "vendor" / "README.md").read_text()
    assert 'href="/static/deadmail.css"' in page and ' style="' not in page and "<style" not in page


def test_every_html_response_has_the_content_security_policy(embedded: Stack) -> None:
    stack = embedded
    game_id = create(stack.db, 3, seed=5).game_id
    token = next(iter(links(stack, game_id).values()))
    for url in (f"/s/{token}", f"/s/{token}/live", "/s/not-a-token"):
        reply = stack.client.get(url)
        assert reply.headers["Content-Security-Policy"] == CSP, url
        assert reply.headers["X-Content-Type-Options"] == "nosniff"
        assert reply.headers["Referrer-Policy"] == "same-origin"
    for part in ("default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"):
        assert part in CSP
    css = stack.client.get("/static/deadmail.css")
    assert css.headers["X-Content-Type-Options"] == "nosniff" and "Content-Security-Policy" not in css.headers
    css.close()


def test_answering_too_often_gets_429_and_a_friendly_page(stack: Stack) -> None:
    game_id = create(stack.db, 3, seed=5).game_id
    token = next(iter(links(stack, game_id).values()))
    page = stack.client.get(f"/s/{token}").get_data(as_text=True)
    hidden = decision_form(page)["hidden"]
    for _ in range(30):
        assert stack.client.post(f"/s/{token}/do", data={**hidden, "c": "NONSENSE"}).status_code == 400
    refused = stack.client.post(f"/s/{token}/do", data={**hidden, "c": decision_form(page)["radios"][0]})
    assert refused.status_code == 429
    assert 0 < int(refused.headers["Retry-After"]) <= 60
    assert "Too many requests from your connection" in refused.get_data(as_text=True)
    assert refused.headers["Content-Security-Policy"] == CSP
    window = open_window(stack.db, game_id)
    assert window is not None
    assert all(request_answer(stack.db, window.id, c) is None for c in links(stack, game_id))
    api = stack.client.post(f"/api/seat/{token}/answer", json={"kind": "place", "answer": {}})
    assert api.status_code == 429 and api.json["ok"] is False
    assert stack.client.get(f"/s/{token}").status_code == 200  # reading is counted apart


def test_opening_link_pages_too_often_gets_429(embedded: Stack) -> None:
    stack = embedded
    stack.app.config["DEADMAIL_LINKS_PER_MINUTE"] = 5
    for _ in range(5):
        assert stack.client.get("/s/not-a-token").status_code == 403
    assert stack.client.get("/s/not-a-token").status_code == 429


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("it", ["Giochi con <strong>", "Bagni"]),
        ("pl", ["Grasz kolorem <strong>", "Toalety"]),
    ],
)
def test_the_page_works_in_italian_and_polish(embedded: Stack, lang: str, words: list[str]) -> None:
    stack = embedded
    game_id = create(stack.db, 3, seed=5).game_id
    tokens = links(stack, game_id)
    colour, token = next(iter(tokens.items()))
    with stack.db.session() as session:
        seat = session.execute(sa.select(Seat).where(Seat.game_id == game_id, Seat.colour == colour)).scalar_one()
        player = session.get(Player, seat.player_id)
        assert player is not None
        player.language = lang
    page = stack.client.get(f"/s/{token}").get_data(as_text=True)
    assert f'<html lang="{lang}">' in page
    for word in words:
        assert word in page
    seat_json = stack.client.get(f"/api/seat/{token}").json
    form = decision_form(page)
    assert form["radios"] == commands_for(seat_json["window"]["request"], seat_json["view"], lang)
    reply = stack.client.post(f"/s/{token}/do", data={**form["hidden"], "c": form["radios"][0]})
    assert reply.status_code == 303
    window = open_window(stack.db, game_id)
    assert window is not None
    assert request_answer(stack.db, window.id, colour) is not None
    for character in CHARACTERS[:3]:
        assert glossary.character_name(lang, character) in page
