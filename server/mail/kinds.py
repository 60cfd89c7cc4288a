"""Each kind of mail about a game: a ``Composer`` fills a ``Draft`` for one outbox row (None when nothing is left to
tell), and ``notice_mail`` or ``Composer.chat`` puts it in its envelope.

Every seat section is what ``present.seat`` shows that seat (built from ``engine.view``, the one redaction), plus
its links; subjects and opening sentences are in templates/mail/words.txt, the bodies in templates/mail/.

Stale notifications: a mail always tells the *current* situation when it is composed (what happened since the
seat's last mail, and the decision owed now). A ``turn``/``update`` row whose window is no longer the open one is
skipped (None) when a newer notification to the same seat is still to be sent: that one tells everything. A mail
with nothing to tell (no new event, no decision, no outcome) is skipped too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from email.message import EmailMessage
from email.utils import formatdate
from typing import NotRequired, TypedDict, cast
from urllib.parse import quote, urlencode

import css_inline
from sqlalchemy.orm import Session

from ..config import Settings
from ..models import ChatMessage, Game, GameStatus, MailKind, Outbox, Player, RequestRow, Seat, Window
from ..present.absences import moment_shown
from ..present.chat import MailChannel, channel_title, mail_sections
from ..present.seat import cap, game_label, seat_shown, standing_answer_lines
from ..services import signin
from ..services.attendance import substitutes
from ..services.errors import ShownError
from ..services.inputs import one_line
from ..services.links import organiser_token, player_token, seat_token, signin_token, unsubscribe_token
from ..services.mailflow import mail_rows, outbox, reply_address
from ..services.play import autopilot, chat, standing_answers
from ..services.play.seats import Shared, answer_in, open_request, progress, seat_state
from ..text import i18n
from ..text.glossary import colour_name
from ..text.refusals import refusal
from ..text.sentences import describe_answer
from .drafts import MAX_USER_TEXT, Draft, Links, Mail, SeatSection, seat_section, words_of
from .headers import POLICY, host, message_id, recipient, thread

# --- what each kind's outbox row carries (its ``payload``, written by the service that adds the row) ------------


class NoticePayload(TypedDict):
    """``turn`` and ``update``: the window told; ``game_over``: nothing."""

    window: NotRequired[int]
    #: a turn mail of a session of play hours: dropped when the seat answered on its page meanwhile.
    unless_answered: NotRequired[bool]


class LastCallPayload(TypedDict):
    window: int
    #: the player was not at the session of play hours when the deadline passed.
    absent: NotRequired[bool]


class SessionPayload(TypedDict):
    #: when the session starts (ISO 8601).
    start: str


class AutopilotPayload(TypedDict):
    #: the deadlines missed in a row.
    missed: int


class TablePayload(TypedDict):
    #: the seat that went on autopilot, is back or (``new``) was taken over.
    colour: str
    status: str


class Refusal(TypedDict):
    """A ``ShownError`` kept to be translated when composed (``services.replies.refusal_of``)."""

    msgid: str
    params: dict[str, str]


#: A reply's answer: ``result`` and what it needs (an absence's ``from`` and ``to`` in ISO 8601, whether the player
#: was on ``autopilot``, the ``refusal``).
ReplyPayload = TypedDict(
    "ReplyPayload",
    {
        "inbound": int,
        "result": str,
        "window": int | None,
        "command": str,
        "from": NotRequired[str],
        "to": NotRequired[str],
        "autopilot": NotRequired[bool],
        "refusal": NotRequired[Refusal],
    },
)


class OrganiserPayload(TypedDict):
    """The organiser's link; with ``about`` "autopilot": that seat went on autopilot after ``missed`` deadlines."""

    about: NotRequired[str]
    colour: NotRequired[str]
    missed: NotRequired[int]


class InvitationPayload(TypedDict):
    invitation: int


class SubstitutedPayload(TypedDict):
    colour: str
    #: the substitute (a player id).
    by: int


class ReminderPayload(TypedDict):
    #: ``{"seat", "window", "step"}`` of each decision reminded (``reminders.still_owed`` checks them).
    items: list[dict[str, int]]


def shared_parts(session: Session, batch: mail_rows.Batch, now: datetime) -> dict[int, Shared]:
    """Game id -> what every seat of the table is shown alike, built once for all the batch's seats."""
    games = batch.games
    people = (s.player_id for game in games.values() for s in game.seats if s.bot is None and s.player_id)
    away = autopilot.away_until(session, people, now)
    shared: dict[int, Shared] = {}
    for game_id, game in games.items():
        window = batch.windows[game_id]
        owed = progress(session, window, None if window is None else batch.requests[window.id])
        shared[game_id] = Shared(*owed, autopilot.table(session, game, now, away))
    return shared


