"""The organiser's operations (server/services/play/organise.py) and pages (/o/…): who owes what without the answers,
extending, pausing and resuming with an injected clock, replacing a seat by a bot or a person (old links and reply
addresses refused), resending links, abandoning; login, organiser links, CSRF and hostile names on the pages."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa
from celery import Celery
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from engine.bots import RandomBot
from server.db import Database
from server.mail.replies import receive
from server.models import Game, OrganiserSession, Outbox, Player, RequestRow, Seat, SeatTenure
from server.services.attendance import substitutes
from server.services.links import LinkError, organiser_token, read_organiser_token, read_token, seat_token
from server.services.mailflow import reminders, reply_address
from server.services.play import games, organise, turns
from server.web import organiser as organiser_pages
from server.web.app import create_app
from tests.conftest import Stack
from tests.support import (
    REPLY_DOMAIN,
    T0,
    Recorder,
    closed_window,
    compose,
    create_tagged,
    engine_of,
    forged,
    log_in_as_organiser,
    mail_settings,
    open_window,
    outbox_ids,
    post_form,
    recording,
    rows_of,
    stop_signing_clock,
    text_of,
)
from tests.waiting import wait_for

HOUR = dt.timedelta(hours=1)
#: the clock of the organiser's pages and operations in the tests that freeze it: an hour into games made at T0.
NOW = T0 + HOUR


# --- helpers -------------------------------------------------------------------------------------------------------


@pytest.fixture
def still(organiser: Stack, monkeypatch: pytest.MonkeyPatch) -> Stack:
    """The organiser's stack with its clocks stopped: the organiser's pages and operations read the time as NOW, and
    every signed token (the seat links a page lists, its CSRF tokens, the session cookie) is stamped at NOW, so two
    renderings of a page differ only where what it shows changed."""
    stop_signing_clock(monkeypatch, NOW)
    monkeypatch.setattr(organiser_pages, "utcnow", lambda: NOW)
    monkeypatch.setattr(organise, "utcnow", lambda: NOW)
    log_in_as_organiser(organiser.client)  # again: the session cookie is read with the stopped clock
    return organiser


def app_tasks(stack: Stack) -> Recorder:
    """The web app's after-commit work recorded instead of queued: the mails and advances its pages asked for."""
    db, tasks = recording(stack.web_db)
    stack.app.extensions["deadmail"].db = db
    return tasks


def seats_of(db: Database, game_id: int) -> dict[str, Seat]:
    with db.session() as session:
        rows = session.execute(sa.select(Seat).where(Seat.game_id == game_id).order_by(Seat.position)).scalars()
        out = {}
        for seat in rows:
            _ = seat.player
            session.expunge(seat)
            out[seat.colour] = seat
        return out


def answer(db: Database, game_id: int, colour: str, now: dt.datetime = T0, seed: int = 1) -> Any:
    """The seat answers its open request as a random bot would; returns the answer."""
    eng = engine_of(db, game_id)
    req = next(r for r in eng.pending() if r.player == colour)
    value = RandomBot(seed).decide(eng, req)
    turns.submit_answer(db, seats_of(db, game_id)[colour].id, req.kind, value, now=now)
    return value


def open_window_id(db: Database, game_id: int) -> int:
    window = open_window(db, game_id)
    assert window is not None
    return window.id


def deadline_of(db: Database, game_id: int) -> dt.datetime:
    window = open_window(db, game_id)
    assert window is not None
    return window.deadline


def requests_of(db: Database, window_id: int) -> dict[str, RequestRow]:
    with db.session() as session:
        rows = session.execute(sa.select(RequestRow).where(RequestRow.window_id == window_id)).scalars().all()
        out = {}
        for row in rows:
            out[row.seat.colour] = row
            session.expunge(row)
        return out


def outbox_rows(db: Database, game_id: int) -> list[Outbox]:
    return rows_of(db, outbox_ids(db, game_id))


def game_row(db: Database, game_id: int) -> Game:
    with db.session() as session:
        return session.execute(sa.select(Game).where(Game.id == game_id)).scalar_one()


def links_in(stack: Stack, message: EmailMessage | None) -> set[tuple[int, int]]:
    """(seat id, link generation) of every seat link in a mail's text."""
    assert message is not None
    tokens = re.findall(r"/s/([A-Za-z0-9_.-]+)", text_of(message))
    assert tokens
    return {read_token(stack.settings.secret_key, t, 60) for t in tokens}


def post(stack: Stack, path: str, data: dict[str, Any] | None = None, csrf: bool = True) -> TestResponse:
    return post_form(stack.client, stack.app, path, data, csrf)


# --- owed ----------------------------------------------------------------------------------------------------------


def test_owed_tells_who_answered_but_never_the_answer(still: Stack) -> None:
    created = create_tagged(still.db, 3, seed=7)
    given = answer(still.db, created.game_id, "red")
    data = organise.overview(still.db, created.game_id, now=T0)
    assert data["status"] == "running" and data["window"]["number"] == 1
    assert [(r["colour"], r["kind"], r["answered"]) for r in data["requests"]] == [
        ("yellow", "place", False),
        ("red", "place", True),
        ("blue", "place", False),
    ]
    assert all(set(r) == {"colour", "player", "bot", "kind", "answered"} for r in data["requests"])
    assert repr(given) not in repr(data)
    # the page is the same, byte for byte, whatever red answered: it cannot tell the answer. The clock and the
    # signatures' stamps are frozen, so the page's seat links and CSRF tokens are compared too, not masked.
    path = f"/o/games/{created.game_id}"
    first = still.client.get(path).get_data(as_text=True)
    assert first.count("answered") == 1 and first.count("waiting") == 2
    assert first.count("http://deadmail.test/s/") == 3 and 'name="csrf_token" value="' in first
    other = next(
        value for seed in range(2, 200) if (value := answer(still.db, created.game_id, "red", seed=seed)) != given
    )
    assert requests_of(still.db, open_window_id(still.db, created.game_id))["red"].answer == other
    assert still.client.get(path).get_data(as_text=True) == first


