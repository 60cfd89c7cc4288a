"""The notification mails: one outbox row -> one translated mail (plain text and HTML with inlined CSS).

Every seat section is built only from ``engine.view(game, colour)``, the seat's own request row of the open
window, the events the seat may see (``Event.visible_to``) and the player's preferences (``mail_context``).

Stale notifications: a mail always tells the *current* situation when it is composed (what happened since the
seat's last mail, and the decision owed now). A ``turn``/``update`` row whose window is no longer the open one
is skipped (None) when a newer notification to the same seat is waiting (pending, sending or held): that one
tells everything. A mail with nothing to tell (no new event, no decision, no outcome) is skipped too.

``Seat.mailed_seq`` is advanced only once the mail is sent: ``compose`` records what it told on the message
(``told``) and ``outbox.send_one`` calls ``record_sent`` after the transport accepted it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode, urlsplit

import css_inline
from sqlalchemy import select, update
from sqlalchemy.orm import Session

import engine
from engine.data import CAPACITY, CHARACTERS, LOCATIONS

from .. import i18n, narrate
from ..board import letters as type_letters
from ..commands import commands_for, hints_for
from ..db import Database
from ..models import Event, Game, InboundMail, Outbox, Player, RequestRow, Seat, Window, utcnow
from . import reply_address
from .games import CACHE
from .links import player_token, seat_token
from .seats import open_request

if TYPE_CHECKING:
    from .outbox import MailSettings

log = logging.getLogger("deadmail.mails")

#: the longest user-given text (a game title, a reply's sender or command) put into a mail.
MAX_USER_TEXT = 80
#: kinds told by a seat's own notification; a newer one of these to the same seat covers an older one.
NOTICES = ("turn", "update", "game_over")
WAITING = ("pending", "sending", "held")


def _cap(text: object, limit: int = MAX_USER_TEXT) -> str:
    """User text for a mail: one line, at most ``limit`` characters (autoescaping does the rest in HTML)."""
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# --- what one seat is told ---------------------------------------------------------------------------------------


@dataclass
class SeatState:
    """What a seat's section is built from, loaded from the database."""

    seat: Seat
    game: Game
    view: dict[str, Any]
    window: Window | None
    #: the seat's own request row of the open window.
    mine: RequestRow | None
    #: events after ``Seat.mailed_seq`` the seat may see, as (round, event dict).
    events: list[tuple[int, dict[str, Any]]]
    #: the last event seq looked at (told, or not visible to the seat); None when the game has no new event.
    last_seq: int | None


def load_state(session: Session, seat: Seat, with_events: bool = True) -> SeatState:
    game = seat.game
    eng = CACHE.get(game)
    view = engine.view(eng, seat.colour)
    window, mine = open_request(session, game.id, seat.id)
    events: list[tuple[int, dict[str, Any]]] = []
    last_seq = None
    if with_events:
        after = -1 if seat.mailed_seq is None else seat.mailed_seq
        rows = session.execute(
            select(Event).where(Event.game_id == game.id, Event.seq > after).order_by(Event.seq)
        ).scalars()
        for ev in rows:
            last_seq = ev.seq
            if ev.visible_to is None or seat.colour in ev.visible_to:
                events.append((ev.round, {"type": ev.type, **ev.data}))
    return SeatState(seat, game, view, window, mine, events, last_seq)


@dataclass(frozen=True)
class Links:
    base_url: str
    seat_token: str
    player_token: str

    @property
    def seat(self) -> str:
        return f"{self.base_url}/s/{self.seat_token}"

    @property
    def prefs(self) -> str:
        return f"{self.base_url}/p/{self.player_token}"

    def one_tap(self, window: int, command: str) -> str:
        return f"{self.seat}/do?" + urlencode({"w": window, "c": command}, quote_via=quote)


def game_label(lang: str, game_id: int, title: str) -> str:
    t = i18n.translations(lang)
    label = t.gettext("Mall of Horror, game %(number)s") % {"number": game_id}
    return f"{label} ({_cap(title, 60)})" if title.strip() else label