class Composer:
    """One row's mail being composed: its reader, their language and links, and what the batch read."""

    def __init__(
        self,
        session: Session,
        settings: Settings,
        player: Player,
        now: datetime,
        lang: str | None,
        batch: mail_rows.Batch,
        *,
        shared: dict[int, Shared],
    ) -> None:
        self.session = session
        #: the rows composed together, and each table's public parts (``shared_parts``).
        self.batch = batch
        self.shared = shared
        self.settings = settings
        self.player = player
        self.now = now
        #: ``lang``: a row's own language (a mail to an address not yet confirmed: the sign-up form's, the league's)
        self.lang = i18n.language(lang or player.language)
        self.t = i18n.translations(self.lang)
        #: the player's preferences page.
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
    ) -> SeatSection | None:
        """The seat's current situation; None when there is nothing to tell (or, with ``only_window``, when the
        seat owes nothing in that window any more). ``always``: even with nothing new (a link mail). Never for a
        seat its reader no longer plays (replaced: the mail would carry the seat's new link)."""
        if seat.player_id != self.player.id:
            return None
        opened = self.opened.pop(seat.id, None) or self.open_request(seat)
        shared = self.shared.get(seat.game_id) if opened is not None else None
        state = seat_state(self.session, seat, self.now, opened, shared)
        window = state["window"]
        owes = window is not None and window["request"] is not None and window["number"] == only_window
        if only_window is not None and not owes:
            return None
        seen = len(state["view"]["events"])
        told = (seat.told_events or 0) if events else seen  # without events: no history to tell (nor to build)
        shown = seat_shown(self.lang, state, self.now, told=told, page=False)
        if not always and not shown.history and shown.decision is None and shown.outcome is None:
            return None
        links = self.links(seat)
        ctx = seat_section(self.lang, shown, links, with_board)
        if seat.game.status == GameStatus.RUNNING:  # the seat's own standing answers, with a way to turn each off
            lines = standing_answer_lines(self.lang, standing_answers.shown_settings(seat))
            ctx.standing_answers = [{**line, "off_url": links.standing_off(line["key"])} for line in lines]
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
        payload = cast(NoticePayload, row.payload)
        stale = row.kind != MailKind.GAME_OVER and (window is None or window.number != payload.get("window"))
        if stale and outbox.covered(self.session, row):
            return None
        if payload.get("unless_answered") and answer_in(self.session, seat, payload.get("window")):
            return None  # a turn mail of a session of play hours: answered on the page meanwhile
        draft = Draft()
        ctx = self.section(draft, seat)
        if ctx is None:
            return None
        draft.words = {"label": ctx.label, "round": ctx.round_title}
        if ctx.outcome is not None:
            draft.variant = "over"
            draft.words["winners"] = ctx.outcome.winners
        elif ctx.decision is not None:
            draft.variant = "decision"
            draft.words.update(headline=ctx.decision.headline, by=ctx.decision.by)
        else:
            draft.variant = "update"
        return draft

    def last_call(self, row: Outbox, seat: Seat) -> Draft | None:
        """Everyone else has answered the window, or (``absent``) the player was not at the session of play hours
        when its deadline passed and the game waits for them until the next one: a short mail with the decision,
        unless it was answered since."""
        payload = cast(LastCallPayload, row.payload)
        number = payload["window"]
        if answer_in(self.session, seat, number) is not None:
            return None
        draft = Draft("absent" if payload.get("absent") else "last_call")
        ctx = self.section(draft, seat, events=False, with_board=False, only_window=number)
        if ctx is None:
            return None
        draft.words = {"label": ctx.label}
        return draft

    def session_soon(self, row: Outbox, seat: Seat) -> Draft | None:
        """A session of the game's play hours starts soon: when, in the reader's own time, and the seat's link."""
        start = datetime.fromisoformat(cast(SessionPayload, row.payload)["start"])
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
        draft.words = {"label": ctx.label, "missed": cast(AutopilotPayload, row.payload)["missed"]}
        draft.actions.append({"text": self.t.gettext("I'm back"), "url": self.links(seat).back})
        return draft

    def table(self, row: Outbox, seat: Seat) -> Draft | None:
        """Another seat of the table went on autopilot, or is back (public: the table sees who it waits for)."""
        payload = cast(TablePayload, row.payload)
        status, colour = payload["status"], payload["colour"]
        if seat.player_id != self.player.id or status not in ("autopilot", "back", "new"):
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
        draft.words = {"label": ctx.label}
        return draft

    def reply(self, row: Outbox, seat: Seat) -> Draft:
        """The answer to a reply by mail: applied, error, closed, wrong_sender or chat_error; standing (answers set);
        away (an absence declared), back ("I'm back"), refused (either refused: why)."""
        payload = cast(ReplyPayload, row.payload)
        result = payload["result"]
        command = cap(payload["command"], 120)
        draft = Draft(result, {"label": game_label(self.lang, seat.game.id, seat.game.title), "command": command})
        if result == "wrong_sender":
            sender = mail_rows.inbound_sender(self.session, payload["inbound"])
            draft.words["sender"] = cap("?" if sender is None else sender, MAX_USER_TEXT)
        elif result == "chat_error":
            draft.words["refusal"] = refusal(chat.ChatError(payload["command"]), self.lang)
            draft.notes.append(
                self.t.gettext(
                    "Your reply to the table talk was not posted. You can write again, or use your game page."
                )
            )
        elif result == "applied":
            draft.words["meaning"] = self._applied_meaning(seat, payload["window"]) or command
        elif result == "standing":  # the section lists the standing answers now in force
            self.section(draft, seat, events=False, with_board=False, always=True)
            return draft
        elif result == "away":
            # days in the player's zone (the last day away, not the midnight after it)
            for key, moment in (("from", payload["from"]), ("to", payload["to"])):
                draft.words[key] = moment_shown(
                    datetime.fromisoformat(moment), self.player.timezone, self.lang, end=key == "to"
                )
        elif result == "back":
            draft.words["autopilot"] = payload["autopilot"]
        elif result == "refused":
            said = payload["refusal"]
            draft.words["refusal"] = refusal(ShownError(said["msgid"], **said["params"]), self.lang)
        else:
            draft.variant = result if result == "closed" else "error"
        self.section(draft, seat, events=False, with_board=False, always=result == "chat_error")
        return draft

    def _applied_meaning(self, seat: Seat, window_number: int | None) -> str | None:
        found = answer_in(self.session, seat, window_number)
        return None if found is None else describe_answer(self.lang, *found)

    def organiser(self, row: Outbox) -> Draft | None:
        """The organiser's link to a game they created (player-level row, ``game_id`` set); with ``{"about":
        "autopilot", "colour"}``: that seat went on autopilot, with a one-tap way to offer it to a substitute."""
        game = mail_rows.game(self.session, row.game_id)
        if game is None:
            return None
        label = game_label(self.lang, game.id, game.title)
        url = f"{self.settings.base_url}/o/link/{organiser_token(self.settings.secret_key, game.id)}"
        payload = cast(OrganiserPayload, row.payload)
        if payload.get("about") == "autopilot":
            return self._autopilot_organiser(payload, game, label, url)
        draft = Draft("organiser", {"label": label})
        draft.notes.append(
            self.t.gettext(
                "With this link you can follow the game, extend a deadline, pause and resume it, resend a "
                "player's link, replace a player or end the game. Keep it to yourself: it needs no password."
            )
        )
        draft.actions.append({"text": self.t.gettext("Open the organiser page of the game"), "url": url})
        return draft

    def signin(self, row: Outbox) -> Draft | None:
        """A sign-in link the player asked for at /signin (``services.signin``); skipped once it was used or is too
        old to open."""
        link = signin.mailable(self.session, row.payload.get("link"), self.player.id, self.now)
        if link is None:
            return None
        draft = Draft("signin")
        minutes = int(signin.LINK_LIFETIME.total_seconds()) // 60
        draft.notes.append(
            self.t.ngettext(
                "The link works once, for %(num)d minute.", "The link works once, for %(num)d minutes.", minutes
            )
            % {"num": minutes}
        )
        draft.notes.append(
            self.t.gettext("If you did not ask for it, ignore this mail: nobody signs in without the link.")
        )
        url = f"{self.settings.base_url}/signin/{signin_token(self.settings.secret_key, link.id)}"
        draft.actions.append({"text": self.t.gettext("Sign in"), "url": url})
        return draft

    def _autopilot_organiser(self, payload: OrganiserPayload, game: Game, label: str, url: str) -> Draft | None:
        colour = payload["colour"]
        if game.status != GameStatus.RUNNING or colour not in {seat.colour for seat in game.seats}:
            return None
        count = payload["missed"]
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
        offer = mail_rows.offer(self.session, cast(InvitationPayload, row.payload)["invitation"])
        if offer is None:
            return None
        invitation, seat = offer.invitation, offer.seat
        try:
            substitutes.check(invitation, seat, seat.game)
        except substitutes.InvitationError:
            return None
        label = game_label(self.lang, seat.game_id, seat.game.title)
        draft = Draft("invitation", {"label": label, "colour": colour_name(self.lang, seat.colour)})
        url = f"{self.settings.base_url}/i/{invitation.key}"
        draft.actions.append({"text": self.t.gettext("See the offer and take the seat"), "url": url})
        return draft

    def substituted(self, row: Outbox) -> Draft | None:
        """A substitute took over the reader's seat: who, and thanks (no link: the seat is no longer theirs)."""
        payload = cast(SubstitutedPayload, row.payload)
        found = mail_rows.substitution(self.session, row.game_id, payload["by"])
        if found is None:
            return None
        words: dict[str, object] = {
            "label": game_label(self.lang, found.game.id, found.game.title),
            "colour": colour_name(self.lang, payload["colour"]),
            "name": cap(one_line(found.newcomer.display_name), MAX_USER_TEXT),
        }
        draft = Draft("substituted", words)
        draft.notes.append(self.t.gettext("The links of your earlier mails about this seat no longer work."))
        return draft

    def reminder(self, row: Outbox) -> Draft | None:
        draft = Draft("reminder")
        for owed in mail_rows.reminded(self.session, cast(ReminderPayload, row.payload)["items"]):
            self.section(draft, owed.seat, events=False, with_board=False, only_window=owed.window)
        if not draft.sections:
            return None
        draft.words = {"label": draft.sections[0].label, "count": len(draft.sections)}
        return draft

    def digest(self, row: Outbox) -> Draft | None:
        draft = Draft("digest")
        for item in mail_rows.digested(self.session, row, self.player.id):
            talk = self._chat(item.seat) if item.chat else None
            ctx = self.section(draft, item.seat, always=talk is not None)
            if ctx is not None and talk is not None:
                ctx.chat, draft.chat[item.seat.id] = talk
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

    def _chat(self, seat: Seat) -> tuple[list[MailChannel], int] | None:
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
            "seat_url": links.from_mail,
            "prefs_url": self.prefs_url,
        }
        reply_to = None
        if self.settings.reply_domain:
            assert channel.id is not None
            reply_to = reply_address.make_chat(
                self.settings.secret_key, self.settings.reply_domain, seat.id, channel.id, seat.link_generation
            )
        message = envelope(self, row, "mail/chat", ctx, reply_to)
        thread(message, seat.game_id, seat.id, host(self.settings))
        return Mail(message, chat={seat.id: max(c.last for c in unread)})


