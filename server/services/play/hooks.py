"""What play announces to the features above it without importing them: a game's end.

``turns.open_windows`` calls ``game_over(session, game, now)`` in the transaction that ends a game (its status and
outcome set); each callback registered with ``on_game_over`` runs there in the order registered, so what it writes
commits (or rolls back) with the game's end. ``server/services/__init__.py`` registers the leagues' handler, so it
is registered in every process that can end a game (nothing of play is imported without that package first).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy.orm import Session

from ...models import Game

GameOver = Callable[[Session, Game, datetime], None]

#: the callbacks of a game's end, in the order registered.
GAME_OVER: list[GameOver] = []


def on_game_over(callback: GameOver) -> None:
    """Run ``callback(session, game, now)`` whenever a game ends, in the transaction that ends it."""
    GAME_OVER.append(callback)


def game_over(session: Session, game: Game, now: datetime) -> None:
    """The game just ended (its status and outcome are set, in this transaction): every registered callback."""
    for callback in GAME_OVER:
        callback(session, game, now)
