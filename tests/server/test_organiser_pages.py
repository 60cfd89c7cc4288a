"""The organiser's pages as a first-time organiser meets them: /o/ sends a visitor to the login form and back (never to
another site), the login form speaks of the organiser token, the new-game form explains each option and shows
"<e-mail>" as text, the game page shows the spectator's board (nothing secret), links with a copy button, asks to
confirm what cannot be undone, and shows the final scores and the replay once the game is over."""

from __future__ import annotations

import re
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from flask.testing import FlaskClient
from markupsafe import escape
from werkzeug.test import TestResponse

import engine
from server.present.board import board_svg
from server.services.play import organise
from tests.conftest import Stack
from tests.support import create_tagged, engine_of, log_in_as_organiser, post_form, table_names

from .test_organise import changeable, game_row, seats_of

LANGS = ("en", "it", "pl")


def text(reply: TestResponse) -> str:
    return reply.get_data(as_text=True)


def hidden_fields(page: str) -> dict[str, str]:
    """The hidden inputs of a page's (one) form, but its CSRF token (``post_form`` adds a fresh one)."""
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page))
    fields.pop("csrf_token", None)
    return {name: unescape(value) for name, value in fields.items()}


# --- the way in ------------------------------------------------------------------------------------------------------


def test_a_visitor_is_sent_to_the_login_form_and_back(embedded: Stack) -> None:
    created = create_tagged(embedded.db, 3, seed=7)
    asked = f"/o/games/{created.game_id}/offer?colour=red"
    reply = embedded.client.get(asked)
    assert reply.status_code == 302  # not a bare 401 page
    location = urlsplit(reply.headers["Location"])
    assert location.path == "/o/login" and parse_qs(location.query)["next"] == [asked]
    form = embedded.client.get(reply.headers["Location"])
    assert form.status_code == 200 and f'name="next" value="{escape(asked)}"' in text(form)
    assert "Log in to open the organiser" in text(form)
    # a form POSTed without a session, and the JSON API, stay refusals
    assert post_form(embedded.client, embedded.app, f"/o/games/{created.game_id}/pause", {}).status_code == 401
    assert embedded.client.get(f"/api/games/{created.game_id}").status_code == 401
    logged = post_form(embedded.client, embedded.app, "/o/login", {"token": "test-api-token", "next": asked})
    assert logged.status_code == 303 and logged.headers["Location"] == asked
    assert embedded.client.get(asked).status_code == 200


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/o/",
        "//evil.example/o/",
        "/\\evil.example/o/",
        "/o/\\\\evil.example",
        "http:/o/",
        "/s/abc",
        "/o/\r\nSet-Cookie: x=1",
        "javascript:alert(1)//o/",
    ],
)
def test_a_foreign_next_is_ignored(embedded: Stack, target: str) -> None:
    form = embedded.client.get("/o/login", query_string={"next": target})
    assert form.status_code == 200 and 'name="next"' not in text(form)
    logged = post_form(embedded.client, embedded.app, "/o/login", {"token": "test-api-token", "next": target})
    assert logged.status_code == 303 and logged.headers["Location"] == "/o/"


@pytest.mark.parametrize("lang", LANGS)
def test_the_login_form_speaks_of_the_organiser_token_and_where_it_is(embedded: Stack, lang: str) -> None:
    page = text(embedded.client.get("/o/login", headers={"Accept-Language": lang}))
    label = re.search(r'<label for="token">([^<]+)</label>', page)
    assert label is not None and "DEADMAIL_API_TOKEN" not in label.group(1)  # a setting is not a label
    assert {"en": "Organiser token", "it": "Token dell", "pl": "Token organizatora"}[lang] in unescape(label.group(1))
    assert 'aria-describedby="token-help"' in page
    help_text = re.search(r'<p id="token-help"[^>]*>([^<]+)</p>', page)
    assert help_text is not None and "deadmail up" in help_text.group(1) and "api_token" in help_text.group(1)


