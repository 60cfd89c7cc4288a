"""The table you play on (server/present/seat.py ``pick_path``, templates/_table.html, static/deadmail.js): each
choice of a decision is given by tapping its parts on the page. For every decision kind met in many games, the
choices' picks are exactly the engine's legal answers, nothing else, one path per answer; every part a path names is
on the reader's page (a room, the reader's own token, a player's panel, a card of the reader's hand or of the truck
they drew); and the page marks nothing that tells a secret: only the reader's own tokens and cards are picks, and a
card window (asked in secret, B-INFO) names nobody as still deciding."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest

import engine
from engine.bots import SensibleBot
from engine.data import CHARACTERS, LOCATIONS
from engine.errors import IllegalAnswer
from server.present import board
from server.present.seat import Decision, best_moments, decision, outcome, pick_path
from server.services.play.seats import SeatWindow
from server.text import glossary
from server.text.sentences import event_text

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
COLOURS = ["red", "yellow", "blue", "green", "black"]


def legal(eng: engine.Game, request: engine.Request, *, batched: bool) -> set[str]:
    """Every answer the engine takes for ``request`` among the shapes a tap can give (one card at most), as JSON."""
    kind, player = request.kind, request.player
    if kind == "cards":
        info = request.to_json()
        plays: list[Any] = [[]]
        for card in info["playable"]:  # a play's shape by card (ENGINE-CONTRACT.md)
            if card == "hidden":
                plays += [[{"card": card, "character": c}] for c in CHARACTERS]
            elif card == "sprint":
                plays += [[{"card": card, "character": c, "location": loc}] for c in CHARACTERS for loc in LOCATIONS]
            else:
                plays.append([{"card": card}])
        candidates = plays
    elif kind == "truck":
        cards = request.to_json()["cards"]
        candidates = [
            {"keep": k, "give": g, "to": to} for k, g, to in itertools.product(set(cards), set(cards), COLOURS)
        ]
    else:
        candidates = list(request.options or [])
        if kind == "move":  # a move's Sprint
            candidates += [{**o, "sprint": loc} for o in request.options or [] for loc in LOCATIONS]
        if kind == "place" and batched:  # a fallback elsewhere (the engine takes one anywhere, used only here)
            spots = [(o, loc) for o in request.options or [] for loc in LOCATIONS if loc != o["location"]]
            candidates += [{**o, "fallback": loc} for o, loc in spots]
    out = set()
    for answer in candidates:
        try:
            eng.check(player, kind, answer)
        except IllegalAnswer:
            continue
        out.add(json.dumps(answer, sort_keys=True))
    return out


def shown(eng: engine.Game, request: engine.Request, lang: str = "en") -> tuple[engine.PlayerView, Decision]:
    """The reader's view and their decision as the seat page shows it."""
    view = engine.view(eng, request.player)
    window: SeatWindow = {
        "number": 1,
        "deadline": NOW.isoformat(),
        "request": request.to_json(),
        "answer": None,
        "completed": False,
    }
    found = decision(lang, view, window, NOW, "UTC")
    assert found is not None
    return view, found


def targets(view: engine.PlayerView, request: engine.Request) -> set[str]:
    """The picks on the reader's page (the board, the panels' own tokens, the hand, the truck, the panels)."""
    page = str(board.board_svg(view, "en", view["you"]))
    page += "".join(str(board.token_icon("en", view["you"], c, you=True)) for c in CHARACTERS)
    picks = set(re.findall(r'data-pick="([^"]+)"', page))
    picks |= {f"colour:{c}" for c in view["players"]} | {f"card:{c}" for c in view["hand"]}
    return picks | {f"truck:{c}" for c in request.to_json().get("cards", [])} | {"pass"}


