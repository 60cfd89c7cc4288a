"""The game table on the seat page: the decision in context, built from the reader's view only and
checked against the engine's own numbers; the phase tracker; who is still deciding; the story from the reader's
side with the table's names; the end with places and the tie-break; the replay linked from the page and the mail."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator
from itertools import chain

import pytest

import engine
from engine.bots import RandomBot
from engine.data import CAPACITY, LOCATIONS
from engine.rules import attack_threshold, count_at
from server.present.context import context
from server.present.seat import outcome, phase_steps, standings
from server.services.play import games
from server.text import glossary, sentences
from tests.conftest import Stack
from tests.server.test_seat_page import decision_form
from tests.support import (
    T0,
    compose,
    create,
    engine_of,
    html_of,
    mail_settings,
    open_window,
    outbox_ids,
    play_window,
    table_names,
    text_of,
)

# --- the decision in context, from real engine views ----------------------------------------------------------------


def positions(seed_range: Iterable[int], players: int = 4) -> Iterator[tuple[engine.Game, list[engine.Request]]]:
    """Every open window of real games played by random bots."""
    colours = ["red", "yellow", "blue", "green", "black"][:players]
    for seed in seed_range:
        game = engine.new_game(colours, seed=seed)
        bots = {p: RandomBot(seed) for p in game.players}
        while not game.over:
            pending = list(game.pending())
            yield game, pending
            for req in pending:
                game.answer(req.player, req.kind, bots[req.player].decide(game, req))


@pytest.mark.rule("VOT-2")
def test_a_vote_says_who_votes_with_how_many_votes_as_the_engine_counts_them() -> None:
    """Every voter's weight computed from the reader's view (characters, Gunman, Threats played) is the weight the
    engine gives that voter's request; the candidates are the request's options. Seeds 230 (four players) and 43
    (five) meet a voter whose characters there are all hidden and who votes by a Threat played."""
    seen = revotes = threats = by_threat_alone = 0
    for game, pending in chain(positions(range(12)), positions([230]), positions([43], players=5)):
        votes = [r for r in pending if r.kind == "vote"]
        if not votes:
            continue
        weights = {r.player: r.to_json()["weight"] for r in votes}
        for req in votes:
            view = engine.view(game, req.player)
            shown = context("en", view, req.to_json())
            assert shown is not None
            rows = {row.cells[0]: int(row.cells[1]) for row in shown.rows}
            assert rows == {sentences.player_label("en", p): w for p, w in weights.items()}
            mine = [row for row in shown.rows if row.mine]
            assert len(mine) == 1 and mine[0].mark == "you"
            options = ", ".join(sentences.player_label("en", c) for c in req.options or [])
            assert f"May be voted for: {options}." in shown.notes
            seen += 1
            revotes += bool(req.info.get("revote"))
            threats += any("Threat +" in row.cells[2] for row in shown.rows)
            by_threat_alone += any(row.cells[2].startswith("Threat +") for row in shown.rows)
    assert seen > 50 and revotes and threats and by_threat_alone


def test_a_destination_shows_how_full_each_location_is_and_its_zombies() -> None:
    seen = 0
    for game, pending in positions(range(3)):
        for req in pending:
            if req.kind != "destination":
                continue
            view = engine.view(game, req.player)
            shown = context("en", view, req.to_json())
            assert shown is not None and shown.columns == ["Location", "Places taken", "Zombies in front"]
            open_ = [loc for loc in LOCATIONS if loc not in game.closed]
            assert len(shown.rows) == len(open_)
            for loc, row in zip(open_, shown.rows, strict=True):
                assert row.cells[0].startswith(glossary.location_label("en", loc))
                used = count_at(game, loc)
                assert row.cells[1].startswith(
                    f"{used} (no limit)" if CAPACITY[loc] is None else f"{used}/{CAPACITY[loc]}"
                )
                assert row.cells[2] == str(game.zombies[loc])
                assert ("not for you now" in row.cells[0]) == (loc not in (req.options or []))
                assert row.mine == (loc in game.chars[req.player].values())
            seen += 1
    assert seen > 10


@pytest.mark.rule("F-4")
def test_an_attack_card_window_says_what_each_card_would_do_now() -> None:
    """A weapon names its kills and the defence the engine computes (Hardware played included); Hardware adds one
    to that defence; the note says how many zombies stand against it."""
    weapons = hardware = 0
    for game, pending in positions(range(40)):
        for req in pending:
            info = req.to_json()
            if req.kind != "cards" or info["window"] != "attack" or info["location"] == 4:
                continue
            loc = info["location"]
            shown = context("en", engine.view(game, req.player), info)
            assert shown is not None
            defence, zombies = attack_threshold(game, loc), game.zombies[loc]
            place = glossary.location_label("en", loc)
            note = f"At {place} {zombies} zombie{'s' if zombies != 1 else ''} stand"
            assert shown.notes[0].startswith(note) and f"a defence of {defence}:" in shown.notes[0]
            for row in shown.rows:
                if row.cells[0] in ("Axe", "Pistol", "Baseball Bat", "Shotgun", "Grenade", "Chainsaw"):
                    assert f"against a defence of {defence}," in row.cells[1]
                    weapons += 1
                if row.cells[0] == "Hardware" and loc != 6:
                    assert row.cells[1].startswith(f"adds 1 to the defence of {place}: {defence + 1} against")
                    hardware += 1
    assert weapons and hardware


def test_the_phase_tracker_marks_done_current_and_next() -> None:
    steps = phase_steps("en", "arrival")
    assert [s.state for s in steps] == ["done", "done", "current", "next", "next", "next"]
    assert steps[0].name == "A. Search the truck" and steps[-1].name == "F. Attack of the zombies"
    assert all(s.state == "done" for s in phase_steps("en", "over"))
    assert all(s.state == "next" for s in phase_steps("en", "setup"))
    assert phase_steps("pl", "attack")[5].name == "f) Atak zombie"


# --- the end -----------------------------------------------------------------------------------------------------


@pytest.mark.rule("END-3")
def test_places_follow_points_then_cards_and_full_ties_share_a_place() -> None:
    result = {
        "scores": {"red": 8, "blue": 8, "green": 8, "yellow": 3},
        "cards": {"red": 1, "blue": 2, "green": 1, "yellow": 0},
        "winners": ["blue"],
    }
    rows = standings("en", result, ["red", "blue", "green", "yellow"], "green", {"green": "Ann"})
    assert [(r["name"], r["place"], r["you"]) for r in rows] == [
        ("Blue", "1st", False),
        ("Red", "2nd", False),
        ("Ann (Green)", "2nd", True),
        ("Yellow", "4th", False),
    ]
    view = {"outcome": result, "players": ["red", "blue", "green", "yellow"], "you": "blue", "events": []}
    shown = outcome("en", view)
    assert shown is not None and shown.won and shown.standings[0]["winner"]
    assert shown.tiebreak == (
        "Tied on points, the player with more cards left in hand wins; tied on cards too, they share the place."
    )


# --- the story from the reader's side ------------------------------------------------------------------------------


def test_the_story_says_you_and_names_the_others() -> None:
    names = {"red": "Ann", "blue": "Bruno", "green": None}
    moved = {"type": "moved", "player": "red", "character": "tough", "origin": 1, "target": 3, "location": 3}
    assert sentences.event_text("en", moved, "red", names) == (
        "You move your Tough Guy from Restroom (1) to Megatoys (3)."
    )
    assert sentences.event_text("en", moved, "blue", names) == (
        "Ann (Red) moves the Tough Guy from Restroom (1) to Megatoys (3)."
    )
    threat = {"type": "card_played", "player": "red", "card": "threat", "location": 5}
    assert sentences.event_text("en", threat, "red", names) == "You play a Threat: one extra vote."
    revealed = {"type": "destinations_revealed", "destinations": {"red": 3, "green": 6}}
    assert sentences.event_text("en", revealed, "red", names) == (
        "Destinations revealed: you → Megatoys (3) and Green → Supermarket (6)."
    )
    assert sentences.player_label("it", "blue", names) == "Bruno (Blu)"


def test_the_replay_tells_answers_in_the_third_person() -> None:
    names = {"red": "Ann"}
    said = sentences.told_answer("en", {"kind": "vote"}, "blue", "red", names)
    assert said == "Ann (Red) voted for Blue."
    truck = {"keep": "axe", "give": "threat", "to": "red"}
    assert sentences.told_answer("en", {"kind": "truck"}, truck, "blue", names) == (
        "Blue kept Axe and gave Threat to Ann (Red)."
    )
    assert sentences.told_answer("en", {"kind": "cards"}, [], "red", names) == "Ann (Red) played no card."
    assert sentences.told_answer("it", {"kind": "vote"}, "blue", "red", names) == "Ann (Rosso) ha votato per Blu."


# --- the seat page -------------------------------------------------------------------------------------------------


def token_of(stack: Stack, game_id: int, colour: str) -> str:
    rows = games.seat_links(stack.db, game_id, stack.settings.secret_key, "")
    return next(r["link"] for r in rows if r["colour"] == colour).rsplit("/", 1)[1]


def page_of(stack: Stack, token: str) -> str:
    return stack.client.get(f"/s/{token}").get_data(as_text=True)


def waiting(text: str) -> str:
    found = re.search(r'<p class="waiting">(.*?)</p>', text, re.S)
    return "" if found is None else html.unescape(found[1])


@pytest.mark.rule("B-INFO")
def test_still_deciding_names_who_has_not_answered_and_nobody_asked_in_secret(embedded: Stack) -> None:
    stack = embedded
    game_id = create(stack.db, 3, seed=21).game_id
    names = table_names(stack.db, game_id)
    tokens = {c: token_of(stack, game_id, c) for c in names}
    checked_public = checked_secret = 0
    for _ in range(40):
        window = open_window(stack.db, game_id)
        if window is None:
            break
        eng = engine_of(stack.db, game_id)
        pending = list(eng.pending())
        secret = [r for r in pending if engine.asked_in_secret(r)]
        public = [r for r in pending if not engine.asked_in_secret(r)]
        if public and len(public) >= 2 and not checked_public:
            answerer = public[0]
            form = decision_form(page_of(stack, tokens[answerer.player]))
            reply = stack.client.post(
                f"/s/{tokens[answerer.player]}/do", data={**form["hidden"], "c": form["radios"][0]}
            )
            assert reply.status_code == 303
            mine = page_of(stack, tokens[answerer.player])
            assert not waiting(mine).startswith("Still deciding: you")  # answered: never listed
            for other in public[1:]:
                text = page_of(stack, tokens[other.player])
                said = waiting(text)
                assert sentences.player_label("en", answerer.player, names) not in said
                assert said.startswith("Still deciding: you")  # the reader owes an answer: first, as "you"
                for still in public[1:]:
                    if still.player != other.player:
                        assert sentences.player_label("en", still.player, names) in said
            checked_public += 1
        if secret and not public:
            for colour in names:
                said = waiting(page_of(stack, tokens[colour]))
                for req in secret:
                    if req.player != colour:
                        assert sentences.player_label("en", req.player, names) not in said
            checked_secret += 1
        play_window(stack.db, game_id, 21, T0)
    assert checked_public and checked_secret


def test_the_page_shows_the_tracker_the_context_and_folds_earlier_rounds(embedded: Stack) -> None:
    stack = embedded
    game_id = create(stack.db, 3, seed=22).game_id
    names = table_names(stack.db, game_id)
    while engine_of(stack.db, game_id).round < 2:
        play_window(stack.db, game_id, 22, T0)
    eng = engine_of(stack.db, game_id)
    owing = next(r for r in eng.pending())
    text = page_of(stack, token_of(stack, game_id, owing.player))
    assert '<body class="wide">' in text and 'class="table-layout seat-table"' in text
    assert text.index('class="seat-side"') < text.index('class="seat-main"')  # the decision first on a phone
    current = re.findall(r'<li class="phase-current" aria-current="step">([^<]*)</li>', text)
    assert current == [glossary.phase_name("en", str(eng.phase))]
    if owing.kind in ("vote", "destination", "cards"):
        assert '<div class="context">' in text
    assert '<details id="story-1" class="earlier" hx-preserve="true">' in text
    other = next(c for c in names if c != owing.player)
    assert html.escape(sentences.player_label("en", other, names)) in text  # "P1 (Blue)" in the story


@pytest.mark.rule("END-3")
def test_the_end_shows_places_the_tie_break_and_the_replay_link(embedded: Stack) -> None:
    stack = embedded
    game_id = create(stack.db, 3, seed=23).game_id
    for _ in range(2000):
        if open_window(stack.db, game_id) is None:
            break
        play_window(stack.db, game_id, 23, T0)
    eng = engine_of(stack.db, game_id)
    assert eng.over
    token = token_of(stack, game_id, eng.players[0])
    text = page_of(stack, token)
    assert "Game over" in text and 'class="standings"' in text and "1st" in text
    assert "Tied on points, the player with more cards left in hand wins" in text
    assert f'href="/s/{token}/replay"' in text
    assert '<span class="mark">you</span>' in text
    assert stack.client.get(f"/s/{token}/replay").status_code == 200
    # the game-over mail: the same places, the tie-break and the replay, in both parts
    settings = mail_settings(stack.settings)
    mails = [m for m in (compose(stack.db, i, settings) for i in outbox_ids(stack.db, game_id)) if m is not None]
    last = next(m for m in reversed(mails) if "the game is over" in str(m["Subject"]))
    for part in (html_of(last), text_of(last)):
        assert "1st" in part and "Tied on points, the player with more cards left in hand wins" in part
        assert re.search(r"/s/[\w.-]+/replay", part) and "See the replay" in part


@pytest.mark.rule("H-6")
def test_once_every_answer_is_in_nobody_is_named_as_still_deciding() -> None:
    """A window complete while a player is still listed as owing (their standing answers gave it, which only they
    may know): the page names nobody, rather than someone who visibly did not answer yet the window closed."""
    from server.present.seat import _owing

    view = {"you": "red", "waiting_for": [{"player": "blue", "kind": "vote"}]}
    window = {"request": {"kind": "vote"}, "answer": None, "completed": False}
    assert _owing("en", view, window, {"blue": "Ola"}) == ["you", "Ola (Blue)"]
    assert _owing("en", view, {**window, "answer": "blue"}, {"blue": "Ola"}) == ["Ola (Blue)"]
    assert _owing("en", view, {**window, "answer": "blue", "completed": True}, {"blue": "Ola"}) == []