def _place(lang: str, loc: Any) -> str:
    return f"{narrate.location_name(lang, int(loc))} ({int(loc)})"


def describe_answer(lang: str, request: dict[str, Any], answer: Any) -> str:
    """What an answer means, in words (``You are about to: …``, ``We understood: …``)."""
    t = i18n.translations(lang)
    kind = request.get("kind")
    if kind == "vote":
        return t.gettext("vote for %(colour)s") % {"colour": narrate.colour_name(lang, answer)}
    if kind in ("announce", "destination"):
        return t.gettext("go to %(location)s") % {"location": _place(lang, answer)}
    if kind == "zombie":
        return t.gettext("put your zombie at %(location)s") % {"location": _place(lang, answer)}
    if kind == "victim":
        return t.gettext("give up your %(character)s") % {"character": narrate.character_name(lang, answer)}
    if kind == "place" and isinstance(answer, dict):
        text = t.gettext("place your %(character)s at %(location)s") % {
            "character": narrate.character_name(lang, answer["character"]),
            "location": _place(lang, answer["location"]),
        }
        if answer.get("fallback") is not None:
            text += " " + t.gettext("(or at %(location)s if it is full)") % {
                "location": _place(lang, answer["fallback"])
            }
        return text
    if kind == "move" and isinstance(answer, dict):
        text = t.gettext("move your %(character)s") % {"character": narrate.character_name(lang, answer["character"])}
        if answer.get("sprint") is not None:
            sprint = (
                t.gettext("and play Sprint to %(location)s only if the destination is full or closed")
                if answer.get("sprint_if_full")
                else t.gettext("and play Sprint to %(location)s")
            )
            text += " " + sprint % {"location": _place(lang, answer["sprint"])}
        return text
    if kind == "truck" and isinstance(answer, dict):
        if answer.get("give") is None:
            return t.gettext("keep %(card)s") % {"card": narrate.card_name(lang, answer["keep"])}
        return t.gettext("keep %(keep)s and give %(give)s to %(colour)s") % {
            "keep": narrate.card_name(lang, answer["keep"]),
            "give": narrate.card_name(lang, answer["give"]),
            "colour": narrate.colour_name(lang, answer["to"]),
        }
    if kind == "cards" and isinstance(answer, list):
        if not answer:
            return t.gettext("play no card")
        plays = []
        for play in answer:
            words = narrate.card_name(lang, play["card"])
            if play.get("character"):
                words += f" ({narrate.character_name(lang, play['character'])}"
                words += f", {_place(lang, play['location'])})" if play.get("location") else ")"
            if play.get("if_needed"):
                words += " " + t.gettext("(only if needed)")
            plays.append(words)
        return t.gettext("play %(cards)s") % {"cards": ", ".join(plays)}
    return _cap(answer, 200)


def board(lang: str, view: dict[str, Any]) -> dict[str, Any]:
    """The compact table of the mall, from the view: location, capacity, zombies, closed, characters, Chief."""
    letters = type_letters(lang)
    hidden = {tuple(pair) for pair in view.get("hidden") or []}
    closed = set(view.get("closed") or [])
    rows = []
    for loc in LOCATIONS:
        people = []
        for colour in view.get("players") or []:
            mine = (view.get("characters") or {}).get(colour) or {}
            here = [c for c in CHARACTERS if mine.get(c) == loc]
            if here:
                marks = "".join(letters[c] + ("*" if (colour, c) in hidden else "") for c in here)
                people.append(f"{narrate.colour_name(lang, colour)} {marks}")
        rows.append(
            {
                "number": loc,
                "name": narrate.location_name(lang, loc),
                "capacity": "–" if CAPACITY[loc] is None else str(CAPACITY[loc]),
                "zombies": (view.get("zombies") or {}).get(str(loc), 0),
                "closed": loc in closed,
                "people": ", ".join(people),
            }
        )
    legend = ", ".join(f"{letters[c]} = {narrate.character_name(lang, c)}" for c in CHARACTERS)
    chief = view.get("chief")
    return {
        "rows": rows,
        "legend": legend,
        "chief": narrate.colour_name(lang, chief) if chief else None,
        "chief_elected": bool(view.get("chief_elected")),
    }


