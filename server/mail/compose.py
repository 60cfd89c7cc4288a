"""The mails: one outbox row -> one translated mail (plain text and HTML with inlined CSS), a composer per kind.

Every seat section is what ``present.seat`` shows that seat (built from ``engine.view``, the one redaction), plus
its links; subjects and opening sentences are in templates/mail/words.txt, the bodies in templates/mail/.

Stale notifications: a mail always tells the *current* situation when it is composed (what happened since the
seat's last mail, and the decision owed now). A ``turn``/``update`` row whose window is no longer the open one is
skipped (None) when a newer notification to the same seat is still to be sent: that one tells everything. A mail
with nothing to tell (no new event, no decision, no outcome) is skipped too.

``Seat.told_events`` (how many events of its own view a seat was told) is moved on only once the mail is sent:
``compose`` returns what it told with the message (:class:`Mail`), and ``send.send_one`` records it after the
transport accepted the mail.

Message-IDs: a row's mail has the same Message-ID at every attempt (``message_id``), so a copy sent again after a
failure is the same mail to a client. A seat's mails form one thread: the first one's Message-ID is the seat's
``thread_root`` and later ones refer to it; which row starts the thread is decided by the rows alone.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from email import policy
from email.header import Header
from email.headerregistry import Address, BaseHeader, HeaderRegistry, UniqueUnstructuredHeader
from email.message import EmailMessage
from email.utils import formatdate, parseaddr
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import css_inline
from sqlalchemy import func, select
from sqlalchemy.orm import Session, joinedload

from ..config import Settings
from ..db import Database
from ..models import (
    ChatMessage,
    EntryStatus,
    Game,
    GameStatus,
    InboundMail,
    Invitation,
    League,
    LeagueRound,
    MailKind,
    Outbox,
    Player,
    RequestRow,
    Season,
    SeasonPlayer,
    Seat,
    Window,
    WindowStatus,
    utcnow,
)
from ..present import board
from ..present import league as league_shown
from ..present import standings as shown_standings
from ..present.absences import moment_shown
from ..present.chat import channel_title, mail_sections
from ..present.seat import SeatShown, cap, game_label, seat_shown, standing_answer_lines
from ..services.attendance import substitutes
from ..services.errors import ShownError
from ..services.inputs import one_line
from ..services.leagues import promotion, standings
from ..services.links import confirm_token, league_token, organiser_token, player_token, seat_token
from ..services.mailflow import outbox, reminders, reply_address
from ..services.play import autopilot, chat, standing_answers
from ..services.play.policy import after_of
from ..services.play.seats import Shared, answer_in, open_request, seat_state, still_deciding
from ..text import i18n
from ..text.glossary import colour_name
from ..text.refusals import refusal
from ..text.sentences import describe_answer

log = logging.getLogger("deadmail.mail")

#: the longest user-given text (a name, a reply's sender or command) put into a mail.
MAX_USER_TEXT = 80


@dataclass(frozen=True)
class Links:
    base_url: str
    seat_token: str

    @property
    def seat(self) -> str:
        return f"{self.base_url}/s/{self.seat_token}"

    def one_tap(self, window: int, command: str) -> str:
        return f"{self.seat}/do?" + urlencode({"w": window, "c": command}, quote_via=quote)

    @property
    def replay(self) -> str:
        """The finished game's replay (server/web/replay.py), every secret revealed."""
        return f"{self.seat}/replay"

    @property
    def back(self) -> str:
        """The confirm page of "I'm back" (it ends the seat's autopilot)."""
        return f"{self.seat}/back"

    def standing_off(self, key: str) -> str:
        """The confirm page that turns one standing answer off for the seat's game."""
        return f"{self.seat}/standing/off?" + urlencode({"k": key}, quote_via=quote)


@dataclass
class Mail:
    """A composed mail, and what it tells: recorded on the seats once it is sent."""

    message: EmailMessage
    #: seat id -> how many events of its view the seat has been told, with this mail.
    told: dict[int, int] = field(default_factory=dict)
    #: seat id -> the last table-talk message told.
    chat: dict[int, int] = field(default_factory=dict)


@dataclass
class Draft:
    """A mail being built: its sections, what it tells and its thread."""

    variant: str = ""
    #: the values of the subject and intro (templates/mail/words.txt).
    words: dict[str, Any] = field(default_factory=dict)
    sections: list[dict[str, Any]] = field(default_factory=list)
    told: dict[int, int] = field(default_factory=dict)
    #: (seat id, window number, link generation) of each decision listed.
    replies: list[tuple[int, int, int]] = field(default_factory=list)
    #: (game id, seat id) of each seat the mail speaks about.
    seats: list[tuple[int, int]] = field(default_factory=list)
    #: paragraphs after the intro, and links to follow ({"text", "url"}), for mails that are not about a seat.
    notes: list[str] = field(default_factory=list)
    actions: list[dict[str, str]] = field(default_factory=list)
    chat: dict[int, int] = field(default_factory=dict)
    #: the name the mail greets, when not the player's own (a sign-up greets the name typed in its form).
    greeting: str = ""


#: a seat with its game, and the table's seats and players.
TABLE = joinedload(Seat.game).selectinload(Game.seats).joinedload(Seat.player)


