"""Leagues and seasons: creating them, sign-ups confirmed by mail, withdrawals, and the league's links.

- ``create_league`` checks every field of a ``LeagueSpec`` (name, language, zone, table size, the game's options
  through the engine, tempo preset, scoring system, tie-breaks, forfeit rule) before anything is stored.
- ``create_season`` numbers the league's seasons 1, 2, …; the sign-up closes in the future, 1 to ``MAX_ROUNDS``
  rounds, a schedule of ``fixed`` round starts (``{"weekday": 0-6, "time": "HH:MM"}`` in the league's zone) or
  ``when_over`` (the next round when every table of this one is over).
- ``sign_up`` (from the league's invitation link) finds the player by address, or makes one minimally (no name:
  ``display_name`` "" until an address confirms one, ``games.find_or_create_player`` names it then), and writes a
  *pending* entry holding what the form gave (``SeasonPlayer.applicant``); a ``league_confirm`` mail (in the
  language the form chose) carries the signed link (``links.confirm_token``: the entry and its
  ``confirm_generation``) that ``confirm`` follows. Nobody is in a season without confirming from the address
  signed up, and a stranger's sign-up changes nothing of a player: ``confirm`` applies the form's name and
  preferences only to a player nobody confirmed yet (no seats, no other confirmed entry); a known player gets the
  time zone and quiet hours typed and keeps their name and mail settings; the league's data (declared
  acquaintances) is stored for everyone. The confirmation mail greets the name typed. Signing up again while
  pending mails the link again (not more often than every ``RESEND_AFTER``); once confirmed nothing is mailed and
  nothing changes.
  The form's answer is the same in every case (``SignedUp`` is not shown): it never tells whether an address is
  signed up. A season with ``max_players`` confirmed is full: ``confirm`` refuses.
- ``skip`` / ``unskip``: a confirmed player says they will miss a round not yet started (``SeasonPlayer.skips``);
  ``season_entries`` reads a player's entries (the hub's, the API's).
- ``withdraw`` while the season takes sign-ups or runs; it raises the entry's generation, so an earlier
  confirmation link cannot bring the player back. A withdrawn player may sign up again while sign-ups are open.
- League links (``links.league_token``): invitation, organiser and public, each of the league's generation of its
  kind; ``revoke`` raises one, and ``open_league`` refuses the earlier links (LinkError).

Every refusal is a ``LeagueError`` (or ``LinkError`` for a link) raised before anything is written: nothing changes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypedDict
from zoneinfo import ZoneInfo

from sqlalchemy import Row, func, select
from sqlalchemy.orm import Session

import engine

from ...db import Database
from ...models import (
    LANGUAGES,
    ApplicantJSON,
    EntryStatus,
    League,
    LeagueRound,
    MailKind,
    Outbox,
    Player,
    RoundStatus,
    ScheduleRuleJSON,
    Season,
    SeasonPlayer,
    SeasonStatus,
    Seat,
)
from .. import inputs, presets
from ..attendance.prefs import PrefsError, check_prefs
from ..errors import N_, ShownError
from ..links import LinkError, league_token, read_confirm_token, read_league_token
from ..mailflow import outbox
from ..play.games import GameError, PlayerSpec, address_player, colours_for, person
from ..tempo import TempoError, check_timezone
from . import scoring

#: a league's links, by kind (``League.<kind>_generation``).
LINKS = ("invite", "organiser", "public")
SCHEDULES = ("fixed", "when_over")
MAX_NAME = 80
MAX_ROUNDS = 52
TABLE_SIZES = (3, 6)
#: a pending sign-up's confirmation is mailed again at most this often.
RESEND_AFTER = timedelta(minutes=10)
#: the most acquaintances a sign-up declares; the bounds of a season's limit, divisions and promotion.
MAX_KNOWS = 20
MAX_PLAYERS = (3, 10000)
MAX_DIVISIONS = 20
MAX_PROMOTE = 20
_CLOCK = re.compile(r"(?:[01]\d|2[0-3]):[0-5]\d")

NO_LEAGUE = N_("There is no league %(league)s.")
NO_SEASON = N_("There is no season %(season)s.")
EMPTY_NAME = N_("Give the league a name.")
LONG_NAME = N_("A league's name is at most %(count)s characters.")
BAD_LANGUAGE = N_("%(value)s is not a language deadmail speaks: choose English, Italian or Polish.")
BAD_SIZE = N_("A table seats 3 to 6 players, not %(value)s.")
BAD_SYSTEM = N_("%(value)s is not a scoring system (%(choices)s).")
BAD_TIE_BREAKS = N_("The tie-breaks are each at most once among %(choices)s.")
BAD_FORFEIT = N_("%(value)s is not a forfeit rule (%(choices)s).")
BAD_OPTIONS = N_("The game options are not valid: %(reason)s")
CLOSES_PAST = N_("The sign-up must close in the future.")
BAD_ROUNDS = N_("A season has 1 to %(count)s rounds.")
BAD_SCHEDULE = N_('The schedule is "fixed" (with a weekday and a time) or "when_over".')
BAD_RULE = N_('A fixed schedule needs a weekday (0 for Monday to 6 for Sunday) and a time such as "18:00".')
NO_NAME = N_("Give your name.")
NOT_SIGNUP = N_("Season %(season)s does not take sign-ups any more: nothing was changed.")
CLOSED = N_("The sign-up for this season closed on %(when)s: nothing was changed.")
BAD_MAX_PLAYERS = N_("A season's limit is %(least)s to %(most)s players, or none.")
BAD_DIVISIONS = N_("A season has 1 to %(count)s divisions, or none.")
BAD_PROMOTE = N_("Promotion and relegation move 0 to %(count)s players, and only between divisions.")
FULL = N_("This season is full: it has its %(count)s players. Nothing was changed.")
TOO_MANY_KNOWS = N_("Give at most %(count)s addresses of people you know.")
NOT_PLAYING = N_("Only a confirmed player of a season not over can change the people they know: nothing was changed.")
NOT_CONFIRMED = N_("Only a confirmed player of the season can say they will miss a round: nothing was changed.")
BAD_ROUND = N_("Season %(season)s has rounds 1 to %(count)s: nothing was changed.")
ROUND_STARTED = N_("Round %(round)s has already started: nothing was changed.")
ALREADY_SKIPPED = N_("You already said you will miss round %(round)s: nothing was changed.")
NOT_SKIPPED = N_("You did not say you would miss round %(round)s: nothing was changed.")
WITHDRAWN = N_("You withdrew from this season: sign up again from the league's invitation link.")
NOT_IN = N_("There is no such sign-up.")
ALREADY_WITHDRAWN = N_("You have already withdrawn from this season: nothing was changed.")
SEASON_OVER = N_("Season %(season)s is over: nothing was changed.")
REVOKED = N_("This league link was revoked: ask the league's organiser for the new one.")
BAD_LINK_KIND = N_("%(value)s is not a league link (%(choices)s).")


class LeagueError(ShownError):
    """A league, season or sign-up refused; nothing was changed (pages translate the message)."""


@dataclass
class LeagueSpec:
    name: str
    language: str = "en"
    timezone: str = "UTC"
    table_size: int = 5
    #: the engine's options (``engine.options``), as a game's JSON body gives them.
    options: dict[str, Any] = field(default_factory=dict)
    preset: str | None = None
    scoring: str = "placement"
    tie_breaks: Sequence[object] = field(default_factory=lambda: list(scoring.TIE_BREAKS))
    forfeit: str = "last"
    standings_public: bool = False
    #: the organiser's address: a round the minute sweep cannot seat is mailed there (``rounds.sweep``); optional.
    organiser_email: str | None = None


def _choice(value: object, choices: tuple[str, ...], msgid: str) -> str:
    if not isinstance(value, str) or value not in choices:
        raise LeagueError(msgid, value=repr(value)[:40], choices=", ".join(choices))
    return value


class LeagueColumns(TypedDict):
    """A league's columns as ``check_league`` accepts them."""

    name: str
    language: str
    timezone: str
    table_size: int
    options: engine.OptionsJSON
    preset: str | None
    scoring: str
    tie_breaks: list[str]
    forfeit: str
    standings_public: bool
    organiser_email: str | None


