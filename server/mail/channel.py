"""Webhook channels' posts composed and sent (``services.channel``: rows claimed once, read in one query, each
result recorded as soon as it is known).

A post is one JSON POST to the channel's address: ``content`` (Discord) and ``text`` (Slack, Matrix hookshot) hold
the same message in the league's (or the game's) language, composed here from the event's facts, and ``deadmail``
holds the facts themselves (the event, the league, season and round ids, tables, places or standings). Nothing
secret is in either: the facts are public by construction (``channel.events``), and no link is added. Discord's
mentions are switched off (``allowed_mentions``).

The receiver's answer decides: 2xx sent; 429 and 5xx (and a network failure or a timeout) tried again with
back-off, never sooner than its ``Retry-After``; a redirect is not followed (it could lead inside the network) and,
like any other 4xx and an address that now resolves to a private host, is a failure for good. Each failure counts
toward the channel's pause (``channel.posts.MAX_FAILURES``)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any

import requests

from ..config import Settings
from ..db import Database
from ..models import utcnow
from ..present.seat import game_label
from ..services.channel import posts
from ..services.channel.urls import ChannelError, check_url
from ..text.glossary import colour_name
from ..text.i18n import translations
from ..text.refusals import refusal

log = logging.getLogger("deadmail.channel")

#: seconds to connect to a receiver, and to wait for its answer.
TIMEOUT = (5.0, 10.0)
#: the longest message (Discord takes 2000 characters).
MAX_TEXT = 1900
#: the standings' rows a message lists per division (the facts carry more).
SHOWN_ROWS = 10


def _number(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def compose(payload: Mapping[str, Any]) -> str:
    """The message of a post's facts, in its language."""
    lang = str(payload.get("lang") or "en")
    facts: Mapping[str, Any] = payload.get("facts") or {}
    t = translations(lang)
    event = facts.get("event")
    where = {
        "league": facts.get("league_name") or "",
        "season": facts.get("season_number"),
        "round": facts.get("round_number"),
        "rounds": facts.get("rounds"),
        "table": facts.get("table"),
    }
    nameless = t.gettext("(no name)")
    lines: list[str] = []
    if event == "round_started":
        lines.append(t.gettext("%(league)s: round %(round)s of %(rounds)s of season %(season)s has started.") % where)
        for table in facts.get("tables") or []:
            names = ", ".join(name or nameless for name in table.get("players") or [])
            label = t.gettext("Table %(table)s (game %(game)s)") % {
                "table": table.get("table"),
                "game": table.get("game"),
            }
            lines.append(f"{label}: {names}")
    elif event == "game_over":
        if facts.get("league") is not None:
            lines.append(
                t.gettext("%(league)s, season %(season)s, round %(round)s, table %(table)s: the game is over.") % where
            )
        else:
            label = game_label(lang, int(facts.get("game") or 0), str(facts.get("title") or ""))
            lines.append(t.gettext("%(game)s is over.") % {"game": label})
        for place in facts.get("places") or []:
            who = place.get("name") or colour_name(lang, str(place.get("colour") or ""))
            if place.get("bot"):
                who = t.gettext("%(colour)s (bot)") % {"colour": colour_name(lang, str(place.get("colour") or ""))}
            scored = int(place.get("points") or 0)
            score = t.ngettext("%(num)d point", "%(num)d points", scored) % {"num": scored}
            mark = "=" if place.get("tied") else ""
            lines.append(f"{mark}{place.get('place')}. {who}: {score}")
    elif event in ("round_over", "season_over"):
        if event == "round_over":
            lines.append(t.gettext("%(league)s: round %(round)s of season %(season)s is over. The standings:") % where)
        else:
            lines.append(t.gettext("%(league)s: season %(season)s is over. The final standings:") % where)
        for division in facts.get("standings") or []:
            if division.get("name"):
                lines.append(t.gettext("Division %(division)s") % {"division": division["name"]})
            for row in (division.get("rows") or [])[:SHOWN_ROWS]:
                count = int(row.get("games") or 0)
                played = t.ngettext("%(num)d game", "%(num)d games", count) % {"num": count}
                points = t.gettext("%(points)s points") % {"points": _number(row.get("points"))}
                lines.append(f"{row.get('rank')}. {row.get('name') or nameless}: {points} ({played})")
            hidden = int(division.get("count") or 0) - SHOWN_ROWS
            if hidden > 0:
                lines.append(t.ngettext("… and %(num)d more", "… and %(num)d more", hidden) % {"num": hidden})
    text = "\n".join(lines)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def body(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON a post sends: the message for Discord (``content``) and Slack or Matrix (``text``), and the facts."""
    text = compose(payload)
    return {"content": text, "text": text, "allowed_mentions": {"parse": []}, "deadmail": payload.get("facts") or {}}


@dataclass(frozen=True)
class Outcome:
    """What became of one try: 'sent' or 'failed' (why, whether for good, and the receiver's ``Retry-After``)."""

    result: str
    error: str = ""
    permanent: bool = False
    retry_after: float | None = None


def _retry_after(response: requests.Response, now: datetime) -> float | None:
    value = response.headers.get("Retry-After", "").strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, (parsedate_to_datetime(value) - now).total_seconds())
    except (TypeError, ValueError, IndexError):
        return None


def deliver(http: requests.Session, pending: posts.Pending, settings: Settings, now: datetime) -> Outcome:
    """One try: the address checked again (its host may resolve elsewhere now), the JSON posted."""
    try:
        url = check_url(pending.url, settings.webhook_private)
    except ChannelError as exc:
        return Outcome("failed", refusal(exc, "en"), permanent=True)
    data = json.dumps(body(pending.payload), ensure_ascii=False).encode()
    headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": "deadmail"}
    try:
        response = http.post(url, data=data, headers=headers, timeout=TIMEOUT, allow_redirects=False)
    except requests.RequestException as exc:  # the network, a timeout: tried again later
        return Outcome("failed", f"{type(exc).__name__}: {str(exc)[:300]}")
    status = response.status_code
    if 200 <= status < 300:
        return Outcome("sent")
    said = " ".join(response.text[:300].split())
    error = f"HTTP {status}: {said}" if said else f"HTTP {status}"
    if status == 429 or status >= 500:
        return Outcome("failed", error, retry_after=_retry_after(response, now))
    return Outcome("failed", error, permanent=True)


def send_posts(
    db: Database,
    settings: Settings,
    now: datetime | None = None,
    *,
    ids: Iterable[int] | None = None,
    limit: int = 100,
) -> dict[int, str]:
    """Claim due posts (those of ``ids``, or up to ``limit`` in order) and send them one after another (a channel's
    events keep their order), each recorded as soon as its receiver answered: 'sent', 'retry', 'failed' or
    'paused' (the channel paused by this failure)."""
    now = now or utcnow()
    claimed = posts.claim_many(db, now, ids=ids, limit=limit)
    if not claimed:
        return {}
    results: dict[int, str] = {}
    paused: set[int] = set()
    with requests.Session() as http:
        http.trust_env = False  # receivers are reached directly, never through the environment's proxy
        for pending in posts.read(db, claimed):
            if pending.channel_id in paused:  # (paused by an earlier post of this batch: this one waits too)
                posts.release(db, [pending.id])
                results[pending.id] = "paused"
                continue
            try:
                outcome = deliver(http, pending, settings, now)
            except Exception as exc:  # a bug: a failed try like any other, never a loop for ever
                log.exception("channel post %s: could not be sent", pending.id)
                outcome = Outcome("failed", f"{type(exc).__name__}: {exc}")
            if outcome.result == "sent":
                posts.sent(db, pending.id, now)
                results[pending.id] = "sent"
            else:
                results[pending.id] = posts.failed(
                    db, pending.id, outcome.error, now, permanent=outcome.permanent, retry_after=outcome.retry_after
                )
                if results[pending.id] == "paused":
                    paused.add(pending.channel_id)
    return results
