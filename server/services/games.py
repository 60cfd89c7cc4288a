"""Creating games, restoring their engine state, and describing them."""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import parseaddr
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine
from engine.data import COLOURS

from ..db import Database
from ..models import Game, Outbox, Player, RequestRow, Seat, Window, utcnow
from .errors import N_, ShownError
from .tempo import TempoError, check_timezone, parse_deadlines

BOT_KINDS = ("sensible", "random")


class GameError(ShownError):
    """A game that cannot be created or found; the message says why (pages translate it)."""


@dataclass
class PlayerSpec:
    name: str | None = None
    email: str | None = None
    bot: str | None = None


@dataclass
class GameSpec:
    players: list[PlayerSpec]
    options: dict[str, Any] = field(default_factory=dict)
    deadlines: dict[str, int] = field(default_factory=lambda: parse_deadlines([]))
    timezone: str = "UTC"
    avoid_quiet_hours: bool = True
    seed: int | None = None
    title: str = ""
    organiser_email: str | None = None
    #: the organiser's name, for the mail with their organiser link (sent when organiser_email is given).
    organiser_name: str | None = None


def parse_player(text: str) -> PlayerSpec:
    """``"Ann <ann@example.org>"``, ``"ann@example.org"``, ``"bot"`` or ``"bot:random"``."""
    text = text.strip()
    if text.split(":", 1)[0].lower() == "bot":
        kind = text.split(":", 1)[1].strip().lower() if ":" in text else "sensible"
        if kind not in BOT_KINDS:
            raise GameError(N_("unknown bot %(bot)s (bots: %(bots)s)"), bot=repr(kind), bots=", ".join(BOT_KINDS))
        return PlayerSpec(bot=kind)
    name, email = parseaddr(text)
    if "@" not in email or len(email) > 320 or " " in email:
        raise GameError(N_("%(text)s is neither 'Name <email>' nor 'bot'"), text=repr(text[:80]))
    return PlayerSpec(name=(name or email.split("@")[0])[:80], email=email.lower())


