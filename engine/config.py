"""How a game starts: players, seed, options, an optional position, forced dice and standing orders.

Everything here is validated with :class:`ScenarioError` messages that name the problem.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeGuard, cast

from .data import (
    CACHOU,
    CAPACITY,
    CARD_COUNTS,
    CHARACTERS,
    COLOURS,
    LOCATIONS,
    PARKING,
    START_PHASES,
    characters_for,
)
from .errors import ScenarioError
from .options import Options
from .shapes import ConfigJSON, Position

POSITION_KEYS = (
    "round",
    "phase",
    "chief",
    "chief_elected",
    "closed",
    "characters",
    "zombies",
    "hands",
    "deck",
    "eliminated",
)


@dataclass(frozen=True)
class Config:
    players: tuple[str, ...]
    seed: int = 0
    options: Options = field(default_factory=Options)
    position: Position | None = None
    dice: tuple[int, ...] = ()
    standing_orders: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> ConfigJSON:
        return {
            "players": list(self.players),
            "seed": self.seed,
            "options": self.options.to_json(),
            "position": self.position,
            "dice": list(self.dice),
            "standing_orders": {p: {"victim": list(order)} for p, order in self.standing_orders.items()},
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, object]) -> Config:
        """Validate the scenario keys other than ``answers``."""
        players = parse_players(raw.get("players"))
        seed = raw.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ScenarioError(f"seed must be an integer, not {seed!r}")
        options = Options.from_json(raw.get("options"), list(players))
        given = raw.get("position")
        position = None if given is None else parse_position(given, players)
        dice = raw.get("dice") or []
        if not isinstance(dice, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice
        ):
            raise ScenarioError("dice must be a list of die results from 1 to 6")
        standing = parse_standing_orders(raw.get("standing_orders"), players)
        return cls(players, seed, options, position, tuple(dice), standing)


def parse_players(raw: object) -> tuple[str, ...]:
    if not isinstance(raw, list):
        raise ScenarioError("players must be a list of 3 to 6 colours in seating order")
    for colour in raw:
        if colour not in COLOURS:
            raise ScenarioError(f"players: unknown colour {colour!r} (colours: {', '.join(COLOURS)})")
    if len(set(raw)) != len(raw):
        raise ScenarioError("players: a colour appears twice")
    if not 3 <= len(raw) <= 6:
        raise ScenarioError(f"players: {len(raw)} players; Mall of Horror takes 3 to 6")
    return tuple(raw)


def parse_standing_orders(raw: object, players: tuple[str, ...]) -> dict[str, list[str]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ScenarioError('standing_orders must be an object of colour to {"victim": [...]}')
    out = {}
    for colour, orders in raw.items():
        if colour not in players:
            raise ScenarioError(f"standing_orders: {colour!r} is not a player")
        if not isinstance(orders, dict) or set(orders) != {"victim"}:
            raise ScenarioError(f'standing_orders.{colour} must be {{"victim": [characters]}}')
        out[colour] = parse_victim_order(orders["victim"], f"standing_orders.{colour}.victim")
    return out


def parse_victim_order(raw: object, where: str) -> list[str]:
    if not isinstance(raw, list) or not all(c in CHARACTERS for c in raw) or len(set(raw)) != len(raw):
        raise ScenarioError(f"{where} must list distinct characters ({', '.join(CHARACTERS)})")
    return list(raw)


def _int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_position(raw: object, players: tuple[str, ...]) -> Position:
    """Check that a position can exist; return it normalised (zombies for all six locations, closed sorted)."""
    pos = _position_object(raw)
    rnd, phase, chief = _round_phase_chief(pos, players)
    closed = _closed(pos["closed"], len(players))
    characters = _characters(pos["characters"], players, closed)
    zombies = _zombies(pos["zombies"], closed)
    hands, deck = _cards(pos["hands"], pos["deck"], players)
    eliminated = _eliminated(pos["eliminated"], players, rnd)
    _check_survivors(characters, eliminated, players, chief)
    return {
        "round": rnd,
        "phase": phase,
        "chief": chief,
        "chief_elected": cast(bool, pos["chief_elected"]),  # checked by _round_phase_chief
        "closed": closed,
        "characters": characters,
        "zombies": zombies,
        "hands": hands,
        "deck": deck,
        "eliminated": eliminated,
    }


def _position_object(raw: object) -> dict[str, object]:
    """An object with exactly the position's keys (``dice`` allowed, and null: a position starts a phase)."""
    if not isinstance(raw, dict):
        raise ScenarioError("position must be an object")
    unknown = sorted(set(raw) - set(POSITION_KEYS) - {"dice"})
    if unknown:
        raise ScenarioError(f"position: unknown key {unknown[0]!r}")
    missing = [k for k in POSITION_KEYS if k not in raw]
    if missing:
        raise ScenarioError(f"position: {missing[0]!r} is missing")
    if raw.get("dice") is not None:
        raise ScenarioError("position.dice must be null: a position starts a phase, no roll is under way")
    return raw


