"""The board picture (``server.present.board``), from real engine views: the six locations with their places
("2/3"), a token per character with its type's figure and letter, the zombies as figures with their number, closed
and overrun locations, the locations in danger during an attack, the Chief's star, the legend, the truck's cards and
the cards out of the game; nothing in it that the reader's view does not say."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

import engine
from engine import rules
from engine.bots import RandomBot, SensibleBot
from engine.data import CAPACITY, CHARACTERS, DECK_SIZE, LOCATIONS, PARKING, Phase
from engine.view import spectator_view
from server.present import board, public
from server.present.board import ZOMBIE_FIGURES, board_svg, discarded, sample_board, sample_view
from server.text import glossary
from server.text.glossary import letters

SVG = "{http://www.w3.org/2000/svg}"


def game_with_hidden_character() -> engine.Game:
    """A real four-player game played by random bots until a character is hidden (Cachou is closed with four)."""
    for seed in range(200):
        game = engine.new_game(["red", "yellow", "blue", "green"], seed=seed)
        bots = {p: RandomBot(seed) for p in game.players}
        while not game.over:
            for req in game.pending():
                game.answer(req.player, req.kind, bots[req.player].decide(game, req))
                if game.hidden and not game.over:
                    return game
    raise AssertionError("no game hid a character")


def played_until(players: list[str], seed: int, round_: int, phase: Phase) -> engine.Game:
    """A real game of sensible bots, stopped once it reaches ``phase`` of round ``round_``."""
    game = engine.new_game(players, seed=seed)
    bots = {p: SensibleBot(seed + i) for i, p in enumerate(game.players)}
    while not game.over and not (game.round >= round_ and game.phase == phase):
        for req in game.pending():
            game.answer(req.player, req.kind, bots[req.player].decide(game, req))
    assert not game.over
    return game


def figure_of(view: dict[str, Any], lang: str = "en", reader: str | None = "red") -> ET.Element:
    """The whole ``<figure>`` (picture and legend) as XML: it must be well formed."""
    return ET.fromstring(str(board_svg(view, lang, reader)))


def svg(root: ET.Element) -> ET.Element:
    found = root.find(f"{SVG}svg")
    assert found is not None
    return found


def groups(root: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if cls in (g.get("class") or "").split()]


def texts(element: ET.Element, cls: str) -> list[str]:
    return [t.text or "" for t in element.iter(f"{SVG}text") if cls in (t.get("class") or "").split()]


def title(element: ET.Element) -> str:
    found = element.find(f"{SVG}title")
    assert found is not None
    return found.text or ""


def locations(root: ET.Element) -> dict[int, ET.Element]:
    return {int(g.get("data-location") or 0): g for g in groups(svg(root), "location")}


def legend_text(root: ET.Element) -> str:
    (legend,) = [d for d in root.iter("div") if d.get("class") == "board-legend"]
    return " ".join(" ".join(legend.itertext()).split())


@pytest.mark.rule("B-INFO")
def test_each_location_shows_its_places_tokens_with_figures_and_letters_and_its_zombies() -> None:
    game = game_with_hidden_character()
    view = engine.view(game, "red")
    root = figure_of(view)
    picture = svg(root)
    assert root.tag == "figure" and picture.get("class") == "board" and picture.get("role") == "img"
    assert "round" in title(picture)
    marks = letters("en")
    hidden = {tuple(pair) for pair in view["hidden"]}
    assert hidden
    found = locations(root)
    assert sorted(found) == list(LOCATIONS)
    for loc, group in found.items():
        here = [(c, ch) for c in view["players"] for ch in CHARACTERS if view["characters"][c].get(ch) == loc]
        # the name, the number, and the places: "used/capacity", the Parking only its count
        assert glossary.location_label("en", loc) in title(group)
        assert texts(group, "loc-number") == [str(loc)]
        capacity = CAPACITY[loc]
        assert texts(group, "places-text") == [str(len(here)) if capacity is None else f"{len(here)}/{capacity}"]
        # the tokens: every character here, its colour, a figure and its letter, its name in its title
        tokens = groups(group, "token")
        assert [(t.get("data-colour"), t.get("data-character")) for t in tokens] == here
        for token in tokens:
            colour, character = token.get("data-colour") or "", token.get("data-character") or ""
            name = glossary.character_name("en", character)
            label = f"{glossary.colour_name('en', colour)} {name}"
            assert title(token).startswith(label)
            # its name: the letter it shows, then what it is (axe: a control's name holds its visible text)
            assert (token.get("aria-label") or "").startswith(
                f"{glossary.colour_name('en', colour)} {marks[character]}"
            )
            assert texts(token, "letter") == [marks[character]]
            assert len([p for p in token.iter(f"{SVG}path") if p.get("class") == "figure"]) == 1
            assert ("hidden" in (token.get("class") or "").split()) == ((colour, character) in hidden)
            assert ("(hidden)" in title(token)) == ((colour, character) in hidden)
            assert ("yours" in (token.get("class") or "").split()) == (colour == "red")
        # free places are drawn as empty spots (none in a closed location)
        free = [c for c in group.iter(f"{SVG}circle") if c.get("class") == "free-place"]
        closed = loc in view["closed"]
        assert len(free) == (0 if closed or capacity is None else capacity - len(here))
        # the zombies: a figure each up to five, and their number beside them
        zombies = view["zombies"][str(loc)]
        (crowd,) = groups(group, "zombies")
        figures = [p for p in crowd.iter(f"{SVG}path") if p.get("class") == "zombie"]
        assert len(figures) == min(zombies, ZOMBIE_FIGURES)
        assert texts(crowd, "zombie-count") == ([f"×{zombies}"] if zombies else [])
        assert title(crowd) == (f"{zombies} zombie" if zombies == 1 else f"{zombies} zombies")
    # the screen reader's words: every token named in the picture's description
    desc = picture.find(f"{SVG}desc")
    assert desc is not None
    for colour, character in hidden:
        assert f"{glossary.colour_name('en', colour)} {glossary.character_name('en', character)} (hidden)" in (
            desc.text or ""
        )


def test_many_zombies_show_five_figures_and_their_number() -> None:
    view = engine.view(game_with_hidden_character(), "red")
    view["zombies"] = {**view["zombies"], "3": 11}
    (crowd,) = groups(locations(figure_of(view))[3], "zombies")
    assert len([p for p in crowd.iter(f"{SVG}path") if p.get("class") == "zombie"]) == ZOMBIE_FIGURES == 5
    assert texts(crowd, "zombie-count") == ["×11"]


@pytest.mark.rule("SET-4")
def test_a_closed_location_is_hatched_and_one_closed_by_the_zombies_is_marked_overrun() -> None:
    # four players: Cachou is closed from the start, not overrun
    view = engine.view(game_with_hidden_character(), "red")
    cachou = locations(figure_of(view))[2]
    assert "closed" in (cachou.get("class") or "").split() and "overrun" not in (cachou.get("class") or "")
    assert texts(cachou, "closed-text") == ["CLOSED"]
    assert any(r.get("fill") == "url(#dm-hatch)" for r in cachou.iter(f"{SVG}rect"))
    for loc in (1, 3, 4, 5, 6):
        assert not texts(locations(figure_of(view))[loc], "closed-text")


@pytest.mark.rule("E-3")
def test_a_condemned_location_is_marked_overrun() -> None:
    game = played_until(["red", "yellow", "blue", "green", "black"], 7, 2, Phase.DESTINATIONS)
    view = spectator_view(game)
    empty = next(loc for loc in (1, 3, 5, 6) if not any(loc in chars.values() for chars in view["characters"].values()))
    view["closed"] = [empty]  # as E-3 leaves it: closed, zombies removed
    view["zombies"] = {**view["zombies"], str(empty): 0}
    root = figure_of(view, reader=None)
    group = locations(root)[empty]
    assert {"closed", "overrun"} <= set((group.get("class") or "").split())
    assert texts(group, "closed-text") == ["OVERRUN"]
    assert any(r.get("fill") == "url(#dm-overrun)" for r in group.iter(f"{SVG}rect"))
    assert "overrun: closed by the zombies" in title(group)
    assert "overrun" in legend_text(root)
    # Cachou with five players is open
    assert "closed" not in (locations(root)[2].get("class") or "").split()


@pytest.mark.rule("F-3")
def test_during_the_attack_the_locations_the_zombies_would_get_into_are_in_danger() -> None:
    seen = set()
    for seed in range(3, 12):
        game = played_until(["red", "yellow", "blue", "green", "black"], seed, 2, Phase.ATTACK)
        assert game.hardware == 0
        root = figure_of(spectator_view(game), reader=None)
        for loc, group in locations(root).items():
            danger = "danger" in (group.get("class") or "").split()
            expected = loc not in game.closed and rules.zombies_get_in(game, loc)
            assert danger == expected, (seed, loc)
            assert bool(groups(group, "danger-mark")) == expected
            assert ("in danger" in title(group)) == expected
            seen.add(danger)
        assert "in danger" in legend_text(root)
    assert seen == {True, False}
    # outside the attack nothing is in danger
    root = figure_of(spectator_view(played_until(["red", "yellow", "blue"], 3, 2, Phase.DESTINATIONS)), reader=None)
    assert not [g for g in groups(svg(root), "location") if "danger" in (g.get("class") or "").split()]


@pytest.mark.rule("F-2", "F-3", "DEF-3")
def test_in_danger_counts_the_hardware_played_and_ends_with_each_attack() -> None:
    """At every window of phase F of real games (random bots play Hardware): the location being attacked is in
    danger exactly when the engine lets the zombies in, Hardware played counted (F-3, DEF-3); a location already
    fought or passed over is not (F-2); one still to come is when its zombies reach its strength. The decision's
    context reads the same defence (``present.public``)."""
    met = {"hardware": 0, "after": 0, "ahead": 0}
    for seed in range(20):
        game = engine.new_game(["red", "yellow", "blue", "green", "black"], seed=seed)
        bots = {p: RandomBot(seed + i) for i, p in enumerate(game.players)}
        while not game.over:
            pending = list(game.pending())
            fought = {r.to_json().get("location") for r in pending} if game.phase == Phase.ATTACK else set()
            if game.phase == Phase.ATTACK and len(fought) == 1 and None not in fought:
                (current,) = fought
                view = spectator_view(game)
                assert public.attack_under_way(view) == current
                for loc in LOCATIONS:
                    if loc == current:
                        expected = loc not in game.closed and rules.zombies_get_in(game, loc)
                        expected = expected and rules.count_at(game, loc) > 0  # nobody at the Parking: no danger
                        met["hardware"] += game.hardware > 0
                    elif LOCATIONS.index(loc) < LOCATIONS.index(current):
                        expected = False
                        met["after"] += game.zombies[loc] > 0 and rules.count_at(game, loc) > 0
                    else:
                        hardware, game.hardware = game.hardware, 0  # Hardware holds only the location it was for
                        expected = loc not in game.closed and rules.zombies_get_in(game, loc)
                        expected = expected and rules.count_at(game, loc) > 0
                        game.hardware = hardware
                        met["ahead"] += expected
                    assert public.in_danger(view, loc) == expected, (seed, game.round, loc, current)
                    if loc == current and loc != PARKING:  # the Parking has no defence (F-7)
                        assert public.defence(view, loc) == rules.attack_threshold(game, loc)
            for req in pending:
                game.answer(req.player, req.kind, bots[req.player].decide(game, req))
    assert all(met.values()), met


@pytest.mark.rule("B-INFO")
def test_the_chief_has_one_star_on_the_board_and_a_badge_in_the_legend() -> None:
    """The Chief's star is drawn once, on the Security HQ's sign in the Chief's colour (not on every token of that
    colour); each of the Chief's tokens says it in words."""
    game = game_with_hidden_character()
    view = engine.view(game, "red")
    root = figure_of(view)
    chief = view["chief"]
    stars = [p for p in svg(root).iter(f"{SVG}polygon") if p.get("class") == "chief-star"]
    assert len(stars) == 1
    seals = groups(svg(root), "chief-seal")
    assert [s.get("data-colour") for s in seals] == [chief]
    assert title(seals[0]) == f"Chief of Security: {glossary.colour_name('en', chief)}"
    for token in groups(svg(root), "token"):
        assert ("Chief of Security" in title(token)) == (token.get("data-colour") == chief)
    badges = [li for li in root.iter("li") if li.find("span[@class='chief-badge']") is not None]
    assert [li.get("data-colour") for li in badges] == [chief]
    assert ("not elected" in " ".join(badges[0].itertext())) == (not view["chief_elected"])
    assert "Chief of Security" in (svg(root).find(f"{SVG}desc").text or "")  # type: ignore[union-attr]