# --- deadlines and pauses ------------------------------------------------------------------------------------------


def test_extend_deadline_only_later(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=7)
    before = deadline_of(stack.db, created.game_id)
    new = organise.extend_deadline(stack.db, created.game_id, by=2 * HOUR, now=T0)
    assert new == before + 2 * HOUR == deadline_of(stack.db, created.game_id)
    for kwargs in ({"until": new - HOUR}, {"until": new}, {"by": -HOUR}, {"until": T0 + dt.timedelta(days=31)}, {}):
        with pytest.raises(organise.OrganiseError):
            organise.extend_deadline(stack.db, created.game_id, now=T0, **kwargs)
    assert deadline_of(stack.db, created.game_id) == new
    later = organise.extend_deadline(stack.db, created.game_id, until=new + 3 * HOUR, now=T0)
    assert deadline_of(stack.db, created.game_id) == later == new + 3 * HOUR


def test_pause_moves_the_deadline_and_resume_gives_back_the_unused_part(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=7)
    deadline = deadline_of(stack.db, created.game_id)  # T0 + 24 h
    assert organise.pause(stack.db, created.game_id, T0 + 5 * HOUR, now=T0) == deadline + 5 * HOUR
    assert game_row(stack.db, created.game_id).paused_until == T0 + 5 * HOUR
    # the same pause again changes nothing; a shorter one is refused; a longer one adds only the extra part
    assert organise.pause(stack.db, created.game_id, T0 + 5 * HOUR, now=T0 + HOUR) == deadline + 5 * HOUR
    with pytest.raises(organise.OrganiseError):
        organise.pause(stack.db, created.game_id, T0 + 4 * HOUR, now=T0 + HOUR)
    assert organise.pause(stack.db, created.game_id, T0 + 7 * HOUR, now=T0 + HOUR) == deadline + 7 * HOUR
    # resumed 2 h in: the 5 unused hours come back off the deadline
    resumed = organise.resume(stack.db, created.game_id, now=T0 + 2 * HOUR)
    assert resumed.changed and resumed.deadline == deadline + 2 * HOUR
    assert game_row(stack.db, created.game_id).paused_until is None
    assert deadline_of(stack.db, created.game_id) == deadline + 2 * HOUR
    assert not organise.resume(stack.db, created.game_id, now=T0 + 3 * HOUR).changed  # not paused: nothing
    for until in (T0, T0 - HOUR, T0 + dt.timedelta(days=31)):
        with pytest.raises(organise.OrganiseError):
            organise.pause(stack.db, created.game_id, until, now=T0 + 3 * HOUR)


def test_resume_never_leaves_less_than_ten_minutes(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=7)
    deadline = deadline_of(stack.db, created.game_id)
    minute = dt.timedelta(minutes=1)
    organise.pause(stack.db, created.game_id, deadline + HOUR, now=deadline - 5 * minute)  # deadline: D + 65 min
    # resumed a minute later: giving back the 64 unused minutes would leave only 5 minutes
    now = deadline - 4 * minute
    resumed = organise.resume(stack.db, created.game_id, now=now)
    assert resumed.deadline == now + organise.MIN_LEFT_ON_RESUME


def test_a_paused_game_does_not_advance_until_the_pause_ends(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=7)
    window_id = open_window_id(stack.db, created.game_id)
    organise.pause(stack.db, created.game_id, T0 + 6 * HOUR, now=T0)
    db, tasks = recording(stack.db)
    for colour in ("yellow", "red", "blue"):
        answer(db, created.game_id, colour, now=T0 + HOUR)
    assert tasks.advanced == [window_id]  # complete: its advance is asked for as always…
    assert turns.advance_window(stack.db, window_id, now=T0 + 2 * HOUR) is False  # …and does nothing while paused
    assert turns.sweep_windows(stack.db, now=T0 + 5 * HOUR) == 0
    assert open_window_id(stack.db, created.game_id) == window_id
    assert turns.sweep_windows(stack.db, now=T0 + 6 * HOUR) == 1  # the pause is over: the sweep takes it
    now_open = open_window(stack.db, created.game_id)
    assert now_open is not None and now_open.number == 2


def test_resume_asks_for_the_advance_of_a_complete_window(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=7)
    window_id = open_window_id(stack.db, created.game_id)
    organise.pause(stack.db, created.game_id, T0 + 6 * HOUR, now=T0)
    db, tasks = recording(stack.db)
    answer(db, created.game_id, "yellow", now=T0 + HOUR)
    organise.resume(db, created.game_id, now=T0 + HOUR)  # not complete yet: nothing to advance
    assert tasks.advanced == []
    organise.pause(stack.db, created.game_id, T0 + 6 * HOUR, now=T0 + HOUR)
    for colour in ("red", "blue"):
        answer(stack.db, created.game_id, colour, now=T0 + HOUR)
    organise.resume(db, created.game_id, now=T0 + 2 * HOUR)
    assert tasks.advanced == [window_id]
    assert turns.advance_window(stack.db, window_id, now=T0 + 2 * HOUR) is True


def test_no_reminders_while_paused(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=7)
    # paused from 11 h to 14 h: the deadline moves to T0 + 27 h, the first reminder step to 13.5 h before it
    organise.pause(stack.db, created.game_id, T0 + 14 * HOUR, now=T0 + 11 * HOUR)
    assert reminders.plan_reminders(stack.db, T0 + 13 * HOUR + 40 * dt.timedelta(minutes=1)) == []
    after = reminders.plan_reminders(stack.db, T0 + 14 * HOUR + dt.timedelta(minutes=1))
    assert len(after) == 3  # one per player, once the pause is over


