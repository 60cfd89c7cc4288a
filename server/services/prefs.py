"""A player's preferences: language, time zone, quiet hours, mail per event or digest, standing victim orders (H-5).

Every value is checked before anything is stored; a refused value raises PrefsError and changes nothing. Messages
are msgids (marked with ``N_`` so pybabel finds them) formatted with their parameters; pages translate them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any
from zoneinfo import available_timezones

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine.data import CHARACTERS
from engine.requests import by_standing_order

from ..db import Database
from ..i18n import LANGUAGES
from ..models import Game, Player, RequestRow, Seat, Window
from .errors import N_, ShownError
from .links import LinkError
from .turns import AnswerError, Kick, submit_answer

MAIL_MODES = ("each", "digest")
DIGEST_HOURS = (1, 4, 12, 24)
_CLOCK = re.compile(r"(?:[01]\d|2[0-3]):[0-5]\d")


class PrefsError(ShownError):
    """A preference refused; ``msgid % params`` is the English message, pages show ``exc.translated(gettext)``."""


@dataclass(frozen=True)
class Saved:
    #: seats whose unanswered victim request a new standing order answered at once.
    answered: list[int]


@cache
def timezones() -> frozenset[str]:
    return frozenset(available_timezones())


@cache
def zone_choices(common: tuple[str, ...]) -> tuple[list[str], list[str]]:  # cached: callers only read
    """A time zone select's two groups: the ``common`` zones that exist, then every other zone, sorted."""
    zones = timezones()
    first = [z for z in common if z in zones]
    return first, sorted(zones - set(first))


def shown(value: object) -> str:
    """A refused value as it may appear in a message: short."""
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def get_prefs(db: Database, player_id: int) -> dict[str, Any]:
    """The player's settings and their running games (seat, colour, standing order); LinkError if no such player."""
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise LinkError(N_("This link is not valid."))
        seats = session.execute(
            select(Seat, Game)
            .join(Seat.game)
            .where(Seat.player_id == player_id, Game.status == "running")
            .order_by(Game.id, Seat.position)
        ).all()
        return {
            "name": player.display_name,
            "email": player.email,
            "language": player.language,
            "timezone": player.timezone,
            "quiet_start": player.quiet_start,
            "quiet_end": player.quiet_end,
            "mail_mode": player.mail_mode,
            "digest_hours": player.digest_hours,
            "games": [
                {
                    "game_id": game.id,
                    "title": game.title,
                    "seat_id": seat.id,
                    "colour": seat.colour,
                    "standing_order": list(seat.standing_order or []),
                }
                for seat, game in seats
            ],
        }


# --- checking ------------------------------------------------------------------------------------------------------


def _text(values: Mapping[str, Any], key: str) -> str:
    value = values.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise PrefsError(N_("The value of %(field)s is not text."), field=key)
    return value.strip()


def check_prefs(values: Mapping[str, Any]) -> dict[str, Any]:
    """The player's settings from form-like ``values``, checked; PrefsError names the first refused one."""
    language = _text(values, "language")
    if language not in LANGUAGES:
        raise PrefsError(
            N_("%(value)s is not a language deadmail speaks: choose English, Italian or Polish."), value=shown(language)
        )
    zone = _text(values, "timezone")
    if zone not in timezones():
        raise PrefsError(
            N_("%(value)s is not a time zone: choose one from the list, such as Europe/Rome."), value=shown(zone)
        )
    start, end = _text(values, "quiet_start"), _text(values, "quiet_end")
    for clock in (start, end):
        if clock and not _CLOCK.fullmatch(clock):
            raise PrefsError(N_("%(value)s is not a time of day such as 22:30."), value=shown(clock))
    if bool(start) != bool(end):
        raise PrefsError(N_("Give both the start and the end of your quiet hours, or neither."))
    if start and start == end:
        raise PrefsError(N_("Your quiet hours must start and end at different times."))
    mode = _text(values, "mail_mode")
    if mode not in MAIL_MODES:
        raise PrefsError(N_("Choose a mail for every event or a digest."))
    hours = values.get("digest_hours")
    if isinstance(hours, str) and hours.strip().isdigit() and len(hours.strip()) <= 2:
        hours = int(hours)
    if isinstance(hours, bool) or hours not in DIGEST_HOURS:
        raise PrefsError(N_("A digest comes every 1, 4, 12 or 24 hours."))
    return {
        "language": language,
        "timezone": zone,
        "quiet_start": start or None,
        "quiet_end": end or None,
        "mail_mode": mode,
        "digest_hours": hours,
    }


