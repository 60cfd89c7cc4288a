"""A league's or a game's incoming-webhook channel (Discord, Slack or Matrix style: a JSON POST) where public events
are posted: a round started with its tables, a game over with its places, the standings after a round, a season's
end. ``urls`` checks an address, ``channels`` sets, removes and resumes a channel, ``events`` writes the public facts
of an event and ``posts`` keeps them with the outbox's discipline (claimed, sent once by the worker through
``server/mail/channel.py``, retried, a failing channel paused and its organiser told, pruned).

What ``services.lobby`` calls: ``check_url(url, allow_private)``, ``set_game_channel(session, game_id, url,
allow_private=…)``, ``clear_game_channel(session, game_id)``, ``resume_game_channel(session, game_id, now)``,
``game_channel(session, game_id)``."""

from .channels import ChannelShown, clear_game_channel, game_channel, resume_game_channel, set_game_channel
from .urls import ChannelError, check_url

__all__ = [
    "ChannelError",
    "ChannelShown",
    "check_url",
    "clear_game_channel",
    "game_channel",
    "resume_game_channel",
    "set_game_channel",
]
