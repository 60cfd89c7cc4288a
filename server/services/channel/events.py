"""The public events posted to channels, as facts (``ChannelPost.payload``): the words are written when a post is
sent (``server/mail/channel.py``, in the payload's ``lang``). Only what anyone may see: display names (never one that
is an address), places, points and standings; never an address, a link, a card, a vote or an answer.

- ``round_started``: a league round's tables (``leagues.rounds.start_round``);
- ``game_over``: a game's places, on play's game-over hook (registered in ``server/services/__init__.py``): a
  league game to its league's channel, any game with a channel of its own to that one;
- ``round_over`` and ``season_over``: the standings after a round, and the final ones (``leagues.round_end``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...models import Game, League, LeagueRound, Player, Proposal, Season, pick_language
from ..inputs import one_line
from ..play.places import outcome_places
from . import channels, posts

#: the rows of each division an event of standings carries (the message shows fewer).
TOP = 20
#: the longest name carried.
MAX_NAME = 80


def listening(session: Session, league_id: int) -> bool:
    """The league has a channel (its events are worth building; a paused one keeps them for when it resumes)."""
    return channels.find(session, league_id=league_id) is not None


def public_name(name: str | None) -> str | None:
    """A display name as a channel may show it: on one line, cut to ``MAX_NAME``; None when empty or when it looks
    like an address (a name never confirmed is its address)."""
    text = one_line(name or "")[:MAX_NAME]
    return None if not text or "@" in text else text


def _league_facts(league: League, season: Season, rnd: LeagueRound | None = None) -> dict[str, Any]:
    facts: dict[str, Any] = {
        "league": league.id,
        "league_name": public_name(league.name) or "",
        "season": season.id,
        "season_number": season.number,
    }
    if rnd is not None:
        facts |= {"round": rnd.id, "round_number": rnd.number, "rounds": season.rounds}
    return facts


def round_started(
    session: Session,
    league: League,
    season: Season,
    rnd: LeagueRound,
    tables: Sequence[tuple[Game, Sequence[Player]]],
    now: datetime,
) -> None:
    """A league round started: its tables (each game's number and its players' names, in seating order)."""
    facts = _league_facts(league, season, rnd) | {
        "event": "round_started",
        "tables": [
            {"table": n, "game": game.id, "players": [public_name(p.display_name) for p in people]}
            for n, (game, people) in enumerate(tables, start=1)
        ],
    }
    posts.post(session, f"round:{rnd.id}:started", {"lang": league.language, "facts": facts}, now, league_id=league.id)


def _places(session: Session, game: Game) -> list[dict[str, Any]]:
    names = dict(
        session.execute(
            select(Player.id, Player.display_name).where(
                Player.id.in_([s.player_id for s in game.seats if s.player_id is not None])
            )
        ).all()
    )
    seats = {s.colour: s for s in game.seats}
    places = []
    for colour, place, span, points in outcome_places(game.outcome):
        seat = seats.get(colour)
        holder = None if seat is None or seat.bot is not None else seat.player_id
        person = holder is not None
        name = None if holder is None else public_name(names.get(holder))
        places.append(
            {"colour": colour, "place": place, "tied": span > 1, "points": points, "name": name, "bot": not person}
        )
    return places


def game_over(session: Session, game: Game, now: datetime) -> None:
    """The game just ended (play's hook, in its transaction): its places to its league's channel (a league game)
    and to its own channel (a game with one)."""
    if not game.outcome:
        return
    facts: dict[str, Any] = {"event": "game_over", "game": game.id, "title": public_name(game.title) or ""}
    facts["places"] = _places(session, game)
    key = f"game:{game.id}:over"
    if game.round_id is not None:
        rnd = session.get(LeagueRound, game.round_id)
        season = None if rnd is None else session.get(Season, rnd.season_id)
        league = None if season is None else session.get(League, season.league_id)
        if rnd is not None and season is not None and league is not None:
            ids = session.execute(select(Game.id).where(Game.round_id == rnd.id).order_by(Game.id)).scalars()
            table = next((n for n, gid in enumerate(ids, start=1) if gid == game.id), None)
            shown = _league_facts(league, season, rnd) | facts | {"table": table}
            posts.post(session, key, {"lang": league.language, "facts": shown}, now, league_id=league.id)
    posts.post(session, key, {"lang": _game_language(session, game), "facts": facts}, now, game_id=game.id)


def _game_language(session: Session, game: Game) -> str:
    """A game's language for its channel: its proposal's (a game a player started), else its creator's, else
    English."""
    found = session.execute(select(Proposal.language).where(Proposal.game_id == game.id).limit(1)).scalar()
    if found is None and game.creator_id is not None:
        creator = session.get(Player, game.creator_id)
        found = None if creator is None else creator.language
    return pick_language(found)


def _divisions(divisions: Sequence[tuple[str | None, Sequence[Mapping[str, Any]]]]) -> list[dict[str, Any]]:
    """Standings as a channel shows them: each division's first ``TOP`` rows (rank, name, points, games, wins)."""
    return [
        {
            "name": None if name is None else str(name),
            "count": len(rows),
            "rows": [
                {
                    "rank": row["rank"],
                    "name": public_name(str(row["name"])),
                    "points": row["points"],
                    "games": row["games"],
                    "wins": row["wins"],
                }
                for row in rows[:TOP]
            ],
        }
        for name, rows in divisions
    ]


def round_over(
    session: Session,
    league: League,
    season: Season,
    rnd: LeagueRound,
    divisions: Sequence[tuple[str | None, Sequence[Mapping[str, Any]]]],
    now: datetime,
) -> None:
    """A league round is over: the standings after it."""
    facts = _league_facts(league, season, rnd) | {"event": "round_over", "standings": _divisions(divisions)}
    posts.post(session, f"round:{rnd.id}:over", {"lang": league.language, "facts": facts}, now, league_id=league.id)


def season_over(
    session: Session,
    league: League,
    season: Season,
    divisions: Sequence[tuple[str | None, Sequence[Mapping[str, Any]]]],
    now: datetime,
) -> None:
    """A league season is over: its final standings."""
    facts = _league_facts(league, season) | {"event": "season_over", "standings": _divisions(divisions)}
    posts.post(session, f"season:{season.id}:over", {"lang": league.language, "facts": facts}, now, league_id=league.id)
