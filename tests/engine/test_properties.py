"""Property tests: random legal games, played to the end, keep the rules' invariants after every single answer.

Every game is played by ``engine.bots.RandomBot`` through the public API (``Game.answer`` / ``Game.timeout`` /
``Game.set_standing_order``) with options of RULES.md section G drawn at random, for 3 to 6 players and both turn
orders. The expected values come from RULES.md (A1 capacities, A3 cards, END-1/2/3, B-INFO/H-6), not from the engine.

Reproducibility: the games are fully determined by the drawn seeds. Hypothesis loads its built-in ``ci`` profile
(``derandomize=True``, no example database) by itself when it detects CI; locally, run
``HYPOTHESIS_PROFILE=ci python -m pytest tests/engine/test_properties.py`` (or ``--hypothesis-profile=ci``) to get
the same examples every time.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from engine import Game, ScenarioError, new_game, replay, run_scenario, spectator_view, view
from engine.bots import RandomBot
from tests import profile

from .support import CAPACITY, CARD_COUNTS, COLOURS, PARKING, VP, WEAPONS

#: No game of Mall of Horror takes anywhere near this many answers (a bot game takes 60 to 250).
MAX_ANSWERS = 3000
MAX_ROUNDS = 60

_PROFILE = os.environ.get("HYPOTHESIS_PROFILE")
_PARENT = settings.get_profile(_PROFILE) if _PROFILE else None


def games_settings(examples: int) -> settings:
    return settings(
        _PARENT,
        max_examples=profile.examples(examples),
        deadline=None,
        # the drawn values are seeds: shrinking them finds no simpler game, and a failure is reported faster
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


COMBOS = [(n, order) for n in (3, 4, 5, 6) for order in ("strict", "batched")]
COMBO_IDS = [f"{n}p-{order}" for n, order in COMBOS]


# --- strategies --------------------------------------------------------------------------------------------------


@st.composite
def setups(draw: st.DrawFn, count: int, turn_order: str) -> dict[str, Any]:
    """Players, seed, options (section G varied), standing orders, bot seeds and a timeout rate."""
    players = draw(st.permutations(COLOURS))[:count]
    options: dict[str, Any] = {"turn_order": turn_order}
    for name, values in (
        ("sprint_timing", ["on_move", "after_moves"]),
        ("attack_tie_pool", ["present", "tied"]),
        ("zombie_player", ["next_round", "every_round"]),
        ("attack_cards", ["present", "everyone"]),
    ):
        value = draw(st.sampled_from([None, *values]))
        if value is not None:
            options[name] = value
    first = draw(st.sampled_from([None, "random", *players]))
    if first is not None:
        options["first_chief"] = first
    if draw(st.booleans()):
        options["weapons"] = draw(
            st.dictionaries(st.sampled_from(WEAPONS), st.integers(min_value=1, max_value=4), max_size=6)
        )
    chars = ["pinup", "tough", "gunman", "girl"] if count == 3 else ["pinup", "tough", "gunman"]
    standing = {}
    for p in players:
        if draw(st.integers(0, 3)) == 0:
            standing[p] = {"victim": draw(st.permutations(chars))}
    return {
        "players": players,
        "seed": draw(st.integers(0, 2**32 - 1)),
        "options": options,
        "standing_orders": standing,
        "bot_seed": draw(st.integers(0, 2**32 - 1)),
        "timeout_rate": draw(st.sampled_from([0.0, 0.0, 0.05, 0.2])),
        "reorder_rate": draw(st.sampled_from([0.0, 0.01])),
    }


def start(setup: dict[str, Any]) -> Game:
    return new_game(setup["players"], setup["seed"], setup["options"], setup["standing_orders"])


def play(setup: dict[str, Any], after_each: Any) -> Game:
    """Play to the end with RandomBots; call ``after_each(game)`` after every answer, timeout or order change."""
    game = start(setup)
    rng = random.Random(setup["bot_seed"])
    bots = {p: RandomBot(rng.randrange(2**32)) for p in setup["players"]}
    chars = ["pinup", "tough", "gunman", "girl"]
    after_each(game)
    steps = 0
    while not game.over:
        pending = game.pending()
        assert pending, f"the game is not over but nothing is pending: {game.position()}"
        req = rng.choice(pending)  # batched windows: any answering order must work
        if rng.random() < setup["reorder_rate"]:
            order = chars[:]
            rng.shuffle(order)
            game.set_standing_order(req.player, order)
        elif rng.random() < setup["timeout_rate"]:
            game.timeout(req.player, req.kind)
        else:
            game.answer(req.player, req.kind, bots[req.player].decide(game, req))
        steps += 1
        assert steps <= MAX_ANSWERS, "the game did not end"
        assert game.round <= MAX_ROUNDS, "the game did not end"
        after_each(game)
    return game


# --- invariants of the state -------------------------------------------------------------------------------------


class Tracker:
    """Checks the state after each step, remembering what may only shrink (living characters, open locations)."""

    def __init__(self, players: list[str]) -> None:
        self.players = players
        self.count = len(players)
        self.allowed = {"pinup", "tough", "gunman", "girl"} if self.count == 3 else {"pinup", "tough", "gunman"}
        self.alive: set[tuple[str, str]] | None = None
        self.closed: set[int] = set()
        self.round = 0

    def check(self, game: Game) -> None:
        pos = game.position()
        chars = pos["characters"]
        closed = set(pos["closed"])
        # A1 / DEF-2: capacities; nobody stands at a closed location; the Parking is never closed
        at = Counter(loc for p in self.players for loc in chars[p].values())
        for loc, cap in CAPACITY.items():
            assert at[loc] <= cap, f"{at[loc]} characters at location {loc}, which holds {cap}"
        assert PARKING not in closed
        for loc in closed:
            assert at[loc] == 0, f"characters at closed location {loc}"
            assert pos["zombies"][str(loc)] == 0, f"zombies at closed location {loc}"  # E-2, E-3, D-5
        if self.count <= 4:
            assert 2 in closed  # SET-4
        assert closed >= self.closed, "a closed location reopened (DEF-1: closing is permanent)"
        self.closed = closed
        # zombies never negative
        assert set(pos["zombies"]) == {"1", "2", "3", "4", "5", "6"}
        assert all(isinstance(n, int) and n >= 0 for n in pos["zombies"].values()), pos["zombies"]
        # A3: the 21 cards are in hands, in the deck, or played (removed from the game)
        cards = Counter(game.played) + Counter(pos["deck"])
        for p in self.players:
            cards += Counter(pos["hands"][p])
        assert dict(cards) == CARD_COUNTS, f"cards not conserved: {dict(cards)}"
        assert len(game.played) + len(pos["deck"]) + sum(len(h) for h in pos["hands"].values()) == 21
        # characters: only the player-count's characters; none comes back to life
        for p in self.players:
            assert set(chars[p]) <= self.allowed
        assert pos["round"] >= self.round
        self.round = pos["round"]
        if pos["phase"] == "setup":
            unplaced = pos["unplaced"]
            for p in self.players:
                assert set(chars[p]) | set(unplaced[p]) == self.allowed
                assert not set(chars[p]) & set(unplaced[p])
            return
        assert "unplaced" not in pos
        alive = {(p, c) for p in self.players for c in chars[p]}
        if self.alive is not None:
            assert alive <= self.alive, f"characters came back: {alive - self.alive}"
        self.alive = alive
        # ELM-1 / B-5: eliminated players have no characters; the Chief has some while anyone does
        for p in self.players:
            assert bool(chars[p]) != (p in pos["eliminated"]), f"{p}: eliminated={pos['eliminated']}"
        if alive:
            assert chars[pos["chief"]], f"the Chief {pos['chief']} has no characters"


def check_outcome(game: Game) -> None:
    """END-1 held when the game stopped; END-2 scores; END-3 winners."""
    pos = game.position()
    assert pos["phase"] == "over" and game.over
    assert game.pending() == []
    spots = [loc for p in game.players for loc in pos["characters"][p].values()]
    limit = 6 if len(game.players) == 6 else 4
    assert len(spots) <= limit or (len(set(spots)) == 1 and spots[0] != PARKING), f"ended too early: {spots}"
    outcome = game.outcome
    assert outcome is not None
    scores = {p: sum(VP[c] for c in pos["characters"][p]) for p in game.players}
    assert outcome["scores"] == scores
    assert outcome["cards"] == {p: len(pos["hands"][p]) for p in game.players}
    best = max(scores.values())
    top = [p for p in game.players if scores[p] == best]
    most = max(len(pos["hands"][p]) for p in top)
    assert sorted(outcome["winners"]) == sorted(p for p in top if len(pos["hands"][p]) == most)
    assert game.events[-1]["type"] == "game_over"


def snapshot(game: Game) -> dict[str, Any]:
    return {
        "position": game.position(),
        "events": game.events,
        "pending": [r.to_json() for r in game.pending()],
        "over": game.over,
        "outcome": game.outcome,
    }


def check_round_trip(game: Game) -> None:
    """The saved game survives JSON text exactly, and replaying its log gives the same game."""
    saved = game.to_json()
    text = json.dumps(saved)
    loaded = json.loads(text)
    assert loaded == saved, "to_json() is not plain JSON (tuples, non-string keys ...)"
    again = Game.from_json(loaded)
    assert snapshot(again) == snapshot(game)
    assert again.to_json() == saved
    assert json.dumps(again.to_json()) == text


@pytest.mark.rule("A1", "A3", "DEF-1", "DEF-2", "E-3", "ELM-1", "B-5", "END-1", "END-2", "END-3", "H-1", "H-3", "H-4")
@pytest.mark.parametrize(("count", "turn_order"), COMBOS, ids=COMBO_IDS)
@games_settings(10)
@given(data=st.data())
def test_random_games_keep_invariants_after_every_answer(count: int, turn_order: str, data: st.DataObject) -> None:
    """Capacities hold, zombies stay >= 0, the 21 cards are conserved, every game ends, save/replay is exact."""
    setup = data.draw(setups(count, turn_order))
    tracker = Tracker(setup["players"])

    def after_each(game: Game) -> None:
        tracker.check(game)
        check_round_trip(game)

    game = play(setup, after_each)
    check_outcome(game)
    # the answer log, as a scenario, gives the same result through the JSON contract
    if not any("standing_order" in entry for entry in game.log):
        result = run_scenario(
            {
                "players": setup["players"],
                "seed": setup["seed"],
                "options": setup["options"],
                "standing_orders": setup["standing_orders"],
                "answers": game.log,
            }
        )
        assert result["ok"], result["error"]
        assert result["state"] == game.position()
        assert result["events"] == game.events
        assert result["over"] and result["outcome"] == game.outcome


@pytest.mark.rule("H-6")
def test_replay_only_once_the_game_is_over() -> None:
    """H-6: every secret may be shown in the replay, but only after the game ends."""
    setup = {
        "players": ["red", "blue", "green", "white"],
        "seed": 3,
        "options": {"turn_order": "batched"},
        "standing_orders": {},
        "bot_seed": 4,
        "timeout_rate": 0.1,
        "reorder_rate": 0.0,
    }
    checked = []

    def after_each(game: Game) -> None:
        if not game.over and len(checked) < 5:
            with pytest.raises(ValueError):
                replay(game)
            checked.append(True)

    game = play(setup, after_each)
    full = replay(game)
    assert full["state"] == game.position()
    assert len(full["events"]) == len(game.events)
    assert checked


@pytest.mark.rule("H-6")
def test_from_json_refuses_a_tampered_save() -> None:
    """A saved game whose log does not give its recorded state is refused, not silently accepted."""
    game = new_game(["red", "blue", "green"], 9, {"turn_order": "strict"})
    bots = {p: RandomBot(i) for i, p in enumerate(game.players)}
    for _ in range(20):
        req = game.pending()[0]
        game.answer(req.player, req.kind, bots[req.player].decide(game, req))
    saved = game.to_json()
    saved["snapshot"]["state"]["zombies"]["1"] += 1
    with pytest.raises(ScenarioError):
        Game.from_json(saved)


# --- what each player may see (B-INFO, H-6) ----------------------------------------------------------------------

#: events that every player must be told about: public facts of the table.
PUBLIC_EVENTS = {
    "first_chief",
    "placement_dice",
    "placed",
    "initial_zombies",
    "round_started",
    "truck_skipped",
    "vote_uncontested",
    "votes_revealed",
    "truck_searched",
    "no_election",
    "chief_elected",
    "destination_announced",
    "zombie_placed",
    "destinations_revealed",
    "zombie_dice_revealed",
    "condemned",
    "card_played",
    "moved",
    "extra_zombies",
    "attack",
    "attack_held",
    "attack_no_target",
    "random_colour",
    "eaten",
    "eliminated",
    "chief_passed",
    "zombies_left",
    "game_over",
}
#: automatic answers that are sealed (votes, destinations) or private (the truck choice) when they are given.
SEALED_KINDS = {"vote", "destination", "truck"}

CARDS, TABLE = "cards", "table"


class Observer:
    """Follows the full event log and, by the rules, decides which events are secret from whom.

    ``secret(event)`` returns ``(category, allowed viewers)`` for an event only some players may see, else None:
    ``cards`` (hands, the deal, truck cards, gifts: A3, A-3, B-INFO) or ``table`` (the zombie dice before E-2, C-2,
    C-3; sealed automatic answers, D-2, VOT-3).
    """

    def __init__(self, game: Game) -> None:
        self.seen = 0
        self.round_chief: str | None = None  # the Chief elected this round, if any (DEF-7)
        self.dice_seers: set[str] = set()
        self.views: dict[str | None, list[dict[str, Any]]] = {p: [] for p in game.players}
        self.views[None] = []

    def secret(self, event: dict[str, Any]) -> tuple[str, set[str]] | None:
        kind = event["type"]
        if kind == "deck_shuffled":
            return CARDS, set()  # the order of the deck is nobody's to know
        if kind in ("card_dealt", "truck_cards", "card_kept"):
            return CARDS, {event.get("player")}
        if kind == "gift_received":
            return CARDS, {event.get("player"), event.get("giver")}
        if kind == "zombie_dice_rolled" and "values" in event:
            return TABLE, set(self.dice_seers)
        if kind == "dice_seen":
            return TABLE, {event.get("player")}
        if kind == "answer_auto" and event.get("kind") in SEALED_KINDS:
            return TABLE, {event.get("player")}
        return None

    def new_events(self, game: Game) -> list[tuple[dict[str, Any], tuple[str, set[str]] | None]]:
        out = []
        for event in game.events[self.seen :]:
            kind = event["type"]
            if kind == "round_started":
                self.round_chief = None
            elif kind == "chief_elected":
                self.round_chief = event["chief"]
            elif kind == "zombie_dice_rolled":
                self.dice_seers = {self.round_chief} if self.round_chief else set()  # C-2
            elif kind == "card_played" and event.get("card") == "camera":
                self.dice_seers.add(event["player"])  # C-3
            out.append(({k: v for k, v in event.items() if k != "to"}, self.secret(event)))
            if kind == "zombie_dice_revealed":
                self.dice_seers = set()  # E-2: the dice are public now
        self.seen = len(game.events)
        return out

    def check_events(
        self,
        viewer: str | None,
        shown: list[dict[str, Any]],
        new: list[tuple[dict[str, Any], tuple[str, set[str]] | None]],
        category: str,
    ) -> None:
        """The viewer's events are the game's, in order; secret ones only for those allowed; public ones all there."""
        before = self.views[viewer]
        assert shown[: len(before)] == before, f"{viewer}'s earlier events changed"
        fresh = shown[len(before) :]
        i = 0
        for event, secret in new:
            if i < len(fresh) and fresh[i] == event:
                i += 1
                if secret is not None and secret[0] == category:
                    assert viewer in secret[1], f"{viewer} sees a secret of {sorted(map(str, secret[1]))}: {event}"
            else:
                assert event["type"] not in PUBLIC_EVENTS, f"{viewer} is not told a public event: {event}"
        assert i == len(fresh), f"{viewer} sees events the game does not have: {fresh[i:]}"
        self.views[viewer] = list(shown)


def _walk_keys(value: Any, path: str = "") -> list[tuple[str, str, Any]]:
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            out.append((path, k, v))
            out.extend(_walk_keys(v, f"{path}.{k}"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_walk_keys(v, f"{path}[{i}]"))
    return out


def _outside_events(seen: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in seen.items() if k != "events"}


def check_cards_private(game: Game, viewer: str | None, seen: dict[str, Any]) -> None:
    """B-INFO: hands are private (sizes public); H-5: standing orders are private."""
    if viewer is None:
        assert "hand" not in seen and "standing_order" not in seen
    else:
        assert seen["hand"] == game.hands[viewer]
        assert seen["standing_order"] == game.standing.get(viewer)
    assert seen["hand_sizes"] == {p: len(game.hands[p]) for p in game.players}
    # structurally: no other hand, no deck, no truck cards anywhere outside the events
    for path, key, _ in _walk_keys(_outside_events(seen)):
        assert key not in ("hands", "deck", "truck_cards"), f"{viewer} sees {path}.{key}"
        assert key != "cards" or path.startswith(".requests["), f"{viewer} sees {path}.{key}"
        assert not (key == "hand" and path), f"{viewer} sees a hand at {path}"
    for req in seen.get("requests", []):
        assert req["player"] == viewer, f"{viewer} sees {req['player']}'s request"


def check_table_secrets(game: Game, viewer: str | None, seen: dict[str, Any], observer: Observer) -> None:
    """The zombie dice until E-2 (C-2, C-3), sealed destinations (D-1, D-2, E-1) and sealed votes (VOT-3)."""
    seers = observer.dice_seers if game.dice is not None else set()
    check_dice_sealed(game, viewer, seen, seers)
    check_destinations_sealed(game, viewer, seen)
    check_open_answers_sealed(game, viewer, seen)


def check_dice_sealed(game: Game, viewer: str | None, seen: dict[str, Any], seers: set[str]) -> None:
    """C-2, C-3: the zombie dice only for who may see them, and nowhere else in the view; who looked is public."""
    if viewer is not None:
        expected = list(game.dice["values"]) if game.dice is not None and viewer in seers else None
        assert seen["dice"] == expected, f"{viewer} dice {seen['dice']}, may see: {sorted(seers)}"
    for path, key, value in _walk_keys(_outside_events(seen)):
        if key == "dice" and value is not None and path != "":
            # only setup placement dice (public, SET-5) or a seer's own announce/destination request
            assert path.startswith(".requests[")
        if key in ("votes", "values"):
            pytest.fail(f"{viewer} sees {key} at {path}: {value}")
        if key == "seen_by":
            pytest.fail(f"{viewer} sees the dice record at {path}")
    for req in seen.get("requests", []):
        assert req["player"] == viewer
        if "dice" in req and req["kind"] != "place":
            assert viewer in seers and game.dice is not None and req["dice"] == game.dice["values"]
    if game.dice is not None:
        assert sorted(seen["dice_seen_by"]) == sorted(seers)  # who looked is public at the table


def check_destinations_sealed(game: Game, viewer: str | None, seen: dict[str, Any]) -> None:
    """D-1, D-2, E-1: destinations are sealed until E-1, except the elected Chief's announcement."""
    shown = seen["destinations"]
    if game.phase in ("setup", "truck", "chief", "arrival"):
        assert shown == {}
    elif game.phase == "destinations":
        assert set(shown) <= ({game.chief} if game.chief_elected else set()), f"{viewer} sees {shown}"
        for colour, loc in shown.items():
            assert game.destinations.get(colour) == loc