@dataclass
class Decision:
    window: int
    text: str
    commands: list[dict[str, str]]
    hints: list[str]
    deadline: str
    relative: str
    answer: str | None


def decision(
    lang: str,
    view: dict[str, Any],
    request: dict[str, Any],
    answer: Any,
    answered: bool,
    window: int,
    deadline: datetime,
    now: datetime,
    tz: str,
    links: Links,
) -> Decision:
    lines = commands_for(request, view, lang)
    absolute, relative = i18n.format_when(deadline, now, tz, lang)
    return Decision(
        window=window,
        text=narrate.request_text(lang, request),
        commands=[{"line": line, "url": links.one_tap(window, line)} for line in lines],
        hints=hints_for(request, view, lang),
        deadline=absolute,
        relative=relative,
        answer=describe_answer(lang, request, answer) if answered else None,
    )


def mail_context(
    lang: str,
    tz: str,
    now: datetime,
    view: dict[str, Any],
    label: str,
    links: Links,
    *,
    request: dict[str, Any] | None = None,
    answer: Any = None,
    answered: bool = False,
    window: int | None = None,
    deadline: datetime | None = None,
    events: list[tuple[int, dict[str, Any]]] | None = None,
    with_board: bool = True,
) -> dict[str, Any]:
    """One seat's section: built only from the seat's view, its own request and answer, and its visible events."""
    t = i18n.translations(lang)
    colour = view["you"]
    rounds: list[dict[str, Any]] = []
    for number, event in events or []:
        line = narrate.event_text(lang, event, colour)
        if not line:
            continue
        if not rounds or rounds[-1]["round"] != number:
            rounds.append({"round": number, "title": _round_title(t, number), "lines": []})
        rounds[-1]["lines"].append(line)
    owed = None
    if request is not None and window is not None and deadline is not None:
        owed = decision(lang, view, request, answer, answered, window, deadline, now, tz, links)
    truck = None
    if request is not None and request.get("kind") == "truck":
        truck = [narrate.card_entry(lang, c) for c in request.get("cards") or []]
    outcome = None
    if view.get("outcome"):
        result = view["outcome"]
        scores = result.get("scores") or {}
        outcome = {
            "winners": ", ".join(narrate.colour_name(lang, c) for c in result.get("winners") or []),
            "scores": [
                {"name": narrate.colour_name(lang, c), "score": scores[c]} for c in view["players"] if c in scores
            ],
            "won": colour in (result.get("winners") or []),
        }
    return {
        "label": label,
        "colour": colour,
        "colour_name": narrate.colour_name(lang, colour),
        "round": view.get("round"),
        "round_title": _round_title(t, int(view.get("round") or 0)),
        "rounds": rounds,
        "decision": owed,
        "hand": [narrate.card_entry(lang, c) for c in view.get("hand") or []],
        "dice": None if view.get("dice") is None else [int(v) for v in view["dice"]],
        "truck": truck,
        "board": board(lang, view) if with_board else None,
        "outcome": outcome,
        "seat_url": links.seat,
    }


def _round_title(t: Any, number: int) -> str:
    return t.gettext("Setting up") if not number else t.gettext("Round %(number)s") % {"number": number}


# --- composing ---------------------------------------------------------------------------------------------------


@dataclass
class Draft:
    """A mail being built: its sections, what it tells (for ``mailed_seq``) and its thread."""

    lang: str
    sections: list[dict[str, Any]] = field(default_factory=list)
    #: seat id -> last event seq told, recorded on the seat once the mail is sent.
    told: dict[int, int] = field(default_factory=dict)
    #: (seat id, window number, link generation) of each decision listed.
    replies: list[tuple[int, int, int]] = field(default_factory=list)
    #: (game id, seat id, the seat had a mail before) of each seat the mail speaks about.
    seats: list[tuple[int, int, bool]] = field(default_factory=list)
    #: paragraphs after the intro, and links to follow ({"text", "url"}), for mails that are not about a seat.
    notes: list[str] = field(default_factory=list)
    actions: list[dict[str, str]] = field(default_factory=list)
    #: seat id -> the last chat message told (a digest holding table talk), recorded once the mail is sent.
    chat: dict[int, int] = field(default_factory=dict)