# --- replacing a seat ----------------------------------------------------------------------------------------------


def tenures(db: Database, seat_id: int) -> list[tuple[int | None, str | None, dt.datetime, dt.datetime | None]]:
    with db.session() as session:
        rows = session.execute(sa.select(SeatTenure).where(SeatTenure.seat_id == seat_id).order_by(SeatTenure.id))
        return [(t.player_id, t.bot, t.started_at, t.ended_at) for t in rows.scalars()]


def test_replace_by_a_bot_answers_at_once_and_the_window_completes(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=7)
    window_id = open_window_id(stack.db, created.game_id)
    answer(stack.db, created.game_id, "yellow")
    answer(stack.db, created.game_id, "red")
    blue = seats_of(stack.db, created.game_id)["blue"]
    db, tasks = recording(stack.db)
    now = T0 + HOUR
    result = organise.replace_seat(db, created.game_id, "blue", bot="sensible", now=now)
    assert result.changed and result.answered and result.complete and tasks.advanced == [window_id]
    after = seats_of(stack.db, created.game_id)["blue"]
    assert after.bot == "sensible" and after.player_id is None
    assert after.link_generation == blue.link_generation + 1
    assert tenures(stack.db, blue.id) == [(blue.player_id, None, T0, now), (None, "sensible", now, None)]
    row = requests_of(stack.db, window_id)["blue"]
    assert row.answered_at == now and row.answer is not None
    assert turns.advance_window(stack.db, window_id, now=now) is True
    # the same replacement again changes nothing
    again = organise.replace_seat(stack.db, created.game_id, "blue", bot="sensible", now=now)
    assert not again.changed and len(tenures(stack.db, blue.id)) == 2
    # the blue player's unsent mail (their first turn notice) is not sent: it would carry the new state
    dropped = [r.status for r in outbox_rows(stack.db, created.game_id) if r.player_id == blue.player_id]
    assert dropped and all(status == "skipped" for status in dropped)


def test_replace_by_a_bot_through_the_page_is_processed_by_the_worker(organiser: Stack, worker: Celery) -> None:
    created = create_tagged(organiser.db, 3, seed=7)
    window_id = open_window_id(organiser.db, created.game_id)
    answer(organiser.db, created.game_id, "yellow")
    answer(organiser.db, created.game_id, "red")
    form = {"colour": "blue", "by": "random"}
    asked = post(organiser, f"/o/games/{created.game_id}/replace", form)  # the game page's form: a question first
    assert asked.status_code == 200 and "Replace a player?" in asked.get_data(as_text=True)
    assert seats_of(organiser.db, created.game_id)["blue"].bot is None
    reply = post(organiser, f"/o/games/{created.game_id}/replace", {**form, "confirm": "1"})
    assert reply.status_code == 303 and "done=replaced" in reply.headers["Location"]
    wait_for(lambda: (w := open_window(organiser.db, created.game_id)) is not None and w.id != window_id, 30, "advance")


def test_replace_by_a_person_revokes_old_links_and_mails_the_newcomer(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=7)
    window = open_window(stack.db, created.game_id)
    assert window is not None
    red = seats_of(stack.db, created.game_id)["red"]
    assert red.player is not None
    secret = stack.settings.secret_key
    old_token = seat_token(secret, red.id, red.link_generation)
    old_address = reply_address.make(secret, REPLY_DOMAIN, red.id, window.number, red.link_generation)
    newcomer = games.PlayerSpec(name="Dee", email="dee@example.org")
    db, tasks = recording(stack.db)
    result = organise.replace_seat(db, created.game_id, "red", player=newcomer, now=T0 + HOUR)
    assert result.changed and not result.answered and len(tasks.mails) == 1 and tasks.advanced == []
    after = seats_of(stack.db, created.game_id)["red"]
    assert after.player is not None and after.player.email == "dee@example.org" and after.bot is None
    assert tenures(stack.db, red.id)[-1][0] == after.player_id
    # the old link: refused, saying it was replaced
    page = stack.client.get(f"/s/{old_token}")
    assert page.status_code == 403 and "replaced" in page.get_data(as_text=True)
    # the old reply address: refused as revoked, nothing applied
    mail = EmailMessage()
    mail["From"] = red.player.email
    mail["To"] = old_address
    mail["Subject"] = "Re: game"
    mail["Message-ID"] = make_msgid(domain="mail.example.org")
    mail.set_content("place 1")
    got = receive(stack.db, mail_settings(stack.settings), mail.as_bytes(), [old_address], now=T0 + HOUR)
    assert got.status == "forged"
    assert requests_of(stack.db, window.id)["red"].answered_at is None
    # the newcomer's turn mail carries the new link; the former player's unsent one is dropped
    rows = {r.id: r for r in outbox_rows(stack.db, created.game_id)}
    turn = rows[tasks.mails[0]]
    assert turn.kind == "turn" and turn.player_id == after.player_id and turn.status == "pending"
    assert all(r.status == "skipped" for r in rows.values() if r.player_id == red.player_id)
    message = compose(stack.db, turn.id, mail_settings(stack.settings), now=T0 + HOUR)
    assert message is not None and "dee@example.org" in message["To"]
    assert links_in(stack, message) == {(red.id, after.link_generation)}
    # the new link works; a person already seated elsewhere in the game is refused
    assert stack.client.get(f"/s/{seat_token(secret, red.id, after.link_generation)}").status_code == 200
    yellow = seats_of(stack.db, created.game_id)["yellow"]
    assert yellow.player is not None
    with pytest.raises(organise.OrganiseError):
        organise.replace_seat(
            stack.db, created.game_id, "red", player=games.PlayerSpec(name="Y", email=yellow.player.email)
        )


