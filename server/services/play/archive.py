"""A game's closed windows and their requests, folded into one packed value on the game.

An open window is a ``windows`` row with one ``requests`` row per seat it asks: the answers come in, the sweep finds
the window by its due instants. Once it closes, nothing changes it any more and nothing looks for it by an index:
``fold`` appends it and its requests to ``Game.archive`` (packed, loaded only when asked for) and deletes the rows.
A live game thus keeps rows for its open window only, not for the 35 windows and 100 requests it has closed at its
middle (21 KB of its 30 with their indexes, ``bench/storage.py``), and the readers of closed requests read them per
game:
``reliability`` (per game; over every game from each person's ledger, ``reliability.record``), ``tenures``,
``outcome.finished_games``, ``seats.answer_in`` and the last call's paces (``turns``).

The archive is ``{"w": [window, ...], "r": [request, ...]}``, oldest first, each a list in the order of
``WINDOW_FIELDS`` and ``REQUEST_FIELDS``; instants as microseconds since the epoch (UTC)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from engine.shapes import JSON

from ...models import Game, RequestRow, Window


@dataclass(frozen=True)
class ClosedWindow:
    """A closed window, as the archive keeps it."""

    id: int
    number: int
    round: int
    phase: str
    opened_at: datetime
    deadline: datetime
    completed_at: datetime | None
    closed_at: datetime


@dataclass(frozen=True)
class ClosedRequest:
    """A closed window's request, as the archive keeps it (``RequestRow``'s fields a closed one has, and its
    window's instants)."""

    game_id: int
    window: ClosedWindow
    seat_id: int
    player_id: int | None
    position: int
    kind: str
    secret: bool
    answer: JSON
    answered_at: datetime | None
    defaulted: bool
    standing: bool
    autopilot: bool

    @property
    def opened_at(self) -> datetime:
        return self.window.opened_at

    @property
    def deadline(self) -> datetime:
        return self.window.deadline

    @property
    def closed_at(self) -> datetime:
        return self.window.closed_at


WINDOW_FIELDS = ("id", "number", "round", "phase", "opened_at", "deadline", "completed_at", "closed_at")
REQUEST_FIELDS = (
    "number",
    "seat_id",
    "player_id",
    "position",
    "kind",
    "secret",
    "answer",
    "answered_at",
    "defaulted",
    "standing",
    "autopilot",
)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_INSTANTS = {"opened_at", "deadline", "completed_at", "closed_at", "answered_at"}


def stamp(instant: datetime | None) -> int | None:
    """An instant as the archive keeps it: microseconds since the epoch (exact)."""
    return None if instant is None else (instant - EPOCH) // timedelta(microseconds=1)


def at(micros: int | None) -> datetime | None:
    """The instant ``stamp`` gave."""
    return None if micros is None else EPOCH + timedelta(microseconds=micros)


def _row(obj: Any, fields: Sequence[str], **given: Any) -> list[Any]:
    out = []
    for name in fields:
        value = given[name] if name in given else getattr(obj, name)
        out.append(stamp(value) if name in _INSTANTS else value)
    return out


def fold(session: Session, game: Game, windows: Iterable[tuple[Window, list[RequestRow]]], closed_at: datetime) -> None:
    """``windows`` (each with its requests), closing at ``closed_at``, appended to the game's archive as they are
    in the session, and their rows deleted (their changes not written first: they would be deleted at once)."""
    archive = game.archive or {"w": [], "r": []}
    added_w, added_r, ids = list(archive["w"]), list(archive["r"]), []
    for window, rows in windows:
        added_w.append(_row(window, WINDOW_FIELDS, closed_at=closed_at))
        added_r += [_row(r, REQUEST_FIELDS, number=window.number) for r in sorted(rows, key=lambda r: r.position)]
        ids.append(window.id)
        for obj in (*rows, window):
            session.expunge(obj)
    if ids:
        game.archive = {"w": added_w, "r": added_r}
        session.execute(delete(RequestRow).where(RequestRow.window_id.in_(ids)))
        session.execute(delete(Window).where(Window.id.in_(ids)))


def windows_of(archive: dict[str, Any] | None) -> dict[int, ClosedWindow]:
    """Window number -> the closed window, from a game's archive."""
    out = {}
    for values in (archive or {}).get("w", []):
        fields = dict(zip(WINDOW_FIELDS, values, strict=True))
        for name in _INSTANTS & fields.keys():
            fields[name] = at(fields[name])
        out[fields["number"]] = ClosedWindow(**fields)
    return out


def requests_of(game_id: int, archive: dict[str, Any] | None) -> list[ClosedRequest]:
    """The closed requests in a game's archive, oldest window first, in seating order within a window."""
    windows = windows_of(archive)
    out = []
    for values in (archive or {}).get("r", []):
        fields = dict(zip(REQUEST_FIELDS, values, strict=True))
        fields["answered_at"] = at(fields["answered_at"])
        out.append(ClosedRequest(game_id=game_id, window=windows[fields.pop("number")], **fields))
    return out


def closed_requests(session: Session, game_ids: Iterable[int]) -> dict[int, list[ClosedRequest]]:
    """Game id -> its closed requests (one query for all the games)."""
    ids = sorted(set(game_ids))
    if not ids:
        return {}
    found = session.execute(select(Game.id, Game.archive).where(Game.id.in_(ids))).all()
    return {game_id: requests_of(game_id, archive) for game_id, archive in found}
