"""The preferences page (/p/<token>) and its service: settings saved only when every value is valid, hostile values
refused with a message and nothing changed, CSRF and signed links required; standing victim orders (RULES.md H-5)
are the engine's: a new one answers a pending victim request at once (its window closes), and later victim
requests are never asked."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Callable
from email.message import EmailMessage
from typing import Any

import flask
import flask_babel
import pytest
import sqlalchemy as sa
from flask import Flask
from markupsafe import escape
from werkzeug.test import TestResponse

import engine
from engine.bots import RandomBot
from engine.config import Config
from engine.data import CHARACTERS
from engine.requests import by_standing_order
from server.db import Database
from server.models import Game, Player, RequestRow, Seat, Window
from server.services.attendance import prefs
from server.services.links import PLAYER_SALT, LinkError, player_token, read_player_token, seat_token, serializer
from server.services.play import organise, turns
from server.services.play.seats import rotate_link
from server.text.i18n import translations
from tests.conftest import Stack
from tests.support import (
    T0,
    all_rows,
    closed_window,
    compose,
    create,
    engine_of,
    mail_settings,
    open_window,
    player_of,
    post_form,
    recording,
    seat_ids,
    text_of,
)

GOOD = {
    "language": "it",
    "timezone": "Europe/Rome",
    "quiet_start": "22:30",
    "quiet_end": "07:15",
    "mail_mode": "digest",
    "digest_hours": "12",
}


def stored(db: Database, player_id: int) -> dict[str, Any]:
    """The player's settings, and the standing order of each of their seats as the engine keeps it."""
    with db.session() as session:
        player = session.get(Player, player_id)
        assert player is not None
        keys = ("language", "timezone", "quiet_start", "quiet_end", "mail_mode", "digest_hours")
        values = {key: getattr(player, key) for key in keys}
        seats = session.execute(sa.select(Seat.id, Seat.game_id, Seat.colour).where(Seat.player_id == player_id))
        places = list(seats.all())
    orders = {seat: engine.view(engine_of(db, game), colour)["standing_order"] for seat, game, colour in places}
    return values | {"orders": orders}


def one_player(stack: Stack, seed: int = 5) -> tuple[int, int, str, int]:
    """A new 3-player game: (game id, yellow's player id, yellow's preferences token, yellow's seat id)."""
    created = create(stack.db, 3, seed)
    seat = seat_ids(stack.db, created.game_id)["yellow"]
    player_id = player_of(stack.db, seat).id
    return created.game_id, player_id, player_token(stack.settings.secret_key, player_id, 1), seat


def post(stack: Stack, token: str, values: dict[str, Any], csrf: bool = True) -> TestResponse:
    return post_form(stack.client, stack.app, f"/p/{token}", values, csrf)


def order_fields(seat_id: int, order: list[str]) -> dict[str, str]:
    return {f"order_{seat_id}_{i}": order[i] if i < len(order) else "" for i in range(4)}


# --- showing and saving ----------------------------------------------------------------------------------------------


def test_the_page_shows_the_form_with_the_current_values_and_the_running_games(embedded: Stack) -> None:
    game_id, player_id, token, seat = one_player(embedded)
    with embedded.db.session() as session:
        player = session.get(Player, player_id)
        assert player is not None
        player.display_name = "<script>Eve</script>"

    page = embedded.client.get(f"/p/{token}")

    assert page.status_code == 200
    body = page.get_data(as_text=True)
    assert "<script>" not in body and "For &lt;script&gt;Eve&lt;/script&gt; (p0@example.org)" in body
    assert 'name="csrf_token"' in body
    assert '<option selected value="en">English</option>' in body
    assert '<option value="UTC" selected>UTC</option>' in body
    assert '<option value="Europe/Rome">Rome</option>' in body
    assert body.index('value="Europe/Rome"') < body.index('value="Africa/Abidjan"')  # common zones first
    assert 'type="time"' in body and 'name="quiet_start"' in body and 'name="quiet_end"' in body
    assert 'name="mail_mode" type="radio" value="digest"' in body
    assert f"Game {game_id}" in body
    for i in range(4):
        assert f'name="order_{seat}_{i}"' in body