def test_replace_refusals_change_nothing(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=7)
    before = seats_of(stack.db, created.game_id)
    for kwargs in (
        {"bot": "genius"},
        {},
        {"bot": "random", "player": games.PlayerSpec(name="X", email="x@example.org")},
        {"player": games.PlayerSpec(bot="random")},
    ):
        with pytest.raises(organise.OrganiseError):
            organise.replace_seat(stack.db, created.game_id, "red", **kwargs)
    with pytest.raises(organise.OrganiseError):
        organise.replace_seat(stack.db, created.game_id, "purple", bot="random")
    after = seats_of(stack.db, created.game_id)
    assert [(s.player_id, s.bot, s.link_generation) for s in after.values()] == [
        (s.player_id, s.bot, s.link_generation) for s in before.values()
    ]


# --- resending links -----------------------------------------------------------------------------------------------


def test_resend_link_makes_one_mail_and_rotate_revokes(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=7)
    yellow = seats_of(stack.db, created.game_id)["yellow"]
    assert yellow.player is not None
    settings = mail_settings(stack.settings)
    old = seat_token(stack.settings.secret_key, yellow.id, yellow.link_generation)
    first = organise.resend_link(stack.db, created.game_id, "yellow", rotate=False, now=T0)
    assert organise.resend_link(stack.db, created.game_id, "yellow", rotate=False, now=T0) == first  # not doubled
    links = [r for r in outbox_rows(stack.db, created.game_id) if r.kind == "link"]
    assert [(r.id, r.player_id, r.seat_id, r.status) for r in links] == [
        (first, yellow.player_id, yellow.id, "pending")
    ]
    message = compose(stack.db, first, settings, now=T0)
    assert message is not None and message["To"].endswith(f"<{yellow.player.email}>")
    assert links_in(stack, message) == {(yellow.id, yellow.link_generation)}
    assert stack.client.get(f"/s/{old}").status_code == 200
    rotated = organise.resend_link(stack.db, created.game_id, "yellow", rotate=True, now=T0)
    assert rotated != first
    rows = {r.id: r for r in outbox_rows(stack.db, created.game_id)}
    assert rows[first].status == "skipped" and rows[rotated].status == "pending"
    assert stack.client.get(f"/s/{old}").status_code == 403
    assert links_in(stack, compose(stack.db, rotated, settings, now=T0)) == {(yellow.id, yellow.link_generation + 1)}


def test_resend_link_refuses_bots(stack: Stack) -> None:
    created = create_tagged(stack.db, 2, seed=7, bots=1)
    bot = next(s for s in seats_of(stack.db, created.game_id).values() if s.bot)
    with pytest.raises(organise.OrganiseError):
        organise.resend_link(stack.db, created.game_id, bot.colour)


# --- abandoning ----------------------------------------------------------------------------------------------------


def test_abandon_stops_everything(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=7)
    window_id = open_window_id(stack.db, created.game_id)
    yellow = seats_of(stack.db, created.game_id)["yellow"]
    assert organise.abandon(stack.db, created.game_id, now=T0 + HOUR)
    assert game_row(stack.db, created.game_id).status == "abandoned"
    assert open_window(stack.db, created.game_id) is None
    closed = closed_window(stack.db, created.game_id, window_id)  # in the game's archive
    assert closed is not None and closed.closed_at == T0 + HOUR
    assert all(r.status == "skipped" for r in outbox_rows(stack.db, created.game_id))
    assert not organise.abandon(stack.db, created.game_id)  # again: nothing more
    with pytest.raises(turns.AnswerError):
        turns.submit_answer(stack.db, yellow.id, "place", {"character": "x", "location": 1}, now=T0 + HOUR)
    assert turns.sweep_windows(stack.db, now=T0 + 48 * HOUR) == 0
    assert reminders.plan_reminders(stack.db, T0 + 23 * HOUR) == []
    for operation in (
        lambda: organise.extend_deadline(stack.db, created.game_id, by=HOUR),
        lambda: organise.pause(stack.db, created.game_id, T0 + 50 * HOUR, now=T0 + 2 * HOUR),
        lambda: organise.replace_seat(stack.db, created.game_id, "red", bot="random"),
        lambda: organise.resend_link(stack.db, created.game_id, "red"),
    ):
        with pytest.raises(organise.OrganiseError):
            operation()
    assert all(r.status == "skipped" for r in outbox_rows(stack.db, created.game_id))


# --- the pages -----------------------------------------------------------------------------------------------------


def to_login(reply: TestResponse) -> bool:
    """The reply sends a visitor to the login form (302), with ``next`` back to the page asked for."""
    return reply.status_code == 302 and reply.headers["Location"].startswith("/o/login?next=")


def test_login_is_required(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=7)
    for path in ("/o/", "/o/new", f"/o/games/{created.game_id}", f"/o/games/{created.game_id}/replay"):
        assert to_login(stack.client.get(path))
    assert post(stack, f"/o/games/{created.game_id}/abandon", {"confirm": "1"}).status_code == 401
    assert post(stack, "/o/new", {"players": "bot\nbot\nbot"}).status_code == 401
    refused = post(stack, "/o/login", {"token": "wrong"})
    assert refused.status_code == 401 and "not the organiser token" in refused.get_data(as_text=True)
    assert to_login(stack.client.get(f"/o/games/{created.game_id}"))
    assert game_row(stack.db, created.game_id).status == "running"
    ok = post(stack, "/o/login", {"token": "test-api-token", "next": f"/o/games/{created.game_id}"})
    assert ok.status_code == 303 and ok.headers["Location"].endswith(f"/o/games/{created.game_id}")
    shown = stack.client.get(f"/o/games/{created.game_id}")
    assert shown.status_code == 200 and shown.headers["Cache-Control"] == "no-store"  # it shows seat links
    assert post(stack, "/o/logout").status_code == 303
    assert to_login(stack.client.get(f"/o/games/{created.game_id}"))


