"""Seats reached by signed links, and what a seat may see (built from the engine's one per-player view)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine

from ..db import Database
from ..models import Game, RequestRow, Seat, Window
from .errors import N_
from .games import CACHE
from .links import LinkError, read_token


def check_generation(seat: Seat, generation: int) -> None:
    """LinkError unless the link is the seat's current one (and the seat is a person's)."""
    if seat.player_id is None:
        raise LinkError(N_("This link is not valid."))
    if seat.link_generation != generation:
        raise LinkError(N_("This link has been replaced by a newer one: use the link in your latest e-mail."))


def seat_from_token(db: Database, secret_key: str, token: str, max_age: int) -> int:
    """The seat id a link opens; LinkError for a forged, expired or revoked link."""
    seat_id, generation = read_token(secret_key, token, max_age)
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        if seat is None:
            raise LinkError(N_("This link is not valid."))
        check_generation(seat, generation)
        return seat.id


def open_request(session: Session, game_id: int, seat_id: int) -> tuple[Window | None, RequestRow | None]:
    """The game's open window, and the seat's request in it (None when the seat owes nothing there)."""
    window = session.execute(
        select(Window).where(Window.game_id == game_id, Window.status == "open")
    ).scalar_one_or_none()
    if window is None:
        return None, None
    mine = session.execute(
        select(RequestRow).where(RequestRow.window_id == window.id, RequestRow.seat_id == seat_id)
    ).scalar_one_or_none()
    return window, mine


def seat_view(db: Database, seat_id: int) -> dict[str, Any]:
    """Everything the seat's player may know now: the engine's view, plus the open window and their own answer."""
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None
        game = session.get(Game, seat.game_id)
        assert game is not None
        eng = CACHE.get(game)
        view = engine.replay(eng) if eng.over else engine.view(eng, seat.colour)
        window, mine = open_request(session, game.id, seat.id)
        return {
            "game": {"id": game.id, "title": game.title, "status": game.status, "tempo": game.tempo},
            "seat": {
                "colour": seat.colour,
                "player": seat.player.display_name if seat.player else None,
                "timezone": seat.player.timezone if seat.player else "UTC",
            },
            "window": None
            if window is None
            else {
                "number": window.number,
                "deadline": window.deadline.isoformat(),
                "request": None if mine is None else mine.payload,
                "answer": None if mine is None or mine.answered_at is None else mine.answer,
            },
            "view": view,
        }


def rotate_link(db: Database, game_id: int, colour: str) -> int:
    """Revoke every link of a seat by raising its generation; returns the seat id (make its new link after)."""
    with db.session() as session:
        seat = session.execute(select(Seat).where(Seat.game_id == game_id, Seat.colour == colour)).scalar_one_or_none()
        if seat is None or seat.player_id is None:
            raise LinkError(
                N_("game %(game)s has no seat %(colour)s played by a person"), game=game_id, colour=repr(colour)
            )
        seat.link_generation += 1
        return seat.id
