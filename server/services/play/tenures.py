"""Results per tenure: who played each seat, when, how they kept their deadlines and, for the tenure
current when the game ended, the seat's result.

A seat's tenures are its ``SeatTenure`` rows (a seat never handed over has none: its one tenure runs from the game's
creation). A request belongs to the tenure of the person who owed it (``player_id``; a hand-over gives the seat's
open request to the newcomer) and whose time it closed in. Only closed windows (the game's archive,
``services.play.archive``) and public requests count: an answer in an open window is secret, and so is being asked in a
card window (``engine.asked_in_secret``, B-INFO), which the counts would tell.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...models import Game, GameStatus, Player, SeatTenure
from . import archive


@dataclass
class _Span:
    player_id: int | None
    bot: str | None
    started_at: datetime
    ended_at: datetime | None
    owed: int = 0
    answered: int = 0
    autopilot: int = 0
    defaulted: int = 0

    def holds(self, player_id: int | None, closed_at: datetime) -> bool:
        return (
            self.player_id == player_id
            and closed_at >= self.started_at
            and (self.ended_at is None or closed_at < self.ended_at)
        )


def _spans(session: Session, game: Game) -> dict[int, list[_Span]]:
    """Seat id -> its tenures in order."""
    seat_ids = [seat.id for seat in game.seats]
    rows = session.execute(
        select(SeatTenure).where(SeatTenure.seat_id.in_(seat_ids)).order_by(SeatTenure.seat_id, SeatTenure.id)
    ).scalars()
    spans: dict[int, list[_Span]] = {seat_id: [] for seat_id in seat_ids}
    for row in rows:
        spans[row.seat_id].append(_Span(row.player_id, row.bot, row.started_at, row.ended_at))
    for seat in game.seats:
        if not spans[seat.id]:
            spans[seat.id].append(_Span(seat.player_id, seat.bot, game.created_at, None))
    return spans


def _count(game: Game, spans: dict[int, list[_Span]]) -> None:
    for row in archive.requests_of(game.id, game.archive):
        if row.secret:
            continue
        span = next((s for s in spans.get(row.seat_id, []) if s.holds(row.player_id, row.closed_at)), None)
        if span is None:
            continue
        span.owed += 1
        if row.defaulted:
            span.defaulted += 1
        elif row.autopilot:
            span.autopilot += 1
        elif row.answered_at is not None:
            span.answered += 1


class TenureResult(TypedDict):
    score: int
    won: bool


class TenureRequests(TypedDict):
    owed: int
    answered: int
    autopilot: int
    defaulted: int


#: who held a seat when (``of_game``); "to" is None for the current holder, "result" set only for the tenure current
#: when the game ended.
Tenure = TypedDict(
    "Tenure",
    {
        "player": str | None,
        "bot": str | None,
        "from": datetime,
        "to": datetime | None,
        "requests": TenureRequests,
        "result": TenureResult | None,
    },
)
#: a ``Tenure`` in the JSON API: its times as ISO 8601 texts.
TenureJSON = TypedDict(
    "TenureJSON",
    {
        "player": str | None,
        "bot": str | None,
        "from": str,
        "to": str | None,
        "requests": TenureRequests,
        "result": TenureResult | None,
    },
)


def _result(game: Game, colour: str) -> TenureResult | None:
    outcome = game.outcome
    if game.status != GameStatus.OVER or outcome is None:
        return None
    return {"score": outcome["scores"][colour], "won": colour in outcome["winners"]}


def of_game(session: Session, game: Game) -> dict[str, list[Tenure]]:
    """Colour -> the seat's tenures, oldest first: ``{"player": name or None, "bot": kind or None, "from", "to"
    (datetimes; "to" None for the current one), "requests": {"owed", "answered", "autopilot", "defaulted"},
    "result": {"score", "won"} for the tenure current when the game ended, else None}``."""
    spans = _spans(session, game)
    _count(game, spans)
    ids = {s.player_id for found in spans.values() for s in found if s.player_id is not None}
    found = session.execute(select(Player.id, Player.display_name).where(Player.id.in_(sorted(ids))))
    names = {player_id: name for player_id, name in found}
    out: dict[str, list[Tenure]] = {}
    for seat in game.seats:
        out[seat.colour] = [
            {
                "player": names.get(span.player_id) if span.player_id is not None else None,
                "bot": span.bot,
                "from": span.started_at,
                "to": span.ended_at,
                "requests": {
                    "owed": span.owed,
                    "answered": span.answered,
                    "autopilot": span.autopilot,
                    "defaulted": span.defaulted,
                },
                "result": _result(game, seat.colour) if span.ended_at is None else None,
            }
            for span in spans[seat.id]
        ]
    return out


def as_json(tenures: dict[str, list[Tenure]]) -> dict[str, list[TenureJSON]]:
    """``of_game`` with its times as ISO 8601 texts (the JSON API)."""
    return {
        colour: [
            {
                "player": t["player"],
                "bot": t["bot"],
                "from": t["from"].isoformat(),
                "to": None if t["to"] is None else t["to"].isoformat(),
                "requests": t["requests"],
                "result": t["result"],
            }
            for t in rows
        ]
        for colour, rows in tenures.items()
    }
