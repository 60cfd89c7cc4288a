"""Leagues: the standings page of a season of many finished games, on PostgreSQL, as one JSON object.

    DEADMAIL_TEST_PG=postgresql+psycopg://postgres@127.0.0.1:5432/test \
        python bench/standings.py --games 10000 --rounds 20 --size 5 --requests 300 --seed 1

Builds, in a fresh database of its own on the server of ``DEADMAIL_TEST_PG`` (dropped at the end), a league with
public standings and one season of ``--rounds`` rounds of ``--games`` finished games in all, ``--size`` seats each
(players = games x size / rounds, every one at one table a round), bulk-inserted with one ``league_results`` row per
seat (one in fifty seats ended on autopilot, one in a hundred by a substitute). Then, through the Flask test client
(the whole app: routing, link check, the page's queries, the template), it opens the season's standings page
``/p/<token>/season/<id>`` of one player ``--requests`` times, and the league's public page ``/ls/<token>`` as many.
Before the pages, the standings are computed and stored once (``store_ms``, then all rows read back: what each
arriving result now pays in ``game_end.game_over``, in its transaction, since the bulk insert bypasses it); the pages
then read one page of 100 rows of each table and the reader's own row (``first_ms``: the first request). Prints
progress on stderr and on stdout
``{"games", "players", "results", "store_ms", "first_ms", "member": {"p50_ms", "p99_ms", "max_ms"}, "public": {…}}``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from _stack import migrated, percentile, postgres_database, say

from server.config import Settings, prepare_data_dir
from server.models import (
    EntryStatus,
    Game,
    GameStatus,
    League,
    LeagueResult,
    LeagueRound,
    Player,
    RoundStatus,
    Season,
    SeasonPlayer,
    SeasonStatus,
)
from server.services.leagues import standings
from server.services.links import league_token, player_token
from server.web.app import create_app

T0 = datetime(2031, 1, 6, 18, tzinfo=UTC)
COLOURS = ("red", "yellow", "green", "blue", "brown", "black")


def build(url: str, games: int, rounds: int, size: int, seed: int) -> tuple[int, int, int, int]:
    """(league id, season id, a player's id, players) of the season built at ``url``."""
    import sqlalchemy as sa

    rng = random.Random(seed)
    per_round = games // rounds
    players = per_round * size
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(
            sa.insert(Player),
            [{"email": f"p{i}@bench.test", "display_name": f"Player {i}", "created_at": T0} for i in range(players)],
        )
        ids = list(conn.execute(sa.select(Player.id).order_by(Player.id)).scalars())
        league_id = conn.execute(
            sa.insert(League)
            .values(name="Bench", tie_breaks=["victory_points", "wins"], standings_public=True, created_at=T0)
            .returning(League.id)
        ).scalar_one()
        season_id = conn.execute(
            sa.insert(Season)
            .values(
                league_id=league_id,
                number=1,
                signup_closes=T0,
                rounds=rounds,
                schedule="when_over",
                status=SeasonStatus.RUNNING,
                results_version=1,
                created_at=T0,
            )
            .returning(Season.id)
        ).scalar_one()
        conn.execute(
            sa.insert(SeasonPlayer),
            [{"season_id": season_id, "player_id": p, "status": EntryStatus.CONFIRMED} for p in ids],
        )
        for number in range(1, rounds + 1):
            at = T0 + timedelta(days=7 * number)
            round_id = conn.execute(
                sa.insert(LeagueRound)
                .values(season_id=season_id, number=number, status=RoundStatus.OVER, started_at=at, over_at=at)
                .returning(LeagueRound.id)
            ).scalar_one()
            game_rows = [
                {
                    "title": "",
                    "status": GameStatus.OVER,
                    "options": {},
                    "seed": rng.randrange(1 << 30),
                    "tempo": {},
                    "state": {},
                    "round_id": round_id,
                    "created_at": at,
                    "updated_at": at,
                }
                for _ in range(per_round)
            ]
            game_ids = list(conn.execute(sa.insert(Game).returning(Game.id), game_rows).scalars())
            shuffled = rng.sample(ids, len(ids))
            conn.execute(
                sa.insert(LeagueResult),
                [
                    _result(rng, (season_id, round_id, game_id, at), seat, shuffled[t * size + seat], ids)
                    for t, game_id in enumerate(game_ids)
                    for seat in range(size)
                ],
            )
            say(f"round {number}: {per_round} games")
    engine.dispose()
    return league_id, season_id, ids[0], players


def _result(
    rng: random.Random, where: tuple[int, int, int, Any], seat: int, player: int, ids: list[int]
) -> dict[str, Any]:
    """One seat's result; ``where``: (season id, round id, game id, finished at)."""
    season_id, round_id, game_id, at = where
    roll = rng.random()
    ending = "autopilot" if roll < 0.02 else "substituted" if roll < 0.03 else "played"
    return {
        "season_id": season_id,
        "round_id": round_id,
        "game_id": game_id,
        "colour": COLOURS[seat],
        "player_id": player,
        "ending": ending,
        "substitute_id": rng.choice(ids) if ending == "substituted" else None,
        "points": rng.randrange(0, 40),
        "cards": rng.randrange(0, 4),
        "winner": seat == 0,
        "finished_at": at,
    }


def timed(client: Any, path: str, requests: int) -> dict[str, float]:
    times = []
    for _ in range(requests):
        start = time.perf_counter()
        response = client.get(path)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, response.status_code
    return {
        "p50_ms": round(percentile(times, 0.5), 2),
        "p99_ms": round(percentile(times, 0.99), 2),
        "max_ms": round(max(times), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tiny", action="store_true", help="for CI: --games 40 --rounds 4 --requests 3")
    args = parser.parse_args()
    if args.tiny:
        args.games, args.rounds, args.requests = 40, 4, 3
    pg = os.environ.get("DEADMAIL_TEST_PG")
    if not pg:
        sys.exit("set DEADMAIL_TEST_PG (postgresql+psycopg://postgres@127.0.0.1:5432/test)")
    with postgres_database(pg.rsplit("/", 1)[0]) as url:
        db = migrated(url)
        league_id, season_id, player_id, players = build(url, args.games, args.rounds, args.size, args.seed)
        settings = prepare_data_dir(
            Settings.from_env(
                {
                    "DATABASE_URL": url,
                    "DEADMAIL_SECRET_KEY": "bench-secret-key",
                    "DEADMAIL_DATA_DIR": "/tmp/dm-bench-standings",
                    "CELERY_BROKER_URL": "memory://",
                    "DEADMAIL_BASE_URL": "http://bench.test",
                }
            )
        )
        app = create_app(settings, db)
        client = app.test_client()
        member = f"/p/{player_token(settings.secret_key, player_id, 1)}/season/{season_id}"
        public = f"/ls/{league_token(settings.secret_key, 'public', league_id, 1)}"
        start = time.perf_counter()
        standings.standings(db, season_id)
        stored = (time.perf_counter() - start) * 1000
        say(f"standings computed and stored: {stored:.0f} ms")
        start = time.perf_counter()
        assert client.get(member).status_code == 200
        first = (time.perf_counter() - start) * 1000
        say(f"first request: {first:.0f} ms")
        for _ in range(10):  # warm
            client.get(member)
            client.get(public)
        out = {
            "games": args.games,
            "players": players,
            "results": args.games * args.size,
            "store_ms": round(stored, 1),
            "first_ms": round(first, 1),
            "member": timed(client, member, args.requests),
            "public": timed(client, public, args.requests),
        }
        db.dispose()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
