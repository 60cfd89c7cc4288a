"""Limits and headers: the JSON seat view and wrong organiser tokens are rate limited, per client, and
the client is what trusted proxies say it is (``DEADMAIL_TRUSTED_PROXIES``); what a link opens is never cached;
errors under /api/ are JSON, and a service that is down is a 503 with ``Retry-After``; answering, reading and the
limits keep working while the broker's Redis is down (the limiter counts in memory, a lost kick is left to the
sweep)."""

from __future__ import annotations

import smtplib
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import func, select
from werkzeug.test import TestResponse

from server.config import Settings
from server.db import Database
from server.mail import inbound
from server.models import InboundMail, MailKind, RequestRow, utcnow
from server.services import signin
from server.services.attendance import substitutes
from server.services.calendar import address as calendar_address
from server.services.leagues import seasons
from server.services.links import (
    confirm_token,
    game_invite_token,
    game_link_token,
    mailbox_token,
    organiser_token,
    player_token,
    seat_token,
    signin_token,
    unsubscribe_token,
)
from server.services.lobby import proposals
from server.services.play import games
from server.web.app import create_app
from tests.conftest import Stack, _stack
from tests.support import (
    AUTH,
    REPLY_DOMAIN,
    api_game,
    csrf_token,
    free_port,
    letter,
    log_in_as_organiser,
    mail_settings,
    open_window,
    people,
    player_of,
    rows_of_kind,
    seat_ids,
)

T = TypeVar("T")
ELSEWHERE = {"REMOTE_ADDR": "198.51.100.7"}


def tokens_of(stack: Stack, game_id: int) -> list[str]:
    rows = games.seat_links(stack.db, game_id, stack.settings.secret_key, stack.settings.base_url)
    return [r["link"].rsplit("/", 1)[1] for r in rows if r["link"]]


def refused_for_a_minute(reply: TestResponse) -> None:
    """A 429 in JSON, saying when to come back."""
    assert reply.status_code == 429
    assert reply.json is not None and reply.json["ok"] is False
    assert 0 < int(reply.headers["Retry-After"]) <= 60


# --- rate limits ----------------------------------------------------------------------------------------------------


def test_the_json_seat_view_is_counted_with_the_link_pages(embedded: Stack) -> None:
    stack = embedded
    stack.app.config["DEADMAIL_LINKS_PER_MINUTE"] = 5
    token = api_game(stack.client, people(3)).tokens["yellow"]
    for path in (f"/api/seat/{token}", f"/s/{token}", f"/api/seat/{token}", f"/s/{token}", f"/api/seat/{token}"):
        assert stack.client.get(path).status_code == 200, path
    refused_for_a_minute(stack.client.get(f"/api/seat/{token}"))
    assert stack.client.get(f"/s/{token}").status_code == 429
    assert stack.client.get(f"/api/seat/{token}", environ_base=ELSEWHERE).status_code == 200  # per client


def test_wrong_organiser_tokens_on_the_api_are_limited_per_client(stack: Stack) -> None:
    game_id = api_game(stack.client, people(3)).id
    for _ in range(3):  # the right token is never counted
        assert stack.client.get(f"/api/games/{game_id}", headers=AUTH).status_code == 200
    for i in range(10):
        wrong = stack.client.get(f"/api/games/{game_id}", headers={"Authorization": f"Bearer guess-{i}"})
        assert wrong.status_code == 401 and wrong.json is not None and wrong.json["ok"] is False
    refused_for_a_minute(stack.client.get(f"/api/games/{game_id}", headers={"Authorization": "Bearer guess-10"}))
    refused_for_a_minute(stack.client.post("/api/games", json={"players": people(3)}, headers={"Authorization": "x"}))
    # from this client even the right token waits now; another client is not slowed
    refused_for_a_minute(stack.client.get(f"/api/games/{game_id}", headers=AUTH))
    assert stack.client.get(f"/api/games/{game_id}", headers=AUTH, environ_base=ELSEWHERE).status_code == 200


