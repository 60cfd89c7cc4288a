"""Seats reached by signed links, and what a seat may see (built from the engine's one per-player view)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypedDict

from sqlalchemy import select, update
from sqlalchemy.orm import Session, joinedload

import engine
from engine.shapes import JSON

from ...db import Database
from ...models import Game, RequestRow, Seat, TempoJSON, Window, WindowStatus, pick_language, utcnow
from ..errors import N_
from ..links import LinkError, check_generation, read_token
from ..tempo import PlayHours
from . import archive, autopilot
from .engines import CACHE


@dataclass(frozen=True)
class SeatLink:
    """A seat opened by its signed link, with its reader: the language and time zone of the seat's player."""

    seat_id: int
    generation: int
    game_id: int
    colour: str
    language: str
    timezone: str


def open_seat(db: Database, secret_key: str, token: str, max_age: int) -> SeatLink:
    """The seat a link opens; LinkError for a forged, expired or revoked link."""
    seat_id, generation = read_token(secret_key, token, max_age)
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        if seat is None:
            raise LinkError(N_("This link is not valid."))
        check_generation(seat, generation)
        player = seat.player
        assert player is not None  # check_generation: a person's seat
        return SeatLink(
            seat.id, generation, seat.game_id, seat.colour, pick_language(player.language), player.timezone or "UTC"
        )


def open_window(session: Session, game_id: int) -> Window | None:
    """The game's open window (None between windows and once the game is over)."""
    return session.execute(
        select(Window).where(Window.game_id == game_id, Window.status == WindowStatus.OPEN)
    ).scalar_one_or_none()


def open_request(session: Session, game_id: int, seat_id: int) -> tuple[Window | None, RequestRow | None]:
    """The game's open window, and the seat's request in it (None when the seat owes nothing there)."""
    window = open_window(session, game_id)
    if window is None:
        return None, None
    mine = session.execute(
        select(RequestRow).where(RequestRow.window_id == window.id, RequestRow.seat_id == seat_id)
    ).scalar_one_or_none()
    return window, mine


def public_requests(session: Session, window: Window) -> list[RequestRow]:
    """The window's requests that anyone may be told of, in order: not those whose being asked tells what their
    player holds (a card window, a move only a Sprint makes a question: ``engine.asked_in_secret``, B-INFO)."""
    rows = session.execute(
        select(RequestRow)
        .where(RequestRow.window_id == window.id)
        .order_by(RequestRow.position)
        .options(joinedload(RequestRow.seat, innerjoin=True).joinedload(Seat.player))  # one query
    ).scalars()
    return public(rows)


def public(rows: Iterable[RequestRow]) -> list[RequestRow]:
    """Those of a window's requests (in order) that anyone may be told of (``public_requests``)."""
    return [row for row in rows if not row.secret]


class Owed(TypedDict):
    """A public request of the open window (``owed_requests``): never its answer."""

    colour: str
    #: the player's name; None for a bot
    player: str | None
    #: the bot's kind; None for a person
    bot: str | None
    kind: str
    answered: bool


def owed_requests(session: Session, window: Window | None, requests: list[RequestRow] | None = None) -> list[Owed]:
    """Who owes what in the open window, as anyone may be told (``public_requests``): each request's colour, its
    player's name (None for a bot), the bot's kind, the request's kind and whether it is answered; never the answer.
    A request answered by its player's standing answers counts as not answered yet: an answer there the instant the
    window opens would tell others that the player has them (H-6). ``requests``: the window's rows in order, with
    their seats and players, when the caller loaded them already."""
    return [
        {
            "colour": row.seat.colour,
            "player": row.seat.player.display_name if row.seat.player is not None else None,
            "bot": row.seat.bot,
            "kind": row.kind,
            "answered": row.answered_at is not None and not row.standing,
        }
        for row in (
            [] if window is None else public(requests) if requests is not None else public_requests(session, window)
        )
    ]


def progress(
    session: Session, window: Window | None, requests: list[RequestRow] | None = None
) -> tuple[list[engine.Asked], list[str]]:
    """The open window's public progress: the "still deciding" list (colour and kind of every public request not
    answered), and the colours that answered a public request (``requests``: as ``owed_requests`` takes them).
    Nobody either way once every answer is in: a request its player's standing answers gave counts as unanswered
    until then, so naming anyone at that point would tell who has standing answers (H-6)."""
    if window is not None and window.completed_at is not None:
        return [], []
    owed = owed_requests(session, window, requests)
    return (
        [{"player": r["colour"], "kind": r["kind"]} for r in owed if not r["answered"]],
        [r["colour"] for r in owed if r["answered"]],
    )


