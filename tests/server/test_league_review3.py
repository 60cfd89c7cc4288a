"""Defects found in the second review of issue 14's leagues (each test failed before its fix)."""

from __future__ import annotations

import sqlalchemy as sa

from server.models import Player, Seat
from server.services.links import player_token
from tests.conftest import Stack
from tests.server.test_results import _finished_season


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
