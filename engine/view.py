"""What each reader may know (B-INFO, H-6): the one redaction used by every page, mail, API answer and log line."""

from __future__ import annotations

from typing import cast

from .data import Phase
from .game import Game
from .requests import asked_in_secret
from .shapes import Event, FullReplay, PlayerView, PublicBoard, SpectatorView


def _public(game: Game) -> PublicBoard:
    """The table as everyone sees it: no hand, no unrevealed destination, vote, truck card or die."""
    pos = game.position()
    del pos["hands"], pos["deck"], pos["dice"]
    if game.phase in (Phase.MOVES, Phase.ATTACK):
        destinations = dict(game.destinations)  # revealed at E-1
    elif game.phase == Phase.DESTINATIONS and game.chief_elected and game.chief in game.destinations:
        destinations = {game.chief: game.destinations[game.chief]}  # D-1: announced
    else:
        destinations = {}
    board = {
        "players": list(game.players),
        "options": game.options.to_json(),
        **pos,
        "hidden": sorted([p, c] for p, c in game.hidden),
        "hand_sizes": {p: len(game.hands[p]) for p in game.players},  # public at the table (B-INFO)
        "deck_size": len(game.deck),
        "dice_seen_by": None if game.dice is None else list(game.dice["seen_by"]),
        "destinations": destinations,
        # who still owes an answer, except those whose being asked tells what they hold (H-2): nobody is named in
        # a card window, nor for a move only a Sprint makes a question (a server that collects a window's answers
        # before applying them tells the same from its own rows: deadmail's ``seats.still_deciding``)
        "waiting_for": [{"player": r.player, "kind": r.kind} for r in game.pending() if not asked_in_secret(r)],
        "window_no": game.window_no,
        "over": game.over,
        "outcome": game.outcome,
    }
    return cast(PublicBoard, board)  # ``position()`` gives the position's keys


def _events_for(game: Game, colour: str | None) -> list[Event]:
    """The events ``colour`` (None: a spectator) may see, in order. The log only grows at its end, so a reader's
    events only grow at the end too: a reader who has seen ``n`` of them is told ``events[n:]`` next."""
    out = []
    for event in game.events:
        to = event.get("to")
        if to is None or (colour is not None and colour in to):
            out.append(cast(Event, {k: v for k, v in event.items() if k != "to"}))
    return out


def view(game: Game, colour: str) -> PlayerView:
    """Everything ``colour`` may know now, and nothing else."""
    if colour not in game.players:
        raise ValueError(f"{colour!r} is not a player of this game")
    out = cast(PlayerView, _public(game))  # its other keys follow
    out["you"] = colour
    out["hand"] = list(game.hands[colour])
    out["standing_order"] = game.standing.get(colour)
    seen = game.dice is not None and colour in game.dice["seen_by"]
    out["dice"] = list(game.dice["values"]) if seen and game.dice is not None else None
    out["requests"] = [r.to_json() for r in game.pending() if r.player == colour]
    out["answered"] = game.answered(colour)
    out["events"] = _events_for(game, colour)
    return out


def spectator_view(game: Game) -> SpectatorView:
    """What someone outside the game may see: the public table and public events."""
    out = _public(game)
    out["events"] = _events_for(game, None)
    return out


def replay(game: Game) -> FullReplay:
    """Once the game is over, every secret: the full event log, hands, deck and the answer log (H-6)."""
    if not game.over:
        raise ValueError("the replay is shown once the game is over")
    return {
        "config": game.config.to_json(),
        "log": game.to_json()["log"],
        "state": game.position(),
        "outcome": game.outcome,
        "events": [cast(Event, dict(e)) for e in game.events],
    }
