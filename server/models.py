"""SQLAlchemy 2 models: players, games, seats, windows and their requests, event batches, the mail outbox, heartbeats.

All times are stored as naive UTC and read back as aware UTC (``UTCDateTime``). Statuses are stored as their
string values; the ``StrEnum`` classes below name them (a member compares equal to its string).
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, NotRequired, TypedDict

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Select,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    event,
    false,
    literal_column,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship, validates
from sqlalchemy.sql.elements import ColumnElement

import engine
from engine.shapes import JSON as JSONValue
from engine.shapes import JSONObject

from . import packing

JSONType = JSON().with_variant(JSONB(), "postgresql")
#: JSON kept as written (compact text, ``db.compact_json``) for the many small values of events and requests: on
#: PostgreSQL JSONB takes about twice their bytes (migration 0016); nothing queries them by their contents but
#: ``reliability``'s path lookups, which JSON has too.
TextJSON = JSON()


class Packed(TypeDecorator[object]):
    """JSON values stored packed (``server.packing``, the saved games' dictionary): the engine's saved games and
    snapshots, a few KB of JSON each, take about a fourteenth of that (PostgreSQL's own compression: a third; issue
    15). Nothing queries them by their contents."""

    impl = LargeBinary
    cache_ok = True

    def process_bind_param(self, value: object, dialect: Dialect) -> bytes | None:
        return None if value is None else packing.pack(value, packing.GAMES)

    def process_result_value(self, value: bytes | None, dialect: Dialect) -> JSONValue:
        return None if value is None else packing.unpack(bytes(value))


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in Python, naive UTC in the database (the same on SQLite and PostgreSQL)."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given; deadmail stores UTC instants only")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


#: the languages deadmail speaks (``Player.language``; catalogs in translations/).
LANGUAGES = ("en", "it", "pl")


def pick_language(value: object) -> str:
    """One of LANGUAGES from whatever was stored or sent ("it", "IT", "pl-PL", "pl_PL"); "en" otherwise."""
    if not isinstance(value, str):
        return "en"
    lang = value.strip().lower()[:2]
    return lang if lang in LANGUAGES else "en"


class GameStatus(StrEnum):
    RUNNING = "running"
    OVER = "over"
    ABANDONED = "abandoned"


class WindowStatus(StrEnum):
    """open -> resolving (claimed by an advance) -> closed."""

    OPEN = "open"
    RESOLVING = "resolving"
    CLOSED = "closed"


class OutboxStatus(StrEnum):
    """pending -> sending -> sent, or back to pending with a later try; failed after too many tries. held: waits
    for the player's digest (then merged into a digest row); skipped: nothing left to tell when it was due."""

    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"
    HELD = "held"
    MERGED = "merged"
    SKIPPED = "skipped"


class NotifyMode(StrEnum):
    """How a player with a device (push or chat app) is told of a decision: ``both`` mail and the device at once;
    ``first`` the device first and the mail only if the decision is still unanswered after ``Player.mail_after``
    minutes; ``mail`` mail only."""

    BOTH = "both"
    FIRST = "first"
    MAIL = "mail"


class DeviceKind(StrEnum):
    """Where a device's notifications go: a browser's Web Push subscription, or a chat app's address (apprise)."""

    PUSH = "push"
    CHAT = "chat"


class MailKind(StrEnum):
    """What an outbox row tells (``server/mail/kinds.py`` and ``league_kinds.py`` write one kind of mail for each)."""

    TURN = "turn"
    UPDATE = "update"
    GAME_OVER = "game_over"
    REPLY = "reply"
    LINK = "link"
    REMINDER = "reminder"
    DIGEST = "digest"
    ORGANISER = "organiser"
    CHAT = "chat"
    #: everyone but this seat has answered the window (``turns._last_call``).
    LAST_CALL = "last_call"
    #: a session of the game's play hours starts soon (``reminders.plan_session_reminders``).
    SESSION = "session"
    #: the seat went on autopilot after missed deadlines: a one-tap "I'm back" (``services.play.autopilot``).
    AUTOPILOT = "autopilot"
    #: another seat of the table went on autopilot, or is back (``services.play.autopilot``).
    TABLE = "table"
    #: a seat of a running game is offered to this person: the invitation's link (``services.attendance.substitutes``).
    INVITATION = "invitation"
    #: a sign-up to a league season, to confirm by its signed link (``services.leagues.seasons.sign_up``).
    LEAGUE_CONFIRM = "league_confirm"
    #: a substitute took over this player's seat (``services.attendance.substitutes``).
    SUBSTITUTED = "substituted"
    #: an invitation to a league: its sign-up link (``services.leagues.seasons.invite``).
    LEAGUE_INVITE = "league_invite"
    #: a round of a league season started: the player's table (``services.leagues.rounds.start``).
    LEAGUE_FIXTURES = "league_fixtures"
    #: every table of a round is over: its results and the standings (``services.leagues.round_end``).
    LEAGUE_RESULTS = "league_results"
    #: the season is over: the final standings (``services.leagues.round_end``).
    SEASON_END = "season_end"
    #: a sign-in link asked for at /signin (``services.signin``).
    SIGNIN = "signin"
    #: a season's next round could not be seated (too few players, acquaintances): to the league's organiser once
    #: per stall (``services.leagues.rounds.sweep``).
    ROUND_UNSEATED = "round_unseated"
    #: an address invited to a game a player started: accept, decline, or never be invited again
    #: (``services.lobby``).
    GAME_INVITE = "game_invite"
    #: a game a player started did not fill by its date (or its creator cancelled it): to those who joined.
    GAME_CANCELLED = "game_cancelled"
    #: a league's or a game's webhook address was paused after failing: to its organiser (``services.channel``).
    CHANNEL_PAUSED = "channel_paused"


class Base(DeclarativeBase):
    metadata = MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )


