"""Bots that answer requests through the same API as people (``Game.answer``).

They read only what their player may know: the public table and their own hand and requests.
"""

from __future__ import annotations

import random
from typing import Protocol

from .data import BY_VALUE, CAPACITY, CHARACTERS, LOCATIONS, PARKING, POINTS, SUPERMARKET, WEAPONS
from .game import Game
from .requests import Request
from .rules import attack_threshold, count_at, scores, visible_at
from .shapes import JSON, JSONObject

VALUE_RANK = {ch: i for i, ch in enumerate(BY_VALUE)}


class Bot(Protocol):
    def decide(self, game: Game, req: Request) -> JSON:
        """A legal JSON answer to ``req``."""


class RandomBot:
    """Picks uniformly among legal answers (a few shapes of card play, never an abstention)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def decide(self, game: Game, req: Request) -> JSON:
        rng = self.rng
        kind = req.kind
        if kind in ("vote", "victim"):
            return rng.choice(req.names())
        if kind in ("announce", "destination", "zombie"):
            return rng.choice(req.locations())
        if kind == "place":
            spot = rng.choice(req.placements())
            choice: JSONObject = {"character": spot["character"], "location": spot["location"]}
            if rng.random() < 0.3:
                choice["fallback"] = rng.choice(_open(game))
            return choice
        if kind == "move":
            choice = {"character": rng.choice(req.movable())["character"]}
            if _can_sprint(game, req) and rng.random() < 0.5:
                choice["sprint"] = rng.choice(_open(game))
                if rng.random() < 0.5:
                    choice["sprint_if_full"] = True
            return choice
        if kind == "truck":
            cards = list(req.info["cards"])
            rng.shuffle(cards)
            others = [p for p in game.players if p != req.player and game.chars[p]]
            return {"keep": cards[0], "give": cards[1], "to": rng.choice(others)}
        if kind == "cards":
            if rng.random() < 0.5:
                return []
            card = rng.choice(req.info["playable"])
            return [_random_play(game, req, card, rng)]
        raise AssertionError(kind)


def _open(game: Game) -> list[int]:
    return [loc for loc in LOCATIONS if loc not in game.closed]


def _can_sprint(game: Game, req: Request) -> bool:
    return game.options.sprint_timing == "on_move" and "sprint" in game.hands[req.player]


def _random_play(game: Game, req: Request, card: str, rng: random.Random) -> JSONObject:
    play: JSONObject = {"card": card}
    loc = req.info["location"]
    if card == "hidden":
        assert loc is not None  # Hidden is played in an attack window, which has its location
        play["character"] = rng.choice(visible_at(game, req.player, loc))
    elif card == "sprint":
        play["character"] = game.moved[req.player]
        play["location"] = rng.choice(_open(game))
    if card in WEAPONS or card in ("hardware", "hidden"):
        play["if_needed"] = rng.random() < 0.5
    return play


class SensibleBot:
    """Keeps its characters out of danger, votes against the leader, plays cards when they save a character."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def decide(self, game: Game, req: Request) -> JSON:
        answer: JSON = getattr(self, "_" + req.kind)(game, req)
        return answer

    # -- helpers --
    def _danger(self, game: Game, loc: int, dice: list[int] | None = None) -> float:
        """How likely a location is to be attacked this round, roughly: expected zombies minus strength."""
        if loc in game.closed:
            return 99.0
        expected = game.zombies[loc] + (dice.count(loc) if dice else 4 / 6)
        if loc == PARKING:
            return expected
        return expected - attack_threshold(game, loc) + 1

    def _leader(self, game: Game, me: str, among: list[str]) -> str:
        points = scores(game)
        others = [c for c in among if c != me] or among
        return max(others, key=lambda c: (points[c], -game.players.index(c)))

    # -- requests --
    def _vote(self, game: Game, req: Request) -> str:
        return self._leader(game, req.player, req.names())

    def _victim(self, game: Game, req: Request) -> str:
        return min(req.names(), key=lambda c: VALUE_RANK[c])

    def _place(self, game: Game, req: Request) -> JSONObject:
        best = min(
            req.placements(),
            key=lambda o: (self._danger(game, o["location"]) - (o["character"] == "tough"), -POINTS[o["character"]]),
        )
        return {
            "character": best["character"],
            "location": best["location"],
            "fallback": min(_open(game), key=lambda loc: self._danger(game, loc)),
        }

    def _location(self, game: Game, req: Request) -> int:
        dice = req.info.get("dice")

        def score(loc: int) -> tuple[float, int]:
            cap = CAPACITY[loc]
            crowded = cap is not None and count_at(game, loc) >= cap
            return self._danger(game, loc, dice) + (3 if crowded else 0), loc

        return min(req.locations(), key=score)

    def _announce(self, game: Game, req: Request) -> int:
        return self._location(game, req)

    def _destination(self, game: Game, req: Request) -> int:
        return self._location(game, req)

    def _zombie(self, game: Game, req: Request) -> int:
        leader = self._leader(game, req.player, [p for p in game.players if game.chars[p]])
        spots = [game.chars[leader].get(ch) for ch in CHARACTERS]
        return max(req.locations(), key=lambda loc: (spots.count(loc), -loc))

    def _move(self, game: Game, req: Request) -> JSONObject:
        mine = game.chars[req.player]
        movable = [o["character"] for o in req.movable()]
        # move the most valuable character from the most dangerous place
        pick = max(movable, key=lambda c: (self._danger(game, mine[c]), POINTS[c]))
        answer: JSONObject = {"character": pick}
        if _can_sprint(game, req):
            answer["sprint"] = mine[pick]
            answer["sprint_if_full"] = True
        return answer

    def _truck(self, game: Game, req: Request) -> JSONObject:
        order = [*WEAPONS[::-1], "hidden", "hardware", "sprint", "threat", "camera"]
        cards = sorted(req.info["cards"], key=order.index)
        points = scores(game)
        others = [p for p in game.players if p != req.player and game.chars[p]]
        return {
            "keep": cards[0],
            "give": cards[-1],
            "to": min(others, key=lambda p: (points[p], game.players.index(p))),
        }

    def _cards(self, game: Game, req: Request) -> list[JSON]:
        window, loc, playable = req.info["window"], req.info["location"], req.info["playable"]
        me = req.player
        if window == "arrival":
            return [{"card": "camera"}]
        if window == "sprint":
            return []
        if window in ("truck", "chief"):
            return [{"card": "threat"}] if game.threats.get(me, 0) == 0 and self.rng.random() < 0.5 else []
        assert loc is not None  # an attack window, which has its location
        mine = visible_at(game, me, loc)
        if not mine:
            return []
        plays: list[JSON] = []
        weapons = sorted((c for c in playable if c in WEAPONS), key=lambda c: -game.options.weapons[c])
        gap = game.zombies[loc] - (attack_threshold(game, loc) if loc != PARKING else 0) + 1
        for card in weapons:
            if gap <= 0:
                break
            plays.append({"card": card, "if_needed": True})
            gap -= game.options.weapons[card]
        if gap > 0 and "hardware" in playable and not (loc == SUPERMARKET and game.zombies[loc] >= 4):
            plays.append({"card": "hardware", "if_needed": True})
            gap -= 1
        if gap > 0 and "hidden" in playable:
            best = max(mine, key=lambda c: POINTS[c])
            plays.append({"card": "hidden", "character": best, "if_needed": True})
        if gap > 0 and "threat" in playable:
            plays.append({"card": "threat"})
        return plays


def play_game(game: Game, bots: dict[str, Bot], timeout_rate: float = 0.0, rng: random.Random | None = None) -> Game:
    """Answer every request with the seat's bot (or, at ``timeout_rate``, let it time out) until the game ends."""
    rng = rng or random.Random(0)
    while not game.over:
        for req in game.pending():
            if timeout_rate and rng.random() < timeout_rate:
                game.timeout(req.player, req.kind)
            else:
                game.answer(req.player, req.kind, bots[req.player].decide(game, req))
    return game
