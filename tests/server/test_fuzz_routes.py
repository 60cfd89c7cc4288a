"""Every route of the app, with hostile input: no 500, ever, and JSON answers under /api/ (and the webhook).

The routes are read from ``app.url_map``, so a new route is covered without touching this file. Each is sent:

- its path parameters filled with working values (each kind of signed link, the game's id, a mail's file name)
  and with hostile ones (huge and negative numbers, NUL, invalid UTF-8, very long texts, path tricks);
- every method it takes (and some it does not), as the organiser and as a stranger, with query strings, headers
  and bodies of hostile values:
  JSON nested 5,000 deep, over the size limit, not UTF-8, numbers Python will not read, NUL, lone surrogates,
  wrong types (lists, objects, numbers, null where texts are expected), overlong texts; forms (with a valid CSRF
  token) whose fields, read from the pages the app renders, carry the same; bodies under wrong Content-Types;
  hostile headers.

Structured bodies come from Hypothesis, seeded per route and bounded, so every run sends the same requests; both
setups (SQLite and PostgreSQL, where NUL, surrogates and integer ranges fail differently) run in well under a minute.
"""

from __future__ import annotations

import html
import itertools
import json
import re
import uuid
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import redis
import sqlalchemy as sa
from flask.testing import FlaskClient
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from limits.storage import MemoryStorage
from werkzeug.routing import Rule
from werkzeug.test import TestResponse

from server.mail.send import send_due
from server.mail.transports import FileTransport
from server.services.links import mailbox_token, organiser_token, player_token
from tests.conftest import PG_URL, REDIS_URL, Stack, _pg_admin, _stack, need, need_service
from tests.profile import some
from tests.server.test_replay import finish
from tests.support import AUTH, REPLY_DOMAIN, T0, csrf_token, log_in_as_organiser, player_of, seat_ids

FORM = "application/x-www-form-urlencoded"
#: examples Hypothesis draws per route and method, for JSON bodies and for forms.
EXAMPLES = 6

HUGE = [2**31, 2**63, 2**64, -(2**63) - 1, 10**40]
HOSTILE_TEXTS = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\ud800",
    "x\udfffy",
    "x" * 5000,
    "\r\nBcc: eve@evil.example",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "../../etc/passwd",
    "%00",
    "²",
    "٣",
    "-1",
    "1e999",
    "NaN",
    str(2**63),
    "9" * 5000,
    "\u202e\ufeff\u2028",
    "red",
    "1",
    "bot",
    "v@evil.example",
]
#: the few sent in each field alone and in every query argument.
SHORT_TEXTS = ["", "\x00", "\ud800", "x" * 5000, "²", "-1", str(2**63), "\r\nBcc: eve@evil.example"]
HOSTILE_VALUES: list[Any] = [*HOSTILE_TEXTS, None, True, False, 0, -1, 1.5, *HUGE, [], {}, ["a"], {"a": "b"}]
#: keys the JSON API and the webhook read (any other key is drawn too).
JSON_KEYS = [
    "players",
    "options",
    "deadlines",
    "timezone",
    "avoid_quiet_hours",
    "seed",
    "title",
    "organiser",
    "kind",
    "answer",
    "window",
    "name",
    "email",
    "bot",
    "to",
    "from",
    "subject",
    "text",
    "html",
    "message_id",
    "headers",
    "turn_order",
    "weapons",
]
#: path parts that are not what a route expects.
HOSTILE_PATH = [
    "0",
    "-1",
    str(2**31),
    str(2**63),
    "9" * 5000,
    "x" * 600,
    "%00",
    "a%00b",
    "%ED%A0%80",
    "%FF",
    "%2e%2e%2f%2e%2e",
    "%C2%B2",
    "%D9%A3",
    "WzEsMV0.AAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAA",
]
#: raw bodies sent as JSON.
RAW_JSON = [
    b"[" * 5000 + b"]" * 5000,
    b'{"answer": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    b'{"a": "' + b"x" * 70_000 + b'"}',
    b"\xff\xfe\x00",
    b"not json",
    b"",
    b"9" * 5000,
    b'{"window": ' + b"9" * 5000 + b"}",
    b'{"window": NaN, "seed": Infinity, "answer": -Infinity}',
    b'{"title": "\\u0000", "players": ["\\ud800 <a@b.example>"], "kind": "\\udfff"}',
    b'{"to": "\\u0000@x", "text": "\\ud800", "headers": {"Content-Type": "multipart/mixed; boundary=zz"}}',
]
#: (Content-Type, body) pairs that are not what a route expects.
BAD_CONTENT = [
    ("text/plain", b"hello"),
    ("multipart/form-data", b"--zz\r\n"),
    ("multipart/form-data; boundary=zz", b'--zz\r\nContent-Disposition: form-data; name="c"\r\n\r\n\x00\r\n--zz--'),
    ("application/x-www-form-urlencoded", b"%ED%A0%80=%00&c=%FF&w=%C2%B2&c=%00"),
    ("application/x-www-form-urlencoded", b"&&==&%%%=%zz"),
    ("message/rfc822", b"From: \x00\r\nContent-Type: multipart/mixed; boundary=zz\r\n\r\n--zz\r\n\xff"),
    ("application/json; charset=utf-16", '{"kind": "vote"}'.encode("utf-16")),
    ("application/xml", b"<?xml version='1.0'?><a>&lol;</a>"),
]
HOSTILE_HEADERS = [
    {"Authorization": "Bearer é\xff"},
    {"Authorization": "Bearer " + "x" * 5000},
    {"Authorization": "Basic dGVzdDp0ZXN0"},
    {"Accept-Language": "x" * 2000},
    {"Accept-Language": "*;q=NaN, ..;q=-1, \xff"},
    {"X-Original-To": "\xff@x"},
    {"Cookie": "session=" + "A" * 3000},
]

