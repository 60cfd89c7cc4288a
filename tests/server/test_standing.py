"""Standing answers: set per game on the seat and as defaults in the preferences, by the seat
page, the preferences page, a reply command and the JSON API; a request they answer is answered when it opens,
without a "your turn" mail; shown in the player's own mails with a one-tap way to switch one off; private (H-6)."""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import urlsplit

import pytest
import sqlalchemy as sa

import engine
from engine.bots import RandomBot
from server.db import Database
from server.mail import replies
from server.models import Game, MailKind, Outbox, RequestRow, Seat, Window
from server.services.attendance import prefs
from server.services.links import player_token, seat_token
from server.services.mailflow import reply_address
from server.services.play import standing_answers, turns
from tests.conftest import Stack
from tests.support import (
    AUTH,
    REPLY_DOMAIN,
    T0,
    compose,
    create,
    create_tagged,
    engine_of,
    html_of,
    letter,
    mail_settings,
    open_window,
    outbox_ids,
    player_of,
    post_form,
    rows_of,
    seat_ids,
    text_of,
)

CAREFUL = {"cards": "pass", "camera": "look", "attack": "if_needed", "vote": "against_leader"}


def set_defaults_of_all(db: Database, game_id: int, settings: dict[str, Any]) -> None:
    with db.session() as session:
        players = [s.player_id for s in session.execute(sa.select(Seat).where(Seat.game_id == game_id)).scalars()]
    for player_id in players:
        assert player_id is not None
        standing_answers.set_defaults(db, player_id, settings)


def play_to_the_end(db: Database, game_id: int, seed: int, limit: int = 800) -> None:
    """Every request still owed answered like a random bot through submit_answer, window after window."""
    bot = RandomBot(seed)
    for _ in range(limit):
        window = open_window(db, game_id)
        if window is None:
            return
        eng = engine_of(db, game_id)
        for row in window.requests:
            if row.answered_at is None:
                req = next(r for r in eng.pending() if r.player == row.seat.colour)
                turns.submit_answer(db, row.seat_id, row.kind, bot.decide(eng, req), now=T0)
        assert turns.advance_window(db, window.id, now=T0) is True
    raise AssertionError("the game went on too long")


@pytest.mark.rule("H-3", "C-3", "VOT-1", "H-6")
def test_requests_answered_from_standing_answers_never_wait_and_send_no_turn_mail(
    stack: Stack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="deadmail.turns")
    db = stack.db
    created = create(db, 4, seed=21)
    set_defaults_of_all(db, created.game_id, {**CAREFUL, "victim": ["girl", "gunman", "tough", "pinup"]})
    play_to_the_end(db, created.game_id, seed=21)

    with db.session() as session:
        game = session.get(Game, created.game_id)
        assert game is not None and game.status == "over"
        rows = session.execute(sa.select(RequestRow)).scalars().all()
        turn_keys = set(session.execute(sa.select(Outbox.key).where(Outbox.kind == "turn")).scalars())
        log = game.state["log"]
    by_standing = [row for row in rows if row.standing]
    asked = {r.kind for r in rows if not r.standing}
    # nobody was ever asked a vote, a camera, a Threat or an attack card window: the settings answered them all
    assert not asked & {"vote", "cards", "victim"}
    for row in by_standing:
        assert f"turn:{row.window_id}:{row.seat_id}" not in turn_keys
    standing_log = [entry for entry in log if entry.get("standing")]
    # everyone's settings answer every such window at once: applied without a window row (else on its row)
    assert len(standing_log) >= len(by_standing) and standing_log
    eng = engine.Game.from_json(game.state)  # the log replays, standing answers and all
    told = [e for e in eng.events if e["type"] == "answer_standing"]
    assert len(told) == len(standing_log)
    assert all(e["to"] == [e["player"]] for e in told)
    # logged as such, without the answer, and without naming who answered a card window (B-INFO)
    lines = [r.getMessage() for r in caplog.records if "standing answers" in r.getMessage()]
    assert len(lines) == len(standing_log)
    assert not any(re.search(r"\b(cards|red|yellow|blue|green)\b|\[", line) for line in lines)


# --- setting them: the service, the seat page, the preferences page, a reply, the API -----------------------------


