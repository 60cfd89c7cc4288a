"""Notifications in Chromium: the seat page's manifest and service worker register and the table is installable;
"Notify me on this device" stores the browser's subscription (the page's PushManager is stubbed with a
subscription of the tests' local push service, whose keys the test holds: no vendor's service is reachable); the
server's notification, taken and decrypted by that service, is handed to the service worker as a push message, shown,
and a click on it opens the decision (recorded as reached by push)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
import sqlalchemy as sa

from server.mail.push import send_nudges
from server.models import Device, Nudge, OutboxStatus, Player, Seat, Window, utcnow
from server.services.links import player_token
from server.services.notify import devices, nudges
from tests.conftest import Stack
from tests.push_service import PushService, unb64
from tests.support import AUTH

from .conftest import EMBEDDED, SCREENSHOTS, Live, expect, screenshot

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, CDPSession, Page

pytestmark = EMBEDDED

#: replaces the browser's PushManager (it would ask a vendor's push service) with one that hands out the tests'
#: subscription, and keeps the key the page subscribed with.
STUB = """
(() => {
  const subscription = %s;
  window.pushKey = null;
  PushManager.prototype.getSubscription = async function () { return null; };
  PushManager.prototype.subscribe = async function (options) {
    window.pushKey = Array.from(new Uint8Array(options.applicationServerKey));
    return { endpoint: subscription.endpoint, toJSON: () => subscription };
  };
})();
"""


@pytest.fixture
def service() -> Iterator[PushService]:
    running = PushService().start()
    yield running
    running.stop()


def registration_id(cdp: CDPSession, page: Page) -> str:
    """The id of the page's service worker registration, as CDP's ServiceWorker domain names it."""
    found: list[str] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: found.extend(r["registrationId"] for r in e["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    deadline = time.monotonic() + 10
    while not found and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert found, "no service worker registration"
    return found[-1]


@pytest.mark.long(8)
def test_subscribe_install_and_open_a_notification(served: Live, service: PushService, phone: BrowserContext) -> None:
    stack = served.stack
    body = {"players": ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"], "seed": 7}
    reply = stack.client.post("/api/games", json=body, headers=AUTH)
    assert reply.status_code == 201, reply.json
    link = reply.json["seats"][0]["link"]

    subscription = service.subscribe(stack.settings.vapid_public_key)
    phone.grant_permissions(["notifications"], origin=served.url)
    phone.add_init_script(STUB % json.dumps(subscription))
    page = phone.new_page()
    page.goto(link)

    # the installable table: a manifest the browser reads, a service worker controlling the whole site
    cdp = phone.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert not manifest.get("errors"), manifest
    assert json.loads(manifest["data"])["start_url"] == link.removeprefix(served.url)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    assert page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.scope)") == served.url + "/"
    errors = [e["errorId"] for e in cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]]
    assert [e for e in errors if e != "in-incognito"] == [], errors  # (Playwright's windows are all incognito)

    control = page.locator(".notify-control")
    expect(control).to_be_visible()
    control.get_by_label("This device's name").fill("Ann's phone")
    control.get_by_role("button", name="Notify me on this device").click()
    expect(control.locator(".notify-status")).to_have_text("Notifications are on for this device.")
    screenshot(page, "notify-seat-phone")
    key: list[int] = page.evaluate("window.pushKey")
    assert bytes(key) == unb64(stack.settings.vapid_public_key)  # the server's VAPID key
    with stack.db.session() as session:
        [device] = session.execute(sa.select(Device)).scalars()
        assert (device.name, device.endpoint) == ("Ann's phone", subscription["endpoint"])

    # the next decision's notification: sent by the server to the push service, decrypted there, and handed to
    # the service worker as the browser's push service would
    page.goto(link)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    nudge_id, ann = turn_nudge(stack, device.id)
    assert list(send_nudges(stack.db, stack.settings, ids=[nudge_id]).values()) == ["sent"]
    [taken] = service.received
    shown = json.loads(taken.payload)
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": served.url, "registrationId": registration_id(cdp, page), "data": taken.payload.decode()},
    )
    worker = phone.service_workers[0]
    titles = worker.evaluate(
        "new Promise(done => { const look = () => self.registration.getNotifications().then(all => "
        "all.length ? done(all.map(n => [n.title, n.body, n.tag])) : setTimeout(look, 100)); look(); })"
    )
    assert titles == [[shown["title"], shown["body"], shown["tag"]]]
    # a click on it (dispatched in the service worker: headless Chromium shows no notification to click)
    worker.evaluate(
        "self.registration.getNotifications().then(([n]) => "
        "self.dispatchEvent(new NotificationEvent('notificationclick', {notification: n})))"
    )
    expect(page).to_have_url(shown["url"])
    expect(page.locator("section.decision")).to_be_visible()
    with stack.db.session() as session:
        assert session.get(Player, ann).reached_via == "push"  # type: ignore[union-attr]


def turn_nudge(stack: Stack, device_id: int) -> tuple[int, int]:
    """A turn notification of the open window for the device's player (the game's first seat), as an advance writes
    it; its id and the player's."""
    with stack.db.session() as session:
        device = session.get(Device, device_id)
        assert device is not None
        seat = session.execute(sa.select(Seat).where(Seat.player_id == device.player_id)).scalar_one()
        number = session.execute(
            sa.select(Window.number).where(Window.game_id == seat.game_id, Window.status == "open")
        ).scalar_one()
        nudge = Nudge(
            key=f"browser-test:{seat.id}",
            device_id=device_id,
            player_id=device.player_id,
            seat_id=seat.id,
            kind="turn",
            window_number=number,
            status=OutboxStatus.PENDING,
            attempts=0,
            created_at=utcnow(),
            next_attempt_at=utcnow(),
        )
        session.add(nudge)
        session.flush()
        return nudge.id, device.player_id


