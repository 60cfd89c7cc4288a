"""The last call (issue 11, item 4), through the server on both databases with an injected clock: once everyone
owed but one has answered, that player's deadline shrinks (never into their quiet hours, never later) and they get
one "everyone is waiting for you" mail; never in a window asked in secret (B-INFO)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa

import engine
from server.db import Database
from server.mail.send import send_one
from server.models import MailKind, Outbox, OutboxStatus
from server.services import games, turns
from server.services.tempo import parse_deadlines
from tests.conftest import Stack
from tests.support import Sink, add_player, compose, engine_of, open_window, play_window, text_of, utc

NOW = utc(2026, 6, 1, 12)
PEOPLE = ("Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>")


def spec(last_call: int | None = 4 * 3600, seed: int = 7, **fields: Any) -> games.GameSpec:
    return games.GameSpec(
        players=[games.parse_player(p) for p in PEOPLE],
        deadlines=parse_deadlines(["24h"]),
        last_call=last_call,
        seed=seed,
        **fields,
    )


def answer(db: Database, game_id: int, colour: str, now: Any, seed: int = 1) -> None:
    """The seat of ``colour`` answers its open request as a random bot would, through ``submit_answer``."""
    window = open_window(db, game_id)
    assert window is not None
    row = next(r for r in window.requests if r.seat.colour == colour)
    eng = engine_of(db, game_id)
    req = next(r for r in eng.pending() if r.player == colour)
    value = engine.bots.RandomBot(seed).decide(eng, req)
    turns.submit_answer(db, row.seat_id, row.kind, value, window_number=window.number, now=now)


def last_calls(db: Database) -> list[Outbox]:
    with db.session() as session:
        return list(session.execute(sa.select(Outbox).where(Outbox.kind == MailKind.LAST_CALL)).scalars())


def test_the_last_player_gets_a_shorter_deadline_and_one_mail(stack: Stack) -> None:
    db = stack.db
    game_id = games.create_game(db, spec(), now=NOW).game_id
    window = open_window(db, game_id)
    assert window is not None and len(window.requests) == 3
    assert window.deadline == NOW + timedelta(hours=24)

    answer(db, game_id, "yellow", NOW + timedelta(minutes=5))
    assert open_window(db, game_id).deadline == NOW + timedelta(hours=24)  # type: ignore[union-attr]
    assert last_calls(db) == []

    called = NOW + timedelta(minutes=10)
    answer(db, game_id, "red", called)
    assert open_window(db, game_id).deadline == called + timedelta(hours=4)  # type: ignore[union-attr]
    (row,) = last_calls(db)
    assert (row.key, row.status, row.payload) == (f"lastcall:{window.id}", OutboxStatus.PENDING, {"window": 1})
    with db.session() as session:
        blue = session.execute(
            sa.text("SELECT id FROM seats WHERE game_id = :g AND colour = 'blue'"), {"g": game_id}
        ).scalar()
    assert row.seat_id == blue

    # a changed answer does not call again
    answer(db, game_id, "red", called + timedelta(minutes=1), seed=2)
    assert len(last_calls(db)) == 1

    message = compose(db, row.id, stack.settings, called)
    assert message is not None
    assert "everyone is waiting for you" in str(message["Subject"])
    assert "/do?" in text_of(message)  # the decision's one-tap links, as in the turn mail
    sink = Sink()
    assert send_one(db, row.id, sink, stack.settings, called) == "sent"
    assert len(sink.sent) == 1

    # answered: the window completes as any other
    answer(db, game_id, "blue", called + timedelta(minutes=2))
    assert open_window(db, game_id).completed_at is not None  # type: ignore[union-attr]


def test_a_last_call_answered_before_its_mail_is_due_is_not_sent(stack: Stack) -> None:
    db = stack.db
    game_id = games.create_game(db, spec(), now=NOW).game_id
    answer(db, game_id, "yellow", NOW)
    answer(db, game_id, "red", NOW)
    (row,) = last_calls(db)
    answer(db, game_id, "blue", NOW)
    assert send_one(db, row.id, Sink(), stack.settings, NOW) == "skipped"
    (row,) = last_calls(db)
    assert row.status == OutboxStatus.SKIPPED


def test_without_a_last_call_nothing_changes(stack: Stack) -> None:
    db = stack.db
    game_id = games.create_game(db, spec(last_call=None), now=NOW).game_id
    answer(db, game_id, "yellow", NOW)
    answer(db, game_id, "red", NOW)
    assert open_window(db, game_id).deadline == NOW + timedelta(hours=24)  # type: ignore[union-attr]
    assert last_calls(db) == []


def test_the_last_call_counts_only_the_last_players_waking_hours(stack: Stack) -> None:
    db = stack.db
    add_player(db, "cy@example.org", timezone="Europe/Rome", quiet_start="13:00", quiet_end="19:00")
    game_id = games.create_game(db, spec(), now=NOW).game_id  # 14:00 in Rome: Cy is in their quiet hours until 19:00
    answer(db, game_id, "yellow", NOW)
    answer(db, game_id, "red", NOW)
    assert open_window(db, game_id).deadline == utc(2026, 6, 1, 21)  # type: ignore[union-attr]  # 19:00 + 4 h, Rome
    assert len(last_calls(db)) == 1
    # a game that lets deadlines fall in quiet hours keeps now + 4 h
    other = games.create_game(db, spec(avoid_quiet_hours=False), now=NOW).game_id
    answer(db, other, "yellow", NOW)
    answer(db, other, "red", NOW)
    assert open_window(db, other).deadline == NOW + timedelta(hours=4)  # type: ignore[union-attr]


def test_the_last_call_is_never_later_than_the_deadline(stack: Stack) -> None:
    db = stack.db
    game_id = games.create_game(db, spec(last_call=48 * 3600), now=NOW).game_id
    answer(db, game_id, "yellow", NOW)
    answer(db, game_id, "red", NOW)
    assert open_window(db, game_id).deadline == NOW + timedelta(hours=24)  # type: ignore[union-attr]
    assert len(last_calls(db)) == 1  # still told: everyone is waiting


def _card_window(db: Database) -> tuple[int, int]:
    """A game whose open window is a card window asking at least two people (B-INFO): (game id, window number)."""
    for seed in range(1, 60):
        game_id = games.create_game(db, spec(seed=seed), now=NOW).game_id
        for step in range(40):
            window = open_window(db, game_id)
            if window is None:
                break
            asked = [r for r in window.requests if r.answered_at is None]
            if len(asked) >= 2 and all(engine.asked_in_secret(r.payload) for r in window.requests):
                return game_id, window.number
            play_window(db, game_id, seed * 100 + step, NOW)
    pytest.fail("no card window asking two people in 60 games")


@pytest.mark.rule("B-INFO")
def test_no_last_call_in_a_window_asked_in_secret_B_INFO(stack: Stack) -> None:
    """The last card holder would learn that others were asked: neither the deadline nor a mail tells it."""
    db = stack.db
    game_id, number = _card_window(db)
    window = open_window(db, game_id)
    assert window is not None and window.number == number
    deadline = window.deadline
    colours = [r.seat.colour for r in window.requests if r.answered_at is None]
    for colour in colours[:-1]:
        answer(db, game_id, colour, NOW)
    assert open_window(db, game_id).deadline == deadline  # type: ignore[union-attr]
    assert [row for row in last_calls(db) if row.key == f"lastcall:{window.id}"] == []
