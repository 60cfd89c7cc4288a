"""Issue 4: for every mail sent during random bot games, no mail contains another player's hand, unrevealed answer,
truck cards or dice they may not see.

Random games (3 to 6 people, both turn orders) are played by people answering like random bots through
``turns.submit_answer``; every outbox row is composed when it is written, and each mail to colour C is checked
against the full engine state of that moment: its "your cards" list is exactly C's hand, the dice appear only when
C saw them, truck cards only in the searcher's mail, no event hidden from C is told. Two more checks show the mail
depends on C's view alone: the same mail is built after other players change their (secret) answers of the open
window, and after the other players' hands, the deck and unseen dice are replaced in the engine state.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from types import SimpleNamespace
from typing import Any

import sqlalchemy as sa

import engine
from engine.bots import RandomBot
from engine.data import CARDS
from server import narrate
from server.models import Event, Game, Outbox, RequestRow, Seat, Window
from server.services import games, mails, turns

from .test_mails import T0, create, html_of, settings_of, text_of

GAMES = [(3, "strict", 101), (4, "batched", 102), (5, "strict", 103), (6, "batched", 104), (4, "strict", 105)]
LINK = re.compile(r"/(s|p)/[\w.-]+")


def _normal(message: Any) -> tuple[str, str, str]:
    """What a reader sees, without the parts that change with the clock (signed links' timestamps)."""
    return (message["Subject"], LINK.sub("/<token>", text_of(message)), LINK.sub("/<token>", html_of(message)))


def _state(db: Any, game_id: int) -> tuple[Any, engine.Game]:
    with db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        return SimpleNamespace(id=game.id, version=game.version, created_at=game.created_at), games.CACHE.get(game)


def _open_rows(db: Any, game_id: int) -> tuple[Window | None, list[tuple[int, str, str, Any, bool]]]:
    with db.session() as session:
        window = session.execute(
            sa.select(Window).where(Window.game_id == game_id, Window.status == "open")
        ).scalar_one_or_none()
        if window is None:
            return None, []
        rows = session.execute(
            sa.select(RequestRow.seat_id, Seat.colour, RequestRow.kind, RequestRow.payload, RequestRow.answered_at)
            .join(Seat, Seat.id == RequestRow.seat_id)
            .where(RequestRow.window_id == window.id)
            .order_by(RequestRow.position)
        ).all()
        session.expunge(window)
        return window, [(r[0], r[1], r[2], r[3], r[4] is not None) for r in rows]


def _check(db: Any, row: Outbox, message: Any, eng: engine.Game, after: int) -> None:
    """The mail to colour C against the full engine state (``after``: the last event told to C before)."""
    with db.session() as session:
        seat = session.get(Seat, row.seat_id)
        assert seat is not None
        colour = seat.colour
        events = list(
            session.execute(sa.select(Event).where(Event.game_id == seat.game_id, Event.seq > after)).scalars()
        )
        mine = session.execute(
            sa.select(RequestRow)
            .join(Window, Window.id == RequestRow.window_id)
            .where(RequestRow.seat_id == seat.id, Window.status == "open")
        ).scalar_one_or_none()
        request = None if mine is None else mine.payload
        hidden = [ev for ev in events if ev.visible_to is not None and colour not in ev.visible_to]
        seen = [{"type": ev.type, **ev.data} for ev in events if ev.visible_to is None or colour in ev.visible_to]
    html, text = html_of(message), text_of(message)
    assert re.findall(r'data-card="(\w+)"', html) == list(eng.hands[colour])
    saw = eng.dice is not None and colour in eng.dice["seen_by"]
    dice = re.findall(r'data-dice="([\d,]+)"', html)
    assert dice == ([",".join(str(v) for v in eng.dice["values"])] if saw else [])
    assert ("The zombie dice you saw" in text) == saw
    truck = re.findall(r'data-truck="(\w+)"', html)
    if request is not None and request["kind"] == "truck":
        assert truck == list(request["cards"])
    else:
        assert truck == [] and "The truck cards you drew" not in text
    told = {narrate.event_text("en", ev, colour) for ev in seen}
    lines = {line[4:] for line in text.splitlines() if line.startswith("  - ")}
    for ev in hidden:
        secret = narrate.event_text("en", {"type": ev.type, **ev.data}, colour)
        assert not secret or secret in told or secret not in lines, (colour, ev.type)


def _other_hands_replaced(
    db: Any, row: Outbox, settings: Any, colour: str, now: dt.datetime, rng: random.Random
) -> Any:
    """The mail built from an engine state where everything C may not know is different."""
    key, eng = _state(db, row.game_id)  # type: ignore[arg-type]
    twin = engine.Game.from_json(eng.to_json())
    for other in twin.players:
        if other != colour:
            twin.hands[other] = [rng.choice(CARDS) for _ in range(len(twin.hands[other]))]
    twin.deck = [rng.choice(CARDS) for _ in twin.deck]
    if twin.dice is not None and colour not in twin.dice["seen_by"]:
        twin.dice["values"] = [rng.randint(1, 6) for _ in twin.dice["values"]]
    assert engine.view(twin, colour) == engine.view(eng, colour)
    games.CACHE.put(key, twin)
    try:
        return mails.compose(db, row.id, settings, now=now)
    finally:
        games.CACHE.put(key, eng)


def _compose_and_check(db: Any, settings: Any, ids: list[int], now: dt.datetime, rng: random.Random) -> int:
    checked = 0
    with db.session() as session:
        rows = list(session.execute(sa.select(Outbox).where(Outbox.id.in_(ids)).order_by(Outbox.id)).scalars())
        for r in rows:
            session.expunge(r)
    for row in rows:
        message = mails.compose(db, row.id, settings, now=now)
        if message is None:
            continue
        _, eng = _state(db, row.game_id)  # type: ignore[arg-type]
        colour, after = _colour_of(db, row)
        _check(db, row, message, eng, after)
        if rng.random() < 0.4:  # (a sample, for time) the mail from a state where C's secrets are all different
            twin = _other_hands_replaced(db, row, settings, colour, now, rng)
            assert twin is not None and _normal(twin) == _normal(message)
        with db.session() as session:  # as if sent: the next mail tells what happens next
            mails.record_sent(session, message)
        checked += 1
    return checked


def _colour_of(db: Any, row: Outbox) -> tuple[str, int]:
    with db.session() as session:
        seat = session.get(Seat, row.seat_id)
        assert seat is not None
        return seat.colour, -1 if seat.mailed_seq is None else seat.mailed_seq


def _secret_answers_do_not_show(db: Any, settings: Any, game_id: int, now: dt.datetime, rng: random.Random) -> bool:
    """All but the last owing seat answer; the last one's mail is the same whatever the others answered."""
    window, rows = _open_rows(db, game_id)
    owing = [r for r in rows if not r[4]]
    if window is None or len(owing) < 2:
        return False
    *others, (last_seat, last_colour, *_rest) = owing
    _, eng = _state(db, game_id)
    with db.session() as session:
        turn = session.execute(
            sa.select(Outbox.id).where(Outbox.key == f"turn:{window.id}:{last_seat}")
        ).scalar_one_or_none()
    if turn is None:
        return False
    versions = []
    for attempt in range(2):
        for seat_id, colour, kind, _payload, _answered in others:
            req = next(r for r in eng.pending() if r.player == colour)
            value = RandomBot(rng.randrange(10**6) + attempt).decide(eng, req)
            turns.submit_answer(db, seat_id, kind, value, window_number=window.number, now=now)
        message = mails.compose(db, turn, settings, now=now)
        assert message is not None
        versions.append(_normal(message))
    assert versions[0] == versions[1], last_colour
    return True


def _answer_rest_and_advance(db: Any, game_id: int, seed: int, now: dt.datetime) -> list[int] | None:
    window, rows = _open_rows(db, game_id)
    if window is None:
        return None
    _, eng = _state(db, game_id)
    for seat_id, colour, kind, _payload, answered in rows:
        if not answered:
            req = next(r for r in eng.pending() if r.player == colour)
            value = RandomBot(seed + window.number).decide(eng, req)
            turns.submit_answer(db, seat_id, kind, value, window_number=window.number, now=now)
    return turns.advance_window(db, window.id, now=now)


def test_no_mail_of_a_random_game_tells_a_player_what_they_may_not_see(embedded: Any) -> None:
    settings = settings_of(embedded)
    mails_checked = secrets_checked = 0
    kinds: set[str] = set()
    for people, order, seed in GAMES:
        rng = random.Random(seed)
        created = create(embedded.db, people, seed=seed, options={"turn_order": order})
        now = T0
        ids: list[int] | None = created.outbox_ids
        windows = 0
        while ids is not None:
            mails_checked += _compose_and_check(embedded.db, settings, ids, now, rng)
            _window, rows = _open_rows(embedded.db, created.game_id)
            kinds.update(r[2] for r in rows)
            if windows % 3 == 0:
                secrets_checked += _secret_answers_do_not_show(embedded.db, settings, created.game_id, now, rng)
            now += dt.timedelta(minutes=30)
            ids = _answer_rest_and_advance(embedded.db, created.game_id, seed, now)
            windows += 1
        with embedded.db.session() as session:
            assert session.get(Game, created.game_id).status == "over"  # type: ignore[union-attr]
    assert mails_checked > 200 and secrets_checked > 10
    assert {"place", "vote", "cards", "move", "truck"} <= kinds, kinds
