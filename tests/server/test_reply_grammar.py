"""The reply grammar (server/text/grammar.py): every listed command, in English, Italian and Polish, parses back to an
answer the engine accepts, and the listed commands cover every option of every request met in real bot games;
optional forms (AND, IF NEEDED, ELSE, IF FULL, names, missing accents, lower case) parse; hostile input only ever
raises CommandError; quoted text and signatures from the usual mail clients are stripped."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.bots import RandomBot
from server.text.grammar import CommandError, commands_for, hints_for, parse_reply, strip_reply
from tests.profile import examples
from tests.support import bare

LANGS = ("en", "it", "pl")
KINDS = {"place", "cards", "vote", "victim", "truck", "announce", "destination", "move", "zombie"}
WINDOWS = {"truck", "chief", "arrival", "attack", "sprint"}
HEADING = {
    "en": "Reply with one of these lines:",
    "it": "Rispondi con una di queste righe:",
    "pl": "Odpowiedz jedną z tych linii:",
}
AND = {"en": "AND", "it": "E", "pl": "I"}
PLAY = {"en": "PLAY", "it": "GIOCA", "pl": "ZAGRAJ"}
IF_NEEDED = {"en": "IF NEEDED", "it": "SE SERVE", "pl": "W RAZIE POTRZEBY"}
ELSE = {"en": "ELSE", "it": "ALTRIMENTI", "pl": "INACZEJ"}
IF_FULL = {"en": "IF FULL", "it": "SE PIENO", "pl": "JEŚLI PEŁNE"}
CARD = {
    "en": {"axe": "AXE", "grenade": "GRENADE", "hardware": "HARDWARE", "threat": "THREAT", "camera": "CAMERA"},
    "it": {"axe": "ASCIA", "grenade": "GRANATA", "hardware": "BARRICATA", "threat": "MINACCIA", "camera": "TELECAMERA"},
    "pl": {"axe": "SIEKIERA", "grenade": "GRANAT", "hardware": "HARDWARE", "threat": "ZAGROŻENIE", "camera": "KAMERA"},
}
GAMES = [
    (players, order, options)
    for players in (
        ["red", "yellow", "blue"],
        ["red", "yellow", "blue", "green"],
        ["green", "red", "black", "yellow", "blue"],
        ["red", "yellow", "blue", "green", "black", "white"],
    )
    for order in ("strict", "batched")
    for options in ({}, {"sprint_timing": "after_moves", "attack_cards": "everyone"})
]


def key(answer: Any) -> str:
    return json.dumps(answer, sort_keys=True)


def accepted(game: engine.Game, req: engine.Request, answer: Any) -> None:
    game.check(req.player, req.kind, answer)  # raises IllegalAnswer if the engine refuses


def check_request(game: engine.Game, req: engine.Request, forms: set[str]) -> None:
    request = req.to_json()
    view = engine.view(game, req.player)
    by_lang: dict[str, list[str]] = {}
    for lang in LANGS:
        commands = commands_for(request, view, lang)
        assert commands, request
        answers = [parse_reply(c, request, view, lang) for c in commands]
        for answer in answers:
            accepted(game, req, answer)
        assert len({key(a) for a in answers}) == len(commands), commands  # no two lines mean the same
        by_lang[lang] = [key(a) for a in answers]
        # lower case, no accents, a quoted original and a signature: the same answer
        for command, answer in zip(commands[:3], answers[:3], strict=True):
            body = f"  {bare(command)}  \n\n-- \n{command}\n\n> {commands[-1]}\n"
            assert parse_reply(body, request, view, lang) == answer
        # the English commands work in every language
        if lang != "en":
            english = commands_for(request, view, "en")
            assert [key(parse_reply(c, request, view, lang)) for c in english] == by_lang["en"]
        check_options(request, answers)
        forms |= check_optional_forms(game, req, request, view, lang)
    assert by_lang["en"] == by_lang["it"] == by_lang["pl"]


def check_options(request: dict[str, Any], answers: list[Any]) -> None:
    """The answers of the listed commands cover every option of the request (and for cards every playable card)."""
    kind = request["kind"]
    options = request["options"]
    if kind in ("vote", "victim", "announce", "destination", "zombie"):
        assert sorted(answers) == sorted(options)
    elif kind in ("place", "move"):
        plain = [{k: v for k, v in a.items() if k in ("character", "location")} for a in answers]
        assert all(o in plain for o in options)
        assert all(p in options for p in plain)
    elif kind == "cards":
        assert [] in answers
        played = {a[0]["card"] for a in answers if a}
        assert played == set(request["playable"])
    elif kind == "truck":
        assert {a["keep"] for a in answers} == set(request["cards"])


def check_optional_forms(
    game: engine.Game, req: engine.Request, request: dict[str, Any], view: dict[str, Any], lang: str
) -> set[str]:
    """AND, IF NEEDED, ELSE, IF FULL and GO TO where they apply; returns the forms tried."""
    kind = request["kind"]
    tried: set[str] = set()
    if kind == "cards":
        hand = view["hand"]
        simple = [c for c in request["playable"] if c in CARD[lang]]
        hints = " ".join(hints_for(request, view, lang))
        if len(simple) >= 2:
            assert f" {AND[lang]} {PLAY[lang]} " in hints  # the hint shows how to play two cards
            a, b = simple[:2]
            text = f"{PLAY[lang]} {CARD[lang][a]} {AND[lang]} {PLAY[lang]} {CARD[lang][b]}"
            answer = parse_reply(text, request, view, lang)
            assert answer == [{"card": a}, {"card": b}]
            accepted(game, req, answer)
            assert (
                parse_reply(f"{PLAY[lang]} {CARD[lang][a]} {AND[lang]} {CARD[lang][b]}", request, view, lang) == answer
            )
            tried.add("and")
        for card in simple:
            if card in ("axe", "grenade", "hardware"):
                answer = parse_reply(f"{PLAY[lang].lower()} {CARD[lang][card]} {IF_NEEDED[lang]}", request, view, lang)
                assert answer == [{"card": card, "if_needed": True}]
                accepted(game, req, answer)
                assert IF_NEEDED[lang] in hints
                tried.add("if needed")
            if hand.count(card) == 1:
                with pytest.raises(CommandError):  # the second copy is not in hand
                    parse_reply(f"{PLAY[lang]} {CARD[lang][card]} {AND[lang]} {CARD[lang][card]}", request, view, lang)
                tried.add("one copy")
    elif kind == "place" and view["options"]["turn_order"] == "batched":
        option = request["options"][0]
        command = commands_for(request, view, lang)[0]
        answer = parse_reply(f"{command} {ELSE[lang]} 4", request, view, lang)
        assert answer == {**option, "fallback": 4}
        accepted(game, req, answer)
        tried.add("else")
        assert f" {ELSE[lang]} " in " ".join(hints_for(request, view, lang))
    elif kind == "move" and view["options"]["sprint_timing"] == "on_move" and "sprint" in view["hand"]:
        command = commands_for(request, view, lang)[0]
        answer = parse_reply(f"{command} SPRINT 4 {IF_FULL[lang]}", request, view, lang)
        assert answer == {**request["options"][0], "sprint": 4, "sprint_if_full": True}
        accepted(game, req, answer)
        tried.add("if full")
        assert IF_FULL[lang] in " ".join(hints_for(request, view, lang))
    elif kind in ("announce", "destination"):
        loc = request["options"][-1]
        assert parse_reply(f"go to {loc}", request, view, lang) == loc
        tried.add("go to")
    return tried


def test_every_listed_command_parses_to_an_accepted_answer_covering_every_option() -> None:
    """Real games, 3 to 6 players, strict and batched order, both Sprint timings: every request met, checked."""
    kinds: set[str] = set()
    windows: set[str] = set()
    requests = 0
    forms: set[str] = set()
    for seed, (players, order, options) in enumerate(GAMES):
        game = engine.new_game(players, seed=seed, options={"turn_order": order, **options})
        bot = RandomBot(seed)
        while not game.over:
            pending = game.pending()
            for req in pending:
                check_request(game, req, forms)
                requests += 1
                kinds.add(req.kind)
                if req.kind == "cards":
                    windows.add(req.info["window"])
            first = pending[0]
            game.answer(first.player, first.kind, bot.decide(game, first))
    assert kinds == KINDS
    assert windows == WINDOWS
    assert requests > 1000
    assert forms == {"and", "if needed", "one copy", "else", "if full", "go to"}


# --- fixed requests for the tests below ---------------------------------------------------------------------------


def first_request(kind: str, window: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The first request of ``kind`` (and card ``window``) met in a 4-player bot game, with its player's view."""
    for seed in range(20):
        game = engine.new_game(["red", "yellow", "blue", "green"], seed=seed, options={"turn_order": "strict"})
        bot = RandomBot(seed)
        while not game.over:
            req = game.pending()[0]
            if req.kind == kind and (window is None or req.info.get("window") == window):
                return req.to_json(), engine.view(game, req.player)
            game.answer(req.player, req.kind, bot.decide(game, req))
    raise AssertionError(f"no {kind} request met")


