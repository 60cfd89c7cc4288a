"""server/text/glossary.py and sentences.py: names as the rulebooks give them, and a sentence for every event and
request of real games."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.bots import RandomBot, play_game
from engine.data import CARDS, CHARACTERS, COLOURS, DEFAULT_WEAPONS, KINDS, LOCATIONS, WEAPONS
from server.text import glossary, grammar, sentences

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("en", "it", "pl")
Sample = tuple[dict[str, Any], str | None]
#: the standing answers a careful player sets: the first player of each game has them.
CAREFUL = {"camera": "look", "attack": "if_needed", "vote": "against_most_here", "victim": ["girl", "gunman"]}


# --- material from real games -----------------------------------------------------------------------------------


def _play(players: int, options: dict[str, Any], seed: int, timeout_rate: float) -> tuple[list[Sample], list[Sample]]:
    """A random-bot game; every request as its player's view shows it, every event as each reader sees it."""
    game = engine.new_game(list(COLOURS[:players]), seed=seed, options=options)
    bots = {c: RandomBot(seed * 10 + i) for i, c in enumerate(game.players)}
    rng = random.Random(seed)
    requests: list[Sample] = []
    while not game.over:
        for req in game.pending():
            view = engine.view(game, req.player)
            requests.extend((r, view["phase"]) for r in view["requests"])
            careful = engine.standing_answer(view, req, CAREFUL) if req.player == game.players[0] else None
            if careful is not None:  # one player's small steps answered by standing answers
                game.answer(req.player, req.kind, careful, standing=True)
            elif rng.random() < timeout_rate:
                game.timeout(req.player, req.kind)
            else:
                game.answer(req.player, req.kind, bots[req.player].decide(game, req))
    events: list[Sample] = [(e, None) for e in engine.spectator_view(game)["events"]]
    for colour in game.players:
        events.extend((e, colour) for e in engine.view(game, colour)["events"])
    events.extend((e, None) for e in engine.replay(game)["events"] if e.get("to") == [])  # seen by nobody during play
    return events, requests


def _scenario_events() -> list[Sample]:
    """Events random games almost never produce, from engine scenarios: no legal destination, too many zombies."""
    base = {"round": 2, "chief": "red", "chief_elected": False, "deck": [], "eliminated": {}}
    hands: dict[str, list[str]] = {"red": [], "yellow": [], "blue": []}
    stuck = {
        **base,
        "phase": "arrival",
        "closed": [1, 2, 3, 5, 6],
        "characters": {"red": {"pinup": 4, "tough": 4}, "yellow": {"gunman": 4}, "blue": {"pinup": 4}},
        "zombies": {},
        "hands": hands,
    }
    crowded = {
        **base,
        "phase": "attack",
        "closed": [2],
        "characters": {"red": {"pinup": 1, "tough": 3}, "yellow": {"gunman": 6}, "blue": {"pinup": 5}},
        "zombies": {"1": 10, "3": 10, "6": 12},
        "hands": hands,
    }
    doomed = {  # location 1 is empty with 8 zombies: condemned once the dice are placed (E-3)
        **base,
        "phase": "arrival",
        "closed": [2],
        "characters": {"red": {"pinup": 3, "tough": 4}, "yellow": {"gunman": 5}, "blue": {"pinup": 6}},
        "zombies": {"1": 8},
        "hands": hands,
    }
    truck = {  # red's 4 votes decide the truck vote: the others do not vote (close_decided_votes)
        **base,
        "phase": "truck",
        "closed": [2],
        "characters": {"red": {"pinup": 4, "tough": 4, "gunman": 4}, "yellow": {"gunman": 4}, "blue": {"pinup": 4}},
        "zombies": {},
        "hands": hands,
        "deck": ["axe", "bat", "sprint"],
    }
    out: list[Sample] = []
    for position in (stuck, crowded, doomed, truck):
        config = engine.Config.from_json({"players": ["red", "yellow", "blue"], "seed": 1, "position": position})
        game = engine.Game(config)
        if position is truck:
            game.answer("red", "vote", "red")
            for req in game.pending():
                game.timeout(req.player, req.kind, decided=True)
        game = play_game(game, {c: RandomBot(i) for i, c in enumerate(("red", "yellow", "blue"))})
        out.extend((e, reader) for e in engine.replay(game)["events"] for reader in (None, "red"))
    return out


