"""Small pure functions, each deciding one rule (RULES.md section B)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .data import (
    BY_VALUE,
    CAPACITY,
    CONDEMN_AT,
    LOCATIONS,
    PARKING,
    POINTS,
    SUPERMARKET,
    SUPERMARKET_CAP,
    Kind,
    end_threshold,
)
from .state import State

if TYPE_CHECKING:
    from .requests import Request  # requests.py imports this module


def order_from(players: Sequence[str], first: str) -> list[str]:
    """Seating order, clockwise, starting at ``first`` (DEF-6)."""
    i = players.index(first)
    return [*players[i:], *players[:i]]


def from_chief(s: State) -> tuple[str, ...]:
    """The players in seating order from the Chief (DEF-6), all of them; ``order_from`` made once per game."""
    return s.seating[s.chief]


def living(s: State) -> list[str]:
    """Players with characters, in order from the Chief (DEF-6: the others are skipped)."""
    chars = s.chars
    return [p for p in s.seating[s.chief] if chars[p]]


def count_at(s: State, loc: int) -> int:
    """Character tokens at ``loc`` (a Tough Guy takes one place, A1)."""
    return s.count[loc]


def occupied(s: State, loc: int) -> bool:
    """At least one character at ``loc``."""
    return s.count[loc] > 0


def is_open(s: State, loc: int) -> bool:
    """DEF-1."""
    return loc not in s.closed


def is_full(s: State, loc: int) -> bool:
    """DEF-2: at or over capacity; the Parking is never full."""
    cap = CAPACITY[loc]
    return cap is not None and s.count[loc] >= cap  # (``count_at``)


def has_room(s: State, loc: int) -> bool:
    return loc not in s.closed and not is_full(s, loc)


def strength(s: State, loc: int) -> int:
    """DEF-3: Tough Guys count 2, hidden characters count, plus Hardware played in this attack."""
    return s.hardware + s.power[loc]


def attack_threshold(s: State, loc: int) -> int:
    """DEF-4 / R-21: the Supermarket lets 4 zombies in whatever the strength."""
    value = strength(s, loc)
    return min(value, SUPERMARKET_CAP) if loc == SUPERMARKET else value


def zombies_get_in(s: State, loc: int) -> bool:
    """F-3 / R-22 (>=, not >); at the Parking every zombie feeds (F-7)."""
    if loc == PARKING:
        return s.zombies[PARKING] > 0
    if s.zombies[loc] == 0:
        return False  # said at once: with a character there, the threshold is at least 1 (STRENGTH)
    return s.count[loc] > 0 and s.zombies[loc] >= attack_threshold(s, loc)  # (``occupied``)


def present_colours(s: State, loc: int) -> list[str]:
    """DEF-5: players with at least one character at ``loc`` (hidden ones too), in order from the Chief."""
    here = s.colours_at[loc]
    return [p for p in s.seating[s.chief] if p in here]


def eligible_colours(s: State, loc: int) -> list[str]:
    """DEF-5b / VOT-1 / VOT-H: colours with a non-hidden character at ``loc``, in order from the Chief."""
    if not s.hidden:  # nobody hidden (most of the time): the colours present
        return present_colours(s, loc)
    return [p for p in s.seating[s.chief] if visible_at(s, p, loc)]


def visible_at(s: State, player: str, loc: int) -> list[str]:
    """The player's non-hidden characters at ``loc`` (possible victims, VOT-9)."""
    if player not in s.colours_at[loc]:
        return []  # none there at all
    hidden = s.hidden
    if not hidden:  # nobody hidden (most of the time): skip the test per character
        return [ch for ch, at in s.chars[player].items() if at == loc]
    return [ch for ch, at in s.chars[player].items() if at == loc and (player, ch) not in hidden]


def vote_weight(s: State, player: str, loc: int) -> int:
    """VOT-2: one per non-hidden character, +1 for a non-hidden Gunman, +1 per Threat played."""
    mine = visible_at(s, player, loc)
    return len(mine) + ("gunman" in mine) + s.threats.get(player, 0)


def revote_weight(s: State, player: str, loc: int, first: dict[str, int]) -> int:
    """VOT-7: players with a character at ``loc`` keep their first weight; everyone else has 1."""
    if player in s.colours_at[loc]:
        return first.get(player, 0)
    return 1