def test_wrong_tokens_count_across_the_login_form_the_api_and_the_webhook(embedded: Stack) -> None:
    stack = embedded
    for i in range(3):
        assert stack.client.get("/api/games/1", headers={"Authorization": f"Bearer guess-{i}"}).status_code == 401
    for i in range(2):
        guess = {"Authorization": f"Bearer guess-{i}", "Content-Type": "message/rfc822"}
        assert stack.client.post("/inbound/mail", data=b"x", headers=guess).status_code == 401
    for i in range(5):
        form = {"token": f"guess-{i}", "csrf_token": csrf_token(stack.client, stack.app)}
        assert stack.client.post("/o/login", data=form).status_code == 401
    form = {"token": "test-api-token", "csrf_token": csrf_token(stack.client, stack.app)}
    refused = stack.client.post("/o/login", data=form)
    assert refused.status_code == 429 and 0 < int(refused.headers["Retry-After"]) <= 60
    assert "Too many requests from your connection" in refused.get_data(as_text=True)
    refused_for_a_minute(stack.client.get("/api/games/1", headers=AUTH))


# --- trusted proxies ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("proxies", "second_client"), [(0, 429), (1, 403)])
def test_forwarded_clients_get_their_own_bucket_only_behind_a_trusted_proxy(
    tmp_path: Path, proxies: int, second_client: int
) -> None:
    """With no trusted proxy X-Forwarded-For is anyone's to write and is ignored: everything from the proxy's address
    shares a bucket. With one, each forwarded client is counted apart."""
    stack = _stack(
        "embedded", tmp_path, f"sqlite:///{tmp_path / 'deadmail.db'}", "filesystem://", trusted_proxies=proxies
    )
    stack.app.config["DEADMAIL_LINKS_PER_MINUTE"] = 2
    proxy = {"REMOTE_ADDR": "10.0.0.2"}

    def from_(client: str) -> int:
        return stack.client.get("/s/not-a-token", headers={"X-Forwarded-For": client}, environ_base=proxy).status_code

    assert [from_("203.0.113.1"), from_("203.0.113.1")] == [403, 403]
    assert from_("203.0.113.2") == second_client
    assert from_("203.0.113.1") == 429
    stack.db.dispose()


def test_trusted_proxies_are_read_from_the_environment(tmp_path: Path) -> None:
    env = {"DEADMAIL_DATA_DIR": str(tmp_path), "DEADMAIL_SECRET_KEY": "k", "DEADMAIL_API_TOKEN": "t"}
    assert Settings.from_env(env).trusted_proxies == 0
    assert Settings.from_env({**env, "DEADMAIL_TRUSTED_PROXIES": "2"}).trusted_proxies == 2
    with pytest.raises(ValueError, match="DEADMAIL_TRUSTED_PROXIES"):
        Settings.from_env({**env, "DEADMAIL_TRUSTED_PROXIES": "-1"})


# --- Cache-Control --------------------------------------------------------------------------------------------------


