"""Rules as data: colours, locations, characters, cards (RULES.md section A)."""

from __future__ import annotations

from enum import StrEnum
from typing import Final

COLOURS: Final = ("red", "yellow", "blue", "green", "black", "white")

#: Location number -> capacity in character tokens; the Parking (4) has none (A1).
CAPACITY: Final[dict[int, int | None]] = {1: 3, 2: 4, 3: 4, 4: None, 5: 3, 6: 6}
LOCATIONS: Final = (1, 2, 3, 4, 5, 6)
PARKING: Final = 4
SECURITY: Final = 5
SUPERMARKET: Final = 6
CACHOU: Final = 2
LOCATION_NAMES: Final = {
    1: "Restroom",
    2: "Cachou",
    3: "Megatoys",
    4: "Parking Lot",
    5: "Security HQ",
    6: "Supermarket",
}
#: F-3 / DEF-4: four zombies always get into the Supermarket.
SUPERMARKET_CAP: Final = 4
#: E-3: an empty location with this many zombies is condemned.
CONDEMN_AT: Final = 8
#: R-31: the box holds 30 zombies; the engine does not cap, it only warns.
ZOMBIE_SUPPLY: Final = 30

#: Characters in canonical order (A2) with victory points and strength.
CHARACTERS: Final = ("pinup", "tough", "gunman", "girl")
POINTS: Final = {"pinup": 7, "tough": 5, "gunman": 3, "girl": 1}
STRENGTH: Final = {"pinup": 1, "tough": 2, "gunman": 1, "girl": 1}
#: Lowest value first: the order used by timeouts (H-4).
BY_VALUE: Final = ("girl", "gunman", "tough", "pinup")
CHARACTER_NAMES: Final = {"pinup": "Pin-Up", "tough": "Tough Guy", "gunman": "Gunman", "girl": "Little Girl"}

#: Action cards (A3): name -> copies in the box.
DEFAULT_WEAPONS: Final = {"axe": 1, "pistol": 1, "bat": 1, "shotgun": 2, "grenade": 2, "chainsaw": 2}
WEAPONS: Final = tuple(DEFAULT_WEAPONS)
CARD_COUNTS: Final = {
    "threat": 3,
    "camera": 3,
    "sprint": 3,
    "hardware": 3,
    "hidden": 3,
    **{weapon: 1 for weapon in WEAPONS},
}
CARDS: Final = tuple(CARD_COUNTS)
DECK_SIZE: Final = sum(CARD_COUNTS.values())
CARD_NAMES: Final = {
    "threat": "Threat",
    "camera": "Security Camera",
    "sprint": "Sprint",
    "hardware": "Hardware",
    "hidden": "Hidden",
    "axe": "Axe",
    "pistol": "Pistol",
    "bat": "Baseball Bat",
    "shotgun": "Shotgun",
    "grenade": "Grenade",
    "chainsaw": "Chainsaw",
}
#: Cards that may carry ``if_needed`` (H-3).
IF_NEEDED_CARDS: Final = frozenset({"hardware", "hidden", *WEAPONS})


class Phase(StrEnum):
    """The phases of the game (setup, the six phases of a round B-RND, the end); members are plain strings."""

    SETUP = "setup"
    TRUCK = "truck"
    CHIEF = "chief"
    ARRIVAL = "arrival"
    DESTINATIONS = "destinations"
    MOVES = "moves"
    ATTACK = "attack"
    OVER = "over"


PHASES: Final = tuple(Phase)
#: Phases a scenario position may resume at (ENGINE-CONTRACT).
START_PHASES: Final = (Phase.TRUCK, Phase.CHIEF, Phase.ARRIVAL, Phase.ATTACK)


class Kind(StrEnum):
    """The kinds of request (H-1, ENGINE-CONTRACT); members are plain strings."""

    PLACE = "place"
    CARDS = "cards"
    VOTE = "vote"
    VICTIM = "victim"
    TRUCK = "truck"
    ANNOUNCE = "announce"
    DESTINATION = "destination"
    MOVE = "move"
    ZOMBIE = "zombie"


KINDS: Final = tuple(Kind)


def characters_for(player_count: int) -> tuple[str, ...]:
    """A2 / SET-1: three characters each, plus the Little Girl with three players."""
    return CHARACTERS if player_count == 3 else CHARACTERS[:3]


def end_threshold(player_count: int) -> int:
    """END-1 (b): the game ends with this many characters or fewer."""
    return 6 if player_count == 6 else 4


def full_deck() -> list[str]:
    """The 21 action cards in box order (shuffled at setup, SET-2)."""
    return [card for card, count in CARD_COUNTS.items() for _ in range(count)]
