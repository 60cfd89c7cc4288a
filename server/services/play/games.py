"""Creating games, restoring their engine state, and describing them."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypedDict

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, object_session

import engine
from engine.data import COLOURS, DEFAULT_WEAPONS
from engine.options import CHOICES

from ...db import Database
from ...models import Device, Game, GameStatus, MailKind, NotifyMode, Player, PlayHoursJSON, Seat, TempoJSON, utcnow
from .. import inputs, presets
from ..errors import N_, ShownError
from ..links import seat_token
from ..mailflow import outbox, reminders
from ..notify.devices import MAX_FAILURES
from ..tempo import PlayHours, TempoError, check_timezone, parse_duration, parse_play_hours, quiet_of
from . import estimate, policy, reliability, tenures
from .engines import CACHE
from .seats import open_window, owed_requests
from .turns import BOT_KINDS, open_windows


class GameError(ShownError):
    """A game that cannot be created or found; the message says why (pages translate it)."""


@dataclass
class PlayerSpec:
    name: str | None = None
    email: str | None = None
    bot: str | None = None


class AbsenceOptions(TypedDict, total=False):
    """The tempo's keys for missed deadlines and absences (``services.play.policy``); absent: the defaults."""

    autopilot_after: int
    absence: str
    absence_budget: int


@dataclass
class GameSpec:
    players: list[PlayerSpec]
    options: dict[str, Any] = field(default_factory=dict)
    #: the deadlines given explicitly (``presets.explicit_deadlines``); the rest are the preset's, or 24 h.
    deadlines: dict[str, int] = field(default_factory=dict)
    timezone: str = "UTC"
    avoid_quiet_hours: bool = True
    #: seconds left to the last player owing an answer once all others answered (None: no last call).
    last_call: int | None = None
    #: the tempo's ``play_hours`` (``tempo.parse_play_hours``), or None.
    play_hours: PlayHoursJSON | None = None
    #: a vote closes as soon as the votes still missing cannot change its outcome (``turns._complete_if_done``);
    #: None: the preset's (on without one).
    close_decided_votes: bool | None = None
    seed: int | None = None
    title: str = ""
    organiser_email: str | None = None
    #: the organiser's name, for the mail with their organiser link (sent when organiser_email is given).
    organiser_name: str | None = None
    #: a tempo preset's name (``presets.PRESETS``); explicit settings override it.
    preset: str | None = None
    #: missed deadlines and absences (``services.play.autopilot``): ``autopilot_after``, ``absence``,
    #: ``absence_budget``; absent keys take the defaults.
    absences: AbsenceOptions = field(default_factory=AbsenceOptions)

    def tempo(self) -> TempoJSON:
        """The game's tempo, as stored in ``games.tempo``."""
        tempo = presets.tempo_for(self.preset, self.timezone, self.deadlines, self.avoid_quiet_hours)
        if self.close_decided_votes is not None:
            tempo["close_decided_votes"] = self.close_decided_votes
        if self.last_call is not None:
            tempo["last_call"] = self.last_call
        if self.play_hours is not None:
            tempo["play_hours"] = PlayHours.from_json(self.play_hours).to_json()
        return {**tempo, **self.absences}


def parse_player(text: str) -> PlayerSpec:
    """``"Ann <ann@example.org>"``, ``"ann@example.org"``, ``"bot"`` or ``"bot:random"``."""
    text = text.strip()
    if text.split(":", 1)[0].lower() == "bot":
        kind = text.split(":", 1)[1].strip().lower() if ":" in text else "sensible"
        if kind not in BOT_KINDS:
            raise GameError(N_("unknown bot %(bot)s (bots: %(bots)s)"), bot=repr(kind), bots=", ".join(BOT_KINDS))
        return PlayerSpec(bot=kind)
    name, email = "", text
    if text.endswith(">") and "<" in text:  # "Name <address>": the address is what the brackets hold, nothing else
        name, _, email = text[:-1].rpartition("<")
        name = name.strip()
        name = name[1:-1] if len(name) > 1 and name[0] == name[-1] == '"' else name
    if "@" not in email:
        raise GameError(N_("%(text)s is neither 'Name <email>' nor 'bot'"), text=repr(text[:80]))
    return person(name, email)