class Batch:
    """Outbox rows composed together in one transaction (``compose_batch``): what their mails read is loaded for all
    of them in a few queries (the rows and their readers, the seats with their tables, the games' open windows with
    their requests, absences, the seats' first thread rows), and each table's public parts are built once. Every
    mail is still built from its own reader's view (``seat_state``, ``engine.view``)."""

    def __init__(self, session: Session, ids: list[int], now: datetime) -> None:
        query = select(Outbox).where(Outbox.id.in_(ids)).options(joinedload(Outbox.player))
        self.rows = {row.id: row for row in session.execute(query).scalars()}
        seat_ids = {row.seat_id for row in self.rows.values() if row.seat_id is not None}
        query_seats = select(Seat).where(Seat.id.in_(seat_ids)).options(TABLE)
        self.seats = {seat.id: seat for seat in session.execute(query_seats).scalars()} if seat_ids else {}
        games = {seat.game_id: seat.game for seat in self.seats.values()}
        windows = session.execute(
            select(Window).where(Window.game_id.in_(list(games)), Window.status == WindowStatus.OPEN)
        ).scalars()
        self.windows: dict[int, Window | None] = dict.fromkeys(games)
        self.windows.update((window.game_id, window) for window in windows)
        requests: dict[int, list[RequestRow]] = {w.id: [] for w in self.windows.values() if w is not None}
        if requests:
            for request in session.execute(
                select(RequestRow)
                .where(RequestRow.window_id.in_(requests))
                .order_by(RequestRow.window_id, RequestRow.position)
                .options(joinedload(RequestRow.seat, innerjoin=True).joinedload(Seat.player))
            ).scalars():
                requests[request.window_id].append(request)
        people = (s.player_id for game in games.values() for s in game.seats if s.bot is None and s.player_id)
        away = autopilot.away_until(session, people, now)
        self.requests = requests
        self.shared: dict[int, Shared] = {}
        for game_id, game in games.items():
            window = self.windows[game_id]
            owed = still_deciding(session, window, None if window is None else requests[window.id])
            self.shared[game_id] = Shared(owed, autopilot.table(session, game, now, away))
        #: (game id, seat id) -> the id of the seat's first row of a ``THREAD_STARTERS`` kind (None: none)
        self.first: dict[tuple[int, int], int | None] = {(s.game_id, s.id): None for s in self.seats.values()}
        if seat_ids:
            firsts = session.execute(
                select(Outbox.game_id, Outbox.seat_id, func.min(Outbox.id))
                .where(
                    Outbox.game_id.in_({game_id for game_id, _ in self.first}),  # through its index, not a scan
                    Outbox.seat_id.in_(seat_ids),
                    Outbox.kind.in_(outbox.THREAD_STARTERS),
                )
                .group_by(Outbox.game_id, Outbox.seat_id)
            )
            for of_game, of_seat, first in firsts:
                assert of_game is not None and of_seat is not None  # seat_id given: a seat's game
                self.first[of_game, of_seat] = first

    def opened(self, seat: Seat) -> tuple[Window | None, RequestRow | None] | None:
        """The seat's ``open_request``, when its game was loaded (else None: read it)."""
        if seat.game_id not in self.windows:
            return None
        window = self.windows[seat.game_id]
        if window is None:
            return None, None
        return window, next((r for r in self.requests[window.id] if r.seat_id == seat.id), None)