def check_league(spec: LeagueSpec) -> LeagueColumns:
    """The league's columns from ``spec``, every field checked; LeagueError names the first refused one."""
    if not isinstance(spec.name, str) or not spec.name.strip():
        raise LeagueError(EMPTY_NAME)
    try:
        name = inputs.person_name(spec.name)
    except inputs.InputError as exc:
        raise LeagueError(exc.msgid, **exc.params) from None
    if len(name) > MAX_NAME:
        raise LeagueError(LONG_NAME, count=MAX_NAME)
    if spec.language not in LANGUAGES:
        raise LeagueError(BAD_LANGUAGE, value=repr(spec.language)[:40])
    size = spec.table_size
    if not isinstance(size, int) or isinstance(size, bool) or not TABLE_SIZES[0] <= size <= TABLE_SIZES[1]:
        raise LeagueError(BAD_SIZE, value=repr(size)[:20])
    try:
        zone = check_timezone(spec.timezone) if isinstance(spec.timezone, str) else check_timezone(repr(spec.timezone))
        preset = presets.check_preset(spec.preset)
    except (TempoError, presets.PresetError) as exc:
        raise LeagueError(exc.msgid, **exc.params) from None
    system = _choice(spec.scoring, scoring.SYSTEMS, BAD_SYSTEM)
    breaks = spec.tie_breaks
    if (
        not isinstance(breaks, list)
        or any(t not in scoring.TIE_BREAKS for t in breaks)
        or len(set(breaks)) < len(breaks)
    ):
        raise LeagueError(BAD_TIE_BREAKS, choices=", ".join(scoring.TIE_BREAKS))
    forfeit = _choice(spec.forfeit, scoring.FORFEITS, BAD_FORFEIT)
    organiser_email = _organiser_email(spec.organiser_email)
    if not isinstance(spec.options, dict):
        raise LeagueError(BAD_OPTIONS, reason="not an object")
    try:  # the options as a game of the league's size takes them (the engine's own check)
        options = engine.new_game(colours_for(size), seed=1, options=spec.options).options.to_json()
    except engine.ScenarioError as exc:
        raise LeagueError(BAD_OPTIONS, reason=str(exc)) from None
    return {
        "name": name,
        "language": spec.language,
        "timezone": zone,
        "table_size": size,
        "options": options,
        "preset": preset,
        "scoring": system,
        "tie_breaks": [str(b) for b in breaks],
        "forfeit": forfeit,
        "standings_public": bool(spec.standings_public),
        "organiser_email": organiser_email,
    }