def test_login_is_rate_limited(embedded: Stack) -> None:
    codes = [post(embedded, "/o/login", {"token": f"guess-{i}"}).status_code for i in range(12)]
    assert codes[:10] == [401] * 10 and codes[10:] == [429, 429]


def test_an_organiser_link_opens_its_game_only(stack: Stack) -> None:
    a = create_tagged(stack.db, 3, seed=7)
    b = create_tagged(stack.db, 3, seed=8)
    token = organiser_token(stack.settings.secret_key, a.game_id)
    assert read_organiser_token(stack.settings.secret_key, token, 60) == a.game_id
    opened = stack.client.get(f"/o/link/{token}")
    assert opened.status_code == 303 and opened.headers["Location"].endswith(f"/o/games/{a.game_id}")
    assert stack.client.get(f"/o/games/{a.game_id}").status_code == 200
    other = stack.client.get(f"/o/games/{b.game_id}")  # the login form: game B needs the organiser's token
    assert to_login(other) and f"Game {b.game_id}" not in other.get_data(as_text=True)
    assert f"Game {a.game_id}" in stack.client.get(f"/o/games/{a.game_id}").get_data(as_text=True)
    assert post(stack, f"/o/games/{b.game_id}/abandon", {"confirm": "1"}).status_code == 401
    assert game_row(stack.db, b.game_id).status == "running"
    assert to_login(stack.client.get("/o/new"))  # not a login
    # a forged link, or a seat link, is not an organiser link
    seat = seats_of(stack.db, b.game_id)["red"]
    for wrong in (forged(token), seat_token(stack.settings.secret_key, seat.id, seat.link_generation)):
        assert stack.client.get(f"/o/link/{wrong}").status_code == 403
    with pytest.raises(LinkError):
        read_organiser_token(stack.settings.secret_key, seat_token(stack.settings.secret_key, 1, 1), 60)
    assert to_login(stack.client.get(f"/o/games/{b.game_id}"))


# --- organiser sessions end on the server ---------------------------------------------------------------------------


def open_as_organiser(stack: Stack, client: FlaskClient, way: str, game_id: int) -> None:
    """``client`` becomes an organiser's browser: logged in with the organiser token, or by the game's link."""
    if way == "login":
        reply = post_form(client, stack.app, "/o/login", {"token": "test-api-token"})
    else:
        reply = client.get(f"/o/link/{organiser_token(stack.settings.secret_key, game_id)}")
    assert reply.status_code == 303


def replayed(app: Flask, cookie: str) -> FlaskClient:
    """Another browser holding a copy of a session cookie."""
    client = app.test_client()
    client.set_cookie("session", cookie)
    return client


def session_cookie(client: FlaskClient) -> str:
    cookie = client.get_cookie("session")
    assert cookie is not None
    return cookie.value


@pytest.mark.parametrize("way", ["login", "organiser link"])
def test_logout_ends_the_organiser_session_for_every_copy_of_its_cookie(stack: Stack, way: str) -> None:
    created = create_tagged(stack.db, 3, seed=7)
    page = f"/o/games/{created.game_id}"
    open_as_organiser(stack, stack.client, way, created.game_id)
    cookie = session_cookie(stack.client)
    assert replayed(stack.app, cookie).get(page).status_code == 200  # a copy of the cookie opens the game

    assert post(stack, "/o/logout").status_code == 303

    for client in (stack.client, replayed(stack.app, cookie)):
        assert to_login(client.get(page))
        assert post_form(client, stack.app, f"{page}/abandon", {"confirm": "1"}).status_code == 401
        assert to_login(client.get("/o/"))
    assert game_row(stack.db, created.game_id).status == "running"
    with stack.db.session() as session:  # nothing is left of the session on the server
        assert session.execute(sa.select(sa.func.count()).select_from(OrganiserSession)).scalar_one() == 0


def test_a_new_organiser_token_ends_every_session_made_with_the_old_one(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=7)
    page = f"/o/games/{created.game_id}"
    browsers = {way: stack.app.test_client() for way in ("login", "organiser link")}
    for way, client in browsers.items():
        open_as_organiser(stack, client, way, created.game_id)
        assert client.get(page).status_code == 200
    cookies = [session_cookie(client) for client in browsers.values()]

    # the token is changed and the server restarted (the same secret key: every player's link still works)
    restarted = create_app(dataclasses.replace(stack.settings, api_token="a-new-token"), stack.web_db)
    restarted.config["TESTING"] = True

    for cookie in cookies:
        copy = replayed(restarted, cookie)
        assert to_login(copy.get(page))
        assert post_form(copy, restarted, f"{page}/abandon", {"confirm": "1"}).status_code == 401
    assert game_row(stack.db, created.game_id).status == "running"
    fresh = restarted.test_client()
    assert post_form(fresh, restarted, "/o/login", {"token": "test-api-token"}).status_code == 401
    assert post_form(fresh, restarted, "/o/login", {"token": "a-new-token"}).status_code == 303
    assert fresh.get(page).status_code == 200
    with stack.db.session() as session:  # the sessions of the old token are gone from the table
        assert session.execute(sa.select(sa.func.count()).select_from(OrganiserSession)).scalar_one() == 1