class Composer:
    def __init__(
        self,
        session: Session,
        settings: Settings,
        player: Player,
        now: datetime,
        lang: str | None,
        batch: Batch,
    ) -> None:
        self.session = session
        #: the rows composed together, and what they share.
        self.batch = batch
        self.settings = settings
        self.player = player
        self.now = now
        #: ``lang``: a row's own language (a mail to an address not yet confirmed: the sign-up form's, the league's)
        self.lang = i18n.language(lang or player.language)
        self.t = i18n.translations(self.lang)
        #: the player's preferences page (also the mail's List-Unsubscribe).
        self.prefs_url = f"{settings.base_url}/p/{player_token(settings.secret_key, player.id, player.link_generation)}"
        #: seat id -> its ``open_request`` read a moment ago in this transaction (the notice's staleness check)
        self.opened: dict[int, tuple[Window | None, RequestRow | None]] = {}

    def links(self, seat: Seat) -> Links:
        token = seat_token(self.settings.secret_key, seat.id, seat.link_generation)
        return Links(self.settings.base_url, token)

    def section(
        self,
        draft: Draft,
        seat: Seat,
        *,
        events: bool = True,
        with_board: bool = True,
        only_window: int | None = None,
        always: bool = False,
    ) -> dict[str, Any] | None:
        """The seat's current situation; None when there is nothing to tell (or, with ``only_window``, when the
        seat owes nothing in that window any more). ``always``: even with nothing new (a link mail). Never for a
        seat its reader no longer plays (replaced: the mail would carry the seat's new link)."""
        if seat.player_id != self.player.id:
            return None
        opened = self.opened.pop(seat.id, None) or self.open_request(seat)
        shared = self.batch.shared.get(seat.game_id) if opened is not None else None
        state = seat_state(self.session, seat, self.now, opened, shared)
        window = state["window"]
        owes = window is not None and window["request"] is not None and window["number"] == only_window
        if only_window is not None and not owes:
            return None
        seen = len(state["view"]["events"])
        told = (seat.told_events or 0) if events else seen  # without events: no history to tell (nor to build)
        shown = seat_shown(self.lang, state, self.now, told=told)
        if not always and not shown.history and shown.decision is None and shown.outcome is None:
            return None
        links = self.links(seat)
        ctx = _section(self.lang, shown, links, with_board)
        if seat.game.status == GameStatus.RUNNING:  # the seat's own standing answers, with a way to turn each off
            lines = standing_answer_lines(self.lang, standing_answers.shown_settings(seat))
            ctx["standing_answers"] = [{**line, "off_url": links.standing_off(line["key"])} for line in lines]
        if events:
            draft.told[seat.id] = max(told, seen)
        if shown.decision is not None:
            draft.replies.append((seat.id, shown.decision.window, seat.link_generation))
        draft.seats.append((seat.game_id, seat.id))
        draft.sections.append(ctx)
        return ctx

    def open_request(self, seat: Seat) -> tuple[Window | None, RequestRow | None] | None:
        """The seat's ``open_request`` as the batch read it (None for a game not in it)."""
        return self.batch.opened(seat)

    # -- each kind: fills the draft, or None when nothing is left to tell --

    def notice(self, row: Outbox, seat: Seat) -> Draft | None:
        """turn, update, game_over: the seat's current situation."""
        opened = self.open_request(seat) or open_request(self.session, seat.game_id, seat.id)
        window, _mine = self.opened[seat.id] = opened
        stale = row.kind != MailKind.GAME_OVER and (window is None or window.number != row.payload.get("window"))
        if stale and outbox.covered(self.session, row):
            return None
        if row.payload.get("unless_answered") and answer_in(self.session, seat, row.payload.get("window")):
            return None  # a turn mail of a session of play hours: answered on the page meanwhile
        draft = Draft()
        ctx = self.section(draft, seat)
        if ctx is None:
            return None
        draft.words = {"label": ctx["label"], "round": ctx["round_title"]}
        if ctx["outcome"] is not None:
            draft.variant = "over"
            draft.words["winners"] = ctx["outcome"]["winners"]
        else:
            draft.variant = "decision" if ctx["decision"] is not None else "update"
        return draft

    def last_call(self, row: Outbox, seat: Seat) -> Draft | None:
        """Everyone else has answered the window, or (``absent``) the player was not at the session of play hours
        when its deadline passed and the game waits for them until the next one: a short mail with the decision,
        unless it was answered since."""
        number = row.payload.get("window")
        if answer_in(self.session, seat, number) is not None:
            return None
        draft = Draft("absent" if row.payload.get("absent") else "last_call")
        ctx = self.section(draft, seat, events=False, with_board=False, only_window=number)
        if ctx is None:
            return None
        draft.words = {"label": ctx["label"]}
        return draft

    def session_soon(self, row: Outbox, seat: Seat) -> Draft | None:
        """A session of the game's play hours starts soon: when, in the reader's own time, and the seat's link."""
        start = datetime.fromisoformat(str(row.payload.get("start")))
        if seat.player_id != self.player.id or seat.game.status != GameStatus.RUNNING or start <= self.now:
            return None
        when, relative = i18n.format_when(start, self.now, self.player.timezone, self.lang)
        label = game_label(self.lang, seat.game_id, seat.game.title)
        draft = Draft("session", {"label": label, "start": when, "relative": relative})
        draft.actions.append({"text": self.t.gettext("Open your page in the game"), "url": self.links(seat).seat})
        draft.seats.append((seat.game_id, seat.id))
        return draft

    def autopilot(self, row: Outbox, seat: Seat) -> Draft | None:
        """The seat went on autopilot after missed deadlines: the one-tap "I'm back" and the seat's situation;
        nothing once the player is back (or the seat has changed hands)."""
        if seat.autopilot_at is None:
            return None
        draft = Draft("autopilot")
        ctx = self.section(draft, seat, events=False, with_board=False, always=True)
        if ctx is None:
            return None
        draft.words = {"label": ctx["label"], "missed": int(row.payload.get("missed") or 2)}
        draft.actions.append({"text": self.t.gettext("I'm back"), "url": self.links(seat).back})
        return draft

    def table(self, row: Outbox, seat: Seat) -> Draft | None:
        """Another seat of the table went on autopilot, or is back (public: the table sees who it waits for)."""
        status = row.payload.get("status")
        colour = str(row.payload.get("colour") or "")
        if seat.player_id != self.player.id or status not in ("autopilot", "back", "new") or not colour:
            return None
        label = game_label(self.lang, seat.game_id, seat.game.title)
        draft = Draft(f"table_{status}", {"label": label, "colour": colour_name(self.lang, colour)})
        draft.actions.append({"text": self.t.gettext("Open your page in the game"), "url": self.links(seat).seat})
        draft.seats.append((seat.game_id, seat.id))
        return draft

    def link(self, row: Outbox, seat: Seat) -> Draft | None:
        """The seat's link, resent by the organiser (or for a new player of the seat), with its situation now."""
        draft = Draft("link")
        ctx = self.section(draft, seat, always=True)
        if ctx is None:
            return None
        draft.words = {"label": ctx["label"]}
        return draft

    def reply(self, row: Outbox, seat: Seat) -> Draft:
        """The answer to a reply by mail: applied, error, closed, wrong_sender or chat_error; standing (answers set);
        away (an absence declared), back ("I'm back"), refused (either refused: why)."""
        result = str(row.payload.get("result"))
        command = cap(row.payload.get("command", ""), 120)
        draft = Draft(result, {"label": game_label(self.lang, seat.game.id, seat.game.title), "command": command})
        if result == "wrong_sender":
            inbound = self.session.get(InboundMail, row.payload.get("inbound") or 0)
            draft.words["sender"] = cap(inbound.sender if inbound else "?", MAX_USER_TEXT)
        elif result == "chat_error":
            draft.words["refusal"] = refusal(chat.ChatError(str(row.payload.get("command") or "")), self.lang)
            draft.notes.append(
                self.t.gettext(
                    "Your reply to the table talk was not posted. You can write again, or use your game page."
                )
            )
        elif result == "applied":
            draft.words["meaning"] = self._applied_meaning(seat, row.payload.get("window")) or command
        elif result == "standing":  # the section lists the standing answers now in force
            self.section(draft, seat, events=False, with_board=False, always=True)
            return draft
        elif result == "away":
            for key in ("from", "to"):  # days in the player's zone (the last day away, not the midnight after it)
                moment = datetime.fromisoformat(str(row.payload.get(key)))
                draft.words[key] = moment_shown(moment, self.player.timezone, self.lang, end=key == "to")
        elif result == "back":
            draft.words["autopilot"] = bool(row.payload.get("autopilot"))
        elif result == "refused":
            said = row.payload.get("refusal") or {}
            params: dict[str, Any] = said["params"] if isinstance(said.get("params"), dict) else {}
            draft.words["refusal"] = refusal(ShownError(str(said.get("msgid") or "?"), **params), self.lang)
        else:
            draft.variant = result if result == "closed" else "error"
        self.section(draft, seat, events=False, with_board=False, always=result == "chat_error")
        return draft

    def _applied_meaning(self, seat: Seat, window_number: Any) -> str | None:
        found = answer_in(self.session, seat, window_number)
        return None if found is None else describe_answer(self.lang, *found)

    def organiser(self, row: Outbox) -> Draft | None:
        """The organiser's link to a game they created (player-level row, ``game_id`` set); with ``{"about":
        "autopilot", "colour"}``: that seat went on autopilot, with a one-tap way to offer it to a substitute."""
        game = self.session.get(Game, row.game_id or 0)
        if game is None:
            return None
        label = game_label(self.lang, game.id, game.title)
        url = f"{self.settings.base_url}/o/link/{organiser_token(self.settings.secret_key, game.id)}"
        if row.payload.get("about") == "autopilot":
            return self._autopilot_organiser(row, game, label, url)
        draft = Draft("organiser", {"label": label})
        draft.notes.append(
            self.t.gettext(
                "With this link you can follow the game, extend a deadline, pause and resume it, resend a "
                "player's link, replace a player or end the game. Keep it to yourself: it needs no password."
            )
        )
        draft.actions.append({"text": self.t.gettext("Open the organiser page of the game"), "url": url})
        return draft

    def _autopilot_organiser(self, row: Outbox, game: Game, label: str, url: str) -> Draft | None:
        colour = str(row.payload.get("colour") or "")
        if game.status != GameStatus.RUNNING or colour not in {seat.colour for seat in game.seats}:
            return None
        missed = row.payload.get("missed")
        count = missed if isinstance(missed, int) and missed > 0 else max(after_of(game.tempo), 1)
        name = colour_name(self.lang, colour)
        draft = Draft("organiser_autopilot", {"label": label, "colour": name, "count": count})
        draft.notes.append(
            self.t.gettext(
                "You can offer the seat to a substitute: whoever accepts your invitation takes it over with "
                "everything the seat may know, and its player is told."
            )
        )
        offer = f"{url}?" + urlencode({"offer": colour}, quote_via=quote)
        text = self.t.gettext("Offer the %(colour)s seat to a substitute") % {"colour": name}
        draft.actions.append({"text": text, "url": offer})
        draft.actions.append({"text": self.t.gettext("Open the organiser page of the game"), "url": url})
        return draft

    def invitation(self, row: Outbox) -> Draft | None:
        """A seat offered to this person: the invitation's link, while it can still be accepted."""
        invitation = self.session.get(Invitation, row.payload.get("invitation") or 0)
        seat = None if invitation is None else self.session.get(Seat, invitation.seat_id)
        if invitation is None or seat is None:
            return None
        try:
            substitutes.check(invitation, seat, seat.game)
        except substitutes.InvitationError:
            return None
        label = game_label(self.lang, seat.game_id, seat.game.title)
        draft = Draft("invitation", {"label": label, "colour": colour_name(self.lang, seat.colour)})
        url = f"{self.settings.base_url}/i/{invitation.key}"
        draft.actions.append({"text": self.t.gettext("See the offer and take the seat"), "url": url})
        return draft

    def league_confirm(self, row: Outbox) -> Draft | None:
        """A sign-up to a league season, to confirm by its link; skipped once it is not pending any more."""
        entry = self.session.get(SeasonPlayer, row.payload.get("entry") or 0)
        season = None if entry is None else self.session.get(Season, entry.season_id)
        if entry is None or season is None or entry.status != EntryStatus.PENDING:
            return None
        league = self.session.get(League, season.league_id)
        assert league is not None
        words = {"league": cap(one_line(league.name), MAX_USER_TEXT), "season": season.number}
        draft = Draft("league_confirm", words)
        draft.greeting = str((entry.applicant or {}).get("name") or "")  # (the row's name may be empty or another)
        draft.notes.append(
            self.t.gettext("If you did not sign up, ignore this mail: nobody takes part without confirming.")
        )
        token = confirm_token(self.settings.secret_key, entry.id, entry.confirm_generation)
        url = f"{self.settings.base_url}/l/confirm/{token}"
        draft.actions.append({"text": self.t.gettext("Confirm your sign-up"), "url": url})
        return draft

    def league_fixtures(self, row: Outbox) -> Draft | None:
        """A league round's table (``services.leagues.rounds``): opponents and their zones, the tempo, the estimate and
        the link to the seat; skipped once the seat is not the reader's any more."""
        seat = self.session.get(Seat, row.payload.get("seat") or 0)
        if seat is None or seat.player_id != self.player.id:
            return None
        game = seat.game
        label = game_label(self.lang, game.id, game.title)
        draft = Draft("league_fixtures", {"label": label, "colour": colour_name(self.lang, seat.colour)})
        league_round = self.session.get(LeagueRound, row.payload.get("round") or 0)
        season = None if league_round is None else self.session.get(Season, league_round.season_id)
        if league_round is not None and season is not None:
            where = {"season": season.number, "round": league_round.number, "table": row.payload.get("table") or 1}
            draft.notes.append(self.t.gettext("Season %(season)s, round %(round)s, table %(table)s.") % where)
        opponents = [
            league_shown.opponent_line(
                self.lang, cap(one_line(s.player.display_name), MAX_USER_TEXT), s.player.timezone or "UTC", self.now
            )
            for s in game.seats
            if s.player is not None and s.id != seat.id
        ]
        draft.notes += [self.t.gettext("At your table:"), *opponents]
        draft.notes.append(league_shown.tempo_text(self.lang, game.tempo))
        draft.notes.append(league_shown.estimate_text(self.lang, dict(row.payload.get("estimate") or {})))
        url = f"{self.settings.base_url}/s/{seat_token(self.settings.secret_key, seat.id, seat.link_generation)}"
        draft.actions.append({"text": self.t.gettext("Open your seat"), "url": url})
        return draft

    def _season(self, season_id: Any) -> tuple[Season, dict[str, Any]] | None:
        season = self.session.get(Season, season_id or 0)
        league = None if season is None else self.session.get(League, season.league_id)
        if season is None or league is None:
            return None
        return season, {"league": cap(one_line(league.name), MAX_USER_TEXT), "season": season.number}

    def _standings_link(self, draft: Draft, season: Season) -> None:
        url = f"{self.prefs_url}/season/{season.id}"
        draft.actions.append({"text": self.t.gettext("See the standings and every game of the season"), "url": url})

    def league_results(self, row: Outbox) -> Draft | None:
        """A round of a league season is over: the reader's games of the round, then the standings."""
        league_round = self.session.get(LeagueRound, row.payload.get("round") or 0)
        found = None if league_round is None else self._season(league_round.season_id)
        if league_round is None or found is None:
            return None
        season, words = found
        draft = Draft("league_results", {**words, "round": league_round.number})
        games = standings.round_games(self.session, league_round.id, self.player.id)
        draft.notes += shown_standings.round_lines(self.lang, games)
        draft.notes += shown_standings.lines(self.lang, standings.standings_in(self.session, season.id, self.now))
        self._standings_link(draft, season)
        return draft

    def season_end(self, row: Outbox) -> Draft | None:
        """The season is over: the reader's final place, their division next season, the final standings."""
        found = self._season(row.payload.get("season"))
        if found is None:
            return None
        season, words = found
        table = standings.standings_in(self.session, season.id, self.now)
        mine = shown_standings.row_of(table, self.player.id)
        draft = Draft("season_end", words)
        if mine is not None:
            place = {"rank": mine["rank"], "points": shown_standings.number(self.lang, mine["points"])}
            said = self.t.ngettext(
                "You finished in place %(rank)s with %(points)s league point.",
                "You finished in place %(rank)s with %(points)s league points.",
                shown_standings.plural_of(mine["points"]),
            )
            draft.notes.append(said % place)
        moved = promotion.promoted_and_relegated(season, table).get(self.player.id)
        if moved is not None and mine is not None:
            up = int(moved) < int(mine["division"] or 0)
            text = self.t.gettext("Promoted: next season you play in division %(name)s.")
            if not up:
                text = self.t.gettext("Relegated: next season you play in division %(name)s.")
            draft.notes.append(text % {"name": moved})
        draft.notes += shown_standings.lines(self.lang, table)
        self._standings_link(draft, season)
        return draft

    def league_invite(self, row: Outbox) -> Draft | None:
        """An invitation to a league: its current invitation link (a revoked one is never mailed)."""
        league = self.session.get(League, row.payload.get("league") or 0)
        if league is None:
            return None
        draft = Draft("league_invite", {"league": cap(one_line(league.name), MAX_USER_TEXT)})
        draft.notes.append(self.t.gettext("If you do not want to play, ignore this mail: nothing happens without you."))
        token = league_token(self.settings.secret_key, "invite", league.id, league.invite_generation)
        url = f"{self.settings.base_url}/l/{token}"
        draft.actions.append({"text": self.t.gettext("See the league and sign up"), "url": url})
        return draft

    def round_unseated(self, row: Outbox) -> Draft | None:
        """To the league's organiser: the season's next round could not be seated, and why, with the season's page
        (``rounds.sweep``); skipped once a round was seated after all."""
        found = self._season(row.payload.get("season"))
        if found is None or found[0].unseated is None:
            return None
        season, words = found
        stall = season.unseated or {}
        draft = Draft("round_unseated", {**words, "round": stall.get("round") or 1})
        reason = ShownError(str(stall.get("msgid") or ""), **dict(stall.get("params") or {}))
        draft.notes.append(refusal(reason, self.lang))
        draft.notes.append(
            self.t.gettext(
                "The round starts by itself as soon as it can be seated (a player confirms, comes back or stops "
                "skipping it); you may also change the season on its page."
            )
        )
        league = self.session.get(League, season.league_id)
        assert league is not None
        token = league_token(self.settings.secret_key, "organiser", league.id, league.organiser_generation)
        url = f"{self.settings.base_url}/lo/{token}/season/{season.id}"
        draft.actions.append({"text": self.t.gettext("Open the season's page"), "url": url})
        return draft

    def substituted(self, row: Outbox) -> Draft | None:
        """A substitute took over the reader's seat: who, and thanks (no link: the seat is no longer theirs)."""
        game = self.session.get(Game, row.game_id or 0)
        newcomer = self.session.get(Player, row.payload.get("by") or 0)
        if game is None or newcomer is None:
            return None
        words = {
            "label": game_label(self.lang, game.id, game.title),
            "colour": colour_name(self.lang, str(row.payload.get("colour") or "")),
            "name": cap(one_line(newcomer.display_name), MAX_USER_TEXT),
        }
        draft = Draft("substituted", words)
        draft.notes.append(self.t.gettext("The links of your earlier mails about this seat no longer work."))
        return draft

    def reminder(self, row: Outbox) -> Draft | None:
        draft = Draft("reminder")
        for item in reminders.still_owed(self.session, list(row.payload.get("items") or [])):
            seat = self.session.get(Seat, item["seat"])
            if seat is not None:
                self.section(draft, seat, events=False, with_board=False, only_window=item["window"])
        if not draft.sections:
            return None
        draft.words = {"label": draft.sections[0]["label"], "count": len(draft.sections)}
        return draft

    def digest(self, row: Outbox) -> Draft | None:
        held = _merged(self.session, row)
        draft = Draft("digest")
        done: set[int] = set()
        chatty = {item.seat_id for item in held if item.kind == MailKind.CHAT}
        for item in held:
            if item.seat_id is None or item.seat_id in done or item.player_id != self.player.id:
                continue
            done.add(item.seat_id)
            seat = self.session.get(Seat, item.seat_id)
            if seat is None:
                continue
            talk = self._chat(seat) if seat.id in chatty else None
            ctx = self.section(draft, seat, always=talk is not None)
            if ctx is not None and talk is not None:
                ctx["chat"], draft.chat[seat.id] = talk
        if not draft.sections:
            return None
        draft.words = {"count": len(draft.sections)}
        return draft

    def _unread(self, seat: Seat) -> tuple[list[chat.Channel], list[ChatMessage]] | None:
        """The seat's unread table talk, and in it the messages of the other colours; None when there are none (told
        by an earlier mail, or the seat's player left)."""
        if seat.player_id != self.player.id:
            return None
        unread = chat.unread(self.session, seat)
        news = [m for c in unread for m in c.messages if m.colour != seat.colour]
        return (unread, news) if news else None

    def _chat(self, seat: Seat) -> tuple[list[dict[str, Any]], int] | None:
        """The seat's unread table talk for a digest: (sections by channel, the last message id); None when there
        is nothing from another colour to tell."""
        found = self._unread(seat)
        if found is None:
            return None
        unread, _news = found
        return mail_sections(self.lang, unread, seat.colour, self.player.timezone), max(c.last for c in unread)

    def chat(self, row: Outbox, seat: Seat) -> Mail | None:
        """The table-talk mail of a ``chat`` row; None when the seat has no unread message from another colour."""
        found = self._unread(seat)
        if found is None:
            return None
        unread, news = found
        latest = max(news, key=lambda m: m.id)
        channel = next(c for c in unread if c.id == latest.channel_id)
        links = self.links(seat)
        label = game_label(self.lang, seat.game_id, seat.game.title)
        words = words_of(self.lang, "chat", {"label": label, "count": len(news)})
        ctx = {
            "name": cap(self.player.display_name, MAX_USER_TEXT),
            "subject": words.subject,
            "label": label,
            "colour_name": colour_name(self.lang, seat.colour),
            "sections": mail_sections(self.lang, unread, seat.colour, self.player.timezone),
            "reply_to": channel_title(self.lang, channel.key, seat.colour) if self.settings.reply_domain else None,
            "max_lines": chat.MAX_LINES,
            "seat_url": links.seat,
            "prefs_url": self.prefs_url,
        }
        reply_to = None
        if self.settings.reply_domain:
            assert channel.id is not None
            reply_to = reply_address.make_chat(
                self.settings.secret_key, self.settings.reply_domain, seat.id, channel.id, seat.link_generation
            )
        message = envelope(self, row, "mail/chat", ctx, reply_to)
        _thread(message, seat.game_id, seat.id, _host(self.settings))
        return Mail(message, chat={seat.id: max(c.last for c in unread)})