@pytest.mark.parametrize(("lang", "browser"), [("it", "en"), ("pl", "it"), ("en", "pl")])
def test_the_page_is_rendered_in_the_players_language_not_the_browsers(
    embedded: Stack, lang: str, browser: str
) -> None:
    _game, player_id, token, _seat = one_player(embedded)
    with embedded.db.session() as session:
        player = session.get(Player, player_id)
        assert player is not None
        player.language = lang
    locales: list[str] = []

    def seen(_app: Flask, template: Any, context: Any) -> None:
        locales.append(str(flask_babel.get_locale()))

    with flask.template_rendered.connected_to(seen, embedded.app):
        page = embedded.client.get(f"/p/{token}", headers={"Accept-Language": browser})

    assert page.status_code == 200
    assert locales and set(locales) == {lang}


def test_valid_preferences_are_saved_and_confirmed(stack: Stack) -> None:
    _game, player_id, token, seat = one_player(stack)

    reply = post(stack, token, GOOD | order_fields(seat, ["gunman", "girl"]))

    assert reply.status_code == 303
    assert reply.headers["Location"].endswith(f"/p/{token}?saved=1")
    assert stored(stack.db, player_id) == {
        "language": "it",
        "timezone": "Europe/Rome",
        "quiet_start": "22:30",
        "quiet_end": "07:15",
        "mail_mode": "digest",
        "digest_hours": 12,
        "orders": {seat: ["gunman", "girl"]},
    }
    page = stack.client.get(reply.headers["Location"])
    assert page.status_code == 200
    assert 'role="status"' in page.get_data(as_text=True)
    assert prefs.get_prefs(stack.db, player_id)["games"][0]["standing_order"] == ["gunman", "girl"]

    # clearing: no quiet hours, no standing order, a mail per event
    cleared = GOOD | {"quiet_start": "", "quiet_end": "", "mail_mode": "each"} | order_fields(seat, [])
    assert post(stack, token, cleared).status_code == 303
    after = stored(stack.db, player_id)
    assert (after["quiet_start"], after["quiet_end"], after["mail_mode"], after["orders"]) == (
        None,
        None,
        "each",
        {seat: []},
    )


HOSTILE = [
    ({"language": "xx"}, "xx is not a language deadmail speaks"),
    ({"language": "e" * 60000}, "is not a language deadmail speaks"),
    ({"timezone": "Mars/Olympus_Mons"}, "Mars/Olympus_Mons is not a time zone"),
    ({"timezone": "<script>alert(1)</script>"}, "is not a time zone"),
    ({"timezone": "../../etc/passwd"}, "is not a time zone"),
    ({"quiet_start": "25:00"}, "25:00 is not a time of day"),
    ({"quiet_start": "7:15"}, "7:15 is not a time of day"),
    ({"quiet_end": "<b>07:00</b>"}, "is not a time of day"),
    ({"quiet_end": ""}, "Give both the start and the end of your quiet hours, or neither."),
    ({"quiet_start": "", "quiet_end": "06:00"}, "Give both the start and the end of your quiet hours, or neither."),
    ({"quiet_start": "06:00", "quiet_end": "06:00"}, "Your quiet hours must start and end at different times."),
    ({"mail_mode": "weekly"}, "Choose a mail for every event or a digest."),
    ({"digest_hours": "5"}, "A digest comes every 1, 4, 12 or 24 hours."),
    ({"digest_hours": "4" * 5000}, "A digest comes every 1, 4, 12 or 24 hours."),
    ({"digest_hours": "-4"}, "A digest comes every 1, 4, 12 or 24 hours."),
]