def a_seat(stack: Stack, seed: int = 5) -> tuple[int, int, int, str]:
    """A new 3-player game: (game id, yellow's seat id, yellow's player id, yellow's seat token)."""
    created = create(stack.db, 3, seed)
    seat = seat_ids(stack.db, created.game_id)["yellow"]
    return created.game_id, seat, player_of(stack.db, seat).id, seat_token(stack.settings.secret_key, seat, 1)


def standing_of(db: Database, seat_id: int) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    with db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None and seat.player is not None
        return seat.standing, seat.player.standing


def test_a_seat_follows_its_players_defaults_per_setting_and_may_say_ask_over_one(stack: Stack) -> None:
    _game, seat, player_id, _token = a_seat(stack)
    standing_answers.set_defaults(stack.db, player_id, {"camera": "look", "vote": "against_leader", "victim": ["girl"]})
    prefs.set_seat_standing(stack.db, seat, {"vote": "ask", "attack": "if_needed"})
    settings = standing_answers.seat_settings(stack.db, seat)
    assert settings["effective"] == {
        "camera": "look",
        "vote": "ask",
        "victim": ["girl"],
        "attack": "if_needed",
    }
    assert [(a["key"], a["default"]) for a in settings["answering"]] == [
        ("camera", True),
        ("attack", False),
        ("victim", True),
    ]
    # a game's own victim order is the engine's (H-5), and answers for the seat over the default
    prefs.set_seat_standing(stack.db, seat, {"victim": ["tough", "girl"]})
    assert engine.view(engine_of(stack.db, _game), "yellow")["standing_order"] == ["tough", "girl"]
    assert standing_answers.seat_settings(stack.db, seat)["answering"][-1] == {
        "key": "victim",
        "value": ["tough", "girl"],
        "default": False,
    }
    prefs.set_seat_standing(stack.db, seat, {"vote": None})  # back to the default
    assert standing_answers.seat_settings(stack.db, seat)["effective"]["vote"] == "against_leader"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"camera": "always"}, "camera cannot be"),
        ({"vote": "against_me"}, "vote cannot be"),
        ({"weather": "ask"}, "is not a standing answer"),
        ({"victim": ["girl", "girl"]}, "distinct characters"),
        ({"victim": "girl"}, "list of characters"),
        (["camera"], "as an object"),
    ],
)
def test_bad_standing_answers_are_refused_with_nothing_changed(stack: Stack, changes: Any, message: str) -> None:
    _game, seat, player_id, token = a_seat(stack)
    prefs.set_seat_standing(stack.db, seat, {"camera": "look"})
    before = standing_of(stack.db, seat)
    with pytest.raises(standing_answers.StandingError, match=message):
        prefs.set_seat_standing(stack.db, seat, changes)
    with pytest.raises(standing_answers.StandingError, match=message):
        standing_answers.set_defaults(stack.db, player_id, changes)
    response = stack.client.put(f"/api/seat/{token}/standing", json=changes)
    assert response.status_code == 400 and message in response.get_json()["error"]
    assert standing_of(stack.db, seat) == before


def test_the_seat_page_shows_the_form_and_saves_it(stack: Stack) -> None:
    _game, seat, _player, token = a_seat(stack)
    page = stack.client.get(f"/s/{token}").get_data(as_text=True)
    assert "Answer for me" in page and 'name="standing_camera"' in page
    response = post_form(
        stack.client,
        stack.app,
        f"/s/{token}/standing",
        {
            "standing_camera": "look",
            "standing_vote": "against_most_here",
            "standing_cards": "ask",
            "standing_attack": "",
        },
    )
    assert response.status_code == 303
    assert standing_of(stack.db, seat)[0] == {"camera": "look", "vote": "against_most_here", "cards": "ask"}
    page = stack.client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Your standing answers are saved." in page and "Security Camera — always look" in page
    refused = post_form(stack.client, stack.app, f"/s/{token}/standing", {"standing_camera": "peek"})
    assert refused.status_code == 422 and "Nothing was changed." in refused.get_data(as_text=True)
    assert standing_of(stack.db, seat)[0] == {"camera": "look", "vote": "against_most_here", "cards": "ask"}
    unsigned = stack.client.post(f"/s/{token}/standing", data={"standing_camera": "ask"})  # no CSRF token
    assert unsigned.status_code == 400
    assert standing_of(stack.db, seat)[0]["camera"] == "look"