@pytest.fixture(scope="module")
def played() -> tuple[list[Sample], list[Sample]]:
    events: list[Sample] = []
    requests: list[Sample] = []
    seed = 0
    for players in (3, 4, 5, 6):
        for order in ("batched", "strict"):
            for sprint in ("on_move", "after_moves"):
                for timeout_rate in (0.0, 0.3):
                    seed += 1
                    options = {"turn_order": order, "sprint_timing": sprint}
                    e, r = _play(players, options, seed, timeout_rate)
                    events += e
                    requests += r
    return events + _scenario_events(), requests


def _emitted_types() -> set[str]:
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "engine").glob("*.py"))
    return set(re.findall(r"\bemit\(\s*\"(\w+)\"", source))


# --- what a good sentence is ------------------------------------------------------------------------------------

_RAW_WORDS = {
    lang: sorted(
        {c for c in COLOURS if glossary.colour_name(lang, c).lower() != c}
        | {c for c in CHARACTERS if glossary.character_name(lang, c).lower() != c}
        | {c for c in CARDS if glossary.card_name(lang, c).lower() != c}
    )
    for lang in LANGS
}


def _check(text: str, lang: str, what: object) -> None:
    assert isinstance(text, str) and text.strip(), f"{lang}: nothing said for {what}"
    assert "None" not in text, f"{lang}: {text!r} ({what})"
    assert not re.search(r"%\(?\w*\)?[sd]|\{\w*\}", text), f"{lang}: a placeholder is left in {text!r}"
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), f"{lang}: an engine key in {text!r}"
    if lang == "en":
        assert not re.search(r"\b(pinup|tough|gunman|girl)\b", text), f"en: an engine key in {text!r}"
    else:
        raw = re.search(r"\b(" + "|".join(_RAW_WORDS[lang]) + r")\b", text, re.IGNORECASE)
        assert raw is None, f"{lang}: the engine key {raw.group(0)!r} in {text!r}"


# --- events -----------------------------------------------------------------------------------------------------


def test_every_event_type_the_engine_emits_has_a_sentence(played: tuple[list[Sample], list[Sample]]) -> None:
    emitted = _emitted_types()
    assert len(emitted) >= 35  # the regex still finds the engine's events
    assert emitted <= sentences.EVENT_TYPES, f"no sentence for {sorted(emitted - sentences.EVENT_TYPES)}"
    seen = {event["type"] for event, _ in played[0]}
    assert emitted <= seen, f"the games and scenarios never produced {sorted(emitted - seen)}"


def test_the_games_cover_every_variant(played: tuple[list[Sample], list[Sample]]) -> None:
    events = [e for e, _ in played[0]]
    assert {e["card"] for e in events if e["type"] == "card_played"} == set(CARDS)
    assert {e["kind"] for e in events if e["type"] == "answer_auto"} >= {"place", "move", "victim"}
    assert {e["reason"] for e in events if e["type"] == "card_kept"} == {"not_needed", "destination_has_room"}
    assert {e["reason"] for e in events if e["type"] == "truck_skipped"} >= {"parking_empty", "tie"}


@pytest.mark.parametrize("lang", LANGS)
def test_every_event_reads_well(played: tuple[list[Sample], list[Sample]], lang: str) -> None:
    for event, reader in played[0]:
        text = sentences.event_text(lang, event, reader)
        _check(text, lang, event)
        if lang != "en":
            assert text != sentences.event_text("en", event, reader), f"{lang}: not translated: {text!r}"


