"""Requests (RULES.md H-1): what a player is asked, how an answer is checked, and its H-4 default.

An answer is parsed into a small Python value the flow applies:

- ``place``: a :class:`Placement` ``(character, location, fallback | None)``
- ``cards``: a list of :class:`Play`
- ``vote``: a colour, or ``None`` for an abstention (timeout only)
- ``victim``: a character
- ``truck``: a :class:`TruckChoice` ``(keep, give | None, to | None)``
- ``announce`` / ``destination``: a location; ``zombie``: a location or ``None`` (timeout)
- ``move``: a :class:`MoveChoice` ``(character, sprint location | None, sprint_if_full)``

Refusals are :class:`~engine.errors.IllegalAnswer` with a message id and parameters named as in
``engine.errors.PARAMETERS``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, TypeAlias, TypedDict, cast

from .data import BY_VALUE, CARD_NAMES, IF_NEEDED_CARDS, LOCATIONS, Kind
from .errors import N_, IllegalAnswer
from .rules import lowest_value, quietest
from .shapes import JSON, JSONObject, MoveOption, Option, PlaceOption, RequestInfo, RequestJSON
from .state import State


class Play(NamedTuple):
    """One card played in a card window."""

    card: str
    character: str | None = None
    location: int | None = None
    if_needed: bool = False


class Placement(NamedTuple):
    """A ``place`` answer: the character, the location chosen, and where to go if both dice are full (H-3)."""

    character: str
    location: int
    fallback: int | None = None


class MoveChoice(NamedTuple):
    """A ``move`` answer: the character, a Sprint location, and whether the Sprint is played only if needed."""

    character: str
    sprint: int | None = None
    sprint_if_full: bool = False


class TruckChoice(NamedTuple):
    """A ``truck`` answer: the card kept, the card given and to whom (None when there is nobody to give to)."""

    keep: str
    give: str | None = None
    to: str | None = None


#: An answer as the flow applies it (see the module's docstring for which kind gives which).
ParsedAnswer: TypeAlias = Placement | MoveChoice | TruckChoice | list[Play] | str | int | None


class RequestContext(TypedDict, total=False):
    """What validating an answer needs and its player is not shown, by kind."""

    #: ``place``: the characters still to place, the locations the dice allow, and the dice.
    unplaced: list[str]
    spots: list[int]
    dice: tuple[int, ...]
    #: ``truck``: the players a card may be given to.
    recipients: list[str]
    #: ``move``: a Sprint may be played with the move.
    can_sprint: bool
    #: ``cards``: the character moved (a Sprint window), the characters who may hide (an attack window).
    moved: str
    can_hide: list[str]


@dataclass(slots=True)
class Request:
    """One decision owed by one player. ``info`` holds the extra keys of the contract (window, location, ...).

    Never changed once made. Not a frozen dataclass only for speed: the flow makes one per request, and a frozen
    dataclass sets each field through ``object.__setattr__``, which made creating one 2.5 times as slow."""

    player: str
    kind: Kind
    options: Sequence[Option] | None
    info: RequestInfo = field(default_factory=RequestInfo)
    #: what validation needs and the player is not shown (hand sizes, recipients, defaults ...).
    ctx: RequestContext = field(default_factory=RequestContext)

    # (the casts name their types in strings: ``list[int]`` would build a new type object at every call)

    def locations(self) -> list[int]:
        """The options of an ``announce``, ``destination`` or ``zombie`` request."""
        return cast("list[int]", self.options or [])

    def names(self) -> list[str]:
        """The options of a ``vote`` (colours) or ``victim`` (characters) request."""
        return cast("list[str]", self.options or [])

    def placements(self) -> list[PlaceOption]:
        """The options of a ``place`` request."""
        return cast("list[PlaceOption]", self.options or [])

    def movable(self) -> list[MoveOption]:
        """The options of a ``move`` request."""
        return cast("list[MoveOption]", self.options or [])

    def to_json(self) -> RequestJSON:
        options = None if self.options is None else list(self.options)
        return {"player": self.player, "kind": self.kind, **self.info, "options": options}

    @classmethod
    def from_json(cls, data: RequestJSON) -> Request:
        """A request as its contract JSON shows it (a stored ``to_json``), for the predicates that read only what
        the player is shown (``asked_in_secret``, ``vote_decided``, ``standing_answer``); ``ctx`` stays empty. As
        lenient as those predicates were on the JSON itself: only ``kind`` is needed (no ``player``: "", no
        ``options``: None)."""
        info = {key: value for key, value in data.items() if key not in ("player", "kind", "options")}
        return cls(data.get("player", ""), Kind(data["kind"]), data.get("options"), cast(RequestInfo, info))


def asked_in_secret(request: Request) -> bool:
    """Whether being asked ``request`` tells what the player holds (B-INFO, H-2): a card window asks only players
    holding a card they may play, and a move with one movable character is asked only of a player holding a
    Sprint. Nothing public names such a request's player before the game is over."""
    kind = request.kind  # (compared with strings: an enum member is a slow lookup, and this runs per request)
    if kind == "cards":
        return True
    return kind == "move" and len(request.options or []) == 1