#: the paths whose views read a JSON body (``guard.json_body``, ``inputs.parse_json``); every other view reads a form.
JSON_PATHS = ("/api/", "/inbound/")

EXAMPLE_SETTINGS = settings(
    max_examples=EXAMPLES,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
    suppress_health_check=list(HealthCheck),
)

texts = st.sampled_from(HOSTILE_TEXTS) | st.text(max_size=12)
leaves = st.sampled_from(HOSTILE_VALUES) | texts | st.integers() | st.floats()
values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(JSON_KEYS) | texts, inner, max_size=4),
    max_leaves=8,
)
json_bodies = st.dictionaries(st.sampled_from(JSON_KEYS), values, max_size=6) | values


@dataclass
class Fuzzed:
    """One installation with a running game, a finished game and mail in files, and what opens them."""

    stack: Stack
    game_id: int
    #: argument name -> working values (every kind of link for ``token``).
    valid: dict[str, list[str]]
    #: the forms the app's pages render: the endpoint each posts to -> its fields; and every field name.
    forms: dict[str, list[str]] = field(default_factory=dict)
    fields: list[str] = field(default_factory=list)
    #: "METHOD rule" -> the working paths that open it (``_opening``).
    opening: dict[str, list[str]] = field(default_factory=dict)
    addresses: Iterator[int] = field(default_factory=itertools.count)

    def client(self, organiser: bool) -> FlaskClient:
        client = self.stack.app.test_client()
        if organiser:
            log_in_as_organiser(client)
        return client


