"""Standing answers: what a player says in advance for the small steps, so they are not asked.

The settings are those of ``engine.standing_answer`` (``cards``, ``camera``, ``attack``, ``vote``, ``victim``),
kept as defaults on the player (``Player.standing``) and per game on the seat (``Seat.standing``). A seat's
effective setting is, per key, the seat's value when it has the key (``"ask"`` overrides a default), else the
player's default. A game's victim order stays with the engine (H-5, ``prefs.set_standing_order``): the player's
default victim order applies where the engine has none. They are evaluated when a request opens
(``turns.open_windows``), from the player's own view only; they are private to the player (H-6).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

import engine
from engine.data import CHARACTERS
from engine.shapes import JSON, JSONObject
from engine.standing import ASK, CHOICES, KEYS, setting_for

from ...db import Database
from ...models import GameStatus, Player, Seat
from ..errors import N_, ShownError
from ..links import LinkError
from .seats import view_of

__all__ = [
    "ASK",
    "KEYS",
    "StandingError",
    "answer_for",
    "check_changes",
    "effective",
    "merge_defaults",
    "seat_settings",
    "set_defaults",
    "set_seat",
    "shown_settings",
]


class ShownSetting(TypedDict):
    """A standing answer that answers for a seat (``shown_settings``)."""

    key: str
    value: JSON
    #: it comes from the player's preferences
    default: bool


class SeatSettings(TypedDict):
    """A seat's standing answers (``seat_settings``): each a setting -> "ask", a choice or a victim order."""

    seat: JSONObject
    defaults: JSONObject
    effective: JSONObject
    answering: list[ShownSetting]


class StandingError(ShownError):
    """A standing answer refused; the message says which (pages translate it). Nothing was changed."""


def _shown(value: object) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_changes(changes: object, keys: tuple[str, ...] = KEYS) -> JSONObject:
    """Changes to standing answers, checked: each key of ``keys`` to a value it takes, or ``"ask"``; StandingError
    names the first refused one. ``victim`` takes a list of distinct characters (empty: ask); None removes the setting
    (a seat then follows the player's default)."""
    if not isinstance(changes, Mapping):
        raise StandingError(
            N_("Standing answers are given as an object such as %(example)s."), example='{"camera": "look"}'
        )
    out: JSONObject = {}
    for key, value in changes.items():
        if key not in keys:
            raise StandingError(
                N_("%(value)s is not a standing answer; the settings are %(settings)s."),
                value=_shown(key),
                settings=list(keys),
            )
        if value is None:  # as in the player's preferences (on a seat), or no default (on the player)
            out[key] = None
        elif key == "victim" and value != ASK:
            if not isinstance(value, list | tuple) or not all(isinstance(c, str) for c in value):
                raise StandingError(N_("A standing order is a list of characters."))
            picked = [c for c in value if c]
            if any(c not in CHARACTERS for c in picked) or len(set(picked)) != len(picked):
                raise StandingError(
                    N_("A standing order must list distinct characters: %(characters)s."), characters=list(CHARACTERS)
                )
            out[key] = picked or ASK
        elif value != ASK and value not in CHOICES[key]:
            raise StandingError(
                N_("%(setting)s cannot be %(value)s; choose one of %(choices)s."),
                setting=key,
                value=_shown(value),
                choices=[ASK, *CHOICES[key]],
            )
        else:
            out[key] = value
    return out


def effective(seat: Seat) -> JSONObject:
    """The seat's standing answers: per setting, the seat's own value, else its player's default."""
    defaults = (seat.player.standing if seat.player is not None else None) or {}
    return {**defaults, **(seat.standing or {})}


def answer_for(seat: Seat, eng: engine.Game, request: engine.Request) -> JSON:
    """The answer the seat's standing answers give to ``request`` now (None: ask), from the seat's own view."""
    if seat.bot is not None or seat.player is None:
        return None
    settings = effective(seat)
    if settings.get(setting_for(request) or "") in (None, ASK):
        return None  # no setting answers this kind: the seat's view is not worked out for nothing
    return engine.standing_answer(engine.view(eng, seat.colour), request, settings)


def shown_settings(seat: Seat) -> list[ShownSetting]:
    """The standing answers that answer for the seat, in order, for its own pages and mails only (H-6): each
    ``{"key", "value", "default"}`` (``default``: it comes from the player's preferences). The victim order is the
    engine's for this game (H-5) when it has one."""
    own = seat.standing or {}
    settings = effective(seat)
    order = view_of(seat)["standing_order"]
    if order:
        settings["victim"] = list(order)
    return [
        {"key": key, "value": settings[key], "default": key not in own and not (key == "victim" and order)}
        for key in KEYS
        if settings.get(key) not in (None, ASK, [])
    ]


def seat_settings(db: Database, seat_id: int) -> SeatSettings:
    """The seat's standing answers (its own pages and API only, H-6): its own, its player's defaults, the effective
    ones, and those that answer for it now (``shown_settings``)."""
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        if seat is None:
            raise LinkError(N_("This link is not valid."))
        defaults = (seat.player.standing if seat.player is not None else None) or {}
        return {
            "seat": dict(seat.standing or {}),
            "defaults": dict(defaults),
            "effective": effective(seat),
            "answering": shown_settings(seat),
        }


def set_seat(db: Database, seat_id: int, checked: JSONObject, *, player_id: int | None = None) -> JSONObject:
    """Store checked changes (``check_changes``) of the seat's standing answers for its game (``"ask"`` overrides a
    default); StandingError (nothing changed) when the seat is not the player's or its game is over. A victim order
    is not kept here but by the engine (``prefs.set_seat_standing``). Returns the seat's own settings."""
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        if seat is None or seat.bot is not None or (player_id is not None and seat.player_id != player_id):
            raise StandingError(N_("That seat is not yours."))
        if seat.game.status != GameStatus.RUNNING:
            raise StandingError(
                N_("Game %(game)s is over: its standing answers can no longer change."), game=seat.game_id
            )
        merged = {**(seat.standing or {}), **checked}
        # removed, or a victim order: the engine keeps it (the seat no longer says "ask")
        merged = {k: v for k, v in merged.items() if v is not None and not isinstance(v, list)}
        seat.standing = merged or None
        return dict(merged)


def set_defaults(db: Database, player_id: int, changes: object) -> JSONObject:
    """Change the player's default standing answers (``"ask"`` removes one); StandingError (nothing changed) for a
    refused value. Returns the player's defaults."""
    checked = check_changes(changes)
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise LinkError(N_("This link is not valid."))
        merge_defaults(player, checked)
        return dict(player.standing or {})


def merge_defaults(player: Player, checked: JSONObject) -> None:
    """Apply checked changes (``check_changes``) to the player's defaults: "ask" or None removes one."""
    merged = {**(player.standing or {}), **checked}
    player.standing = {k: v for k, v in merged.items() if v not in (None, ASK)} or None