# --- the new-game form ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_the_new_game_form_is_grouped_and_explains_each_option(embedded: Stack, lang: str) -> None:
    log_in_as_organiser(embedded.client)
    page = text(embedded.client.get("/o/new", headers={"Accept-Language": lang}))
    # the label's "<e-mail>" is text, not a tag a browser would eat
    assert "&lt;e-mail&gt;" in page and "<e-mail>" not in page
    assert page.count("<fieldset>") >= 4 and page.count("<legend") >= 4
    # every option of the rules and the tempo has a line saying what it does, tied to its control
    controls = re.findall(r'<(?:select|input|textarea)\b[^>]*\bname="([^"]+)"[^>]*>', page)
    tied = r'<(?:select|input|textarea)\b[^>]*\bname="([^"]+)"[^>]*aria-describedby="([^"]+)"'
    described = dict(re.findall(tied, page))
    explained = [n for n in controls if n.startswith("option_") or n in TEMPO_FIELDS]
    assert explained and all(name in described for name in explained), set(explained) - set(described)
    for name, hint in described.items():
        assert re.search(rf'id="{re.escape(hint)}" class="hint">\s*\S', page), name
    # the long weapon table is folded
    weapons = page[page.index("<details") : page.index("</details>")]
    assert weapons.count('name="weapon_') == len(engine.data.DEFAULT_WEAPONS)
    assert '<details class="weapons">' in page  # closed


TEMPO_FIELDS = {"preset", "deadline", "deadlines", "timezone", "last_call", "play_hours", "play_deadline"}


def test_the_weapon_table_opens_when_the_form_comes_back_with_a_weapon_changed(embedded: Stack) -> None:
    log_in_as_organiser(embedded.client)
    reply = post_form(embedded.client, embedded.app, "/o/new", {"players": "bot", "weapon_axe": "3"})
    assert reply.status_code == 400 and '<details class="weapons" open>' in text(reply)


# --- the game page -------------------------------------------------------------------------------------------------


@pytest.mark.rule("B-INFO")
def test_the_game_page_shows_the_spectators_board(embedded: Stack) -> None:
    log_in_as_organiser(embedded.client)
    created = create_tagged(embedded.db, 3, seed=7)
    page = text(embedded.client.get(f"/o/games/{created.game_id}"))
    names = table_names(embedded.db, created.game_id)
    board = str(board_svg(engine.spectator_view(engine_of(embedded.db, created.game_id)), "en", None, names))
    assert board in page  # the spectator's board: no hand, no secret destination, no die
    assert all(f"{name} (" in board for name in names.values() if name)  # the legend names the players
    assert page.count('<svg class="board"') == 1 and 'class="wide"' in page and "table-layout" in page


def test_links_have_a_copy_button_that_only_a_script_shows(embedded: Stack) -> None:
    log_in_as_organiser(embedded.client)
    created = create_tagged(embedded.db, 3, seed=7)
    page = text(embedded.client.get(f"/o/games/{created.game_id}"))
    links = re.findall(r'<input type="text" id="(link-[a-z]+)" readonly value="http', page)
    assert len(links) == 3
    for field in links:
        assert re.search(rf'<button type="button" class="secondary copy-button" data-copy="{field}"[^>]* hidden>', page)
    assert '<script src="/static/deadmail.js" defer></script>' in page and "onclick" not in page
    with embedded.client.get("/static/deadmail.js") as script:  # a static file's response holds the file open
        assert script.status_code == 200 and "navigator.clipboard" in text(script)
    assert 'aria-live="polite"' in page


def confirm_then_do(client: FlaskClient, stack: Stack, path: str, form: dict[str, Any], game_id: int) -> TestResponse:
    """POST the game page's form: a page asking to confirm, nothing changed; then its own form: done."""
    before = changeable(stack.db, game_id)
    asked = post_form(client, stack.app, path, form)
    assert asked.status_code == 200, text(asked)
    page = text(asked)
    assert 'class="danger big"' in page and f'action="{path}"' in page and "This cannot be undone." in page
    assert changeable(stack.db, game_id) == before  # one POST without confirming changes nothing
    fields = hidden_fields(page)
    assert fields["confirm"] == "1" and {k: v for k, v in fields.items() if k != "confirm"} == form
    return post_form(client, stack.app, path, fields)