def _merged(session: Session, row: Outbox) -> list[Outbox]:
    """The held rows a digest row merges, in the order they were written."""
    return outbox.rows(session, [int(i) for i in row.payload.get("rows") or [] if isinstance(i, int)])


def _section(lang: str, shown: SeatShown, links: Links, with_board: bool) -> dict[str, Any]:
    """A seat's section of a mail, as templates/mail/notice.* read it."""
    decision = shown.decision
    return {
        "label": shown.label,
        "colour": shown.colour,
        "colour_name": shown.colour_name,
        "round": shown.round,
        "round_title": shown.round_title,
        "rounds": [{"round": r.round, "title": r.title, "lines": r.lines} for r in shown.history],
        "decision": None
        if decision is None
        else {
            "window": decision.window,
            "text": decision.text,
            "commands": [
                {"line": c.command, "url": links.one_tap(decision.window, c.command)} for c in decision.choices
            ],
            "hints": decision.hints,
            "deadline": decision.deadline,
            "relative": decision.relative,
            "answer": decision.answer,
        },
        "hand": shown.hand,
        "dice": shown.dice,
        "truck": None if decision is None else decision.truck,
        "board": board.table(lang, shown.view) if with_board else None,
        "outcome": None
        if shown.outcome is None
        else {
            "winners": ", ".join(shown.outcome.winners),
            "won": shown.outcome.won,
            "standings": shown.outcome.standings,
            "tiebreak": shown.outcome.tiebreak,
            "replay_url": links.replay,
        },
        "seat_url": links.seat,
    }