def test_the_legend_names_players_figures_and_marks_and_the_truck_and_discard_counts() -> None:
    game = played_until(["red", "yellow", "blue"], 3, 3, Phase.DESTINATIONS)
    view = engine.view(game, "blue")
    names = {"red": "Ann", "blue": "<b>Ola</b>"}
    root = ET.fromstring(str(board_svg(view, "en", "blue", names)))
    text = legend_text(root)
    assert "Ann (Red)" in text and "<b>Ola</b> (Blue) (you)" in text and "Yellow" in text
    for character, letter in letters("en").items():
        assert f"{letter} {glossary.character_name('en', character)}" in text
    for word in ("zombie", "yours", "hidden", "free place", "defence", "closed", "overrun"):
        assert word in text
    assert view["deck_size"] < DECK_SIZE - 3
    gone = discarded(view)
    assert gone == len(game.played)  # the public count agrees with the engine's own pile
    assert f"The truck: {view['deck_size']} cards left" in text
    assert f"{gone} card{'s' if gone != 1 else ''} out of the game" in text
    (truck,) = groups(svg(root), "truck")
    assert texts(truck, "truck-count") == [str(view["deck_size"])]
    (pile,) = groups(svg(root), "discard")
    assert texts(pile, "discard-count") == [str(gone)]
    # a name is text, never markup
    assert "<b>" not in str(board_svg(view, "en", "blue", names)).replace("&lt;b&gt;", "")


