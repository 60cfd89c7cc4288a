"""Counting on the public board, for the board picture and the decision's context alike: only what every reader
may see (the public part of ``engine.view`` and its public events), so the two never disagree."""

from __future__ import annotations

import engine
from engine.data import CHARACTERS, LOCATIONS, PARKING, STRENGTH, SUPERMARKET, SUPERMARKET_CAP, Phase

__all__ = ["at", "attack_under_way", "count_at", "defence", "hardware", "in_danger", "zombies"]

#: the events that end the attack on a location (F-4 to F-6).
_ATTACK_ENDS = ("attack_held", "attack_no_target", "zombies_left")


def at(view: engine.PublicBoard, loc: int) -> list[tuple[str, str]]:
    """The (colour, character) pairs at ``loc``, hidden ones included: players in seating order, characters in
    canonical order."""
    found: list[tuple[str, str]] = []
    for colour in view["players"]:
        mine = view["characters"][colour]
        found.extend((colour, character) for character in CHARACTERS if mine.get(character) == loc)
    return found


def count_at(view: engine.PublicBoard, loc: int) -> int:
    """DEF-2: the characters at ``loc`` (a Tough Guy takes one place)."""
    return len(at(view, loc))


def zombies(view: engine.PublicBoard, loc: int) -> int:
    return view["zombies"][str(loc)]


def _attack_phase(view: engine.PublicBoard) -> list[engine.Event]:
    """This round's events of phase F so far (from its extra zombies, F-1); none outside phase F, nor on a board
    without events (the replay's)."""
    if view["phase"] != Phase.ATTACK or view["over"]:
        return []
    events = view.get("events", [])
    start = max((i for i, e in enumerate(events) if e["type"] == "extra_zombies"), default=len(events))
    return events[start:]


def attack_under_way(view: engine.PublicBoard) -> int | None:
    """The location whose attack is being fought now (announced, not yet held, fed or left), or None."""
    current = None
    for event in _attack_phase(view):
        if event["type"] == "attack":
            current = event["location"]
        elif event["type"] in _ATTACK_ENDS and event.get("location") == current:
            current = None
    return current


def hardware(view: engine.PublicBoard, loc: int) -> int:
    """Hardware cards played in the attack under way at ``loc`` (0 when ``loc`` is not being attacked now)."""
    if attack_under_way(view) != loc:
        return 0
    events = _attack_phase(view)
    start = max(i for i, e in enumerate(events) if e["type"] == "attack" and e["location"] == loc)
    return sum(1 for e in events[start:] if e["type"] == "card_played" and e["card"] == "hardware")


def defence(view: engine.PublicBoard, loc: int) -> int:
    """DEF-3 / DEF-4: the strength holding ``loc`` (Tough Guys 2, hidden characters too, Hardware played in the
    attack under way), at most 4 at the Supermarket; 0 at the Parking, where every zombie feeds (F-7)."""
    if loc == PARKING:
        return 0
    total = sum(STRENGTH[character] for _colour, character in at(view, loc)) + hardware(view, loc)
    return min(total, SUPERMARKET_CAP) if loc == SUPERMARKET else total


def in_danger(view: engine.PublicBoard, loc: int) -> bool:
    """During the attack (phase F): the zombies at ``loc`` are enough to get in (F-3; at the Parking any zombie
    feeds, F-7), and its attack is under way or still to come (locations are attacked in order, F-2)."""
    events = _attack_phase(view)
    if not events or loc in view["closed"] or not at(view, loc) or not zombies(view, loc):
        return False
    current = attack_under_way(view)
    attacked = [e["location"] for e in events if e["type"] == "attack"]
    if loc != current:
        if loc in attacked:  # fought and over (the Parking's may be fought again only while under way)
            return False
        reached = current if current is not None else (attacked[-1] if attacked else None)
        if reached is not None and LOCATIONS.index(loc) < LOCATIONS.index(reached):
            return False  # passed over: its zombies were not enough (F-3)
    return loc == PARKING or zombies(view, loc) >= defence(view, loc)