@pytest.fixture(scope="module")
def vote() -> tuple[dict[str, Any], dict[str, Any]]:
    return first_request("vote")


@pytest.fixture(scope="module")
def truck() -> tuple[dict[str, Any], dict[str, Any]]:
    return first_request("truck")


def test_names_and_spellings(vote: tuple[dict[str, Any], dict[str, Any]]) -> None:
    request, view = vote
    colour = request["options"][-1]
    italian = {"red": "rosso", "yellow": "giallo", "blue": "blu", "green": "verde"}[colour]
    polish = {"red": "czerwony", "yellow": "żółty", "blue": "niebieski", "green": "zielony"}[colour]
    assert parse_reply(f"vote for {colour}", request, view, "en") == colour
    assert parse_reply(f"Vota   per {italian.upper()}!", request, view, "it") == colour
    assert parse_reply(f"Głosuj na {polish}", request, view, "pl") == colour
    assert parse_reply(f"GLOSUJ {bare(polish).upper()}", request, view, "pl") == colour
    assert parse_reply(f"VOTE {colour}", request, view, "pl") == colour  # English works everywhere
    with pytest.raises(CommandError):  # Italian is not Polish
        parse_reply(f"VOTA {italian}", request, view, "pl")


def test_truck_forms(truck: tuple[dict[str, Any], dict[str, Any]]) -> None:
    request, view = truck
    cards = request["cards"]
    listed = commands_for(request, view, "pl")[0]
    assert listed.startswith("ZATRZYMAJ ") and " DLA " in listed and listed.endswith(("EGO", "CZERWONEGO"))
    answer = parse_reply(listed, request, view, "pl")
    assert answer["keep"] == cards[0] and answer["give"] == cards[1]
    swapped = parse_reply(f"GIVE {cards[1]} TO {answer['to']} AND KEEP {cards[0]}", request, view, "en")
    assert swapped == answer
    assert f"KEEP {cards[0]} GIVE {cards[1]} TO {answer['to']}".upper() in commands_for(request, view, "en")
    assert parse_reply(f"tieni {cards[0]} dai {cards[1]} a {answer['to']}", request, view, "it") == answer
    with pytest.raises(CommandError):
        parse_reply(f"KEEP {cards[0]} GIVE {cards[1]} TO {request['player']}", request, view, "en")