@pytest.mark.parametrize(
    ("lang", "heading"),
    [
        ("en", "Notifications on your devices"),
        ("it", "Notifiche sui tuoi dispositivi"),
        ("pl", "Powiadomienia na twoich urządzeniach"),
    ],
)
def test_the_device_list_on_a_desktop_and_a_phone(
    served: Live, service: PushService, desktop: BrowserContext, phone: BrowserContext, lang: str, heading: str
) -> None:
    stack = served.stack
    with stack.db.session() as session:
        ann = Player(email="ann@example.org", display_name="Ann", language=lang, timezone="Europe/Warsaw")
        session.add(ann)
        session.flush()
        ann_id = ann.id
    device = devices.subscribe(
        stack.db, ann_id, service.subscribe(stack.settings.vapid_public_key), "Pixel", utcnow(), secure=False
    )
    devices.add_chat(stack.db, ann_id, "ntfys://ntfy.sh/deadmail-ann", "ntfy", utcnow(), secure=False)
    test = nudges.add_test(stack.db, ann_id, device, utcnow())
    assert test is not None and list(send_nudges(stack.db, stack.settings, ids=[test]).values()) == ["sent"]
    hub = f"{served.url}/p/{player_token(stack.settings.secret_key, ann_id, 1)}#devices"
    for context, where in ((desktop, "desktop"), (phone, "phone")):
        page = context.new_page()
        page.goto(hub)
        section = page.locator("#devices")
        expect(section.get_by_role("heading", name=heading)).to_be_visible()
        expect(section.locator(".device-list li")).to_have_count(2)
        expect(section.get_by_role("button", name=NOTIFY[lang])).to_be_visible()
        section.scroll_into_view_if_needed()
        section.screenshot(path=str(screenshot_path(f"notify-devices-{lang}-{where}")))
        page.close()


NOTIFY = {
    "en": "Notify me on this device",
    "it": "Avvisami su questo dispositivo",
    "pl": "Powiadamiaj mnie na tym urządzeniu",
}


def screenshot_path(name: str) -> object:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"