#: the mails that answer something the reader did (a reply, a sign-in link asked for, a sign-up to confirm): no
#: unsubscribe header (RFC 8058 is for mail they did not ask for at that moment).
ANSWERS = frozenset({MailKind.REPLY, MailKind.SIGNIN, MailKind.LEAGUE_CONFIRM})


def envelope(
    composer: Composer,
    row: Outbox,
    template: str,
    ctx: Mapping[str, object],
    reply_to: str | None,
    pictures: Sequence[bytes] = (),
) -> EmailMessage:
    """A mail to the composer's player: ``template``.txt and .html rendered with ``ctx`` (its "subject" included),
    the headers every deadmail mail carries, ``reply_to`` when replying to it does something, and ``pictures``
    (PNG) inline beside the HTML part, which shows them by ``picture_cid``."""
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
    if row.kind not in ANSWERS:  # RFC 8058: one click switches the reader to the digest (``web/unsubscribe.py``)
        token = unsubscribe_token(settings.secret_key, player.id, player.link_generation)
        message["List-Unsubscribe"] = f"<{settings.base_url}/unsubscribe/{token}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.set_content(text)
    message.add_alternative(html, subtype="html")
    if pictures:
        html_part = message.get_body(preferencelist=("html",))
        assert isinstance(html_part, EmailMessage)
        for i, png in enumerate(pictures, 1):
            html_part.add_related(png, "image", "png", cid=f"<{picture_cid(i)}>", filename=f"mall-{i}.png")
    message["Content-Language"] = lang  # after the content: set_content clears the Content-* headers
    return message


def picture_cid(number: int) -> str:
    """The Content-ID of a mail's ``number``-th picture of the mall (counted from 1 over its sections that have
    one, as templates/mail/notice.html numbers them and shows them with this function)."""
    return f"mall-{number}@deadmail"


def notice_mail(composer: Composer, row: Outbox, draft: Draft) -> Mail:
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
        "picture_cid": picture_cid,  # the Content-ID of the n-th picture, as ``envelope`` attaches it
    }
    reply_to = None
    if settings.reply_domain and len(draft.replies) == 1:
        seat_id, window, generation = draft.replies[0]
        reply_to = reply_address.make(settings.secret_key, settings.reply_domain, seat_id, window, generation)
    pictures = [s.picture for s in draft.sections if s.picture]  # the mall's, in the order the sections show them
    message = envelope(composer, row, "mail/notice", ctx, reply_to, pictures)
    if len(draft.seats) == 1:
        thread(message, *draft.seats[0], host(settings))
    return Mail(message, dict(draft.told), dict(draft.chat))