def _installation(name: str, tmp: Path, database_url: str, broker_url: str) -> Fuzzed:
    stack = _stack(name, tmp, database_url, broker_url, reply_domain=REPLY_DOMAIN)
    s = stack.settings
    client = stack.app.test_client()
    created = client.post(
        "/api/games",
        json={"players": ["Ann <ann@x.example>", "Bob <bob@x.example>", "bot"], "organiser": "Org <org@x.example>"},
        headers=AUTH,
    )
    assert created.status_code == 201, created.json
    game_id = created.json["id"]
    over = client.post(
        "/api/games", json={"players": ["Cy <cy@x.example>", "bot", "bot:random"], "seed": 3}, headers=AUTH
    )
    finish(stack.db, over.json["id"], seed=3)
    send_due(stack.db, FileTransport(s.mail_dir), s, T0)
    seats = seat_ids(stack.db, game_id)
    owner = player_of(stack.db, seats["yellow"])
    tokens = [seat["link"].rsplit("/", 1)[1] for seat in created.json["seats"] if seat["link"]]
    tokens += [seat["link"].rsplit("/", 1)[1] for seat in over.json["seats"] if seat["link"]]
    tokens += _league_tokens(client)
    tokens += [
        player_token(s.secret_key, owner.id, owner.link_generation),
        organiser_token(s.secret_key, game_id),
        mailbox_token(s.secret_key),
    ]
    mails = sorted(s.mail_dir.glob("*.eml"))
    replied = [p.name for p in mails if b"\nReply-To:" in p.read_bytes()]
    assert replied, "a mail that takes a reply"
    valid = {"token": tokens, "game_id": [str(game_id)], "name": replied[:1], "filename": ["deadmail.css"]}
    valid["action"] = ["set", "remove", "resume"]  # (the game channel's forms)
    fuzzed = Fuzzed(stack, game_id, valid)
    fuzzed.forms = _forms(fuzzed)
    fuzzed.fields = sorted({name for names in fuzzed.forms.values() for name in names})
    assert {"c", "w", "players", "title", "name", "email", "text", "language", "body", "hours"} <= set(fuzzed.fields)
    return fuzzed


def _league_tokens(client: FlaskClient) -> list[str]:
    """A league with a season taking sign-ups: the tokens of its invitation, organiser and public links (its pages
    and their forms, the new season's dates among them, are walked too)."""
    league = client.post(
        "/api/leagues", json={"name": "Walked", "table_size": 4, "standings_public": True}, headers=AUTH
    )
    assert league.status_code == 201, league.json
    body = {"signup_closes": (datetime.now(UTC) + timedelta(days=7)).isoformat(), "rounds": 2, "schedule": "when_over"}
    assert client.post(f"/api/leagues/{league.json['id']}/seasons", json=body, headers=AUTH).status_code == 201
    return [link["token"] for link in league.json["links"].values()]


def _endpoint(fuzzed: Fuzzed, method: str, path: str) -> str:
    endpoint, _ = fuzzed.stack.app.url_map.bind("deadmail.test").match(path, method=method)
    return str(endpoint)


def _forms(fuzzed: Fuzzed) -> dict[str, list[str]]:
    """Every form the app renders on the pages it opens here: the endpoint it posts to -> its fields' names."""
    forms: dict[str, set[str]] = {}
    client = fuzzed.client(organiser=True)
    for rule in fuzzed.stack.app.url_map.iter_rules():
        if "GET" in (rule.methods or set()):
            for path in _paths(rule, fuzzed.valid, hostile=False):
                with client.get(path, environ_base=_new_address(fuzzed)) as response:
                    page = response.get_data(as_text=True)
                forms_found = re.findall(r'<form([^>]*) action="([^"]*)"[^>]*>(.*?)</form>', page, re.DOTALL)
                for before, action, inside in forms_found:
                    if 'method="get"' in before:  # a filter (the mailbox's): its parameters are a GET's
                        continue
                    names = re.findall(r'<(?:input|select|textarea)[^>]* name="([^"]+)"', inside)
                    endpoint = _endpoint(fuzzed, "POST", html.unescape(action))
                    forms.setdefault(endpoint, set()).update(set(names) - {"csrf_token"})
    return {action: sorted(names) for action, names in forms.items()}