def person(name: object, email: object) -> PlayerSpec:
    """A person from a name and an address given apart (a JSON object, the organiser's form, or split from
    ``"Name <address>"``): one bare address, and a one-line name that never becomes the address."""
    if not isinstance(name, str) or not isinstance(email, str):
        raise GameError(N_("a player's name and email are texts"))
    try:
        address, shown = inputs.email_address(email), inputs.person_name(name)
    except inputs.InputError as exc:
        raise GameError(exc.msgid, **exc.params) from None
    return PlayerSpec(name=(shown or address.split("@")[0])[:80], email=address)


def spec_from_json(data: object) -> GameSpec:
    """The JSON API's body -> a GameSpec (same vocabulary as the command line)."""
    if not isinstance(data, dict):
        raise GameError(N_("the body must be a JSON object"))
    known = {"players", "options", "deadlines", "timezone", "avoid_quiet_hours", "seed", "title", "organiser"}
    known |= {"last_call", "play_hours", "play_deadline", "close_decided_votes", "preset"}
    known |= {"autopilot_after", "absence", "absence_budget"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise GameError(N_("unknown field %(field)s"), field=repr(unknown[0]))
    players = _players(data.get("players"))
    raw_deadlines = _deadlines(data.get("deadlines", []))
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise GameError(N_('options must be an object such as {"turn_order": "strict"}'))
    avoid = data.get("avoid_quiet_hours", True)
    if not isinstance(avoid, bool):
        raise GameError(N_("avoid_quiet_hours must be true or false"))
    close_decided = data.get("close_decided_votes")
    if close_decided is not None and not isinstance(close_decided, bool):
        raise GameError(N_("close_decided_votes must be true or false"))
    organiser = _organiser(data.get("organiser") or None)
    try:
        deadlines = presets.explicit_deadlines(raw_deadlines)
        timezone = check_timezone(str(data.get("timezone", "UTC")))
        last_call, play_hours = _last_call(data.get("last_call")), _play_hours(data)
        preset = presets.check_preset(data.get("preset"))
    except (TempoError, presets.PresetError) as exc:
        raise GameError(exc.msgid, **exc.params) from None
    return GameSpec(
        players=players,
        options=options,
        deadlines=deadlines,
        timezone=timezone,
        avoid_quiet_hours=avoid,
        last_call=last_call,
        play_hours=play_hours,
        close_decided_votes=close_decided,
        seed=check_seed(data.get("seed")),
        title=str(data.get("title", ""))[:120],
        organiser_email=None if organiser is None else organiser.email,
        organiser_name=None if organiser is None else organiser.name,
        preset=preset,
        absences=absence_options(data),
    )


def absence_options(data: Any) -> AbsenceOptions:
    """The JSON API's (and the command line's) ``autopilot_after`` (0 to 20 missed deadlines, 0: never),
    ``absence`` ("autopilot" or "extend") and ``absence_budget`` (a duration such as "3d", or 0) -> the tempo's
    keys; absent or null ones are left out (the defaults of ``services.play.autopilot``)."""
    chosen = AbsenceOptions()
    after = data.get("autopilot_after")
    if after is not None:
        if not isinstance(after, int) or isinstance(after, bool) or not 0 <= after <= 20:
            raise GameError(N_("autopilot_after must be a whole number from 0 (never) to 20"))
        chosen["autopilot_after"] = after
    mode = data.get("absence")
    if mode is not None:
        if mode not in policy.ABSENCE_MODES:
            raise GameError(N_('absence must be "autopilot" or "extend"'))
        chosen["absence"] = mode
    budget = data.get("absence_budget")
    if budget is not None and budget not in ("", 0, "0"):
        if not isinstance(budget, str):
            raise GameError(N_('absence_budget is a duration such as "3d"'))
        try:
            chosen["absence_budget"] = parse_duration(budget)
        except TempoError as exc:
            raise GameError(exc.msgid, **exc.params) from None
    elif budget is not None:
        chosen["absence_budget"] = 0
    return chosen


def _last_call(value: object) -> int | None:
    """The JSON API's ``last_call``: a duration such as "4h", or null (none)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise GameError(N_('last_call is a duration such as "4h", or null'))
    return parse_duration(value)


def _play_hours(data: dict[str, Any]) -> PlayHoursJSON | None:
    """The JSON API's ``play_hours``: a text such as "Mon-Sun 20:30-22:00 Europe/Rome" (with ``play_deadline``, 10
    minutes when absent), the tempo's object itself, or null (none)."""
    value, deadline = data.get("play_hours"), data.get("play_deadline")
    if deadline is not None and not isinstance(deadline, str):
        raise GameError(N_('play_deadline is a duration such as "10m"'))
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return parse_play_hours(value, deadline or "10m")
    return PlayHours.from_json(value).to_json()


