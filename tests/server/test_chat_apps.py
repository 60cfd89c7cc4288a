"""The chat-app channel, through apprise (the library a real Discord, Telegram, Matrix or ntfy address goes
through) against a local HTTP receiver (``tests.chat_receiver``): an address added from the preferences page (bad,
foreign and private addresses refused, nothing stored), one message per window with nothing secret in it and a link
to the decision, "send me a test", retries while the app is down, and the address removed after repeated failures;
and the ladder: notifications first, the chat app after the player's delay, the mail last, each only while the
decision is unanswered."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
import sqlalchemy as sa

from engine.data import CARDS
from server.mail.push import send_nudges
from server.mail.send import send_one
from server.models import Device, MailKind, Nudge, OutboxStatus
from server.services.notify import devices, nudges
from server.text.glossary import card_name
from tests.chat_receiver import ChatReceiver
from tests.conftest import Stack
from tests.push_service import PushService
from tests.server.test_push import answer_first, game, nudge_rows, player, subscribed
from tests.support import T0, Sink, all_rows, post_form, rows_of_kind

EMAILS = ["ann@example.org", "bob@example.org", "cy@example.org"]


@pytest.fixture
def receiver() -> Iterator[ChatReceiver]:
    running = ChatReceiver().start()
    yield running
    running.stop()


@pytest.fixture
def service() -> Iterator[PushService]:
    running = PushService().start()
    yield running
    running.stop()


def test_a_chat_app_is_added_from_the_hub_and_bad_addresses_are_refused(
    embedded: Stack, receiver: ChatReceiver
) -> None:
    from server.services.links import player_token

    ann = player(embedded.db, "ann@example.org")
    bob = player(embedded.db, "bob@example.org")
    hub = player_token(embedded.settings.secret_key, ann, 1)
    address = f"json://{receiver.address}/hook"
    added = post_form(embedded.client, embedded.app, f"/p/{hub}/chat", {"address": address, "name": "Discord"})
    assert added.status_code == 303 and "devices=added" in added.location
    html = embedded.client.get(f"/p/{hub}?devices=added").get_data(as_text=True)
    assert "<strong>Discord</strong> · a chat app" in html and "send it a test" in html
    assert address not in html  # the address is a secret: never shown back
    before = all_rows(embedded.db)
    for bad in ("", "no address", "bogus://x", "json://a b", "json://x\ny", "x" * 1001):
        refused = post_form(embedded.client, embedded.app, f"/p/{hub}/chat", {"address": bad, "name": "x"})
        assert refused.status_code == 400 and "Not saved:" in refused.get_data(as_text=True), bad
    bobs = player_token(embedded.settings.secret_key, bob, 1)
    taken = post_form(embedded.client, embedded.app, f"/p/{bobs}/chat", {"address": address})
    assert taken.status_code == 409
    assert all_rows(embedded.db) == before
    for private in ("json://127.0.0.1/x", "json://10.1.2.3/x", "ntfy://localhost/topic", "json://[::1]/x"):
        with pytest.raises(devices.DeviceError):
            devices.add_chat(embedded.db, ann, private, "x", T0, secure=True)
    devices.add_chat(embedded.db, ann, "ntfys://ntfy.sh/deadmail-ann", "ntfy", T0, secure=True)
    devices.add_chat(embedded.db, ann, "discord://1234567/abcdefg", "", T0, secure=True)


def test_a_decision_is_told_in_the_chat_app_once_per_window(stack: Stack, receiver: ChatReceiver) -> None:
    ann = player(stack.db, "ann@example.org", language="it", timezone="Europe/Rome")
    devices.add_chat(stack.db, ann, f"json://{receiver.address}/hook", "Telegram", T0, secure=False)
    from tests.support import recording

    db, recorder = recording(stack.db)
    game_id = game(db, EMAILS)
    assert list(send_nudges(stack.db, stack.settings, T0, ids=recorder.pushes).values()) == ["sent"]
    assert send_nudges(stack.db, stack.settings, T0, ids=recorder.pushes) == {}
    [message] = receiver.messages
    assert message.path == "/hook" and message.body["title"] == f"Mall of Horror, partita {game_id}"
    text = message.body["message"]
    assert text.startswith("La tua decisione: ") and "Rispondi entro" in text and "via=chat" in text
    assert not [c for c in CARDS for lang in ("en", "it", "pl") if card_name(lang, c) in text]


def test_send_me_a_test_and_an_app_that_keeps_failing_is_removed(embedded: Stack, receiver: ChatReceiver) -> None:
    ann = player(embedded.db, "ann@example.org")
    device = devices.add_chat(embedded.db, ann, f"json://{receiver.address}/hook", "ntfy", T0, secure=False)
    test = nudges.add_test(embedded.db, ann, device, T0)
    assert test is not None
    assert list(send_nudges(embedded.db, embedded.settings, T0, ids=[test]).values()) == ["sent"]
    assert receiver.messages[0].body["message"].startswith("Notifications reach this device")
    receiver.fail_next(500, count=1000)
    for n in range(devices.MAX_FAILURES):
        again = nudges.add_test(embedded.db, ann, device, T0 + timedelta(seconds=n + 1))
        assert again is not None
        at = T0
        for _try in range(nudges.MAX_ATTEMPTS):
            at += timedelta(hours=2)
            results = send_nudges(embedded.db, embedded.settings, at)
        assert list(results.values()) == ["failed"]
    with embedded.db.session() as session:
        assert session.execute(sa.select(Device)).scalars().all() == []  # removed after three notifications failed


def test_the_ladder_push_then_chat_then_mail_each_only_while_unanswered(
    stack: Stack, service: PushService, receiver: ChatReceiver
) -> None:
    for email in EMAILS:
        someone = player(stack.db, email, notify_mode="first", mail_after=20)
        subscribed(stack, service, someone)
        devices.add_chat(stack.db, someone, f"json://{receiver.address}/{someone}", "chat", T0, secure=False)
    game_id = game(stack.db, EMAILS)
    rows = nudge_rows(stack.db)
    kinds = {n.key.rsplit(">", 1)[1]: n for n in rows}
    with stack.db.session() as session:
        device_kinds = {str(d.id): d.kind for d in session.execute(sa.select(Device)).scalars()}
    steps = sorted({(device_kinds[k], n.next_attempt_at - T0) for k, n in kinds.items()})
    assert steps == [("chat", timedelta(minutes=20)), ("push", timedelta(0))]
    mails = rows_of_kind(stack.db, MailKind.TURN)
    assert {m.next_attempt_at - T0 for m in mails} == {timedelta(minutes=40)}

    assert sorted(set(send_nudges(stack.db, stack.settings, T0).values())) == ["sent"]
    answered = answer_first(stack.db, game_id, T0 + timedelta(minutes=10))
    results = send_nudges(stack.db, stack.settings, T0 + timedelta(minutes=20))
    chat = {n.seat_id: results[n.id] for n in nudge_rows(stack.db) if n.id in results}
    assert chat[answered] == "skipped" and sorted(chat.values()).count("sent") == len(EMAILS) - 1
    assert len(receiver.messages) == len(EMAILS) - 1
    at = T0 + timedelta(minutes=40)
    mailed = {m.seat_id: send_one(stack.db, m.id, Sink(), stack.settings, at) for m in mails}
    assert mailed[answered] == "skipped" and list(mailed.values()).count("sent") == len(EMAILS) - 1
    assert {n.status for n in nudge_rows(stack.db)} <= {OutboxStatus.SENT, OutboxStatus.SKIPPED}
    assert all(isinstance(n, Nudge) for n in nudge_rows(stack.db))