class Player(Base):
    __tablename__ = "players"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    display_name: Mapped[str] = mapped_column(String(80))
    language: Mapped[str] = mapped_column(String(8), default="en")
    #: an IANA time zone name, e.g. "Europe/Rome".
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    #: quiet hours in the player's own time, "HH:MM"; none when either is null.
    quiet_start: Mapped[str | None] = mapped_column(String(5))
    quiet_end: Mapped[str | None] = mapped_column(String(5))
    #: "each": a mail per notification; "digest": notifications are held and sent together every ``digest_hours``.
    mail_mode: Mapped[str] = mapped_column(String(8), default="each", server_default="each")
    digest_hours: Mapped[int] = mapped_column(Integer, default=4, server_default="4")
    #: preferences links carry this number; raising it (when a seat's links are revoked) revokes every earlier one.
    link_generation: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    #: the calendar address (``services.calendar``) carries this number; raising it revokes the earlier address (on
    #: its own: a calendar address lives long in a calendar service and shows only deadlines).
    calendar_generation: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    #: default standing answers (``engine.standing_answer``) for every game of the player; null: none.
    standing: Mapped[JSONObject | None] = mapped_column(JSONType)
    #: how the player is told of a decision once they added a device (``NotifyMode``); mail only without one.
    notify_mode: Mapped[str] = mapped_column(String(8), default="both", server_default="both")
    #: in ``NotifyMode.FIRST``: the minutes a decision may stay unanswered before the mail (the ladder's step) goes.
    mail_after: Mapped[int] = mapped_column(Integer, default=30, server_default="30")
    #: the channel that last reached the player (a notification clicked, a mail's link opened, a mail answered), and
    #: when: the escalation ladder starts there, the figures count it.
    reached_via: Mapped[str | None] = mapped_column(String(8))
    reached_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: per channel ("push", "chat", "mail"), the seconds from the notification (or the window opening, for mail) to
    #: the player opening the decision from it, the newest ``notify.nudges.REACH_KEPT``: the figures of their hub.
    reach: Mapped[dict[str, list[int]] | None] = mapped_column(JSONType)
    #: suspended by the server's organiser (``services.lobby.moderation``): no new games, no joining; their running
    #: games go on, each of their seats offered to a substitute. Null: not suspended.
    suspended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: the address said "never invite me again" from an invitation mail: no player may invite it (``services.lobby``).
    no_invitations: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Ledger(Base):
    """The requests counted for a person's reliability over every game (``reliability.record``, as each window
    closes): how many, and the newest ``reliability.LAST`` of them. A row of its own, locked by nothing else: an
    advance locks its window, then the ledgers of the people it counts."""

    __tablename__ = "ledgers"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    counted: Mapped[int] = mapped_column(Integer, default=0)
    #: newest first: [opened, deadline, answered or null, defaulted, window id], instants as ``archive.stamp``s.
    newest: Mapped[list[list[JSONValue]]] = mapped_column(Packed)


class PlayHoursJSON(TypedDict):
    """A tempo's play hours as stored (``tempo.PlayHours.to_json``): daily sessions in one zone."""

    zone: str
    #: Monday = 0
    days: list[int]
    #: "HH:MM"
    start: str
    end: str
    #: seconds to answer in a session
    deadline: int


class TempoJSON(TypedDict):
    """A game's tempo as stored (``games.tempo``, made by ``presets.tempo_for``): how long each decision may take
    and what the table waits for. Absent keys take their defaults where they are read."""

    #: {"default": seconds, kind: seconds}
    durations: dict[str, int]
    avoid_quiet_hours: bool
    timezone: NotRequired[str]
    #: true when absent
    close_decided_votes: NotRequired[bool]
    #: a preset's name (``presets.PRESETS``)
    preset: NotRequired[str]
    #: seconds left to the last one owing an answer (absent or null: no last call)
    last_call: NotRequired[int | None]
    play_hours: NotRequired[PlayHoursJSON]
    #: missed deadlines and absences (``services.play.policy``)
    autopilot_after: NotRequired[int]
    absence: NotRequired[str]
    absence_budget: NotRequired[int]


class ScheduleRuleJSON(TypedDict):
    """A season's fixed schedule (``seasons.schedule_rule``): rounds start each week on this day at this time."""

    #: Monday = 0
    weekday: int
    #: "HH:MM" in the league's zone
    time: str


class ApplicantJSON(TypedDict, total=False):
    """What a sign-up form gave while its entry is pending (``season_players.applicant``); an entry carried over
    from the last season may hold only ``knows``."""

    name: str
    language: str
    timezone: str
    quiet_start: str | None
    quiet_end: str | None
    mail_mode: str
    digest_hours: int
    #: the addresses of the people the player declared they know
    knows: list[str]


class StallJSON(TypedDict):
    """Why a season's due round could not be seated (``seasons.unseated``, written by ``rounds._unseated``)."""

    #: the number of the round that could not be seated
    round: int
    #: the refusal (``rounds.RoundError``): its msgid and parameters (as ``ShownError.params`` holds them)
    msgid: str
    params: dict[str, Any]
    #: since when (ISO 8601)
    since: str


