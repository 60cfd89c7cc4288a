"""Defects found in the second review of the leagues (each test failed before its fix)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from server.models import MailKind, Player, Seat
from server.services.leagues import seasons
from server.services.links import league_token, player_token
from tests.conftest import Stack
from tests.server.test_results import _finished_season, results_of
from tests.server.test_rounds import make_league
from tests.server.test_rounds import make_season as make_season_of
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
        seasons.invite(embedded.db, league_id, [f"{lang}@example.org"], T0)
        row = rows_of_kind(embedded.db, MailKind.LEAGUE_INVITE)[-1]
        message = compose(embedded.db, row.id, mail_settings(embedded.settings), now=T0)
        assert message is not None
        text, html = text_of(message), html_of(message)
        assert text.startswith(f"{greeting}\n") and f">{greeting}</p>" in html
        assert " ," not in text and ", !" not in text


def test_one_point_is_written_in_the_singular() -> None:
    """ "1 punti" / "1 points" was written for a winner with one point; fractions stay plural."""
    from server.present.standings import lines
    from server.services.leagues.standings import Standings

    def row(rank: int, name: str, points: float) -> dict[str, Any]:
        row = {"player": rank, "name": name, "rank": rank, "games": 1, "points": points, "average_place": 1.0}
        return row | {"victory_points": 10}

    table = Standings(1, 1, divisions=[(None, [row(1, "Ann", 1.0), row(2, "Bob", 0.5), row(3, "Cy", 2.0)])])
    assert lines("en", table)[1:] == [
        "1. Ann: 1 league point (1 game)",
        "2. Bob: 0.5 league points (1 game)",
        "3. Cy: 2 league points (1 game)",
    ]
    it = ["1. Ann: 1 punto in classifica (1 partita)", "2. Bob: 0,5 punti in classifica (1 partita)"]
    assert lines("it", table)[1:3] == it


def test_the_season_end_mail_and_the_standings_page_write_one_point_in_the_singular(embedded: Stack) -> None:
    _league, season_id, game_id = _finished_season(embedded, scoring="wins")
    member = next(r.player_id for r in results_of(embedded.db, game_id).values() if r.winner)
    assert member is not None
    with embedded.db.session() as session:
        generation = session.get(Player, member).link_generation  # type: ignore[union-attr]
    page = embedded.client.get(
        f"/p/{player_token(embedded.settings.secret_key, member, generation)}/season/{season_id}"
    )
    assert "with 1 league point." in page.get_data(as_text=True)
    ends = [r for r in rows_of_kind(embedded.db, MailKind.SEASON_END) if r.player_id == member]
    message = compose(embedded.db, ends[0].id, mail_settings(embedded.settings), now=T0)
    assert message is not None and "with 1 league point." in text_of(message)


def test_the_league_organiser_pages_name_the_scoring_language_and_rounds_in_the_readers_language(
    embedded: Stack,
) -> None:
    """The league page showed "placement" and "it" as stored, and the season page the heading "Round" in Italian."""
    league_id = make_league(embedded.db, language="pl")
    season_id = make_season_of(embedded.db, league_id)
    base = f"/lo/{league_token(embedded.settings.secret_key, 'organiser', league_id, 1)}"
    italian = {"Accept-Language": "it"}
    page = embedded.client.get(base, headers=italian).get_data(as_text=True)
    assert "<dd>punti per piazzamento, in proporzione ai giocatori del tavolo</dd>" in page
    assert "<dd>polacco</dd>" in page and "<dd>placement</dd>" not in page
    season = embedded.client.get(f"{base}/season/{season_id}", headers=italian).get_data(as_text=True)
    assert "<h2>Turni</h2>" in season


def test_a_status_agrees_with_its_noun_in_italian_and_polish() -> None:
    """A season (la stagione, sezon), a round (il turno, runda) and a sign-up are over, planned or confirmed in words
    that agree with each; one word for all read "Turno 1 (finita)" and "Sezon 1 zakończona"."""
    from server.present.league import status_name

    assert [status_name("it", "over", of) for of in ("season", "round")] == ["conclusa", "concluso"]
    assert [status_name("pl", "over", of) for of in ("season", "round")] == ["zakończony", "zakończona"]
    assert status_name("en", "over", "game") == "over" and status_name("it", "confirmed", "entry").startswith(
        "iscrizione"
    )