@pytest.mark.parametrize(("bad", "message"), HOSTILE)
def test_a_refused_value_changes_nothing_and_the_form_says_why(
    embedded: Stack, bad: dict[str, str], message: str
) -> None:
    _game, _player, token, seat = one_player(embedded)
    before = all_rows(embedded.db)

    reply = post(embedded, token, GOOD | order_fields(seat, ["girl"]) | bad)

    assert reply.status_code == 422
    body = reply.get_data(as_text=True)
    with pytest.raises(prefs.PrefsError) as refused:
        prefs.check_prefs(GOOD | bad)
    assert message in str(refused.value)
    assert str(escape(str(refused.value))) in body
    assert 'role="alert"' in body
    assert "<script>" not in body and "<b>07:00" not in body
    assert len(body) < 120_000  # a huge value is not echoed back in full
    assert all_rows(embedded.db) == before


@pytest.mark.parametrize(
    ("order", "message"),
    [
        (["girl", "girl"], "A character appears twice in your standing order."),
        (["<img src=x onerror=alert(1)>"], "is not a character."),
        (["boss"], "boss is not a character."),
    ],
)
def test_a_refused_standing_order_changes_nothing(embedded: Stack, order: list[str], message: str) -> None:
    _game, _player, token, seat = one_player(embedded)
    before = all_rows(embedded.db)

    reply = post(embedded, token, GOOD | order_fields(seat, order))

    assert reply.status_code == 422
    body = reply.get_data(as_text=True)
    assert str(escape(message)) in body
    assert "<img" not in body
    assert all_rows(embedded.db) == before


def test_the_service_refuses_seats_of_others_and_games_that_are_over(embedded: Stack) -> None:
    game_id, player_id, _token, seat = one_player(embedded)
    other = seat_ids(embedded.db, game_id)["red"]
    before = all_rows(embedded.db)
    with pytest.raises(prefs.PrefsError, match=r"That seat is not yours\."):
        prefs.save_prefs(embedded.db, player_id, GOOD, {other: ["girl"]})
    with pytest.raises(prefs.PrefsError, match=r"That seat is not yours\."):
        prefs.set_standing_order(embedded.db, other, ["girl"], player_id=player_id)
    with pytest.raises(prefs.PrefsError, match=r"A standing order is a list of characters\."):
        prefs.set_standing_order(embedded.db, seat, "girl")
    assert all_rows(embedded.db) == before
    with embedded.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        game.status = "over"
    with pytest.raises(prefs.PrefsError, match=f"Game {game_id} is over"):
        prefs.set_standing_order(embedded.db, seat, ["girl"])


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(embedded: Stack) -> None:
    _game, _player, token, _seat = one_player(embedded)
    before = all_rows(embedded.db)

    reply = post(embedded, token, GOOD, csrf=False)

    assert reply.status_code == 400
    assert all_rows(embedded.db) == before


@pytest.mark.parametrize("kind", ["forged", "seat link", "other secret", "huge"])
def test_a_forged_link_is_refused_and_changes_nothing(embedded: Stack, kind: str) -> None:
    _game, player_id, token, seat = one_player(embedded)
    forged = {
        "forged": token[:-3] + ("AAA" if not token.endswith("AAA") else "BBB"),
        "seat link": seat_token(embedded.settings.secret_key, seat, 1),
        "other secret": player_token("another-secret", player_id, 1),
        "huge": "x" * 5000,
    }[kind]
    before = all_rows(embedded.db)

    shown = embedded.client.get(f"/p/{forged}")
    posted = post(embedded, forged, GOOD)

    assert shown.status_code == posted.status_code == 403
    with pytest.raises(LinkError) as refused:
        read_player_token(embedded.settings.secret_key, forged, embedded.settings.link_max_age)
    for page in (shown.get_data(as_text=True), posted.get_data(as_text=True)):  # the one handler of invalid links
        assert "Link not valid" in page and str(escape(str(refused.value))) in page
        assert 'name="language"' not in page
    assert all_rows(embedded.db) == before


# --- revoking: a seat's links revoked revoke the preferences link sent with them ----------------------------------