# --- the envelope -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Words:
    subject: str
    intro: str


def words_of(lang: str, variant: str, values: dict[str, Any]) -> Words:
    """The subject and intro of a mail (templates/mail/words.txt)."""
    module = i18n.environment(lang).get_template("mail/words.txt").module
    return Words(str(module.subject(variant, values)).strip(), str(module.intro(variant, values)).strip())  # type: ignore[attr-defined]


def _host(settings: Settings) -> str:
    address = parseaddr(settings.mail_from)[1]
    if "@" in address:
        return address.rsplit("@", 1)[1].strip().lower() or "deadmail"
    return urlsplit(settings.base_url).hostname or "deadmail"


def thread_root(game_id: int, seat_id: int, host: str) -> str:
    """The Message-ID of a seat's first mail: every later mail of the seat points at it (one thread per game)."""
    return f"<deadmail.game-{game_id}.seat-{seat_id}@{host}>"


def _thread(message: EmailMessage, game_id: int, seat_id: int, host: str) -> None:
    """A mail about one seat joins the seat's thread (unless it is the mail that starts it)."""
    root = thread_root(game_id, seat_id, host)
    if message["Message-ID"] != root:
        message["In-Reply-To"] = root
        message["References"] = root


def message_id(session: Session, settings: Settings, row: Outbox, batch: Batch) -> str:
    """The Message-ID of the row's mail, the same at every attempt (a copy sent again after a failure is the same
    mail to a client): the seat's thread root for the row that starts the thread, else a keyed digest of the row,
    which tells nothing about the game."""
    host = _host(settings)
    starts = _starts_thread(session, row, batch)
    if starts is not None:
        return thread_root(*starts, host)
    digest = hmac.new(settings.secret_key.encode(), f"deadmail.outbox:{row.id}:{row.key}".encode(), hashlib.sha256)
    return f"<{digest.hexdigest()[:32]}@{host}>"


