"""What a seat's player is shown, built once for the seat page and for every mail about the seat.

Everything comes from ``services.play.seats.seat_state``: the engine's view of the seat (``engine.view``, the one
redaction), the open window's deadline, and the seat's own request and answer in it. Nothing here reads the
database or knows another seat's secrets.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypedDict, cast

from markupsafe import Markup

import engine
import engine.standing
from engine.data import CHARACTERS, PHASES, WEAPONS, Phase
from engine.shapes import JSON

from ..models import TempoJSON
from ..services.play.autopilot import Presence
from ..services.play.places import placings
from ..services.play.seats import SeatState, SeatWindow, Visit
from ..services.tempo import closes_decided_votes
from ..text import glossary
from ..text.grammar import CommandError, commands_for, fallback_choices, hints_for, parse_reply
from ..text.i18n import format_short, format_when, translations
from ..text.sentences import (
    Names,
    describe_answer,
    event_text,
    player_label,
    request_headline,
    request_location,
    request_text,
)
from .board import card_icon, token_icon
from .context import Context, context

#: the longest game title shown in a label.
MAX_TITLE = 60


def cap(text: object, limit: int) -> str:
    """User text for a page or mail line: one line, at most ``limit`` characters (escaping does the rest)."""
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def game_label(lang: str, game_id: int, title: str) -> str:
    """ "Mall of Horror, game 7 (Friday night)"."""
    label = translations(lang).gettext("Mall of Horror, game %(number)s") % {"number": game_id}
    return f"{label} ({cap(title, MAX_TITLE)})" if str(title or "").strip() else label


def round_title(lang: str, number: int) -> str:
    t = translations(lang)
    return t.gettext("Setting up") if not number else t.gettext("Round %(number)s") % {"number": number}


def card_entry(lang: str, card: str) -> dict[str, str]:
    """A card in a hand or in the truck: its engine name, its name in ``lang``, what it does, and its pictogram."""
    return {
        "card": card,
        "name": glossary.card_name(lang, card),
        "text": glossary.card_text(lang, card),
        "icon": card_icon(card),
    }


# --- the history --------------------------------------------------------------------------------------------------


@dataclass
class Round:
    round: int
    title: str
    lines: list[str] = field(default_factory=list)


def history(
    lang: str, events: list[engine.Event], reader: str | None, told: int = 0, names: Names | None = None
) -> list[Round]:
    """The view's events as sentences from the reader's side ("you", "Ann (Red)" by the table's ``names``), grouped
    by round (``round_started`` opens one; it is public), in the order they happened. ``told``: the first ``told``
    events are left out (a mail tells only what is new to its reader); rounds without any line are left out."""
    rounds = [Round(0, round_title(lang, 0))]
    for index, event in enumerate(events):
        if event["type"] == "round_started":
            number = event["round"]
            rounds.append(Round(number, round_title(lang, number)))
        if index < told:
            continue
        line = event_text(lang, event, reader, names)
        if line:
            rounds[-1].lines.append(line)
    return [r for r in rounds if r.lines]


def newest_first(rounds: list[Round]) -> list[Round]:
    """The history as the seat page shows it: the newest round first, and in each round the newest line first."""
    return [Round(r.round, r.title, list(reversed(r.lines))) for r in reversed(rounds)]


# --- where the round stands (B-RND) ----------------------------------------------------------------------------------

#: the six phases of a round, in order (RULES.md RND-1).
#: the six phases of a round, A to F (B-RND), as the engine names them.
ROUND_PHASES = tuple(str(p) for p in PHASES if p not in (Phase.SETUP, Phase.OVER))


@dataclass(frozen=True)
class Step:
    phase: str
    name: str
    #: "done", "current" or "next".
    state: str


def phase_steps(lang: str, phase: str) -> list[Step]:
    """The phase tracker A-F: each phase of the round, done, current or still to come (all done once the game is
    over, none begun during the setup)."""
    now = ROUND_PHASES.index(phase) if phase in ROUND_PHASES else (len(ROUND_PHASES) if phase == "over" else -1)
    return [
        Step(p, glossary.phase_name(lang, p), "done" if i < now else "current" if i == now else "next")
        for i, p in enumerate(ROUND_PHASES)
    ]


# --- the decision -------------------------------------------------------------------------------------------------


@dataclass
class Choice:
    #: the reply command (what a one-tap link or a reply by mail sends).
    command: str
    #: what it means, in words.
    meaning: str
    #: the answer given so far.
    checked: bool
    #: what is tapped on the table to give it, in order (``pick_path``): "location:3 character:pinup".
    path: str = ""
    #: the answer it gives (the engine's JSON).
    value: JSON = None
    #: shown in the list; False for the variants only the board's picker offers (a placement's fallback: the list
    #: would be dozens of lines; the hints say how to type one).
    listed: bool = True


def pick_path(kind: str, answer: object) -> list[str]:
    """The picks that give ``answer`` to a request of ``kind`` on the table, each "what:value", as the page's
    elements name what they show (``data-pick``): a location (a room of the board), a character (the reader's own
    tokens), a colour (a player's panel), a card of the hand, a card of the truck, or "pass". A card play is the card,
    then whom (Hidden) or whom and where (Sprint); a placement the character, then the location (then the
    fallback); a move the character (then where it sprints); the truck's answer the card kept, the card given,
    then to whom."""
    if kind in ("announce", "destination", "zombie"):
        return [f"location:{answer}"]
    if kind in ("vote", "victim"):
        return [f"{'colour' if kind == 'vote' else 'character'}:{answer}"]
    if kind == "cards" and isinstance(answer, list):
        if not answer:
            return ["pass"]
        answer = answer[0] if len(answer) == 1 else None  # several cards at once: typed, not tapped
    if not isinstance(answer, dict):
        return []
    return [f"{what}:{answer[key]}" for what, key in _PICKED.get(kind, ()) if key in answer]


#: the parts of a dict answer, in the order they are picked: (what is tapped, the answer's key).
_PICKED: dict[str, tuple[tuple[str, str], ...]] = {
    "cards": (("card", "card"), ("character", "character"), ("location", "location")),
    "place": (("character", "character"), ("location", "location"), ("location", "fallback")),
    "move": (("character", "character"), ("location", "sprint")),
    "truck": (("truck", "keep"), ("truck", "give"), ("colour", "to")),
}


def pick_steps(lang: str, request: engine.RequestJSON) -> list[str]:
    """What each pick of ``pick_path`` asks, in ``lang`` (the picker's prompt at each step)."""
    t = translations(lang)
    kind = request["kind"]
    if kind == "cards":
        return [
            t.gettext("Tap a card to play, or pass"),
            t.gettext("Tap the character it is for"),
            t.gettext("Tap where your character runs"),
        ]
    if kind == "place":
        return [
            t.gettext("Tap the character to place"),
            t.gettext("Tap the location to place it in"),
            t.gettext("Tap a fallback location, used if that one is full"),
        ]
    if kind == "move":
        return [
            t.gettext("Tap the character that moves"),
            t.gettext("Tap where it runs with a Sprint, if you play one"),
        ]
    if kind == "truck":
        return [
            t.gettext("Tap the card you keep"),
            t.gettext("Tap the card you give"),
            t.gettext("Tap the player who gets it"),
        ]
    if kind == "vote":
        return [t.gettext("Tap the player you vote for")]
    if kind == "victim":
        return [t.gettext("Tap the character who is lost")]
    return [t.gettext("Tap a location")]


@dataclass
class Decision:
    window: int
    text: str
    choices: list[Choice]
    #: sentences about the optional forms of commands (AND, IF NEEDED, ELSE, IF FULL).
    hints: list[str]
    #: the truck cards drawn, when the decision is the truck's.
    truck: list[dict[str, str]] | None
    #: the answer given so far, in words.
    answer: str | None
    deadline: str
    relative: str
    #: a vote that closes once decided (the tempo's ``close_decided_votes``) says so (also among the ``hints``).
    early: str | None = None
    #: what the decision is about, in the table's terms (``present.context``).
    context: Context | None = None
    #: the answer may still change: the window is open and not complete (every answer in, or a vote closed once
    #: decided, closes it now).
    can_change: bool = True
    #: the prompt of each pick on the table (``pick_steps``).
    steps: list[str] = field(default_factory=list)
    #: what is asked and where, in a few words (``request_headline``), and the location it is about (framed on the
    #: board; None when it is about none).
    headline: str = ""
    where: int | None = None
    #: the deadline in a few letters ("Tue 18:00", the reader's zone): a mail's subject.
    by: str = ""


def decision(
    lang: str,
    view: engine.PlayerView,
    window: SeatWindow,
    now: datetime,
    tz: str,
    tempo: TempoJSON | None = None,
    *,
    names: Names | None = None,
    picker: bool = True,
) -> Decision | None:
    """The seat's open request as choices: each legal command with what it means; None when it owes nothing.
    ``tempo``: the game's, to say that a vote closes as soon as it is decided; ``names``: the table's names;
    ``picker``: with the choices only the board's picker offers (a placement's fallbacks; not in mails)."""
    request, stored = window["request"], window["answer"]
    if request is None:
        return None
    choices = []
    for line in commands_for(request, view, lang):
        try:
            meaning = parse_reply(line, request, view, lang)
        except CommandError:  # commands_for lists only legal commands; never shown without a meaning
            continue
        checked = stored is not None and meaning == stored
        path = " ".join(pick_path(request["kind"], meaning))
        choices.append(Choice(line, describe_answer(lang, request, meaning, names), checked, path, meaning))
    for line, value in fallback_choices(request, view, lang) if picker else []:  # the picker's third tap
        path = " ".join(pick_path(request["kind"], value))
        described = describe_answer(lang, request, value, names)
        choices.append(Choice(line, described, stored == value, path, cast(JSON, value), listed=False))
    truck = None
    if request["kind"] == "truck":
        truck = [card_entry(lang, c) for c in request["cards"]]
    due = datetime.fromisoformat(window["deadline"])
    deadline, relative = format_when(due, now, tz, lang)
    hints = hints_for(request, view, lang)
    early = None
    if request["kind"] == "vote" and closes_decided_votes(tempo):
        early = str(
            translations(lang).gettext("This vote closes as soon as the votes still missing cannot change its outcome.")
        )
        hints.append(early)
    return Decision(
        window=int(window["number"]),
        text=request_text(lang, request, view["phase"], names),
        choices=choices,
        hints=hints,
        truck=truck,
        answer=None if stored is None else describe_answer(lang, request, stored, names),
        deadline=deadline,
        relative=relative,
        early=early,
        context=context(lang, view, request, names),
        can_change=not window["completed"],
        steps=pick_steps(lang, request),
        headline=request_headline(lang, request),
        where=request_location(request),
        by=format_short(due, tz, lang),
    )


# --- the outcome ----------------------------------------------------------------------------------------------------


class Standing(TypedDict):
    """A player's place at the end (END-2, END-3)."""

    colour: str
    #: as sentences name the player ("Ann (Red)").
    name: str
    rank: int
    #: "1st" …
    place: str
    points: int
    cards: int
    #: the reader.
    you: bool
    winner: bool


@dataclass
class Outcome:
    winners: list[str]
    #: the reader is among the winners.
    won: bool
    #: the players by place; players tied on points and cards share a place.
    standings: list[Standing] = field(default_factory=list)
    #: the tie-break rule in one sentence (END-3).
    tiebreak: str = ""
    #: each player's best moment from the story, by colour ("Round 3: Red plays the Chainsaw …"; ``best_moments``).
    moments: dict[str, str] = field(default_factory=dict)


def ordinal(lang: str, place: int) -> str:
    """ "1st", "2nd" … in ``lang``."""
    t = translations(lang)
    words = {1: t.gettext("1st"), 2: t.gettext("2nd"), 3: t.gettext("3rd")}
    return words.get(place) or t.gettext("%(num)sth") % {"num": place}


def standings(
    lang: str, result: engine.Outcome, players: list[str], reader: str | None, names: Names | None = None
) -> list[Standing]:
    """The places of a finished game: by points, then by the cards left in hand (END-3); still tied, a shared
    place. ``reader``: the colour marked "you" (None: nobody)."""
    scores, cards = result["scores"], result["cards"]
    winners = set(result["winners"])
    seated = [c for c in players if c in scores]
    points = {c: scores[c] for c in seated}
    left = {c: cards[c] for c in seated}
    return [
        {
            "colour": colour,
            "name": player_label(lang, colour, names),
            "rank": place,
            "place": ordinal(lang, place),
            "points": points[colour],
            "cards": left[colour],
            "you": colour == reader,
            "winner": colour in winners,
        }
        for colour, place, _span in placings(seated, points, left)
    ]


def tiebreak_sentence(lang: str) -> str:
    return str(
        translations(lang).gettext(
            "Tied on points, the player with more cards left in hand wins; tied on cards too, they share the place."
        )
    )


def outcome(lang: str, view: engine.PlayerView, names: Names | None = None) -> Outcome | None:
    result = view["outcome"]
    if result is None:
        return None
    winners = result["winners"]
    return Outcome(
        winners=[player_label(lang, c, names) for c in winners],
        won=view["you"] in winners,
        standings=standings(lang, result, list(view["players"]), view["you"], names),
        tiebreak=tiebreak_sentence(lang),
        moments=best_moments(lang, view["events"], names),
    )


def _moment(event: engine.Event) -> tuple[str | None, int]:
    """Whose moment a public event is, and how notable: a weapon played (the zombies killed), another card played,
    an election won, the truck searched."""
    data = cast(Mapping[str, object], event)
    kind = data["type"]
    if kind == "card_played":
        return str(data["player"]), 3 if data.get("card") in WEAPONS else 2
    if kind == "chief_elected":
        return str(data["chief"]), 2
    if kind == "truck_searched":
        return str(data["player"]), 1
    return None, 0


def best_moments(lang: str, events: Iterable[engine.Event], names: Names | None = None) -> dict[str, str]:
    """Each player's most notable public moment of the game (the first of the most notable kind), told as the story
    tells it, after its round: colour -> "Round 3: …". Public events only: the same for every reader."""
    best: dict[str, tuple[int, str]] = {}
    number = 0
    for event in events:
        data = cast(Mapping[str, object], event)
        if data["type"] == "round_started":
            number = int(str(data.get("round", number + 1)))
        if "to" in data:
            continue
        colour, score = _moment(event)
        if colour is not None and score > best.get(colour, (0, ""))[0]:
            line = f"{round_title(lang, number)}: {event_text(lang, event, None, names)}"
            best[colour] = (score, line)
    return {colour: line for colour, (_, line) in best.items()}


# --- the whole seat ---------------------------------------------------------------------------------------------


@dataclass
class SeatShown:
    """Everything a seat's page or mail section shows (the board is drawn from ``view``)."""

    label: str
    colour: str
    colour_name: str
    round: int
    round_title: str
    phase: str
    view: engine.PlayerView
    #: the open window's number and deadline, when a window is open (the seat may owe nothing in it).
    window: int | None
    deadline: str | None
    relative: str | None
    decision: Decision | None
    hand: list[dict[str, str]]
    dice: list[int] | None
    history: list[Round]
    outcome: Outcome | None
    #: the players still deciding in the open window, by name ("you" first when the reader owes an answer): never
    #: one who answered, nobody asked in secret (``seats.progress``).
    owing: list[str]
    #: the other seats on autopilot or away, in words ("Red is on autopilot."), public (``autopilot.table``).
    presence: list[str] = field(default_factory=list)
    #: this seat is on autopilot (missed deadlines), or its player is away until this time (in words): the page
    #: offers "I'm back".
    autopilot: bool = False
    away_until: str | None = None
    #: the phase tracker A-F (``phase_steps``).
    steps: list[Step] = field(default_factory=list)
    #: the table's public names (colour -> player's name).
    names: Names = field(default_factory=dict)


@dataclass
class Panel:
    """One player's strip at the table: what everyone may know of them."""

    colour: str
    colour_name: str
    #: "Ann (Red)", or the colour when the table has no name for them.
    label: str
    #: their characters still in play (on the board or still to place), as tokens.
    tokens: list[Markup]
    cards: int
    chief: bool
    you: bool
    #: still deciding in the open window, or answered there (public: ``seats.progress``; never who was asked in
    #: secret, nor an answer a standing answer gave; the reader's own strip says theirs).
    deciding: bool
    answered: bool
    #: "on autopilot" / "away until ..." (public: ``autopilot.table``), else None.
    status: str | None
    out: bool


def panels(lang: str, state: SeatState, now: datetime, names: Names) -> list[Panel]:
    """A strip per player, in seating order (the seat page's; times in the seat player's zone)."""
    view, window, tz = state["view"], state["window"], state["seat"]["timezone"]
    t = translations(lang)
    you = view["you"]
    waiting = set(_deciding(view, window))
    done = set(_done(view, window, state["answered"]))
    unplaced = view.get("unplaced", {})
    out = []
    for colour in view["players"]:
        mine = set(view["characters"].get(colour, {})) | set(unplaced.get(colour, []))
        presence = state["presence"].get(colour)
        status = None
        if presence is not None and (until := _away_until(lang, presence, now, tz)) is not None:
            status = t.gettext("away until %(until)s") % {"until": until}
        elif presence is not None and presence["autopilot"]:
            status = t.gettext("on autopilot")
        out.append(
            Panel(
                colour=colour,
                colour_name=glossary.colour_name(lang, colour),
                label=player_label(lang, colour, names),
                tokens=[token_icon(lang, colour, c, you=colour == you) for c in CHARACTERS if c in mine],
                cards=view["hand_sizes"].get(colour, 0),
                chief=colour == view["chief"],
                you=colour == you,
                deciding=colour in waiting,
                answered=colour in done,
                status=status,
                out=not mine and view["round"] > 0,
            )
        )
    return out


def seat_shown(lang: str, state: SeatState, now: datetime, *, told: int = 0, page: bool = True) -> SeatShown:
    """The seat of ``services.play.seats.seat_state`` for a reader in ``lang`` (times in the seat player's zone).
    ``told``: the history without the first ``told`` events of the seat's view (what a mail told already)."""
    view, window, game = state["view"], state["window"], state["game"]
    colour, tz = view["you"], state["seat"]["timezone"]
    deadline = relative = None
    if window is not None:
        deadline, relative = format_when(datetime.fromisoformat(window["deadline"]), now, tz, lang)
    names: Names = dict(state["names"])
    owing = _owing(lang, view, window, names)
    number = view["round"]
    return SeatShown(
        label=game_label(lang, game["id"], game["title"] or ""),
        colour=colour,
        colour_name=glossary.colour_name(lang, colour),
        round=number,
        round_title=round_title(lang, number),
        phase=glossary.phase_name(lang, view["phase"]),
        view=view,
        window=None if window is None else int(window["number"]),
        deadline=deadline,
        relative=relative,
        decision=None
        if window is None
        else decision(lang, view, window, now, tz, game["tempo"], names=names, picker=page),
        hand=[card_entry(lang, c) for c in view["hand"]],
        dice=view["dice"],
        history=history(lang, view["events"], colour, told, names),
        outcome=outcome(lang, view, names),
        owing=owing,
        presence=[presence_line(lang, c, p, now, tz) for c, p in state["presence"].items() if c != colour],
        autopilot=colour in state["presence"] and bool(state["presence"][colour]["autopilot"]),
        away_until=_away_until(lang, state["presence"].get(colour), now, tz),
        steps=phase_steps(lang, view["phase"]),
        names=names,
    )


def _owing(lang: str, view: engine.PlayerView, window: SeatWindow | None, names: Names) -> list[str]:
    """Who is still deciding, from the public list (``seats.progress``: unanswered, never asked in secret):
    the reader first as "you" while their own request is unanswered, never once they answered (their own row may
    count as unanswered to the others, when their standing answers gave it); nobody once every answer is in."""
    you = str(translations(lang).pgettext("in a list", "you"))
    return [you if colour == view["you"] else player_label(lang, colour, names) for colour in _deciding(view, window)]


def _deciding(view: engine.PlayerView, window: SeatWindow | None) -> list[str]:
    """The colours still deciding (``_owing``'s rule): the reader first while their own request is unanswered, the
    others from the public list, nobody once every answer is in."""
    if window is not None and window["completed"]:
        return []  # every answer is in: naming someone now would tell that standing answers gave theirs (H-6)
    mine = window is not None and window["request"] is not None and window["answer"] is None
    others = [item["player"] for item in view["waiting_for"] if item["player"] != view["you"]]
    return list(dict.fromkeys(([view["you"]] if mine else []) + others))


def _done(view: engine.PlayerView, window: SeatWindow | None, answered: list[str]) -> list[str]:
    """The colours that answered in the open window: the reader once their own answer is in, the others from the
    public list; nobody once every answer is in (``_deciding``'s reason)."""
    if window is None or window["completed"]:
        return []
    mine = window["request"] is not None and window["answer"] is not None
    return ([view["you"]] if mine else []) + [colour for colour in answered if colour != view["you"]]


def presence_line(lang: str, colour: str, presence: Presence, now: datetime, tz: str) -> str:
    """ "Red is on autopilot." / "Red is away until Thursday 3 December at 18:00." (in the reader's zone).
    ``presence``: a seat's in ``autopilot.table`` (``{"autopilot": bool, "away_until": ISO 8601 or None}``)."""
    name = glossary.colour_name(lang, colour)
    t = translations(lang)
    until = _away_until(lang, presence, now, tz)
    if until is not None:
        return t.gettext("%(colour)s is away until %(until)s.") % {"colour": name, "until": until}
    return t.gettext("%(colour)s is on autopilot: the table does not wait for them.") % {"colour": name}


def _away_until(lang: str, presence: Presence | None, now: datetime, tz: str) -> str | None:
    until = presence["away_until"] if presence else None
    return None if not until else format_when(datetime.fromisoformat(until), now, tz, lang)[0]


# --- standing answers -------------------------------------------------------------------------------------------

#: the settings the seat page and the preferences page offer as selects (a game's victim order is set on the
#: preferences page, H-5).
STANDING_ANSWER_SELECTS = ("cards", "camera", "attack", "vote")


def standing_answer_lines(lang: str, answering: Iterable[Mapping[str, object]]) -> list[dict[str, str]]:
    """The standing answers that answer for a seat (``standing_answers.shown_settings``: ``{"key", "value"}``), in
    words: "Security Camera — always look"; for the seat's own pages and mails only (H-6)."""
    return [
        {
            "key": str(item["key"]),
            "name": glossary.standing_answer_name(lang, str(item["key"])),
            "value": glossary.standing_answer_value(lang, str(item["key"]), item["value"]),
        }
        for item in answering
    ]


class StandingSelect(TypedDict):
    """A standing answer's select: its choices (value, words) and the value chosen now ("": as in the preferences)."""

    key: str
    name: str
    choices: list[tuple[str, str]]
    current: str


def standing_answer_selects(
    lang: str, own: Mapping[str, object], defaults: Mapping[str, object] | None
) -> list[StandingSelect]:
    """The selects of a standing-answers form: each setting with its choices and the value chosen now (``own``).
    With ``defaults`` (a seat's form), the first choice ("") follows the player's preferences."""
    t = translations(lang)
    out: list[StandingSelect] = []
    for key in STANDING_ANSWER_SELECTS:
        choices = [("ask", glossary.standing_answer_value(lang, key, "ask"))]
        choices += [(value, glossary.standing_answer_value(lang, key, value)) for value in engine.standing.CHOICES[key]]
        current = str(own.get(key) or "")
        if defaults is not None:
            default = glossary.standing_answer_value(lang, key, defaults.get(key) or "ask")
            choices.insert(0, ("", t.gettext("as in my preferences (%(value)s)") % {"value": default}))
        elif not current:
            current = "ask"
        name = glossary.standing_answer_name(lang, key)
        out.append({"key": key, "name": name, "choices": choices, "current": current})
    return out


@dataclass(frozen=True)
class SessionShown:
    """A session of play hours going on, as the seat page shows it: its end and who is on their page now."""

    end: str
    here: list[str]


def session_shown(lang: str, visit: Visit, now: datetime, tz: str) -> SessionShown:
    assert visit.session_end is not None
    end, _relative = format_when(visit.session_end, now, tz, lang)
    return SessionShown(end, [glossary.colour_name(lang, colour) for colour in visit.here])
