"""A game's end reaches the leagues through play's hook (``play.hooks``, registered in ``server/services/__init__``):
play imports nothing of leagues, and a league game's end still records its league result in its transaction."""

from __future__ import annotations

from datetime import datetime

import grimp
import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

from server.models import Game, LeagueResult
from server.services.leagues import game_end
from server.services.play import hooks
from tests.conftest import Stack
from tests.server.test_replay import finish
from tests.server.test_results import league_game, make_season, results_of


def test_play_imports_nothing_of_leagues() -> None:
    graph = grimp.build_graph("server")
    assert not graph.chain_exists("server.services.play", "server.services.leagues", as_packages=True)


def test_the_leagues_handler_is_registered_once() -> None:
    assert hooks.GAME_OVER.count(game_end.game_over) == 1


@pytest.mark.long(8)
def test_a_league_game_end_records_its_league_result_through_the_hook(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    _league_id, season_id = make_season(stack.db)
    seen: list[tuple[int, int]] = []

    def after_leagues(session: Session, game: Game, now: datetime) -> None:
        """Registered after the leagues' handler: it sees the results written in the transaction ending the game."""
        written = sa.select(sa.func.count()).select_from(LeagueResult).where(LeagueResult.game_id == game.id)
        seen.append((game.id, session.execute(written).scalar_one()))

    monkeypatch.setattr(hooks, "GAME_OVER", [*hooks.GAME_OVER, after_leagues])
    heard = league_game(stack.db, season_id, 1, seed=81)
    finish(stack.db, heard, seed=81)
    assert seen == [(heard, 3)]
    assert len(results_of(stack.db, heard)) == 3
    monkeypatch.setattr(hooks, "GAME_OVER", [])  # nobody listening: the game ends, nothing of leagues is written
    unheard = league_game(stack.db, season_id, 2, seed=82, tag=2)
    finish(stack.db, unheard, seed=82)
    assert results_of(stack.db, unheard) == {}
