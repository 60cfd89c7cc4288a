"""Service refusals (LinkError, AnswerError, GameError, OrganiseError) read in the reader's language on pages, while
the JSON API and ``str(exc)`` keep the English message."""

from __future__ import annotations

import html
import json
from typing import Any

import pytest
import sqlalchemy as sa

from server import i18n
from server.models import Seat, Window
from server.services import games, organise, turns
from server.services.links import LinkError, read_token
from tests.server.forms import csrf_token

AUTH = {"Authorization": "Bearer test-api-token"}
SECRET = "test-secret-key"
PEOPLE = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"]
REPLACED = "This link has been replaced by a newer one: use the link in your latest e-mail."
CLOSED = "This decision is closed: the game has moved on. Open your link to see what is new."
TRANSLATED = {
    "it": {
        "link": "Link non valido",
        REPLACED: "Questo link è stato sostituito da uno più recente: usa il link della tua ultima e-mail.",
        CLOSED: "Questa decisione è chiusa: la partita è andata avanti. Apri il tuo link per vedere le novità.",
    },
    "pl": {
        "link": "Nieprawidłowy link",
        REPLACED: "Ten link został zastąpiony nowszym: użyj linku z ostatniego e-maila.",
        CLOSED: "Ta decyzja jest już zamknięta: gra poszła dalej. Otwórz swój link, aby zobaczyć, co nowego.",
    },
}


def new_game(stack: Any) -> tuple[int, dict[str, str]]:
    reply = stack.client.post("/api/games", json={"players": PEOPLE, "seed": 7}, headers=AUTH)
    assert reply.status_code == 201, reply.json
    return reply.json["id"], {s["colour"]: s["link"].rsplit("/", 1)[1] for s in reply.json["seats"] if s["link"]}


def set_language(stack: Any, token: str, language: str) -> int:
    seat_id = read_token(SECRET, token, 3600)[0]
    with stack.db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None and seat.player is not None
        seat.player.language = language
    return seat_id


def open_window(stack: Any, game_id: int) -> Window:
    with stack.db.session() as session:
        window = session.execute(
            sa.select(Window).where(Window.game_id == game_id, Window.status == "open")
        ).scalar_one()
        session.expunge(window)
        return window


def page_text(reply: Any) -> str:
    return html.unescape(reply.get_data(as_text=True))


@pytest.mark.parametrize("language", ["it", "pl"])
def test_a_revoked_link_reads_in_the_browsers_or_the_players_language(stack: Any, language: str) -> None:
    _game_id, tokens = new_game(stack)
    token = tokens["yellow"]
    seat_id = set_language(stack, token, language)
    with stack.db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None
        seat.link_generation += 1
    words = TRANSLATED[language]

    # the API keeps English whatever the browser asks for
    api = stack.client.get(f"/api/seat/{token}", headers={"Accept-Language": language})
    assert (api.status_code, api.json) == (403, {"ok": False, "error": REPLACED})
    # opening the page: the seat is not opened, so the browser's language is all that is known
    page = stack.client.get(f"/s/{token}", headers={"Accept-Language": language})
    assert page.status_code == 403
    assert words["link"] in page_text(page) and words[REPLACED] in page_text(page)
    assert REPLACED not in page_text(page)
    # posting an answer: the link names its seat, so the player's language wins over an English browser
    posted = stack.client.post(
        f"/s/{token}/answer",
        data={"kind": "place", "window": "1", "answer": "{}", "csrf_token": csrf_token(stack.client, stack.app)},
        headers={"Accept-Language": "en"},
    )
    assert posted.status_code == 403
    assert words[REPLACED] in page_text(posted)
    # an English browser without a player gets the English message
    english = stack.client.get(f"/s/{token}", headers={"Accept-Language": "en"})
    assert REPLACED in page_text(english)


@pytest.mark.parametrize("language", ["it", "pl"])
def test_a_closed_decision_reads_in_the_players_language_and_the_api_stays_english(stack: Any, language: str) -> None:
    game_id, tokens = new_game(stack)
    token = tokens["blue"]
    seat_id = set_language(stack, token, language)
    old = open_window(stack, game_id)
    assert turns.advance_window(stack.db, old.id, now=old.deadline) is not None

    posted = stack.client.post(
        f"/s/{token}/answer",
        data={
            "kind": "place",
            "window": str(old.number),
            "answer": json.dumps({"character": "pinup"}),
            "csrf_token": csrf_token(stack.client, stack.app),
        },
        headers={"Accept-Language": "en"},
    )
    assert posted.status_code == 409
    assert TRANSLATED[language][CLOSED] in page_text(posted)
    assert CLOSED not in page_text(posted)

    api = stack.client.post(
        f"/api/seat/{token}/answer",
        json={"kind": "place", "answer": {"character": "pinup"}, "window": old.number},
        headers={"Accept-Language": language},
    )
    assert (api.status_code, api.json) == (409, {"ok": False, "error": CLOSED})
    with pytest.raises(turns.AnswerError) as refused:
        turns.submit_answer(stack.db, seat_id, "place", {"character": "pinup"}, window_number=old.number)
    assert str(refused.value) == CLOSED
    assert refused.value.translated(i18n.translations(language).gettext) == TRANSLATED[language][CLOSED]


def test_messages_keep_english_and_translate_with_their_parameters() -> None:
    it = i18n.translations("it").gettext
    over = organise.OrganiseError(
        organise.N_("Game %(game)s is %(status)s: this cannot be done any more."),
        game=4,
        status="over",
        terms=("status",),
    )
    assert str(over) == "Game 4 is over: this cannot be done any more."
    assert over.translated(it) == "La partita 4 è finita: questo non si può più fare."
    unknown = games.GameError(games.N_("unknown field %(field)s"), field=repr("colour"))
    assert (str(unknown), unknown.translated(it)) == ("unknown field 'colour'", "campo sconosciuto 'colour'")
    # a message passed through from elsewhere (the engine, the tempo parser) stays as it is, even with a "%"
    engine_text = turns.AnswerError("100% of this is English.")
    assert (str(engine_text), engine_text.translated(it), engine_text.status) == (engine_text.msgid,) * 2 + (422,)
    assert LinkError("This link is not valid.").translated(i18n.translations("pl").gettext) == (
        "Ten link jest nieprawidłowy."
    )