def check_open_answers_sealed(game: Game, viewer: str | None, seen: dict[str, Any]) -> None:
    """VOT-3, D-2: answers given in the open window (votes, destinations) are the answerer's own until it closes."""
    for other in game.players:
        given = game.answered(other)
        if other == viewer or given is None or given["kind"] not in ("vote", "destination"):
            continue
        for path, key, value in _walk_keys(_outside_events(seen)):
            if key == other and value == given["answer"] and not path.startswith((".hand_sizes", ".eliminated")):
                pytest.fail(f"{viewer} sees {other}'s sealed {given['kind']} at {path}.{key}")
    if viewer is None:
        assert "answered" not in seen
    else:
        assert seen["answered"] == game.answered(viewer)
        if seen["answered"]:
            assert any(r.player == viewer and r.kind == seen["answered"]["kind"] for r in game.window)


def play_watching(setup: dict[str, Any], category: str) -> None:
    observer: Observer | None = None

    def after_each(game: Game) -> None:
        nonlocal observer
        if observer is None:
            observer = Observer(game)
        new = observer.new_events(game)
        if game.over:
            return
        for viewer in [*game.players, None]:
            seen = view(game, viewer) if viewer is not None else spectator_view(game)
            if category == CARDS:
                check_cards_private(game, viewer, seen)
            else:
                check_table_secrets(game, viewer, seen, observer)
            observer.check_events(viewer, seen["events"], new, category)

    play(setup, after_each)