class DivisionCount(TypedDict):
    #: None: a season without divisions
    name: str | None
    count: int


class OutlineJSON(TypedDict):
    """A season's stored standings outline (``season_standings.rows``): each division's name and number of rows,
    then the substitutes' number of rows."""

    divisions: list[DivisionCount]
    substitutes: int


class Game(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(120), default="")
    #: a GameStatus
    status: Mapped[str] = mapped_column(String(16), default=GameStatus.RUNNING)
    options: Mapped[engine.OptionsJSON] = mapped_column(JSONType)
    seed: Mapped[int] = mapped_column(Integer)
    tempo: Mapped[TempoJSON] = mapped_column(JSONType)
    #: the engine's saved game (Game.to_json): config, answer log, snapshot. Loaded only when the engine cache
    #: does not already hold this version.
    state: Mapped[engine.SavedGame] = mapped_column(Packed, deferred=True)
    #: the engine's state at the start of the latest round (``engine.Game.snapshot``) and how many log entries it
    #: covers: restoring replays only the answers after it (``services.play.engines``). Null: replay the whole log.
    snapshot: Mapped[engine.SnapshotJSON | None] = mapped_column(Packed, deferred=True)
    #: its closed windows and their requests (``services.play.archive``): a live game's history in one value, not in a
    #: hundred rows. Null: none closed yet.
    archive: Mapped[dict[str, Any] | None] = mapped_column(Packed, deferred=True)
    #: bumped on every change of ``state``; requests are checked against the state they were made from.
    version: Mapped[int] = mapped_column(Integer, default=0)
    round: Mapped[int] = mapped_column(Integer, default=0)
    phase: Mapped[str] = mapped_column(String(16), default="setup")
    outcome: Mapped[engine.Outcome | None] = mapped_column(JSONType)
    organiser_email: Mapped[str | None] = mapped_column(String(320))
    #: the league round this game is a table of (``services.leagues.rounds``); null: a single game.
    round_id: Mapped[int | None] = mapped_column(ForeignKey("league_rounds.id", ondelete="SET NULL"), index=True)
    #: paused by the organiser until this instant: no window advances before it (the pause ends by itself).
    paused_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: play hours: when the next session's reminder is due (``reminders.plan_session_reminders``); null: none.
    session_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    #: the player who created it (``services.lobby``): the organiser's powers over this game only. Null: the
    #: server's organiser or a league made it.
    creator_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    seats: Mapped[list[Seat]] = relationship(back_populates="game", order_by="Seat.position")

    def paused_at(self, now: datetime) -> bool:
        """Paused by the organiser at ``now``: no window advances."""
        return self.paused_until is not None and now < self.paused_until

    @classmethod
    def unpaused_at(cls, now: datetime) -> ColumnElement[bool]:
        """The query condition for games not paused at ``now``."""
        return cls.paused_until.is_(None) | (cls.paused_until <= now)


class Seat(Base):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "colour"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    #: seating order, clockwise, from 0.
    position: Mapped[int] = mapped_column(Integer)
    colour: Mapped[str] = mapped_column(String(8))
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    #: a bot plays this seat ("sensible" or "random"); null for a person.
    bot: Mapped[str | None] = mapped_column(String(16))
    #: signed links carry this number; raising it revokes every earlier link of the seat.
    link_generation: Mapped[int] = mapped_column(Integer, default=1)
    #: how many events of its own view (``engine.view(...)["events"]``) this seat was told by mail; null: no mail
    #: yet (the next one starts the thread).
    told_events: Mapped[int | None] = mapped_column(Integer)
    #: the last table-talk message (``ChatMessage.id``) told to this seat by mail.
    chat_mailed_id: Mapped[int | None] = mapped_column(Integer)
    #: this game's standing answers, per setting over the player's defaults ("ask" overrides one); null: none.
    standing: Mapped[JSONObject | None] = mapped_column(JSONType)
    #: when the seat's page (or its live fragment) was last fetched, kept to ``seats.SEEN_EVERY``: who is on their
    #: page now, during a session of play hours (not secret).
    seen_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: the seat's public requests defaulted in a row: ``services.play.policy.AFTER`` of them put it on autopilot.
    missed: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: on autopilot since (its requests are answered at once, ``services.play.autopilot``); null: the person answers.
    autopilot_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: seconds of deadline extension this seat's absences used in this game (``services.play.policy.BUDGET``).
    extended: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    game: Mapped[Game] = relationship(back_populates="seats")
    player: Mapped[Player | None] = relationship()


class SeatTenure(Base):
    """Who played a seat, and when: a replacement (by a bot or another person) ends one tenure and starts the
    next, and the seat's link generation is raised so the old links stop working."""

    __tablename__ = "seat_tenures"

    id: Mapped[int] = mapped_column(primary_key=True)
    seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id", ondelete="CASCADE"), index=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    bot: Mapped[str | None] = mapped_column(String(16))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


#: the condition of the absences' partial index: the ones the sweep has still to apply.
UNAPPLIED = text("NOT applied")