def _organiser_email(value: object) -> str | None:
    """The league organiser's address, checked (None or "" for none); LeagueError for anything else."""
    if value is None or value == "":
        return None
    try:
        return inputs.email_address(value if isinstance(value, str) else repr(value)[:40])
    except inputs.InputError as exc:
        raise LeagueError(exc.msgid, **exc.params) from None


def create_league(db: Database, spec: LeagueSpec, now: datetime) -> int:
    """A new league of ``spec``; its id. LeagueError (nothing stored) for any refused field."""
    columns = check_league(spec)
    with db.session() as session:
        league = League(**columns, created_at=now)
        session.add(league)
        session.flush()
        return league.id


def check_rule(schedule: object, rule: object) -> ScheduleRuleJSON | None:
    """The season's schedule rule: ``{"weekday", "time"}`` for "fixed", None for "when_over"; LeagueError else."""
    if schedule not in SCHEDULES:
        raise LeagueError(BAD_SCHEDULE)
    if schedule == "when_over":
        if rule not in (None, {}):
            raise LeagueError(BAD_SCHEDULE)
        return None
    if not isinstance(rule, dict) or set(rule) != {"weekday", "time"}:
        raise LeagueError(BAD_RULE)
    weekday, clock = rule["weekday"], rule["time"]
    if not isinstance(weekday, int) or isinstance(weekday, bool) or not 0 <= weekday <= 6:
        raise LeagueError(BAD_RULE)
    if not isinstance(clock, str) or not _CLOCK.fullmatch(clock):
        raise LeagueError(BAD_RULE)
    return {"weekday": weekday, "time": clock}


def _bounded(value: object, low: int, high: int, msgid: str, **params: Any) -> int | None:
    """``value`` when it is None or a whole number from ``low`` to ``high``; LeagueError ``msgid`` else."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise LeagueError(msgid, **params)
    return value


@dataclass(frozen=True)
class Sizes:
    """A season's limit of confirmed players (None: none), divisions (None: none), players promoted and relegated."""

    max_players: object = None
    divisions: object = None
    promote: object = 0


def check_sizes(max_players: object, divisions: object, promote: object) -> tuple[int | None, int | None, int]:
    """A season's limit of players (None: none), divisions (None: one table) and promotion (0 to ``MAX_PROMOTE``,
    only with 2 divisions or more); LeagueError for the first refused."""
    limit = _bounded(max_players, *MAX_PLAYERS, BAD_MAX_PLAYERS, least=MAX_PLAYERS[0], most=MAX_PLAYERS[1])
    count = _bounded(divisions, 1, MAX_DIVISIONS, BAD_DIVISIONS, count=MAX_DIVISIONS)
    moved = _bounded(promote, 0, MAX_PROMOTE, BAD_PROMOTE, count=MAX_PROMOTE) or 0
    if moved and (count or 1) < 2:
        raise LeagueError(BAD_PROMOTE, count=MAX_PROMOTE)
    return limit, count, moved