# --- user input in messages ------------------------------------------------------------------------------------


def shown(value: object) -> str:
    """User input as it may appear in a message: short, whatever was sent."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _open_locations(s: State) -> list[int]:
    return [loc for loc in LOCATIONS if loc not in s.closed]


class _Shape(NamedTuple):
    """A JSON object answer: its fields, the required ones, an example, and the refusals about its shape."""

    fields: frozenset[str]
    required: frozenset[str]
    example: str
    not_object: str
    unknown: str
    missing: str


_PLACEMENT = _Shape(
    frozenset({"character", "location", "fallback"}),
    frozenset({"character", "location"}),
    '{"character": "tough", "location": 3}',
    N_("A placement must be an object such as %(example)s."),
    N_("A placement: unknown field %(value)s; the fields are %(fields)s."),
    N_("A placement: '%(field)s' is missing, as in %(example)s."),
)
_MOVE = _Shape(
    frozenset({"character", "sprint", "sprint_if_full"}),
    frozenset({"character"}),
    '{"character": "pinup"}',
    N_("A move must be an object such as %(example)s."),
    N_("A move: unknown field %(value)s; the fields are %(fields)s."),
    N_("A move: '%(field)s' is missing, as in %(example)s."),
)
_TRUCK = _Shape(
    frozenset({"keep", "give", "to"}),
    frozenset({"keep", "give", "to"}),
    '{"keep": "sprint", "give": "axe", "to": "blue"}',
    N_("A truck answer must be an object such as %(example)s."),
    N_("A truck answer: unknown field %(value)s; the fields are %(fields)s."),
    N_("A truck answer: '%(field)s' is missing, as in %(example)s."),
)
_CARD_PLAY = _Shape(
    frozenset({"card", "character", "location", "if_needed"}),
    frozenset({"card"}),
    '{"card": "axe"}',
    N_("A card play must be an object such as %(example)s."),
    N_("A card play: unknown field %(value)s; the fields are %(fields)s."),
    N_("A card play: '%(field)s' is missing, as in %(example)s."),
)


def _object(raw: object, shape: _Shape) -> dict[str, object]:
    if isinstance(raw, dict) and shape.required <= raw.keys() <= shape.fields:
        return raw  # the usual case, checked at once; the refusals below name what is wrong
    if not isinstance(raw, dict):
        raise IllegalAnswer(shape.not_object, example=shape.example)
    unknown = sorted(set(raw) - shape.fields)
    if unknown:
        raise IllegalAnswer(shape.unknown, value=shown(unknown[0]), fields=sorted(shape.fields))
    missing = sorted(shape.required - set(raw))
    if missing:
        raise IllegalAnswer(shape.missing, field=missing[0], example=shape.example)
    return raw


# --- parsing ---------------------------------------------------------------------------------------------------


def parse(s: State, req: Request, raw: object) -> ParsedAnswer:
    """Check ``raw`` against the request and the state; return the parsed answer or raise IllegalAnswer."""
    return _PARSERS[req.kind](s, req, raw)


def _parse_location(s: State, req: Request, raw: object) -> int:
    options = req.locations()
    if not _is_int(raw) or raw not in options:
        raise IllegalAnswer(
            N_("%(value)s is not a location you can choose now; choose one of %(locations)s."),
            value=shown(raw),
            locations=options,
        )
    assert isinstance(raw, int)
    return raw


def _parse_vote(s: State, req: Request, raw: object) -> str:
    options = req.names()
    if raw not in options:
        raise IllegalAnswer(
            N_("You cannot vote for %(value)s here; vote for one of %(colours)s."), value=shown(raw), colours=options
        )
    assert isinstance(raw, str)
    return raw


def _parse_victim(s: State, req: Request, raw: object) -> str:
    options = req.names()
    if raw not in options:
        raise IllegalAnswer(
            N_("%(value)s is not one of your characters who can be eaten here: %(characters)s."),
            value=shown(raw),
            characters=options,
        )
    assert isinstance(raw, str)
    return raw


def _parse_place(s: State, req: Request, raw: object) -> Placement:
    obj = _object(raw, _PLACEMENT)
    character, loc = obj["character"], obj["location"]
    if character not in req.ctx["unplaced"]:
        raise IllegalAnswer(
            N_("%(value)s is not one of your characters still to place: %(characters)s."),
            value=shown(character),
            characters=req.ctx["unplaced"],
        )
    if {"character": character, "location": loc} not in (req.options or []):
        raise IllegalAnswer(
            N_("You cannot place a character at %(value)s; the dice allow %(locations)s."),
            value=shown(loc),
            locations=req.ctx["spots"],
        )
    fallback = obj.get("fallback")
    if fallback is not None and (not _is_int(fallback) or fallback not in LOCATIONS or fallback in s.closed):
        raise IllegalAnswer(N_("The fallback must be an open location, not %(value)s."), value=shown(fallback))
    return Placement(character, cast(int, loc), fallback)  # an option's location; checked


def _parse_move(s: State, req: Request, raw: object) -> MoveChoice:
    obj = _object(raw, _MOVE)
    character = obj["character"]
    movable = [o["character"] for o in req.movable()]
    if character not in movable:
        raise IllegalAnswer(
            N_("You cannot move %(value)s; you can move %(characters)s."), value=shown(character), characters=movable
        )
    sprint = obj.get("sprint")
    if_full = obj.get("sprint_if_full", False)
    if not isinstance(if_full, bool):
        raise IllegalAnswer(N_("sprint_if_full must be true or false."))
    if sprint is None:
        if if_full:
            raise IllegalAnswer(N_('sprint_if_full needs a Sprint location ("sprint": 3).'))
        return MoveChoice(character)
    if not req.ctx["can_sprint"]:
        if "sprint" not in s.hands[req.player]:
            raise IllegalAnswer(N_("You have no Sprint card to play."))
        raise IllegalAnswer(N_("In this game Sprint cards are played after all moves, not with the move."))
    _check_sprint_location(s, sprint)
    return MoveChoice(character, cast(int, sprint), if_full)


def _check_sprint_location(s: State, loc: object) -> None:
    if not _is_int(loc) or loc not in LOCATIONS or loc in s.closed:
        raise IllegalAnswer(N_("A Sprint must go to an open location: %(locations)s."), locations=_open_locations(s))


def _parse_truck(s: State, req: Request, raw: object) -> TruckChoice:
    cards: list[str] = req.info["cards"]
    recipients: list[str] = req.ctx["recipients"]
    obj = _object(raw, _TRUCK)
    keep, give, to = obj["keep"], obj["give"], obj["to"]
    left = list(cards)
    if keep not in left:
        raise IllegalAnswer(N_("You can only keep one of the cards you drew: %(cards)s."), cards=cards)
    left.remove(keep)
    if give not in left:
        raise IllegalAnswer(N_("You can only give one of the other cards you drew: %(cards)s."), cards=left)
    if to not in recipients:
        raise IllegalAnswer(
            N_("You must give the card to another player who still has characters: %(colours)s."), colours=recipients
        )
    return TruckChoice(keep, give, to)


def _parse_cards(s: State, req: Request, raw: object) -> list[Play]:
    if not isinstance(raw, list):
        raise IllegalAnswer(N_('Play a list of cards, such as [{"card": "axe"}], or [] to pass.'))
    if not raw:
        return []  # a pass
    hand = s.hands[req.player]
    used: dict[str, int] = {}
    hidden_now: set[str] = set()
    plays: list[Play] = []
    for item in raw:
        obj = _object(item, _CARD_PLAY)
        card = _playable_card(req, obj["card"])
        used[card] = used.get(card, 0) + 1
        if used[card] > hand.count(card):
            raise IllegalAnswer(N_("You do not hold that many %(card)s cards."), card=card)
        character, location = cast("str | None", obj.get("character")), cast("int | None", obj.get("location"))
        play = Play(card, character, location, _if_needed(card, obj))  # its character and location checked next
        _check_play_target(s, req, play, used[card], hidden_now)
        plays.append(play)
    return plays


def _playable_card(req: Request, card: object) -> str:
    """The card named by a play, if it may be played in this window."""
    playable: list[str] = req.info["playable"]
    if card not in playable:
        if not isinstance(card, str) or card not in CARD_NAMES:
            raise IllegalAnswer(N_("%(value)s is not a card of this game."), value=shown(card))
        raise IllegalAnswer(N_("%(card)s cannot be played now; you may play %(cards)s."), card=card, cards=playable)
    assert isinstance(card, str)
    return card


def _if_needed(card: str, obj: dict[str, object]) -> bool:
    """H-3: ``if_needed`` is a boolean, allowed on Weapon, Hardware and Hidden plays only."""
    if_needed = obj.get("if_needed", False)
    if not isinstance(if_needed, bool):
        raise IllegalAnswer(N_("if_needed must be true or false."))
    if if_needed and card not in IF_NEEDED_CARDS:
        raise IllegalAnswer(N_("Only Weapon, Hardware and Hidden plays can be marked if_needed."))
    return if_needed


def _check_play_target(s: State, req: Request, play: Play, count: int, hidden_now: set[str]) -> None:
    """The character and location a play names: Hidden names a character, Sprint a character and a location,
    the other cards neither; ``count`` is how many of this card the answer has played so far."""
    card, character = play.card, play.character
    if card == "hidden":
        if character not in req.ctx["can_hide"] or character in hidden_now:
            raise IllegalAnswer(
                N_("Hidden must name one of your characters here who is not hidden: %(characters)s."),
                characters=req.ctx["can_hide"],
            )
        hidden_now.add(str(character))
    elif card == "sprint":
        _check_sprint_play(s, req, play, count)
    elif card == "camera" and count > 1:
        raise IllegalAnswer(N_("One Security Camera is enough to see the dice."))
    if card not in ("hidden", "sprint") and (character is not None or play.location is not None):
        raise IllegalAnswer(N_("%(card)s takes no character or location."), card=card)


def _check_sprint_play(s: State, req: Request, play: Play, count: int) -> None:
    """A Sprint after all moves (option sprint_timing): one, for the character just moved, to an open location."""
    moved = req.ctx["moved"]
    if play.character != moved:
        raise IllegalAnswer(N_("A Sprint changes the move you just made: name your %(character)s."), character=moved)
    if count > 1:
        raise IllegalAnswer(N_("One Sprint per move."))
    _check_sprint_location(s, play.location)


_PARSERS: dict[Kind, Callable[[State, Request, object], ParsedAnswer]] = {
    Kind.PLACE: _parse_place,
    Kind.CARDS: _parse_cards,
    Kind.VOTE: _parse_vote,
    Kind.VICTIM: _parse_victim,
    Kind.TRUCK: _parse_truck,
    Kind.ANNOUNCE: _parse_location,
    Kind.DESTINATION: _parse_location,
    Kind.ZOMBIE: _parse_location,
    Kind.MOVE: _parse_move,
}


# --- H-4 defaults and H-2 forced answers ---------------------------------------------------------------------


def default(s: State, req: Request, standing: dict[str, list[str]]) -> ParsedAnswer:
    """The answer given when the deadline passes (H-4); logged as defaulted by the caller."""
    kind = req.kind
    if kind == Kind.CARDS:
        return []
    if kind in (Kind.VOTE, Kind.ZOMBIE):
        return None
    if kind in (Kind.ANNOUNCE, Kind.DESTINATION):
        return quietest(s, req.locations())  # the zombies have not moved since the request was made
    if kind == Kind.VICTIM:
        return by_standing_order(req.names(), standing.get(req.player)) or lowest_value(req.names())
    if kind == Kind.MOVE:
        return MoveChoice(lowest_value(o["character"] for o in req.movable()))
    if kind == Kind.PLACE:
        rank = {ch: i for i, ch in enumerate(BY_VALUE)}
        best = min(req.placements(), key=lambda o: (rank[o["character"]], o["location"]))
        return Placement(best["character"], best["location"])
    if kind == Kind.TRUCK:
        cards = req.info["cards"]
        return TruckChoice(cards[0], cards[1], req.ctx["recipients"][0])
    raise AssertionError(kind)


def by_standing_order(options: list[str], order: list[str] | None) -> str | None:
    """H-5: the first character of the standing order that can be the victim."""
    for ch in order or ():
        if ch in options:
            return ch
    return None


def forced(s: State, req: Request, standing: dict[str, list[str]]) -> tuple[bool, ParsedAnswer]:
    """H-2 / H-5: ``(True, answer)`` when the request must not be shown to the player."""
    kind = req.kind
    options = req.options or []
    if kind == "victim":  # (a string: ``Kind.VICTIM`` is a slow attribute lookup, and this runs for every request)
        chosen = by_standing_order(req.names(), standing.get(req.player))
        if chosen is not None:
            return True, chosen
        if len(options) == 1:
            return True, req.names()[0]
    elif len(options) == 1:
        if kind == "move" and not req.ctx["can_sprint"]:
            return True, MoveChoice(req.movable()[0]["character"])
        if kind == "place":
            only = req.placements()[0]
            return True, Placement(only["character"], only["location"])
        if kind in ("announce", "destination", "zombie"):
            return True, req.locations()[0]
        if kind == "vote":
            return True, req.names()[0]
    return False, None


def answer_json(kind: str, value: ParsedAnswer) -> JSON:
    """The contract's JSON form of a parsed answer (for events and replays); the value's type says its shape, so
    ``kind`` (the request's) is not needed any more and is kept for callers."""
    if isinstance(value, Placement):
        out: JSONObject = {"character": value.character, "location": value.location}
        if value.fallback is not None:
            out["fallback"] = value.fallback
        return out
    if isinstance(value, MoveChoice):
        out = {"character": value.character}
        if value.sprint is not None:
            out["sprint"] = value.sprint
            if value.sprint_if_full:
                out["sprint_if_full"] = True
        return out
    if isinstance(value, TruckChoice):
        return {"keep": value.keep, "give": value.give, "to": value.to}
    if isinstance(value, list):
        plays: list[JSON] = [play_json(p) for p in value]
        return plays
    return value


def play_json(play: Play) -> JSONObject:
    out: JSONObject = {"card": play.card}
    if play.character is not None:
        out["character"] = play.character
    if play.location is not None:
        out["location"] = play.location
    if play.if_needed:
        out["if_needed"] = True
    return out
