"""The engine state of each game, restored once per process and version.

A game's engine state is its stored ``Game.state`` (config and answer log, ``engine.Game.to_json``) and
``Game.snapshot``, the engine's state at the start of the latest round (``engine.Game.snapshot``, written with the
state by ``turns.store_state``). Restoring starts from the snapshot and replays only the log entries after it
(``engine.Game.restore``), with the events before it taken from the cached engine of the same version (a ``fresh``
copy for an advance) or read back from the game's ``EventBatch`` rows in one query; without a snapshot it replays the
whole log. The restored game is kept by (game id, creation instant, version). The creation instant tells apart games
of the same id in different databases (tests, or two installations in one process). Reading never mutates a cached
game; a change works on a ``fresh`` copy and ``put``s it back once committed.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from datetime import datetime
from typing import cast

from sqlalchemy import select
from sqlalchemy.orm import Session, object_session

import engine

from ...models import EventBatch, Game
from ...packing import unpack_events

log = logging.getLogger(__name__)

#: engines by (game id, creation instant), each with the game version it is at, least recently used first.
Games = OrderedDict[tuple[int, datetime], tuple[int, engine.Game]]


class EngineCache:
    def __init__(self, size: int = 256, checkers: int = 4096) -> None:
        self.size = size
        self._games: Games = OrderedDict()
        #: engines restored without their events (``checker``): smaller, so many more are kept.
        self._checkers: Games = OrderedDict()
        self.checkers = checkers
        self._lock = threading.Lock()

    @staticmethod
    def _key(game: Game) -> tuple[int, datetime]:
        return game.id, game.created_at

    def get(self, game: Game) -> engine.Game:
        """The game's engine at its stored version (shared: read it, never change it)."""
        cached = self._cached(game)
        if cached is not None:
            return cached
        restored = restore(game)
        self.put(game, restored)
        return restored

    def checker(self, game: Game) -> engine.Game:
        """The game's engine at its stored version to check an answer against, never to show (its events may be
        placeholders): the cached engine when it holds this version, else one restored from the snapshot without
        reading the events, kept apart (answers spread over many more games than pages are shown of)."""
        cached = self.checker_at(self._key(game), game.version)
        if cached is not None:
            return cached
        restored = restore(game, unread=True)
        self._keep(self._checkers, game, restored, self.checkers)
        return restored

    def checker_at(self, key: tuple[int, datetime], version: int) -> engine.Game | None:
        """``checker`` when one is kept for the game of ``key`` (``_key``) at ``version``, without the game's row (an
        answer reads only its key and version); else None."""
        return self._lookup(self._games, key, version) or self._lookup(self._checkers, key, version)

    def fresh(self, game: Game) -> engine.Game:
        """A private copy to change (an advance); the cache is untouched until ``put`` after the commit. Restored
        from the snapshot, with the events of the cached engine when it holds this version (no query)."""
        return restore(game, self._cached(game))

    def _cached(self, game: Game) -> engine.Game | None:
        return self._lookup(self._games, self._key(game), game.version)

    def _lookup(self, games: Games, key: tuple[int, datetime], version: int) -> engine.Game | None:
        with self._lock:
            hit = games.get(key)
            if hit is None or hit[0] != version:
                return None
            games.move_to_end(key)
            return hit[1]

    def put(self, game: Game, eng: engine.Game) -> None:
        self._keep(self._games, game, eng, self.size)

    def _keep(self, games: Games, game: Game, eng: engine.Game, size: int) -> None:
        key = self._key(game)
        with self._lock:
            games[key] = (game.version, eng)
            games.move_to_end(key)
            while len(games) > size:
                games.popitem(last=False)


#: what an engine restored to check answers has in place of each event before its snapshot (never shown).
UNREAD = cast(engine.Event, {"type": "unread"})  # no type of the engine's: it is never read


def restore(game: Game, same: engine.Game | None = None, *, unread: bool = False) -> engine.Game:
    """The game's engine from its snapshot and the log after it, with the events before the snapshot taken from
    ``same`` (an engine of the same game and version), read from its ``EventBatch`` rows (one query), or, ``unread``,
    left as placeholders (``UNREAD``: an engine to check answers against, never to show); by replaying the whole log
    when it has no snapshot, is not in a session, or its snapshot does not fit (logged: should never happen)."""
    snapshot = game.snapshot
    session = object_session(game)
    if snapshot is None or (same is None and session is None and not unread):
        return engine.Game.from_json(game.state)
    if same is not None:
        events = same.events[: snapshot["events"]]
    elif unread:
        events = [UNREAD] * snapshot["events"]
    else:
        assert session is not None
        events = _events(session, game.id, snapshot["events"])
    try:
        return engine.Game.restore(game.state, snapshot, events)
    except engine.ScenarioError as exc:
        log.error("game %s: its snapshot does not restore (%s): replaying its whole log", game.id, exc)
        return engine.Game.from_json(game.state)


def _events(session: Session, game_id: int, count: int) -> list[engine.Event]:
    """The game's first ``count`` engine events, as ``turns._store_events`` stored them: the batches that start
    before ``count``, unpacked, cut at ``count``."""
    packed = session.execute(
        select(EventBatch.events)
        .where(EventBatch.game_id == game_id, EventBatch.first_seq < count)
        .order_by(EventBatch.first_seq)
    ).scalars()
    return [event for batch in packed for event in unpack_events(batch)][:count]


CACHE = EngineCache()
