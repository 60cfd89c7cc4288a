"""The player's hub (/p/<token>): their games (what is asked of them now and its deadline in their zone,
finished ones with their place and the replay, seats they no longer hold not linked) and their rating across all
games (``ratings.rate_games`` over the finished games, "new" under 5 games), read in few queries."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import sqlalchemy as sa
from markupsafe import escape

import engine
from server.db import Database
from server.models import Game, Player, Seat
from server.present.seat import ordinal
from server.services import hub
from server.services.leagues import ratings
from server.services.links import player_token, seat_token
from server.services.play import organise, outcome, turns
from server.services.play.places import FinishedGame, SeatResult, Tenure, placings
from server.text import glossary
from server.text.i18n import format_when
from tests.conftest import Stack
from tests.server.test_replay import finish
from tests.support import T0, create_tagged, engine_of, request_of, seat_ids, stop_signing_clock

ZONE = "Asia/Tokyo"


@pytest.fixture(autouse=True)
def _stopped_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Signed links are the same on every rendering: the page's are compared with the test's."""
    stop_signing_clock(monkeypatch)


@contextmanager
def statements(db: Database) -> Iterator[list[str]]:
    """The SQL statements run on ``db``'s engine meanwhile."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    sa.event.listen(db.engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", record)


def page(stack: Stack, player_id: int) -> str:
    response = stack.client.get(f"/p/{player_token(stack.settings.secret_key, player_id, 1)}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def seat_row(db: Database, seat_id: int) -> tuple[int, int]:
    """(player id, link generation) of the seat."""
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None and seat.player_id is not None
        return seat.player_id, seat.link_generation


def shown(text: str) -> str:
    return str(escape(text))


@pytest.mark.rule("B-INFO")
def test_a_running_game_shows_what_is_asked_of_the_player_and_nothing_of_another_seat(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=61, prefs={0: {"timezone": ZONE}})
    seats = seat_ids(stack.db, created.game_id)
    yellow = seats["yellow"]
    player_id, generation = seat_row(stack.db, yellow)
    found = request_of(stack.db, yellow)
    assert found is not None
    window, row = found
    text = page(stack, player_id)
    assert 'id="games"' in text and "Mall of Horror, game" in text
    assert shown(glossary.kind_name("en", row.kind)) in text
    assert shown(format_when(window.deadline, T0, ZONE, "en")[0]) in text
    assert f"/s/{seat_token(stack.settings.secret_key, yellow, generation)}" in text
    # the page comes before the preferences
    assert text.index('id="games"') < text.index('id="rating"') < text.index("<form")

    # yellow answers; the others still owe theirs: the hub says nothing of them
    eng = engine_of(stack.db, created.game_id)
    req = next(r for r in eng.pending() if r.player == "yellow")
    value = engine.bots.RandomBot(3).decide(eng, req)
    turns.submit_answer(stack.db, yellow, row.kind, value, window_number=window.number, now=T0)
    still = [request_of(stack.db, seat) for colour, seat in seats.items() if colour != "yellow"]
    assert any(owed is not None and owed[1].answered_at is None for owed in still)
    text = page(stack, player_id)
    assert "Nothing asked of you now." in text
    assert "Asked of you now" not in text
    for colour, seat in seats.items():
        if colour != "yellow":
            other = seat_row(stack.db, seat)[1]
            assert seat_token(stack.settings.secret_key, seat, other) not in text


def test_a_finished_game_shows_the_place_and_the_replay_and_a_replaced_seat_is_not_linked(stack: Stack) -> None:
    created = create_tagged(stack.db, 3, seed=41, bots=1, tag=7)
    eng = finish(stack.db, created.game_id, seed=41)
    yellow = seat_ids(stack.db, created.game_id)["yellow"]
    player_id, generation = seat_row(stack.db, yellow)
    outcome = eng.outcome
    colours = list(outcome["scores"])
    places = {c: (p, span) for c, p, span in placings(colours, outcome["scores"], outcome["cards"])}
    place, span = places["yellow"]
    expected = ("shared " if span > 1 else "") + f"{ordinal('en', place)} of {len(colours)}"
    points = outcome["scores"]["yellow"]

    # a second game, where the player's seat went to a bot
    other = create_tagged(stack.db, 3, seed=43, tag=7)
    colour, other_seat = next(
        (c, s) for c, s in seat_ids(stack.db, other.game_id).items() if seat_row(stack.db, s)[0] == player_id
    )
    old_generation = seat_row(stack.db, other_seat)[1]
    organise.replace_seat(stack.db, other.game_id, colour, bot="random", now=T0)

    text = page(stack, player_id)
    assert f"{expected}, {points} victory point" in text  # the game's points, never taken for a league's
    token = seat_token(stack.settings.secret_key, yellow, generation)
    assert f'href="/s/{token}/replay"' in text
    # the replaced seat is listed, not linked (by no generation of its link)
    assert f"game {other.game_id}" in text and "You no longer hold this seat." in text
    for gen in range(1, old_generation + 3):
        assert seat_token(stack.settings.secret_key, other_seat, gen) not in text


def expected_games(db: Database, game_ids: list[int]) -> list[FinishedGame]:
    """The finished games as the ratings take them, built here from each engine's outcome (one person a seat)."""
    out = []
    for game_id in game_ids:
        outcome = engine_of(db, game_id).outcome
        with db.session() as session:
            holders = dict(session.execute(sa.select(Seat.colour, Seat.player_id).where(Seat.game_id == game_id)).all())
            game = session.get(Game, game_id)
            assert game is not None
            finished_at = game.updated_at
        placed = placings(list(outcome["scores"]), outcome["scores"], outcome["cards"])
        seats = tuple(SeatResult(p, (Tenure(holders[c], 1.0),)) for c, p, _span in placed)
        out.append(FinishedGame(game_id, finished_at, seats))
    return out