def answer_in(session: Session, seat: Seat, window_number: object) -> tuple[Mapping[str, object], JSON] | None:
    """The seat's own request and answer in its game's window ``window_number`` (once it is closed, the request is
    ``{"kind": ...}`` only: the game's archive keeps no more); None when it gave none there."""
    row = session.execute(
        select(RequestRow)
        .join(Window, Window.id == RequestRow.window_id)
        .where(RequestRow.seat_id == seat.id, Window.game_id == seat.game_id, Window.number == window_number)
    ).scalar_one_or_none()
    if row is not None:
        return None if row.answered_at is None else (row.payload or {"kind": row.kind}, row.answer)
    game = session.get(Game, seat.game_id)
    closed = archive.requests_of(seat.game_id, None if game is None else game.archive)
    found = next((r for r in closed if r.seat_id == seat.id and r.window.number == window_number), None)
    return None if found is None or found.answered_at is None else ({"kind": found.kind}, found.answer)


def answered(db: Database, seat_id: int, window_number: int) -> bool:
    """Whether the seat gave an answer in its game's window ``window_number`` (``answer_in``, own transaction)."""
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        return seat is not None and answer_in(session, seat, window_number) is not None


def view_of(seat: Seat) -> engine.PlayerView:
    """The seat's view (``engine.view``): every page, mail and API answer about a seat is built from it."""
    return engine.view(CACHE.get(seat.game), seat.colour)


def standing_order(seat: Seat) -> list[str]:
    """The seat's standing victim order (H-5), as the engine keeps it (empty: none)."""
    return list(view_of(seat)["standing_order"] or [])


@dataclass(frozen=True)
class Shared:
    """What every seat of a table is shown alike (public), built once for many seats (a batch of mails)."""

    #: ``progress`` of the open window: who is still deciding, and who answered (both public).
    waiting_for: list[engine.Asked]
    answered: list[str]
    #: ``autopilot.table``.
    presence: dict[str, autopilot.Presence]


class SeatGame(TypedDict):
    id: int
    title: str | None
    status: str
    tempo: TempoJSON


class SeatFacts(TypedDict):
    colour: str
    #: the player's name (None: a bot's seat).
    player: str | None
    timezone: str


class SeatWindow(TypedDict):
    """The open window as one seat sees it."""

    number: int
    #: ISO 8601.
    deadline: str
    #: the seat's own request (None: it owes nothing in this window) and its answer so far.
    request: engine.RequestJSON | None
    answer: JSON
    #: every answer is in (or the vote was closed once decided): the window closes now, nothing can change.
    completed: bool


class SeatState(TypedDict):
    """What ``seat_state`` gives: everything the seat's player may know now."""

    #: the table's public names (colour -> the player's name; None for a bot): every player sees who sits where.
    names: dict[str, str | None]
    game: SeatGame
    seat: SeatFacts
    window: SeatWindow | None
    view: engine.PlayerView
    #: public: the colours that answered a public request of the open window (``progress``).
    answered: list[str]
    #: public: the seats on autopilot or away (``autopilot.table``), and whether this one is.
    presence: dict[str, autopilot.Presence]


def seat_state(
    session: Session,
    seat: Seat,
    now: datetime | None = None,
    opened: tuple[Window | None, RequestRow | None] | None = None,
    shared: Shared | None = None,
) -> SeatState:
    """Everything the seat's player may know now: the engine's view, plus the open window and their own answer
    (``opened``: the seat's ``open_request``, when the caller has just read it in this transaction; ``shared``: the
    table's public parts, read in the same transaction for that window)."""
    game = seat.game
    window, mine = opened or open_request(session, game.id, seat.id)
    if shared is None:
        shared = Shared(*progress(session, window), autopilot.table(session, game, now or utcnow()))
    return {
        # the table's public names (colour -> the player's name; None for a bot): every player sees who sits where
        "names": {s.colour: s.player.display_name if s.player is not None else None for s in game.seats},
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
            # every answer is in (or the vote was closed once decided): the window closes now, nothing can change
            "completed": window.completed_at is not None,
        },
        # the engine collects a window's answers only when it closes: who still owes one is in the rows
        "view": {**view_of(seat), "waiting_for": shared.waiting_for},
        # public: the colours that answered a public request of the open window (never a standing answer's)
        "answered": shared.answered,
        # public: the seats on autopilot or away (``autopilot.table``), and whether this one is
        "presence": shared.presence,
    }


