"""A player's devices from the web: "Notify me on this device" posts a browser's push subscription from a seat page
or the preferences page (stored for the link's player only); malformed and foreign subscriptions, revoked links and
floods get a clear 4xx and store nothing; the preferences page lists each device with when a notification last
reached it, removes one, sends a test; how the player is told is saved from its form; the installable table's
manifests and service worker; a notification's link records the channel that reached the player."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from engine.bots import RandomBot
from server.mail.push import send_nudges
from server.models import Device, MailKind, Nudge, Player, RequestRow, Seat, Window, utcnow
from server.services import replies
from server.services.links import player_token, seat_token
from server.services.mailflow.reply_address import ReplyTo
from server.services.notify import devices
from server.services.play import games
from server.services.play.seats import revoke_links
from tests.conftest import Stack
from tests.push_service import PushService, b64
from tests.support import (
    T0,
    all_rows,
    compose,
    csrf_token,
    engine_of,
    html_of,
    log_in_as_organiser,
    open_window,
    post_form,
    rows_of_kind,
    text_of,
)

EMAILS = ["ann@example.org", "bob@example.org", "cy@example.org"]


@pytest.fixture
def service() -> Iterator[PushService]:
    running = PushService().start()
    yield running
    running.stop()


def table(stack: Stack) -> tuple[dict[str, int], dict[str, int]]:
    """A game of Ann, Bob and Cy: their seat ids and player ids by e-mail address."""
    people = [games.PlayerSpec(name=e.split("@")[0].title(), email=e) for e in EMAILS]
    games.create_game(stack.db, games.GameSpec(players=people, seed=7), now=utcnow())
    with stack.db.session() as session:
        players = {p.email: p.id for p in session.execute(sa.select(Player)).scalars()}
        rows = session.execute(sa.text("SELECT id, player_id FROM seats ORDER BY position")).all()
    by_player = {player_id: seat_id for seat_id, player_id in rows}
    return {email: by_player[pid] for email, pid in players.items()}, players


def rotate_link(db: Any, seat_id: int) -> None:
    """Revoke every link of the seat (its links of generation 1 open nothing any more)."""
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        revoke_links(seat)


def post_json(stack: Stack, path: str, body: Any) -> Any:
    token = csrf_token(stack.client, stack.app)
    return stack.client.post(path, json=body, headers={"X-CSRFToken": token})


def stored(stack: Stack) -> list[tuple[int, str, str]]:
    with stack.db.session() as session:
        rows = session.execute(sa.select(Device).order_by(Device.id)).scalars()
        return [(d.player_id, d.name, d.endpoint) for d in rows]


def test_a_seat_page_subscribes_its_players_device(stack: Stack, service: PushService) -> None:
    seats, players = table(stack)
    token = seat_token(stack.settings.secret_key, seats["ann@example.org"], 1)
    page = stack.client.get(f"/s/{token}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Notify me on this device" in html and f'data-key="{stack.settings.vapid_public_key}"' in html
    assert f'href="/s/{token}/manifest.webmanifest"' in html
    subscription = service.subscribe(stack.settings.vapid_public_key)
    answer = post_json(stack, f"/s/{token}/devices", {"subscription": subscription, "name": "Ann's phone"})
    assert answer.status_code == 201 and answer.get_json()["message"] == "Notifications are on for this device."
    assert stored(stack) == [(players["ann@example.org"], "Ann's phone", subscription["endpoint"])]
    # the same browser again: the same device, renamed, not a second one
    again = post_json(stack, f"/s/{token}/devices", {"subscription": subscription, "name": "Phone"})
    assert again.status_code == 201 and again.get_json()["id"] == answer.get_json()["id"]
    assert [name for _, name, _ in stored(stack)] == ["Phone"]


def bad_subscriptions(service: PushService, key: str) -> dict[str, Any]:
    good = service.subscribe(key)
    keys = good["keys"]
    return {
        "not an object": ["https://push.example/1"],
        "no endpoint": {"keys": keys},
        "endpoint not text": {"endpoint": 7, "keys": keys},
        "endpoint too long": {"endpoint": "https://push.example/" + "a" * 1000, "keys": keys},
        "not a web address": {"endpoint": "ftp://push.example/1", "keys": keys},
        "a line break": {"endpoint": "https://push.example/1\r\nX: y", "keys": keys},
        "no keys": {"endpoint": good["endpoint"]},
        "short p256dh": {"endpoint": good["endpoint"], "keys": {**keys, "p256dh": keys["p256dh"][:-4]}},
        "long auth": {"endpoint": good["endpoint"], "keys": {**keys, "auth": b64(bytes(17))}},
        "auth not base64": {"endpoint": good["endpoint"], "keys": {**keys, "auth": "!" * 22}},
        "not a P-256 point": {"endpoint": good["endpoint"], "keys": {**keys, "p256dh": b64(b"\x04" + bytes(64))}},
    }


def test_malformed_subscriptions_are_refused_with_a_message_and_nothing_stored(
    embedded: Stack, service: PushService
) -> None:
    seats, _players = table(embedded)
    token = seat_token(embedded.settings.secret_key, seats["ann@example.org"], 1)
    before = all_rows(embedded.db)
    for why, subscription in bad_subscriptions(service, embedded.settings.vapid_public_key).items():
        answer = post_json(embedded, f"/s/{token}/devices", {"subscription": subscription, "name": "x"})
        assert answer.status_code == 400, why
        assert answer.get_json()["error"], why
    for body in ([1, 2], "text", {"subscription": None}, {"name": "x"}):
        assert post_json(embedded, f"/s/{token}/devices", body).status_code == 400
    raw = embedded.client.post(
        f"/s/{token}/devices", data=b"{not json", headers={"X-CSRFToken": csrf_token(embedded.client, embedded.app)}
    )
    assert raw.status_code == 400
    name = {"subscription": service.subscribe(embedded.settings.vapid_public_key), "name": "a\nb"}
    assert post_json(embedded, f"/s/{token}/devices", name).status_code == 400
    assert all_rows(embedded.db) == before


def test_in_production_an_endpoint_must_be_https_on_a_public_host(embedded: Stack, service: PushService) -> None:
    _seats, players = table(embedded)
    ann = players["ann@example.org"]
    keys = service.subscribe(embedded.settings.vapid_public_key)["keys"]
    for endpoint in (
        "http://push.example.com/1",  # not https
        "https://127.0.0.1/push/1",  # this machine
        "https://10.0.0.7/push/1",  # a private network
        "https://[::1]/push/1",
        "https://localhost/push/1",
        "https://redis.internal/push/1",
    ):
        with pytest.raises(devices.DeviceError):
            devices.subscribe(embedded.db, ann, {"endpoint": endpoint, "keys": keys}, "x", T0, secure=True)
    devices.subscribe(
        embedded.db, ann, {"endpoint": "https://fcm.googleapis.com/fcm/send/abc", "keys": keys}, "", T0, secure=True
    )
    assert [name for _, name, _ in stored(embedded)] == ["Device"]


def test_another_players_device_a_revoked_link_and_a_flood_are_refused(stack: Stack, service: PushService) -> None:
    seats, players = table(stack)
    ann = seat_token(stack.settings.secret_key, seats["ann@example.org"], 1)
    bob = seat_token(stack.settings.secret_key, seats["bob@example.org"], 1)
    subscription = service.subscribe(stack.settings.vapid_public_key)
    assert post_json(stack, f"/s/{ann}/devices", {"subscription": subscription}).status_code == 201
    cy = seat_token(stack.settings.secret_key, seats["cy@example.org"], 1)
    rotate_link(stack.db, seats["bob@example.org"])
    before = all_rows(stack.db)
    taken = post_json(stack, f"/s/{cy}/devices", {"subscription": subscription, "name": "mine now"})
    assert taken.status_code == 409 and "another player" in taken.get_json()["error"]
    other = service.subscribe(stack.settings.vapid_public_key)
    assert post_json(stack, f"/s/{bob}/devices", {"subscription": other}).status_code == 403
    assert all_rows(stack.db) == before
    hub = player_token(stack.settings.secret_key, players["ann@example.org"], 1)
    for _ in range(devices.MAX_DEVICES - 1):
        new = service.subscribe(stack.settings.vapid_public_key)
        assert post_json(stack, f"/p/{hub}/devices", {"subscription": new}).status_code == 201
    full = post_json(stack, f"/p/{hub}/devices", {"subscription": service.subscribe(stack.settings.vapid_public_key)})
    assert full.status_code == 429 and "remove one first" in full.get_json()["error"]
    assert len(stored(stack)) == devices.MAX_DEVICES


def test_the_preferences_page_lists_tests_and_removes_devices(stack: Stack, service: PushService) -> None:
    _seats, players = table(stack)
    ann = players["ann@example.org"]
    hub = player_token(stack.settings.secret_key, ann, 1)
    for name in ("Phone", "Laptop"):
        devices.subscribe(stack.db, ann, service.subscribe(stack.settings.vapid_public_key), name, T0, secure=False)
    html = stack.client.get(f"/p/{hub}").get_data(as_text=True)
    assert (
        html.count("no notification yet") == 2
        and "<strong>Phone</strong>" in html
        and "<strong>Laptop</strong>" in html
    )
    assert f'href="/p/{hub}/manifest.webmanifest"' in html
    with stack.db.session() as session:
        phone, laptop = (d.id for d in session.execute(sa.select(Device).order_by(Device.id)).scalars())

    tested = post_form(stack.client, stack.app, f"/p/{hub}/devices/{phone}/test")
    assert tested.status_code == 303 and "devices=tested" in tested.location
    with stack.db.session() as session:
        [nudge] = session.execute(sa.select(Nudge)).scalars()
        assert (nudge.kind, nudge.device_id) == ("test", phone)
    assert list(send_nudges(stack.db, stack.settings, ids=[nudge.id]).values()) == ["sent"]
    html = stack.client.get(f"/p/{hub}?devices=tested").get_data(as_text=True)
    assert "A test notification is on its way" in html and "last reached" in html

    removed = post_form(stack.client, stack.app, f"/p/{hub}/devices/{laptop}/remove")
    assert removed.status_code == 303 and "devices=removed" in removed.location
    assert [name for _, name, _ in stored(stack)] == ["Phone"]
    # another player's device, or one gone already: nothing happens
    bob = player_token(stack.settings.secret_key, players["bob@example.org"], 1)
    assert "devices=gone" in post_form(stack.client, stack.app, f"/p/{bob}/devices/{phone}/remove").location
    assert "devices=gone" in post_form(stack.client, stack.app, f"/p/{bob}/devices/{phone}/test").location
    assert len(stored(stack)) == 1
    assert post_form(stack.client, stack.app, f"/p/{hub}/devices/{phone}/remove", csrf=False).status_code == 400


def test_how_the_player_is_told_is_saved_and_bad_values_change_nothing(embedded: Stack) -> None:
    _seats, players = table(embedded)
    ann = players["ann@example.org"]
    hub = player_token(embedded.settings.secret_key, ann, 1)
    saved = post_form(embedded.client, embedded.app, f"/p/{hub}/notify", {"notify_mode": "first", "mail_after": "60"})
    assert saved.status_code == 303 and "devices=saved" in saved.location
    with embedded.db.session() as session:
        player = session.get(Player, ann)
        assert player is not None and (player.notify_mode, player.mail_after) == ("first", 60)
    before = all_rows(embedded.db)
    for bad in ({"notify_mode": "sms", "mail_after": "60"}, {"notify_mode": "both", "mail_after": "7"}, {}):
        refused = post_form(embedded.client, embedded.app, f"/p/{hub}/notify", bad)
        assert refused.status_code == 400 and "Not saved:" in refused.get_data(as_text=True)
    assert all_rows(embedded.db) == before


def test_the_installable_table_manifests_and_service_worker(embedded: Stack) -> None:
    seats, players = table(embedded)
    token = seat_token(embedded.settings.secret_key, seats["ann@example.org"], 1)
    manifest = embedded.client.get(f"/s/{token}/manifest.webmanifest")
    assert manifest.status_code == 200 and manifest.mimetype == "application/manifest+json"
    body = manifest.get_json()
    assert body["start_url"] == f"/s/{token}" and body["id"] == f"/s/{token}" and body["display"] == "standalone"
    assert {icon["sizes"] for icon in body["icons"]} == {"192x192", "512x512"}
    for icon in body["icons"]:
        with embedded.client.get(icon["src"]) as image:
            assert image.status_code == 200 and image.mimetype == "image/png"
    assert manifest.headers["Cache-Control"] == "no-store"  # it names a seat's link
    hub = player_token(embedded.settings.secret_key, players["ann@example.org"], 1)
    assert embedded.client.get(f"/p/{hub}/manifest.webmanifest").get_json()["start_url"] == f"/p/{hub}"
    assert embedded.client.get("/manifest.webmanifest").get_json()["start_url"] == "/"
    rotate_link(embedded.db, seats["ann@example.org"])
    assert embedded.client.get(f"/s/{token}/manifest.webmanifest").status_code == 403
    with embedded.client.get("/sw.js") as worker:
        assert worker.status_code == 200 and worker.mimetype in ("text/javascript", "application/javascript")
        script = worker.get_data(as_text=True)
    assert 'addEventListener("push"' in script and 'addEventListener("notificationclick"' in script


def test_opening_a_notification_records_the_channel_that_reached_the_player(embedded: Stack) -> None:
    seats, players = table(embedded)
    ann = players["ann@example.org"]
    token = seat_token(embedded.settings.secret_key, seats["ann@example.org"], 1)
    assert embedded.client.get(f"/s/{token}?via=push&n=99999").status_code == 200
    with embedded.db.session() as session:
        player = session.get(Player, ann)
        assert player is not None and player.reached_via == "push" and player.reached_at is not None
    assert embedded.client.get(f"/s/{token}?via=fax&n=abc").status_code == 200  # unknown: nothing recorded
    with embedded.db.session() as session:
        assert session.get(Player, ann).reached_via == "push"  # type: ignore[union-attr]


def test_a_mails_link_records_that_mail_reached_the_player_once_per_decision(embedded: Stack) -> None:
    """The seat link of a mail carries ``via=mail``: opening it while a decision is owed counts mail as the channel
    that reached the player, after how long since the decision was asked, once per decision."""
    seats, players = table(embedded)
    window = open_window(embedded.db, games_of(embedded)[0])
    assert window is not None
    owing = {r.seat_id for r in window.requests}
    email = next(e for e, s in seats.items() if s in owing)
    player_id = players[email]
    turn = next(r for r in rows_of_kind(embedded.db, MailKind.TURN) if r.player_id == player_id)
    message = compose(embedded.db, turn.id, embedded.settings)
    assert message is not None
    found = re.search(r"http://deadmail\.test(/s/[\w.-]+\?via=mail)", text_of(message))
    assert found is not None and found.group(1) in html_of(message)
    link = found.group(1)
    with embedded.db.session() as session:
        session.execute(sa.update(Window).values(opened_at=utcnow() - timedelta(hours=2)))
    assert embedded.client.get(link).status_code == 200
    assert embedded.client.get(link).status_code == 200  # the same decision: counted once
    with embedded.db.session() as session:
        player = session.get(Player, player_id)
        assert player is not None and player.reached_via == "mail" and player.reach is not None
        assert len(player.reach["mail"]) == 1 and abs(player.reach["mail"][0] - 2 * 3600) < 60
    other = next(e for e in seats if e != email)  # has answered (by another way): reached, no figure
    with embedded.db.session() as session:
        session.execute(sa.update(RequestRow).where(RequestRow.seat_id == seats[other]).values(answered_at=utcnow()))
    assert embedded.client.get(f"/s/{seat_token(embedded.settings.secret_key, seats[other], 1)}?via=mail")
    with embedded.db.session() as session:
        answered = session.get(Player, players[other])
        assert answered is not None and answered.reached_via == "mail" and not (answered.reach or {}).get("mail")


def test_the_figures_say_how_each_channel_reached_the_player_and_the_table(embedded: Stack) -> None:
    """A notification opened 12 minutes after it was sent, and an answer by a mail reply 3 hours after its window
    opened: kept per channel, shown to the player on their hub and, counted over the table, to the organiser."""
    seats, players = table(embedded)
    ann, seat = players["ann@example.org"], seats["ann@example.org"]
    device = devices.add_chat(embedded.db, ann, "ntfys://ntfy.sh/deadmail-ann", "ntfy", T0, secure=False)
    sent = utcnow() - timedelta(minutes=12)
    with embedded.db.session() as session:
        nudge = Nudge(
            key="figures",
            device_id=device,
            player_id=ann,
            seat_id=seat,
            kind="turn",
            window_number=1,
            status="sent",
            attempts=1,
            created_at=sent,
            next_attempt_at=sent,
            sent_at=sent,
        )
        session.add(nudge)
        session.flush()
        nudge_id = nudge.id
    token = seat_token(embedded.settings.secret_key, seat, 1)
    assert embedded.client.get(f"/s/{token}?via=chat&n={nudge_id}").status_code == 200
    assert embedded.client.get(f"/s/{token}?via=chat&n={nudge_id}").status_code == 200  # opened once: counted once
    window = open_window(embedded.db, games_of(embedded)[0])
    assert window is not None
    eng = engine_of(embedded.db, window.game_id)
    row = next(r for r in window.requests if r.seat_id == seat)
    value = RandomBot(2).decide(eng, next(r for r in eng.pending() if r.player == row.seat.colour))
    later = window.opened_at + timedelta(hours=3)
    assert replies.apply_answer(embedded.db, ReplyTo(seat, window.number, 1), row.kind, value, later) == "applied"
    with embedded.db.session() as session:
        player = session.get(Player, ann)
        assert player is not None and player.reached_via == "mail"
        assert player.reach is not None and set(player.reach) == {"chat", "mail"}
        assert abs(player.reach["chat"][0] - 720) < 60 and player.reach["mail"] == [3 * 3600]
    hub = player_token(embedded.settings.secret_key, ann, 1)
    html = embedded.client.get(f"/p/{hub}").get_data(as_text=True)
    assert "By chat app: 1 time, after 12 minutes (median)." in html
    assert "By mail: 1 time, after 3 hours (median)." in html
    log_in_as_organiser(embedded.client)
    page = embedded.client.get(f"/o/games/{window.game_id}").get_data(as_text=True)
    assert "How the players were reached lately" in page and "By mail: 1 time, after 3 hours (median)." in page


def games_of(stack: Stack) -> list[int]:
    with stack.db.session() as session:
        return list(session.execute(sa.text("SELECT id FROM games ORDER BY id")).scalars())