def test_error_lists_the_legal_commands_in_the_players_language(vote: tuple[dict[str, Any], dict[str, Any]]) -> None:
    request, view = vote
    for lang in LANGS:
        with pytest.raises(CommandError) as caught:
            parse_reply("Hello, I am not sure what to do.", request, view, lang)
        message = str(caught.value)
        lines = message.splitlines()
        assert HEADING[lang] in lines
        listed = lines[lines.index(HEADING[lang]) + 1 :]
        assert listed == [f"    {c}" for c in commands_for(request, view, lang)]
    with pytest.raises(CommandError) as caught:
        parse_reply("VOTE PURPLE", request, view, "en")
    assert str(caught.value).startswith("“VOTE PURPLE” is not a reply you can make now.")
    with pytest.raises(CommandError) as caught:
        parse_reply("VOTA VIOLA", request, view, "it")
    assert str(caught.value).startswith("«VOTA VIOLA» non è una risposta che puoi dare ora.")
    with pytest.raises(CommandError) as caught:
        parse_reply("kolor?", request, view, "pl")
    assert str(caught.value).startswith("W Twojej odpowiedzi nie znaleziono żadnego polecenia.")


HOSTILE = [
    "",
    "\x00" * 1000,
    "VOTE " * 200_000,
    "VOTE\n" * 200_000,
    "A" * 5_000_000,
    ">" * 100_000,
    "On " + "x" * 100_000 + " wrote:",
    "\u202e\u200b\ufeffVOTE\ud800",
    "PLAY " + " AND PLAY ".join(["AXE"] * 50_000),
    "VOTE RED " + "(" * 10_000,
    "𝐕𝐎𝐓𝐄 RED ñ",
    "-- \nVOTE RED",
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_only_raises_command_error(text: str, vote: tuple[dict[str, Any], dict[str, Any]]) -> None:
    request, view = vote
    for lang in (*LANGS, "xx"):
        with pytest.raises(CommandError):
            parse_reply(text, request, view, lang)


WORDS = ["VOTE", "GŁOSUJ", "VOTA", "RED", "ROSSO", "CZERWONY", "BLUE", "\n", ">", "-- ", "On", "wrote:", "AND", "3"]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(st.text(max_size=400), st.lists(st.sampled_from(WORDS) | st.text(max_size=4)).map(" ".join)))
def test_any_text_gives_a_legal_answer_or_command_error(text: str, vote: tuple[dict[str, Any], dict[str, Any]]) -> None:
    request, view = vote
    for lang in LANGS:
        try:
            answer = parse_reply(text, request, view, lang)
        except CommandError:
            continue
        assert answer in request["options"]