@contextmanager
def _production_urls() -> Iterator[tuple[str, str]]:
    """A fresh PostgreSQL database (dropped afterwards) and the test Redis, for the module (conftest's fixtures are
    per test)."""
    need_service("PostgreSQL")  # probed once per session, reported in one line
    need_service("Redis")
    name = f"dm_test_{uuid.uuid4().hex[:12]}"
    admin = _pg_admin()
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        redis.Redis.from_url(REDIS_URL).ping()
    except Exception as exc:
        admin.dispose()
        need("PostgreSQL and Redis", exc)
    try:
        yield PG_URL.rsplit("/", 1)[0] + f"/{name}", REDIS_URL
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(scope="module", params=["embedded", "production"])
def fuzzed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    tmp = tmp_path_factory.mktemp(f"fuzz-{request.param}")
    if request.param == "embedded":
        built = _installation("embedded", tmp, f"sqlite:///{tmp / 'deadmail.db'}", "filesystem://")
        yield built
        built.stack.db.dispose()
        return
    with _production_urls() as (database_url, broker_url):
        built = _installation("production", tmp, database_url, broker_url)
        yield built
        built.stack.db.dispose()
        built.stack.web_db.dispose()
    client = redis.Redis.from_url(broker_url)
    keys = list(client.scan_iter(match=f"*{built.stack.settings.queue}*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()


# --- sending ---------------------------------------------------------------------------------------------------------


def _paths(rule: Rule, valid: dict[str, list[str]], hostile: bool) -> list[str]:
    """The rule's path with its parameters filled: every combination of working values, or (``hostile``) each
    parameter in turn given each hostile value, the others working."""
    names = sorted(rule.arguments)

    def build(chosen: dict[str, str]) -> str:
        return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", lambda m: chosen[m.group(1)], rule.rule)

    working = {n: [quote(v, safe="/") for v in valid.get(n, ["1"])] for n in names}
    if not hostile:
        return [build(dict(zip(names, combo, strict=True))) for combo in itertools.product(*working.values())]
    first = {n: working[n][0] for n in names}
    return [build({**first, n: value}) for n in names for value in HOSTILE_PATH]


#: how many client addresses the in-memory limiter counts before the walk clears it (see ``_new_address``).
ADDRESSES_KEPT = 500


def _new_address(fuzzed: Fuzzed) -> dict[str, str]:
    """The environ of a request from a client address not used before (no rate limit hides a path). The embedded
    limiter's memory is cleared every ``ADDRESSES_KEPT`` addresses: it looks over every address it counts every
    10 ms, which thousands of addresses seen once made a tenth of the walk's time (Redis expires its keys itself).
    The walk makes its requests from this thread, so nothing counts while the timer is stopped."""
    address = next(fuzzed.addresses)
    if address % ADDRESSES_KEPT == 0:
        for limiter in fuzzed.stack.app.extensions["limiter"]:
            if isinstance(limiter.storage, MemoryStorage):
                # its expiry timer must be over first: limits' timer reads keys that reset() removes under it
                limiter.storage.timer.cancel()
                limiter.storage.timer.join()
                limiter.storage.reset()
    return {"REMOTE_ADDR": f"10.{address // 65536 % 256}.{address // 256 % 256}.{address % 256}"}


def _send(fuzzed: Fuzzed, client: FlaskClient, method: str, path: str, **kwargs: Any) -> TestResponse:
    """One request from a new client address (no rate limit hides a path); no 500, JSON under /api/."""
    with client.open(path, method=method, environ_base=_new_address(fuzzed), **kwargs) as response:
        body = response.get_data()
    what = f"{method} {path[:120]} {str(kwargs)[:300]}"
    assert response.status_code < 500, f"{response.status_code} for {what}"
    csv = response.status_code == 200 and response.mimetype == "text/csv"  # (a season's standings as CSV)
    if path.startswith(("/api/", "/inbound/")) and body and not csv:  # (OPTIONS and HEAD answer no body)
        assert response.is_json, f"not JSON: {response.status_code} {response.mimetype} for {what}"
    if path.endswith("/logout") and method == "POST":
        log_in_as_organiser(client)  # the organiser's client stays the organiser's
    return response


def _quoted(text: str) -> str:
    """``text`` percent-encoded as UTF-8 (a lone surrogate as its three bytes, as a broken client would send it)."""
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def _form(fields: dict[str, Any], token: str) -> bytes:
    """A urlencoded form body, ``csrf_token`` included."""
    pairs = [(k, v if isinstance(v, list) else [v]) for k, v in fields.items()]
    encoded = [f"{_quoted(str(k))}={_quoted(str(one))}" for k, many in pairs for one in many]
    return "&".join([*encoded, f"csrf_token={token}"]).encode()


def _each(strategy: st.SearchStrategy[Any], check: Callable[[Any], None], route: str) -> None:
    """``check`` for a few examples of ``strategy``: each route its own, the same on every run."""
    seed(zlib.crc32(route.encode()))(EXAMPLE_SETTINGS(given(strategy)(check)))()


def _rules(fuzzed: Fuzzed) -> list[Rule]:
    return sorted(fuzzed.stack.app.url_map.iter_rules(), key=lambda r: (r.rule, r.endpoint))


# --- the tests -------------------------------------------------------------------------------------------------------


@pytest.mark.long(18)
def test_every_route_with_hostile_path_parameters_answers_without_a_server_error(fuzzed: Fuzzed) -> None:
    for organiser in (False, True):
        client = fuzzed.client(organiser)
        headers = AUTH if organiser else {}
        for rule in _rules(fuzzed):
            working = _paths(rule, fuzzed.valid, hostile=False)
            hostile = _paths(rule, fuzzed.valid, hostile=True) if organiser else []  # (past the login check)
            for method in sorted(rule.methods or ()):
                for path in working + hostile:
                    _send(fuzzed, client, method, path, headers=headers)
            for method in ("PUT", "DELETE", "PATCH"):
                _send(fuzzed, client, method, working[0], headers=headers)


def _opening(fuzzed: Fuzzed, rule: Rule, method: str) -> list[str]:
    """The working paths of the rule whose link opens what it names, for the organiser (a request to a refused
    link tests nothing more than the path test does); every working path when none does."""
    key = f"{method} {rule.rule}"
    if key not in fuzzed.opening:
        client = fuzzed.client(organiser=True)
        paths = _paths(rule, fuzzed.valid, hostile=False)
        opened = [p for p in paths if _send(fuzzed, client, method, p, headers=AUTH).status_code not in (401, 403)]
        opened = opened or paths
        fuzzed.opening[key] = sorted({opened[0], opened[-1]})  # a running game's seat and a finished game's
    return fuzzed.opening[key]


@pytest.mark.long(20)
def test_every_route_with_hostile_queries_and_headers_answers_without_a_server_error(fuzzed: Fuzzed) -> None:
    client = fuzzed.client(organiser=True)
    names = [*fuzzed.fields, "next", "done", "saved", "round", "chat"]
    for rule in _rules(fuzzed):
        for method in sorted((rule.methods or set()) - {"OPTIONS", "HEAD"}):
            opening = _opening(fuzzed, rule, method)
            for path in opening:
                for text in SHORT_TEXTS:
                    query = "&".join(f"{name}={_quoted(text)}" for name in names)
                    _send(fuzzed, client, method, f"{path}?{query}&next=/o/{_quoted(text[:50])}", headers=AUTH)
            for headers in HOSTILE_HEADERS:
                _send(fuzzed, client, method, opening[0], headers=headers)


def _body_targets(fuzzed: Fuzzed) -> list[tuple[str, str]]:
    """(method, path) of every route taking a body, with each working path that opens it."""
    targets = []
    for rule in _rules(fuzzed):
        for method in sorted((rule.methods or set()) - {"GET", "HEAD", "OPTIONS"}):
            targets += [(method, path) for path in _opening(fuzzed, rule, method)]
    assert len({_endpoint(fuzzed, method, path) for method, path in targets}) >= 15, targets
    return targets


def _sending(
    fuzzed: Fuzzed,
    client: FlaskClient,
    method: str,
    path: str,
    encode: Callable[[Any], tuple[bytes, str]],
    headers: dict[str, str],
) -> Callable[[Any], None]:
    """A check for Hypothesis: one request with ``encode(value)`` as its body."""

    def check(value: Any) -> None:
        data, kind = encode(value)
        _send(fuzzed, client, method, path, data=data, content_type=kind, headers=headers)

    return check


@pytest.mark.long(8)
def test_every_route_with_hostile_json_answers_without_a_server_error(fuzzed: Fuzzed) -> None:
    for organiser in (False, True):
        client = fuzzed.client(organiser)
        headers = AUTH if organiser else {}
        for method, path in _body_targets(fuzzed):
            takes_json = path.startswith(JSON_PATHS)  # a page's view reads a form: one JSON body shows it ignores it
            for raw in RAW_JSON if takes_json else RAW_JSON[:1]:
                _send(fuzzed, client, method, path, data=raw, content_type="application/json", headers=headers)
            for kind, raw in BAD_CONTENT:
                _send(fuzzed, client, method, path, data=raw, content_type=kind, headers=headers)
            if organiser and takes_json:
                as_json = lambda body: (json.dumps(body).encode(), "application/json")  # noqa: E731
                route = f"{method} {_endpoint(fuzzed, method, path)}"
                _each(json_bodies, _sending(fuzzed, client, method, path, as_json, headers), route)


def _shapes(names: list[str]) -> list[str]:
    """One field of each shape (``order_12_0`` … ``order_12_7`` are one)."""
    return list({re.sub(r"\d+", "#", name): name for name in names}.values())


@pytest.mark.long(20)
def test_every_form_with_hostile_fields_answers_without_a_server_error(fuzzed: Fuzzed) -> None:
    for organiser in (True, False):
        client = fuzzed.client(organiser)
        token = csrf_token(client, fuzzed.stack.app)

        def as_form(fields: dict[str, Any], token: str = token) -> tuple[bytes, str]:
            return _form(fields, token), FORM

        for method, path in _body_targets(fuzzed):
            form = fuzzed.forms.get(_endpoint(fuzzed, method, path))  # None: no page posts to it (the API)
            names = fuzzed.fields if form is None else form
            if path.startswith(JSON_PATHS):  # a view reading JSON: one form shows it refuses a form
                _send(fuzzed, client, method, path, data=_form(dict.fromkeys(names, "\x00"), token), content_type=FORM)
                continue
            every = HOSTILE_TEXTS if organiser else SHORT_TEXTS
            bodies = [dict.fromkeys(names, text) for text in every]  # every field at once
            if organiser and form:  # each field of the form alone, the others missing
                bodies += [{name: text} for name in _shapes(form) for text in SHORT_TEXTS]
            for fields in bodies:
                _send(fuzzed, client, method, path, data=_form(fields, token), content_type=FORM)
            forms = st.dictionaries(
                st.sampled_from(names or fuzzed.fields), texts | st.lists(texts, max_size=3), max_size=8
            )
            _each(
                forms,
                _sending(fuzzed, client, method, path, as_form, {}),
                f"{method} {_endpoint(fuzzed, method, path)}",
            )


# --- dates, times and durations far from now --------------------------------------------------------------------------

#: a date, time or duration no one means: the calendar's ends with extreme offsets (no instant in UTC), five-digit
#: years, a day or a time alone, a number of hours no float holds.
FAR_DATES = [
    "9999-12-31T23:59:59-14:00",
    "0001-01-01T00:00:00+14:00",
    "99999-01-01",
    "9999-12-31",
    "0001-01-01",
    "9999-12-31T23:59",
    "0001-01-01T00:00",
    "9" * 400,
    "999999999999h",
    "vote=" + "9" * 400,
]
#: the form fields and JSON keys that carry a date, a time of day or a duration.
DATE_FIELD = re.compile(
    r"^(from|to|until|signup_closes|deadlines?|play_deadline|play_hours|last_call|absence_budget|hours|days"
    r"|quiet_start|quiet_end|rule|closes_date|closes_time|time)$"
)
DATE_KEYS = [
    "signup_closes",
    "from",
    "to",
    "until",
    "deadlines",
    "last_call",
    "absence_budget",
    "play_deadline",
    "rule",
]
#: the forms whose date, time or duration field, given a value of its shape out of range in an otherwise working form,
#: answers 400 with the reason: endpoint -> (the field, the rest of the form, the values, the reason). A form with a
#: date field missing here fails ``test_every_date_field_out_of_range_answers_400_never_500``: route the field
#: through ``services.inputs`` (``instant``, ``local_instant``, ``day``) or ``tempo.parse_duration``, and add it.
DATE_FORMS: dict[str, tuple[str, dict[str, str], list[str], str]] = {
    "prefs.add_absence": ("from", {"to": "2031-12-31"}, ["9999-12-31", "0001-01-01"], "First day away is out of range"),
    "organiser.extend": ("until", {}, ["9999-12-31T23:59", "0001-01-01T00:00"], "The new deadline is out of range"),
    "organiser.pause": ("until", {}, ["9999-12-31T23:59", "0001-01-01T00:00"], "The end of the pause is out of"),
    "league_organiser.create_season": (
        "closes_date",
        {"closes_time": "18:00", "rounds": "2", "schedule": "when_over"},
        ["9999-12-31", "0001-01-01", "3000-01-01"],
        "Sign-ups close on is out of range",
    ),
    "organiser.create": (
        "deadline",
        {"players": "Ann <ann@x.example>\nbot\nbot"},
        ["9" * 20, "999999999999h"],
        "a deadline must be between 1 second and 30 days",
    ),
}
#: form fields of a time of day or a choice (not a date nor a duration): refused (4xx), never a 500.
CLOCK_FIELDS = {"quiet_start", "quiet_end", "hours", "days", "play_hours", "closes_time", "time"}
#: fields named like a date that are none: a table talk message's addressee.
NOT_DATES = {"chat.post": {"to"}}


def _json_date_bodies(value: str) -> list[dict[str, Any]]:
    """Each date key alone holding ``value`` (``deadlines`` as a list, a ``rule``'s time), and all of them at once."""

    def shaped(key: str) -> Any:
        return [value] if key == "deadlines" else {"weekday": 0, "time": value} if key == "rule" else value

    return [{key: shaped(key)} for key in DATE_KEYS] + [{key: shaped(key) for key in DATE_KEYS}]


def _league_paths(fuzzed: Fuzzed) -> tuple[str, str]:
    """A new league with a season: its seasons' path and the season's next-season path."""
    client = fuzzed.client(organiser=True)
    league = client.post("/api/leagues", json={"name": "Far dates", "table_size": 4}, headers=AUTH)
    assert league.status_code == 201, league.json
    closes = (datetime.now(UTC) + timedelta(days=7)).isoformat()
    body = {"signup_closes": closes, "rounds": 2, "schedule": "when_over"}
    season = client.post(f"/api/leagues/{league.json['id']}/seasons", json=body, headers=AUTH)
    assert season.status_code == 201, season.json
    return f"/api/leagues/{league.json['id']}/seasons", f"/api/seasons/{season.json['id']}/next"


def _api_date_calls(fuzzed: Fuzzed, seasons: str, following: str) -> list[tuple[str, dict[str, Any], str]]:
    """(path, body, reason) of the API's calls that take a date, time or duration, each with one out of range."""
    client = fuzzed.client(False)
    seat = next(
        t
        for t in fuzzed.valid["token"]
        if client.get(f"/api/seat/{t}", environ_base=_new_address(fuzzed)).status_code == 200
    )
    players = {"players": ["Ann <ann@x.example>", "Bob <bob@x.example>", "bot"]}
    calls: list[tuple[str, dict[str, Any], str]] = []
    for text in FAR_DATES[:2]:
        season = {"signup_closes": text, "rounds": 2, "schedule": "when_over"}
        calls.append((seasons, season, "signup_closes is out of range"))
        calls.append((following, {"signup_closes": text}, "signup_closes is out of range"))
    for text in ("9999-12-31", "0001-01-01"):
        calls.append((f"/api/seat/{seat}/absences", {"from": text, "to": text}, "from is out of range"))
    calls.append((f"/api/seat/{seat}/absences", {"text": "AWAY 31 DEC 9999"}, "AWAY is out of range"))
    durations = [{"deadlines": ["9" * 400]}, {"deadlines": ["vote=999999999999h"]}, {"last_call": "9" * 400}]
    durations.append({"absence": "extend", "absence_budget": "9" * 400})
    for path in ("/api/games", "/api/games/estimate"):
        calls += [(path, players | body, "a deadline must be between 1 second and 30 days") for body in durations]
    return calls


@pytest.mark.long(18)
def test_every_date_field_out_of_range_answers_400_never_500(fuzzed: Fuzzed) -> None:
    """Every date, time and duration field of every route (the pages' form fields, the API's keys) sent far values:
    never a 500; and 400 with the reason where the route takes that field (``DATE_FORMS``, ``_api_date_calls``)."""
    client = fuzzed.client(organiser=True)
    token = csrf_token(client, fuzzed.stack.app)
    seasons, following = _league_paths(fuzzed)
    targets = [*_body_targets(fuzzed), ("POST", seasons), ("POST", following)]
    for method, path in targets:
        form = fuzzed.forms.get(_endpoint(fuzzed, method, path))
        dated = [name for name in (fuzzed.fields if form is None else form) if DATE_FIELD.match(name)]
        takes_json = path.startswith(JSON_PATHS)  # (the other routes read a form, and nothing else reads JSON)
        for value in some(FAR_DATES):  # (all of them in a full run)
            if takes_json:
                for body in _json_date_bodies(value):
                    _send(fuzzed, client, method, path, json=body, headers=AUTH)
                continue
            for fields in [{name: value} for name in dated] + [dict.fromkeys(dated, value)]:
                _send(fuzzed, client, method, path, data=_form(fields, token), content_type=FORM)
    dated_forms = {
        endpoint
        for endpoint, names in fuzzed.forms.items()
        if any(DATE_FIELD.match(n) for n in set(names) - CLOCK_FIELDS - NOT_DATES.get(endpoint, set()))
    }
    assert dated_forms <= set(DATE_FORMS), (
        f"forms with a date field not checked for 400: {dated_forms - set(DATE_FORMS)}"
    )
    paths = {r.endpoint: _paths(r, fuzzed.valid, hostile=False) for r in _rules(fuzzed) if r.endpoint in DATE_FORMS}
    assert set(paths) == set(DATE_FORMS), set(DATE_FORMS) - set(paths)
    for endpoint, (name, rest, far, reason) in DATE_FORMS.items():
        for value in far:
            body = _form(rest | {name: value}, token)
            sent = [_send(fuzzed, client, "POST", path, data=body, content_type=FORM) for path in paths[endpoint]]
            opened = [reply for reply in sent if reply.status_code not in (401, 403, 404)]  # (another link or game)
            assert opened, (endpoint, paths[endpoint])
            for reply in opened:
                page = html.unescape(reply.get_data(as_text=True))
                assert reply.status_code == 400 and reason in page, (endpoint, value, reply.status_code, page[-3000:])
    for path, body, reason in _api_date_calls(fuzzed, seasons, following):
        sent = _send(fuzzed, client, "POST", path, json=body, headers=AUTH)
        assert sent.status_code == 400 and reason in sent.json["error"], (path, str(body)[:200], sent.json)
