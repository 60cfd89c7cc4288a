"""Defects found in the second review of issue 14's leagues (each test failed before its fix)."""

from __future__ import annotations

import sqlalchemy as sa

from server.models import MailKind, Player, Seat
from server.services import leagues
from server.services.links import player_token
from tests.conftest import Stack
from tests.server.test_results import _finished_season
from tests.server.test_rounds import make_league
from tests.support import T0, compose, html_of, mail_settings, rows_of_kind, text_of


def test_a_members_standings_pages_speak_the_players_language_not_the_browsers(embedded: Stack) -> None:
    """The results mail links an Italian player to /p/<token>/season/<id>: it is in Italian, whatever the browser."""
    _league, season_id, game_id = _finished_season(embedded)
    with embedded.db.session() as session:
        member = session.execute(sa.select(Seat.player_id).where(Seat.game_id == game_id)).scalars().first()
        assert member is not None
        player = session.get(Player, member)
        assert player is not None
        player.language = "it"
        generation = player.link_generation
    base = f"/p/{player_token(embedded.settings.secret_key, member, generation)}/season/{season_id}"
    english = {"Accept-Language": "en"}
    page = embedded.client.get(base, headers=english).get_data(as_text=True)
    assert "Classifica" in page and "Standings" not in page and "Partite" in page
    games = embedded.client.get(f"{base}/games/{member}", headers=english).get_data(as_text=True)
    assert "Torna alla classifica" in games and "Back to the standings" not in games


def test_an_invitation_to_an_unnamed_address_greets_without_an_empty_name(embedded: Stack) -> None:
    """An invited address has no name yet: "Ciao," / "Cześć!", never "Ciao ," or "Cześć, !"."""
    expected = {"en": "Hello,", "it": "Ciao,", "pl": "Cześć!"}
    for lang, greeting in expected.items():
        league_id = make_league(embedded.db, language=lang, name=f"League {lang}")
        leagues.invite(embedded.db, league_id, [f"{lang}@example.org"], T0)
        row = rows_of_kind(embedded.db, MailKind.LEAGUE_INVITE)[-1]
        message = compose(embedded.db, row.id, mail_settings(embedded.settings), now=T0)
        assert message is not None
        text, html = text_of(message), html_of(message)
        assert text.startswith(f"{greeting}\n") and f">{greeting}</p>" in html
        assert " ," not in text and ", !" not in text