def create_season(
    db: Database,
    league_id: int,
    signup_closes: datetime,
    rounds: int,
    schedule: str,
    rule: object,
    *,
    now: datetime,
    sizes: Sizes | None = None,
) -> int:
    """The league's next season (numbered after its last), taking sign-ups until ``signup_closes``; its id. Its
    ``sizes``: at most so many confirmed players, divisions, promotion (``check_sizes``; default: none of them).
    ``signup_closes`` out of ``inputs.YEARS`` (however its caller read it) is an ``InputError``."""
    inputs.in_range(signup_closes, "signup_closes")
    if signup_closes <= now:
        raise LeagueError(CLOSES_PAST)
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= MAX_ROUNDS:
        raise LeagueError(BAD_ROUNDS, count=MAX_ROUNDS)
    checked = check_rule(schedule, rule)
    given = sizes or Sizes()
    limit, count, moved = check_sizes(given.max_players, given.divisions, given.promote)
    with db.session() as session:
        league = session.get(League, league_id, with_for_update=True)
        if league is None:
            raise LeagueError(NO_LEAGUE, league=league_id)
        last = session.execute(select(func.max(Season.number)).where(Season.league_id == league_id)).scalar()
        season = Season(
            league_id=league_id,
            number=(last or 0) + 1,
            signup_closes=signup_closes,
            rounds=rounds,
            schedule=schedule,
            schedule_rule=checked,
            status=SeasonStatus.SIGNUP,
            max_players=limit,
            divisions=count,
            promote=moved,
            created_at=now,
        )
        session.add(season)
        session.flush()
        if signup_closes > now:
            outbox.release_invitations(session, league_id, now)
        return season.id


# --- sign-ups --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignedUp:
    """A sign-up's entry and what was done: ``mailed`` (a confirmation is on its way), ``resent`` (the entry was
    pending already). Never shown to whoever filled the form (it would tell whether the address is signed up)."""

    season_player_id: int
    resent: bool
    mailed: bool = True


def _season(session: Session, season_id: int, *, lock: bool = False) -> Season:
    season = session.get(Season, season_id, with_for_update=lock)
    if season is None:
        raise LeagueError(NO_SEASON, season=season_id)
    return season


def _taking_sign_ups(session: Session, season: Season, now: datetime) -> None:
    if season.status != SeasonStatus.SIGNUP:
        raise LeagueError(NOT_SIGNUP, season=season.number)
    if now >= season.signup_closes:
        raise _closed(session, season)


def _closed(session: Session, season: Season) -> LeagueError:
    """The refusal of a sign-up to ``season``: it closed when (in the league's zone, the one its seasons are set in)."""
    league = session.get(League, season.league_id)
    zone = league.timezone if league is not None else "UTC"
    local = season.signup_closes.astimezone(ZoneInfo(zone))
    return LeagueError(CLOSED, when=f"{local:%Y-%m-%d %H:%M} ({zone})")


def signup_closed(db: Database, league_id: int) -> LeagueError | None:
    """Why the league takes no sign-up just now (``signup_season`` found none): its latest season's sign-up closed
    (``CLOSED``, with when); None when the league has no season yet."""
    with db.session() as session:
        latest = session.execute(
            select(Season).where(Season.league_id == league_id).order_by(Season.number.desc()).limit(1)
        ).scalar()
        return None if latest is None else _closed(session, latest)


def _mailed(session: Session, entry: SeasonPlayer) -> tuple[int, datetime | None]:
    """How many confirmation mails the entry has had, and when the last was queued (one query)."""
    count, last = session.execute(
        select(func.count(), func.max(Outbox.created_at)).where(Outbox.key.like(f"league_confirm:{entry.id}:%"))
    ).one()
    return int(count), last


@dataclass(frozen=True)
class Applicant:
    """What the sign-up form gives (texts from outside, checked by ``sign_up``)."""

    name: object
    email: object
    language: object = "en"
    timezone: object = "UTC"
    quiet_start: object = ""
    quiet_end: object = ""
    #: addresses of people the applicant knows, one a line or comma-separated.
    knows: object = ""


def check_knows(text: object, own: str) -> list[str]:
    """The declared acquaintances: each a checked address (lower case), once, not the applicant's own; at most
    ``MAX_KNOWS``. LeagueError names the first refused."""
    if not isinstance(text, str):
        raise LeagueError(inputs.BAD_EMAIL, email=repr(text)[:40])
    found: list[str] = []
    for part in re.split(r"[,\n]", text):
        if not part.strip():
            continue
        try:
            address = inputs.email_address(part).lower()
        except inputs.InputError as exc:
            raise LeagueError(exc.msgid, **exc.params) from None
        if address != own and address not in found:
            found.append(address)
    if len(found) > MAX_KNOWS:
        raise LeagueError(TOO_MANY_KNOWS, count=MAX_KNOWS)
    return found


