"""The preferences page (/p/<token>) and its service: settings saved only when every value is valid, hostile values
refused with a message and nothing changed, CSRF and signed links required; standing victim orders (RULES.md H-5)
answer a pending victim request through the same path as web answers, and later ones at once."""

from __future__ import annotations

import random
from typing import Any

import flask
import flask_babel
import pytest
import sqlalchemy as sa
from markupsafe import escape

import engine
from engine.bots import RandomBot
from engine.config import Config
from engine.data import CHARACTERS
from engine.requests import by_standing_order
from server.models import Game, Player, RequestRow, Seat, Window
from server.services import prefs, turns
from server.services.links import player_token, seat_token
from tests.server.forms import csrf_token
from tests.server.test_answers import snapshot
from tests.worker.support import create, open_window, seat_ids

GOOD = {
    "language": "it",
    "timezone": "Europe/Rome",
    "quiet_start": "22:30",
    "quiet_end": "07:15",
    "mail_mode": "digest",
    "digest_hours": "12",
}


def player_of(db: Any, seat_id: int) -> int:
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None and seat.player_id is not None
        return seat.player_id


def stored(db: Any, player_id: int) -> dict[str, Any]:
    with db.session() as session:
        player = session.get(Player, player_id)
        assert player is not None
        keys = ("language", "timezone", "quiet_start", "quiet_end", "mail_mode", "digest_hours")
        return {key: getattr(player, key) for key in keys} | {
            "orders": dict(
                session.execute(sa.select(Seat.id, Seat.standing_order).where(Seat.player_id == player_id)).all()
            )
        }


def one_player(stack: Any, seed: int = 5) -> tuple[int, int, str, int]:
    """A new 3-player game: (game id, yellow's player id, yellow's preferences token, yellow's seat id)."""
    created = create(stack.db, 3, seed)
    seat = seat_ids(stack.db, created.game_id)["yellow"]
    player_id = player_of(stack.db, seat)
    return created.game_id, player_id, player_token(stack.settings.secret_key, player_id), seat


def post(stack: Any, token: str, values: dict[str, Any], csrf: bool = True) -> Any:
    data = dict(values)
    if csrf:
        data["csrf_token"] = csrf_token(stack.client, stack.app)
    return stack.client.post(f"/p/{token}", data=data)


def order_fields(seat_id: int, order: list[str]) -> dict[str, str]:
    return {f"order_{seat_id}_{i}": order[i] if i < len(order) else "" for i in range(4)}


# --- showing and saving ----------------------------------------------------------------------------------------------


def test_the_page_shows_the_form_with_the_current_values_and_the_running_games(embedded: Any) -> None:
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
    assert '<option selected value="UTC">UTC</option>' in body
    assert '<option value="Europe/Rome">Europe/Rome</option>' in body
    assert body.index('value="Europe/Rome"') < body.index('value="Africa/Abidjan"')  # common zones first
    assert 'type="time"' in body and 'name="quiet_start"' in body and 'name="quiet_end"' in body
    assert 'name="mail_mode" type="radio" value="digest"' in body
    assert f"Game {game_id}" in body
    for i in range(4):
        assert f'name="order_{seat}_{i}"' in body


@pytest.mark.parametrize(("lang", "browser"), [("it", "en"), ("pl", "it"), ("en", "pl")])
def test_the_page_is_rendered_in_the_players_language_not_the_browsers(embedded: Any, lang: str, browser: str) -> None:
    _game, player_id, token, _seat = one_player(embedded)
    with embedded.db.session() as session:
        player = session.get(Player, player_id)
        assert player is not None
        player.language = lang
    locales: list[str] = []

    def seen(_app: Any, template: Any, context: Any) -> None:
        locales.append(str(flask_babel.get_locale()))

    with flask.template_rendered.connected_to(seen, embedded.app):
        page = embedded.client.get(f"/p/{token}", headers={"Accept-Language": browser})

    assert page.status_code == 200
    assert locales and set(locales) == {lang}


def test_valid_preferences_are_saved_and_confirmed(stack: Any) -> None:
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
        {seat: None},
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
    embedded: Any, bad: dict[str, str], message: str
) -> None:
    _game, _player, token, seat = one_player(embedded)
    before = snapshot(embedded.db)

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
    assert snapshot(embedded.db) == before


@pytest.mark.parametrize(
    ("order", "message"),
    [
        (["girl", "girl"], "A character appears twice in your standing order."),
        (["<img src=x onerror=alert(1)>"], "is not a character."),
        (["boss"], "boss is not a character."),
    ],
)
def test_a_refused_standing_order_changes_nothing(embedded: Any, order: list[str], message: str) -> None:
    _game, _player, token, seat = one_player(embedded)
    before = snapshot(embedded.db)

    reply = post(embedded, token, GOOD | order_fields(seat, order))

    assert reply.status_code == 422
    body = reply.get_data(as_text=True)
    assert str(escape(message)) in body
    assert "<img" not in body
    assert snapshot(embedded.db) == before


def test_the_service_refuses_seats_of_others_and_games_that_are_over(embedded: Any) -> None:
    game_id, player_id, _token, seat = one_player(embedded)
    other = seat_ids(embedded.db, game_id)["red"]
    before = snapshot(embedded.db)
    with pytest.raises(prefs.PrefsError, match=r"That seat is not yours\."):
        prefs.save_prefs(embedded.db, player_id, GOOD, {other: ["girl"]})
    with pytest.raises(prefs.PrefsError, match=r"That seat is not yours\."):
        prefs.set_standing_order(embedded.db, other, ["girl"], player_id=player_id)
    with pytest.raises(prefs.PrefsError, match=r"A standing order is a list of characters\."):
        prefs.set_standing_order(embedded.db, seat, "girl")  # type: ignore[arg-type]
    assert snapshot(embedded.db) == before
    with embedded.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        game.status = "over"
    with pytest.raises(prefs.PrefsError, match=f"Game {game_id} is over"):
        prefs.set_standing_order(embedded.db, seat, ["girl"])


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(embedded: Any) -> None:
    _game, _player, token, _seat = one_player(embedded)
    before = snapshot(embedded.db)

    reply = post(embedded, token, GOOD, csrf=False)

    assert reply.status_code == 400
    assert snapshot(embedded.db) == before