def _starts_thread(session: Session, row: Outbox, batch: Batch) -> tuple[int, int] | None:
    """(game id, seat id) when the row's mail starts that seat's thread: it is (or, a digest, merges) the seat's first
    row of a ``THREAD_STARTERS`` kind. Decided by the rows alone, never by what was sent before: every attempt gets
    the same Message-ID, and no two rows share one. (When that first row is never sent, nothing on the seat's thread
    carries the root's Message-ID; clients still group the mails that refer to it.)"""
    if row.kind != MailKind.DIGEST and row.kind not in outbox.THREAD_STARTERS:
        return None  # a table-talk mail, a reply's answer, a reminder: never a thread's first
    merged = _merged(session, row) if row.kind == MailKind.DIGEST else [row]
    seats = {(r.game_id, r.seat_id) for r in merged if r.seat_id is not None and r.game_id is not None}
    if len(seats) != 1:
        return None
    ((game_id, seat_id),) = seats
    if (game_id, seat_id) in batch.first:  # else a digest's seat, not one of the batch's rows
        first = batch.first[game_id, seat_id]
    else:
        first = session.execute(
            select(func.min(Outbox.id)).where(
                Outbox.game_id == game_id, Outbox.seat_id == seat_id, Outbox.kind.in_(outbox.THREAD_STARTERS)
            )
        ).scalar()
    return (game_id, seat_id) if any(r.id == first for r in merged) else None