def test_what_cannot_be_undone_is_confirmed_first(embedded: Stack) -> None:
    log_in_as_organiser(embedded.client)
    created = create_tagged(embedded.db, 3, seed=7)
    game_id, base = created.game_id, f"/o/games/{created.game_id}"
    page = text(embedded.client.get(base))
    zone = page[page.index('<section class="danger-zone"') :]
    for action in ("replace", "resend", "abandon"):
        assert f'action="{base}/{action}"' in zone
    assert zone.count('class="danger"') == 3 and 'class="danger"' not in page[: page.index("danger-zone")]

    replace = {"colour": "red", "by": "person", "name": "Dee", "email": "dee@ex.org"}
    done = confirm_then_do(embedded.client, embedded, f"{base}/replace", replace, game_id)
    assert done.status_code == 303 and done.headers["Location"].endswith("done=replaced")
    red = seats_of(embedded.db, game_id)["red"]
    assert red.player is not None and red.player.email == "dee@ex.org"

    generation = seats_of(embedded.db, game_id)["yellow"].link_generation
    revoke = {"colour": "yellow", "rotate": "1"}
    done = confirm_then_do(embedded.client, embedded, f"{base}/resend", revoke, game_id)
    assert done.status_code == 303 and seats_of(embedded.db, game_id)["yellow"].link_generation == generation + 1
    # resending without revoking is done at once: nothing stops working
    assert post_form(embedded.client, embedded.app, f"{base}/resend", {"colour": "yellow"}).status_code == 303
    assert seats_of(embedded.db, game_id)["yellow"].link_generation == generation + 1

    done = confirm_then_do(embedded.client, embedded, f"{base}/abandon", {}, game_id)
    assert done.status_code == 303 and game_row(embedded.db, game_id).status == "abandoned"
    # a game that is not running is refused at once, without a question
    again = post_form(embedded.client, embedded.app, f"{base}/replace", {"colour": "red", "by": "random"})
    assert again.status_code == 409 and "Replace a player?" not in text(again)


def test_a_wrong_replacement_is_refused_before_any_question(embedded: Stack) -> None:
    log_in_as_organiser(embedded.client)
    created = create_tagged(embedded.db, 3, seed=7)
    base = f"/o/games/{created.game_id}"
    for form in (
        {"colour": "red", "by": "wizard"},
        {"colour": "red", "by": "person", "email": "nope"},
        {"colour": "purple", "by": "random"},
    ):
        reply = post_form(embedded.client, embedded.app, f"{base}/replace", form)
        assert reply.status_code == 409 and "Replace a player?" not in text(reply), form


# --- the end -------------------------------------------------------------------------------------------------------


@pytest.mark.rule("END-3")
def test_a_finished_game_shows_the_scores_and_links_the_replay(embedded: Stack) -> None:
    log_in_as_organiser(embedded.client)
    running = create_tagged(embedded.db, 3, seed=7)
    assert embedded.client.get(f"/o/games/{running.game_id}/replay").status_code == 409  # no secret while it runs
    assert "Final scores" not in text(embedded.client.get(f"/o/games/{running.game_id}"))
    created = create_tagged(embedded.db, 0, seed=4, bots=3)  # bots only: played to the end at once
    assert game_row(embedded.db, created.game_id).status == "over"
    outcome = engine_of(embedded.db, created.game_id).outcome
    assert outcome is not None
    page = text(embedded.client.get(f"/o/games/{created.game_id}"))
    start = page.index('<section class="final-scores')
    scores = page[start : page.index("</section>", start)]
    row = r"<tr( class=\"winner\")?>\s*<td>(\d)\w*</td>\s*<td><strong>(\w+)</strong>.*?<td>(\d+)</td>"
    rows = re.findall(row, scores, re.S)
    ranked = sorted(outcome["scores"], key=lambda c: (-outcome["scores"][c], -outcome["cards"][c]))
    names = {"yellow": "Yellow", "red": "Red", "blue": "Blue"}
    assert [name for _w, _p, name, _pts in rows] == [names[c] for c in ranked]
    assert [int(points) for *_rest, points in rows] == [outcome["scores"][c] for c in ranked]
    assert {name for winner, _p, name, _pts in rows if winner} == {names[c] for c in outcome["winners"]}
    assert rows[0][1] == "1" and "more cards left in hand" in scores
    replay = f"/o/games/{created.game_id}/replay"
    assert f'href="{replay}"' in scores
    shown = embedded.client.get(replay)
    assert shown.status_code == 200 and "Every secret is revealed here" in text(shown)
    assert f'href="{replay}?round=' in text(shown)  # its rounds stay on the organiser's pages
    assert f'href="/o/games/{created.game_id}">Back to the game\'s page' in text(shown)
    assert "Back to your game" not in text(shown)
    assert embedded.client.get(f"{replay}?round=1").status_code == 200
    assert embedded.client.get(f"{replay}?round=99999999").status_code == 200  # a round past the end: the last


