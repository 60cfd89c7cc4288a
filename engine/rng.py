"""The game's random numbers: ``random.Random`` counting the words it draws.

A module of its own because it subclasses a class written in Python: the compiled build (``setup.py``, mypyc) leaves
it interpreted.
"""

from __future__ import annotations

import random

_draw = random.Random.random
_drawbits = random.Random.getrandbits


class Rng(random.Random):
    """``random.Random`` that counts the 32-bit words it draws, so its state is one number (``skip`` restores it)."""

    def __init__(self, seed: int) -> None:
        self.drawn = 0
        super().__init__(seed)

    # (``_random.Random``'s methods called directly: ``super()`` would look them up at every draw)

    def random(self) -> float:
        self.drawn += 2
        return _draw(self)

    def getrandbits(self, k: int) -> int:
        self.drawn += (k + 31) // 32
        return _drawbits(self, k)

    def skip(self, words: int) -> None:
        """Draw ``words`` words at once, as after ``words`` words drawn one by one."""
        super().getrandbits(32 * words)
        self.drawn += words