class AbsenceFields(TypedDict, total=False):
    """The new-game form's missed-deadline and absence options, as typed (an empty field is left out)."""

    autopilot_after: int
    absence: str
    absence_budget: str


class FormBody(AbsenceFields):
    """The organiser's new-game form as the JSON API's body, for ``spec_from_json``."""

    title: str
    players: list[str]
    options: dict[str, str | dict[str, int]]
    deadlines: list[str]
    timezone: str
    avoid_quiet_hours: bool
    last_call: str | None
    play_hours: str | None
    play_deadline: str | None
    close_decided_votes: bool
    organiser: str | None
    preset: str | None


def spec_from_form(form: Any, limit: int) -> FormBody:
    """The organiser's new-game form (a multidict of texts, each read up to ``limit`` characters) -> the JSON API's
    body, for ``spec_from_json``. GameError for a weapon whose zombies killed is not a number."""
    players = [line.strip() for line in str(form.get("players", ""))[:limit].splitlines() if line.strip()]
    options: dict[str, str | dict[str, int]] = {
        name: str(form.get(f"option_{name}"))[:32] for name in CHOICES if form.get(f"option_{name}")
    }
    if form.get("option_first_chief"):
        options["first_chief"] = str(form.get("option_first_chief"))[:16]
    weapons: dict[str, int] = {}
    for weapon, default in DEFAULT_WEAPONS.items():
        raw = str(form.get(f"weapon_{weapon}", "") or default)[:3]
        try:
            weapons[weapon] = int(raw)
        except ValueError:
            raise GameError(N_("%(weapon)s: the zombies killed must be a number."), weapon=weapon) from None
    if weapons != DEFAULT_WEAPONS:
        options["weapons"] = weapons
    deadlines = [str(form.get("deadline", ""))[:20].strip()]
    deadlines += [line.strip() for line in str(form.get("deadlines", ""))[:1000].replace(",", "\n").splitlines()]
    return {
        "title": str(form.get("title", ""))[:120],
        "players": players,
        "options": options,
        "deadlines": [d for d in deadlines if d],
        "timezone": str(form.get("timezone", "UTC"))[:64],
        "avoid_quiet_hours": form.get("avoid_quiet_hours") == "1",
        "last_call": str(form.get("last_call", "")).strip()[:20] or None,
        "play_hours": str(form.get("play_hours", "")).strip()[:80] or None,
        "play_deadline": str(form.get("play_deadline", "")).strip()[:20] or None,
        "close_decided_votes": form.get("close_decided_votes") == "1",
        "organiser": str(form.get("organiser_email", "")).strip()[:320] or None,
        "preset": str(form.get("preset", ""))[:20] or None,
        **_absence_fields(form),
    }


def _absence_fields(form: Any) -> AbsenceFields:
    """The form's missed-deadline and absence options, for ``absence_options``: an empty field is the default."""
    fields = AbsenceFields()
    after = str(form.get("autopilot_after", "")).strip()[:4]
    if after:
        number = inputs.small_int(after, 2)
        if number is None:
            raise GameError(N_("autopilot_after must be a whole number from 0 (never) to 20"))
        fields["autopilot_after"] = number
    mode = str(form.get("absence", "")).strip()[:16]
    if mode:
        fields["absence"] = mode
    budget = str(form.get("absence_budget", "")).strip()[:20]
    if budget:
        fields["absence_budget"] = budget
    return fields