class Absence(Base):
    """A time a player declared they are away: each game's ``absence`` option decides what it does."""

    __tablename__ = "absences"
    #: the sweep finds absences that have begun and are not applied yet through this index (migration 0018).
    __table_args__ = (Index("ix_absences_unapplied", "starts_at", postgresql_where=UNAPPLIED, sqlite_where=UNAPPLIED),)

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime)
    ends_at: Mapped[datetime] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    #: applied to the windows open when it began (``absences.declare`` or the sweep's ``apply_started``), once.
    applied: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class Invitation(Base):
    """An organiser's offer of a seat to a substitute: its link carries ``key``; accepting it once makes
    the substitute the seat's next tenure. It lapses when the seat changes hands another way (``link_generation``)."""

    __tablename__ = "invitations"

    id: Mapped[int] = mapped_column(primary_key=True)
    seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id", ondelete="CASCADE"), index=True)
    key: Mapped[str] = mapped_column(String(64), unique=True)
    #: the seat's link generation when it was offered.
    generation: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    used_by: Mapped[int | None] = mapped_column(ForeignKey("players.id"))


#: the condition of the windows' partial indexes (the sweep's due instants index open windows only, migration 0017).
OPEN_ONLY = text("status = 'open'")


class Window(Base):
    """One wait for the players: the requests the engine opened at the same time (RULES.md H-1)."""

    __tablename__ = "windows"
    __table_args__ = (
        UniqueConstraint("game_id", "number"),
        *(
            Index(f"ix_windows_open_{column}", column, postgresql_where=OPEN_ONLY, sqlite_where=OPEN_ONLY)
            for column in ("deadline", "completed_at", "remind_at", "claimed_until")
        ),
        # a game's open window, found in one lookup (answers, pages, advances; migration 0020)
        Index("ix_windows_open_game_id", "game_id", postgresql_where=OPEN_ONLY, sqlite_where=OPEN_ONLY),
        # ids are never given again (SQLite would reuse the highest once deleted, ``services.play.archive``): mail keys
        # carry them
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    #: (indexed by the unique constraint it leads, as ``requests.window_id`` and ``events.game_id``: migration 0016)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    #: the engine's window number (Game.window_no).
    number: Mapped[int] = mapped_column(Integer)
    #: a WindowStatus
    status: Mapped[str] = mapped_column(String(12), default=WindowStatus.OPEN)
    round: Mapped[int] = mapped_column(Integer)
    phase: Mapped[str] = mapped_column(String(16))
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    deadline: Mapped[datetime] = mapped_column(UTCDateTime)
    #: play hours: when the deadline was moved, once, to the next session's for players absent from this one.
    extended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: how many times ``deadline`` was moved after the window opened (raised by ``_deadline_moved``): calendar feeds
    #: give it as the event's SEQUENCE, so calendars replace the event.
    deadline_revision: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: when the last owed answer arrived (for latency figures).
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: when the next step of the reminder ladder is due for its unanswered requests (``services.mailflow.reminders``);
    #: null: no step left.
    remind_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: a sweep batch took this window until this instant (``services.sweeps``): no other batch takes it before.
    claimed_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    requests: Mapped[list[RequestRow]] = relationship(back_populates="window", order_by="RequestRow.position")


#: "the window is open" for the sweep's queries, with the status written as a literal: PostgreSQL uses a partial
#: index (``OPEN_ONLY``) only for a condition it can see implies the index's, which a bound value does not (once a
#: prepared statement goes to a generic plan).
WINDOW_OPEN: ColumnElement[bool] = Window.status == literal_column(f"'{WindowStatus.OPEN}'")


class RequestRow(Base):
    """One decision owed by one seat in a window, and its (secret until closing) answer."""

    __tablename__ = "requests"
    __table_args__ = (UniqueConstraint("window_id", "seat_id"), {"sqlite_autoincrement": True})  # as windows'

    id: Mapped[int] = mapped_column(primary_key=True)
    window_id: Mapped[int] = mapped_column(ForeignKey("windows.id", ondelete="CASCADE"))
    seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id", ondelete="CASCADE"), index=True)
    #: order in the window (seating order from the Chief).
    position: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    #: the engine's request as JSON (the prompt and options shown to the seat, private to it) while its window is
    #: open; null once the window is closed (``turns.advance_window``, ``organise.abandon``): the replay reads the
    #: requests from the engine's log, what a closed request is is its ``kind`` and ``secret``.
    payload: Mapped[engine.RequestJSON | None] = mapped_column(TextJSON)
    #: asked in secret (``engine.asked_in_secret`` of its payload, set with it; B-INFO): nobody else is told of it,
    #: nor counts it (``reliability``).
    secret: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    answer: Mapped[JSONValue] = mapped_column(JSONType)
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: the deadline passed without an answer: the H-4 default was applied.
    defaulted: Mapped[bool] = mapped_column(Boolean, default=False)
    #: how many steps of the reminder ladder were sent for this request.
    reminded: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: the answer was given at once by the seat's standing answers (logged as such when applied).
    standing: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: the answer was given at once by the autopilot of a seat that missed deadlines or whose player is away.
    autopilot: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: the person who owed it when it opened (null for a bot): reliability and statistics per tenure.
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)

    window: Mapped[Window] = relationship(back_populates="requests")
    seat: Mapped[Seat] = relationship()

    @validates("payload")
    def _secret_of(self, _key: str, payload: engine.RequestJSON | None) -> engine.RequestJSON | None:
        """A request given its payload is marked secret when it is asked in secret; closing keeps the mark."""
        if payload is not None:
            self.secret = engine.asked_in_secret(engine.Request.from_json(payload))
        return payload


