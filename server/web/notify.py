"""Notifications on a player's devices: "Notify me on this device" (a browser's push subscription, posted as JSON by
``static/deadmail.js`` from a seat page or the preferences page), the device list's remove and test buttons, how the
player is told (mail and notifications, notifications first, mail only), and the installable table: the web app
manifest of a seat page, of the hub, and of the site, and the service worker (``static/sw.js``, served from the
site's root so that its scope is every page)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, g, jsonify, redirect, request, send_from_directory, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext

from ..models import utcnow
from ..services import inputs
from ..services.notify import devices, nudges
from .access import dm, json_error, player_link, say, seat_link
from .prefs import render_hub

bp = Blueprint("notify", __name__)
#: the manifests and the service worker (not rate-limited with the forms: every page load may ask for them).
installable = Blueprint("installable", __name__)


def _subscribe(player_id: int) -> ResponseReturnValue:
    """The JSON body ``{"subscription": PushSubscription.toJSON(), "name": "Phone"}``: 201 with the device's id, or
    a 4xx with what was wrong (nothing stored)."""
    try:
        body = inputs.parse_json(request.get_data(cache=False))
        body = body if isinstance(body, dict) else {}
        secure = dm().settings.base_url.startswith("https://")
        device_id = devices.subscribe(
            dm().db, player_id, body.get("subscription"), body.get("name"), utcnow(), secure=secure
        )
    except devices.DeviceError as exc:
        return json_error(say(exc), exc.status)
    except inputs.InputError as exc:
        return json_error(say(exc), 400)
    reply = jsonify({"id": device_id, "message": gettext("Notifications are on for this device.")})
    reply.status_code = 201
    return reply


@bp.post("/s/<token>/devices")
@seat_link
def subscribe_seat(token: str) -> ResponseReturnValue:
    try:
        player_id = devices.seat_player(dm().db, g.seat.seat_id)
    except devices.DeviceError as exc:
        return json_error(say(exc), exc.status)
    return _subscribe(player_id)


@bp.post("/p/<token>/devices")
@player_link
def subscribe_player(token: str) -> ResponseReturnValue:
    return _subscribe(g.player_id)


def _back(token: str, done: str) -> ResponseReturnValue:
    return redirect(url_for("prefs.show", token=token, devices=done) + "#devices", code=303)


@bp.post("/p/<token>/devices/<int:device_id>/remove")
@player_link
def remove(token: str, device_id: int) -> ResponseReturnValue:
    return _back(token, "removed" if devices.remove(dm().db, g.player_id, device_id) else "gone")


@bp.post("/p/<token>/devices/<int:device_id>/test")
@player_link
def test(token: str, device_id: int) -> ResponseReturnValue:
    sent = nudges.add_test(dm().db, g.player_id, device_id, utcnow())
    return _back(token, "tested" if sent is not None else "gone")


@bp.post("/p/<token>/chat")
@player_link
def add_chat(token: str) -> ResponseReturnValue:
    """A chat app's notification address (the form's ``address`` and ``name``)."""
    secure = dm().settings.base_url.startswith("https://")
    try:
        devices.add_chat(
            dm().db, g.player_id, request.form.get("address"), request.form.get("name"), utcnow(), secure=secure
        )
    except devices.DeviceError as exc:
        return render_hub(token, exc.status, devices_error=say(exc))
    return _back(token, "added")


@bp.post("/p/<token>/notify")
@player_link
def mode(token: str) -> ResponseReturnValue:
    try:
        devices.set_mode(dm().db, g.player_id, request.form.get("notify_mode"), request.form.get("mail_after"))
    except devices.DeviceError as exc:
        return render_hub(token, exc.status, devices_error=say(exc))
    return _back(token, "saved")


# --- the installable table ------------------------------------------------------------------------------------------


def manifest(start_url: str, name: str) -> Response:
    """A web app manifest whose app opens ``start_url`` (each seat and hub its own app: ``id``)."""
    static = url_for("static", filename="")
    body: dict[str, Any] = {
        "id": start_url,
        "name": name,
        "short_name": "deadmail",
        "start_url": start_url,
        "scope": "/",
        "display": "standalone",
        "background_color": "#1d1b22",
        "theme_color": "#1d1b22",
        "icons": [
            {"src": f"{static}icon-192.png", "sizes": "192x192", "type": "image/png"},
            {"src": f"{static}icon-512.png", "sizes": "512x512", "type": "image/png"},
            {"src": f"{static}icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
        ],
    }
    reply = jsonify(body)
    reply.mimetype = "application/manifest+json"
    return reply


@installable.get("/manifest.webmanifest")
def site_manifest() -> ResponseReturnValue:
    return manifest(url_for("pages.home"), "deadmail")


@installable.get("/s/<token>/manifest.webmanifest")
@seat_link
def seat_manifest(token: str) -> ResponseReturnValue:
    name = gettext("Mall of Horror, game %(number)s", number=g.seat.game_id)
    return manifest(url_for("pages.seat", token=token), name)


@installable.get("/p/<token>/manifest.webmanifest")
@player_link
def hub_manifest(token: str) -> ResponseReturnValue:
    return manifest(url_for("prefs.show", token=token), gettext("deadmail: your games"))


@installable.get("/sw.js")
def service_worker() -> ResponseReturnValue:
    """The service worker, from the root: its scope is the whole site (never kept by the HTTP cache: a new version
    reaches every page at its next load)."""
    return send_from_directory(current_app.static_folder or "", "sw.js", max_age=0)