def _checked_person(applicant: Applicant) -> tuple[PlayerSpec, ApplicantJSON]:
    """The applicant's address and what the form gave (``SeasonPlayer.applicant``: name, preferences, knows)."""
    name = applicant.name
    if not isinstance(name, str) or not name.strip():
        raise LeagueError(NO_NAME)
    try:
        spec = person(name, applicant.email)
        prefs = check_prefs(
            {
                "language": applicant.language,
                "timezone": applicant.timezone,
                "quiet_start": applicant.quiet_start,
                "quiet_end": applicant.quiet_end,
                "mail_mode": "each",
                "digest_hours": 4,
            }
        )
    except (GameError, PrefsError) as exc:
        raise LeagueError(exc.msgid, **exc.params) from None
    assert spec.email is not None and spec.name is not None  # (``person`` names everyone)
    knows = check_knows(applicant.knows, spec.email)
    return spec, {"name": spec.name, **prefs, "knows": knows}


def sign_up(db: Database, season_id: int, applicant: Applicant, now: datetime) -> SignedUp:
    """Sign an address up for a season (pending) and mail it the confirmation link; see the module's text. Already
    confirmed, or mailed less than ``RESEND_AFTER`` ago: nothing changes and nothing is mailed (not an error: the
    form answers the same). LeagueError, nothing changed: bad input, the season not taking sign-ups."""
    spec, given = _checked_person(applicant)
    assert spec.email is not None
    with db.session() as session:
        season = _season(session, season_id, lock=True)
        _taking_sign_ups(session, season, now)
        league = session.get(League, season.league_id)
        player = address_player(session, spec.email, league.timezone if league else "UTC")
        entry = session.execute(
            select(SeasonPlayer).where(SeasonPlayer.season_id == season.id, SeasonPlayer.player_id == player.id)
        ).scalar_one_or_none()
        if entry is not None and entry.status == EntryStatus.CONFIRMED:
            return SignedUp(entry.id, resent=False, mailed=False)
        sent, last = (0, None) if entry is None else _mailed(session, entry)
        pending = entry is not None and entry.status == EntryStatus.PENDING
        if pending and last is not None and now - last < RESEND_AFTER:
            assert entry is not None
            return SignedUp(entry.id, resent=True, mailed=False)
        if entry is None:
            entry = SeasonPlayer(season_id=season.id, player_id=player.id, created_at=now)
            session.add(entry)
        elif not pending:  # withdrawn earlier: pending again, by a new link
            entry.confirm_generation += 1
            entry.withdrawn_at = None
        entry.status = EntryStatus.PENDING
        entry.applicant = given
        session.flush()
        outbox.confirm_entry(session, entry, now, sent=sent, language=given["language"])  # the form's language
        return SignedUp(entry.id, resent=pending)


@dataclass(frozen=True)
class Confirmed:
    season_player_id: int
    #: it was confirmed before (following the link again changes nothing).
    already: bool


def _entry_of_link(session: Session, secret_key: str, token: str, max_age: int) -> SeasonPlayer:
    entry_id, generation = read_confirm_token(secret_key, token, max_age)
    entry = session.get(SeasonPlayer, entry_id, with_for_update=True)
    if entry is None:
        raise LinkError(N_("This link is not valid."))
    if entry.status == EntryStatus.WITHDRAWN:
        raise LeagueError(WITHDRAWN)
    if entry.confirm_generation != generation:
        raise LinkError(N_("This link has been replaced by a newer one: use the link in your latest e-mail."))
    return entry


@dataclass(frozen=True, slots=True)
class Confirmation:
    """What the confirmation page shows: the ``league``'s name, the ``season``'s number, ``name`` (the one the form
    gave while pending), ``email``, the entry's ``status`` and ``knows``: the acquaintances confirming keeps (the
    form's, or those carried over from the last season)."""

    league: str
    season: int
    name: str
    email: str
    status: str
    knows: list[str]


def confirmation(db: Database, secret_key: str, token: str, max_age: int) -> Confirmation:
    """What the confirmation page shows; LinkError or LeagueError as ``confirm`` (nothing is changed by looking)."""
    with db.session() as session:
        entry = _entry_of_link(session, secret_key, token, max_age)
        season = _season(session, entry.season_id)
        league = session.get(League, season.league_id)
        player = session.get(Player, entry.player_id)
        assert league is not None and player is not None
        given = entry.applicant or {}
        return Confirmation(
            league=league.name,
            season=season.number,
            name=given.get("name") or player.display_name,
            email=player.email,
            status=entry.status,
            knows=list(given.get("knows", entry.knows or [])),
        )


def _unconfirmed(session: Session, player: Player, entry: SeasonPlayer) -> bool:
    """True when nobody confirmed anything of ``player`` yet: no seat, no confirmed entry but ``entry``."""
    seat = session.execute(select(Seat.id).where(Seat.player_id == player.id).limit(1)).first()
    other = session.execute(
        select(SeasonPlayer.id)
        .where(
            SeasonPlayer.player_id == player.id,
            SeasonPlayer.status == EntryStatus.CONFIRMED,
            SeasonPlayer.id != entry.id,
        )
        .limit(1)
    ).first()
    return seat is None and other is None