@event.listens_for(Window.deadline, "set", active_history=True)
def _deadline_moved(window: Window, value: datetime, old: object, _initiator: object) -> None:
    """Every move of an open window's deadline (an organiser's extension or pause, last call, play hours, an
    absence) raises its ``deadline_revision``, and makes its ``remind_at`` due at once: the next reminder pass
    computes the ladder of the new deadline (``services.mailflow.reminders``). The first deadline, when the window is
    made, does neither."""
    if isinstance(old, datetime) and value != old:
        window.deadline_revision = (window.deadline_revision or 0) + 1
        window.remind_at = window.opened_at


class EventBatch(Base):
    """What happened, as the engine told it: the events of one advance (``turns._store_events``), in one row.

    ``events`` is their list in the engine's own form (``engine.Game.events``: ``{"type": ..., "to": [...]}``, no
    ``"to"`` when public, RULES.md H-6), packed (``packing.pack_events``: deflate with a preset dictionary, about a
    fifth of the JSON); they are the game's events ``first_seq`` to ``first_seq + count - 1``. One row per advance
    instead of one per event: a sixth of the rows."""

    __tablename__ = "event_batches"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    first_seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    count: Mapped[int] = mapped_column(Integer)
    events: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Outbox(Base):
    """A notification to send, written in the same transaction as the change it tells about."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_status_next", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    #: unique per notification, so a repeated advance can never queue the same mail twice.
    key: Mapped[str] = mapped_column(String(120), unique=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    seat_id: Mapped[int | None] = mapped_column(ForeignKey("seats.id", ondelete="CASCADE"))
    #: a MailKind
    kind: Mapped[str] = mapped_column(String(32))
    payload: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    #: an OutboxStatus
    status: Mapped[str] = mapped_column(String(12), default=OutboxStatus.PENDING)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    player: Mapped[Player] = relationship()


class Device(Base):
    """Where a player's notifications reach them besides mail: a browser's push subscription (its endpoint and
    keys, RFC 8030/8291) or a chat app's address. An endpoint belongs to one player only."""

    __tablename__ = "devices"

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    #: a DeviceKind
    kind: Mapped[str] = mapped_column(String(8))
    #: the push endpoint (https), or the chat app's address (an apprise URL; a secret: never shown back whole).
    endpoint: Mapped[str] = mapped_column(String(1000), unique=True)
    #: the browser's P-256 key and auth secret (base64url), for push only.
    p256dh: Mapped[str | None] = mapped_column(String(100))
    auth: Mapped[str | None] = mapped_column(String(40))
    #: as the player named it ("Phone", the browser's guess).
    name: Mapped[str] = mapped_column(String(60))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    #: the last time a notification reached it (the push service or chat app took it).
    reached_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: permanent failures in a row (a chat app refusing); removed after ``notify.devices.MAX_FAILURES``.
    failures: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)


