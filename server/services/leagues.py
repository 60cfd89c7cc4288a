"""Leagues and seasons (issue 14): creating them, sign-ups confirmed by mail, withdrawals, and the league's links.

- ``create_league`` checks every field of a ``LeagueSpec`` (name, language, zone, table size, the game's options
  through the engine, tempo preset, scoring system, tie-breaks, forfeit rule) before anything is stored.
- ``create_season`` numbers the league's seasons 1, 2, …; the sign-up closes in the future, 1 to ``MAX_ROUNDS``
  rounds, a schedule of ``fixed`` round starts (``{"weekday": 0-6, "time": "HH:MM"}`` in the league's zone) or
  ``when_over`` (the next round when every table of this one is over).
- ``sign_up`` (from the league's invitation link) finds or makes the player by address and writes a *pending*
  entry; a ``league_confirm`` mail carries the signed link (``links.confirm_token``: the entry and its
  ``confirm_generation``) that ``confirm`` follows. Nobody is in a season without confirming from the address
  signed up. A known address keeps its own name and preferences (a stranger signing it up changes nothing of it);
  a new one takes those given. Signing up again while pending mails the link again (not more often than every
  ``RESEND_AFTER``); once confirmed it is refused.
- ``withdraw`` while the season takes sign-ups or runs; it raises the entry's generation, so an earlier
  confirmation link cannot bring the player back. A withdrawn player may sign up again while sign-ups are open.
- League links (``links.league_token``): invitation, organiser and public, each of the league's generation of its
  kind; ``revoke`` raises one, and ``open_league`` refuses the earlier links (LinkError).

Every refusal is a ``LeagueError`` (or ``LinkError`` for a link) raised before anything is written: nothing changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import func, select
from sqlalchemy.orm import Session

import engine

from ..db import Database
from ..models import LANGUAGES, EntryStatus, League, MailKind, Outbox, Player, Season, SeasonPlayer, SeasonStatus
from . import inputs, outbox, presets, scoring
from .errors import N_, ShownError
from .games import GameError, PlayerSpec, colours_for, find_or_create_player, person
from .links import LinkError, league_token, read_confirm_token, read_league_token
from .prefs import PrefsError, check_prefs
from .tempo import TempoError, check_timezone

#: a league's links, by kind (``League.<kind>_generation``).
LINKS = ("invite", "organiser", "public")
SCHEDULES = ("fixed", "when_over")
MAX_NAME = 80
MAX_ROUNDS = 52
TABLE_SIZES = (3, 6)
#: a pending sign-up's confirmation is mailed again at most this often.
RESEND_AFTER = timedelta(minutes=10)
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
ALREADY_IN = N_("This address is already signed up for this season and confirmed: nothing was changed.")
RESENT_RECENTLY = N_(
    "This address is already signed up and a confirmation was mailed to it a few minutes ago: follow the link in "
    "that mail. Nothing was changed."
)
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
    tie_breaks: list[str] = field(default_factory=lambda: list(scoring.TIE_BREAKS))
    forfeit: str = "last"
    standings_public: bool = False


def _choice(value: object, choices: tuple[str, ...], msgid: str) -> str:
    if not isinstance(value, str) or value not in choices:
        raise LeagueError(msgid, value=repr(value)[:40], choices=", ".join(choices))
    return value


def check_league(spec: LeagueSpec) -> dict[str, Any]:
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
        "tie_breaks": list(breaks),
        "forfeit": forfeit,
        "standings_public": bool(spec.standings_public),
    }


def create_league(db: Database, spec: LeagueSpec, now: datetime) -> int:
    """A new league of ``spec``; its id. LeagueError (nothing stored) for any refused field."""
    columns = check_league(spec)
    with db.session() as session:
        league = League(**columns, created_at=now)
        session.add(league)
        session.flush()
        return league.id


def check_rule(schedule: object, rule: object) -> dict[str, Any] | None:
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


def round_starts(rule: dict[str, Any], zone: str, after: datetime, rounds: int) -> list[datetime]:
    """A fixed schedule's round starts (UTC): the first at the rule's weekday and time (in the league's ``zone``)
    strictly after ``after`` (the sign-up's close), then one a week at the same local time (across DST changes)."""
    local = after.astimezone(ZoneInfo(zone))
    hour, minute = (int(part) for part in rule["time"].split(":"))
    first = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    first += timedelta(days=(rule["weekday"] - first.weekday()) % 7)
    if first <= local:
        first += timedelta(days=7)
    return [
        datetime.combine(first.date() + timedelta(weeks=k), first.time(), first.tzinfo).astimezone(UTC)
        for k in range(rounds)
    ]


def create_season(
    db: Database, league_id: int, signup_closes: datetime, rounds: int, schedule: str, rule: Any, *, now: datetime
) -> int:
    """The league's next season (numbered after its last), taking sign-ups until ``signup_closes``; its id."""
    if signup_closes <= now:
        raise LeagueError(CLOSES_PAST)
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= MAX_ROUNDS:
        raise LeagueError(BAD_ROUNDS, count=MAX_ROUNDS)
    checked = check_rule(schedule, rule)
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
            created_at=now,
        )
        session.add(season)
        session.flush()
        return season.id


# --- sign-ups --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignedUp:
    """A sign-up: its entry (pending until confirmed) and whether it was one already (the mail was sent again)."""

    season_player_id: int
    resent: bool


def _season(session: Session, season_id: int, *, lock: bool = False) -> Season:
    season = session.get(Season, season_id, with_for_update=lock)
    if season is None:
        raise LeagueError(NO_SEASON, season=season_id)
    return season


def _confirm_mail(session: Session, entry: SeasonPlayer, now: datetime) -> None:
    """Queue the confirmation mail of a pending entry (``outbox.confirm_entry``: ``results.next_season`` too)."""
    outbox.confirm_entry(session, entry, now)


def _last_mailed(session: Session, entry: SeasonPlayer) -> datetime | None:
    return session.execute(
        select(func.max(Outbox.created_at)).where(
            Outbox.kind == MailKind.LEAGUE_CONFIRM, Outbox.key.like(f"league_confirm:{entry.id}:%")
        )
    ).scalar()


@dataclass(frozen=True)
class Applicant:
    """What the sign-up form gives (texts from outside, checked by ``sign_up``)."""

    name: object
    email: object
    language: object = "en"
    timezone: object = "UTC"
    quiet_start: object = ""
    quiet_end: object = ""


def _checked_person(applicant: Applicant) -> tuple[PlayerSpec, dict[str, Any]]:
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
    return spec, prefs


def sign_up(db: Database, season_id: int, applicant: Applicant, now: datetime) -> SignedUp:
    """Sign an address up for a season (pending) and mail it the confirmation link; see the module's text.
    LeagueError, nothing changed: bad input, the season not taking sign-ups, already confirmed, mailed just now."""
    spec, prefs = _checked_person(applicant)
    with db.session() as session:
        season = _season(session, season_id, lock=True)
        if season.status != SeasonStatus.SIGNUP:
            raise LeagueError(NOT_SIGNUP, season=season.number)
        if now >= season.signup_closes:
            raise LeagueError(CLOSED, when=season.signup_closes.strftime("%Y-%m-%d %H:%M UTC"))
        known = session.execute(select(Player).where(Player.email == spec.email)).scalar_one_or_none()
        entry = None
        if known is not None:
            entry = session.execute(
                select(SeasonPlayer).where(SeasonPlayer.season_id == season.id, SeasonPlayer.player_id == known.id)
            ).scalar_one_or_none()
        if entry is not None and entry.status == EntryStatus.CONFIRMED:
            raise LeagueError(ALREADY_IN)
        if entry is not None and entry.status == EntryStatus.PENDING:
            last = _last_mailed(session, entry)
            if last is not None and now - last < RESEND_AFTER:
                raise LeagueError(RESENT_RECENTLY)
            _confirm_mail(session, entry, now)
            return SignedUp(entry.id, resent=True)
        player = known or find_or_create_player(session, spec)
        if known is None:  # a new address takes what was given; a known one keeps its own
            for key, value in prefs.items():
                setattr(player, key, value)
        if entry is None:
            entry = SeasonPlayer(season_id=season.id, player_id=player.id, created_at=now)
            session.add(entry)
        else:  # withdrawn earlier: pending again, by a new link
            entry.confirm_generation += 1
            entry.withdrawn_at = None
        entry.status = EntryStatus.PENDING
        session.flush()
        _confirm_mail(session, entry, now)
        return SignedUp(entry.id, resent=False)


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


def confirmation(db: Database, secret_key: str, token: str, max_age: int) -> dict[str, Any]:
    """What the confirmation page shows: ``league``, ``season`` (its number), ``name``, ``status``; LinkError or
    LeagueError as ``confirm`` (nothing is changed by looking)."""
    with db.session() as session:
        entry = _entry_of_link(session, secret_key, token, max_age)
        season = _season(session, entry.season_id)
        league = session.get(League, season.league_id)
        player = session.get(Player, entry.player_id)
        assert league is not None and player is not None
        return {
            "league": league.name,
            "season": season.number,
            "name": player.display_name,
            "email": player.email,
            "status": entry.status,
        }


def confirm(db: Database, secret_key: str, token: str, max_age: int, now: datetime) -> Confirmed:
    """Confirm the sign-up a mailed link names; LinkError for a forged, expired or replaced link, LeagueError when
    the player withdrew or the sign-up closed before they confirmed (nothing changed)."""
    with db.session() as session:
        entry = _entry_of_link(session, secret_key, token, max_age)
        if entry.status == EntryStatus.CONFIRMED:
            return Confirmed(entry.id, already=True)
        season = _season(session, entry.season_id)
        if season.status != SeasonStatus.SIGNUP:
            raise LeagueError(NOT_SIGNUP, season=season.number)
        if now >= season.signup_closes:
            raise LeagueError(CLOSED, when=season.signup_closes.strftime("%Y-%m-%d %H:%M UTC"))
        entry.status = EntryStatus.CONFIRMED
        entry.confirmed_at = now
        return Confirmed(entry.id, already=False)


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


def signup_page(db: Database, league_id: int) -> dict[str, Any]:
    """What the invitation page shows: ``league`` (its name), ``timezone`` (the league's), and ``season``: None when
    no season takes sign-ups, else its ``id``, ``number`` and ``closes`` (UTC)."""
    season_id = signup_season(db, league_id)
    with db.session() as session:
        league = session.get(League, league_id)
        if league is None:
            raise LeagueError(NO_LEAGUE, league=league_id)
        shown: dict[str, Any] = {"league": league.name, "timezone": league.timezone, "season": None}
        if season_id is not None:
            season = _season(session, season_id)
            shown["season"] = {"id": season.id, "number": season.number, "closes": season.signup_closes}
        return shown