class Composer:
    def __init__(self, session: Session, settings: MailSettings, player: Player, now: datetime) -> None:
        self.session = session
        self.settings = settings
        self.player = player
        self.now = now
        self.lang = i18n.language(player.language)
        self.t = i18n.translations(self.lang)
        self.ptoken = player_token(settings.secret_key, player.id)

    def links(self, seat: Seat) -> Links:
        token = seat_token(self.settings.secret_key, seat.id, seat.link_generation)
        return Links(self.settings.base_url, token, self.ptoken)

    def section(
        self,
        draft: Draft,
        seat: Seat,
        *,
        events: bool = True,
        board_: bool = True,
        only_window: int | None = None,
        always: bool = False,
    ) -> dict[str, Any] | None:
        """The seat's current situation; None when there is nothing to tell (or, with ``only_window``, when the
        seat owes nothing in that window any more). ``always``: even with nothing new (a link mail). Never for a
        seat its reader no longer plays (replaced: the mail would carry the seat's new link)."""
        if seat.player_id != self.player.id:
            return None
        state = load_state(self.session, seat, with_events=events)
        mine, window = state.mine, state.window
        if only_window is not None and (mine is None or window is None or window.number != only_window):
            return None
        ctx = mail_context(
            self.lang,
            self.player.timezone,
            self.now,
            state.view,
            game_label(self.lang, state.game.id, state.game.title),
            self.links(seat),
            request=None if mine is None else mine.payload,
            answer=None if mine is None else mine.answer,
            answered=mine is not None and mine.answered_at is not None,
            window=None if window is None else window.number,
            deadline=None if window is None else window.deadline,
            events=state.events,
            with_board=board_,
        )
        if not always and not ctx["rounds"] and ctx["decision"] is None and ctx["outcome"] is None:
            return None
        if events:
            floor = -1 if seat.mailed_seq is None else seat.mailed_seq
            draft.told[seat.id] = max(floor, state.last_seq if state.last_seq is not None else floor)
        if ctx["decision"] is not None and window is not None:
            draft.replies.append((seat.id, window.number, seat.link_generation))
        draft.seats.append((state.game.id, seat.id, seat.mailed_seq is not None))
        draft.sections.append(ctx)
        return ctx

    # -- each kind --

    def notice(self, row: Outbox, seat: Seat) -> tuple[Draft, str, str] | None:
        """turn, update, game_over: the seat's current situation."""
        game = seat.game
        window = self.session.execute(
            select(Window).where(Window.game_id == game.id, Window.status == "open")
        ).scalar_one_or_none()
        stale = row.kind != "game_over" and (window is None or window.number != row.payload.get("window"))
        if stale and self._covered(row):
            return None
        draft = Draft(self.lang)
        ctx = self.section(draft, seat)
        if ctx is None:
            return None
        label = ctx["label"]
        t = self.t
        if ctx["outcome"] is not None:
            subject = t.gettext("%(game)s: the game is over") % {"game": label}
            intro = t.gettext("The game is over. Winners: %(winners)s.") % {"winners": ctx["outcome"]["winners"]}
        elif ctx["decision"] is not None:
            subject = t.gettext("%(game)s: your decision (%(round)s)") % {"game": label, "round": ctx["round_title"]}
            intro = t.gettext("It is your turn.")
        else:
            subject = t.gettext("%(game)s: what happened (%(round)s)") % {"game": label, "round": ctx["round_title"]}
            intro = t.gettext("Here is what happened. You have nothing to decide now.")
        return draft, subject, intro

    def link(self, row: Outbox, seat: Seat) -> tuple[Draft, str, str] | None:
        """The seat's link, resent by the organiser (or for a new player of the seat), with its situation now."""
        draft = Draft(self.lang)
        ctx = self.section(draft, seat, always=True)
        if ctx is None:
            return None
        subject = self.t.gettext("%(game)s: the link to your seat") % {"game": ctx["label"]}
        intro = self.t.gettext(
            "The organiser sent you the link to your seat in this game: open it to see the game and decide."
        )
        return draft, subject, intro

    def _covered(self, row: Outbox) -> bool:
        newer = self.session.execute(
            select(Outbox.id).where(
                Outbox.seat_id == row.seat_id,
                Outbox.id > row.id,
                Outbox.kind.in_(NOTICES),
                Outbox.status.in_(WAITING),
            )
        ).first()
        return newer is not None

    def reply(self, row: Outbox, seat: Seat) -> tuple[Draft, str, str]:
        """The answer to a reply by mail: applied, error, closed or wrong_sender."""
        t = self.t
        result = row.payload.get("result")
        command = _cap(row.payload.get("command", ""), 120)
        label = game_label(self.lang, seat.game.id, seat.game.title)
        draft = Draft(self.lang)
        if result == "wrong_sender":
            inbound = self.session.get(InboundMail, row.payload.get("inbound") or 0)
            sender = _cap(inbound.sender if inbound else "?", 80)
            subject = t.gettext("%(game)s: a reply from another address") % {"game": label}
            intro = t.gettext(
                "Someone replied to a mail of your seat from %(sender)s, which is not your address. "
                "Nothing was changed. If it was you, reply from the address this mail was sent to."
            ) % {"sender": sender}
            self.section(draft, seat, events=False, board_=False)
            return draft, subject, intro
        if result == "chat_error":
            from .chat import ChatError

            subject = t.gettext("%(game)s: your message was not posted") % {"game": label}
            intro = ChatError(str(row.payload.get("command") or "")).text(self.lang)
            draft.notes.append(
                t.gettext("Your reply to the table talk was not posted. You can write again, or use your game page.")
            )
            self.section(draft, seat, events=False, board_=False, always=True)
            return draft, subject, intro
        if result == "applied":
            subject = t.gettext("%(game)s: your answer is saved") % {"game": label}
            meaning = self._applied_meaning(seat, row.payload.get("window"))
            intro = t.gettext("We read your reply as “%(command)s”: %(meaning)s.") % {
                "command": command,
                "meaning": meaning or command,
            }
            intro += " " + t.gettext("You may change it until the deadline by replying again with another line.")
        elif result == "closed":
            subject = t.gettext("%(game)s: your reply came too late") % {"game": label}
            intro = t.gettext(
                "Your reply (“%(command)s”) answers a decision that is already closed: the game has moved on and "
                "nothing was changed."
            ) % {"command": command}
        else:
            subject = t.gettext("%(game)s: your reply was not understood") % {"game": label}
            if command:
                intro = t.gettext("“%(command)s” is not a reply you can make now. Nothing was changed.") % {
                    "command": command
                }
            else:
                intro = t.gettext("No command was found in your reply. Nothing was changed.")
        self.section(draft, seat, events=False, board_=False)
        return draft, subject, intro

    def _chat(self, seat: Seat) -> tuple[list[dict[str, Any]], int] | None:
        """The seat's unread table talk for a digest: (sections by channel, the last message id); None when there
        is nothing from another colour to tell."""
        from .chat import MAX_LINES, channel_title, stamp, unread

        if seat.player_id != self.player.id:
            return None
        groups = unread(self.session, seat)
        if not any(m.colour != seat.colour for g in groups for m in g.messages):
            return None
        sections = [
            {
                "title": channel_title(self.lang, g.channel.key, seat.colour),
                "messages": [
                    {
                        "colour_name": narrate.colour_name(self.lang, m.colour),
                        "when": stamp(m.created_at, self.player.timezone, self.lang),
                        "lines": m.text.split("\n")[:MAX_LINES],
                    }
                    for m in g.messages
                ],
            }
            for g in groups
        ]
        return sections, max(m.id for g in groups for m in g.messages)

    def organiser(self, row: Outbox) -> tuple[Draft, str, str] | None:
        """The organiser's link to a game they created (player-level row, ``game_id`` set)."""
        from .links import organiser_token

        game = self.session.get(Game, row.game_id or 0)
        if game is None:
            return None
        t = self.t
        label = game_label(self.lang, game.id, game.title)
        draft = Draft(self.lang)
        url = f"{self.settings.base_url}/o/link/{organiser_token(self.settings.secret_key, game.id)}"
        draft.notes.append(
            t.gettext(
                "With this link you can follow the game, extend a deadline, pause and resume it, resend a "
                "player's link, replace a player or end the game. Keep it to yourself: it needs no password."
            )
        )
        draft.actions.append({"text": t.gettext("Open the organiser page of the game"), "url": url})
        subject = t.gettext("%(game)s: your organiser link") % {"game": label}
        intro = t.gettext("You created %(game)s.") % {"game": label}
        return draft, subject, intro

    def _applied_meaning(self, seat: Seat, window_number: Any) -> str | None:
        row = self.session.execute(
            select(RequestRow)
            .join(Window, Window.id == RequestRow.window_id)
            .where(RequestRow.seat_id == seat.id, Window.game_id == seat.game_id, Window.number == window_number)
        ).scalar_one_or_none()
        if row is None or row.answered_at is None:
            return None
        return describe_answer(self.lang, row.payload, row.answer)

    def reminder(self, row: Outbox) -> tuple[Draft, str, str] | None:
        from .reminders import still_owed

        items = still_owed(self.session, list(row.payload.get("items") or []))
        draft = Draft(self.lang)
        for item in items:
            seat = self.session.get(Seat, item["seat"])
            if seat is None or seat.player_id != self.player.id:
                continue
            self.section(draft, seat, events=False, board_=False, only_window=item["window"])
        if not draft.sections:
            return None
        t = self.t
        count = len(draft.sections)
        if count == 1:
            subject = t.gettext("Reminder: %(game)s, your decision") % {"game": draft.sections[0]["label"]}
        else:
            subject = t.ngettext(
                "Reminder: %(num)d decision is waiting for you",
                "Reminder: %(num)d decisions are waiting for you",
                count,
            ) % {"num": count}
        intro = t.ngettext(
            "A reminder: this decision is still waiting for you.",
            "A reminder: these decisions are still waiting for you.",
            count,
        )
        return draft, subject, intro

    def digest(self, row: Outbox) -> tuple[Draft, str, str] | None:
        ids = [int(i) for i in row.payload.get("rows") or [] if isinstance(i, int)]
        held = list(self.session.execute(select(Outbox).where(Outbox.id.in_(ids)).order_by(Outbox.id)).scalars())
        draft = Draft(self.lang)
        done: set[int] = set()
        chatty = {item.seat_id for item in held if item.kind == "chat"}
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
        t = self.t
        count = len(draft.sections)
        subject = t.ngettext("Your digest: news from %(num)d game", "Your digest: news from %(num)d games", count) % {
            "num": count
        }
        intro = t.gettext("Here is what happened in your games since your last mail.")
        return draft, subject, intro