def _apply(session: Session, entry: SeasonPlayer) -> None:
    """What the confirmed form gave: the name and preferences for a player nobody confirmed before; for a known
    player the time zone and the quiet hours typed (both given; empty ones keep theirs), not their name nor their
    mail settings; the league's own data (acquaintances) for everyone. The entry keeps no applicant any more."""
    given = entry.applicant or ApplicantJSON()
    player = session.get(Player, entry.player_id)
    assert player is not None
    if given.get("name") and _unconfirmed(session, player, entry):  # (no name: only knows changed as it confirms)
        player.display_name = given["name"]
        for key, value in given.items():
            if key in ("language", "timezone", "quiet_start", "quiet_end", "mail_mode", "digest_hours"):
                setattr(player, key, value)
        outbox.look_at_held(session, Outbox.player_id == player.id)
    elif given.get("name"):  # a known player: the zone and quiet hours they typed (name and mail settings stay)
        player.timezone = given.get("timezone") or player.timezone
        if given.get("quiet_start") and given.get("quiet_end"):
            player.quiet_start, player.quiet_end = given["quiet_start"], given["quiet_end"]
    if not player.display_name:  # never left without a name once confirmed
        player.display_name = player.email.split("@")[0][:80]
    if "knows" in given:  # (an entry carried over from the last season keeps its own list unless changed)
        entry.knows = list(given.get("knows") or []) or None
    entry.applicant = None


def set_knows(db: Database, season_player_id: int, text: object) -> list[str]:
    """Replace the people a confirmed player of a season not over declared they know (``check_knows``): kept apart
    from the next round planned on. LeagueError, nothing changed: not such an entry, or an address refused."""
    with db.session() as session:
        entry = session.get(SeasonPlayer, season_player_id, with_for_update=True)
        season = None if entry is None else session.get(Season, entry.season_id)
        if (
            entry is None
            or season is None
            or entry.status != EntryStatus.CONFIRMED
            or season.status == SeasonStatus.OVER
        ):
            raise LeagueError(NOT_PLAYING)
        player = session.get(Player, entry.player_id)
        assert player is not None
        knows = check_knows(text, player.email.lower())
        entry.knows = knows or None
        return knows


def confirm(db: Database, secret_key: str, token: str, max_age: int, now: datetime, knows: object = None) -> Confirmed:
    """Confirm the sign-up a mailed link names; LinkError for a forged, expired or replaced link, LeagueError when
    the player withdrew, the sign-up closed before they confirmed, the season is full, or ``knows`` (the addresses
    of people they know, as the sign-up form takes them; None: keep the list) is not valid (nothing changed)."""
    with db.session() as session:
        entry = _entry_of_link(session, secret_key, token, max_age)
        if entry.status == EntryStatus.CONFIRMED:
            return Confirmed(entry.id, already=True)
        if knows is not None:
            player = session.get(Player, entry.player_id)
            assert player is not None
            entry.applicant = {**(entry.applicant or {}), "knows": check_knows(knows, player.email.lower())}
        season = _season(session, entry.season_id, lock=True)
        _taking_sign_ups(session, season, now)
        if season.max_players is not None and _confirmed_count(session, season.id) >= season.max_players:
            raise LeagueError(FULL, count=season.max_players)
        _apply(session, entry)
        entry.status = EntryStatus.CONFIRMED
        entry.confirmed_at = now
        return Confirmed(entry.id, already=False)


def _confirmed_count(session: Session, season_id: int) -> int:
    return len(session.execute(SeasonPlayer.confirmed(season_id)).all())


def withdraw(db: Database, season_player_id: int, now: datetime) -> None:
    """Withdraw a player from a season taking sign-ups or running: they are not seated in its later rounds, and
    their earlier confirmation links stop working. LeagueError (nothing changed) otherwise."""
    with db.session() as session:
        entry = session.get(SeasonPlayer, season_player_id, with_for_update=True)
        if entry is None:
            raise LeagueError(NOT_IN)
        if entry.status == EntryStatus.WITHDRAWN:
            raise LeagueError(ALREADY_WITHDRAWN)
        season = _season(session, entry.season_id)
        if season.status == SeasonStatus.OVER:
            raise LeagueError(SEASON_OVER, season=season.number)
        entry.status = EntryStatus.WITHDRAWN
        entry.withdrawn_at = now
        entry.confirm_generation += 1


# --- absences ---------------------------------------------------------------------------------------------------------


