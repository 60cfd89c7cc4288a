"""Missed deadlines: a seat that misses ``autopilot_after`` public deadlines in a row goes on autopilot,
the table stops waiting for it, and its player comes back by the one-tap link or the seat page's button.

Each test runs on SQLite (embedded) and PostgreSQL (production), on the windows' own clock."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest

import engine
from engine.bots import SensibleBot
from server.db import Database
from server.mail import replies
from server.models import MailKind, Window, WindowStatus
from server.services.attendance import substitutes
from server.services.links import LinkError
from server.services.mailflow import reply_address
from server.services.play import autopilot, seats, turns
from tests.conftest import Stack
from tests.support import (
    REPLY_DOMAIN,
    all_rows,
    api_game,
    compose,
    engine_of,
    letter,
    log_in_as_organiser,
    mail_settings,
    open_window,
    post_form,
    requests_in,
    rows_of_kind,
    seat_ids,
    seat_of,
    text_of,
)

PEOPLE = ["Ann <ann@example.org>", "Bruno <bruno@example.org>", "Ola <ola@example.org>"]
ORGANISER = "Orla <orla@example.org>"


def rows_of(db: Database, window_id: int) -> list[Any]:
    return requests_in(db, window_id)


def others_answer(db: Database, game_id: int, absent: str, ids: dict[str, int]) -> Window:
    """Everyone but ``absent`` answers their open request (the sensible bot's choice), a minute after it opened."""
    window = open_window(db, game_id)
    assert window is not None
    eng = engine_of(db, game_id)
    for req in eng.pending():
        row = next(r for r in window.requests if r.seat_id == ids[req.player])
        if req.player != absent and row.answered_at is None and window.completed_at is None:
            answer = SensibleBot(5).decide(eng, req)
            turns.submit_answer(db, ids[req.player], req.kind, answer, now=window.opened_at + timedelta(minutes=1))
    found = open_window(db, game_id)
    assert found is not None and found.id == window.id
    return found


def public_row(rows: list[Any], seat_id: int) -> Any:
    return next((r for r in rows if r.seat_id == seat_id and not r.secret), None)


def until_autopilot(db: Database, game_id: int, colour: str, ids: dict[str, int]) -> list[bool]:
    """Windows pass with ``colour`` never answering (the others answer, the deadline passes) until the seat is on
    autopilot; returns, for each window that asked ``colour`` in public, whether it defaulted."""
    missed: list[bool] = []
    for _ in range(60):
        window = others_answer(db, game_id, colour, ids)
        now = window.opened_at + timedelta(minutes=2) if window.completed_at else window.deadline
        assert turns.advance_window(db, window.id, now=now) is True
        mine = public_row(rows_of(db, window.id), ids[colour])
        if mine is not None:
            missed.append(mine.defaulted)
        if seat_of(db, ids[colour]).autopilot_at is not None:
            return missed
    raise AssertionError("the seat never went on autopilot")


def game(stack: Stack, after: int = 2, **body: Any) -> tuple[int, dict[str, str], dict[str, int]]:
    made = api_game(stack.client, PEOPLE, 7, autopilot_after=after, organiser=ORGANISER, **body)
    return made.id, made.tokens, seat_ids(stack.db, made.id)


# --- escalation ------------------------------------------------------------------------------------------------------


def test_two_missed_deadlines_put_the_seat_on_autopilot_and_everyone_is_told(stack: Stack) -> None:
    game_id, _tokens, ids = game(stack)
    missed = until_autopilot(stack.db, game_id, "blue", ids)

    assert missed[-2:] == [True, True]  # the two public deadlines missed in a row, and not before
    assert seat_of(stack.db, ids["blue"]).missed == 2
    (mine,) = rows_of_kind(stack.db, MailKind.AUTOPILOT)
    assert mine.seat_id == ids["blue"] and mine.payload == {"missed": 2}
    table = rows_of_kind(stack.db, MailKind.TABLE)
    assert sorted(r.seat_id for r in table) == sorted(ids[c] for c in ("yellow", "red"))
    assert all(r.payload == {"colour": "blue", "status": "autopilot"} for r in table)
    organiser = [r for r in rows_of_kind(stack.db, MailKind.ORGANISER) if r.payload.get("about") == "autopilot"]
    assert len(organiser) == 1 and organiser[0].payload == {"about": "autopilot", "colour": "blue", "missed": 2}

    settings = mail_settings(stack.settings)
    text = text_of(compose(stack.db, mine.id, settings))
    assert "on autopilot" in text and "You missed 2 deadlines in a row" in text
    back_url = re.search(r"https?://\S+/back\b", text)
    assert back_url is not None and "/s/" in back_url.group(0)
    told = text_of(compose(stack.db, table[0].id, settings))
    assert "Blue missed deadlines in a row and is on autopilot" in told
    log_in_as_organiser(stack.client)  # the organiser's game page shows it too
    assert "Blue is on autopilot" in stack.client.get(f"/o/games/{game_id}").get_data(as_text=True)


def test_on_autopilot_the_table_no_longer_waits_for_the_seat(stack: Stack) -> None:
    game_id, _tokens, ids = game(stack)
    until_autopilot(stack.db, game_id, "blue", ids)
    asked = 0
    for _ in range(8):
        window = others_answer(stack.db, game_id, "blue", ids)
        rows = rows_of(stack.db, window.id)
        mine = next((r for r in rows if r.seat_id == ids["blue"]), None)
        if mine is not None:
            asked += 1
            # answered at once when the window opened, by the autopilot, with a legal answer
            assert mine.autopilot and mine.answered_at == window.opened_at and not mine.standing
        # the window is complete as soon as the others answered: it closes long before its deadline
        assert window.completed_at is not None
        assert turns.advance_window(stack.db, window.id, now=window.opened_at + timedelta(minutes=2)) is True
        assert not any(r.defaulted for r in rows_of(stack.db, window.id))
    assert asked >= 2
    assert seat_of(stack.db, ids["blue"]).autopilot_at is not None  # it stays on until the player is back


def test_autopilot_after_0_never_escalates(stack: Stack) -> None:
    game_id, _tokens, ids = game(stack, after=0)
    missed = 0
    for _ in range(12):
        window = others_answer(stack.db, game_id, "blue", ids)
        now = window.opened_at + timedelta(minutes=2) if window.completed_at else window.deadline
        assert turns.advance_window(stack.db, window.id, now=now) is True
        missed += bool((row := public_row(rows_of(stack.db, window.id), ids["blue"])) and row.defaulted)
    assert missed >= 3
    assert seat_of(stack.db, ids["blue"]).autopilot_at is None
    assert rows_of_kind(stack.db, MailKind.AUTOPILOT) == []


def test_an_answer_of_the_player_starts_the_count_again(stack: Stack) -> None:
    game_id, _tokens, ids = game(stack, after=2)
    defaulted_once = False
    for _ in range(40):
        window = others_answer(stack.db, game_id, "blue", ids)
        mine = public_row(list(window.requests), ids["blue"])
        if mine is not None and defaulted_once:  # blue answers this one: the count starts again
            eng = engine_of(stack.db, game_id)
            req = next(r for r in eng.pending() if r.player == "blue")
            turns.submit_answer(stack.db, ids["blue"], req.kind, SensibleBot(1).decide(eng, req), now=window.opened_at)
            window = open_window(stack.db, game_id) or window
            now = window.opened_at + timedelta(minutes=2) if window.completed_at else window.deadline
            assert turns.advance_window(stack.db, window.id, now=now) is True
            assert seat_of(stack.db, ids["blue"]).missed == 0
            break
        now = window.opened_at + timedelta(minutes=2) if window.completed_at else window.deadline
        assert turns.advance_window(stack.db, window.id, now=now) is True
        if mine is not None:
            defaulted_once = True
            assert seat_of(stack.db, ids["blue"]).missed == 1
    else:
        raise AssertionError("blue was not asked twice in public")
    assert seat_of(stack.db, ids["blue"]).autopilot_at is None


def test_a_request_asked_in_secret_neither_counts_nor_resets_B_INFO() -> None:
    """Going on autopilot right after a card window would tell the table who was asked in it."""

    class FakeSeat:
        def __init__(self) -> None:
            self.bot, self.player_id, self.missed, self.autopilot_at = None, 1, 1, None

    class FakeRow:
        def __init__(self, payload: dict[str, Any], defaulted: bool, answered: bool) -> None:
            self.seat, self.payload, self.defaulted = FakeSeat(), payload, defaulted
            self.secret = engine.asked_in_secret(engine.Request.from_json(payload))  # as ``RequestRow`` marks it
            self.answered_at = object() if answered else None
            self.standing = self.autopilot = False

    secret = {"kind": "cards", "player": "blue", "playable": ["sprint"], "options": []}
    public = {"kind": "vote", "player": "blue", "options": ["red", "blue"]}
    assert engine.asked_in_secret(engine.Request.from_json(secret))
    assert not engine.asked_in_secret(engine.Request.from_json(public))

    class FakeGame:
        id, tempo = 1, {"autopilot_after": 2}

    for defaulted, answered in ((True, False), (False, True)):
        row = FakeRow(secret, defaulted, answered)
        autopilot.count_missed(None, FakeGame(), [row], None)  # type: ignore[arg-type]
        assert row.seat.missed == 1 and row.seat.autopilot_at is None
    answered = FakeRow(public, False, True)
    autopilot.count_missed(None, FakeGame(), [answered], None)  # type: ignore[arg-type]
    assert answered.seat.missed == 0


# --- I'm back --------------------------------------------------------------------------------------------------------


def test_im_back_by_the_one_tap_link_ends_the_autopilot_from_the_next_request_on(stack: Stack) -> None:
    game_id, tokens, ids = game(stack)
    until_autopilot(stack.db, game_id, "blue", ids)
    token = tokens["blue"]

    page = stack.client.get(f"/s/{token}").get_data(as_text=True)
    assert "Your seat is on autopilot" in page and f'action="/s/{token}/back"' in page
    for other in ("yellow", "red"):  # the table sees it
        assert "Blue is on autopilot" in stack.client.get(f"/s/{tokens[other]}").get_data(as_text=True)
    assert stack.client.get(f"/api/seat/{tokens['red']}").json["presence"] == {
        "blue": {"autopilot": True, "away_until": None}
    }

    before = all_rows(stack.db)
    confirm = stack.client.get(f"/s/{token}/back")  # the mail's link opens a confirm page: nothing changes
    assert confirm.status_code == 200 and "From the next decision on you decide again" in confirm.get_data(True)
    assert all_rows(stack.db) == before

    reply = post_form(stack.client, stack.app, f"/s/{token}/back")
    assert reply.status_code == 303 and reply.headers["Location"].endswith("?back=1")
    assert seat_of(stack.db, ids["blue"]).autopilot_at is None and seat_of(stack.db, ids["blue"]).missed == 0
    welcome = stack.client.get(reply.headers["Location"]).get_data(as_text=True)
    assert "Welcome back" in welcome and "Your seat is on autopilot" not in welcome
    back = [r for r in rows_of_kind(stack.db, MailKind.TABLE) if r.payload["status"] == "back"]
    assert sorted(r.seat_id for r in back) == sorted(ids[c] for c in ("yellow", "red"))
    assert "Blue is back" in text_of(compose(stack.db, back[0].id, mail_settings(stack.settings)))
    assert stack.client.get(f"/api/seat/{tokens['red']}").json["presence"] == {}

    # the autopilot mail, composed now, tells nothing any more; the next request of blue waits for blue
    (mine,) = rows_of_kind(stack.db, MailKind.AUTOPILOT)
    assert compose(stack.db, mine.id, mail_settings(stack.settings)) is None
    # (the window open when blue came back keeps its answers: an autopilot answer given there stands)
    opened_before = open_window(stack.db, game_id)
    for _ in range(20):
        window = others_answer(stack.db, game_id, "blue", ids)
        row = next((r for r in rows_of(stack.db, window.id) if r.seat_id == ids["blue"]), None)
        if row is not None and window.id != getattr(opened_before, "id", None):
            assert row.answered_at is None and not row.autopilot
            assert window.completed_at is None  # the table waits for blue again
            return
        assert turns.advance_window(stack.db, window.id, now=window.opened_at + timedelta(minutes=2)) is True
    raise AssertionError("blue was not asked again")


def test_im_back_is_refused_when_not_on_autopilot_and_from_a_revoked_link(stack: Stack) -> None:
    game_id, tokens, ids = game(stack)
    before = all_rows(stack.db)
    refused = post_form(stack.client, stack.app, f"/s/{tokens['blue']}/back")
    assert refused.status_code == 409 and "not on autopilot" in refused.get_data(as_text=True)
    assert all_rows(stack.db) == before

    until_autopilot(stack.db, game_id, "blue", ids)
    with pytest.raises(LinkError):
        autopilot.back(stack.db, ids["blue"], generation=0)
    old = tokens["blue"]
    seats.rotate_link(stack.db, game_id, "blue")
    before = all_rows(stack.db)
    revoked = post_form(stack.client, stack.app, f"/s/{old}/back")
    assert revoked.status_code in (403, 410) and "replaced by a newer one" in revoked.get_data(as_text=True)
    assert all_rows(stack.db) == before
    assert seat_of(stack.db, ids["blue"]).autopilot_at is not None


def test_windows_of_a_game_without_people_on_autopilot_are_unchanged(stack: Stack) -> None:
    """Nothing is answered for a player who answers: the first window asks everyone it asked before."""
    game_id, _tokens, ids = game(stack)
    window = open_window(stack.db, game_id)
    assert window is not None and window.status == WindowStatus.OPEN
    assert all(not r.autopilot and r.answered_at is None for r in window.requests)
    assert {r.player_id for r in window.requests} <= {seat_of(stack.db, i).player_id for i in ids.values()}


def test_a_substitute_taking_a_seat_on_autopilot_is_told_to_the_table(stack: Stack) -> None:
    game_id, _tokens, ids = game(stack)
    until_autopilot(stack.db, game_id, "blue", ids)
    key = substitutes.offer(stack.db, game_id, "blue")
    substitutes.accept(stack.db, key, "Sub", "sub@example.org")
    assert seat_of(stack.db, ids["blue"]).autopilot_at is None and seat_of(stack.db, ids["blue"]).missed == 0
    new = [r for r in rows_of_kind(stack.db, MailKind.TABLE) if r.payload["status"] == "new"]
    assert sorted(r.seat_id for r in new) == sorted(ids[c] for c in ("yellow", "red"))
    told = text_of(compose(stack.db, new[0].id, mail_settings(stack.settings)))
    assert "A substitute took over Blue" in told


def test_im_back_by_a_reply_ends_the_autopilot(stack: Stack) -> None:
    game_id, _tokens, ids = game(stack)
    until_autopilot(stack.db, game_id, "blue", ids)
    settings = mail_settings(stack.settings)
    window = open_window(stack.db, game_id)
    assert window is not None
    address = reply_address.make(settings.secret_key, REPLY_DOMAIN, ids["blue"], window.number, 1)
    received = replies.receive(
        stack.db, settings, letter("ola@example.org", address, "BACK"), [address], window.opened_at
    )
    assert received.status == "applied"
    assert seat_of(stack.db, ids["blue"]).autopilot_at is None
    assert [r.payload["status"] for r in rows_of_kind(stack.db, MailKind.TABLE)][-1] == "back"