def _host(settings: MailSettings) -> str:
    address = parseaddr(settings.mail_from)[1]
    if "@" in address:
        return address.rsplit("@", 1)[1].strip().lower() or "deadmail"
    return urlsplit(settings.base_url).hostname or "deadmail"


def thread_root(game_id: int, seat_id: int, host: str) -> str:
    """The Message-ID of a seat's first mail: every later mail of the seat points at it (one thread per game)."""
    return f"<deadmail.game-{game_id}.seat-{seat_id}@{host}>"


def compose(db: Database, row_id: int, settings: MailSettings, now: datetime | None = None) -> EmailMessage | None:
    """The mail for one outbox row, or None when nothing is left to tell (the row is then skipped)."""
    now = now or utcnow()
    with db.session() as session:
        row = session.get(Outbox, row_id)
        if row is None:
            return None
        composer = Composer(session, settings, row.player, now)
        seat = session.get(Seat, row.seat_id) if row.seat_id else None
        if row.kind == "chat":  # table talk: its own mail (server/services/chat.py)
            from .chat import compose_chat

            return compose_chat(composer, row, seat)
        built: tuple[Draft, str, str] | None
        if row.kind in NOTICES and seat is not None:
            built = composer.notice(row, seat)
        elif row.kind == "reply" and seat is not None:
            built = composer.reply(row, seat)
        elif row.kind == "link" and seat is not None:
            built = composer.link(row, seat)
        elif row.kind == "reminder":
            built = composer.reminder(row)
        elif row.kind == "digest":
            built = composer.digest(row)
        elif row.kind == "organiser":
            built = composer.organiser(row)
        else:
            log.warning("outbox %s: cannot compose a %r mail", row.id, row.kind)
            built = None
        if built is None:
            return None
        draft, subject, intro = built
        return _message(composer, row, draft, subject, intro)