def prefs_token_in(message: EmailMessage | None) -> str:
    """The preferences link of a mail (in its text)."""
    assert message is not None
    (token,) = set(re.findall(r"/p/([\w.-]+)", text_of(message)))
    return token


def test_revoked_seat_link_revokes_its_player_link(stack: Stack) -> None:
    """Resend with revoke: the preferences link sent with the old seat link, and one made before players had link
    generations (a bare player id), no longer open the page (the translated invalid-link page, 403) nor change
    anything; the link in the new mail works."""
    game_id, player_id, _token, _seat = one_player(stack)
    settings = mail_settings(stack.settings)
    old = prefs_token_in(compose(stack.db, organise.resend_link(stack.db, game_id, "yellow", now=T0), settings, T0))
    bare = serializer(stack.settings.secret_key, PLAYER_SALT).dumps(player_id)
    for token in (old, bare):
        assert stack.client.get(f"/p/{token}").status_code == 200

    rotated = organise.resend_link(stack.db, game_id, "yellow", rotate=True, now=T0)

    new = prefs_token_in(compose(stack.db, rotated, settings, T0))
    assert new not in (old, bare)
    before = all_rows(stack.db)
    italian = translations("it")
    replaced = italian.gettext("This link has been replaced by a newer one: use the link in your latest e-mail.")
    for token in (old, bare):
        shown = stack.client.get(f"/p/{token}", headers={"Accept-Language": "it"})
        posted = post_form(stack.client, stack.app, f"/p/{token}", GOOD | {"mail_mode": "each"})
        assert shown.status_code == posted.status_code == 403
        said = shown.get_data(as_text=True)
        assert italian.gettext("Link not valid") in said and str(escape(replaced)) in said  # the reader's language
        assert "Link not valid" in posted.get_data(as_text=True)
        for page in (said, posted.get_data(as_text=True)):
            assert 'name="language"' not in page and "p0@example.org" not in page
    assert all_rows(stack.db) == before
    assert stack.client.get(f"/p/{new}").status_code == 200
    assert post(stack, new, GOOD).status_code == 303
    assert stored(stack.db, player_id)["language"] == "it"


def test_a_seat_link_rotated_from_the_command_line_revokes_its_player_link(stack: Stack) -> None:
    game_id, player_id, token, _seat = one_player(stack)
    s = stack.settings
    assert prefs.open_player(stack.db, s.secret_key, token, s.link_max_age) == player_id

    rotate_link(stack.db, game_id, "yellow")

    with pytest.raises(LinkError, match="replaced by a newer one"):
        prefs.open_player(stack.db, s.secret_key, token, s.link_max_age)
    assert prefs.open_player(stack.db, s.secret_key, player_token(s.secret_key, player_id, 2), s.link_max_age) == (
        player_id
    )


# --- standing victim orders (RULES.md H-5) -------------------------------------------------------------------------


def play_until(db: Database, game_id: int, wanted: Callable[[Window], bool], seed: int, limit: int = 600) -> Any:
    """Answer every open request with a random bot (until the window is complete: a vote closes once decided),
    through ``turns.submit_answer`` as web answers are, window after window (each advanced once complete), until
    the open window satisfies ``wanted`` (returned) or the game ends (None)."""
    bot = RandomBot(seed)
    for _ in range(limit):
        window = open_window(db, game_id)
        if window is None or wanted(window):
            return window
        eng = engine_of(db, game_id)
        for row in window.requests:
            if row.answered_at is None:
                req = next(r for r in eng.pending() if r.player == row.seat.colour)
                if turns.submit_answer(db, row.seat_id, row.kind, bot.decide(eng, req), now=T0).complete:
                    break  # a vote closed once decided takes no more votes
        assert turns.advance_window(db, window.id, now=T0) is True
    raise AssertionError("the game went on too long")


def owed_victim(window: Window) -> RequestRow | None:
    return next((r for r in window.requests if r.kind == "victim" and r.answered_at is None), None)


