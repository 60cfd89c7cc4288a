"""The home page (/): what deadmail is, a picture of the board, and where players and organisers go, in the
browser's language."""

from __future__ import annotations

import pytest

from tests.conftest import Stack


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ["Mall of Horror, by e-mail and web links", "3 to 6 players", "Players", "Organisers", "Parking Lot"]),
        ("it", ["Mall of Horror, per e-mail e link", "da 3 a 6 giocatori", "Giocatori", "Organizzatori", "Parcheggio"]),
        ("pl", ["Mall of Horror przez e-mail i linki", "dla 3 do 6 graczy", "Gracze", "Organizatorzy", "Parking"]),
    ],
)
def test_the_home_page_says_what_deadmail_is_shows_the_board_and_leads_players_and_organisers(
    embedded: Stack, lang: str, words: list[str]
) -> None:
    page = embedded.client.get("/", headers={"Accept-Language": f"{lang},en;q=0.5"})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert f'<html lang="{lang}">' in text and '<body class="wide">' in text
    for word in words:
        assert word in text, word
    # the picture of a board in the middle of a game, with its legend, and nothing of a reader's own
    assert text.count('<svg class="board" role="img"') == 1 and 'class="board-legend"' in text
    assert 'class="token' in text and 'class="token yours' not in text and "key-yours" not in text
    # the organiser's way in, and the player's
    assert 'href="/o/"' in text and "<code>deadmail up</code>" in text
    assert text.count("<h1") == 1
    assert "style=" not in text and "<script>" not in text
