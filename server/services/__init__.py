"""The operations of deadmail, callable alike from views, tasks, the CLI and tests.

A game's end is announced by play (``play.hooks``), which imports nothing of leagues; the leagues' handler is
registered here, where every process passes before it can import anything of play: first the channels' (a game's
places posted before the standings its round's end posts), then the leagues'."""

from .channel import events as channel_events
from .leagues import game_end
from .play import hooks

hooks.on_game_over(channel_events.game_over)
hooks.on_game_over(game_end.game_over)