def _players(players: object) -> list[PlayerSpec]:
    if not isinstance(players, list):
        raise GameError(N_("players must be a list of 'Name <email>' or 'bot' (or {name, email} objects)"))
    specs = []
    for item in players:
        if isinstance(item, dict):
            if item.get("bot"):
                specs.append(parse_player(f"bot:{item['bot']}" if isinstance(item["bot"], str) else "bot"))
            else:
                specs.append(person(item.get("name") or "", item.get("email") or ""))
        elif isinstance(item, str):
            specs.append(parse_player(item))
        else:
            raise GameError(N_("each player is 'Name <email>', 'bot', or an object"))
    return specs


def _deadlines(deadlines: object) -> list[str]:
    if isinstance(deadlines, str):
        deadlines = [deadlines]
    if isinstance(deadlines, dict):
        deadlines = [f"{k}={v}" if k != "default" else str(v) for k, v in deadlines.items()]
    if not isinstance(deadlines, list) or not all(isinstance(d, str) for d in deadlines):
        raise GameError(N_('deadlines are texts such as "24h" or "vote=6h"'))
    return deadlines


def _organiser(organiser: object) -> PlayerSpec | None:
    if organiser is None:
        return None
    if not isinstance(organiser, str):
        raise GameError(N_("organiser must be 'Name <email>' or an e-mail address"))
    spec = parse_player(organiser)
    if spec.bot:
        raise GameError(N_("the organiser is a person: 'Name <email>' or an e-mail address"))
    return spec


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


# --- creating and describing games ------------------------------------------------------------------------------


def find_or_create_player(session: Session, spec: PlayerSpec, timezone: str = "UTC") -> Player:
    """The player of the address; one the server does not know yet is made, in ``timezone`` (the game's: they see
    its times there until they choose their own)."""
    assert spec.email is not None
    player = session.execute(select(Player).where(Player.email == spec.email)).scalar_one_or_none()
    if player is None:
        player = Player(email=spec.email, display_name=spec.name or spec.email, timezone=timezone)
        session.add(player)
        session.flush()
    elif not player.display_name:  # made by an unconfirmed sign-up (``leagues.address_player``): nobody named it
        player.display_name = spec.name or spec.email
    return player


def address_player(session: Session, email: str, zone: str = "UTC") -> Player:
    """The player of ``email``; an unknown address gets a row made minimally (``display_name`` "": no name anyone
    confirmed; default preferences, but the time zone ``zone``: the league's or the game's, so what it is shown before
    it confirms is in their time, not UTC). Two at once for the same address: the second reads back the
    first's row."""
    query = select(Player).where(Player.email == email)
    known = session.execute(query).scalar_one_or_none()
    if known is not None:
        return known
    try:
        with session.begin_nested():
            player = Player(email=email, display_name="", timezone=zone)
            session.add(player)
        return player
    except IntegrityError:
        return session.execute(query).scalar_one()


def zone_of(game: Game) -> str:
    """The game's time zone (the organiser's choice; UTC when none was given)."""
    return game.tempo.get("timezone", "UTC")


@dataclass(frozen=True)
class Created:
    game_id: int


def _checked(spec: GameSpec) -> tuple[list[str], int, engine.Game]:
    """The seats' colours, the seed and the engine's new game of a spec that can be created; GameError if not."""
    if not 3 <= len(spec.players) <= 6:
        raise GameError(N_("%(count)s players: Mall of Horror takes 3 to 6"), count=len(spec.players))
    emails = [p.email for p in spec.players if p.email]
    if len(set(emails)) != len(emails):
        raise GameError(N_("the same e-mail address is given for two seats"))
    if inputs.unstorable(spec.title):
        raise GameError(inputs.BAD_CHARACTERS)
    colours = colours_for(len(spec.players))
    seed = check_seed(spec.seed)
    seed = seed if seed is not None else secrets.randbelow(2**31)
    try:
        eng = engine.new_game(colours, seed=seed, options=spec.options)
    except engine.ScenarioError as exc:
        raise GameError(str(exc)) from None  # the engine's words (English): an organiser's option is wrong
    return colours, seed, eng


