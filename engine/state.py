"""The mutable game state and its JSON form in the contract's ``position`` schema."""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from .data import LOCATIONS, STRENGTH, Phase
from .shapes import DiceJSON, StatePosition


@mypyc_attr(allow_interpreted_subclasses=True)  # Game's: the tests' BoardKeeper
class State:
    """Everything on the table. Mutated only by the flow (``engine.flow``)."""

    __slots__ = (
        "players",
        "seating",
        "round",
        "phase",
        "chief",
        "chief_elected",
        "closed",
        "chars",
        "count",
        "power",
        "colours_at",
        "zombies",
        "hands",
        "deck",
        "played",
        "eliminated",
        "dice",
        "unplaced",
        "hidden",
        "hardware",
        "threats",
        "destinations",
        "moved",
    )

    def __init__(self, players: tuple[str, ...]) -> None:
        self.players = players
        #: seating order clockwise from each player (DEF-6): ``rules.order_from`` made once, it is asked for often.
        self.seating = {p: players[i:] + players[:i] for i, p in enumerate(players)}
        self.round = 0
        self.phase = Phase.SETUP
        self.chief = players[0]
        self.chief_elected = False
        self.closed: set[int] = set()
        #: colour -> {character: location} for living characters. Changed only by ``put``, ``take`` and ``recount``:
        #: they keep ``count``, ``power`` and ``colours_at``.
        self.chars: dict[str, dict[str, int]] = {p: {} for p in players}
        #: characters at each location, and their strength (DEF-3 without Hardware): index 0 unused, like ``zombies``.
        #: Kept as the characters come, go and move, since the rules ask for them at every step.
        self.count = [0] * 7
        self.power = [0] * 7
        #: the colours present at each location (DEF-5): {colour: its characters there}, index 0 unused.
        self.colours_at: list[dict[str, int]] = [{} for _ in range(7)]
        #: index 0 unused; zombies[L] for L in 1..6.
        self.zombies = [0] * 7
        self.hands: dict[str, list[str]] = {p: [] for p in players}
        #: top card first.
        self.deck: list[str] = []
        #: cards removed from the game (A3: every card played is removed at once).
        self.played: list[str] = []
        self.eliminated: dict[str, int] = {}
        #: between the zombie roll and its placement (E-2): {"values": [...], "seen_by": [...]}.
        self.dice: DiceJSON | None = None
        #: during setup: colour -> characters not yet placed.
        self.unplaced: dict[str, list[str]] | None = None
        #: (colour, character) hidden this round (F-10: until the end of the round).
        self.hidden: set[tuple[str, str]] = set()
        #: Hardware cards played in the current attack window (DEF-3).
        self.hardware = 0
        #: Threat cards played for the vote about to be held: colour -> count (VOT-2).
        self.threats: dict[str, int] = {}
        #: destinations of this round, once chosen (D-2); public from E-1.
        self.destinations: dict[str, int] = {}
        #: the character each player moved this round (E-4), for the after_moves Sprint window.
        self.moved: dict[str, str] = {}

    def put(self, player: str, character: str, loc: int) -> None:
        """Place ``player``'s ``character`` at ``loc``, or move it there."""
        mine = self.chars[player]
        was = mine.get(character)
        if was is not None:
            self._leave(player, character, was)
        mine[character] = loc
        self.count[loc] += 1
        self.power[loc] += STRENGTH[character]
        here = self.colours_at[loc]
        here[player] = here.get(player, 0) + 1

    def take(self, player: str, character: str) -> None:
        """Remove ``player``'s ``character`` from the board."""
        self._leave(player, character, self.chars[player].pop(character))

    def _leave(self, player: str, character: str, loc: int) -> None:
        """``count``, ``power`` and ``colours_at`` without ``player``'s ``character`` at ``loc``."""
        self.count[loc] -= 1
        self.power[loc] -= STRENGTH[character]
        here = self.colours_at[loc]
        if here[player] == 1:
            del here[player]
        else:
            here[player] -= 1

    def recount(self) -> None:
        """``count``, ``power`` and ``colours_at`` from ``chars``, after ``chars`` was set as a whole."""
        self.count = [0] * 7
        self.power = [0] * 7
        self.colours_at = [{} for _ in range(7)]
        for player, mine in self.chars.items():
            for character, loc in mine.items():
                self.count[loc] += 1
                self.power[loc] += STRENGTH[character]
                here = self.colours_at[loc]
                here[player] = here.get(player, 0) + 1

    def position(self) -> StatePosition:
        """The state in the contract's position schema (plus ``dice`` and, during setup, ``unplaced``)."""
        out: StatePosition = {
            "round": self.round,
            "phase": self.phase,
            "chief": self.chief,
            "chief_elected": self.chief_elected,
            "closed": sorted(self.closed),
            "characters": {p: dict(self.chars[p]) for p in self.players},
            "zombies": {str(loc): self.zombies[loc] for loc in LOCATIONS},
            "hands": {p: list(self.hands[p]) for p in self.players},
            "deck": list(self.deck),
            "eliminated": dict(self.eliminated),
            "dice": None
            if self.dice is None
            else {"values": list(self.dice["values"]), "seen_by": list(self.dice["seen_by"])},
        }
        if self.unplaced is not None:
            out["unplaced"] = {p: list(self.unplaced[p]) for p in self.players}
        return out