def token_requests(stack: Stack) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, form) for every route a link token opens, with a working token of its kind."""
    created = api_game(stack.client, people(3))
    token = created.tokens["yellow"]
    seat_id = seat_ids(stack.db, created.id)["yellow"]
    owner = player_of(stack.db, seat_id)
    player = player_token(stack.settings.secret_key, owner.id, owner.link_generation)
    box = mailbox_token(stack.settings.secret_key)
    stack.settings.mail_dir.mkdir(parents=True, exist_ok=True)
    (stack.settings.mail_dir / "a.eml").write_bytes(
        letter("deadmail@localhost", "p0@example.org", "hello", headers={"Reply-To": "r@reply.localhost"})
    )
    csrf = {"csrf_token": csrf_token(stack.client, stack.app)}
    invitation = substitutes.offer(stack.db, created.id, "red")
    calendar = calendar_address(stack.db, stack.settings.secret_key, owner.id)
    now = utcnow()
    league = seasons.create_league(stack.db, seasons.LeagueSpec(name="Tuesday"), now)
    season = seasons.create_season(stack.db, league, now + timedelta(days=7), 3, "when_over", None, now=now)
    invite = seasons.league_link(stack.db, stack.settings.secret_key, league, "invite")
    organising = seasons.league_link(stack.db, stack.settings.secret_key, league, "organiser")
    public = seasons.league_link(stack.db, stack.settings.secret_key, league, "public")
    confirm = confirm_token(stack.settings.secret_key, season, 1)  # not an entry of that season: refused, not cached
    signin.ask(stack.db, owner.email)
    (mailed,) = rows_of_kind(stack.db, MailKind.SIGNIN)
    sign_in = signin_token(stack.settings.secret_key, mailed.payload["link"])
    proposal = proposals.create(stack.db, owner.id, proposals.NewGame(seats=4))
    proposals.invite(stack.db, proposal, owner.id, "newcomer@example.org")
    (invited,) = rows_of_kind(stack.db, MailKind.GAME_INVITE)
    game_invite = game_invite_token(stack.settings.secret_key, invited.payload["invitation"])
    game_link = game_link_token(stack.settings.secret_key, proposal, 1)
    unsubscribe = unsubscribe_token(stack.settings.secret_key, owner.id, owner.link_generation)
    return [
        ("GET", f"/unsubscribe/{unsubscribe}", {}),
        ("POST", f"/unsubscribe/{unsubscribe}", {"mode": "nonsense"}),
        ("GET", f"/g/{game_link}", {}),
        ("POST", f"/g/{game_link}", csrf),
        ("POST", f"/g/{game_link}/ask", {**csrf, "address": "not an address"}),
        ("GET", f"/invited/{game_invite}", {}),
        ("POST", f"/invited/{game_invite}", {**csrf, "answer": "nonsense"}),
        ("GET", f"/signin/{sign_in}", {}),
        ("POST", f"/signin/{sign_in}", csrf),
        ("POST", f"/p/{player}/signout", csrf),
        ("GET", f"/s/{token}", {}),
        ("GET", f"/s/{token}/live", {}),
        ("GET", f"/s/{token}/do?w=1&c=PASS", {}),
        ("POST", f"/s/{token}/do", {**csrf, "w": "1", "c": "NONSENSE"}),
        ("POST", f"/s/{token}/chat", {**csrf, "text": "hi"}),
        ("GET", f"/s/{token}/replay", {}),
        ("GET", f"/api/seat/{token}", {}),
        ("POST", f"/api/seat/{token}/answer", {}),
        ("GET", f"/api/seat/{token}/standing", {}),
        ("PUT", f"/api/seat/{token}/standing", {}),
        ("POST", f"/s/{token}/standing", {**csrf, "standing_camera": "look"}),
        ("GET", f"/s/{token}/standing/off?k=camera", {}),
        ("POST", f"/s/{token}/standing/off", {**csrf, "k": "camera"}),
        ("GET", f"/s/{token}/back", {}),
        ("POST", f"/s/{token}/back", csrf),
        ("GET", f"/p/{player}", {}),
        ("POST", f"/p/{player}", csrf),
        ("POST", f"/s/{token}/devices", csrf),  # (a form body: refused, as no subscription)
        ("POST", f"/p/{player}/devices", csrf),
        ("POST", f"/p/{player}/devices/1/remove", csrf),
        ("POST", f"/p/{player}/devices/1/test", csrf),
        ("POST", f"/p/{player}/chat", {**csrf, "address": "nonsense"}),
        ("POST", f"/p/{player}/notify", {**csrf, "notify_mode": "mail", "mail_after": "30"}),
        ("GET", f"/s/{token}/manifest.webmanifest", {}),
        ("GET", f"/p/{player}/manifest.webmanifest", {}),
        ("POST", f"/p/{player}/absences", {**csrf, "from": "x", "to": "y"}),
        ("POST", f"/p/{player}/absences/1/remove", csrf),
        ("GET", f"/api/seat/{token}/absences", {}),
        ("POST", f"/api/seat/{token}/absences", {}),
        ("DELETE", f"/api/seat/{token}/absences/1", {}),
        ("POST", f"/api/seat/{token}/back", {}),
        ("GET", f"/mail/{box}", {}),
        ("GET", f"/mail/{box}/a.eml", {}),
        ("GET", f"/mail/{box}/a.eml/html", {}),
        ("GET", f"/mail/{box}/a.eml/cid/mall-1@deadmail", {}),
        ("POST", f"/mail/{box}/a.eml/reply", {**csrf, "body": "hello"}),
        ("GET", f"/o/link/{organiser_token(stack.settings.secret_key, created.id)}", {}),
        ("GET", f"/s/{seat_token(stack.settings.secret_key, seat_id, 99)}", {}),  # a revoked link: 403
        ("GET", "/p/not-a-token", {}),
        ("GET", f"/i/{invitation}", {}),
        ("POST", f"/i/{invitation}", {**csrf, "name": "Dee", "email": "not an address"}),
        ("GET", f"/calendar/{calendar}.ics", {}),
        ("POST", f"/p/{player}/calendar", csrf),
        ("GET", f"/l/{invite}", {}),
        ("POST", f"/l/{invite}", {**csrf, "name": "Dee", "email": "not an address"}),
        ("GET", f"/l/confirm/{confirm}", {}),
        ("POST", f"/l/confirm/{confirm}", csrf),
        ("POST", f"/api/l/{invite}/signup", {}),
        ("POST", f"/api/l/confirm/{confirm}", {}),
        ("GET", f"/api/p/{player}/leagues", {}),
        ("GET", f"/api/p/{player}/seasons/{season}/standings", {}),
        ("GET", f"/api/ls/{public}/seasons/{season}/standings", {}),
        ("GET", f"/calendar/league/{public}.ics", {}),
        ("POST", f"/p/{player}/leagues/1/skip", {**csrf, "round": "1"}),
        ("GET", f"/p/{player}/leagues/1/withdraw", {}),
        ("POST", f"/p/{player}/leagues/1/withdraw", csrf),
        ("GET", f"/lo/{organising}", {}),
        ("POST", f"/lo/{organising}/channel", {**csrf, "url": "javascript:alert(1)"}),
        ("POST", f"/lo/{organising}/channel/resume", csrf),
        ("POST", f"/lo/{organising}/channel/remove", csrf),
        ("GET", f"/lo/{organising}/season/{season}", {}),
        ("POST", f"/lo/{organising}/season/{season}/plan", csrf),
        ("GET", f"/lo/{organising}/round/1", {}),
        ("POST", f"/lo/{organising}/round/1/swap", {**csrf, "a": "1", "b": "2"}),
        ("POST", f"/lo/{organising}/round/1/start", csrf),
        ("GET", f"/p/{player}/season/{season}", {}),
        ("GET", f"/p/{player}/season/{season}/games/{owner.id}", {}),
        ("GET", f"/ls/{public}", {}),
        ("GET", f"/ls/{public}/season/{season}/games/{owner.id}", {}),
        ("GET", f"/lo/{organising}/season/{season}/results", {}),
        ("GET", f"/lo/{organising}/season/{season}/standings.csv", {}),
        ("POST", f"/lo/{organising}/season/{season}/record", {**csrf, "game": "1"}),
        ("POST", f"/lo/{organising}/season/{season}/next", {**csrf, "days": "7"}),
        ("GET", f"/lo/{organising}/season/new", {}),
        ("POST", f"/lo/{organising}/season/new", {**csrf, "closes_date": "x"}),
        ("GET", f"/lo/{organising}/invite", {}),
        ("POST", f"/lo/{organising}/invite", {**csrf, "addresses": "not an address"}),
        ("GET", f"/lo/{organising}/round/1/start", {}),
        ("POST", f"/p/{player}/leagues/1/knows", {**csrf, "knows": "not an address"}),
        ("POST", f"/api/p/{player}/leagues/1/withdraw", {}),
        ("POST", f"/api/p/{player}/leagues/1/skip", {}),
    ]


def test_everything_a_link_token_opens_is_never_cached(embedded: Stack) -> None:
    stack = embedded
    with_token = {rule.endpoint for rule in stack.app.url_map.iter_rules() if "token" in rule.arguments}
    adapter = stack.app.url_map.bind("deadmail.test")
    opened = set()
    for method, path, form in token_requests(stack):
        reply = stack.client.open(path, method=method, data=form or None)
        assert reply.status_code < 500, (path, reply.status_code)
        assert reply.headers["Cache-Control"] == "no-store", (path, reply.status_code)
        opened.add(adapter.match(path.split("?")[0], method=method)[0])
    assert opened == with_token  # a new route with a token gets a line above
    # the organiser's pages and API list every seat's link: after logout, no cache or back button shows them
    log_in_as_organiser(stack.client)
    for path in ("/o/games/1", "/o/"):
        assert stack.client.get(path).headers["Cache-Control"] == "no-store", path
    assert stack.client.get("/api/games/1", headers=AUTH).headers["Cache-Control"] == "no-store"
    with stack.client.get("/static/deadmail.css") as css:  # static files may be cached
        assert "no-store" not in css.headers.get("Cache-Control", "")


# --- errors ---------------------------------------------------------------------------------------------------------


def test_errors_under_the_api_are_json_and_pages_keep_theirs(tmp_path: Path) -> None:
    stack = _stack("embedded", tmp_path, f"sqlite:///{tmp_path / 'deadmail.db'}", "filesystem://")

    @stack.app.get("/api/broken")
    def broken() -> Any:
        raise RuntimeError("a bug")

    stack.app.config["PROPAGATE_EXCEPTIONS"] = False  # as in production: an unhandled exception is a 500
    missing = stack.client.get("/api/no-such-thing")
    assert missing.status_code == 404 and missing.json is not None and missing.json["ok"] is False
    assert "not found" in missing.json["error"]
    wrong_method = stack.client.delete("/api/games")
    assert wrong_method.status_code == 405 and wrong_method.json is not None and wrong_method.json["ok"] is False
    assert "POST" in wrong_method.headers["Allow"]
    failed = stack.client.get("/api/broken")
    assert failed.status_code == 500 and failed.json is not None and failed.json["ok"] is False
    assert "a bug" not in failed.get_data(as_text=True)
    page = stack.client.get("/no-such-page")
    assert page.status_code == 404 and page.mimetype == "text/html"
    stack.db.dispose()


def test_a_database_that_is_down_is_a_503_with_retry_after_on_pages_and_the_api(embedded: Stack) -> None:
    settings = embedded.settings
    down = Database("postgresql+psycopg://postgres@127.0.0.1:9/nowhere", connect_args={"connect_timeout": 2})
    app = create_app(settings, down)
    client = app.test_client()
    token = seat_token(settings.secret_key, 1, 1)
    try:
        for reply in (
            client.get(f"/api/seat/{token}"),
            client.post(f"/api/seat/{token}/answer", json={"kind": "vote", "answer": "red"}),
            client.get("/api/games/1", headers=AUTH),
        ):
            # 30 s, or longer when the rate limit's window says so (Flask-Limiter's headers)
            assert reply.status_code == 503 and 30 <= int(reply.headers["Retry-After"]) <= 60
            assert reply.json == {"ok": False, "error": "A service is unavailable: try again in a minute."}
        page = client.get(f"/s/{token}", headers={"Accept-Language": "it"})
        assert page.status_code == 503 and 30 <= int(page.headers["Retry-After"]) <= 60 and page.mimetype == "text/html"
        assert "Riprova tra poco" in page.get_data(as_text=True)
    finally:
        down.dispose()


@pytest.fixture
def hung_port() -> Iterator[int]:
    """A port that takes connections and never answers (a broker host that hangs)."""
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(512)
        yield int(listening.getsockname()[1])


def within(seconds: float, call: Callable[[], T]) -> T:
    """``call()``, which must return within ``seconds`` (a hang fails the test instead of stopping the run)."""
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(call())
        except BaseException as exc:
            failed.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if failed:
        raise failed[0]
    assert done, f"still waiting after {seconds} s"
    return done[0]


@pytest.mark.parametrize("broker", ["stopped", "hung"])
def test_answers_pages_and_limits_work_while_the_brokers_redis_is_down(
    tmp_path: Path, request: pytest.FixtureRequest, broker: str
) -> None:
    """The broker's Redis is stopped (connections refused) or hangs (connections taken, never answered): the limiter
    counts in memory, every answer is stored, and the kick of the complete window fails within seconds and is left
    to the sweep."""
    port = free_port() if broker == "stopped" else request.getfixturevalue("hung_port")
    stack = _stack("embedded", tmp_path, f"sqlite:///{tmp_path / 'deadmail.db'}", f"redis://127.0.0.1:{port}/0")
    stack.app.config["DEADMAIL_LINKS_PER_MINUTE"] = 4
    made = within(10, lambda: api_game(stack.client, people(3)))
    window = open_window(stack.db, made.id)
    assert window is not None
    replies = []
    for row in window.requests:
        body = {"kind": row.kind, "answer": row.payload["options"][0], "window": window.number}
        path = f"/api/seat/{made.tokens[row.seat.colour]}/answer"
        replies.append(within(10, lambda path=path, body=body: stack.client.post(path, json=body)))
    assert [(r.status_code, r.json["ok"]) for r in replies if r.json is not None] == [(200, True)] * 3
    assert replies[-1].json is not None and replies[-1].json["complete"] is True
    ids = seat_ids(stack.db, made.id)
    with stack.db.session() as session:
        rows = session.execute(select(RequestRow).where(RequestRow.window_id == window.id)).scalars()
        stored = {r.seat_id: r.answer for r in rows}
    assert stored == {ids[r.seat.colour]: r.payload["options"][0] for r in window.requests}
    token = made.tokens["yellow"]
    opened = within(20, lambda: [stack.client.get(f"/s/{token}").status_code for _ in range(4)])
    assert opened == [200] * 4
    assert within(10, lambda: stack.client.get(f"/api/seat/{token}")).status_code == 429  # still limited, in memory
    guesses = within(
        30, lambda: [stack.client.get("/api/games/1", headers={"Authorization": f"Bearer {i}"}) for i in range(11)]
    )
    assert [g.status_code for g in guesses[:10]] == [401] * 10
    refused_for_a_minute(guesses[10])
    stack.db.dispose()


# --- the SMTP listener ----------------------------------------------------------------------------------------------


@contextmanager
def listening(stack: Stack, lmtp: bool = False, **limits: int) -> Iterator[tuple[int, list[str]]]:
    """A real listener (aiosmtpd) with these limits, on a free port; its progress lines."""
    lines: list[str] = []
    port = free_port()
    settings = replace(mail_settings(stack.settings), **limits)
    controller = inbound.controller(settings, stack.db, ("127.0.0.1", port), lmtp, progress=lines.append)
    controller.start()
    try:
        yield port, lines
    finally:
        controller.stop()


def send(port: int, sender: str, source: str = "127.0.0.1", lmtp: bool = False) -> int:
    """One message from ``sender``, sent from the address ``source``: the code MAIL FROM (or the delivery) got."""
    to = f"r-1-1-1-{'a' * 26}@{REPLY_DOMAIN}"  # not signed by this server: taken (250) and recorded as forged
    kind = smtplib.LMTP if lmtp else smtplib.SMTP
    with kind("127.0.0.1", port, source_address=(source, 0), timeout=10) as client:
        try:
            client.sendmail(sender, [to], letter(sender, to, "VOTE RED"))
        except smtplib.SMTPSenderRefused as refused:
            assert b"4.7.1" in refused.smtp_error
            return refused.smtp_code
    return 250


def inbound_count(stack: Stack) -> int:
    with stack.db.session() as session:
        return int(session.execute(select(func.count()).select_from(InboundMail)).scalar_one())


def test_the_listener_takes_so_many_messages_a_minute_from_a_client_then_451(embedded: Stack) -> None:
    with listening(embedded, inbound_per_minute=3, inbound_per_sender=100) as (port, lines):
        codes = [send(port, f"p{i}@example.org") for i in range(5)]
        assert codes == [250, 250, 250, 451, 451]
        assert inbound_count(embedded) == 3  # the refused ones were not taken
        assert send(port, "p9@example.org", source="127.0.0.2") == 250  # another client
        assert lines.count("inbound: too many messages (451, the sender will try again)") == 2


def test_the_listener_takes_so_many_messages_a_minute_from_a_sender_then_451(embedded: Stack) -> None:
    with listening(embedded, inbound_per_minute=100, inbound_per_sender=2) as (port, _lines):
        sender = "Eve@Example.org"
        codes = [send(port, sender), send(port, sender.lower(), source="127.0.0.2"), send(port, sender)]
        assert codes == [250, 250, 451]  # the address is counted whatever the client and the letters' case
        assert send(port, "ann@example.org") == 250
        assert inbound_count(embedded) == 3


def test_over_lmtp_only_senders_are_counted(embedded: Stack) -> None:
    """Behind Postfix every message comes from Postfix's address: it limits its own clients."""
    with listening(embedded, lmtp=True, inbound_per_minute=1, inbound_per_sender=2) as (port, _lines):
        assert [send(port, f"p{i}@example.org", lmtp=True) for i in range(3)] == [250] * 3
        assert [send(port, "p0@example.org", lmtp=True) for _ in range(2)] == [250, 451]