def create_game(db: Database, spec: GameSpec, now: datetime | None = None) -> Created:
    """Create and start a game: seats, the engine's setup, its first window and its mail (sent after the commit)."""
    now = now or utcnow()
    checked = _checked(spec)
    with db.session() as session:
        game, eng = create_in(session, spec, now, checked)
        created = Created(game.id)
    CACHE.put(game, eng)
    return created


def create_in(
    session: Session, spec: GameSpec, now: datetime, checked: tuple[list[str], int, engine.Game] | None = None
) -> tuple[Game, engine.Game]:
    """``create_game`` in the caller's transaction (a league round creates its tables' games in one): the game, its
    seats, its first window and mails; GameError (before anything is written) as ``create_game``. The caller puts
    the engine in ``CACHE`` after the commit, or leaves it to be restored."""
    colours, seed, eng = checked or _checked(spec)
    game = Game(
        title=spec.title,
        options=eng.options.to_json(),
        seed=seed,
        tempo=spec.tempo(),
        session_at=reminders.session_due(spec.tempo(), now),
        state={},
        organiser_email=spec.organiser_email,
        created_at=now,
        updated_at=now,
    )
    session.add(game)
    session.flush()
    for i, (colour, pspec) in enumerate(zip(colours, spec.players, strict=True)):
        player = None if pspec.bot else find_or_create_player(session, pspec, spec.timezone)
        session.add(Seat(game=game, position=i, colour=colour, player=player, bot=pspec.bot))
    session.flush()
    open_windows(session, game, eng, events_before=0, now=now)
    if spec.organiser_email:  # the organiser's link, by mail
        organiser = PlayerSpec(name=spec.organiser_name, email=spec.organiser_email)
        player = find_or_create_player(session, organiser, spec.timezone)
        row = outbox.player_mail(player.id, MailKind.ORGANISER, f"organiser:{game.id}", {}, now)
        row.game_id = game.id
        outbox.add(session, [row])
    return game, eng


class EstimateJSON(TypedDict):
    """How long a game would take (``estimate_game``), as the API and the pages show it."""

    days_median: float
    days_p90: float
    windows_median: float
    defaulted_share: float
    games: int
    #: the model, in English
    model: str


def estimate_game(db: Database, spec: GameSpec, now: datetime | None = None, count: int | None = None) -> EstimateJSON:
    """How long the game of ``spec`` would take (``services.play.estimate``; nothing is created): ``days_median``,
    ``days_p90``, ``windows_median``, ``defaulted_share``, ``games`` and the ``model`` (an English text). Players
    already known (by e-mail) play in their own time zone and quiet hours; others in the organiser's time zone,
    quiet 23:00-07:00. Deterministic for a given spec, seed and moment. GameError as ``create_game``."""
    now = now or utcnow()
    count = count or estimate.ESTIMATE_GAMES
    _, _, eng = _checked(spec)
    seed = 1 if spec.seed is None else spec.seed
    night = estimate.person(spec.timezone)
    seats = []
    with db.session() as session:
        for pspec in spec.players:
            if pspec.bot:
                seats.append(estimate.SimSeat(bot=True))
                continue
            player = session.execute(select(Player).where(Player.email == pspec.email)).scalar_one_or_none()
            seats.append(night if player is None else sim_seat(player, spec.timezone))
    figures = estimate.simulate(
        seats, eng.options.to_json(), spec.tempo(), games=count, seed=seed, start=now, replay=True
    )
    return {
        "days_median": figures["days_median"],
        "days_p90": figures["days_p90"],
        "windows_median": figures["windows_median"],
        "defaulted_share": figures["defaulted_share"],
        "games": figures["games"],
        "model": estimate.model_text(count, estimate.Model().reading),
    }


def sim_seat(player: Player, fallback_zone: str) -> estimate.SimSeat:
    """A known person in an estimate: sleeping in their quiet hours (23:00-07:00 in their zone without any), told by
    push when they have a device that reaches them and did not ask for mail only."""
    quiet = quiet_of(player)
    zone = quiet.zone if quiet else check_timezone_or(player.timezone, fallback_zone)
    channel = "push" if player.notify_mode != NotifyMode.MAIL and has_device(player) else "mail"
    return estimate.SimSeat(sleep=quiet or estimate.person(zone).sleep, quiet=quiet, channel=channel)


