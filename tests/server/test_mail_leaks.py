"""For every mail sent during random bot games, no mail contains another player's hand, unrevealed answer,
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
from email.message import EmailMessage
from typing import Any

import pytest

import engine
from engine.bots import RandomBot
from engine.data import CARDS
from server.config import Settings
from server.db import Database
from server.mail.compose import compose as compose_mail
from server.models import Game, Outbox
from server.services.mailflow import outbox
from server.services.play import turns
from server.services.play.engines import CACHE
from server.text.sentences import event_text
from tests.conftest import Stack
from tests.support import (
    T0,
    compose,
    create_tagged,
    engine_of,
    html_of,
    mail_settings,
    open_window,
    outbox_ids,
    play_window,
    request_of,
    rows_of,
    seat_of,
    text_of,
)

GAMES = [(3, "strict", 101), (4, "batched", 102), (5, "strict", 103), (6, "batched", 104), (4, "strict", 105)]
LINK = re.compile(r"/(s|p)/[\w.-]+")


def _normal(message: EmailMessage) -> tuple[str, str, str]:
    """What a reader sees, without the parts that change with the clock (signed links' timestamps)."""
    return (message["Subject"], LINK.sub("/<token>", text_of(message)), LINK.sub("/<token>", html_of(message)))


def _visible(event: dict[str, Any], colour: str) -> bool:
    to = event.get("to")
    return to is None or colour in to


def _since(eng: engine.Game, colour: str, told: int) -> list[dict[str, Any]]:
    """The game's events (hidden ones too) after the ``told``-th event C may see: what C was not told yet."""
    count = 0
    for index, event in enumerate(eng.events):
        if count == told:
            return list(eng.events[index:])
        count += _visible(event, colour)
    return []


def _check(message: EmailMessage, eng: engine.Game, colour: str, told: int, request: dict[str, Any] | None) -> None:
    """The mail to colour C against the full engine state (``told``: how many events of C's view C was told)."""
    html, text = html_of(message), text_of(message)
    assert re.findall(r'data-card="(\w+)"', html) == list(eng.hands[colour])
    saw = eng.dice is not None and colour in eng.dice["seen_by"]
    dice = re.findall(r'data-dice="([\d,]+)"', html)
    assert dice == ([",".join(str(v) for v in eng.dice["values"])] if saw and eng.dice is not None else [])
    assert ("The zombie dice you saw" in text) == saw
    truck = re.findall(r'data-truck="(\w+)"', html)
    if request is not None and request["kind"] == "truck":
        assert truck == list(request["cards"])
    else:
        assert truck == [] and "The truck cards you drew" not in text
    new = [({k: v for k, v in ev.items() if k != "to"}, _visible(ev, colour)) for ev in _since(eng, colour, told)]
    said = {event_text("en", ev, colour) for ev, visible in new if visible}
    lines = {line[4:] for line in text.splitlines() if line.startswith("  - ")}
    for ev, visible in new:
        secret = "" if visible else event_text("en", ev, colour)
        assert not secret or secret in said or secret not in lines, (colour, ev["type"])


def _other_hands_replaced(
    db: Database, row: Outbox, settings: Settings, colour: str, now: dt.datetime, rng: random.Random
) -> EmailMessage | None:
    """The mail built from an engine state where everything C may not know is different."""
    with db.session() as session:  # the cache is keyed on the game's row (still readable after the session)
        game = session.get(Game, row.game_id)
        assert game is not None
        eng = CACHE.get(game)
    twin = engine.Game.from_json(eng.to_json())
    for other in twin.players:
        if other != colour:
            twin.hands[other] = [rng.choice(CARDS) for _ in range(len(twin.hands[other]))]
    twin.deck = [rng.choice(CARDS) for _ in twin.deck]
    if twin.dice is not None and colour not in twin.dice["seen_by"]:
        twin.dice["values"] = [rng.randint(1, 6) for _ in twin.dice["values"]]
    assert engine.view(twin, colour) == engine.view(eng, colour)
    CACHE.put(game, twin)
    try:
        return compose(db, row.id, settings, now=now)
    finally:
        CACHE.put(game, eng)


def _compose_and_check(db: Database, settings: Settings, ids: list[int], now: dt.datetime, rng: random.Random) -> int:
    checked = 0
    for row in rows_of(db, ids):
        mail = compose_mail(db, row.id, settings, now=now)
        if mail is None:
            continue
        assert row.game_id is not None and row.seat_id is not None
        eng = engine_of(db, row.game_id)
        seat = seat_of(db, row.seat_id)
        found = request_of(db, seat.id)
        _check(mail.message, eng, seat.colour, seat.told_events or 0, None if found is None else found[1].payload)
        if rng.random() < 0.4:  # (a sample, for time) the mail from a state where C's secrets are all different
            twin = _other_hands_replaced(db, row, settings, seat.colour, now, rng)
            assert twin is not None and _normal(twin) == _normal(mail.message)
        outbox.sent(db, row.id, mail.told, mail.chat)  # as if sent: the next mail tells what happens next
        checked += 1
    return checked


def _secret_answers_do_not_show(
    db: Database, settings: Settings, game_id: int, now: dt.datetime, rng: random.Random
) -> bool:
    """All but the last owing seat answer; the last one's mail is the same whatever the others answered."""
    window = open_window(db, game_id)
    if window is None:
        return False
    owing = [r for r in window.requests if r.answered_at is None]
    if len(owing) < 2:
        return False
    *others, last = owing
    turn = next(
        (r.id for r in rows_of(db, outbox_ids(db, game_id)) if r.key == f"turn:{window.id}:{last.seat_id}"), None
    )
    if turn is None:
        return False
    eng = engine_of(db, game_id)
    versions = []
    for attempt in range(2):
        for row in others:
            req = next(r for r in eng.pending() if r.player == row.seat.colour)
            value = RandomBot(rng.randrange(10**6) + attempt).decide(eng, req)
            turns.submit_answer(db, row.seat_id, row.kind, value, window_number=window.number, now=now)
        message = compose(db, turn, settings, now=now)
        assert message is not None
        versions.append(_normal(message))
    assert versions[0] == versions[1], last.seat.colour
    return True


@pytest.mark.long(30)
def test_no_mail_of_a_random_game_tells_a_player_what_they_may_not_see(embedded: Stack) -> None:
    db = embedded.db
    settings = mail_settings(embedded.settings)
    mails_checked = secrets_checked = 0
    kinds: set[str] = set()
    for people, order, seed in GAMES:
        rng = random.Random(seed)
        # the others' answers are changed in each window (_secret_answers_do_not_show): votes wait for every voter
        created = create_tagged(db, people, seed=seed, options={"turn_order": order}, close_decided_votes=False)
        now = T0
        ids = outbox_ids(db, created.game_id)
        windows = 0
        while True:
            mails_checked += _compose_and_check(db, settings, ids, now, rng)
            window = open_window(db, created.game_id)
            if window is None:
                break
            kinds.update(r.kind for r in window.requests)
            if windows % 3 == 0:
                secrets_checked += _secret_answers_do_not_show(db, settings, created.game_id, now, rng)
            now += dt.timedelta(minutes=30)
            ids = play_window(db, created.game_id, seed, now)
            windows += 1
        with db.session() as session:
            game = session.get(Game, created.game_id)
            assert game is not None and game.status == "over"
    assert mails_checked > 200 and secrets_checked > 10
    assert {"place", "vote", "cards", "move", "truck"} <= kinds, kinds
