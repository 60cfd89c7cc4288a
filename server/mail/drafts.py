"""What a mail is made of before it is sent: the seat's links, the draft a kind of mail fills (its sections, what
it tells, its thread), a seat's section as the notice templates read it, the subject and intro of each variant
(templates/mail/words.txt), and the composed mail with what it tells."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from urllib.parse import quote, urlencode

from ..present import board, picture
from ..present.chat import MailChannel
from ..present.seat import Round, SeatShown, Standing
from ..text import i18n

#: the longest user-given text (a name, a reply's sender or command) put into a mail.
MAX_USER_TEXT = 80


@dataclass(frozen=True)
class Links:
    base_url: str
    seat_token: str

    @property
    def seat(self) -> str:
        return f"{self.base_url}/s/{self.seat_token}"

    @property
    def from_mail(self) -> str:
        """The seat page as a mail links to it: opening it says mail reached the player (``nudges.opened``)."""
        return f"{self.seat}?via=mail"

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
    words: dict[str, object] = field(default_factory=dict)
    sections: list[SeatSection] = field(default_factory=list)
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


@dataclass(frozen=True, slots=True)
class Command:
    """A legal command of a decision, its one-tap link, and what it does in words (the HTML part's button)."""

    line: str
    url: str
    words: str = ""


@dataclass(frozen=True, slots=True)
class SectionDecision:
    window: int
    text: str
    commands: list[Command]
    hints: list[str]
    deadline: str
    relative: str
    #: the answer given so far, in words.
    answer: str | None
    #: what is asked and where, and the deadline in a few letters (the subject: "Vote at Parking Lot (4) — by Tue
    #: 18:00").
    headline: str = ""
    by: str = ""


@dataclass(frozen=True, slots=True)
class SectionOutcome:
    #: the winners' names, joined.
    winners: str
    won: bool
    #: ``present.seat.standings``.
    standings: list[Standing]
    tiebreak: str
    replay_url: str


@dataclass(slots=True)
class SeatSection:
    """A seat's section of a mail, as templates/mail/notice.* read it."""

    label: str
    colour: str
    colour_name: str
    round: int
    round_title: str
    #: the history told, by round.
    rounds: list[Round]
    decision: SectionDecision | None
    hand: list[dict[str, str]]
    dice: list[int] | None
    truck: list[dict[str, str]] | None
    board: board.MailTable | None
    outcome: SectionOutcome | None
    seat_url: str
    #: the seat's own standing answers in force, each with its link to turn it off (a running game's mails).
    standing_answers: list[dict[str, str]] = field(default_factory=list)
    #: the unread table talk, by channel (a digest).
    chat: list[MailChannel] | None = None
    #: the mall as a small PNG picture (``present.picture``, attached inline to the HTML part) and its alt text:
    #: the whole board in words.
    picture: bytes | None = None
    picture_alt: str = ""


def seat_section(lang: str, shown: SeatShown, links: Links, with_board: bool) -> SeatSection:
    """A seat's section of a mail, as templates/mail/notice.* read it."""
    decision = shown.decision
    return SeatSection(
        label=shown.label,
        colour=shown.colour,
        colour_name=shown.colour_name,
        round=shown.round,
        round_title=shown.round_title,
        rounds=[Round(r.round, r.title, r.lines) for r in shown.history],
        decision=None
        if decision is None
        else SectionDecision(
            window=decision.window,
            text=decision.text,
            commands=[
                Command(c.command, links.one_tap(decision.window, c.command), c.meaning[:1].upper() + c.meaning[1:])
                for c in decision.choices
                if c.listed
            ],
            hints=decision.hints,
            deadline=decision.deadline,
            relative=decision.relative,
            answer=decision.answer,
            headline=decision.headline,
            by=decision.by,
        ),
        hand=shown.hand,
        dice=shown.dice,
        truck=None if decision is None else decision.truck,
        board=board.table(lang, shown.view) if with_board else None,
        picture=picture.mall_png(shown.view, lang, asked=decision.where if decision else None) if with_board else None,
        picture_alt=board.describe(shown.view, lang, shown.colour, shown.names) if with_board else "",
        outcome=None
        if shown.outcome is None
        else SectionOutcome(
            winners=", ".join(shown.outcome.winners),
            won=shown.outcome.won,
            standings=shown.outcome.standings,
            tiebreak=shown.outcome.tiebreak,
            replay_url=links.replay,
        ),
        seat_url=links.from_mail,
    )


@dataclass(frozen=True)
class Words:
    subject: str
    intro: str


def words_of(lang: str, variant: str, values: Mapping[str, object]) -> Words:
    """The subject and intro of a mail (templates/mail/words.txt)."""
    module = i18n.environment(lang).get_template("mail/words.txt").module
    return Words(str(module.subject(variant, values)).strip(), str(module.intro(variant, values)).strip())  # type: ignore[attr-defined]