class _Subject(UniqueUnstructuredHeader, BaseHeader):  # type: ignore[misc]  # (typeshed: max_count)
    """The Subject, folded into whole encoded words (RFC 2047) when it does not fit one line as plain ASCII: the
    standard folding leaves a space before a fold next to an encoded word, or puts the one space between two encoded
    words, so a long Italian or Polish subject read back had two spaces, or none, where it had one."""

    def fold(self, *, policy: Any) -> str:
        text = str(self)
        if text.isascii() and len(self.name) + 2 + len(text) <= policy.max_line_length:
            return str(super().fold(policy=policy))
        encoded = Header(text, "utf-8", header_name=self.name).encode(
            linesep=policy.linesep, maxlinelen=policy.max_line_length
        )
        return f"{self.name}: {encoded}{policy.linesep}"


class _Headers(HeaderRegistry):
    """The standard header classes, each made once (``HeaderRegistry`` makes a new class at every header set), and
    the headers last parsed, each kept for the next mail that sets the same value (a header is an immutable string:
    the From, the MIME headers, the Content-Language and a reader's To are then parsed once, not at every mail)."""

    #: at most this many parsed headers are kept (then all are forgotten at once).
    KEEP = 512

    def __init__(self) -> None:
        super().__init__()
        self.map_to_type("subject", _Subject)
        self._made: dict[str, type[BaseHeader]] = {}
        self._parsed: dict[tuple[str, object], BaseHeader] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        made = self._made.get(name)
        if made is None:
            made = self._made[name] = super().__getitem__(name)
        return made

    def __call__(self, name: str, value: Any) -> BaseHeader:
        if isinstance(value, Address):  # a To: keyed by its parts (an Address is not hashable)
            key: tuple[str, object] = (name, (value.display_name, value.username, value.domain))
        elif type(value) is str:
            key = (name, value)
        else:
            return super().__call__(name, value)
        parsed = self._parsed.get(key)
        if parsed is None:
            if len(self._parsed) >= self.KEEP:
                self._parsed.clear()
            parsed = self._parsed[key] = super().__call__(name, value)
        return parsed


#: the mails' policy: the standard one (``email.policy.default``), its header classes made once.
POLICY = policy.default.clone(header_factory=_Headers())


def recipient(player: Player) -> Address:
    """The To of a mail to ``player``: their address, and their name on one line as its display name only (built as
    an ``Address``, never as a string to parse: a name can neither become nor add an address)."""
    local, _, domain = player.email.rpartition("@")
    return Address(display_name=cap(one_line(player.display_name), MAX_USER_TEXT), username=local, domain=domain)


def envelope(composer: Composer, row: Outbox, template: str, ctx: dict[str, Any], reply_to: str | None) -> EmailMessage:
    """A mail to the composer's player: ``template``.txt and .html rendered with ``ctx`` (its "subject" included),
    the headers every deadmail mail carries, and ``reply_to`` when replying to it does something."""
    settings, player, lang = composer.settings, composer.player, composer.lang
    text = i18n.render(f"{template}.txt", lang, **ctx)
    html = css_inline.inline(i18n.render(f"{template}.html", lang, **ctx), load_remote_stylesheets=False)
    message = EmailMessage(POLICY)
    message["From"] = settings.mail_from
    message["To"] = recipient(player)
    message["Subject"] = cap(ctx["subject"], 200)
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = message_id(composer.session, settings, row, composer.batch)
    if reply_to:
        message["Reply-To"] = reply_to
    message["Auto-Submitted"] = "auto-generated"
    message["List-Unsubscribe"] = f"<{composer.prefs_url}>"
    message.set_content(text)
    message.add_alternative(html, subtype="html")
    message["Content-Language"] = lang  # after the content: set_content clears the Content-* headers
    return message


