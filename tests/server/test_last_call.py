"""The last call, through the server on both databases with an injected clock: once everyone
owed but one has answered, that player's deadline shrinks (never into their quiet hours, never later) and they get
one "everyone is waiting for you" mail; never in a window asked in secret (B-INFO)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa

import engine
from server.db import Database
from server.mail.send import send_one
from server.models import Game, MailKind, OutboxStatus
from server.services.play import archive, games, turns
from server.services.tempo import parse_deadlines
from tests.conftest import Stack
from tests.support import (
    Sink,
    add_player,
    compose,
    engine_of,
    open_window,
    play_window,
    rows_of_kind,
    seat_ids,
    text_of,
    utc,
)

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


def test_the_last_player_gets_a_shorter_deadline_and_one_mail(stack: Stack) -> None:
    db = stack.db
    game_id = games.create_game(db, spec(), now=NOW).game_id
    window = open_window(db, game_id)
    assert window is not None and len(window.requests) == 3
    assert window.deadline == NOW + timedelta(hours=24)

    answer(db, game_id, "yellow", NOW + timedelta(minutes=5))
    assert open_window(db, game_id).deadline == NOW + timedelta(hours=24)  # type: ignore[union-attr]
    assert rows_of_kind(db, MailKind.LAST_CALL) == []

    called = NOW + timedelta(minutes=10)
    answer(db, game_id, "red", called)
    assert open_window(db, game_id).deadline == called + timedelta(hours=4)  # type: ignore[union-attr]
    (row,) = rows_of_kind(db, MailKind.LAST_CALL)
    assert (row.key, row.status, row.payload) == (f"lastcall:{window.id}", OutboxStatus.PENDING, {"window": 1})
    with db.session() as session:
        blue = session.execute(
            sa.text("SELECT id FROM seats WHERE game_id = :g AND colour = 'blue'"), {"g": game_id}
        ).scalar()
    assert row.seat_id == blue

    # a changed answer does not call again
    answer(db, game_id, "red", called + timedelta(minutes=1), seed=2)
    assert len(rows_of_kind(db, MailKind.LAST_CALL)) == 1

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


def test_the_answer_that_calls_the_last_call_reads_its_window_twice_and_no_column_lazily(stack: Stack) -> None:
    """The answer's window is locked with the seat's read; the answer that calls the last call (once a window) reads
    the window whole once more, with every column the last call uses (the deadline, and the opening and revision a
    moved deadline is counted from): no column is loaded lazily, one query each (issue 29)."""
    db = stack.db
    game_id = games.create_game(db, spec(), now=NOW).game_id
    answer(db, game_id, "yellow", NOW + timedelta(minutes=5))
    reads: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and re.search(r"\b(FROM|JOIN) windows\b", statement):
            reads.append(statement)

    called = NOW + timedelta(minutes=10)
    sa.event.listen(db.engine, "before_cursor_execute", record)
    try:
        answer(db, game_id, "red", called)
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", record)
    assert open_window(db, game_id).deadline == called + timedelta(hours=4)  # type: ignore[union-attr]
    # (the test's own read, by the game's id, is left out)
    answer_reads = [r for r in reads if "JOIN windows" in r or "windows.id = " in r]
    assert len(answer_reads) == 2 and "JOIN windows" in answer_reads[0], answer_reads
    assert "windows.deadline_revision" in answer_reads[1] and "windows.opened_at" in answer_reads[1]


def test_a_last_call_answered_before_its_mail_is_due_is_not_sent(stack: Stack) -> None:
    db = stack.db
    game_id = games.create_game(db, spec(), now=NOW).game_id
    answer(db, game_id, "yellow", NOW)
    answer(db, game_id, "red", NOW)
    (row,) = rows_of_kind(db, MailKind.LAST_CALL)
    answer(db, game_id, "blue", NOW)
    assert send_one(db, row.id, Sink(), stack.settings, NOW) == "skipped"
    (row,) = rows_of_kind(db, MailKind.LAST_CALL)
    assert row.status == OutboxStatus.SKIPPED


def test_without_a_last_call_nothing_changes(stack: Stack) -> None:
    db = stack.db
    game_id = games.create_game(db, spec(last_call=None), now=NOW).game_id
    answer(db, game_id, "yellow", NOW)
    answer(db, game_id, "red", NOW)
    assert open_window(db, game_id).deadline == NOW + timedelta(hours=24)  # type: ignore[union-attr]
    assert rows_of_kind(db, MailKind.LAST_CALL) == []


def test_the_last_call_counts_only_the_last_players_waking_hours(stack: Stack) -> None:
    db = stack.db
    add_player(db, "cy@example.org", timezone="Europe/Rome", quiet_start="13:00", quiet_end="19:00")
    game_id = games.create_game(db, spec(), now=NOW).game_id  # 14:00 in Rome: Cy is in their quiet hours until 19:00
    answer(db, game_id, "yellow", NOW)
    answer(db, game_id, "red", NOW)
    assert open_window(db, game_id).deadline == utc(2026, 6, 1, 21)  # type: ignore[union-attr]  # 19:00 + 4 h, Rome
    assert len(rows_of_kind(db, MailKind.LAST_CALL)) == 1
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
    assert len(rows_of_kind(db, MailKind.LAST_CALL)) == 1  # still told: everyone is waiting


def _card_window(db: Database) -> tuple[int, int]:
    """A game whose open window is a card window asking at least two people (B-INFO): (game id, window number)."""
    for seed in range(1, 60):
        game_id = games.create_game(db, spec(seed=seed), now=NOW).game_id
        for step in range(40):
            window = open_window(db, game_id)
            if window is None:
                break
            asked = [r for r in window.requests if r.answered_at is None]
            if len(asked) >= 2 and all(r.secret for r in window.requests):
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
    assert [row for row in rows_of_kind(db, MailKind.LAST_CALL) if row.key == f"lastcall:{window.id}"] == []


def _play_until_blue_is_last_to_answer(db: Database, game_id: int, delay: timedelta) -> tuple[Any, int]:
    """Windows answered by everyone ``delay`` after they open (each advanced then) until one asks blue and someone
    else in the open (not asked in secret) after blue answered six requests of its own: (that window, count)."""
    blue_answers = 0
    for step in range(80):
        window = open_window(db, game_id)
        assert window is not None
        owed = [r for r in window.requests if r.answered_at is None]
        colours = {r.seat.colour for r in owed}
        in_the_open = not any(r.secret for r in window.requests)
        if blue_answers >= 6 and in_the_open and "blue" in colours and len(colours) >= 2:
            return window, blue_answers
        answered = window.opened_at + delay
        if window.completed_at is None:
            for colour in sorted(colours):
                answer(db, game_id, colour, answered, seed=step)
                blue_answers += colour == "blue"
                if open_window(db, game_id).completed_at is not None:  # type: ignore[union-attr]
                    break  # a vote decided
        assert turns.advance_window(db, window.id, now=answered)
    pytest.fail("blue was never left last in the open after six answers")


def test_the_last_call_is_shorter_for_a_player_who_usually_answers_quickly(stack: Stack) -> None:
    """Four times the player's median time to answer (in waking hours), once they answered six requests; never
    below an hour, never longer than the game's last call."""
    db = stack.db
    game_id = games.create_game(db, spec(), now=NOW).game_id
    window, count = _play_until_blue_is_last_to_answer(db, game_id, timedelta(minutes=30))
    assert count >= 6
    called = window.opened_at + timedelta(minutes=5)
    for colour in sorted({r.seat.colour for r in window.requests if r.answered_at is None} - {"blue"}):
        answer(db, game_id, colour, called)
    window = open_window(db, game_id)
    assert window is not None
    if window.completed_at is None:  # not a vote decided without blue
        assert window.deadline == called + timedelta(hours=2)  # 4 x 30 minutes, not the game's 4 hours

    quick = games.create_game(db, spec(), now=NOW).game_id
    window, _ = _play_until_blue_is_last_to_answer(db, quick, timedelta(minutes=5))
    called = window.opened_at + timedelta(minutes=1)
    for colour in sorted({r.seat.colour for r in window.requests if r.answered_at is None} - {"blue"}):
        answer(db, quick, colour, called)
    window = open_window(db, quick)
    assert window is not None
    if window.completed_at is None:
        assert window.deadline == called + timedelta(hours=1)  # 4 x 5 minutes is under the floor of an hour