def _absence(session: Session, season_player_id: int, number: object) -> tuple[SeasonPlayer, int]:
    """The confirmed entry and the round ``number`` of its season not yet started; LeagueError else."""
    entry = session.get(SeasonPlayer, season_player_id, with_for_update=True)
    if entry is None:
        raise LeagueError(NOT_IN)
    if entry.status != EntryStatus.CONFIRMED:
        raise LeagueError(NOT_CONFIRMED)
    season = _season(session, entry.season_id)
    if season.status == SeasonStatus.OVER:
        raise LeagueError(SEASON_OVER, season=season.number)
    if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= season.rounds:
        raise LeagueError(BAD_ROUND, season=season.number, count=season.rounds)
    started = session.execute(
        select(LeagueRound.id).where(
            LeagueRound.season_id == season.id, LeagueRound.number == number, LeagueRound.status != RoundStatus.PLANNED
        )
    ).first()
    if started is not None:
        raise LeagueError(ROUND_STARTED, round=number)
    return entry, number


def skip(db: Database, season_player_id: int, round_number: object, now: datetime) -> list[int]:
    """The confirmed player will miss round ``round_number`` (not yet started): not seated in it. The rounds they
    will miss; LeagueError (nothing changed) otherwise."""
    with db.session() as session:
        entry, number = _absence(session, season_player_id, round_number)
        skips = list(entry.skips or [])
        if number in skips:
            raise LeagueError(ALREADY_SKIPPED, round=number)
        entry.skips = sorted([*skips, number])
        return entry.skips


def unskip(db: Database, season_player_id: int, round_number: object, now: datetime) -> list[int]:
    """Undo ``skip`` for a round not yet started; the rounds they will still miss."""
    with db.session() as session:
        entry, number = _absence(session, season_player_id, round_number)
        skips = list(entry.skips or [])
        if number not in skips:
            raise LeagueError(NOT_SKIPPED, round=number)
        skips.remove(number)
        entry.skips = skips or None
        return skips


# --- league links -----------------------------------------------------------------------------------------------------


def _kind(which: object) -> str:
    return _choice(which, LINKS, BAD_LINK_KIND)


def league_link(db: Database, secret_key: str, league_id: int, which: str) -> str:
    """The current token of the league's link of kind ``which`` (invite, organiser, public)."""
    kind = _kind(which)
    with db.session() as session:
        league = session.get(League, league_id)
        if league is None:
            raise LeagueError(NO_LEAGUE, league=league_id)
        return league_token(secret_key, kind, league.id, getattr(league, f"{kind}_generation"))


def open_league(db: Database, secret_key: str, which: str, token: str) -> int:
    """The league a link of kind ``which`` opens; LinkError for a forged one or one revoked since (``revoke``)."""
    kind = _kind(which)
    league_id, generation = read_league_token(secret_key, kind, token)
    with db.session() as session:
        league = session.get(League, league_id)
        if league is None:
            raise LinkError(N_("This link is not valid."))
        if getattr(league, f"{kind}_generation") != generation:
            raise LinkError(REVOKED)
        return league.id


def revoke(db: Database, league_id: int, which: str) -> int:
    """Revoke the league's link of kind ``which``: its generation is raised (earlier links are refused); the new one."""
    kind = _kind(which)
    with db.session() as session:
        league = session.get(League, league_id, with_for_update=True)
        if league is None:
            raise LeagueError(NO_LEAGUE, league=league_id)
        column = f"{kind}_generation"
        setattr(league, column, getattr(league, column) + 1)
        generation: int = getattr(league, column)
        return generation


def signup_season(db: Database, league_id: int) -> int | None:
    """The league's season taking sign-ups (its latest one in that status), or None."""
    with db.session() as session:
        return session.execute(
            select(Season.id)
            .where(Season.league_id == league_id, Season.status == SeasonStatus.SIGNUP)
            .order_by(Season.number.desc())
            .limit(1)
        ).scalar()


def season_number(db: Database, season_id: int) -> int:
    """The season's number within its league."""
    with db.session() as session:
        return _season(session, season_id).number


def season_entries(session: Session, player_id: int) -> Sequence[Row[SeasonPlayer, Season, League]]:
    """The player's season entries (any status) with their season and league, the newest season first."""
    return session.execute(
        select(SeasonPlayer, Season, League)
        .join(Season, Season.id == SeasonPlayer.season_id)
        .join(League, League.id == Season.league_id)
        .where(SeasonPlayer.player_id == player_id)
        .order_by(Season.id.desc())
    ).all()


@dataclass(frozen=True, slots=True)
class SignupSeason:
    """The season taking sign-ups: its ``id``, ``number``, ``closes`` (UTC) and ``full`` (its limit confirmed)."""

    id: int
    number: int
    closes: datetime
    full: bool


