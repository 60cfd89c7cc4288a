"""Service refusals (LinkError, AnswerError, GameError, OrganiseError, engine refusals) read in the reader's language
on pages, while the JSON API and ``str(exc)`` keep the English message."""

from __future__ import annotations

import html

import pytest
from werkzeug.test import TestResponse

import engine
from server.models import Seat
from server.services.links import LinkError, read_token
from server.services.play import games, organise, turns
from server.text import glossary
from server.text.i18n import translations
from server.text.refusals import refusal
from tests.conftest import Stack
from tests.support import api_game, csrf_token, engine_of, open_window

SECRET = "test-secret-key"
PEOPLE = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"]
REPLACED = "This link has been replaced by a newer one: use the link in your latest e-mail."
CLOSED = "This decision is closed: the game has moved on. Open your link to see what is new."
#: what a one-tap link or the seat page's form says of a decision that has closed.
TAP_CLOSED = "This decision is closed: the game has moved on. Nothing was changed."
TRANSLATED = {
    "it": {
        "link": "Link non valido",
        "closed": "Decisione chiusa",
        REPLACED: "Questo link è stato sostituito da uno più recente: usa il link della tua ultima e-mail.",
        CLOSED: "Questa decisione è chiusa: la partita è andata avanti. Apri il tuo link per vedere le novità.",
    },
    "pl": {
        "link": "Nieprawidłowy link",
        "closed": "Decyzja zamknięta",
        REPLACED: "Ten link został zastąpiony nowszym: użyj linku z ostatniego e-maila.",
        CLOSED: "Ta decyzja jest już zamknięta: gra poszła dalej. Otwórz swój link, aby zobaczyć, co nowego.",
    },
}


def set_language(stack: Stack, token: str, language: str) -> int:
    seat_id = read_token(SECRET, token, 3600)[0]
    with stack.db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None and seat.player is not None
        seat.player.language = language
    return seat_id


def page_text(reply: TestResponse) -> str:
    return html.unescape(reply.get_data(as_text=True))


@pytest.mark.parametrize("language", ["it", "pl"])
def test_a_revoked_link_reads_in_the_browsers_language_on_every_page(stack: Stack, language: str) -> None:
    """A revoked link opens no seat: its player is not the reader, the browser's language is all that is known,
    for opening the page and for posting an answer alike (the one handler of invalid links)."""
    token = api_game(stack.client, PEOPLE).tokens["yellow"]
    seat_id = set_language(stack, token, language)
    with stack.db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None
        seat.link_generation += 1
    words = TRANSLATED[language]
    answer = {"w": "1", "c": "PLACE PINUP 1", "csrf_token": csrf_token(stack.client, stack.app)}

    # the API keeps English whatever the browser asks for
    api = stack.client.get(f"/api/seat/{token}", headers={"Accept-Language": language})
    assert (api.status_code, api.json) == (403, {"ok": False, "error": REPLACED})
    for browser, expected, other in ((language, words[REPLACED], REPLACED), ("en", REPLACED, words[REPLACED])):
        headers = {"Accept-Language": browser}
        for reply in (
            stack.client.get(f"/s/{token}", headers=headers),
            stack.client.post(f"/s/{token}/do", data=answer, headers=headers),
        ):
            assert reply.status_code == 403
            assert f'<html lang="{browser}">' in page_text(reply)
            assert expected in page_text(reply) and other not in page_text(reply)
    assert words["link"] in page_text(stack.client.get(f"/s/{token}", headers={"Accept-Language": language}))


@pytest.mark.parametrize("language", ["it", "pl"])
def test_a_closed_decision_reads_in_the_players_language_and_the_api_stays_english(stack: Stack, language: str) -> None:
    game = api_game(stack.client, PEOPLE)
    game_id, token = game.id, game.tokens["blue"]
    seat_id = set_language(stack, token, language)
    old = open_window(stack.db, game_id)
    assert old is not None
    command = "PLACE PINUP 1"
    assert turns.advance_window(stack.db, old.id, now=old.deadline) is True

    # the link opens its seat: the player's language wins over an English browser
    posted = stack.client.post(
        f"/s/{token}/do",
        data={"w": str(old.number), "c": command, "csrf_token": csrf_token(stack.client, stack.app)},
        headers={"Accept-Language": "en"},
    )
    assert posted.status_code == 409
    text = page_text(posted)
    assert f'<html lang="{language}">' in text and TRANSLATED[language]["closed"] in text
    assert translations(language).gettext(TAP_CLOSED) in text and "Decision closed" not in text

    api = stack.client.post(
        f"/api/seat/{token}/answer",
        json={"kind": "place", "answer": {"character": "pinup"}, "window": old.number},
        headers={"Accept-Language": language},
    )
    assert (api.status_code, api.json) == (409, {"ok": False, "error": CLOSED})
    with pytest.raises(turns.AnswerError) as refused:
        turns.submit_answer(stack.db, seat_id, "place", {"character": "pinup"}, window_number=old.number)
    assert str(refused.value) == CLOSED
    assert refusal(refused.value, language) == TRANSLATED[language][CLOSED]


def test_messages_keep_english_and_translate_with_their_parameters() -> None:
    over = organise.OrganiseError(
        organise.N_("Game %(game)s is %(status)s: this cannot be done any more."),
        game=4,
        status="over",
        terms=("status",),
    )
    assert str(over) == "Game 4 is over: this cannot be done any more."
    assert refusal(over, "it") == "La partita 4 è finita: questo non si può più fare."
    unknown = games.GameError(games.N_("unknown field %(field)s"), field=repr("colour"))
    assert (str(unknown), refusal(unknown, "it")) == ("unknown field 'colour'", "campo sconosciuto 'colour'")
    # a message passed through from elsewhere (the tempo parser) stays as it is, even with a "%"
    passed = turns.AnswerError("100% of this is English.")
    assert (str(passed), refusal(passed, "it"), passed.status) == (passed.msgid, passed.msgid, 422)
    assert refusal(LinkError("This link is not valid."), "pl") == "Ten link jest nieprawidłowy."


def test_an_engine_refusal_keeps_its_english_and_reads_in_the_players_language(stack: Stack) -> None:
    game = api_game(stack.client, PEOPLE)
    illegal = {"character": "pinup", "location": 2}  # location 2 is not among yellow's dice
    with pytest.raises(engine.IllegalAnswer) as engine_said:
        engine_of(stack.db, game.id).check("yellow", "place", illegal)
    carried = turns.AnswerError.refused_by_engine(engine_said.value)
    assert str(carried) == str(engine_said.value)  # the same English as the engine's
    api = stack.client.post(f"/api/seat/{game.tokens['yellow']}/answer", json={"kind": "place", "answer": illegal})
    assert (api.status_code, api.json) == (422, {"ok": False, "error": str(engine_said.value)})
    locations = carried.params["locations"]
    assert locations
    for language in ("it", "pl"):
        translated = refusal(carried, language)
        assert translated != str(carried)
        assert all(glossary.location_label(language, loc) in translated for loc in locations)  # named in its words