@pytest.mark.rule("B-INFO")
def test_the_board_depends_only_on_the_public_view() -> None:
    """A spectator's board and a player's board for no reader are the same: no hand, answer or die is used; the
    hidden characters are drawn as every view gives them."""
    game = game_with_hidden_character()
    public = str(board_svg(spectator_view(game), "en", None))
    for colour in game.players:
        assert str(board_svg(engine.view(game, colour), "en", None)) == public
    assert "(yours)" not in public and "yours" not in public.split('class="')[1:]
    assert "hidden" in public
    for cards in game.hands.values():
        for card in cards:
            assert glossary.card_name("en", card) not in public


@pytest.mark.parametrize("lang", ["it", "pl"])
def test_the_board_speaks_italian_and_polish(lang: str) -> None:
    view = engine.view(game_with_hidden_character(), "blue")
    root = figure_of(view, lang, "blue")
    words = " ".join(root.itertext())
    for loc in LOCATIONS:
        assert glossary.location_name(lang, loc) in words
    for token in groups(svg(root), "token"):
        character = token.get("data-character") or ""
        assert texts(token, "letter") == [letters(lang)[character]]
        assert glossary.character_name(lang, character) in (token.get("aria-label") or "")
    for character in CHARACTERS:
        assert glossary.character_name(lang, character) in legend_text(root)
    assert "The truck" not in words and "zombies" not in title(svg(root))


