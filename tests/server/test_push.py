"""Notifications to devices through Web Push, against the tests' local push service (``tests.push_service``: it
checks the VAPID token and decrypts every payload with the subscription's key, as a vendor's service does), on both
databases: one notification per window and device, written with the window and sent after commit; its text in the
reader's language and zone with nothing secret in it; held through quiet hours; 404/410 removes the device, 429 and
5xx are tried again (never sooner than Retry-After); a worker dying mid-batch repeats no notification already sent
and loses none; "notifications first" holds the mail and drops it once the decision is answered."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

import engine
from engine.data import CARDS
from server.db import Database
from server.mail.push import Pusher, send_nudges
from server.mail.send import send_one
from server.models import Device, MailKind, Nudge, OutboxStatus, Player
from server.services.notify import devices, nudges
from server.services.play import games, turns
from server.text.glossary import card_name
from tests.conftest import Stack
from tests.push_service import PushService
from tests.support import T0, Sink, engine_of, open_window, recording, rows_of_kind


@pytest.fixture
def service() -> Iterator[PushService]:
    running = PushService().start()
    yield running
    running.stop()


def player(db: Database, email: str, **fields: Any) -> int:
    with db.session() as session:
        person = Player(email=email, display_name=email.split("@", maxsplit=1)[0].title(), **fields)
        session.add(person)
        session.flush()
        return person.id


def subscribed(stack: Stack, service: PushService, player_id: int, name: str = "Phone") -> dict[str, Any]:
    subscription = service.subscribe(stack.settings.vapid_public_key)
    devices.subscribe(stack.db, player_id, subscription, name, T0, secure=False)
    return subscription


def game(db: Database, emails: list[str], now: datetime = T0, **spec: Any) -> int:
    people = [games.PlayerSpec(name=e.split("@")[0].title(), email=e) for e in emails]
    return games.create_game(db, games.GameSpec(players=people, seed=7, **spec), now=now).game_id


def payloads(service: PushService, endpoint: str) -> list[dict[str, Any]]:
    return [json.loads(r.payload) for r in service.received if r.endpoint == endpoint]


def answer_all(db: Database, game_id: int, now: datetime) -> None:
    """Everyone owing answers in the open window (as random bots would); the window advances."""
    window = open_window(db, game_id)
    assert window is not None
    eng = engine_of(db, game_id)
    for row in window.requests:
        if row.answered_at is None:
            req = next(r for r in eng.pending() if r.player == row.seat.colour)
            value = engine.bots.RandomBot(3).decide(eng, req)
            if turns.submit_answer(db, row.seat_id, row.kind, value, window_number=window.number, now=now).complete:
                break
    assert turns.advance_window(db, window.id, now=now)


def answer_first(db: Database, game_id: int, now: datetime) -> int:
    """The first seat owing an answer in the open window answers (as a random bot would); its seat id."""
    window = open_window(db, game_id)
    assert window is not None
    eng = engine_of(db, game_id)
    row = next(r for r in window.requests if r.answered_at is None)
    req = next(r for r in eng.pending() if r.player == row.seat.colour)
    value = engine.bots.RandomBot(1).decide(eng, req)
    turns.submit_answer(db, row.seat_id, row.kind, value, window_number=window.number, now=now)
    return row.seat_id


def nudge_rows(db: Database) -> list[Nudge]:
    with db.session() as session:
        rows = list(session.execute(sa.select(Nudge).order_by(Nudge.id)).scalars())
        session.expunge_all()
        return rows


def test_a_decision_asked_sends_one_notification_per_window_to_each_device_and_nothing_secret(
    stack: Stack, service: PushService
) -> None:
    ann = player(stack.db, "ann@example.org", timezone="Europe/Rome")
    phone, laptop = subscribed(stack, service, ann, "Phone"), subscribed(stack, service, ann, "Laptop")
    db, recorder = recording(stack.db)
    game_id = game(db, ["ann@example.org", "bob@example.org", "cy@example.org"])
    window = open_window(stack.db, game_id)
    assert window is not None
    # written with the window, sent after commit: one row per device, no mail for the others' devices
    assert len(recorder.pushes) == 2 and {n.kind for n in nudge_rows(stack.db)} == {MailKind.TURN}

    results = send_nudges(stack.db, stack.settings, T0, ids=recorder.pushes)
    assert sorted(results.values()) == ["sent", "sent"]
    assert send_nudges(stack.db, stack.settings, T0, ids=recorder.pushes) == {}  # claimed once: never twice
    [shown] = payloads(service, phone["endpoint"])
    [other] = payloads(service, laptop["endpoint"])
    assert {**other, "url": ""} == {**shown, "url": ""}
    assert set(shown) == {"title", "body", "url", "tag"}
    assert shown["title"] == f"Mall of Horror, game {game_id}" and shown["tag"] == f"game-{game_id}"
    assert shown["body"].startswith("Your decision: ") and "CET" in shown["body"]  # her zone, Rome
    assert shown["url"].startswith("http://deadmail.test/s/") and "via=push" in shown["url"]
    taken = service.received[0]
    assert taken.topic == f"game-{game_id}" and taken.urgency == "normal"
    assert abs(taken.ttl - (window.deadline - T0).total_seconds()) < 5  # the time to live ends at the deadline
    # nothing secret: no card of any kind, by its name in any language
    words = json.dumps(shown, ensure_ascii=False)
    assert not [c for c in CARDS for lang in ("en", "it", "pl") if card_name(lang, c) in words]
    with stack.db.session() as session:
        assert all(d.reached_at == T0 for d in session.execute(sa.select(Device)).scalars())

    # the next window: one more each, whatever the number of requests in it
    answer_all(stack.db, game_id, T0 + timedelta(minutes=5))
    send_nudges(stack.db, stack.settings, T0 + timedelta(minutes=5))
    assert len(payloads(service, phone["endpoint"])) <= 2
    kinds = [n.kind for n in nudge_rows(stack.db)]
    assert kinds.count(MailKind.TURN) <= 4


@pytest.mark.parametrize(
    ("lang", "words"), [("it", ("Mall of Horror, partita", "Rispondi entro")), ("pl", ("gra", "Odpowiedz do"))]
)
def test_the_text_is_in_the_readers_language(
    stack: Stack, service: PushService, lang: str, words: tuple[str, str]
) -> None:
    ann = player(stack.db, "ann@example.org", language=lang, timezone="Europe/Warsaw")
    endpoint = subscribed(stack, service, ann)["endpoint"]
    db, recorder = recording(stack.db)
    game(db, ["ann@example.org", "bob@example.org", "cy@example.org"])
    send_nudges(stack.db, stack.settings, T0, ids=recorder.pushes)
    [shown] = payloads(service, endpoint)
    text = shown["title"] + " " + shown["body"]
    assert all(word in text for word in words), text
    assert "Your decision" not in text


def test_quiet_hours_hold_a_notification_until_they_end(stack: Stack, service: PushService) -> None:
    # T0 is 12:00 UTC: 21:00 in Tokyo, inside quiet hours from 20:00 to 08:00
    ann = player(stack.db, "ann@example.org", timezone="Asia/Tokyo", quiet_start="20:00", quiet_end="08:00")
    endpoint = subscribed(stack, service, ann)["endpoint"]
    db, recorder = recording(stack.db)
    game(db, ["ann@example.org", "bob@example.org", "cy@example.org"])
    assert list(send_nudges(stack.db, stack.settings, T0, ids=recorder.pushes).values()) == ["held"]
    [row] = nudge_rows(stack.db)
    assert row.status == OutboxStatus.PENDING and row.attempts == 0
    assert row.next_attempt_at == T0 + timedelta(hours=11)  # 08:00 in Tokyo
    assert send_nudges(stack.db, stack.settings, T0 + timedelta(hours=5)) == {} and not service.received
    assert list(send_nudges(stack.db, stack.settings, row.next_attempt_at).values()) == ["sent"]
    assert len(payloads(service, endpoint)) == 1


def test_a_gone_subscription_is_removed_and_busy_services_are_tried_again(stack: Stack, service: PushService) -> None:
    ann = player(stack.db, "ann@example.org")
    gone = subscribed(stack, service, ann, "Old phone")["endpoint"]
    kept = subscribed(stack, service, ann, "New phone")["endpoint"]
    service.unsubscribe(gone)
    service.fail_next(429, retry_after="120")
    db, recorder = recording(stack.db)
    game(db, ["ann@example.org", "bob@example.org", "cy@example.org"])
    results = send_nudges(stack.db, stack.settings, T0, ids=recorder.pushes)
    assert sorted(results.values()) == ["gone", "retry"]
    with stack.db.session() as session:
        assert [d.endpoint for d in session.execute(sa.select(Device)).scalars()] == [kept]
    [row] = nudge_rows(stack.db)  # the gone device's rows went with it
    assert row.status == OutboxStatus.PENDING and row.next_attempt_at >= T0 + timedelta(seconds=120)
    assert "429" in (row.last_error or "")
    assert send_nudges(stack.db, stack.settings, T0 + timedelta(seconds=60)) == {}  # Retry-After is respected
    service.fail_next(500)
    assert list(send_nudges(stack.db, stack.settings, row.next_attempt_at).values()) == ["retry"]
    [row] = nudge_rows(stack.db)
    assert list(send_nudges(stack.db, stack.settings, row.next_attempt_at).values()) == ["sent"]
    assert len(payloads(service, kept)) == 1 and [r.status for r in nudge_rows(stack.db)] == ["sent"]


class Dying(Pusher):
    """A worker that dies (the process is gone: nothing after it runs) as it is about to send its ``at``-th
    notification; one notification in flight at a time (with more, those in flight when it dies may go again)."""

    def __init__(self, settings: Any, at: int) -> None:
        super().__init__(settings, concurrency=1)
        self.at, self.count = at, 0

    def send(self, pending: Any, note: Any) -> Any:
        self.count += 1
        if self.count >= self.at:  # dead: nothing of it runs any more
            raise SystemExit("killed")
        return super().send(pending, note)


def test_a_worker_dying_mid_batch_repeats_no_notification_and_loses_none(stack: Stack, service: PushService) -> None:
    endpoints = []
    emails = [f"p{i}@example.org" for i in range(4)]
    for email in emails:
        endpoints.append(subscribed(stack, service, player(stack.db, email))["endpoint"])
    db, recorder = recording(stack.db)
    game(db, emails)
    assert len(recorder.pushes) == 4
    with pytest.raises(SystemExit):
        send_nudges(stack.db, stack.settings, T0, ids=recorder.pushes, pusher=Dying(stack.settings, 3))
    assert len(service.received) == 2
    # a task redelivered at once finds its rows claimed: nothing is sent again
    assert send_nudges(stack.db, stack.settings, T0, ids=recorder.pushes) == {}
    later = T0 + nudges.STUCK_AFTER + timedelta(seconds=1)
    assert sorted(send_nudges(stack.db, stack.settings, later).values()) == ["sent", "sent"]
    assert sorted(len(payloads(service, e)) for e in endpoints) == [1, 1, 1, 1]


def test_notifications_first_holds_the_mail_and_drops_it_once_answered(stack: Stack, service: PushService) -> None:
    emails = ["ann@example.org", "bob@example.org", "cy@example.org"]
    for email in emails:
        subscribed(stack, service, player(stack.db, email, notify_mode="first", mail_after=30))
    db, recorder = recording(stack.db)
    game_id = game(db, emails)
    turns_mail = rows_of_kind(stack.db, MailKind.TURN)
    assert turns_mail and all(r.next_attempt_at == T0 + timedelta(minutes=30) for r in turns_mail)
    assert all(r.payload.get("unless_answered") for r in turns_mail)
    assert send_nudges(stack.db, stack.settings, T0, ids=recorder.pushes)
    answered = answer_first(stack.db, game_id, T0)  # one player answers at once; the others do not
    at = T0 + timedelta(minutes=30)
    results = {r.seat_id: send_one(stack.db, r.id, Sink(), stack.settings, at) for r in turns_mail}
    assert results[answered] == "skipped"
    assert sorted(results.values()) == ["sent", "sent", "skipped"]


def test_mail_only_players_get_no_notification(stack: Stack, service: PushService) -> None:
    ann = player(stack.db, "ann@example.org", notify_mode="mail")
    subscribed(stack, service, ann)
    db, recorder = recording(stack.db)
    game(db, ["ann@example.org", "bob@example.org", "cy@example.org"])
    assert recorder.pushes == [] and nudge_rows(stack.db) == []
    assert all(r.next_attempt_at == T0 for r in rows_of_kind(stack.db, MailKind.TURN))


def test_a_push_service_that_hangs_holds_the_sender_no_longer_than_its_timeout(
    stack: Stack, service: PushService
) -> None:
    """A service that takes the connection and never answers: the try fails after the pusher's timeout and is tried
    again later; the batch goes on."""
    import socket
    import threading
    import time as clock

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    taken: list[socket.socket] = []
    threading.Thread(target=lambda: taken.append(listener.accept()[0]), daemon=True).start()
    ann = player(stack.db, "ann@example.org")
    keys = service.subscribe(stack.settings.vapid_public_key)["keys"]  # (a browser's keys, for another endpoint)
    endpoint = f"http://127.0.0.1:{listener.getsockname()[1]}/push/hangs"
    devices.subscribe(stack.db, ann, {"endpoint": endpoint, "keys": keys}, "hangs", T0, secure=False)
    db, recorder = recording(stack.db)
    game(db, ["ann@example.org", "bob@example.org", "cy@example.org"])
    started = clock.monotonic()
    pusher = Pusher(stack.settings, timeout=(1.0, 1.0))
    results = send_nudges(stack.db, stack.settings, T0, ids=recorder.pushes, pusher=pusher)
    pusher.close()
    assert clock.monotonic() - started < 5
    assert list(results.values()) == ["retry"]
    [row] = nudge_rows(stack.db)
    assert "Timeout" in (row.last_error or "") and row.status == OutboxStatus.PENDING
    for connection in taken:
        connection.close()
    listener.close()


def test_a_reminder_never_goes_to_a_device_known_not_to_reach_the_player(stack: Stack, service: PushService) -> None:
    from server.services.mailflow import outbox

    ann = player(stack.db, "ann@example.org")
    subscribed(stack, service, ann, "Phone")
    subscribed(stack, service, ann, "Old tablet")
    with stack.db.session() as session:  # the tablet's last notification could not be delivered
        session.execute(sa.update(Device).where(Device.name == "Old tablet").values(failures=1))
    game_id = game(stack.db, ["ann@example.org", "bob@example.org", "cy@example.org"])
    window = open_window(stack.db, game_id)
    assert window is not None
    seat = next(r.seat_id for r in window.requests if r.seat.player_id == ann)
    with stack.db.session() as session:
        items = [{"seat": seat, "window": window.number, "step": 1}]
        outbox.add(session, [outbox.player_mail(ann, MailKind.REMINDER, "remind:test", {"items": items}, T0)])
    with stack.db.session() as session:
        kinds = session.execute(sa.select(Nudge.kind, Device.name).join(Device).order_by(Nudge.id)).all()
    assert ("reminder", "Old tablet") not in kinds and ("reminder", "Phone") in kinds
    assert ("turn", "Old tablet") in kinds  # a decision's own notification still tries it (up to three failures)
