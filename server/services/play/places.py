"""A finished game's places (END-3) and who played each seat, as plain values. Pure: no database, no I/O.

``placings`` places the seats by victory points, then by the cards left in hand; seats still tied share the place
(places 1, 1, 3). ``FinishedGame`` is a finished game's placements with each seat's tenures and their shares of
partial play (``outcome.finished_games`` reads them; ``leagues.ratings`` rates them).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import engine


@dataclass(frozen=True)
class Tenure:
    """Who played (part of) a seat: a person (``player_id``) or a bot (``player_id`` None), with their share."""

    player_id: int | None
    share: float = 1.0


@dataclass(frozen=True)
class SeatResult:
    """One seat's placement (1 = best, ties share) and the tenures that played it."""

    placement: int
    tenures: tuple[Tenure, ...]


@dataclass(frozen=True)
class FinishedGame:
    id: int
    finished_at: datetime
    seats: tuple[SeatResult, ...]


def outcome_places(outcome: engine.Outcome | None) -> list[tuple[str, int, int, int]]:
    """``(colour, place, span, points)`` of every scored seat of an engine game's ``outcome`` (``placings``, END-3);
    empty for a game without one. (A result the organiser recorded has no cards: none count.)"""
    if outcome is None:
        return []
    points, cards = outcome["scores"], outcome["cards"]
    left = {c: cards.get(c, 0) for c in points}
    return [(c, place, span, points[c]) for c, place, span in placings(list(points), points, left)]


def placings(colours: Sequence[str], scores: Mapping[str, int], cards: Mapping[str, int]) -> list[tuple[str, int, int]]:
    """The places of a finished game (END-3): ``(colour, place, span)`` by victory points, then cards left in hand;
    seats still tied share ``place`` (the first of the places they span, so 1, 1, 3) and ``span`` says how many share
    it. Tied seats keep the order of ``colours``."""
    ranked = sorted(colours, key=lambda c: (-scores[c], -cards[c]))
    keys = [(scores[c], cards[c]) for c in ranked]
    return [(c, start + 1, end - start) for start, end in runs(keys) for c in ranked[start:end]]


def runs(keys: Sequence[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each run of equal ``keys`` (seats sorted by place: each run shares a place)."""
    start = 0
    while start < len(keys):
        end = start + 1
        while end < len(keys) and keys[end] == keys[start]:
            end += 1
        yield start, end
        start = end