@pytest.mark.parametrize("kind", ["forged", "seat link", "other secret", "huge"])
def test_a_forged_link_is_refused_and_changes_nothing(embedded: Any, kind: str) -> None:
    _game, player_id, token, seat = one_player(embedded)
    forged = {
        "forged": token[:-3] + ("AAA" if not token.endswith("AAA") else "BBB"),
        "seat link": seat_token(embedded.settings.secret_key, seat, 1),
        "other secret": player_token("another-secret", player_id),
        "huge": "x" * 5000,
    }[kind]
    before = snapshot(embedded.db)

    shown = embedded.client.get(f"/p/{forged}")
    posted = post(embedded, forged, GOOD)

    assert shown.status_code == posted.status_code == 403
    assert "This link is not valid or has expired" in shown.get_data(as_text=True)
    assert 'name="language"' not in shown.get_data(as_text=True)
    assert snapshot(embedded.db) == before


# --- standing victim orders (RULES.md H-5) -------------------------------------------------------------------------


def play_until(db: Any, game_id: int, wanted: Any, seed: int, limit: int = 600) -> Any:
    """Answer every open request with a random bot, through ``turns.submit_answer`` as web answers are, window
    after window, until the open window satisfies ``wanted`` (returned) or the game ends (None)."""
    bot = RandomBot(seed)
    for _ in range(limit):
        window = open_window(db, game_id)
        if window is None or wanted(window):
            return window
        with db.session() as session:
            game = session.get(Game, game_id)
            assert game is not None
            eng = engine.Game.from_json(game.state)
        for row in window.requests:
            if row.answered_at is None:
                req = next(r for r in eng.pending() if r.player == row.seat.colour)
                turns.submit_answer(
                    db, row.seat_id, row.kind, bot.decide(eng, req), kick=lambda wid: turns.advance_window(db, wid)
                )
    raise AssertionError("the game went on too long")


def owed_victim(window: Any) -> Any:
    return next((r for r in window.requests if r.kind == "victim" and r.answered_at is None), None)


def victim_pending_game(db: Any) -> int:
    """A game played by random answers until a person owes a victim choice (RULES.md H-5)."""
    for seed in range(1, 30):
        created = create(db, 3, seed)
        if play_until(db, created.game_id, owed_victim, seed) is not None:
            return created.game_id
    raise AssertionError("no game reached a victim request")


def test_a_new_standing_order_answers_a_pending_victim_request_through_the_answer_path(stack: Any) -> None:
    game_id = victim_pending_game(stack.db)
    window = open_window(stack.db, game_id)
    row = owed_victim(window)
    options = row.payload["options"]
    assert len(options) >= 2  # else the engine would have answered it
    order = [c for c in reversed(CHARACTERS)]
    expected = by_standing_order(options, order)
    token = player_token(stack.settings.secret_key, player_of(stack.db, row.seat_id))

    reply = post(stack, token, GOOD | order_fields(row.seat_id, order))

    assert reply.status_code == 303
    assert reply.headers["Location"].endswith("saved=1&answered=1")
    with stack.db.session() as session:
        answered = session.get(RequestRow, row.id)
        assert answered is not None
        assert answered.answer == expected
        assert answered.answered_at is not None and not answered.defaulted
        assert session.get(Window, window.id).completed_at is not None  # type: ignore[union-attr]
    # the window is complete, as after any last web answer: advancing applies the victim
    assert turns.advance_window(stack.db, window.id) is not None
    with stack.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        log = game.state["log"]
    assert {"player": row.seat.colour, "kind": "victim", "answer": expected} in log


def test_set_standing_order_answers_at_once_and_kicks_like_a_web_answer(embedded: Any) -> None:
    db = embedded.db
    game_id = victim_pending_game(db)
    window = open_window(db, game_id)
    row = owed_victim(window)
    order = [c for c in CHARACTERS if c in row.payload["options"]][::-1]
    kicks: list[int] = []

    assert prefs.set_standing_order(db, row.seat_id, [], kick=kicks.append) is False  # clearing answers nothing
    assert kicks == []
    assert prefs.set_standing_order(db, row.seat_id, order, kick=kicks.append) is True

    assert kicks == [window.id]
    with db.session() as session:
        assert session.get(RequestRow, row.id).answer == by_standing_order(row.payload["options"], order)  # type: ignore[union-attr]
        assert session.get(Seat, row.seat_id).standing_order == order  # type: ignore[union-attr]


def test_later_victim_requests_are_answered_from_the_standing_order_without_asking(stack: Any) -> None:
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
    # replay the game: every victim answer in its log is the one each seat's order gives for the options then
    replayed = engine.Game(Config.from_json(state["config"]))
    victims = 0
    for entry in state["log"]:
        if entry["kind"] == "victim":
            req = replayed.request_for(entry["player"], "victim")
            assert entry == {
                "player": entry["player"],
                "kind": "victim",
                "answer": by_standing_order(req.options or [], orders[entry["player"]]),
            }
            victims += 1
        replayed.replay_entry(entry)
    assert victims >= 1