@pytest.mark.long(15)
def test_the_rating_across_all_games_is_new_under_five_games_then_openskills_in_few_queries(stack: Stack) -> None:
    game_ids = []
    for n in range(5):
        created = create_tagged(stack.db, 3, seed=70 + n, tag=9)
        finish(stack.db, created.game_id, seed=70 + n)
        game_ids.append(created.game_id)
        if n == 3:
            player_id = seat_row(stack.db, seat_ids(stack.db, created.game_id)["yellow"])[0]
            text = page(stack, player_id)
            assert "new: fewer than 5 games" in text and "rated over 4 games" in text
    games = expected_games(stack.db, game_ids)
    # stored as each game ended (here each game's clock starts again at T0: the order they were played in)
    expected: dict[int, ratings.Rating] = {}
    for game in games:
        ratings.rate_game(expected, game)
    with stack.db.session() as session:
        found = outcome.finished_games(session)
    assert {g.id: (g.finished_at, sorted(g.seats, key=repr)) for g in found} == {
        g.id: (g.finished_at, sorted(g.seats, key=repr)) for g in games
    }
    figures = ratings.shown(expected[player_id])
    assert not figures.new
    text = page(stack, player_id)
    assert f"{figures.ordinal} ± {figures.uncertainty}" in text and "rated over 5 games" in text
    assert "new: fewer than" not in text

    # few queries, whatever the number of games
    with stack.db.session() as session:
        session.execute(sa.select(1))
        with statements(stack.db) as seen:
            outcome.finished_games(session)
    assert len(seen) == 2
    with statements(stack.db) as seen:
        listed = hub.games(stack.db, player_id)
    assert len(listed) == 5 and sum(1 for s in seen if s.lstrip().upper().startswith("SELECT")) == 1


def test_shares_of_a_handed_over_seat() -> None:
    # one person alone: 1.0, whatever they answered
    assert outcome._tenures(4, {4: (10, 0)}) == (Tenure(4, 1.0),)
    # a person then a bot: by answered requests
    assert outcome._tenures(None, {4: (6, 3), None: (4, 1)}) == (Tenure(4, 0.75), Tenure(None, 0.25))
    # two people, none answered by themselves: by requests owed
    assert outcome._tenures(5, {4: (3, 0), 5: (1, 0)}) == (Tenure(4, 0.75), Tenure(5, 0.25))


def test_a_player_with_no_game_is_new(embedded: Stack) -> None:
    with embedded.db.session() as session:
        player = Player(email="lone@example.org", display_name="Lone")
        session.add(player)
        session.flush()
        player_id = player.id
    text = page(embedded, player_id)
    assert "No game yet." in text and "new: fewer than 5 games" in text


def test_a_player_without_a_rated_game_is_told_so_not_rated_over_zero_games() -> None:
    from server.present.hub import rating_shown

    assert rating_shown("en", None)["games"] == "no rated game yet"
    assert rating_shown("it", None)["games"] == "nessuna partita valutata finora"


@pytest.mark.parametrize(
    ("lang", "title"),
    [
        ("en", "Your games, leagues and preferences"),
        ("it", "Le tue partite, leghe e preferenze"),
        ("pl", "Twoje gry, ligi i preferencje"),
    ],
)
def test_the_hub_is_titled_for_what_it_holds(stack: Stack, lang: str, title: str) -> None:
    """The player's page holds their games, leagues, ratings and preferences: its title says so (not "Your
    preferences"); the preferences keep their own heading."""
    with stack.db.session() as session:
        player = Player(email="hub@example.org", display_name="Hub", language=lang)
        session.add(player)
        session.flush()
        player_id = player.id
    text = page(stack, player_id)
    assert f"<title>{title} · deadmail</title>" in text and f"<h1>{title}</h1>" in text
    assert text.index('<h2 id="preferences">') < text.index('<form method="post"')
