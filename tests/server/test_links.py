"""Signed seat links: they open their seat; forged, foreign, truncated, expired and revoked links are refused with
the right message, by the JSON API and the pages alike; bots have no link."""

from __future__ import annotations

import html
from typing import Any

import pytest
from itsdangerous import TimestampSigner, URLSafeTimedSerializer

from server.models import Seat
from server.services.links import SALT, LinkError, read_token, seat_token
from server.services.play import games
from tests.conftest import Stack
from tests.support import all_rows, api_game, csrf_token, seat_ids, stop_signing_clock

SECRET = "test-secret-key"
NOT_VALID = "This link is not valid."
BAD_SIGNATURE = "This link is not valid: check that you copied all of it."
EXPIRED = "This link has expired: ask the organiser to send you a new one."
REPLACED = "This link has been replaced by a newer one: use the link in your latest e-mail."


def signed_at(timestamp: int, secret: str = SECRET) -> URLSafeTimedSerializer:
    """A serializer whose signer stamps tokens with a fixed time (itsdangerous asks its signer for the time)."""

    class FixedClock(TimestampSigner):
        def get_timestamp(self) -> int:
            return timestamp

    return URLSafeTimedSerializer(secret, salt=SALT, signer=FixedClock)


def new_game(stack: Stack) -> tuple[int, list[dict[str, Any]]]:
    game = api_game(stack.client, ["Ann <ann@example.org>", "bot", "Cy <cy@example.org>"], seed=3)
    return game.id, game.seats


def refused_everywhere(stack: Stack, token: str, message: str) -> None:
    """The API and the page refuse ``token`` with ``message`` (403), for reading and for answering, and change
    nothing."""
    before = all_rows(stack.db)
    api = stack.client.get(f"/api/seat/{token}")
    assert (api.status_code, api.json) == (403, {"ok": False, "error": message})
    posted = stack.client.post(f"/api/seat/{token}/answer", json={"kind": "place", "answer": {}})
    assert (posted.status_code, posted.json) == (403, {"ok": False, "error": message})
    answer = {"w": "1", "c": "PLACE PINUP 1", "csrf_token": csrf_token(stack.client, stack.app)}
    for reply in (
        stack.client.get(f"/s/{token}"),
        stack.client.get(f"/s/{token}/live"),
        stack.client.get(f"/s/{token}/do?w=1&c=PLACE+PINUP+1"),
        stack.client.post(f"/s/{token}/do", data=answer),
    ):
        assert reply.status_code == 403
        page = reply.get_data(as_text=True)
        assert "Link not valid" in page
        assert html.escape(message) in page
    assert all_rows(stack.db) == before


def test_a_signed_link_opens_its_own_seat(stack: Stack) -> None:
    game_id, seats = new_game(stack)
    assert [s["link"] is not None for s in seats] == [True, False, True]
    for seat in seats[::2]:
        assert seat["link"].startswith("http://deadmail.test/s/")
        token = seat["link"].rsplit("/", 1)[1]
        view = stack.client.get(f"/api/seat/{token}")
        assert view.status_code == 200
        assert view.json["seat"]["colour"] == seat["colour"]
        assert view.json["seat"]["player"] == seat["player"]["name"]
        assert view.json["game"]["id"] == game_id
        assert view.json["view"]["you"] == seat["colour"]
        page = stack.client.get(f"/s/{token}")
        assert page.status_code == 200
        assert f"You play <strong>{seat['colour'].title()}</strong>" in page.get_data(as_text=True)


@pytest.mark.parametrize(
    ("language", "header", "expected"),
    [
        ("en", "", ('lang="en"', "You play <strong>")),
        ("en", "pl", ('lang="en"', "You play <strong>")),
        ("pl", "it", ('lang="pl"', "Grasz kolorem <strong>")),
        ("it", "", ('lang="it"', "Giochi con <strong>")),
    ],
)
def test_the_seat_page_speaks_its_players_language(
    stack: Stack, language: str, header: str, expected: tuple[str, str]
) -> None:
    """The player's language wins over the browser's; <html lang> names the language the page is in."""
    _, seats = new_game(stack)
    token = seats[0]["link"].rsplit("/", 1)[1]
    with stack.db.session() as session:
        player = session.get(Seat, read_token(SECRET, token, 3600)[0]).player
        player.language = language
    page = stack.client.get(f"/s/{token}", headers={"Accept-Language": header} if header else {})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert all(part in text for part in expected), text[:400]


def test_a_refused_link_follows_the_browser(stack: Stack) -> None:
    page = stack.client.get("/s/not-a-token", headers={"Accept-Language": "it"})
    assert page.status_code == 403
    text = page.get_data(as_text=True)
    assert '<html lang="it">' in text and "Link non valido" in text