@pytest.mark.rule("H-6", "A3", "A-3", "H-5")
@pytest.mark.parametrize(("count", "turn_order"), COMBOS, ids=COMBO_IDS)
@games_settings(6)
@given(data=st.data())
def test_views_never_show_another_players_cards(count: int, turn_order: str, data: st.DataObject) -> None:
    """B-INFO/H-6: a view holds its own hand only; other hands, kept cards, truck cards and gifts never appear."""
    play_watching(data.draw(setups(count, turn_order)), CARDS)


@pytest.mark.rule("H-6", "C-2", "C-3", "D-1", "D-2", "E-1", "VOT-3")
@pytest.mark.parametrize(("count", "turn_order"), COMBOS, ids=COMBO_IDS)
@games_settings(6)
@given(data=st.data())
def test_views_never_show_unrevealed_dice_destinations_or_votes(
    count: int, turn_order: str, data: st.DataObject
) -> None:
    """B-INFO/H-6: dice only to the elected Chief and camera users until E-2; destinations and votes stay sealed."""
    play_watching(data.draw(setups(count, turn_order)), TABLE)


@pytest.mark.rule("H-6")
@settings(max_examples=profile.examples(25), deadline=None)
@given(players=st.integers(3, 6), seed=st.integers(0, 10**6), strict=st.booleans())
def test_a_readers_events_only_grow_at_the_end(players: int, seed: int, strict: bool) -> None:
    """Mails tell a seat ``view(...)["events"][n:]`` after telling it ``n`` events: that needs each reader's events
    (a seat's, a spectator's) to be the earlier ones plus new ones at the end, after every window."""
    game = new_game(list(COLOURS[:players]), seed=seed, options={"turn_order": "strict" if strict else "batched"})
    bot = RandomBot(seed)
    seen: dict[str | None, list[dict[str, Any]]] = {}
    while True:
        for reader in [None, *game.players]:
            events = spectator_view(game)["events"] if reader is None else view(game, reader)["events"]
            earlier = seen.get(reader, [])
            assert events[: len(earlier)] == earlier
            seen[reader] = events
        if game.over:
            break
        for req in game.pending():
            game.answer(req.player, req.kind, bot.decide(game, req))