def _message(composer: Composer, row: Outbox, draft: Draft, subject: str, intro: str) -> EmailMessage:
    settings, player, lang = composer.settings, composer.player, composer.lang
    ctx = {
        "kind": row.kind,
        "name": _cap(player.display_name, 80),
        "intro": intro,
        "sections": draft.sections,
        "notes": draft.notes,
        "actions": draft.actions,
        "prefs_url": f"{settings.base_url}/p/{composer.ptoken}",
        "subject": subject,
        #: one decision: replying to this mail answers it (the reply address is the seat's and window's)
        "can_reply": len(draft.replies) == 1,
    }
    text = i18n.render("mail/notice.txt", lang, **ctx)
    html = css_inline.inline(i18n.render("mail/notice.html", lang, **ctx), load_remote_stylesheets=False)
    host = _host(settings)
    msg = EmailMessage()
    msg["From"] = settings.mail_from
    msg["To"] = f'"{_cap(player.display_name, 80).replace(chr(34), "")}" <{player.email}>'
    msg["Subject"] = _cap(subject, 200)
    msg["Date"] = formatdate(localtime=False)
    msg["Message-ID"] = make_msgid(idstring=f"deadmail.{row.key.replace(':', '.')}", domain=host)
    if len(draft.seats) == 1:
        game_id, seat_id, had_mail = draft.seats[0]
        root = thread_root(game_id, seat_id, host)
        if not had_mail and seat_id in draft.told:
            msg.replace_header("Message-ID", root)
        else:
            msg["In-Reply-To"] = root
            msg["References"] = root
    if settings.reply_domain and len(draft.replies) == 1:
        seat_id, window, generation = draft.replies[0]
        msg["Reply-To"] = reply_address.make(settings.secret_key, settings.reply_domain, seat_id, window, generation)
    msg["Auto-Submitted"] = "auto-generated"
    msg["List-Unsubscribe"] = f"<{ctx['prefs_url']}>"
    msg.set_content(text)
    msg.add_alternative(html, subtype="html")
    msg["Content-Language"] = lang  # after the content: set_content clears the Content-* headers
    msg.deadmail_told = dict(draft.told)  # type: ignore[attr-defined]
    if draft.chat:
        msg.deadmail_chat = dict(draft.chat)  # type: ignore[attr-defined]
    return msg


def told(message: EmailMessage) -> dict[int, int]:
    """seat id -> the last event seq this mail told (empty for mails that tell no events)."""
    return dict(getattr(message, "deadmail_told", {}) or {})


def record_sent(session: Session, message: EmailMessage) -> None:
    """After a successful send: the seats told by this mail will not be told the same events again."""
    for seat_id, seq in told(message).items():
        session.execute(
            update(Seat)
            .where(Seat.id == seat_id, (Seat.mailed_seq.is_(None)) | (Seat.mailed_seq < seq))
            .values(mailed_seq=seq)
        )
    for seat_id, last in (getattr(message, "deadmail_chat", {}) or {}).items():  # chat mails: Seat.chat_mailed_id
        session.execute(
            update(Seat)
            .where(Seat.id == seat_id, (Seat.chat_mailed_id.is_(None)) | (Seat.chat_mailed_id < last))
            .values(chat_mailed_id=last)
        )