def has_device(player: Player) -> bool:
    """Whether a device (push or chat app) of the player reaches them (read in the player's own session)."""
    session = object_session(player)
    if session is None:
        return False
    reaching = select(Device.id).where(Device.player_id == player.id, Device.failures < MAX_FAILURES).limit(1)
    return session.execute(reaching).first() is not None


def check_timezone_or(name: str | None, fallback: str) -> str:
    try:
        return check_timezone(name or fallback)
    except TempoError:
        return fallback


class PersonJSON(TypedDict):
    name: str
    email: str


class SeatLink(TypedDict):
    """A seat as its game's creator is told it (``seat_links``)."""

    colour: str
    #: None for a bot
    player: PersonJSON | None
    #: the bot's kind; None for a person
    bot: str | None
    #: the seat's signed link (people only)
    link: str | None


def seat_links(db: Database, game_id: int, secret_key: str, base_url: str) -> list[SeatLink]:
    """Each seat's colour, player (name and e-mail) or bot, and signed link (people only)."""
    with db.session() as session:
        seats = session.execute(select(Seat).where(Seat.game_id == game_id).order_by(Seat.position)).scalars()
        out = []
        for seat in seats:
            entry: SeatLink = {"colour": seat.colour, "player": None, "bot": seat.bot, "link": None}
            if seat.player is not None:
                entry["player"] = {"name": seat.player.display_name, "email": seat.player.email}
                entry["link"] = f"{base_url}/s/{seat_token(secret_key, seat.id, seat.link_generation)}"
            out.append(entry)
        return out


class WindowJSON(TypedDict):
    number: int
    deadline: str
    opened_at: str


class OwedJSON(TypedDict):
    """A public request of the open window in the API: a bot's seat named after its kind."""

    colour: str
    player: str
    kind: str
    answered: bool


class PublicGame(TypedDict):
    """A game's public facts (``game_status``), the JSON API's answer."""

    id: int
    title: str
    status: str
    round: int
    phase: str
    window: WindowJSON | None
    owed: list[OwedJSON]
    answered: list[str]
    outcome: engine.Outcome | None
    options: engine.OptionsJSON
    tempo: TempoJSON
    tenures: dict[str, list[tenures.TenureJSON]]
    reliability: dict[str, reliability.SeatFiguresJSON]


def game_status(db: Database, game_id: int) -> PublicGame:
    """Public facts of a game: status, round, phase, who still owes what (never who is asked in a card window:
    ``seats.public_requests``), the outcome, and each person's reliability (``reliability.seats_of``: counted over
    public requests only)."""
    with db.session() as session:
        game = session.get(Game, game_id)
        if game is None:
            raise GameError(N_("there is no game %(game)s"), game=game_id)
        window = open_window(session, game.id)
        owed: list[OwedJSON] = [  # the API's shape: a bot's seat named after its kind
            {
                "colour": r["colour"],
                "player": r["player"] or f"bot ({r['bot']})",
                "kind": r["kind"],
                "answered": r["answered"],
            }
            for r in owed_requests(session, window)
        ]
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
            # who played each seat and when, with their requests and (at the end) the seat's result
            "tenures": tenures.as_json(tenures.of_game(session, game)),
            # colour -> the reliability of the person holding the seat, in this game and overall (no bots)
            "reliability": {c: f.as_json() for c, f in reliability.seats_of(session, game.id).items()},
        }


@dataclass(frozen=True)
class Finished:
    """A finished game, for its replay: the engine's game (every secret may be shown now) and who played."""

    game_id: int
    title: str
    engine: engine.Game
    #: colour -> the person's name (None for a bot), and the colours played by bots.
    people: dict[str, str | None]
    bots: frozenset[str]


def finished(db: Database, game_id: int) -> Finished | None:
    """The game once it is over; None while it runs (nothing of its secrets is shown then)."""
    with db.session() as session:
        game = session.get(Game, game_id)
        if game is None or game.status != GameStatus.OVER:
            return None
        eng = CACHE.get(game)
        people = {seat.colour: seat.player.display_name if seat.player else None for seat in game.seats}
        bots = frozenset(seat.colour for seat in game.seats if seat.bot)
        return Finished(game.id, game.title, eng, people, bots)