def _round_phase_chief(raw: dict[str, object], players: tuple[str, ...]) -> tuple[int, str, str]:
    rnd, phase, chief = raw["round"], raw["phase"], raw["chief"]
    if not _int(rnd) or rnd < 1:
        raise ScenarioError(f"position.round must be a round number from 1, not {rnd!r}")
    if phase not in START_PHASES:
        raise ScenarioError(f"position.phase must be one of {', '.join(START_PHASES)}, not {phase!r}")
    if chief not in players:
        raise ScenarioError(f"position.chief {chief!r} is not a player")
    if not isinstance(raw["chief_elected"], bool):
        raise ScenarioError("position.chief_elected must be true or false")
    return rnd, cast(str, phase), chief


def _eliminated(raw: object, players: tuple[str, ...], rnd: int) -> dict[str, int]:
    if not isinstance(raw, dict):
        raise ScenarioError("position.eliminated must be an object of colour to round")
    for colour, when in raw.items():
        if colour not in players:
            raise ScenarioError(f"position.eliminated: {colour!r} is not a player")
        if not _int(when) or not 1 <= when <= rnd:
            raise ScenarioError(f"position.eliminated.{colour} must be a round from 1 to {rnd}")
    return dict(raw)


def _check_survivors(
    characters: dict[str, dict[str, int]], eliminated: dict[str, int], players: tuple[str, ...], chief: str
) -> None:
    """ELM-1: a player is eliminated exactly when they have no characters; an eliminated player is not Chief."""
    for colour in players:
        if not characters[colour] and colour not in eliminated:
            raise ScenarioError(f"position: {colour} has no characters but is not in eliminated")
        if characters[colour] and colour in eliminated:
            raise ScenarioError(f"position: {colour} is eliminated but still has characters")
    if not characters[chief] and any(characters.values()):
        raise ScenarioError(f"position.chief {chief!r} has been eliminated and cannot be Chief")


def _closed(raw: object, count: int) -> list[int]:
    if not isinstance(raw, list) or not all(_int(x) and x in LOCATIONS for x in raw) or len(set(raw)) != len(raw):
        raise ScenarioError("position.closed must list distinct locations 1 to 6")
    if PARKING in raw:
        raise ScenarioError("position.closed: the Parking (4) can never be closed")
    if count <= 4 and CACHOU not in raw:
        raise ScenarioError(f"position.closed must include 2: Cachou is closed with {count} players")
    return sorted(raw)


def _characters(raw: object, players: tuple[str, ...], closed: list[int]) -> dict[str, dict[str, int]]:
    if not isinstance(raw, dict) or set(raw) != set(players):
        raise ScenarioError("position.characters must give every player (and only players) an object")
    allowed = characters_for(len(players))
    counts: Counter[int] = Counter()
    out = {}
    for colour in players:
        mine = raw[colour]
        if not isinstance(mine, dict):
            raise ScenarioError(f"position.characters.{colour} must be an object of character to location")
        for ch, loc in mine.items():
            if ch not in allowed:
                raise ScenarioError(
                    f"position.characters.{colour}: {ch!r} is not a character of a {len(players)}-player game"
                )
            if not _int(loc) or loc not in LOCATIONS:
                raise ScenarioError(f"position.characters.{colour}.{ch}: {loc!r} is not a location 1 to 6")
            if loc in closed:
                raise ScenarioError(f"position.characters.{colour}.{ch}: location {loc} is closed")
            counts[loc] += 1
        out[colour] = {ch: mine[ch] for ch in CHARACTERS if ch in mine}
    for loc, n in counts.items():
        cap = CAPACITY[loc]
        if cap is not None and n > cap:
            raise ScenarioError(f"position: {n} characters at location {loc}, which holds {cap}")
    return out


def _zombies(raw: object, closed: list[int]) -> dict[str, int]:
    if not isinstance(raw, dict):
        raise ScenarioError("position.zombies must be an object of location to zombies")
    out = {str(loc): 0 for loc in LOCATIONS}
    for key, n in raw.items():
        if key not in out:
            raise ScenarioError(f'position.zombies: {key!r} is not a location "1" to "6"')
        if not _int(n) or n < 0:
            raise ScenarioError(f"position.zombies.{key} must be a number of zombies, not {n!r}")
        if n and int(key) in closed:
            raise ScenarioError(f"position.zombies.{key}: a closed location has no zombies")
        out[key] = n
    return out


def _cards(hands: object, deck: object, players: tuple[str, ...]) -> tuple[dict[str, list[str]], list[str]]:
    if not isinstance(hands, dict) or set(hands) != set(players):
        raise ScenarioError("position.hands must give every player (and only players) a list of cards")
    if not isinstance(deck, list):
        raise ScenarioError("position.deck must be a list of cards, top first")
    seen: Counter[str] = Counter()
    for where, cards in [*((f"hands.{p}", hands[p]) for p in players), ("deck", deck)]:
        if not isinstance(cards, list):
            raise ScenarioError(f"position.{where} must be a list of cards")
        for card in cards:
            if card not in CARD_COUNTS:
                raise ScenarioError(f"position.{where}: unknown card {card!r}")
            seen[card] += 1
    for card, n in seen.items():
        if n > CARD_COUNTS[card]:
            raise ScenarioError(f"position: {n} {card} cards, but the game has {CARD_COUNTS[card]}")
    return {p: list(hands[p]) for p in players}, list(deck)