def test_the_preferences_page_saves_the_defaults(stack: Stack) -> None:
    _game, seat, player_id, _token = a_seat(stack)
    ptoken = player_token(stack.settings.secret_key, player_id, 1)
    page = stack.client.get(f"/p/{ptoken}").get_data(as_text=True)
    assert "Answer for me, in every game" in page
    values = {
        "language": "en",
        "timezone": "UTC",
        "quiet_start": "",
        "quiet_end": "",
        "mail_mode": "each",
        "digest_hours": "4",
        "standing_cards": "pass",
        "standing_camera": "look",
        "standing_attack": "ask",
        "standing_vote": "against_leader",
        "standing_victim_0": "girl",
        "standing_victim_1": "gunman",
    }
    assert post_form(stack.client, stack.app, f"/p/{ptoken}", values).status_code == 303
    assert standing_of(stack.db, seat)[1] == {
        "cards": "pass",
        "camera": "look",
        "vote": "against_leader",
        "victim": ["girl", "gunman"],
    }
    refused = post_form(stack.client, stack.app, f"/p/{ptoken}", {**values, "standing_vote": "kingmaker"})
    assert refused.status_code == 422
    assert standing_of(stack.db, seat)[1]["vote"] == "against_leader"


def test_the_json_api_reads_and_changes_the_seats_standing_answers(stack: Stack) -> None:
    _game, _seat, _player, token = a_seat(stack)
    got = stack.client.get(f"/api/seat/{token}/standing").get_json()
    assert got == {"ok": True, "seat": {}, "defaults": {}, "effective": {}, "answering": []}
    put = stack.client.put(f"/api/seat/{token}/standing", json={"camera": "look", "attack": "if_needed"})
    assert put.status_code == 200
    body = put.get_json()
    assert body["seat"] == {"camera": "look", "attack": "if_needed"}
    assert [a["key"] for a in body["answering"]] == ["camera", "attack"]
    assert stack.client.get("/api/seat/forged/standing").status_code in (403, 404)


@pytest.mark.parametrize(
    ("body", "language", "expected"),
    [
        ("AUTO CAMERA LOOK", "en", {"camera": "look"}),
        ("auto vote against leader\n\n> quoted", "en", {"vote": "against_leader"}),
        ("AUTO TELECAMERA GUARDA", "it", {"camera": "look"}),
        ("auto głosuj pytaj", "pl", {"vote": "ask"}),
    ],
)
def test_a_reply_command_sets_standing_answers(
    stack: Stack, body: str, language: str, expected: dict[str, Any]
) -> None:
    created = create_tagged(stack.db, 3, seed=9, prefs={0: {"language": language}})
    seats = seat_ids(stack.db, created.game_id)
    colour = next(c for c, s in seats.items() if player_of(stack.db, s).language == language)
    seat = seats[colour]
    window = open_window(stack.db, created.game_id)
    assert window is not None
    settings = mail_settings(stack.settings)
    address = reply_address.make(settings.secret_key, REPLY_DOMAIN, seat, window.number, 1)
    email = player_of(stack.db, seat).email
    received = replies.receive(stack.db, settings, letter(email, address, body), [address], T0)
    assert received.status == "applied"
    assert standing_of(stack.db, seat)[0] == expected
    reply = [r for r in rows_of(stack.db, outbox_ids(stack.db)) if r.kind == MailKind.REPLY]
    assert reply[-1].payload["result"] == "standing"
    mail = compose(stack.db, reply[-1].id, settings, now=T0)
    assert mail is not None
    # nonsense after AUTO: refused, nothing changed
    refused = replies.receive(stack.db, settings, letter(email, address, "AUTO CAMERA PEEK"), [address], T0)
    assert refused.status == "error"
    assert standing_of(stack.db, seat)[0] == expected


# --- shown in the player's own mails, with a one-tap way to switch one off; private (H-6) --------------------------


