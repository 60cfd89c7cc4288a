"""The operations of deadmail, callable alike from views, tasks, the CLI and tests.

A game's end is announced by play (``play.hooks``), which imports nothing of leagues; the leagues' handler is
registered here, where every process passes before it can import anything of play."""

from .leagues import game_end
from .play import hooks

hooks.on_game_over(game_end.game_over)