def seat_view(db: Database, seat_id: int, now: datetime | None = None) -> SeatState:
    """``seat_state`` of one seat, in its own transaction."""
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None
        return seat_state(session, seat, now)


def rotate_link(db: Database, game_id: int, colour: str) -> int:
    """Revoke every link of a seat (``revoke_links``); returns the seat id (make its new link after)."""
    with db.session() as session:
        seat = session.execute(select(Seat).where(Seat.game_id == game_id, Seat.colour == colour)).scalar_one_or_none()
        if seat is None or seat.player_id is None:
            raise LinkError(
                N_("game %(game)s has no seat %(value)s played by a person"), game=game_id, value=repr(colour)
            )
        revoke_links(seat)
        return seat.id


def revoke_links(seat: Seat) -> None:
    """Revoke every link of a person's seat: its links and reply addresses (the seat's generation) and the
    preferences links sent with them (its player's generation, for all their games: the next mail carries a new
    one)."""
    seat.link_generation += 1
    if seat.player is not None:
        seat.player.link_generation += 1


# --- who is on their page now (play hours) ---------------------------------------------------------------------

#: a seat's visits are written at most this often.
SEEN_EVERY = timedelta(seconds=10)
#: a seat seen this recently is on its page now (the live server says so every ``PRESENT_EVERY`` for open pages).
HERE_FOR = timedelta(seconds=15)
PRESENT_EVERY = 10.0
#: how often an open seat page asks for news (seconds): during a session of play hours, and otherwise.
POLL_IN_SESSION = 3
POLL_OTHERWISE = 30
#: ... and while the open window is complete (every answer in): the next decision comes within seconds.
POLL_MOVING_ON = 2


@dataclass(frozen=True)
class Visit:
    """What the seat page shows of the game's play hours when it is fetched."""

    #: seconds between two polls of the live fragment.
    poll: int
    #: a session of play hours is going on: its end (UTC), and the colours of the people on their page now.
    session_end: datetime | None = None
    here: tuple[str, ...] = ()


def visit(db: Database, seat_id: int, now: datetime) -> Visit:
    """The seat's page (or its live fragment) was fetched. During a session of the game's play hours: record that it
    was seen (at most every ``SEEN_EVERY``: the one thing a GET of a seat page writes, and only then). In every
    running game, tell who is on their page (presence is public: it is no answer and no card); outside sessions the
    live server records the pages listening to it (``seen``), and a GET writes nothing."""
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None
        game = session.get(Game, seat.game_id)
        assert game is not None
        hours = PlayHours.of(game.tempo)
        playing = None if hours is None or game.status != "running" else hours.session_at(now)
        if playing is None:
            return Visit(POLL_OTHERWISE, here=_here(session, game, now) if game.status == "running" else ())
        session.execute(
            update(Seat)
            .where(Seat.id == seat_id, Seat.seen_at.is_(None) | (Seat.seen_at <= now - SEEN_EVERY))
            .values(seen_at=now)
        )
        return Visit(POLL_IN_SESSION, playing[1], _here(session, game, now))


def _here(session: Session, game: Game, now: datetime) -> tuple[str, ...]:
    """The colours of the game's people seen on their page in the last ``HERE_FOR``."""
    since = now - HERE_FOR
    here = session.execute(
        select(Seat.colour)
        .where(Seat.game_id == game.id, Seat.bot.is_(None), Seat.seen_at > since)
        .order_by(Seat.position)
    ).scalars()
    return tuple(here)


def seen(db: Database, seat_ids: list[int], now: datetime) -> None:
    """These seats' pages are open (the live server holds their streams): they are on their page now."""
    if seat_ids:
        with db.session() as session:
            session.execute(update(Seat).where(Seat.id.in_(seat_ids)).values(seen_at=now))