FORMS = {
    "extend": {"hours": "6"},
    "pause": {"until": "2031-03-05T10:00"},
    "resume": {},
    "replace": {"colour": "red", "by": "random", "confirm": "1"},
    "resend": {"colour": "red", "rotate": "1", "confirm": "1"},
    "abandon": {"confirm": "1"},
}


def changeable(db: Database, game_id: int) -> tuple[Any, ...]:
    """What an organiser's form may change in a game: its status and pause, the seats, the deadline, the mail."""
    game = game_row(db, game_id)
    seats = [(s.colour, s.player_id, s.bot, s.link_generation) for s in seats_of(db, game_id).values()]
    mail = [(r.id, r.status) for r in outbox_rows(db, game_id)]
    return game.status, game.paused_until, seats, deadline_of(db, game_id), mail


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_refuses_a_post_without_csrf(still: Stack, form: str) -> None:
    created = create_tagged(still.db, 3, seed=7)
    # the same form with its CSRF token is taken: the refusal below is the missing token's
    accepted = create_tagged(still.db, 3, seed=8)
    assert post(still, f"/o/games/{accepted.game_id}/{form}", FORMS[form]).status_code == 303
    before = changeable(still.db, created.game_id)
    refused = post(still, f"/o/games/{created.game_id}/{form}", FORMS[form], csrf=False)
    assert refused.status_code == 400
    assert changeable(still.db, created.game_id) == before


def test_login_and_create_refuse_a_post_without_csrf(stack: Stack) -> None:
    assert post(stack, "/o/login", {"token": "test-api-token"}, csrf=False).status_code == 400
    log_in_as_organiser(stack.client)
    assert post(stack, "/o/new", {"players": "bot\nbot\nbot"}, csrf=False).status_code == 400
    with stack.db.session() as session:
        assert session.execute(sa.select(sa.func.count(Game.id))).scalar_one() == 0


def test_create_a_game_with_the_form(organiser: Stack) -> None:
    tasks = app_tasks(organiser)
    assert organiser.client.get("/o/new").status_code == 200
    form = {
        "title": "Friday <b>night</b>",
        "players": "Ann <ann@example.org>\nbob@example.org\nbot:random\nbot",
        "option_turn_order": "strict",
        "option_first_chief": "blue",
        "weapon_axe": "2",
        "deadline": "12h",
        "deadlines": "vote=6h\ncards=3h",
        "timezone": "Europe/Rome",
        "avoid_quiet_hours": "1",
    }
    reply = post(organiser, "/o/new", form)
    assert reply.status_code == 303, reply.get_data(as_text=True)
    page = organiser.client.get(reply.headers["Location"]).get_data(as_text=True)
    with organiser.db.session() as session:
        game = session.execute(sa.select(Game)).scalar_one()
        assert game.title == "Friday <b>night</b>"
        assert game.options["turn_order"] == "strict" and game.options["first_chief"] == "blue"
        assert game.options["weapons"]["axe"] == 2
        assert game.tempo["durations"] == {"default": 12 * 3600, "vote": 6 * 3600, "cards": 3 * 3600}
        assert game.tempo["timezone"] == "Europe/Rome"
        game_id = game.id
    assert tasks.mails and sorted(tasks.mails) == outbox_ids(organiser.db, game_id)
    link = re.search(r'id="organiser-link" readonly value="([^"]+)"', page)
    assert link is not None and "/o/link/" in link.group(1)
    assert len(re.findall(r'value="http://deadmail.test/s/', page)) == 2  # the two people's seat links
    # the organiser link works in another browser with no login
    other = organiser.app.test_client()
    path = link.group(1).removeprefix(organiser.settings.base_url)
    assert other.get(path).status_code == 303
    assert other.get(f"/o/games/{game_id}").status_code == 200


def _counts(db: Database) -> tuple[int, int]:
    with db.session() as session:
        made = session.execute(sa.select(sa.func.count(Game.id))).scalar_one()
        return made, session.execute(sa.select(sa.func.count(Outbox.id))).scalar_one()


def test_creating_redirects_to_the_created_page_which_a_reload_never_creates_again(organiser: Stack) -> None:
    """The form's POST answers 303 to the created page (POST/redirect/GET); reloading it, or going back to
    it, creates no other game and mails nobody again. It shows the links to copy to the organiser only (logged in,
    or this game's organiser session), and no cache keeps it."""
    tasks = app_tasks(organiser)
    reply = post(organiser, "/o/new", {"players": "Ann <ann@example.org>\nbob@example.org\nbot"})
    assert reply.status_code == 303 and reply.get_data(as_text=True).count("/s/") == 0
    with organiser.db.session() as session:
        game_id = session.execute(sa.select(Game.id)).scalar_one()
    assert reply.headers["Location"] == f"/o/games/{game_id}/created"
    made, mails = _counts(organiser.db)
    queued = list(tasks.mails)
    assert made == 1 and mails == len(queued) > 0
    for _ in range(2):  # the page, then a reload
        page = organiser.client.get(reply.headers["Location"])
        assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
        text = page.get_data(as_text=True)
        assert f"Game {game_id} is created" in text and len(re.findall(r'value="http://deadmail.test/s/', text)) == 2
        assert "/o/link/" in text
    assert _counts(organiser.db) == (1, mails) and tasks.mails == queued
    # nobody else sees it: a visitor is sent to log in, another game's organiser session is too
    stranger = organiser.app.test_client()
    assert stranger.get(reply.headers["Location"]).status_code == 302
    other = create_tagged(organiser.db, 3, seed=8)
    stranger.get(f"/o/link/{organiser_token(organiser.settings.secret_key, other.game_id)}")
    assert stranger.get(f"/o/games/{other.game_id}/created").status_code == 200
    assert stranger.get(reply.headers["Location"]).status_code == 302
    assert organiser.client.get("/o/games/999999/created").status_code == 404