def test_the_sample_board_is_a_game_in_its_third_round_drawn_once() -> None:
    view = sample_view()
    assert view["round"] == 3 and view["phase"] == "attack" and len(view["players"]) == 5
    assert "hands" not in view and "hand" not in view and "dice" not in view
    assert sample_board("en") is sample_board("en")
    assert 'class="board"' in str(sample_board("it")) and "Parcheggio" in str(sample_board("it"))


def test_revealed_destinations_are_flags_and_this_rounds_moves_are_arrows() -> None:
    """Once destinations are public (D-1 the Chief's, E-1 all), a flag in each player's colour stands in the room
    they head to, and the legend says it in words; once they have moved, each move of the round is an arrow from the
    room left to the room reached (a stay draws none), gone when the next round begins."""
    eng = engine.new_game(["red", "yellow", "blue", "green"], seed=12)
    bots = {c: SensibleBot(12) for c in eng.players}
    flags_seen = arrows_seen = False
    while not eng.over and eng.round < 3:
        view = engine.view(eng, "red")
        page = str(board.board_svg(view, "en", "red"))
        moves = [
            (e["player"], e["origin"], e["location"])
            for e in view["events"][
                max((i for i, e in enumerate(view["events"]) if e["type"] == "round_started"), default=0) :
            ]
            if e["type"] == "moved" and e["origin"] != e["location"]
        ]
        arrows = re.findall(r'<g class="move-arrow" data-colour="(\w+)" data-from="(\d)" data-to="(\d)">', page)
        assert [(c, int(a), int(b)) for c, a, b in arrows] == moves
        flags = re.findall(r'<g class="destination-flag" data-colour="(\w+)">', page)
        assert sorted(flags) == ([] if moves else sorted(view["destinations"]))
        for loc in view["destinations"].values():
            assert (f"heading to {glossary.location_label('en', loc)}" in page) == (not moves)
        flags_seen |= bool(flags)
        arrows_seen |= bool(arrows)
        for request in eng.pending():
            eng.answer(request.player, request.kind, bots[request.player].decide(eng, request))
    assert flags_seen and arrows_seen