def test_answers_are_counted_once_each_across_their_endpoints_and_web_processes(stack: Stack) -> None:
    """Answers (issue 29's fixed window: one increment an answer) from one client are counted together whatever the
    way in (the API, the page's form), each response says how many are left this minute, the one past the limit is
    a 429; another web process (another app on the same settings) goes on with the same count when the counts are
    in Redis (production), and has its own in the embedded default (one process)."""
    stack.app.config["DEADMAIL_ANSWERS_PER_MINUTE"] = 4
    made = api_game(stack.client, people(3))
    token = made.tokens["yellow"]
    body = {"kind": "place", "answer": {}}  # refused by the engine (422): counted all the same
    left = []
    for _ in range(3):
        reply = stack.client.post(f"/api/seat/{token}/answer", json=body)
        assert reply.status_code == 422 and reply.headers["X-RateLimit-Limit"] == "4"
        left.append(int(reply.headers["X-RateLimit-Remaining"]))
    assert left == [3, 2, 1]
    other = create_app(stack.settings, stack.db)
    other.config["DEADMAIL_ANSWERS_PER_MINUTE"] = 4
    client = other.test_client()
    form = client.post(f"/s/{token}/do", data={"csrf_token": csrf_token(client, other), "c": "NONSENSE"})
    assert form.status_code == 409  # (no window named: refused, and counted)
    if stack.name == "production":  # the fourth answer of the minute, then the fifth is refused
        assert int(form.headers["X-RateLimit-Remaining"]) == 0
        refused_for_a_minute(stack.client.post(f"/api/seat/{token}/answer", json=body))
    else:  # the other process's first
        assert int(form.headers["X-RateLimit-Remaining"]) == 3
        assert stack.client.post(f"/api/seat/{token}/answer", json=body).headers["X-RateLimit-Remaining"] == "0"
        refused_for_a_minute(stack.client.post(f"/api/seat/{token}/answer", json=body))
    assert stack.client.post(f"/api/seat/{token}/answer", json=body, environ_base=ELSEWHERE).status_code == 422
