"""A player's preferences: language, time zone, quiet hours, mail per event or digest, standing victim orders (H-5).

Every value is checked before anything is stored; a refused value raises PrefsError and changes nothing. Messages
are msgids (marked with ``N_`` so pybabel finds them) formatted with their parameters; pages translate them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine.data import CHARACTERS
from engine.shapes import JSONObject

from ...db import Database
from ...models import LANGUAGES, Game, GameStatus, Outbox, Player, Seat
from .. import inputs
from ..errors import N_, ShownError
from ..links import LinkError, check_current, read_player_token, read_unsubscribe_token
from ..mailflow import outbox
from ..play import standing_answers, turns
from ..play.seats import standing_order
from ..tempo import timezones

MAIL_MODES = ("each", "digest")
DIGEST_HOURS = (1, 4, 12, 24)
_CLOCK = re.compile(r"(?:[01]\d|2[0-3]):[0-5]\d")


class PrefsError(ShownError):
    """A preference refused; the message says which (pages translate it)."""


@dataclass(frozen=True)
class Saved:
    #: seats whose unanswered victim request a new standing order answered at once.
    answered: list[int]


def shown(value: object) -> str:
    """A refused value as it may appear in a message: short."""
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def open_player(db: Database, secret_key: str, token: str, max_age: int) -> int:
    """The player a preferences link opens; LinkError for a forged, expired or revoked link (one of an earlier
    generation than the player's: ``seats.revoke_links``)."""
    player_id, generation = read_player_token(secret_key, token, max_age)
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise LinkError(N_("This link is not valid."))
        check_current(player.link_generation, generation)
        return player.id


#: how long a mail's one-click unsubscribe address works (RFC 8058: the mail may be read weeks later).
UNSUBSCRIBE_MAX_AGE = 90 * 24 * 3600


@dataclass(frozen=True)
class Unsubscribe:
    """The player of a one-click unsubscribe address, its generation (their current one) and their mail mode."""

    player_id: int
    generation: int
    mail_mode: str


def open_unsubscribe(db: Database, secret_key: str, token: str) -> Unsubscribe:
    """The player of a one-click unsubscribe address (LinkError: forged, too old, or revoked with the player's other
    links)."""
    player_id, generation = read_unsubscribe_token(secret_key, token, UNSUBSCRIBE_MAX_AGE)
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise LinkError(N_("This link is not valid."))
        check_current(player.link_generation, generation)
        return Unsubscribe(player.id, generation, player.mail_mode)


def set_mail_mode(db: Database, secret_key: str, token: str, mode: str) -> Unsubscribe:
    """The one-click unsubscribe (RFC 8058, ``mode`` "digest": one mail every few hours, their games go on) or its
    undo ("each"), by the address a mail gave (LinkError as ``open_unsubscribe``; PrefsError for another mode)."""
    if mode not in ("each", "digest"):
        raise PrefsError(N_("Choose a mail for every event or a digest."))
    found = open_unsubscribe(db, secret_key, token)
    with db.session() as session:
        player = session.get(Player, found.player_id, with_for_update=True)
        assert player is not None
        player.mail_mode = mode
        outbox.look_at_held(session, Outbox.player_id == player.id)  # released or merged by the mode now
    return Unsubscribe(found.player_id, found.generation, mode)


class RunningSeat(TypedDict):
    """A seat of the player's in a running game, with its standing order (H-5)."""

    game_id: int
    title: str
    seat_id: int
    colour: str
    standing_order: list[str]


class CheckedPrefs(TypedDict):
    """The player's settings as ``check_prefs`` accepts them (each one a ``Player`` column)."""

    language: str
    timezone: str
    quiet_start: str | None
    quiet_end: str | None
    mail_mode: str
    digest_hours: int


class Prefs(CheckedPrefs):
    """The player's settings and running seats (``get_prefs``)."""

    name: str
    email: str
    #: the default standing answers (``standing_answers``)
    standing: JSONObject
    games: list[RunningSeat]


def get_prefs(db: Database, player_id: int) -> Prefs:
    """The player's settings and their running games (seat, colour, standing order); LinkError if no such player."""
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise LinkError(N_("This link is not valid."))
        seats = session.execute(
            select(Seat, Game)
            .join(Seat.game)
            .where(Seat.player_id == player_id, Game.status == GameStatus.RUNNING)
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
            "standing": dict(player.standing or {}),
            "games": [
                {
                    "game_id": game.id,
                    "title": game.title,
                    "seat_id": seat.id,
                    "colour": seat.colour,
                    "standing_order": standing_order(seat),
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


def check_prefs(values: Mapping[str, Any]) -> CheckedPrefs:
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
    if isinstance(hours, str) and (number := inputs.small_int(hours.strip(), 2)) is not None:
        hours = number
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
    if seat.game.status != GameStatus.RUNNING:
        raise PrefsError(N_("Game %(game)s is over: its standing order can no longer change."), game=seat.game_id)
    return seat


# --- saving --------------------------------------------------------------------------------------------------------


def save_prefs(
    db: Database,
    player_id: int,
    values: Mapping[str, Any],
    orders: Mapping[int, Sequence[str]] | None = None,
    standing_defaults: Mapping[str, Any] | None = None,
) -> Saved:
    """Store the player's settings, standing orders (by seat id) and default standing answers (changes as
    ``standing_answers.set_defaults`` takes them), or nothing (PrefsError, StandingError). A changed standing order
    goes to the engine, and answers the seat's open victim request if it still owes it (H-5)."""
    checked = check_prefs(values)
    checked_orders = {seat_id: check_order(order) for seat_id, order in (orders or {}).items()}
    defaults = standing_answers.check_changes(standing_defaults or {})
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise LinkError(N_("This link is not valid."))
        changed = [sid for sid, order in checked_orders.items() if _changes(session, sid, player_id, order)]
        for key, value in checked.items():
            setattr(player, key, value)
        outbox.look_at_held(session, Outbox.player_id == player_id)  # released or merged by the settings now
        standing_answers.merge_defaults(player, defaults)
    answered = [sid for sid in changed if _give_to_engine(db, sid, checked_orders[sid])]
    return Saved(answered)


def set_standing_order(db: Database, seat_id: int, order: Sequence[str], *, player_id: int | None = None) -> bool:
    """RULES.md H-5: the seat's standing victim order (an empty order clears it), kept by the engine; it answers
    the seat's open victim request if the seat still owes it. True when it did."""
    checked = check_order(order)
    with db.session() as session:
        if not _changes(session, seat_id, player_id, checked):
            return False
    return _give_to_engine(db, seat_id, checked)


def _give_to_engine(db: Database, seat_id: int, order: list[str]) -> bool:
    try:
        return turns.set_standing_order(db, seat_id, order)
    except turns.AnswerError as exc:  # an advance was closing the window: nothing changed
        raise PrefsError(exc.msgid, **exc.params) from None


def _changes(session: Session, seat_id: int, player_id: int | None, order: list[str]) -> bool:
    """Whether ``order`` differs from the seat's standing order now; PrefsError unless the seat is the player's own
    and its game is running."""
    seat = _own_running_seat(session, seat_id, player_id)
    return order != standing_order(seat)


# --- standing answers ------------------------------------------------------------------------------------------


def set_seat_standing(
    db: Database, seat_id: int, changes: object, *, player_id: int | None = None
) -> standing_answers.SeatSettings:
    """Change the seat's standing answers for its game: ``cards``, ``camera``, ``attack``, ``vote`` on the seat,
    ``victim`` (a list) as the engine's standing order (H-5, ``set_standing_order``). ``"ask"`` turns one off for
    this game, over the player's default (for ``victim`` it also clears the engine's order). Everything is checked
    before anything is stored (StandingError). Returns ``standing_answers.seat_settings``."""
    checked = standing_answers.check_changes(changes)
    victim = checked.get("victim")
    # the seat's row first: it refuses a seat not the player's, or a game over, before anything changes
    standing_answers.set_seat(db, seat_id, checked, player_id=player_id)
    if victim is not None:  # (a list of characters, or "ask": the engine's order cleared)
        order = [str(c) for c in victim] if isinstance(victim, list) else []
        set_standing_order(db, seat_id, order, player_id=player_id)
    return standing_answers.seat_settings(db, seat_id)


def standing_off(db: Database, seat_id: int, key: str) -> standing_answers.SeatSettings:
    """Switch one standing answer off for the seat's game (the one-tap link of the mails): it asks again."""
    return set_seat_standing(db, seat_id, {key: standing_answers.ASK})