def test_the_reader_is_you() -> None:
    eaten = {"type": "eaten", "player": "red", "character": "pinup", "location": 4}
    assert sentences.event_text("en", eaten, "red") == "The zombies eat your Pin-Up at Parking Lot (4)."
    assert sentences.event_text("en", eaten, "blue") == "The zombies eat Red's Pin-Up at Parking Lot (4)."
    assert sentences.event_text("it", eaten, "blue") == (
        "Gli zombie mangiano il personaggio Bionda di Rosso nella locazione 4 (Parcheggio)."
    )
    assert (
        sentences.event_text("pl", eaten, "red")
        == "Zombie pożerają Twoją postać Śliczna lalunia w lokacji 4 (Parking)."
    )
    gift = {"type": "gift_received", "player": "blue", "card": "axe", "giver": "red"}
    assert sentences.event_text("en", gift, "blue") == "Red gives you a card from the truck: Axe."
    assert sentences.event_text("en", gift, "red") == "You give Axe to Blue."


def test_an_event_says_only_what_it_holds() -> None:
    """The view hides the dice from who may not see them: the sentence about a roll with no values shows none."""
    public = sentences.event_text("en", {"type": "zombie_dice_revealed", "values": [3, 4], "ignored": []}, None)
    assert "3 and 4" in public and "ignored" not in public
    moved = {"type": "moved", "player": "red", "character": "tough", "origin": 1, "target": 3, "location": 4}
    assert sentences.event_text("pl", moved, None) == (
        "Czerwony: postać Twardziel nie może wejść do lokacji 3 (Megatoys) i zamiast tego idzie z lokacji "
        "1 (Toalety) do lokacji 4 (Parking)."
    )


def test_polish_plurals_in_events() -> None:
    def left(n: int) -> str:
        return sentences.event_text("pl", {"type": "zombies_left", "location": 1, "zombies": n}, None)

    assert [left(n) for n in (1, 2, 5, 22)] == [
        "1 zombie opuszcza lokację 1 (Toalety).",
        "2 zombie opuszczają lokację 1 (Toalety).",
        "5 zombie opuszcza lokację 1 (Toalety).",
        "22 zombie opuszczają lokację 1 (Toalety).",
    ]


def test_an_unknown_event_still_gets_a_sentence() -> None:
    for lang in LANGS:
        _check(sentences.event_text(lang, {"type": "something_new"}, None), lang, "unknown")


# --- requests ---------------------------------------------------------------------------------------------------


def test_the_games_ask_every_kind(played: tuple[list[Sample], list[Sample]]) -> None:
    requests = [r for r, _ in played[1]]
    assert {r["kind"] for r in requests} == set(KINDS)
    assert {r["window"] for r in requests if r["kind"] == "cards"} == {"truck", "chief", "arrival", "attack", "sprint"}
    assert any(r.get("revote") for r in requests if r["kind"] == "vote")


@pytest.mark.parametrize("lang", LANGS)
def test_every_request_reads_well(played: tuple[list[Sample], list[Sample]], lang: str) -> None:
    for request, phase in played[1]:
        for given in (phase, None):
            text = sentences.request_text(lang, request, given)
            _check(text, lang, request)
            if lang != "en":
                assert text != sentences.request_text("en", request, given), f"{lang}: not translated: {text!r}"


def test_a_vote_says_what_it_decides() -> None:
    vote = {"player": "red", "kind": "vote", "location": 4, "revote": False, "weight": 2, "options": ["red", "blue"]}
    assert sentences.request_text("en", vote, "truck") == (
        "Vote at Parking Lot (4) with 2 votes: who searches the truck? Choose among Red and Blue."
    )
    assert sentences.request_text("pl", {**vote, "weight": 5}, "attack") == (
        "Głosowanie w lokacji 4 (Parking), masz 5 głosów: czyją postać zjedzą zombie? "
        "Wybierz spośród: Czerwony i Niebieski."
    )


# --- names ------------------------------------------------------------------------------------------------------


def _rules_table(heading: str) -> list[list[str]]:
    text = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    section = text.split(heading, 1)[1].split("\n\n", 2)[1]
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in section.splitlines()]
    return [row for row in rows[2:] if len(row) > 3]