def tally(votes: dict[str, str | None], weights: dict[str, int]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for voter, colour in votes.items():
        if colour is not None:
            totals[colour] = totals.get(colour, 0) + weights[voter]
    return totals


def resolve_vote(candidates: Sequence[str], totals: dict[str, int]) -> tuple[str | None, list[str]]:
    """VOT-4: a strictly highest total wins; otherwise return the colours tied for first (VOT-7)."""
    best = max(totals.get(c, 0) for c in candidates)
    top = [c for c in candidates if totals.get(c, 0) == best]
    return (top[0], top) if len(top) == 1 else (None, top)


def vote_decided(requests: Sequence[Request], answers: dict[str, str]) -> bool:
    """True when the votes still missing cannot change the outcome of a vote: every way the missing voters may put
    their whole weight on one candidate each (VOT-3), and their abstaining (H-4), give the same winner (VOT-4), or
    the same set of colours tied for first (``resolve_vote``: the re-vote is among exactly those, VOT-7; after a
    re-vote, VOT-8 may draw among them, R-10).

    ``requests``: one vote window's requests (``options``: the candidates; ``weight``: the
    voter's weight, VOT-2 / VOT-7); ``answers``: the colour each voter who answered voted for. False for anything
    that is not a vote window.

    With M the missing weight: when M is 0 nothing can change. Otherwise the outcome is decided exactly when some
    candidate A has a total above every other candidate's total plus M: then A wins whatever the missing voters do.
    If no candidate does, take A among the highest totals and C with total(C) + M >= total(A): all the missing
    weight on A makes A win alone, all of it on C makes C win or tie with A; two different outcomes.
    """
    if not requests or any(r.kind != Kind.VOTE for r in requests):
        return False
    candidates = list(requests[0].names())
    weights = {r.player: r.info.get("weight", 0) for r in requests}
    cast: dict[str, str | None] = {voter: colour for voter, colour in answers.items() if voter in weights}
    missing = sum(w for voter, w in weights.items() if voter not in cast)
    if missing == 0:
        return True
    totals = tally(cast, weights)
    return any(all(totals.get(a, 0) > totals.get(c, 0) + missing for c in candidates if c != a) for a in candidates)


def legal_destinations(s: State, player: str) -> list[int]:
    """D-3 / D-4: open locations, except one where all the player's characters stand."""
    spots = set(s.chars[player].values())
    stays = spots.pop() if len(spots) == 1 else None  # the one location of all the player's characters
    closed = s.closed
    return [loc for loc in LOCATIONS if loc != stays and loc not in closed]


def quietest(s: State, locations: Iterable[int]) -> int:
    """H-4 default destination: fewest zombies, ties to the lowest number."""
    return min(sorted(locations), key=s.zombies.__getitem__)  # ``min`` keeps the first of equals: the lowest


def extra_zombie_targets(s: State) -> tuple[int | None, int | None]:
    """F-1: the unique location with most characters and the unique one with most Pin-Ups (>= 1)."""
    pinups = [0] * 7
    for mine in s.chars.values():
        at = mine.get("pinup")
        if at is not None:
            pinups[at] += 1
    return _unique_max(s.count), _unique_max(pinups)  # (``count``: the characters at each location)


def _unique_max(values: list[int]) -> int | None:
    best = max(values)
    if best == 0 or values.count(best) > 1:
        return None
    return values.index(best)


def condemned_now(s: State) -> list[int]:
    """E-3 / R-18: open, non-Parking locations with no character and at least 8 zombies."""
    return [
        loc
        for loc in LOCATIONS
        if loc != PARKING and loc not in s.closed and s.zombies[loc] >= CONDEMN_AT and not occupied(s, loc)
    ]


def next_chief(s: State, after: str) -> str:
    """B-5 / R-23: the next player clockwise who still has characters; unchanged if nobody has any."""
    for p in s.seating[after][1:]:
        if s.chars[p]:
            return p
    return s.chief


def zombie_players(s: State, zombie_player: str) -> list[str]:
    """ELM-3 / R-16: eliminated players who place a zombie this round, in order from the Chief."""
    out = []
    for p in s.seating[s.chief]:
        since = s.eliminated.get(p)
        if since is None:
            continue
        if since == s.round - 1 or (zombie_player == "every_round" and since < s.round):
            out.append(p)
    return out


def game_over(s: State) -> bool:
    """END-1: all remaining characters at one location other than the Parking, or few enough left."""
    spots = [at for p in s.players for at in s.chars[p].values()]
    if len(spots) <= end_threshold(len(s.players)):
        return True
    first = spots[0]
    return first != PARKING and all(at == first for at in spots)


def scores(s: State) -> dict[str, int]:
    """END-2: victory points of surviving characters (eliminated players score 0)."""
    return {p: sum(POINTS[ch] for ch in s.chars[p]) for p in s.players}


def winners(s: State) -> list[str]:
    """END-2 / END-3 / R-25: most points, then most unused cards; still tied, the victory is shared."""
    points = scores(s)
    best = max(points.values())
    top = [p for p in s.players if points[p] == best]
    most = max(len(s.hands[p]) for p in top)
    return [p for p in top if len(s.hands[p]) == most]


def lowest_value(characters: Iterable[str]) -> str:
    """H-4: the lowest-value character (Little Girl, Gunman, Tough Guy, Pin-Up)."""
    have = set(characters)
    return next(ch for ch in BY_VALUE if ch in have)
