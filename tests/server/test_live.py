"""The live server (server/run/live.py) on both databases: a seat link's stream says the game's stamp at once and
each change within a second (an answer in, a window advanced, a deadline moved), the same for every seat of the
game; forged and revoked links are refused; one read of the database per period, whatever the number of pages."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
import requests

from server.models import Seat, utcnow
from server.run.live import WATCH, Background
from server.services.links import seat_token
from server.services.play import games, organise, turns
from server.services.play.live import stamps
from server.services.play.seats import revoke_links
from tests.conftest import Stack
from tests.server.test_push import answer_first
from tests.support import open_window, seat_ids

EMAILS = ["ann@example.org", "bob@example.org", "cy@example.org"]


@pytest.fixture
def live(stack: Stack) -> Iterator[Background]:
    server = Background(stack.settings, stack.db, "127.0.0.1", 0, every=0.2, present=0.2).start()
    yield server
    server.stop()


def events(url: str) -> queue.Queue[tuple[str, str]]:
    """The stream's events, read in a thread: (event, data)."""
    found: queue.Queue[tuple[str, str]] = queue.Queue()

    def read() -> None:
        try:
            with requests.get(url, stream=True, timeout=30) as reply:
                found.put(("status", str(reply.status_code)))
                name = ""
                for line in reply.iter_lines(decode_unicode=True):
                    if line.startswith("event: "):
                        name = line[7:]
                    elif line.startswith("data: "):
                        found.put((name, line[6:]))
        except requests.RequestException:  # the server stopped at the end of the test
            found.put(("closed", ""))

    threading.Thread(target=read, daemon=True).start()
    return found


def new_game(stack: Stack) -> int:
    people = [games.PlayerSpec(name=e.split("@")[0].title(), email=e) for e in EMAILS]
    return games.create_game(stack.db, games.GameSpec(players=people, seed=7), now=utcnow()).game_id


def test_a_stream_tells_the_stamp_and_each_change(stack: Stack, live: Background) -> None:
    game_id = new_game(stack)
    seats = seat_ids(stack.db, game_id)
    base = f"http://127.0.0.1:{live.port}/live/"
    streams = {c: events(base + seat_token(stack.settings.secret_key, s, 1)) for c, s in seats.items()}
    for found in streams.values():
        assert found.get(timeout=5) == ("status", "200")
        assert found.get(timeout=5) == ("stamp", stamps(stack.db, [game_id])[game_id])

    def changed() -> str:
        values = {c: found.get(timeout=2) for c, found in streams.items()}
        assert len(set(values.values())) == 1 and next(iter(values.values()))[0] == "change"  # the same for every seat
        return next(iter(values.values()))[1]

    answer_first(stack.db, game_id, utcnow())  # an answer in
    assert changed() == stamps(stack.db, [game_id])[game_id]
    window = open_window(stack.db, game_id)
    assert window is not None
    organise.extend_deadline(stack.db, game_id, by=timedelta(hours=6))  # a deadline moved
    assert changed() == stamps(stack.db, [game_id])[game_id]
    for _row in window.requests[1:]:  # the others answer, the window advances: a new window
        answer_first(stack.db, game_id, utcnow())
    turns.advance_window(stack.db, window.id)
    now = stamps(stack.db, [game_id])[game_id]
    for found in streams.values():  # (the last answer and the advance may come as one change or as two)
        deadline = time.monotonic() + 2
        while found.get(timeout=max(0.01, deadline - time.monotonic()))[1] != now:
            pass


def test_the_stream_refuses_forged_and_revoked_links_and_reads_once_per_period(stack: Stack, live: Background) -> None:
    base = f"http://127.0.0.1:{live.port}/live/"
    assert requests.get(base + "forged", timeout=5).status_code == 403
    game_ids = [new_game(stack) for _ in range(3)]
    links = [seat_token(stack.settings.secret_key, s, 1) for g in game_ids for s in seat_ids(stack.db, g).values()]
    opened = [events(base + link) for link in links]
    for found in opened:
        assert found.get(timeout=5) == ("status", "200")
        assert found.get(timeout=5)[0] == "stamp"
    watch = live.app[WATCH]
    before = watch.reads
    time.sleep(1.0)
    assert 3 <= watch.reads - before <= 7  # every 0.2 s, one read for the nine pages of three games
    with stack.db.session() as session:  # the first seat's links revoked: its stream opens nothing any more
        revoke_links(session.get(Seat, seat_ids(stack.db, game_ids[0])["yellow"]))  # type: ignore[arg-type]
    assert requests.get(base + links[0], timeout=5).status_code == 403
    reply = requests.get(base + links[1], stream=True, timeout=5)
    assert reply.headers["Content-Type"] == "text/event-stream"
    assert reply.headers["Access-Control-Allow-Origin"] == stack.settings.base_url
    reply.close()


def test_the_pages_show_who_is_at_the_table_in_every_game(stack: Stack, live: Background) -> None:
    """Outside any session of play hours: the seats whose pages listen to the live server are on their page now,
    and every page of the game says so (presence is public); nobody's page listening, nobody is named."""
    game_id = new_game(stack)
    seats = seat_ids(stack.db, game_id)
    token = {c: seat_token(stack.settings.secret_key, s, 1) for c, s in seats.items()}
    blue = stack.client.get(f"/s/{token['blue']}").get_data(as_text=True)
    assert "On their page now" not in blue
    for colour in ("yellow", "red"):
        found = events(f"http://127.0.0.1:{live.port}/live/{token[colour]}")
        assert found.get(timeout=5) == ("status", "200")
    time.sleep(0.8)  # (the live server says who is here every 0.2 s in this test)
    blue = stack.client.get(f"/s/{token['blue']}/live").get_data(as_text=True)
    assert "On their page now: Yellow, Red." in " ".join(blue.split())