def test_character_names_are_the_rulebooks() -> None:
    rows = {row[0]: row for row in _rules_table("### A2. Characters")}
    for character, english in glossary.CHARACTER_NAMES["en"].items():
        _, en, it, pl, *_ = rows[english]
        assert [glossary.character_name(lang, character) for lang in LANGS] == [en, it, pl]


def test_card_names_are_the_rulebooks() -> None:
    rows = [row[0].split(" / ") for row in _rules_table("### A3. Action cards")]
    by_english = {row[0]: row for row in rows}
    for card in set(CARDS) - set(WEAPONS):
        names = by_english[glossary.card_name("en", card)]
        for lang, name in zip(LANGS, names, strict=True):
            assert glossary.card_name(lang, card).startswith(name)


def test_locations_are_the_rulebooks() -> None:
    for row in _rules_table("### A1. Locations"):
        number, en, it, pl, capacity = int(row[0]), row[1], row[2], row[3], row[4]
        assert glossary.location_name("en", number).split()[0] in en
        for lang, cell in (("it", it), ("pl", pl)):
            if not cell.startswith(("not named", "–", "one of", '"')):
                assert glossary.location_name(lang, number) in cell
        expected = None if "unlimited" in capacity else int(capacity.strip("*"))
        assert glossary.location_capacity(number) == expected


@pytest.mark.parametrize("lang", LANGS)
def test_names_are_words_the_reply_grammar_reads(lang: str) -> None:
    """A player who copies a name from a mail into a reply is understood."""

    def words(table: dict[str, dict[Any, list[str]]], key: Any) -> set[str]:
        return {grammar.normalise(w) for w in table[lang][key]}

    for colour in COLOURS:
        assert grammar.normalise(glossary.colour_name(lang, colour)) in words(grammar.COLOUR_WORDS, colour)
    for character in CHARACTERS:
        assert grammar.normalise(glossary.character_name(lang, character)) in words(grammar.CHARACTER_WORDS, character)
    for card in CARDS:
        assert grammar.normalise(glossary.card_name(lang, card)) in words(grammar.CARD_WORDS, card)
    for loc in LOCATIONS:
        assert grammar.normalise(glossary.location_name(lang, loc)) in words(grammar.LOCATION_WORDS, loc)


@pytest.mark.parametrize("lang", LANGS)
def test_every_card_says_what_it_does(lang: str) -> None:
    for card in CARDS:
        text = glossary.card_text(lang, card)
        _check(text, lang, card)
        if card in WEAPONS:
            assert str(DEFAULT_WEAPONS[card]) in text
        if lang != "en":
            assert text != glossary.card_text("en", card)


def test_phase_names() -> None:
    assert glossary.phase_name("it", "attack") == "F. Attacco degli zombie"
    assert glossary.phase_name("pl", "truck") == "a) Przeszukiwanie auta"


@pytest.mark.parametrize(
    ("lang", "mine", "theirs"),
    [
        ("en", "you abstain (2 votes)", "Ann (Yellow) abstains (1 vote)"),
        ("it", "tu ti astieni (2 voti)", "Ann (Giallo) si astiene (1 voto)"),
        ("pl", "ty wstrzymujesz się (2 głosy)", "Ann (Żółty) wstrzymuje się (1 głos)"),
    ],
)
def test_the_reader_who_abstains_is_told_so_in_the_second_person(lang: str, mine: str, theirs: str) -> None:
    """VOT-7, H-4: the story speaks of its reader as "you", with the verb that goes with it ("you
    abstain", never "you abstains"); the others in the third person, by name."""
    event = {
        "type": "votes_revealed",
        "location": 1,
        "revote": False,
        "votes": {"red": None, "yellow": None, "blue": "red"},
        "weights": {"red": 2, "yellow": 1, "blue": 1},
        "totals": {"red": 1},
    }
    names = {"red": "Bea", "yellow": "Ann", "blue": "Cy"}
    told = sentences.event_text(lang, event, "red", names)
    assert mine in told and theirs in told, told