def _notice_mail(composer: Composer, row: Outbox, draft: Draft) -> Mail:
    settings = composer.settings
    words = words_of(composer.lang, draft.variant, draft.words)
    ctx = {
        "kind": row.kind,
        "name": cap(one_line(draft.greeting) or composer.player.display_name, MAX_USER_TEXT),
        "intro": words.intro,
        "sections": draft.sections,
        "notes": draft.notes,
        "actions": draft.actions,
        "prefs_url": composer.prefs_url,
        "subject": words.subject,
        #: one decision: replying to this mail answers it (the reply address is the seat's and window's)
        "can_reply": len(draft.replies) == 1,
    }
    reply_to = None
    if settings.reply_domain and len(draft.replies) == 1:
        seat_id, window, generation = draft.replies[0]
        reply_to = reply_address.make(settings.secret_key, settings.reply_domain, seat_id, window, generation)
    message = envelope(composer, row, "mail/notice", ctx, reply_to)
    if len(draft.seats) == 1:
        _thread(message, *draft.seats[0], _host(settings))
    return Mail(message, dict(draft.told), dict(draft.chat))


_SEAT_KINDS: dict[str, Callable[[Composer, Outbox, Seat], Draft | None]] = {
    MailKind.TURN: Composer.notice,
    MailKind.UPDATE: Composer.notice,
    MailKind.GAME_OVER: Composer.notice,
    MailKind.REPLY: Composer.reply,
    MailKind.LINK: Composer.link,
    MailKind.LAST_CALL: Composer.last_call,
    MailKind.SESSION: Composer.session_soon,
    MailKind.AUTOPILOT: Composer.autopilot,
    MailKind.TABLE: Composer.table,
}
_PLAYER_KINDS: dict[str, Callable[[Composer, Outbox], Draft | None]] = {
    MailKind.REMINDER: Composer.reminder,
    MailKind.DIGEST: Composer.digest,
    MailKind.ORGANISER: Composer.organiser,
    MailKind.INVITATION: Composer.invitation,
    MailKind.SUBSTITUTED: Composer.substituted,
    MailKind.LEAGUE_CONFIRM: Composer.league_confirm,
    MailKind.LEAGUE_FIXTURES: Composer.league_fixtures,
    MailKind.LEAGUE_RESULTS: Composer.league_results,
    MailKind.SEASON_END: Composer.season_end,
    MailKind.LEAGUE_INVITE: Composer.league_invite,
    MailKind.ROUND_UNSEATED: Composer.round_unseated,
}


def compose(db: Database, row_id: int, settings: Settings, now: datetime | None = None) -> Mail | None:
    """The mail for one outbox row, or None when nothing is left to tell (the row is then skipped)."""
    ((_row_id, mail),) = compose_batch(db, [row_id], settings, now)
    if isinstance(mail, Exception):
        raise mail
    return mail


def compose_batch(
    db: Database, ids: list[int], settings: Settings, now: datetime | None = None
) -> list[tuple[int, Mail | Exception | None]]:
    """The mails of the first rows of ``ids`` (at least one), composed in order in one transaction (``Batch``): each
    row's mail, None (nothing left to tell), or the exception composing it raised (a bug, or the database: it ends
    the list). The list also ends before a mail telling a seat what an earlier mail of the list tells it too
    (``Mail.told``, ``Mail.chat``): that one is composed again once the earlier mails are sent and recorded, from what
    they told, as when each mail was composed just before it was sent."""
    now = now or utcnow()
    composed: list[tuple[int, Mail | Exception | None]] = []
    touched: set[int] = set()
    try:
        with db.session() as session:
            batch = Batch(session, ids, now)
            for row_id in ids:
                try:
                    mail = _compose_row(session, settings, batch, row_id, now)
                except Exception as exc:  # the row fails (``send._send``); the transaction may be lost: stop here
                    composed.append((row_id, exc))
                    break
                told = set() if mail is None else {*mail.told, *mail.chat}
                if told & touched:
                    break
                touched |= told
                composed.append((row_id, mail))
    except Exception as exc:  # the rows could not be read (or the transaction ended badly): the first row fails
        if not composed:
            return [(ids[0], exc)]
    return composed


def _compose_row(session: Session, settings: Settings, batch: Batch, row_id: int, now: datetime) -> Mail | None:
    row = batch.rows.get(row_id)
    if row is None:
        return None
    lang = row.payload.get("lang") if isinstance(row.payload.get("lang"), str) else None
    composer = Composer(session, settings, row.player, now, lang, batch)
    seat = batch.seats.get(row.seat_id) if row.seat_id else None
    draft: Draft | None = None
    if row.kind == MailKind.CHAT:
        return None if seat is None else composer.chat(row, seat)
    if row.kind in _SEAT_KINDS and seat is not None:
        draft = _SEAT_KINDS[row.kind](composer, row, seat)
    elif row.kind in _PLAYER_KINDS:
        draft = _PLAYER_KINDS[row.kind](composer, row)
    else:
        log.warning("outbox %s: cannot compose a %r mail", row.id, row.kind)
    return None if draft is None else _notice_mail(composer, row, draft)


__all__ = ["Batch", "Composer", "Links", "Mail", "compose", "compose_batch", "envelope", "message_id", "thread_root"]