def test_forged_foreign_and_truncated_links_are_refused(stack: Stack) -> None:
    game_id, seats = new_game(stack)
    token = seats[0]["link"].rsplit("/", 1)[1]
    ann = seat_ids(stack.db, game_id)["yellow"]

    refused_everywhere(stack, "WzEsMV0.forged.signature", BAD_SIGNATURE)
    refused_everywhere(stack, seat_token("another-secret-key", ann, 1), BAD_SIGNATURE)
    refused_everywhere(stack, token[:-4], BAD_SIGNATURE)
    refused_everywhere(stack, token.rsplit(".", 1)[0], BAD_SIGNATURE)
    _payload, stamp, signature = token.split(".")
    other = seats[2]["link"].rsplit("/", 1)[1].split(".")[0]
    refused_everywhere(stack, f"{other}.{stamp}.{signature}", BAD_SIGNATURE)  # another seat's payload, Ann's signature
    refused_everywhere(stack, "x" * 600, NOT_VALID)


def test_well_signed_links_to_no_seat_or_with_another_payload_are_refused(stack: Stack) -> None:
    game_id, _ = new_game(stack)
    serializer = URLSafeTimedSerializer(SECRET, salt=SALT)
    refused_everywhere(stack, seat_token(SECRET, 999_999, 1), NOT_VALID)
    refused_everywhere(stack, serializer.dumps({"seat": seat_ids(stack.db, game_id)["yellow"]}), NOT_VALID)
    refused_everywhere(stack, serializer.dumps(["1", "1"]), NOT_VALID)
    # the same payload signed for another purpose (another salt) does not open a seat
    refused_everywhere(stack, URLSafeTimedSerializer(SECRET, salt="other").dumps([1, 1]), BAD_SIGNATURE)


def test_an_expired_link_is_refused_and_one_just_inside_its_lifetime_works(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _ = new_game(stack)
    ann = seat_ids(stack.db, game_id)["yellow"]
    lifetime = stack.settings.link_max_age
    assert lifetime == 60 * 24 * 3600
    now = stop_signing_clock(monkeypatch)

    old = signed_at(now - lifetime - 1).dumps([ann, 1])  # a second too old
    refused_everywhere(stack, old, EXPIRED)
    with pytest.raises(LinkError, match="expired"):
        read_token(SECRET, old, lifetime)

    fresh_enough = signed_at(now - lifetime).dumps([ann, 1])  # exactly as old as a link may be
    assert read_token(SECRET, fresh_enough, lifetime) == (ann, 1)
    assert stack.client.get(f"/api/seat/{fresh_enough}").json["seat"]["colour"] == "yellow"
    assert stack.client.get(f"/s/{fresh_enough}").status_code == 200

    # stamped in the future (a clock that cannot be trusted): refused too
    refused_everywhere(stack, signed_at(now + 1).dumps([ann, 1]), EXPIRED)


def test_a_revoked_link_is_refused_and_the_new_one_works(stack: Stack) -> None:
    game_id, seats = new_game(stack)
    old = seats[0]["link"].rsplit("/", 1)[1]
    cy = seats[2]["link"].rsplit("/", 1)[1]
    with stack.db.session() as session:
        seat = session.get(Seat, seat_ids(stack.db, game_id)["yellow"])
        assert seat is not None
        assert seat.link_generation == 1
        seat.link_generation = 2

    refused_everywhere(stack, old, REPLACED)
    new = games.seat_links(stack.db, game_id, SECRET, stack.settings.base_url)[0]["link"].rsplit("/", 1)[1]
    assert new != old
    assert stack.client.get(f"/api/seat/{new}").json["seat"]["colour"] == "yellow"
    assert stack.client.get(f"/s/{new}").status_code == 200
    assert stack.client.get(f"/api/seat/{cy}").status_code == 200  # other seats' links are untouched
    # a link of a later generation than the server's is no better than an older one
    refused_everywhere(stack, seat_token(SECRET, seat_ids(stack.db, game_id)["yellow"], 3), REPLACED)


def test_bots_have_no_link_and_a_signed_token_for_a_bot_seat_opens_nothing(stack: Stack) -> None:
    game_id, seats = new_game(stack)
    assert seats[1] == {"colour": "red", "player": None, "bot": "sensible", "link": None}
    bot = seat_ids(stack.db, game_id)["red"]
    refused_everywhere(stack, seat_token(SECRET, bot, 1), NOT_VALID)


def test_read_token_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    now = stop_signing_clock(monkeypatch)
    token = seat_token(SECRET, 12, 4)
    assert read_token(SECRET, token, 60) == (12, 4)
    assert read_token(SECRET, signed_at(now - 60).dumps([12, 4]), 60) == (12, 4)
    with pytest.raises(LinkError) as expired:
        read_token(SECRET, signed_at(now - 61).dumps([12, 4]), 60)
    assert str(expired.value) == EXPIRED
    with pytest.raises(LinkError) as foreign:
        read_token("not-the-key", token, 60)
    assert str(foreign.value) == BAD_SIGNATURE
    with pytest.raises(LinkError) as long:
        read_token(SECRET, token + "A" * 600, 60)
    assert str(long.value) == NOT_VALID


def test_the_home_page_says_how_players_and_organisers_get_in(embedded: Stack) -> None:
    page = embedded.client.get("/", headers={"Accept-Language": "pl"})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert 'lang="pl"' in text and "Organizatorzy" in text and 'href="/o/"' in text