def test_a_player_with_fewer_than_six_answers_gets_the_whole_last_call(stack: Stack) -> None:
    db = stack.db
    game_id = games.create_game(db, spec(), now=NOW).game_id
    play_window(db, game_id, 1, NOW + timedelta(minutes=5))  # one quick answer each
    window = open_window(db, game_id)
    assert window is not None
    owed = sorted({r.seat.colour for r in window.requests if r.answered_at is None})
    if len(owed) >= 2 and not any(r.secret for r in window.requests):
        called = NOW + timedelta(minutes=10)
        for colour in owed[:-1]:
            answer(db, game_id, colour, called)
        assert open_window(db, game_id).deadline == called + timedelta(hours=4)  # type: ignore[union-attr]


def test_a_window_asking_one_player_is_its_own_last_call(stack: Stack) -> None:
    """The turn mail is the call: the deadline is the last call's from the opening, and no second mail."""
    db = stack.db
    for seed in range(1, 40):
        game_id = games.create_game(db, spec(seed=seed), now=NOW).game_id
        for step in range(30):
            window = open_window(db, game_id)
            assert window is not None
            if len(window.requests) == 1 and window.requests[0].answered_at is None:
                assert not engine.asked_in_secret(engine.Request.from_json(window.requests[0].payload))
                assert window.deadline == window.opened_at + timedelta(hours=4)  # not the 24 h of the game
                assert [row for row in rows_of_kind(db, MailKind.LAST_CALL) if row.key == f"lastcall:{window.id}"] == []
                return
            play_window(db, game_id, seed * 100 + step, NOW + timedelta(minutes=step))
    pytest.fail("no window asking one player in 40 games")


def test_the_pace_counts_only_the_players_own_answers(stack: Stack) -> None:
    """Answers given by the autopilot (or by a former player of the seat) say nothing of how fast this player
    answers: with them left out blue has no six answers of their own, and gets the whole last call."""
    db = stack.db
    game_id = games.create_game(db, spec(), now=NOW).game_id
    window, _count = _play_until_blue_is_last_to_answer(db, game_id, timedelta(minutes=30))
    blue = seat_ids(db, game_id)["blue"]
    with db.session() as session:  # blue's closed requests, in the game's archive, made the autopilot's
        game = session.get(Game, game_id)
        assert game is not None and game.archive is not None
        seat, auto = (archive.REQUEST_FIELDS.index(f) for f in ("seat_id", "autopilot"))
        requests = [[*r[:auto], r[seat] == blue or r[auto], *r[auto + 1 :]] for r in game.archive["r"]]
        game.archive = {**game.archive, "r": requests}
    called = window.opened_at + timedelta(minutes=5)
    for colour in sorted({r.seat.colour for r in window.requests if r.answered_at is None} - {"blue"}):
        answer(db, game_id, colour, called)
    window = open_window(db, game_id)
    assert window is not None
    if window.completed_at is None:
        assert window.deadline == called + timedelta(hours=4)  # not 4 x 30 minutes