def check_order(order: object) -> list[str]:
    """A standing victim order (H-5): distinct characters, best given up first; empty clears it."""
    if not isinstance(order, Sequence) or isinstance(order, str | bytes):
        raise PrefsError(N_("A standing order is a list of characters."))
    picked = [c for c in order if c != ""]
    for character in picked:
        if character not in CHARACTERS:
            raise PrefsError(N_("%(value)s is not a character."), value=shown(character))
    if len(set(picked)) != len(picked):
        raise PrefsError(N_("A character appears twice in your standing order."))
    return list(picked)


def _own_running_seat(session: Session, seat_id: int, player_id: int | None) -> Seat:
    seat = session.get(Seat, seat_id)
    if seat is None or (player_id is not None and seat.player_id != player_id) or seat.bot is not None:
        raise PrefsError(N_("That seat is not yours."))
    if seat.game.status != "running":
        raise PrefsError(N_("Game %(game)s is over: its standing order can no longer change."), game=seat.game_id)
    return seat


# --- saving --------------------------------------------------------------------------------------------------------


def save_prefs(
    db: Database,
    player_id: int,
    values: Mapping[str, Any],
    orders: Mapping[int, Sequence[str]] | None = None,
    kick: Kick | None = None,
) -> Saved:
    """Store the player's settings and standing orders (by seat id) together, or nothing (PrefsError).
    A new standing order answers its seat's unanswered victim request at once (``kick`` as for web answers)."""
    checked = check_prefs(values)
    checked_orders = {seat_id: check_order(order) for seat_id, order in (orders or {}).items()}
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise LinkError(N_("This link is not valid."))
        seats = [(_own_running_seat(session, sid, player_id), order) for sid, order in checked_orders.items()]
        for key, value in checked.items():
            setattr(player, key, value)
        for seat, order in seats:
            seat.standing_order = order or None
    answered = [sid for sid, order in checked_orders.items() if order and _answer_pending(db, sid, order, kick)]
    return Saved(answered)


def set_standing_order(
    db: Database, seat_id: int, order: Sequence[str], kick: Kick | None = None, *, player_id: int | None = None
) -> bool:
    """RULES.md H-5: store (an empty order clears) the seat's standing victim order; if the seat owes a victim
    answer in its game's open window, answer it now from the order. True when it did."""
    checked = check_order(order)
    with db.session() as session:
        seat = _own_running_seat(session, seat_id, player_id)
        seat.standing_order = checked or None
    return bool(checked) and _answer_pending(db, seat_id, checked, kick)


def _answer_pending(db: Database, seat_id: int, order: list[str], kick: Kick | None) -> bool:
    """Answer the seat's unanswered victim request from ``order``, through the same path as web answers."""
    with db.session() as session:
        found = session.execute(
            select(RequestRow.payload, Window.number)
            .join(Window, Window.id == RequestRow.window_id)
            .join(Seat, Seat.id == RequestRow.seat_id)
            .where(
                RequestRow.seat_id == seat_id,
                RequestRow.kind == "victim",
                RequestRow.answered_at.is_(None),
                Window.status == "open",
                Window.game_id == Seat.game_id,
            )
        ).first()
    if found is None:
        return False
    payload, window_number = found
    victim = by_standing_order(payload.get("options") or [], order)
    if victim is None:
        return False
    try:
        submit_answer(db, seat_id, "victim", victim, window_number=window_number, kick=kick)
    except AnswerError:  # the window closed meanwhile: the game has moved on
        return False
    return True