@pytest.mark.rule("VOT-2", "B-INFO")
def test_the_last_vote_of_the_round_is_shown_under_the_board_once_revealed_and_never_before() -> None:
    """While a vote is open nothing of it is shown (its ballots are secret until it closes); once revealed, each
    ballot (the voter's colour, the colour voted for, its weight) and the vote in words are shown under the board,
    until the round ends."""
    game = engine.new_game(["red", "yellow", "blue", "green"], seed=3)
    bots = {p: RandomBot(3) for p in game.players}
    seen_open = seen_revealed = 0
    while not game.over and game.round < 4:
        view = engine.view(game, "red")
        lines = [p for p in figure_of(view).iter("p") if p.get("class") == "board-vote"]
        since_round = view["events"][
            max((i for i, e in enumerate(view["events"]) if e["type"] == "round_started"), default=0) :
        ]
        revealed = [e for e in since_round if e["type"] == "votes_revealed"]
        if any(r.kind == "vote" for r in game.pending()) and not revealed:
            seen_open += 1
        if not revealed:
            assert lines == []
        else:
            seen_revealed += 1
            vote = revealed[-1]
            assert len(lines) == 1 and lines[0].get("data-location") == str(vote["location"])
            ballots = [b for b in lines[0].iter("span") if b.get("class") == "ballot"]
            assert len(ballots) == len(vote["votes"])
            for ballot, (voter, choice) in zip(ballots, vote["votes"].items(), strict=True):
                swatches = [s.get("class") for s in ballot.iter("span") if "swatch" in (s.get("class") or "")]
                assert swatches == [f"swatch colour-{voter}", f"swatch colour-{choice or 'none'}"]
                weight = vote["weights"][voter]
                assert "".join(ballot.itertext()).strip().endswith("→" if weight == 1 else f"×{weight}")
            text = "".join(lines[0].itertext())
            assert "Vote at" in text or "Re-vote at" in text
            assert "Totals:" in text
        for req in game.pending():
            game.answer(req.player, req.kind, bots[req.player].decide(game, req))
    assert seen_open and seen_revealed