@dataclass(frozen=True, slots=True)
class SignupPage:
    """What the invitation page shows: ``league`` (its name), ``timezone`` (the league's), and ``season``: None when
    no season takes sign-ups."""

    league: str
    timezone: str
    season: SignupSeason | None


def signup_page(db: Database, league_id: int) -> SignupPage:
    """What the invitation page shows (``SignupPage``); LeagueError when there is no league."""
    season_id = signup_season(db, league_id)
    with db.session() as session:
        league = session.get(League, league_id)
        if league is None:
            raise LeagueError(NO_LEAGUE, league=league_id)
        shown = None
        if season_id is not None:
            season = _season(session, season_id)
            full = season.max_players is not None and _confirmed_count(session, season.id) >= season.max_players
            shown = SignupSeason(season.id, season.number, season.signup_closes, full)
        return SignupPage(league.name, league.timezone, shown)


# --- invitations -----------------------------------------------------------------------------------------------------

#: the most addresses one ``invite`` takes.
MAX_INVITES = 200
NO_ADDRESSES = N_("Give at least one address to invite.")
TOO_MANY_INVITES = N_("Invite at most %(count)s addresses at once.")
#: where each league link leads, after the server's base address.
LINK_PATHS = {"invite": "/l/", "organiser": "/lo/", "public": "/ls/"}


def link_url(base_url: str, which: str, token: str) -> str:
    """The address of a league link of kind ``which``."""
    return f"{base_url}{LINK_PATHS[_kind(which)]}{token}"


def invite(db: Database, league_id: int, addresses: list[str], now: datetime) -> list[str]:
    """Queue for each address the league's invitation link (in the league's language): a ``league_invite`` mail
    each, to the address's player (made minimally when unknown, ``address_player``: nothing of it is shown until it
    confirms a sign-up). Mailed at once while a season takes sign-ups; else held (``outbox.HELD_UNTIL_SEASON``)
    until one opens (``outbox.release_invitations``): an invitation never leads to a page saying no season is open.
    The addresses queued (checked, lower case, once each); LeagueError, nothing queued, when one is not an address."""
    checked = _addresses(addresses)
    with db.session() as session:
        league = session.get(League, league_id)
        if league is None:
            raise LeagueError(NO_LEAGUE, league=league_id)
        held = not _open_for_sign_ups(session, league.id, now)
        rows = []
        for address in checked:
            player = address_player(session, address, league.timezone)
            prefix = f"league_invite:{league.id}:{player.id}:"
            sent = session.execute(select(func.count()).where(Outbox.key.like(f"{prefix}%"))).scalar_one()
            payload = {"league": league.id, "lang": league.language}
            row = outbox.player_mail(player.id, MailKind.LEAGUE_INVITE, f"{prefix}{sent + 1}", payload, now)
            if held:
                row.next_attempt_at = outbox.HELD_UNTIL_SEASON
            rows.append(row)
        if held:
            session.add_all(rows)
        else:
            outbox.add(session, rows)
        return checked


def _addresses(addresses: list[str]) -> list[str]:
    """The addresses to invite: checked, lower case, once each, 1 to ``MAX_INVITES``; LeagueError else."""
    checked: list[str] = []
    for text in addresses:
        try:
            address = inputs.email_address(text)
        except inputs.InputError as exc:
            raise LeagueError(exc.msgid, **exc.params) from None
        if address not in checked:
            checked.append(address)
    if not checked:
        raise LeagueError(NO_ADDRESSES)
    if len(checked) > MAX_INVITES:
        raise LeagueError(TOO_MANY_INVITES, count=MAX_INVITES)
    return checked


def _open_for_sign_ups(session: Session, league_id: int, now: datetime) -> bool:
    """A season of the league takes sign-ups now (its sign-up not yet closed)."""
    found = session.execute(
        select(Season.id)
        .where(Season.league_id == league_id, Season.status == SeasonStatus.SIGNUP, Season.signup_closes > now)
        .limit(1)
    ).first()
    return found is not None


def held_invitations(db: Database, league_id: int) -> list[str]:
    """The addresses whose invitation waits for a season taking sign-ups (for the league's organiser), by address."""
    with db.session() as session:
        found = session.execute(
            select(Player.email)
            .join(Outbox, Outbox.player_id == Player.id)
            .where(*outbox.held_invitations(league_id))
            .distinct()
        ).scalars()
        return sorted(found)


# --- rounds still to start (hub, calendars) ---------------------------------------------------------------------------


def check_owner(db: Database, season_player_id: int, player_id: int) -> None:
    """LeagueError ``NOT_IN`` unless the entry is the player's own (hub forms act on the reader's entries only)."""
    with db.session() as session:
        entry = session.get(SeasonPlayer, season_player_id)
        if entry is None or entry.player_id != player_id:
            raise LeagueError(NOT_IN)
