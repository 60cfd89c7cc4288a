"""One-tap links from mails: a GET shows a confirm page and changes nothing; the confirmed POST stores exactly the
answer of the link, through the same path as web answers; closed windows, bad commands and forged links change
nothing and say why."""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa

import engine
from server.db import Database
from server.models import RequestRow
from server.services.play import games, turns
from server.text.grammar import parse_reply
from server.text.sentences import describe_answer
from tests.conftest import Stack
from tests.support import (
    T0,
    all_rows,
    compose,
    create_tagged,
    csrf_token,
    engine_of,
    html_of,
    mail_settings,
    one_tap_links,
    outbox_ids,
    request_of,
    seat_of,
    turn_rows,
)


def _path(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def _confirm_form(page: str) -> dict[str, str]:
    """The hidden fields of the confirm page's form."""
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', page))
    return {k: html.unescape(v) for k, v in fields.items()}


def _stored(db: Database, seat_id: int) -> tuple[Any, dt.datetime | None]:
    """The answer stored on the seat's latest request row, and when."""
    with db.session() as session:
        row = (
            session.execute(sa.select(RequestRow).where(RequestRow.seat_id == seat_id).order_by(RequestRow.id.desc()))
            .scalars()
            .first()
        )
        assert row is not None
        return row.answer, row.answered_at


def _mail_links(stack: Stack, created: games.Created) -> tuple[int, dict[str, str]]:
    """The seat of the game's first turn mail, and the one-tap links of that mail (command -> URL)."""
    row = turn_rows(stack.db, outbox_ids(stack.db, created.game_id))[0]
    message = compose(stack.db, row.id, mail_settings(stack.settings), now=T0)
    assert message is not None
    assert row.seat_id is not None
    return row.seat_id, one_tap_links(html_of(message))


def test_each_link_opens_a_confirm_page_and_the_post_stores_exactly_its_answer(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=12)
    seat_id, links = _mail_links(stack, created)
    found = request_of(stack.db, seat_id)
    assert found is not None
    window, request = found
    view = engine.view(engine_of(stack.db, created.game_id), seat_of(stack.db, seat_id).colour)
    client = stack.client
    token = csrf_token(client, stack.app)
    assert len(links) >= 2
    for command, url in links.items():
        expected = parse_reply(command, request.payload, view, "en")
        before = all_rows(stack.db)
        page = client.get(_path(url))
        assert page.status_code == 200
        text = page.get_data(as_text=True)
        assert "You are about to:" in text
        assert html.escape(describe_answer("en", request.payload, expected), quote=False) in text
        assert all_rows(stack.db) == before  # a GET never changes anything
        fields = _confirm_form(text)
        assert fields["w"] == str(window.number) and fields["c"] == command
        action = re.search(r'<form method="post" action="([^"]+)"', text)
        assert action is not None
        posted = client.post(action[1], data={**fields, "csrf_token": token})
        assert posted.status_code == 303
        assert posted.headers["Location"].endswith(f"?saved={window.number}")
        answer, answered_at = _stored(stack.db, seat_id)
        assert answered_at is not None and answer == expected
    # the last answer stands; a POST without the CSRF token is refused and changes nothing
    before = all_rows(stack.db)
    first = next(iter(links.values()))
    refused = client.post(urlsplit(first).path, data={"w": str(window.number), "c": next(iter(links))})
    assert refused.status_code == 400
    assert all_rows(stack.db) == before


def test_a_closed_window_a_bad_command_or_a_forged_link_changes_nothing(embedded: Stack) -> None:
    created = create_tagged(embedded.db, 3, seed=13)
    seat_id, links = _mail_links(embedded, created)
    found = request_of(embedded.db, seat_id)
    assert found is not None
    window = found[0]
    client = embedded.client
    token = csrf_token(client, embedded.app)
    command, url = next(iter(links.items()))
    path = urlsplit(url).path
    seat_token = path.split("/")[2]
    forged = seat_token[:-3] + ("AAA" if not seat_token.endswith("AAA") else "BBB")
    before = all_rows(embedded.db)
    cases = [
        (f"{path}?w={window.number}&c=DANCE", 400, "is not an answer you can give now"),
        (f"{path}?w={window.number}&c=", 400, "This link does not hold an answer."),
        (f"{path}?w={window.number}&c=" + "X" * 400, 400, "This link does not hold an answer."),
        (f"{path}?w={window.number}&c=%3Cscript%3EVOTE", 400, "&lt;script&gt;"),
        (f"{path}?w={window.number + 1}&c={command}", 409, "This decision is closed"),
        (f"/s/{forged}/do?w={window.number}&c={command}", 403, "not valid"),
    ]
    for target, status, words in cases:
        got = client.get(target)
        assert got.status_code == status, target
        assert words in got.get_data(as_text=True)
        posted = client.post(
            urlsplit(target).path, data={"w": target.split("w=")[1].split("&")[0], "csrf_token": token}
        )
        assert posted.status_code in (400, 403, 409)
    assert all_rows(embedded.db) == before

    # the window closes (deadline passed): the old link says so, and nothing changes
    assert turns.advance_window(embedded.db, window.id, now=window.deadline) is True
    before = all_rows(embedded.db)
    got = client.get(_path(url))
    assert got.status_code == 409 and "This decision is closed" in got.get_data(as_text=True)
    posted = client.post(path, data={"w": str(window.number), "c": command, "csrf_token": token})
    assert posted.status_code == 409
    assert all_rows(embedded.db) == before


def test_the_confirm_page_speaks_the_players_language(embedded: Stack) -> None:
    created = create_tagged(embedded.db, 3, seed=14, prefs={i: {"language": "it"} for i in range(3)})
    seat_id, links = _mail_links(embedded, created)
    found = request_of(embedded.db, seat_id)
    assert found is not None
    request = found[1]
    command, url = next(iter(links.items()))
    assert command.startswith("PIAZZA ")
    page = embedded.client.get(_path(url), headers={"Accept-Language": "pl"})
    assert page.status_code == 200
    view = engine.view(engine_of(embedded.db, created.game_id), seat_of(embedded.db, seat_id).colour)
    meaning = describe_answer("it", request.payload, parse_reply(command, request.payload, view, "it"))
    assert html.escape(meaning, quote=False) in page.get_data(as_text=True)