class Nudge(Base):
    """A notification to one device, written in the transaction of the change it tells (with its mail's outbox
    row), sent after commit like mail: claimed once, retried with back-off, never sent twice for one row."""

    __tablename__ = "nudges"
    __table_args__ = (Index("ix_nudges_status_next", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    #: unique per notification and device: a repeated advance cannot queue it twice.
    key: Mapped[str] = mapped_column(String(160), unique=True)
    device_id: Mapped[int] = mapped_column(ForeignKey("devices.id", ondelete="CASCADE"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    #: the seat it is about (none for a test): its game names the notification's Topic.
    seat_id: Mapped[int | None] = mapped_column(ForeignKey("seats.id", ondelete="CASCADE"))
    #: a MailKind the notification tells (turn, last_call, reminder, game_over), or "test".
    kind: Mapped[str] = mapped_column(String(32))
    #: the window it asks about (turn, last_call, reminder): not sent once that decision is answered or closed; its
    #: deadline ends the notification's time to live.
    window_number: Mapped[int | None] = mapped_column(Integer)
    #: an OutboxStatus (pending, sending, sent, failed, skipped).
    status: Mapped[str] = mapped_column(String(12), default=OutboxStatus.PENDING)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: when the player opened the decision from it (an acknowledgement: the channel reached them).
    opened_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class ChatChannel(Base):
    """Table talk: the public channel of a game (``key`` "all") or a private one between some of its colours
    (``key`` the sorted colours joined by "+", e.g. "blue+red")."""

    __tablename__ = "chat_channels"
    __table_args__ = (UniqueConstraint("game_id", "key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    key: Mapped[str] = mapped_column(String(64))


class ChatMessage(Base):
    __tablename__ = "chat_messages"

    id: Mapped[int] = mapped_column(primary_key=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("chat_channels.id", ondelete="CASCADE"), index=True)
    #: the colour that wrote it (seats change players; the colour is what the table sees).
    colour: Mapped[str] = mapped_column(String(8))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class InboundMail(Base):
    """A reply received by mail, kept so a message delivered twice is applied once (unique ``message_id``)."""

    __tablename__ = "inbound_mail"

    id: Mapped[int] = mapped_column(primary_key=True)
    #: the Message-ID header (or a digest of the message when it has none).
    message_id: Mapped[str] = mapped_column(String(255), unique=True)
    received_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    sender: Mapped[str] = mapped_column(String(320))
    recipient: Mapped[str] = mapped_column(String(320))
    seat_id: Mapped[int | None] = mapped_column(ForeignKey("seats.id", ondelete="SET NULL"))
    window_number: Mapped[int | None] = mapped_column(Integer)
    #: applied, error, closed, wrong_sender, forged, ignored
    status: Mapped[str] = mapped_column(String(16))
    #: the command line read (truncated) or why the mail was refused.
    detail: Mapped[str] = mapped_column(Text, default="")


class Heartbeat(Base):
    __tablename__ = "heartbeats"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    beat_at: Mapped[datetime] = mapped_column(UTCDateTime)
    info: Mapped[JSONObject] = mapped_column(JSONType, default=dict)


class OrganiserSession(Base):
    """A browser session of an organiser, on the server side: the session cookie carries only its ``id``, so logging
    out (which deletes the row) ends it for every copy of the cookie. ``token`` is the keyed fingerprint of the
    organiser token it was made with: a new token ends it."""

    __tablename__ = "organiser_sessions"

    #: random, URL-safe; the signed session cookie carries it.
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    token: Mapped[str] = mapped_column(String(64))
    #: logged in with the organiser token: every game; else only ``games`` (opened by their organiser links).
    every_game: Mapped[bool] = mapped_column(Boolean, default=False)
    games: Mapped[list[int]] = mapped_column(JSONType, default=list)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class SigninLink(Base):
    """A sign-in link mailed to a player (``services.signin``): its signed token names this row, which it opens once
    (``used_at``) and only for ``signin.LINK_LIFETIME`` after ``created_at``."""

    __tablename__ = "signin_links"
    #: never an id twice (SQLite would give a deleted row's id again): its outbox row's key names it
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class PlayerSession(Base):
    """A player's browser signed in by a mailed link, on the server side: the session cookie carries only its
    ``id``, so signing out (which deletes the row) ends it for every copy of the cookie. It lasts at most
    ``signin.LIFETIME`` after ``created_at``."""

    __tablename__ = "player_sessions"

    #: random, URL-safe; the signed session cookie carries it.
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    #: the browser, as its User-Agent names it (shortened): shown on the player's hub, to tell sessions apart.
    agent: Mapped[str] = mapped_column(String(120))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    #: the last request it opened, to the hour (written at most once an hour).
    seen_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


# --- games players start themselves ---------------------------------------------------------------------------------


class ProposalStatus(StrEnum):
    """forming -> started (its game made) or cancelled (by its creator, or not filled by ``fill_by``)."""

    FORMING = "forming"
    STARTED = "started"
    CANCELLED = "cancelled"


FORMING_ONLY = text("status = 'forming'")


class Proposal(Base):
    """A game a player started (``services.lobby``), taking seats until it is full or its creator starts it with
    bots: then its ``Game`` is made. Until then nobody but those who joined hears of it, but by its invitations."""

    __tablename__ = "proposals"
    __table_args__ = (
        Index("ix_proposals_forming_fill_by", "fill_by", postgresql_where=FORMING_ONLY, sqlite_where=FORMING_ONLY),
        Index("ix_proposals_forming_listed", "listed", postgresql_where=FORMING_ONLY, sqlite_where=FORMING_ONLY),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    creator_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    title: Mapped[str] = mapped_column(String(120), default="")
    #: the number of seats, 3 to 6.
    seats: Mapped[int] = mapped_column(Integer)
    #: the engine's options (``engine.options``).
    options: Mapped[JSONObject] = mapped_column(JSONType, default=dict)
    #: a tempo preset's name (``services.presets.PRESETS``); null: the plain tempo.
    preset: Mapped[str | None] = mapped_column(String(20))
    #: the table's language (one of LANGUAGES): its invitations to people not known yet, and the lobby's filter.
    language: Mapped[str] = mapped_column(String(8), default="en")
    #: an IANA zone: the game's (deadlines avoid quiet hours there for people not known yet).
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    #: listed in the lobby of open games (anyone signed in may join); otherwise by invitation only.
    listed: Mapped[bool] = mapped_column(Boolean, default=False)
    #: not full by then: cancelled, with a mail to those who joined.
    fill_by: Mapped[datetime] = mapped_column(UTCDateTime)
    #: a ProposalStatus
    status: Mapped[str] = mapped_column(String(12), default=ProposalStatus.FORMING)
    #: the shareable invitation link carries this number: a new one revokes the links given before.
    link_generation: Mapped[int] = mapped_column(Integer, default=1)
    #: the game made when it started.
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    #: an incoming-webhook address for the game's public events (``services.channel``); null: none.
    webhook_url: Mapped[str | None] = mapped_column(String(1000))
    #: how long the game should take (``games.estimate_game`` at its creation: ``days_median``, ``days_p90``), shown
    #: in the lobby.
    estimate: Mapped[JSONObject | None] = mapped_column(JSONType)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class ProposalSeat(Base):
    """A player who took a seat of a forming game: its creator, an invited address that accepted, someone with its
    shareable link, or from the lobby."""

    __tablename__ = "proposal_seats"
    __table_args__ = (UniqueConstraint("proposal_id", "player_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    proposal_id: Mapped[int] = mapped_column(ForeignKey("proposals.id", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    #: "creator", "invited", "link" or "lobby"
    via: Mapped[str] = mapped_column(String(8))
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ProposalInvitation(Base):
    """An address invited to a forming game: one mail (its signed link names this row), answered once."""

    __tablename__ = "proposal_invitations"
    #: never an id twice: its outbox row's key and its signed link name it
    __table_args__ = (UniqueConstraint("proposal_id", "player_id"), {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(primary_key=True)
    proposal_id: Mapped[int] = mapped_column(ForeignKey("proposals.id", ondelete="CASCADE"))
    #: the invited address's player (a row made minimally for an address not known yet)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    #: asked for by the address itself with the game's shareable link (not counted as its creator's invitations)
    asked: Mapped[bool] = mapped_column(Boolean, default=False)
    #: "accepted", "declined" or "never" (declined, and never invite me again); null: not answered yet.
    answer: Mapped[str | None] = mapped_column(String(8))
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Channel(Base):
    """An incoming-webhook address (Discord, Slack or Matrix style: a JSON POST) where a league's or a game's public
    events are posted (``services.channel``). After ``channel.MAX_FAILURES`` failed posts in a row it is paused and
    its organiser told."""

    __tablename__ = "channels"

    id: Mapped[int] = mapped_column(primary_key=True)
    url: Mapped[str] = mapped_column(String(1000))
    #: whose events: a league's, or a single game's (set by its creator)
    league_id: Mapped[int | None] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"), index=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    #: paused after too many failures: nothing is posted until its organiser resumes it.
    paused_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ChannelPost(Base):
    """One public event to post to a channel, written in the transaction of the change it tells, sent once by the
    worker (the outbox discipline: claimed, retried with back-off)."""

    __tablename__ = "channel_posts"
    __table_args__ = (Index("ix_channel_posts_status_next", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    #: what it tells, once per channel (e.g. ``round:12:started``)
    key: Mapped[str] = mapped_column(String(160), unique=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"), index=True)
    #: the event's public facts, as the poster formats them
    payload: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    #: an OutboxStatus (pending, sending, sent, failed)
    status: Mapped[str] = mapped_column(String(12), default=OutboxStatus.PENDING)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


# --- leagues ---------------------------------------------------------------------------------------------------------


class SeasonStatus(StrEnum):
    """signup -> running -> over."""

    SIGNUP = "signup"
    RUNNING = "running"
    OVER = "over"


class EntryStatus(StrEnum):
    """A season player: pending (until the mailed link is followed) -> confirmed; withdrawn from either."""

    PENDING = "pending"
    CONFIRMED = "confirmed"
    WITHDRAWN = "withdrawn"


class League(Base):
    """Seasons of games played under the same rules (``services.leagues.seasons``)."""

    __tablename__ = "leagues"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    #: one of LANGUAGES: the league's pages and mails to people not yet known.
    language: Mapped[str] = mapped_column(String(8), default="en")
    #: an IANA time zone name: the zone of the seasons' fixed round starts.
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    #: the preferred number of players at a table (3 to 6).
    table_size: Mapped[int] = mapped_column(Integer, default=5, server_default="5")
    #: the engine's options of the league's games (``engine.options``), as ``games.options`` holds them.
    options: Mapped[JSONObject] = mapped_column(JSONType, default=dict)
    #: a tempo preset's name (``services.presets.PRESETS``); null: the plain tempo.
    preset: Mapped[str | None] = mapped_column(String(20))
    #: one of ``services.leagues.scoring.SYSTEMS``.
    scoring: Mapped[str] = mapped_column(String(20), default="placement")
    #: ``services.leagues.scoring.TIE_BREAKS`` in the order they apply.
    tie_breaks: Mapped[list[str]] = mapped_column(JSONType, default=list)
    #: one of ``services.leagues.scoring.FORFEITS``: how a seat ended on autopilot or by a substitute scores.
    forfeit: Mapped[str] = mapped_column(String(16), default="last")
    #: standings visible to anyone with the public link; else to the season's players only.
    standings_public: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: the invitation, organiser and public links carry these; raising one revokes every earlier link of its kind.
    invite_generation: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    organiser_generation: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    public_generation: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    #: where the league's mails to its organiser go (a round that cannot be seated); null: their page only.
    organiser_email: Mapped[str | None] = mapped_column(String(320))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Season(Base):
    """One season of a league: its sign-up period, rounds and their schedule."""

    __tablename__ = "seasons"
    __table_args__ = (UniqueConstraint("league_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    #: (no index of its own: the unique (league_id, number) serves a league's seasons)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"))
    #: 1, 2, … within the league.
    number: Mapped[int] = mapped_column(Integer)
    #: sign-ups are taken until this instant.
    signup_closes: Mapped[datetime] = mapped_column(UTCDateTime)
    rounds: Mapped[int] = mapped_column(Integer)
    #: "fixed": rounds start by ``schedule_rule``; "when_over": the next round starts when every table is over.
    schedule: Mapped[str] = mapped_column(String(16))
    #: for "fixed": {"weekday": 0 (Monday) … 6, "time": "HH:MM"} in the league's zone; null otherwise.
    schedule_rule: Mapped[ScheduleRuleJSON | None] = mapped_column(JSONType)
    #: a SeasonStatus
    status: Mapped[str] = mapped_column(String(12), default=SeasonStatus.SIGNUP)
    #: at most this many confirmed players; null: no limit.
    max_players: Mapped[int | None] = mapped_column(Integer)
    #: the number of divisions, by rating (``scoring.standings_by_division``); null: one table of standings.
    divisions: Mapped[int | None] = mapped_column(Integer)
    #: the top and bottom N of each division move up and down into the next season.
    promote: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: the season this one was created from (``promotion.next_season``); null: created on its own.
    previous_id: Mapped[int | None] = mapped_column(ForeignKey("seasons.id", ondelete="SET NULL"))
    #: raised whenever a result of the season is stored; the standings cache is fresh while it holds the same number.
    results_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: why the minute sweep could not seat the season's next round (``rounds.sweep``): ``{"round", "msgid",
    #: "params", "since"}``; the organiser is mailed once per stall and shown it; null once a round is seated.
    unseated: Mapped[StallJSON | None] = mapped_column(JSONType)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class SeasonPlayer(Base):
    """A player's entry in a season: pending until they follow the mailed link, then confirmed; or withdrawn."""

    __tablename__ = "season_players"
    __table_args__ = (UniqueConstraint("season_id", "player_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    #: (no index of its own: the unique (season_id, player_id) serves a season's players)
    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    #: an EntryStatus
    status: Mapped[str] = mapped_column(String(12), default=EntryStatus.PENDING)
    #: the player's division in this season; null: no divisions.
    division: Mapped[str | None] = mapped_column(String(40))
    #: the confirmation link carries this number; raising it (a resent mail) revokes the earlier links.
    confirm_generation: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    confirmed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    withdrawn_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: what the sign-up form gave (name, language, zone, quiet hours) while pending; applied to the player only
    #: when the address confirms (a stranger's sign-up changes nothing of a player); null once applied.
    applicant: Mapped[ApplicantJSON | None] = mapped_column(JSONType)
    #: the rounds (numbers) the player said they will miss; null: none.
    skips: Mapped[list[int] | None] = mapped_column(JSONType)
    #: addresses of people the player declared they know: never seated together in ranked play; null: none.
    knows: Mapped[list[str] | None] = mapped_column(JSONType)

    @classmethod
    def confirmed(cls, season_id: int) -> Select[SeasonPlayer]:
        """The query of a season's confirmed entries, by player id (seated, credited, counted against the limit)."""
        return (
            select(cls).where(cls.season_id == season_id, cls.status == EntryStatus.CONFIRMED).order_by(cls.player_id)
        )


class RoundStatus(StrEnum):
    """planned (its tables may be previewed and swapped) -> started (games created) -> over (every table over)."""

    PLANNED = "planned"
    STARTED = "started"
    OVER = "over"


class LeagueRound(Base):
    """One round of a season: its tables (a preview until started), then one game per table (``Game.round_id``)."""

    __tablename__ = "league_rounds"
    __table_args__ = (UniqueConstraint("season_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    #: a RoundStatus
    status: Mapped[str] = mapped_column(String(12), default=RoundStatus.PLANNED)
    #: when a fixed schedule starts it (UTC); null: when the organiser starts it or the last round is over.
    starts_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    #: the tables as player ids ([[3, 8, 1], …]): the preview while planned, the seating once started; null: none yet.
    tables: Mapped[list[list[int]] | None] = mapped_column(JSONType)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    over_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class LeagueResult(Base):
    """One seat's result in a finished (or organiser-recorded) game of a league round: what standings read."""

    __tablename__ = "league_results"
    __table_args__ = (UniqueConstraint("game_id", "colour"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id", ondelete="CASCADE"), index=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("league_rounds.id", ondelete="CASCADE"))
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    colour: Mapped[str] = mapped_column(String(8))
    #: who started the seat (null: a bot), how it ended (``scoring.Ending``), who finished it in their place.
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    ending: Mapped[str] = mapped_column(String(16), default="played")
    substitute_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    #: the engine's outcome for the colour: victory points, cards left in hand, whether it won.
    points: Mapped[int] = mapped_column(Integer)
    cards: Mapped[int] = mapped_column(Integer, default=0)
    winner: Mapped[bool] = mapped_column(Boolean, default=False)
    #: recorded by the organiser for an abandoned game (not by the engine).
    recorded: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime)


class SeasonStandings(Base):
    """The season's standings as last computed (``standings.standings``): fresh while ``version`` equals the season's
    ``results_version``."""

    __tablename__ = "season_standings"

    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)
    #: the tables' outline, as ``services.leagues.standings.store`` writes it; the rows themselves are
    #: ``SeasonStandingRow``s (a page reads one page of them).
    rows: Mapped[OutlineJSON] = mapped_column(JSONType)
    computed_at: Mapped[datetime] = mapped_column(UTCDateTime)


class SeasonStandingRow(Base):
    """One ranked row of a season's stored standings (``standings.store``): ``tab`` is its table (the divisions from the
    highest: 0, 1, …; the substitutes' appearances last), ``position`` its order in that table from 0."""

    __tablename__ = "season_standing_rows"
    __table_args__ = (Index("ix_season_standing_rows_season_id_player_id", "season_id", "player_id"),)

    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id", ondelete="CASCADE"), primary_key=True)
    tab: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    position: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    player_id: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(80))
    rank: Mapped[int] = mapped_column(Integer)
    games: Mapped[int] = mapped_column(Integer)
    points: Mapped[float] = mapped_column(Float)
    wins: Mapped[int] = mapped_column(Integer)
    #: null: none of the player's games has victory points (results recorded as rankings).
    victory_points: Mapped[int | None] = mapped_column(Integer, nullable=True)
    average_place: Mapped[float | None] = mapped_column(Float, nullable=True)
    division: Mapped[str | None] = mapped_column(String(40), nullable=True)


class RatingRow(Base):
    """A person's rating in one scope: a league (its id) or all games (scope 0); updated as each game ends."""

    __tablename__ = "ratings"
    __table_args__ = (UniqueConstraint("player_id", "scope"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    #: a league's id, or 0 for all games.
    scope: Mapped[int] = mapped_column(Integer)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class RatingPoint(Base):
    """A person's rating in one scope right after one of their games: the history."""

    __tablename__ = "rating_points"
    __table_args__ = (UniqueConstraint("player_id", "scope", "game_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    scope: Mapped[int] = mapped_column(Integer)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime)
