"""The tests' local push service (``tests.push_service``) takes what pywebpush sends with the server's VAPID key, as
a browser vendor's service does, and refuses what such a service refuses: the tests of the notifications rest on it,
so it is tested itself."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from py_vapid import Vapid02
from pywebpush import WebPushException, webpush

from server.config import Settings, prepare_data_dir
from tests.push_service import PushService

SUBJECT = {"sub": "mailto:ops@deadmail.test"}


@pytest.fixture
def service() -> Iterator[PushService]:
    running = PushService().start()
    yield running
    running.stop()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return prepare_data_dir(Settings.from_env({"DEADMAIL_DATA_DIR": str(tmp_path / "data")}))


def test_a_message_signed_and_encrypted_by_pywebpush_is_taken_and_decrypted(
    service: PushService, settings: Settings
) -> None:
    subscription = service.subscribe(settings.vapid_public_key)
    answer = webpush(
        subscription,
        '{"game": 7, "asked": "vote"}',
        vapid_private_key=settings.vapid_private_key,
        vapid_claims=dict(SUBJECT),
        ttl=3600,
        headers={"Urgency": "high", "Topic": "game-7"},
    )
    assert not isinstance(answer, str) and answer.status_code == 201
    [taken] = service.received
    assert taken.payload == b'{"game": 7, "asked": "vote"}' and taken.endpoint == subscription["endpoint"]
    assert (taken.ttl, taken.urgency, taken.topic) == (3600, "high", "game-7")
    assert taken.claims["aud"] == service.origin and taken.claims["sub"] == SUBJECT["sub"]


def test_what_a_push_service_refuses_is_refused(service: PushService, settings: Settings, tmp_path: Path) -> None:
    subscription = service.subscribe(settings.vapid_public_key)
    other = prepare_data_dir(Settings.from_env({"DEADMAIL_DATA_DIR": str(tmp_path / "other")}))
    with pytest.raises(WebPushException) as wrong_key:  # signed by another server's key
        webpush(subscription, "x", vapid_private_key=other.vapid_private_key, vapid_claims=dict(SUBJECT), ttl=60)
    assert wrong_key.value.response is not None and wrong_key.value.response.status_code == 403
    with pytest.raises(WebPushException) as unsigned:
        webpush(subscription, "x", ttl=60)
    assert unsigned.value.response is not None and unsigned.value.response.status_code == 401

    vapid = Vapid02.from_string(settings.vapid_private_key)
    for claims, why in [
        ({**SUBJECT, "aud": "https://elsewhere.example", "exp": int(time.time()) + 60}, "audience"),
        ({**SUBJECT, "aud": service.origin, "exp": int(time.time()) - 1}, "expired"),
        ({**SUBJECT, "aud": service.origin, "exp": int(time.time()) + 2 * 24 * 3600}, "more than a day"),
    ]:
        header = vapid.sign(claims)["Authorization"]
        sent = requests.post(
            subscription["endpoint"], data=b"", headers={"Authorization": header, "TTL": "60"}, timeout=5
        )
        assert sent.status_code == 403 and why in sent.text, (claims, sent.text)

    twin = service.subscribe(settings.vapid_public_key)  # encrypted for another subscription's keys
    with pytest.raises(WebPushException) as unreadable:
        webpush({**subscription, "keys": twin["keys"]}, "x", settings.vapid_private_key, dict(SUBJECT), ttl=60)
    assert unreadable.value.response is not None and unreadable.value.response.status_code == 400

    service.unsubscribe(subscription["endpoint"])
    with pytest.raises(WebPushException) as gone:
        webpush(subscription, "x", vapid_private_key=settings.vapid_private_key, vapid_claims=dict(SUBJECT), ttl=60)
    assert gone.value.response is not None and gone.value.response.status_code == 410
    assert service.received == []


def test_it_fails_as_asked_then_takes_the_message(service: PushService, settings: Settings) -> None:
    subscription = service.subscribe(settings.vapid_public_key)
    service.fail_next(429, Retry_After="3")
    service.fail_next(500)
    send = {"vapid_private_key": settings.vapid_private_key, "ttl": 60}
    with pytest.raises(WebPushException) as busy:
        webpush(subscription, "hello", vapid_claims=dict(SUBJECT), **send)  # type: ignore[arg-type]
    assert busy.value.response is not None and busy.value.response.status_code == 429
    assert busy.value.response.headers["Retry-After"] == "3"
    with pytest.raises(WebPushException) as broken:
        webpush(subscription, "hello", vapid_claims=dict(SUBJECT), **send)  # type: ignore[arg-type]
    assert broken.value.response is not None and broken.value.response.status_code == 500
    webpush(subscription, "hello", vapid_claims=dict(SUBJECT), **send)  # type: ignore[arg-type]
    assert [r.payload for r in service.received] == [b"hello"]
