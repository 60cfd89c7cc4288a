"""Players' ratings: OpenSkill's Plackett–Luce model on each finished game's placements.

Pure: no database, no I/O. The caller reads the finished games (``play.places.FinishedGame``: ``play.outcome``, of one
league, or all of them); :func:`rate_games` replays them in the order they finished and returns every rated person's
rating and history. The two scopes (per league, across all games) are the same function over a different list of
games.

How a game is rated:

- Every seat is a team of one in a free-for-all, ranked by its placement (1 = best; a tie shares its place).
  The model is ``PlackettLuce()`` with openskill's default parameters (mu 25, sigma 25/3, beta 25/6, tau 25/300).
- **Bots are not rated.** Their seats are left out and the humans are ranked among themselves, keeping the places
  the bots took: a person who finished 3rd behind two bots is rated with rank 3, and two people 2nd and 4th around a
  bot with ranks 2 and 4 (openskill only compares ranks, so the gaps change nothing). A game with fewer than two
  human seats is not rated and counts for nobody.
- **Partial play.** A seat handed over mid-game (a substitute) was played by several tenures, each with its share
  of the game (the caller's measure, e.g. the share of the seat's decisions each tenure answered; a seat played by
  one person has share 1.0; the shares of a bot's tenures are dropped with the bot). The seat takes part in the game
  as one player whose rating is the share-weighted mix of its people's (mu the weighted mean, sigma² the weighted
  mean of the variances); each person then moves by their share of the seat's change: ``mu + share * Δmu`` and
  ``sigma * (sigma'/sigma_seat) ** share``. With one person in the seat at share 1.0 this is exactly openskill's
  update, and the other seats are rated as against a single player.

  Why not openskill's own ``weights`` with the seat as a team of its tenures: a team's mu is the *sum* of its
  members', so a seat shared by two people is rated as a favourite (finishing 2nd of 4 *lowers* both people's
  ratings), and every other seat's update changes because someone else was substituted; moreover openskill
  rescales each team's weights to [1, 2], so as soon as any seat has a substitute, every lone player gets weight 2
  (double gains, half losses) and shares 0.5/0.5 become 1/1. The mix above keeps the game a plain free-for-all.
- A person who held two tenures of the same seat (left and came back) counts once, with the sum of their shares.

A person's figures: ``mu``, ``sigma``, the conservative ``ordinal`` (openskill's ``ordinal()``, mu − 3·sigma: the
true skill is 99.7 % likely to be higher), the number of games rated, ``new`` while under :data:`NEW_BELOW` games
(shown as unknown, never as low), and the history (after each of their games: game id, finish time, ordinal).
:func:`shown` gives what a page shows.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from openskill.models import PlackettLuce, PlackettLuceRating

from ..play.places import FinishedGame, SeatResult

#: fewer rated games than this: "new", the rating shown as unknown.
NEW_BELOW = 5

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Point:
    """A person's ordinal right after one of their games."""

    game_id: int
    finished_at: datetime
    ordinal: float


@dataclass
class Rating:
    """One person's rating in one scope (a league, or all games)."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0
    history: list[Point] = field(default_factory=list)

    @property
    def ordinal(self) -> float:
        return _os(self.mu, self.sigma).ordinal()

    @property
    def new(self) -> bool:
        return self.games < NEW_BELOW


@dataclass(frozen=True)
class Shown:
    """What a page shows of a rating: ordinal and uncertainty (2·sigma) rounded; both None while new."""

    ordinal: int | None
    uncertainty: int | None
    new: bool


def shown(rating: Rating | None) -> Shown:
    """A rating for a page (None: the person has no rated game in this scope, also new)."""
    if rating is None or rating.new:
        return Shown(None, None, True)
    return Shown(round(rating.ordinal), round(2 * rating.sigma), False)


def _os(mu: float, sigma: float) -> PlackettLuceRating:
    return MODEL.rating(mu=mu, sigma=sigma)


def _people(seat: SeatResult) -> dict[int, float]:
    """The seat's people and their shares (bots dropped, a person's tenures merged)."""
    shares: dict[int, float] = {}
    for tenure in seat.tenures:
        if tenure.player_id is not None and tenure.share > 0:
            shares[tenure.player_id] = shares.get(tenure.player_id, 0.0) + tenure.share
    return shares


def _rated_seats(game: FinishedGame) -> list[tuple[int, dict[int, float]]]:
    """Each seat played by people, with its placement and their shares; none when fewer than two seats are."""
    seats = [(seat.placement, people) for seat in game.seats if (people := _people(seat))]
    return seats if len(seats) >= 2 else []


def rated(game: FinishedGame) -> list[int]:
    """The people ``rate_game`` rates in ``game``, in id order (none when fewer than two seats are people's)."""
    return sorted(player_id for _, people in _rated_seats(game) for player_id in people)


def rate_game(ratings: dict[int, Rating], game: FinishedGame) -> None:
    """Apply one finished game to ``ratings`` (player id → rating, updated in place; newcomers added)."""
    seats = _rated_seats(game)
    if not seats:
        return
    seen: set[int] = set()
    for _, people in seats:
        if seen & people.keys():
            raise ValueError(f"game {game.id}: a person holds two seats")
        seen |= people.keys()
    for _, people in seats:
        for player_id in people:
            ratings.setdefault(player_id, Rating())
    teams: list[list[PlackettLuceRating]] = []
    for _, people in seats:
        total = sum(people.values())
        mu = sum(share * ratings[p].mu for p, share in people.items()) / total
        variance = sum(share * ratings[p].sigma ** 2 for p, share in people.items()) / total
        teams.append([_os(mu, math.sqrt(variance))])
    rated = MODEL.rate(teams, ranks=[float(placement) for placement, _ in seats])
    for (_, people), [before], [after] in zip(seats, teams, rated, strict=True):
        for player_id, share in people.items():
            rating = ratings[player_id]
            if len(people) == 1 and share == 1.0:
                rating.mu, rating.sigma = after.mu, after.sigma
            else:
                rating.mu += share * (after.mu - before.mu)
                rating.sigma *= (after.sigma / before.sigma) ** share
            rating.games += 1
            rating.history.append(Point(game.id, game.finished_at, rating.ordinal))


def rate_games(games: Iterable[FinishedGame]) -> dict[int, Rating]:
    """Every rated person's rating after ``games``, applied in the order they finished (then by id, for games
    finished at the same instant), whatever the order given."""
    ratings: dict[int, Rating] = {}
    for game in sorted(games, key=lambda game: (game.finished_at, game.id)):
        rate_game(ratings, game)
    return ratings