def next_vote_of(db: Database, game_id: int, colour: str, seed: int, after: int = 0) -> Window | None:
    """Play (random answers) until a window after window ``after`` holds a vote request of ``colour``; None if the
    game ends first."""
    bot = RandomBot(seed)
    for _ in range(800):
        window = open_window(db, game_id)
        if window is None:
            return None
        if window.number > after and any(r.kind == "vote" and r.seat.colour == colour for r in window.requests):
            return window
        eng = engine_of(db, game_id)
        for row in window.requests:
            if row.answered_at is None:
                req = next(r for r in eng.pending() if r.player == row.seat.colour)
                turns.submit_answer(db, row.seat_id, row.kind, bot.decide(eng, req), now=T0)
        assert turns.advance_window(db, window.id, now=T0)
    raise AssertionError("the game went on too long")


def turn_mail_of(db: Database, window: Window, seat_id: int) -> Outbox | None:
    with db.session() as session:
        row = session.execute(sa.select(Outbox).where(Outbox.key == f"turn:{window.id}:{seat_id}")).scalar_one_or_none()
        if row is not None:
            session.expunge(row)
        return row


@pytest.mark.rule("VOT-1", "H-6")
def test_mails_list_the_standing_answers_and_their_off_link_turns_one_off(stack: Stack) -> None:
    db = stack.db
    settings = mail_settings(stack.settings)
    for seed in range(30, 60):
        created = create(db, 3, seed)
        seats = seat_ids(db, created.game_id)
        prefs.set_seat_standing(db, seats["yellow"], {"vote": "against_leader", "camera": "look"})
        window = next_vote_of(db, created.game_id, "yellow", seed)
        if window is None:
            continue
        row = next(r for r in window.requests if r.seat.colour == "yellow")
        if row.standing:
            break
    else:
        raise AssertionError("no game gave yellow a vote its policy could answer")
    assert row.answered_at is not None and turn_mail_of(db, window, seats["yellow"]) is None  # not asked: no mail
    # nothing public tells that yellow answered at once (that would tell that yellow has a vote policy, H-6)
    status = stack.client.get(f"/api/games/{created.game_id}", headers=AUTH).get_json()
    assert {"colour": "yellow", "kind": "vote", "answered": False} in [
        {k: r[k] for k in ("colour", "kind", "answered")} for r in status["owed"]
    ], status

    # every other seat's mails (the turn mail of someone asked in this window) never show yellow's settings
    others = [r for r in window.requests if r.seat.colour != "yellow" and r.answered_at is None]
    for other in others:
        mail_row = turn_mail_of(db, window, other.seat_id)
        assert mail_row is not None
        message = compose(db, mail_row.id, settings, now=T0)
        assert message is not None
        assert "Answered for you" not in text_of(message) and "Security Camera — always look" not in html_of(message)
        other_token = seat_token(settings.secret_key, other.seat_id, 1)
        page = stack.client.get(f"/s/{other_token}").get_data(as_text=True)
        assert "Security Camera — always look" not in page and 'value="look" selected' not in page
        assert stack.client.get(f"/api/seat/{other_token}/standing").get_json()["answering"] == []
        assert "answer_standing" not in str(stack.client.get(f"/api/seat/{other_token}").get_json())

    # yellow's next mail (an update or a turn) lists them, each with a turn-off link
    yellow_rows = [r for r in rows_of(db, outbox_ids(db, created.game_id)) if r.seat_id == seats["yellow"]]
    assert yellow_rows
    message = compose(db, yellow_rows[-1].id, settings, now=T0)
    assert message is not None
    text = text_of(message)
    assert "Answered for you:" in text and "Security Camera — always look" in text
    off = re.search(r"Votes — [^\[]+\[turn off: (\S+)\]", text)
    assert off is not None
    path = urlsplit(off.group(1))
    url = f"{path.path}?{path.query}"
    confirm = stack.client.get(url)
    assert confirm.status_code == 200 and "Turn it off" in confirm.get_data(as_text=True)
    assert standing_of(db, seats["yellow"])[0]["vote"] == "against_leader"  # a GET changes nothing
    done = post_form(stack.client, stack.app, path.path, {"k": "vote"})
    assert done.status_code == 303
    assert standing_of(db, seats["yellow"])[0] == {"vote": "ask", "camera": "look"}

    # the next vote is asked again, with a turn mail
    later = next_vote_of(db, created.game_id, "yellow", seed + 1, after=window.number)
    assert later is not None  # (the seed found above gives yellow another vote)
    mine = next(r for r in later.requests if r.seat.colour == "yellow")
    assert not mine.standing and mine.answered_at is None
    assert turn_mail_of(db, later, seats["yellow"]) is not None