def spec_from_json(data: dict[str, Any]) -> GameSpec:
    """The JSON API's body -> a GameSpec (same vocabulary as the command line)."""
    if not isinstance(data, dict):
        raise GameError(N_("the body must be a JSON object"))
    known = {"players", "options", "deadlines", "timezone", "avoid_quiet_hours", "seed", "title", "organiser"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise GameError(N_("unknown field %(field)s"), field=repr(unknown[0]))
    players = data.get("players")
    if not isinstance(players, list):
        raise GameError(N_("players must be a list of 'Name <email>' or 'bot' (or {name, email} objects)"))
    specs = []
    for item in players:
        if isinstance(item, dict):
            if item.get("bot"):
                specs.append(parse_player(f"bot:{item['bot']}" if isinstance(item["bot"], str) else "bot"))
            else:
                specs.append(parse_player(f"{item.get('name', '')} <{item.get('email', '')}>"))
        elif isinstance(item, str):
            specs.append(parse_player(item))
        else:
            raise GameError(N_("each player is 'Name <email>', 'bot', or an object"))
    deadlines = data.get("deadlines", [])
    if isinstance(deadlines, str):
        deadlines = [deadlines]
    if isinstance(deadlines, dict):
        deadlines = [f"{k}={v}" if k != "default" else str(v) for k, v in deadlines.items()]
    if not isinstance(deadlines, list) or not all(isinstance(d, str) for d in deadlines):
        raise GameError(N_('deadlines are texts such as "24h" or "vote=6h"'))
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise GameError(N_('options must be an object such as {"turn_order": "strict"}'))
    avoid = data.get("avoid_quiet_hours", True)
    if not isinstance(avoid, bool):
        raise GameError(N_("avoid_quiet_hours must be true or false"))
    seed = data.get("seed")
    organiser = data.get("organiser") or None
    if organiser is not None:
        if not isinstance(organiser, str):
            raise GameError("organiser must be 'Name <email>' or an e-mail address")
        organiser_spec = parse_player(organiser)
        if organiser_spec.bot:
            raise GameError("the organiser is a person: 'Name <email>' or an e-mail address")
    try:
        return GameSpec(
            players=specs,
            options=options,
            deadlines=parse_deadlines(deadlines),
            timezone=check_timezone(str(data.get("timezone", "UTC"))),
            avoid_quiet_hours=avoid,
            seed=check_seed(seed),
            title=str(data.get("title", ""))[:120],
            organiser_email=None if organiser is None else organiser_spec.email,
            organiser_name=None if organiser is None else organiser_spec.name,
        )
    except TempoError as exc:
        raise GameError(str(exc)) from None


def check_seed(seed: object) -> int | None:
    """A seed the database can hold (32-bit), or None for a random one."""
    if seed is None:
        return None
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**31:
        raise GameError(N_("seed must be an integer from 0 to 2147483647"))
    return seed


def colours_for(count: int) -> list[str]:
    """SET-1: the box's three Little Girls are yellow, red and blue, so a 3-player game uses those."""
    return ["yellow", "red", "blue"] if count == 3 else list(COLOURS[:count])


# --- the engine state of each game, restored once per process and version --------------------------------------


class EngineCache:
    """Restored engine games by (game id, creation instant, version): the creation instant tells apart games of
    the same id in different databases (tests, or two installations in one process). Checking an answer never
    mutates a cached game."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._games: OrderedDict[tuple[int, datetime], tuple[int, engine.Game]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(game: Game) -> tuple[int, datetime]:
        return game.id, game.created_at

    def get(self, game: Game) -> engine.Game:
        key = self._key(game)
        with self._lock:
            hit = self._games.get(key)
            if hit is not None and hit[0] == game.version:
                self._games.move_to_end(key)
                return hit[1]
        restored = engine.Game.from_json(game.state)
        self.put(game, restored)
        return restored

    def fresh(self, game: Game) -> engine.Game:
        """A private copy to change (an advance); the cache is untouched until ``put`` after the commit."""
        return engine.Game.from_json(game.state)

    def put(self, game: Game, eng: engine.Game) -> None:
        key = self._key(game)
        with self._lock:
            self._games[key] = (game.version, eng)
            self._games.move_to_end(key)
            while len(self._games) > self.size:
                self._games.popitem(last=False)


CACHE = EngineCache()


# --- creating and describing games ------------------------------------------------------------------------------


def find_or_create_player(session: Session, spec: PlayerSpec) -> Player:
    assert spec.email is not None
    player = session.execute(select(Player).where(Player.email == spec.email)).scalar_one_or_none()
    if player is None:
        player = Player(email=spec.email, display_name=spec.name or spec.email)
        session.add(player)
        session.flush()
    return player


@dataclass(frozen=True)
class Created:
    game_id: int
    #: notifications written with the game, to send after the commit.
    outbox_ids: list[int]


def create_game(db: Database, spec: GameSpec, now: datetime | None = None) -> Created:
    """Create and start a game: seats, the engine's setup, and its first window."""
    from .turns import open_windows

    now = now or utcnow()
    if not 3 <= len(spec.players) <= 6:
        raise GameError(N_("%(count)s players: Mall of Horror takes 3 to 6"), count=len(spec.players))
    emails = [p.email for p in spec.players if p.email]
    if len(set(emails)) != len(emails):
        raise GameError(N_("the same e-mail address is given for two seats"))
    colours = colours_for(len(spec.players))
    seed = check_seed(spec.seed)
    seed = seed if seed is not None else secrets.randbelow(2**31)
    try:
        eng = engine.new_game(colours, seed=seed, options=spec.options)
    except engine.ScenarioError as exc:
        raise GameError(str(exc)) from None
    with db.session() as session:
        game = Game(
            title=spec.title,
            options=eng.options.to_json(),
            seed=seed,
            tempo={"durations": spec.deadlines, "timezone": spec.timezone, "avoid_quiet_hours": spec.avoid_quiet_hours},
            state={},
            organiser_email=spec.organiser_email,
            created_at=now,
            updated_at=now,
        )
        session.add(game)
        session.flush()
        for i, (colour, pspec) in enumerate(zip(colours, spec.players, strict=True)):
            player = None if pspec.bot else find_or_create_player(session, pspec)
            session.add(Seat(game=game, position=i, colour=colour, player=player, bot=pspec.bot))
        session.flush()
        mail = open_windows(session, game, eng, events_before=0, now=now)
        if spec.organiser_email:  # the organiser's link, by mail
            mail.append(_organiser_mail(session, game, spec, now))
        session.flush()
        created = Created(game.id, [m.id for m in mail])
    CACHE.put(game, eng)
    return created


def _organiser_mail(session: Session, game: Game, spec: GameSpec, now: datetime) -> Outbox:
    """The mail with the organiser link of a new game (kind "organiser", composed by ``mails.compose``)."""
    player = find_or_create_player(session, PlayerSpec(name=spec.organiser_name, email=spec.organiser_email))
    row = Outbox(
        key=f"organiser:{game.id}",
        game_id=game.id,
        player_id=player.id,
        seat_id=None,
        kind="organiser",
        payload={},
        status="pending",
        created_at=now,
        next_attempt_at=now,
    )
    session.add(row)
    return row


def seat_links(db: Database, game_id: int, secret_key: str, base_url: str) -> list[dict[str, Any]]:
    from .links import seat_token

    with db.session() as session:
        seats = session.execute(select(Seat).where(Seat.game_id == game_id).order_by(Seat.position)).scalars()
        out = []
        for seat in seats:
            entry: dict[str, Any] = {"colour": seat.colour, "player": None, "bot": seat.bot, "link": None}
            if seat.player is not None:
                entry["player"] = {"name": seat.player.display_name, "email": seat.player.email}
                entry["link"] = f"{base_url}/s/{seat_token(secret_key, seat.id, seat.link_generation)}"
            out.append(entry)
        return out


def game_status(db: Database, game_id: int) -> dict[str, Any]:
    """Public facts of a game: status, round, phase, who still owes what, and the outcome."""
    with db.session() as session:
        game = session.get(Game, game_id)
        if game is None:
            raise GameError(N_("there is no game %(game)s"), game=game_id)
        window = session.execute(
            select(Window).where(Window.game_id == game.id, Window.status == "open")
        ).scalar_one_or_none()
        owed = []
        if window is not None:
            rows = session.execute(
                select(RequestRow).where(RequestRow.window_id == window.id).order_by(RequestRow.position)
            ).scalars()
            for row in rows:
                owed.append(
                    {
                        "colour": row.seat.colour,
                        "player": row.seat.player.display_name if row.seat.player else f"bot ({row.seat.bot})",
                        "kind": row.kind,
                        "answered": row.answered_at is not None,
                    }
                )
        return {
            "id": game.id,
            "title": game.title,
            "status": game.status,
            "round": game.round,
            "phase": game.phase,
            "window": None
            if window is None
            else {
                "number": window.number,
                "deadline": window.deadline.isoformat(),
                "opened_at": window.opened_at.isoformat(),
            },
            "owed": [o for o in owed if not o["answered"]],
            "answered": [o["colour"] for o in owed if o["answered"]],
            "outcome": game.outcome,
            "options": game.options,
            "tempo": game.tempo,
        }
