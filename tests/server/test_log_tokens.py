"""No log line carries a link's token: an error on a link's route is logged by Flask with the path's token cut
(``/s/WzE0…/answer``), and so are the request logs of the web servers (werkzeug's, waitress', gunicorn's)."""

from __future__ import annotations

import logging
import threading
import urllib.error
import urllib.request
from typing import Any

import pytest
from werkzeug.serving import make_server

from server.services.links import mailbox_token, organiser_token, player_token
from server.services.play import seats, turns
from server.web.logs import PATH_LOGGERS, cut_tokens
from tests.conftest import Stack
from tests.support import api_game, forged, people, player_of, post_form, seat_ids


def boom(*_args: Any, **_kwargs: Any) -> Any:
    raise RuntimeError("the service failed")


def logged(caplog: pytest.LogCaptureFixture) -> str:
    """Every record captured, as a handler formats it (message and traceback)."""
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    return "\n".join(formatter.format(record) for record in caplog.records)


@pytest.mark.parametrize(
    ("method", "path", "failing"),
    [
        ("GET", "/s/{token}", "seat_view"),
        ("POST", "/api/seat/{token}/answer", "submit_answer"),
        ("GET", "/api/seat/{token}", "seat_view"),
        ("POST", "/s/{token}/do", "seat_view"),
    ],
)
def test_an_error_on_a_seat_route_logs_its_path_with_the_token_cut(
    stack: Stack,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    method: str,
    path: str,
    failing: str,
) -> None:
    game = api_game(stack.client, people(3))
    token = game.tokens["yellow"]
    monkeypatch.setattr(seats if failing == "seat_view" else turns, failing, boom)
    stack.app.config["PROPAGATE_EXCEPTIONS"] = False  # as served: the error is logged and answered 500
    url = path.format(token=token)

    with caplog.at_level(logging.INFO):
        if method == "GET":
            reply = stack.client.get(url)
        elif url.startswith("/api/"):
            reply = stack.client.post(url, json={"kind": "vote", "answer": "red"})
        else:
            reply = post_form(stack.client, stack.app, url, {"command": "vote red"})

    assert reply.status_code == 500
    text = logged(caplog)
    assert "the service failed" in text  # the error was logged, with its traceback
    assert token not in text and token[:12] not in text
    assert path.format(token=token[:4] + "…") in text


def test_every_link_route_is_cut(embedded: Stack) -> None:
    s = embedded.settings
    game = api_game(embedded.client, people(3), seed=3)
    seat = seat_ids(embedded.db, game.id)["yellow"]
    player = player_of(embedded.db, seat)
    tokens = [
        *game.tokens.values(),
        player_token(s.secret_key, player.id, player.link_generation),
        organiser_token(s.secret_key, game.id),
        mailbox_token(s.secret_key),
    ]
    paths = {
        "/s/{}/replay": tokens[0],
        "/s/{}/chat": tokens[1],
        "/p/{}": tokens[3],
        "/o/link/{}": tokens[4],
        "/mail/{}/0001-turn.eml/reply": tokens[5],
        "/api/seat/{}/answer": tokens[2],
    }
    for path, token in paths.items():
        line = f'127.0.0.1 - - "GET {path.format(token)}?x=1 HTTP/1.1" 500 - "http://h{path.format(token)}"'
        cut = cut_tokens(line)
        assert token not in cut and token[:5] not in cut, cut
        assert cut.count(path.format(token[:4] + "…")) == 2
    assert cut_tokens("/static/app.css /o/games/12 /healthz /s/") == "/static/app.css /o/games/12 /healthz /s/"
    lobby = "/games/12/invite /games/new /lobby /api/lobby"
    assert cut_tokens(lobby) == lobby
    assert cut_tokens(cut_tokens(f"/s/{tokens[0]}/do")) == f"/s/{tokens[0][:4]}…/do"


def test_werkzeugs_request_log_has_the_token_cut(embedded: Stack, caplog: pytest.LogCaptureFixture) -> None:
    """The request log of werkzeug's server (``flask run``, the browser tests), on a real port."""
    token = api_game(embedded.client, people(3)).tokens["red"]
    server = make_server("127.0.0.1", 0, embedded.app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with caplog.at_level(logging.INFO, logger="werkzeug"):
            url = f"http://127.0.0.1:{server.server_port}/api/seat/{token}"
            with urllib.request.urlopen(url, timeout=10) as reply:
                assert reply.status == 200
            with pytest.raises(urllib.error.HTTPError):
                urllib.request.urlopen(forged(url), timeout=10)  # a refused link: 403
    finally:
        server.shutdown()
        thread.join(10)
    requests = [r for r in caplog.records if r.name == "werkzeug" and "GET /api/seat/" in r.getMessage()]
    assert len(requests) == 2
    text = logged(caplog)
    assert token[:-3] not in text and f"GET /api/seat/{token[:4]}… HTTP/1.1" in text


@pytest.mark.parametrize("name", PATH_LOGGERS)
def test_the_web_servers_loggers_cut_tokens(embedded: Stack, caplog: pytest.LogCaptureFixture, name: str) -> None:
    """waitress ("Exception while serving <path>") and gunicorn (its error log, and its access log with the
    request line and the referrer, formatted from a dict of atoms) log paths too: the app's filter is on them."""
    token = api_game(embedded.client, people(3)).tokens["blue"]
    atoms = {"r": f"POST /s/{token}/do HTTP/1.1", "f": f"http://deadmail.test/s/{token}", "s": "500"}
    with caplog.at_level(logging.INFO, logger=name):
        logging.getLogger(name).error("Exception while serving %s", f"/s/{token}/do")
        logging.getLogger(name).info('"%(r)s" %(s)s "%(f)s"', atoms)
    text = logged(caplog)
    assert token not in text
    assert f"Exception while serving /s/{token[:4]}…/do" in text
    assert f'"POST /s/{token[:4]}…/do HTTP/1.1" 500 "http://deadmail.test/s/{token[:4]}…"' in text


@pytest.mark.parametrize(
    "path",
    [
        "/l/{t}",
        "/l/confirm/{t}",
        "/api/l/{t}/signup",
        "/api/l/confirm/{t}",
        "/ls/{t}/season/1/games/2",
        "/calendar/league/{t}.ics",
        "/calendar/{t}.ics",
        "/lo/{t}/season/1",
        "/signin/{t}",
        "/g/{t}",
        "/g/{t}/ask",
        "/invited/{t}",
    ],
)
def test_the_league_links_tokens_are_cut_from_logged_paths(path: str) -> None:
    """Leagues' invitation, confirmation, public and organiser links, calendar links, sign-in links and players' own
    games' shareable links and invitations (a logged confirmation link would let a log's reader confirm someone's
    sign-up; a logged sign-in link, sign in; a logged invitation, take its seat)."""
    token = "eyJhbGciOiJIUzI1NiJ9.abcdefghijk.lmnopqrstu"
    assert token[4:] not in cut_tokens(path.format(t=token))