@pytest.mark.parametrize("turn_order", ["strict", "batched"])
def test_every_decision_kinds_picks_are_its_legal_answers_and_on_the_page(turn_order: str) -> None:
    met: Counter[str] = Counter()
    for seed in range(3):
        eng = engine.new_game(COLOURS, seed=seed, options={"turn_order": turn_order})
        bots = {c: SensibleBot(seed) for c in COLOURS}
        while not eng.over:
            for request in eng.pending():
                view, found = shown(eng, request)
                choices = found.choices
                met[request.kind] += 1
                # one path per choice, each choice legal and every legal (tapped) answer among them
                meanings = [json.dumps(c.value, sort_keys=True) for c in choices]
                paths = [c.path for c in choices]
                assert len(set(paths)) == len(paths), (request.kind, paths)
                assert set(meanings) == legal(eng, request, batched=turn_order == "batched"), request.kind
                on_page = targets(view, request)
                for choice in choices:
                    assert choice.path.split() == pick_path(request.kind, choice.value)
                    missing = set(choice.path.split()) - on_page
                    assert not missing, (request.kind, missing)
            for request in eng.pending():
                eng.answer(request.player, request.kind, bots[request.player].decide(eng, request))
    kinds = {"place", "cards", "vote", "victim", "truck", "announce", "destination", "move"}
    assert kinds <= set(met), met


def test_only_the_readers_own_tokens_are_picks_on_the_board() -> None:
    eng = engine.new_game(COLOURS, seed=4)
    bots = {c: SensibleBot(4) for c in COLOURS}
    while eng.pending() and engine.view(eng, "red")["round"] < 2:
        for request in eng.pending():
            eng.answer(request.player, request.kind, bots[request.player].decide(eng, request))
    view = engine.view(eng, "red")
    page = str(board.board_svg(view, "en", "red"))
    tokens = re.findall(r'<g class="token[^"]*"[^>]*data-colour="(\w+)"[^>]*?( data-pick="[^"]+")?>', page)
    assert tokens and all((colour == "red") == bool(pick) for colour, pick in tokens), tokens


def test_the_decision_is_drawn_on_the_board_and_said_in_the_bar() -> None:
    """The location a decision is about (a vote's, an attack's, a move's destination) is framed on the board, and
    the bar's headline says what is asked and where, in the reader's language."""
    eng = engine.new_game(COLOURS, seed=2)
    bots = {c: SensibleBot(2) for c in COLOURS}
    seen: set[str] = set()
    while not eng.over and len(seen) < 4:
        for request in eng.pending():
            view, made = shown(eng, request, "it")
            assert made.headline
            page = str(board.board_svg(view, "it", request.player, asked=made.where))
            framed = re.findall(r'<g class="location[^"]* asked" data-location="(\d)"', page)
            if request.kind in ("vote", "victim", "move"):
                seen.add(request.kind)
                assert framed == [str(made.where)] and made.where is not None
                assert glossary.location_label("it", made.where) in made.headline
            elif made.where is None:
                assert framed == []
        for request in eng.pending():
            eng.answer(request.player, request.kind, bots[request.player].decide(eng, request))
    assert {"vote", "move"} <= seen


def test_the_end_names_each_players_best_moment_from_the_public_story() -> None:
    """A finished game: each player's best moment is a public event of theirs (a weapon played before any other
    card, an election, a truck searched), told as the story tells it; the same for every reader, nothing private."""
    eng = engine.new_game(COLOURS, seed=3)
    bots = {c: SensibleBot(3) for c in COLOURS}
    while not eng.over:
        for request in eng.pending():
            eng.answer(request.player, request.kind, bots[request.player].decide(eng, request))
    public_events = engine.spectator_view(eng)["events"]
    for reader in COLOURS:
        view = engine.view(eng, reader)
        found = outcome("en", view)
        assert found is not None and found.moments
        assert found.moments == best_moments("en", public_events)  # the same for everyone: public events only
    told = {event_text("en", e, None) for e in public_events}
    for colour, line in found.moments.items():
        head, _, text = line.partition(": ")
        assert head.startswith(("Round", "Setting up")) and text in told, (colour, line)