def test_an_organiser_link_opens_its_games_replay_only(embedded: Stack) -> None:
    from server.services.links import organiser_token

    a = create_tagged(embedded.db, 0, seed=4, bots=3)
    b = create_tagged(embedded.db, 0, seed=5, bots=3)
    assert embedded.client.get(f"/o/link/{organiser_token(embedded.settings.secret_key, a.game_id)}").status_code == 303
    assert embedded.client.get(f"/o/games/{a.game_id}/replay").status_code == 200
    assert embedded.client.get(f"/o/games/{b.game_id}/replay").status_code == 302  # to the login form


def test_the_confirm_pages_speak_the_readers_language(embedded: Stack) -> None:
    log_in_as_organiser(embedded.client)
    created = create_tagged(embedded.db, 3, seed=7)
    base = f"/o/games/{created.game_id}"
    for lang, question in (("it", "Abbandonare la partita?"), ("pl", "Porzucić grę?")):
        embedded.client.environ_base["HTTP_ACCEPT_LANGUAGE"] = lang
        reply = post_form(embedded.client, embedded.app, f"{base}/abandon", {})
        assert reply.status_code == 200 and question in text(reply)
    assert game_row(embedded.db, created.game_id).status == "running"
    assert organise.overview(embedded.db, created.game_id)["status"] == "running"


def test_a_finished_games_players_can_still_be_sent_their_links(embedded: Stack) -> None:
    """Once the game is over its players keep their links (for the end and the replay): the organiser may still
    resend one; the page offers nothing that no longer applies (replacing, revoking, abandoning: no danger zone),
    and nothing at all once abandoned. A revocation still asked for by hand is confirmed first."""
    from .test_replay import finish

    log_in_as_organiser(embedded.client)
    created = create_tagged(embedded.db, 3, seed=7)
    finish(embedded.db, created.game_id, seed=7)
    base = f"/o/games/{created.game_id}"
    assert game_row(embedded.db, created.game_id).status == "over"
    page = text(embedded.client.get(base))
    assert f'action="{base}/resend"' in page and "Resend a player's link" in page
    assert "Revoke a player's links" not in page and "danger-zone" not in page and 'name="rotate"' not in page
    for gone in ("replace", "abandon", "extend", "pause"):
        assert f'action="{base}/{gone}"' not in page
    sent = post_form(embedded.client, embedded.app, f"{base}/resend", {"colour": "red"})
    assert sent.status_code in (200, 303), text(sent)
    generation = seats_of(embedded.db, created.game_id)["red"].link_generation
    revoke = {"colour": "red", "rotate": "1"}
    asked = post_form(embedded.client, embedded.app, f"{base}/resend", revoke)
    assert asked.status_code == 200 and "This cannot be undone." in text(asked)
    assert seats_of(embedded.db, created.game_id)["red"].link_generation == generation  # asked, nothing changed
    done = post_form(embedded.client, embedded.app, f"{base}/resend", {**revoke, "confirm": "1"})
    assert done.status_code == 303, text(done)
    assert seats_of(embedded.db, created.game_id)["red"].link_generation == generation + 1
    refused = post_form(embedded.client, embedded.app, f"{base}/abandon", {})
    assert refused.status_code == 409 and "Abandon the game?" not in text(refused)

    abandoned = create_tagged(embedded.db, 3, seed=8)
    organise.abandon(embedded.db, abandoned.game_id)
    page = text(embedded.client.get(f"/o/games/{abandoned.game_id}"))
    assert "/resend" not in page and "danger-zone" not in page
    replay = embedded.client.get(f"/o/games/{abandoned.game_id}/replay")
    assert replay.status_code == 409 and "An abandoned game has no replay." in text(replay)
    assert embedded.client.get("/o/games/9999/replay").status_code == 404
    again = post_form(
        embedded.client, embedded.app, f"/o/games/{abandoned.game_id}/resend", {"colour": "red", "rotate": "1"}
    )
    assert again.status_code == 409