@pytest.mark.parametrize(
    ("players", "extra", "says"),
    [
        ("Ann <ann@example.org>\nbot", {}, "2 players"),
        ("Ann <ann@example.org>\nnot an address\nbot", {}, "neither"),
        ("bot\nbot\nbot", {"deadline": "forever"}, "not a duration"),
        ("bot\nbot\nbot", {"deadlines": "dance=1h"}, "not a request kind"),
        ("bot\nbot\nbot", {"timezone": "Mars/Olympus"}, "time zone"),
        ("bot\nbot\nbot", {"option_turn_order": "chaos"}, "chaos"),
        ("bot\nbot\nbot", {"option_first_chief": "green"}, "first_chief"),
    ],
)
def test_create_errors_are_shown_and_nothing_is_created(
    embedded: Stack, players: str, extra: dict[str, str], says: str
) -> None:
    log_in_as_organiser(embedded.client)
    reply = post(embedded, "/o/new", {"players": players, **extra})
    page = reply.get_data(as_text=True)
    assert reply.status_code == 400 and "Not created" in page and says in page.replace("&#39;", "'")
    assert "ann@example.org" in page or "Ann" not in players  # the form keeps what was typed
    with embedded.db.session() as session:
        assert session.execute(sa.select(sa.func.count(Game.id))).scalar_one() == 0


def test_hostile_names_are_escaped_on_the_pages(organiser: Stack) -> None:
    hostile = '<script>alert("x")</script>'
    spec = games.GameSpec(
        players=[
            games.PlayerSpec(name=hostile, email="evil@example.org"),
            games.PlayerSpec(name="<img src=x onerror=alert(1)>", email="img@example.org"),
            games.PlayerSpec(bot="random"),
        ],
        seed=3,
        title="<i>title</i>",
    )
    created = games.create_game(organiser.db, spec, now=T0)
    page = organiser.client.get(f"/o/games/{created.game_id}").get_data(as_text=True)
    assert hostile not in page and "<img src=x" not in page and "<i>title</i>" not in page
    assert "&lt;script&gt;alert(" in page and "&lt;img src=x" in page
    listing = organiser.client.get("/o/").get_data(as_text=True)
    assert "<i>title</i>" not in listing and "&lt;i&gt;title&lt;/i&gt;" in listing


