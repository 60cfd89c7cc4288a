"""The engine state of each game, restored once per process and version.

A game's engine state is its stored ``Game.state`` (config and answer log); restoring it replays the log, so the
restored game is kept by (game id, creation instant, version). The creation instant tells apart games of the same id
in different databases (tests, or two installations in one process). Reading never mutates a cached game; a change
works on a ``fresh`` copy and ``put``s it back once committed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import datetime

import engine

from ..models import Game


class EngineCache:
    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._games: OrderedDict[tuple[int, datetime], tuple[int, engine.Game]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(game: Game) -> tuple[int, datetime]:
        return game.id, game.created_at

    def get(self, game: Game) -> engine.Game:
        """The game's engine at its stored version (shared: read it, never change it)."""
        key = self._key(game)
        with self._lock:
            hit = self._games.get(key)
            if hit is not None and hit[0] == game.version:
                self._games.move_to_end(key)
                return hit[1]
        restored = engine.Game.from_json(game.state)
        self.put(game, restored)
        return restored

    def fresh(self, game: Game) -> engine.Game:
        """A private copy to change (an advance); the cache is untouched until ``put`` after the commit."""
        return engine.Game.from_json(game.state)

    def put(self, game: Game, eng: engine.Game) -> None:
        key = self._key(game)
        with self._lock:
            self._games[key] = (game.version, eng)
            self._games.move_to_end(key)
            while len(self._games) > self.size:
                self._games.popitem(last=False)


CACHE = EngineCache()