def victim_pending_game(db: Database) -> tuple[Window, RequestRow]:
    """A game played by random answers until a person owes a victim choice (RULES.md H-5): its open window and
    that request."""
    for seed in range(1, 30):
        created = create(db, 3, seed)
        window = play_until(db, created.game_id, lambda w: owed_victim(w) is not None, seed)
        if window is not None:
            row = owed_victim(window)
            assert row is not None
            return window, row
    raise AssertionError("no game reached a victim request")


def answered_by_order(db: Database, window: Window, row: RequestRow, order: list[str]) -> None:
    """The victim request was answered from ``order`` like any answer: the row holds the order's choice (not a
    default), the window is complete (its advance asked for; it has not closed yet), and the engine keeps the order
    in its log without having answered (the answer applies when the window closes)."""
    expected = by_standing_order(row.payload["options"], order)
    assert expected is not None
    with db.session() as session:
        answered = session.get(RequestRow, row.id)
        complete = session.get(Window, window.id)
        game = session.get(Game, window.game_id)
        assert answered is not None and complete is not None and game is not None
        assert (answered.answer, answered.answered_at is not None, answered.defaulted) == (expected, True, False)
        assert complete.status == "open" and complete.completed_at is not None
        colour = answered.seat.colour
        log = game.state["log"]
    assert log[-1] == {"player": colour, "standing_order": order, "answer_open": False}
    eng = engine_of(db, window.game_id)
    assert engine.view(eng, colour)["standing_order"] == order


def closed_with_the_orders_choice(db: Database, window: Window, row: RequestRow, order: list[str]) -> None:
    """Once advanced: the window closed, the victim the order chose was eaten."""
    expected = by_standing_order(row.payload["options"], order)
    assert closed_window(db, window.game_id, window.id) is not None
    eng = engine_of(db, window.game_id)
    eaten = [e for e in engine.view(eng, row.seat.colour)["events"] if e["type"] == "eaten"]
    assert eaten[-1]["character"] == expected and eaten[-1]["player"] == row.seat.colour


def test_a_new_standing_order_on_the_page_answers_a_pending_victim_request(stack: Stack) -> None:
    window, row = victim_pending_game(stack.db)
    assert len(row.payload["options"]) >= 2  # else the engine would have answered it
    order = list(reversed(CHARACTERS))
    token = player_token(stack.settings.secret_key, player_of(stack.db, row.seat_id).id, 1)

    reply = post(stack, token, GOOD | order_fields(row.seat_id, order))

    assert reply.status_code == 303
    assert reply.headers["Location"].endswith("saved=1&answered=1")
    answered_by_order(stack.db, window, row, order)
    shown = stack.client.get(reply.headers["Location"]).get_data(as_text=True)
    said = translations("it").gettext("Your standing order has answered a victim choice you still owed.")
    assert said in shown  # in the player's language, now Italian


@pytest.mark.rule("H-5")
def test_set_standing_order_answers_the_owed_victim_and_asks_for_the_advance(stack: Stack) -> None:
    window, row = victim_pending_game(stack.db)
    options = row.payload["options"]
    order = [c for c in CHARACTERS if c in options][::-1]
    db, tasks = recording(stack.db)

    assert prefs.set_standing_order(db, row.seat_id, []) is False  # clearing answers nothing
    assert prefs.set_standing_order(db, row.seat_id, [c for c in CHARACTERS if c not in options]) is False
    still = open_window(stack.db, window.game_id)
    assert still is not None and still.id == window.id and owed_victim(still) is not None
    assert tasks.advanced == []
    assert prefs.set_standing_order(db, row.seat_id, order) is True

    answered_by_order(stack.db, window, row, order)
    assert tasks.advanced == [window.id]  # the answer completed the window, like any answer
    assert turns.advance_window(stack.db, window.id, now=T0) is True
    closed_with_the_orders_choice(stack.db, window, row, order)