def test_the_forms_work(still: Stack) -> None:
    tasks = app_tasks(still)
    created = create_tagged(still.db, 3, seed=7)
    game_id = created.game_id
    with still.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        game.tempo = {**game.tempo, "timezone": "Europe/Rome"}
    base = f"/o/games/{game_id}"
    deadline = deadline_of(still.db, game_id)
    assert post(still, f"{base}/extend", {"hours": "6"}).status_code == 303
    assert deadline_of(still.db, game_id) == deadline + 6 * HOUR
    assert post(still, f"{base}/extend", {"hours": "5"}).status_code == 409  # not a choice offered
    refused = post(still, f"{base}/extend", {"until": "2020-01-01T13:00"})  # earlier than the deadline
    assert refused.status_code == 409 and "later" in refused.get_data(as_text=True)
    local = (NOW + dt.timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    assert post(still, f"{base}/pause", {"until": local}).status_code == 303
    rome = ZoneInfo("Europe/Rome")  # the form's time is read in the game's zone
    assert game_row(still.db, game_id).paused_until == dt.datetime.strptime(local, "%Y-%m-%dT%H:%M").replace(
        tzinfo=rome
    )
    page = still.client.get(base).get_data(as_text=True)
    assert "Paused until" in page and "Resume now" in page
    assert post(still, f"{base}/pause", {"until": "tomorrow"}).status_code == 409
    assert post(still, f"{base}/resume").status_code == 303
    assert game_row(still.db, game_id).paused_until is None
    # replace by a person, resend, abandon
    person = {"colour": "red", "by": "person", "name": "Dee", "email": "dee@ex.org", "confirm": "1"}
    assert post(still, f"{base}/replace", person).status_code == 303
    red = seats_of(still.db, game_id)["red"]
    assert red.player is not None and red.player.email == "dee@ex.org"
    assert post(still, f"{base}/replace", {"colour": "red", "by": "person", "email": "nope"}).status_code == 409
    assert post(still, f"{base}/replace", {"colour": "red", "by": "wizard"}).status_code == 409
    sent = len(tasks.mails)
    assert post(still, f"{base}/resend", {"colour": "yellow"}).status_code == 303
    assert len(tasks.mails) == sent + 1
    (row,) = rows_of(still.db, tasks.mails[-1:])
    assert row.kind == "link"
    no = post(still, f"{base}/abandon", {})  # the confirm page: nothing is abandoned yet
    assert no.status_code == 200 and "Abandon the game?" in no.get_data(as_text=True)
    assert game_row(still.db, game_id).status == "running"
    assert post(still, f"{base}/abandon", {"confirm": "1"}).status_code == 303
    assert game_row(still.db, game_id).status == "abandoned"
    page = still.client.get(f"{base}?done=abandoned").get_data(as_text=True)
    assert "The game is abandoned." in page and "/abandon" not in page and "/pause" not in page


def test_player_rows_are_not_created_by_refusals(embedded: Stack) -> None:
    created = create_tagged(embedded.db, 3, seed=7)
    with pytest.raises(organise.OrganiseError):
        organise.replace_seat(
            embedded.db, created.game_id, "purple", player=games.PlayerSpec(name="Z", email="z@x.org")
        )
    with embedded.db.session() as session:
        assert session.execute(sa.select(Player).where(Player.email == "z@x.org")).scalar_one_or_none() is None


def test_a_bot_seat_given_to_a_person_sends_them_their_link(stack: Stack) -> None:
    created = create_tagged(stack.db, 2, seed=7, bots=1)
    bot = next(s for s in seats_of(stack.db, created.game_id).values() if s.bot)
    newcomer = games.PlayerSpec(name="Dee", email="dee@example.org")
    db, tasks = recording(stack.db)
    result = organise.replace_seat(db, created.game_id, bot.colour, player=newcomer, now=T0 + HOUR)
    assert result.changed
    (row,) = rows_of(stack.db, tasks.mails)  # the bot had answered: nothing owed, the link is sent
    after = seats_of(stack.db, created.game_id)[bot.colour]
    assert row.kind == "link" and row.player_id == after.player_id and after.bot is None
    assert tenures(stack.db, bot.id) == [(None, "random", T0, T0 + HOUR), (after.player_id, None, T0 + HOUR, None)]
    message = compose(stack.db, row.id, mail_settings(stack.settings), now=T0 + HOUR)
    assert links_in(stack, message) == {(bot.id, after.link_generation)}


# --- the organiser link by mail ------------------------------------------------------------------------------------


def organiser_mails(db: Database) -> list[Outbox]:
    with db.session() as session:
        rows = list(session.execute(sa.select(Outbox).where(Outbox.kind == "organiser")).scalars())
        for row in rows:
            session.expunge(row)
        return rows


def test_the_organiser_gets_the_organiser_link_by_mail(stack: Stack) -> None:
    headers = {"Authorization": f"Bearer {stack.settings.api_token}"}
    body = {"players": ["Ann <ann@example.org>", "bot", "bot"], "title": "Friday", "organiser": "Olga <olga@x.org>"}
    reply = stack.client.post("/api/games", json=body, headers=headers)
    assert reply.status_code == 201, reply.get_json()
    game_id = reply.get_json()["id"]
    (row,) = organiser_mails(stack.db)
    assert row.game_id == game_id and row.seat_id is None and row.status == "pending"
    with stack.db.session() as session:
        player = session.get(Player, row.player_id)
        assert player is not None and player.email == "olga@x.org" and player.display_name == "Olga"
    assert game_row(stack.db, game_id).organiser_email == "olga@x.org"
    message = compose(stack.db, row.id, mail_settings(stack.settings), now=T0)
    assert message is not None and message["To"].endswith("<olga@x.org>")
    assert "Friday" in message["Subject"] and "organiser link" in message["Subject"]
    found = re.search(r"(http://\S+/o/link/\S+)", text_of(message))
    assert found is not None
    assert read_organiser_token(stack.settings.secret_key, found.group(1).rsplit("/", 1)[1], 3600) == game_id
    other = stack.app.test_client()  # the link opens the game's organiser page, without logging in
    path = found.group(1).removeprefix(stack.settings.base_url)
    assert other.get(path).status_code == 303
    assert other.get(f"/o/games/{game_id}").status_code == 200
    # without an organiser e-mail: no such mail
    plain = {"players": ["bot", "bot", "bot"]}
    assert stack.client.post("/api/games", json=plain, headers=headers).status_code == 201
    assert len(organiser_mails(stack.db)) == 1
    refused = stack.client.post("/api/games", json={**plain, "organiser": "bot"}, headers=headers)
    assert refused.status_code == 400


def test_the_create_form_takes_the_organisers_email(organiser: Stack) -> None:
    tasks = app_tasks(organiser)
    assert 'name="organiser_email"' in organiser.client.get("/o/new").get_data(as_text=True)
    form = {"players": "bot\nbot\nbot", "deadline": "24h", "organiser_email": "oz@x.org"}
    reply = post(organiser, "/o/new", form)
    assert reply.status_code == 303, reply.get_data(as_text=True)
    (row,) = organiser_mails(organiser.db)
    assert row.id in tasks.mails  # queued with the game's other mail
    assert post(organiser, "/o/new", {"players": "bot\nbot\nbot", "deadline": "24h"}).status_code == 303
    assert len(organiser_mails(organiser.db)) == 1


def _zones(db: Database) -> dict[str, str]:
    with db.session() as session:
        return {email: zone for email, zone in session.execute(sa.select(Player.email, Player.timezone))}


def test_people_new_to_the_server_get_the_games_time_zone_and_known_people_keep_theirs(stack: Stack) -> None:
    """A player the organiser adds, whom the server did not know, sees the game's times in the game's zone
    (the organiser's choice), not in UTC, until they choose their own; a known player's own zone is kept."""
    with stack.db.session() as session:
        session.add(Player(email="kim@example.org", display_name="Kim", timezone="Asia/Tokyo"))
    players = [games.parse_player(p) for p in ("Ann <ann@example.org>", "Kim <kim@example.org>", "bot")]
    spec = games.GameSpec(players=players, seed=7, timezone="Europe/Rome", organiser_email="oz@example.org")
    created = games.create_game(stack.db, spec, now=T0)
    zones = _zones(stack.db)
    assert zones == {"ann@example.org": "Europe/Rome", "kim@example.org": "Asia/Tokyo", "oz@example.org": "Europe/Rome"}
    # a newcomer replacing a seat, and a substitute the seat is offered to, are in the game's zone too
    organise.replace_seat(stack.db, created.game_id, "blue", player=games.PlayerSpec(name="Dee", email="dee@x.org"))
    substitutes.offer(stack.db, created.game_id, "red", to=games.PlayerSpec(name="Eve", email="eve@x.org"))
    zones = _zones(stack.db)
    assert zones["dee@x.org"] == "Europe/Rome" and zones["eve@x.org"] == "Europe/Rome"
