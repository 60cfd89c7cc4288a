"""Games players start themselves (``proposals``: create, invite, join, start, cancel, the lobby) and the server
organiser's moderation of them (``moderation``: suspend a player, who created what)."""