@pytest.mark.rule("H-5")
def test_a_standing_order_never_replaces_an_answer_already_given(stack: Stack) -> None:
    """The player answered the victim request by hand, then saved an order that would choose another character:
    the order is kept for later victims, the answer given stays and is the one applied."""
    window, row = victim_pending_game(stack.db)
    options = row.payload["options"]
    given, other = options[0], options[1]
    turns.submit_answer(stack.db, row.seat_id, "victim", given, now=T0)
    order = [other, given]

    assert prefs.set_standing_order(stack.db, row.seat_id, order) is False

    with stack.db.session() as session:
        kept = session.get(RequestRow, row.id)
        assert kept is not None and kept.answer == given
    assert turns.advance_window(stack.db, window.id, now=T0) is True
    eng = engine_of(stack.db, window.game_id)
    eaten = [e for e in engine.view(eng, row.seat.colour)["events"] if e["type"] == "eaten"]
    assert eaten[-1]["character"] == given
    assert engine.view(eng, row.seat.colour)["standing_order"] == order


@pytest.mark.rule("H-5")
def test_a_standing_order_given_during_a_pause_waits_for_the_end_of_the_pause(stack: Stack) -> None:
    """The order answers the owed victim at once, but a paused game does not move: the window closes when the
    pause is over, like after any answer."""
    window, row = victim_pending_game(stack.db)
    end = T0 + dt.timedelta(days=5)
    organise.pause(stack.db, window.game_id, end, now=T0)
    order = [c for c in CHARACTERS if c in row.payload["options"]]

    assert prefs.set_standing_order(stack.db, row.seat_id, order) is True

    answered_by_order(stack.db, window, row, order)
    assert turns.advance_window(stack.db, window.id, now=T0 + dt.timedelta(hours=1)) is False  # paused
    assert turns.sweep_windows(stack.db, now=end) == 1  # the pause is over: the sweep takes it
    closed_with_the_orders_choice(stack.db, window, row, order)


def test_later_victim_requests_are_answered_from_the_standing_order_without_asking(stack: Stack) -> None:
    db = stack.db
    created = create(db, 3, seed=11)
    seats = seat_ids(db, created.game_id)
    rng = random.Random(4)
    orders = {colour: rng.sample(CHARACTERS, len(CHARACTERS)) for colour in seats}
    for colour, seat in seats.items():
        assert prefs.set_standing_order(db, seat, orders[colour]) is False  # nothing pending yet

    assert play_until(db, created.game_id, lambda _w: False, seed=11) is None  # to the end

    with db.session() as session:
        game = session.get(Game, created.game_id)
        assert game is not None and game.status == "over"
        state = game.state
        victim_rows = session.execute(sa.select(RequestRow).where(RequestRow.kind == "victim")).scalars().all()
    assert victim_rows == []  # nobody was asked
    # the same game without standing orders, each victim chosen by hand as the orders say, ends the same way
    played = engine.Game.from_json(state)
    by_hand, victims = victims_by_hand(state, orders)
    assert victims >= 1
    eaten = [(e["player"], e["character"]) for e in played.events if e["type"] == "eaten"]
    assert [(e["player"], e["character"]) for e in by_hand.events if e["type"] == "eaten"] == eaten
    assert by_hand.over and by_hand.outcome == played.outcome


def victims_by_hand(state: dict[str, Any], orders: dict[str, list[str]]) -> tuple[engine.Game, int]:
    """The stored game replayed without its standing orders, each victim request it then asks answered by hand
    with the seat's order (H-5); returns the game and how many victims were chosen so."""
    game = engine.Game(Config.from_json(state["config"]))
    victims = 0

    def choose() -> None:
        nonlocal victims
        while asked := [r for r in game.pending() if r.kind == "victim"]:
            req = asked[0]
            game.answer(req.player, "victim", by_standing_order(req.options or [], orders[req.player]))
            victims += 1

    for entry in state["log"]:
        if "standing_order" not in entry:
            choose()
            game.replay_entry(entry)
    choose()
    return game, victims