def test_bad_requests_and_views_raise_command_error() -> None:
    cases: list[tuple[dict[str, Any], dict[str, Any]]] = [
        ({}, {}),
        ({"kind": "cards"}, {}),
        ({"kind": "truck", "cards": None}, {"players": None}),
    ]
    for request, view in cases:
        with pytest.raises(CommandError):
            parse_reply("PLAY AXE", request, view, "en")


# --- stripping ----------------------------------------------------------------------------------------------------

ORIGINAL = """\
Round 2: the Chief election. You must vote.

Reply with one of these lines:
    VOTE RED
    VOTE YELLOW
    VOTE BLUE
"""
QUOTED = "\n".join(f"> {line}" if line else ">" for line in ORIGINAL.splitlines())

REPLIES = {
    "gmail en": (
        "Vote blue\n\nOn Sun, Nov 22, 2026 at 9:14 AM Deadmail <game-7@deadmail.example> wrote:\n\n" + QUOTED,
        "Vote blue",
    ),
    "gmail en wrapped": (
        "VOTE BLUE\n\nOn Sun, Nov 22, 2026 at 9:14 AM Deadmail Mall of Horror <\ngame-7+abc@deadmail.example> "
        "wrote:\n\n" + QUOTED,
        "VOTE BLUE",
    ),
    "thunderbird en": ("VOTE BLUE\n\nOn 22/11/2026 09:14, Deadmail wrote:\n" + QUOTED + "\n\n", "VOTE BLUE"),
    "outlook en": (
        "VOTE BLUE\r\n\r\nAnn\r\n\r\n-----Original Message-----\r\nFrom: Deadmail <game@deadmail.example>\r\n"
        "Sent: Sunday, November 22, 2026 9:14 AM\r\nTo: ann@example.org\r\nSubject: Mall of Horror\r\n\r\n" + ORIGINAL,
        "VOTE BLUE\n\nAnn",
    ),
    "outlook en new": (
        "vote blue\n\n________________________________\nFrom: Deadmail <game@deadmail.example>\n"
        "Sent: Sunday, 22 November 2026 09:14\nTo: Ann\nSubject: Mall of Horror\n\n" + ORIGINAL,
        "vote blue",
    ),
    "outlook en headers only": (
        "VOTE BLUE\n\nFrom: Deadmail <game@deadmail.example>\nSent: Sunday\nTo: Ann\n\n" + ORIGINAL,
        "VOTE BLUE",
    ),
    "gmail it": (
        "VOTA BLU\n\nIl giorno dom 22 nov 2026 alle ore 09:14 Deadmail <game@deadmail.example> ha scritto:\n\n"
        + QUOTED,
        "VOTA BLU",
    ),
    "thunderbird it": ("vota blu\n\nIl 22/11/2026 09:14, Deadmail ha scritto:\n" + QUOTED, "vota blu"),
    "outlook it": (
        "VOTA BLU\n\n-----Messaggio originale-----\nDa: Deadmail <game@deadmail.example>\n"
        "Inviato: domenica 22 novembre 2026 09:14\nA: anna@example.org\nOggetto: Mall of Horror\n\n" + ORIGINAL,
        "VOTA BLU",
    ),
    "gmail pl": (
        "GŁOSUJ NIEBIESKI\n\nndz., 22 lis 2026 o 09:14 Deadmail <game@deadmail.example> napisał(a):\n\n" + QUOTED,
        "GŁOSUJ NIEBIESKI",
    ),
    "thunderbird pl": ("glosuj niebieski\n\nW dniu 22.11.2026 o 09:14, Deadmail pisze:\n" + QUOTED, "glosuj niebieski"),
    "outlook pl": (
        "GŁOSUJ NIEBIESKI\n\n-----Oryginalna wiadomość-----\nOd: Deadmail <game@deadmail.example>\n"
        "Wysłano: niedziela, 22 listopada 2026 09:14\nDo: ania@example.org\nTemat: Mall of Horror\n\n" + ORIGINAL,
        "GŁOSUJ NIEBIESKI",
    ),
    "signature": ("VOTE BLUE\n-- \nAnn Smith\nVOTE RED\n", "VOTE BLUE"),
    "signature without space": ("VOTE BLUE\n--\nAnn\n", "VOTE BLUE"),
    "mobile": ("VOTE BLUE\n\nSent from my iPhone\n\n" + QUOTED, "VOTE BLUE"),
    "inline quote": ("> VOTE RED\n> VOTE YELLOW\nVOTE BLUE\n", "VOTE BLUE"),
}


@pytest.mark.parametrize("name", list(REPLIES))
def test_strip_reply(name: str) -> None:
    text, kept = REPLIES[name]
    assert strip_reply(text) == kept


@pytest.mark.parametrize("name", list(REPLIES))
def test_realistic_replies_parse_to_the_players_command(name: str) -> None:
    """The quoted original lists VOTE RED first: only the player's own line may count."""
    text, _ = REPLIES[name]
    request = {"player": "green", "kind": "vote", "location": 5, "revote": False, "weight": 1}
    request["options"] = ["red", "yellow", "blue"]
    view = {"players": ["red", "yellow", "blue", "green"], "you": "green", "hand": []}
    lang = "it" if " it" in name else "pl" if " pl" in name else "en"
    assert parse_reply(text, request, view, lang) == "blue"


def test_text_without_quotes_is_kept() -> None:
    text = "VOTE BLUE\n\nI think blue is leading.\nOn the other hand, who knows.\n"
    assert strip_reply(text) == "VOTE BLUE\n\nI think blue is leading.\nOn the other hand, who knows."
