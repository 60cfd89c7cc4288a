"""Requests (RULES.md H-1): what a player is asked, how an answer is checked, and its H-4 default.

An answer is parsed into a small Python value the flow applies:

- ``place``: ``(character, location, fallback | None)``
- ``cards``: a list of :class:`Play`
- ``vote``: a colour, or ``None`` for an abstention (timeout only)
- ``victim``: a character
- ``truck``: ``(keep, give | None, to | None)``
- ``announce`` / ``destination``: a location; ``zombie``: a location or ``None`` (timeout)
- ``move``: ``(character, sprint location | None, sprint_if_full)``
"""

from __future__ import annotations

from collections import Counter
from typing import Any, NamedTuple

from .data import (
    BY_VALUE,
    CARD_NAMES,
    CHARACTER_NAMES,
    IF_NEEDED_CARDS,
    LOCATION_NAMES,
    LOCATIONS,
)
from .errors import IllegalAnswer
from .rules import lowest_value
from .state import State


class Play(NamedTuple):
    """One card played in a card window."""

    card: str
    character: str | None = None
    location: int | None = None
    if_needed: bool = False


class Request:
    """One decision owed by one player. ``info`` holds the extra keys of the contract (window, location, ...)."""

    __slots__ = ("player", "kind", "options", "info", "ctx")

    def __init__(
        self,
        player: str,
        kind: str,
        options: list[Any] | None,
        info: dict[str, Any] | None = None,
        ctx: dict[str, Any] | None = None,
    ) -> None:
        self.player = player
        self.kind = kind
        self.options = options
        self.info = info if info is not None else {}
        #: what validation needs and the player is not shown (hand sizes, recipients, defaults ...).
        self.ctx = ctx if ctx is not None else {}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "kind": self.kind}
        out.update(self.info)
        out["options"] = None if self.options is None else list(self.options)
        return out

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Request({self.to_json()!r})"


# --- names in words --------------------------------------------------------------------------------------------


def place_name(loc: int) -> str:
    return f"{loc} ({LOCATION_NAMES[loc]})"


def _places(locations: list[int]) -> str:
    return ", ".join(place_name(loc) for loc in locations)


def _chars(characters: list[str]) -> str:
    return ", ".join(f"{CHARACTER_NAMES[c]} ({c})" for c in characters)


def shown(value: object) -> str:
    """User input as it may appear in a message: short, whatever was sent."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _object(raw: object, what: str, allowed: set[str], required: set[str]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise IllegalAnswer(f"{what} must be an object such as {_EXAMPLES[what]}.")
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise IllegalAnswer(f"{what}: unknown field {shown(unknown[0])}; the fields are {', '.join(sorted(allowed))}.")
    missing = sorted(required - set(raw))
    if missing:
        raise IllegalAnswer(f"{what}: {shown(missing[0])} is missing, as in {_EXAMPLES[what]}.")
    return raw


_EXAMPLES = {
    "A placement": '{"character": "tough", "location": 3}',
    "A move": '{"character": "pinup"}',
    "A truck answer": '{"keep": "sprint", "give": "axe", "to": "blue"}',
    "A card play": '{"card": "axe"}',
}


# --- parsing ---------------------------------------------------------------------------------------------------


def parse(s: State, req: Request, raw: object) -> Any:
    """Check ``raw`` against the request and the state; return the parsed answer or raise IllegalAnswer."""
    return _PARSERS[req.kind](s, req, raw)


def _parse_location(s: State, req: Request, raw: object) -> int:
    options: list[int] = req.options or []
    if not _is_int(raw) or raw not in options:
        raise IllegalAnswer(f"{shown(raw)} is not a location you can choose now; choose one of {_places(options)}.")
    assert isinstance(raw, int)
    return raw


def _parse_vote(s: State, req: Request, raw: object) -> str:
    options: list[str] = req.options or []
    if raw not in options:
        raise IllegalAnswer(f"You cannot vote for {shown(raw)} here; vote for one of {', '.join(options)}.")
    assert isinstance(raw, str)
    return raw


def _parse_victim(s: State, req: Request, raw: object) -> str:
    options: list[str] = req.options or []
    if raw not in options:
        raise IllegalAnswer(f"{shown(raw)} is not one of your characters who can be eaten here: {_chars(options)}.")
    assert isinstance(raw, str)
    return raw


def _parse_place(s: State, req: Request, raw: object) -> tuple[str, int, int | None]:
    obj = _object(raw, "A placement", {"character", "location", "fallback"}, {"character", "location"})
    character, loc = obj["character"], obj["location"]
    if character not in req.ctx["unplaced"]:
        raise IllegalAnswer(
            f"{shown(character)} is not one of your characters still to place: {_chars(req.ctx['unplaced'])}."
        )
    if {"character": character, "location": loc} not in (req.options or []):
        raise IllegalAnswer(
            f"You cannot place a character at {shown(loc)}; the dice allow {_places(req.ctx['spots'])}."
        )
    fallback = obj.get("fallback")
    if fallback is not None and (not _is_int(fallback) or fallback not in LOCATIONS or fallback in s.closed):
        raise IllegalAnswer(f"The fallback must be an open location, not {shown(fallback)}.")
    return character, loc, fallback


def _parse_move(s: State, req: Request, raw: object) -> tuple[str, int | None, bool]:
    obj = _object(raw, "A move", {"character", "sprint", "sprint_if_full"}, {"character"})
    character = obj["character"]
    movable = [o["character"] for o in req.options or []]
    if character not in movable:
        raise IllegalAnswer(f"You cannot move {shown(character)}; you can move {_chars(movable)}.")
    sprint = obj.get("sprint")
    if_full = obj.get("sprint_if_full", False)
    if not isinstance(if_full, bool):
        raise IllegalAnswer("sprint_if_full must be true or false.")
    if sprint is None:
        if if_full:
            raise IllegalAnswer('sprint_if_full needs a Sprint location ("sprint": 3).')
        return character, None, False
    if not req.ctx["can_sprint"]:
        if "sprint" not in s.hands[req.player]:
            raise IllegalAnswer("You have no Sprint card to play.")
        raise IllegalAnswer("In this game Sprint cards are played after all moves, not with the move.")
    if not _is_int(sprint) or sprint not in LOCATIONS or sprint in s.closed:
        open_ = [loc for loc in LOCATIONS if loc not in s.closed]
        raise IllegalAnswer(f"A Sprint must go to an open location: {_places(open_)}.")
    return character, sprint, if_full


def _parse_truck(s: State, req: Request, raw: object) -> tuple[str, str | None, str | None]:
    cards: list[str] = req.info["cards"]
    recipients: list[str] = req.ctx["recipients"]
    obj = _object(raw, "A truck answer", {"keep", "give", "to"}, {"keep", "give", "to"})
    keep, give, to = obj["keep"], obj["give"], obj["to"]
    left = list(cards)
    if keep not in left:
        raise IllegalAnswer(f"You can only keep one of the cards you drew: {', '.join(cards)}.")
    left.remove(keep)
    if give not in left:
        raise IllegalAnswer(f"You can only give one of the other cards you drew: {', '.join(left)}.")
    if to not in recipients:
        raise IllegalAnswer(
            f"You must give the card to another player who still has characters: {', '.join(recipients)}."
        )
    return keep, give, to


def _parse_cards(s: State, req: Request, raw: object) -> list[Play]:
    if not isinstance(raw, list):
        raise IllegalAnswer('Play a list of cards, such as [{"card": "axe"}], or [] to pass.')
    playable: list[str] = req.info["playable"]
    hand = Counter(s.hands[req.player])
    used: Counter[str] = Counter()
    hidden_now: set[str] = set()
    plays: list[Play] = []
    for item in raw:
        obj = _object(item, "A card play", {"card", "character", "location", "if_needed"}, {"card"})
        card = obj["card"]
        if card not in playable:
            if not isinstance(card, str) or card not in CARD_NAMES:
                raise IllegalAnswer(f"{shown(card)} is not a card of this game.")
            can = ", ".join(CARD_NAMES[c] for c in playable)
            raise IllegalAnswer(f"{CARD_NAMES[card]} cannot be played now; you may play {can}.")
        used[card] += 1
        if used[card] > hand[card]:
            raise IllegalAnswer(f"You do not hold that many {CARD_NAMES[card]} cards.")
        if_needed = obj.get("if_needed", False)
        if not isinstance(if_needed, bool):
            raise IllegalAnswer("if_needed must be true or false.")
        if if_needed and card not in IF_NEEDED_CARDS:
            raise IllegalAnswer("Only Weapon, Hardware and Hidden plays can be marked if_needed.")
        character, loc = obj.get("character"), obj.get("location")
        if card == "hidden":
            if character not in req.ctx["can_hide"] or character in hidden_now:
                raise IllegalAnswer(
                    f"Hidden must name one of your characters here who is not hidden: {_chars(req.ctx['can_hide'])}."
                )
            hidden_now.add(str(character))
        elif card == "sprint":
            moved = req.ctx["moved"]
            if character != moved:
                raise IllegalAnswer(
                    f"A Sprint changes the move you just made: name your {CHARACTER_NAMES[moved]} ({moved})."
                )
            if used[card] > 1:
                raise IllegalAnswer("One Sprint per move.")
            if not _is_int(loc) or loc not in LOCATIONS or loc in s.closed:
                open_ = [x for x in LOCATIONS if x not in s.closed]
                raise IllegalAnswer(f"A Sprint must go to an open location: {_places(open_)}.")
        elif card == "camera" and used[card] > 1:
            raise IllegalAnswer("One Security Camera is enough to see the dice.")
        if card not in ("hidden", "sprint") and (character is not None or loc is not None):
            raise IllegalAnswer(f"{CARD_NAMES[card]} takes no character or location.")
        plays.append(Play(card, character, loc, if_needed))
    return plays


_PARSERS = {
    "place": _parse_place,
    "cards": _parse_cards,
    "vote": _parse_vote,
    "victim": _parse_victim,
    "truck": _parse_truck,
    "announce": _parse_location,
    "destination": _parse_location,
    "zombie": _parse_location,
    "move": _parse_move,
}


# --- H-4 defaults and H-2 forced answers ---------------------------------------------------------------------


def default(s: State, req: Request, standing: dict[str, list[str]]) -> Any:
    """The answer given when the deadline passes (H-4); logged as defaulted by the caller."""
    kind = req.kind
    if kind == "cards":
        return []
    if kind in ("vote", "zombie"):
        return None
    if kind in ("announce", "destination"):
        return req.ctx["quietest"]
    if kind == "victim":
        return by_standing_order(req.options or [], standing.get(req.player)) or lowest_value(req.options or [])
    if kind == "move":
        return lowest_value(o["character"] for o in req.options or []), None, False
    if kind == "place":
        rank = {ch: i for i, ch in enumerate(BY_VALUE)}
        best = min(req.options or [], key=lambda o: (rank[o["character"]], o["location"]))
        return best["character"], best["location"], None
    if kind == "truck":
        cards = req.info["cards"]
        return cards[0], cards[1], req.ctx["recipients"][0]
    raise AssertionError(kind)


def by_standing_order(options: list[str], order: list[str] | None) -> str | None:
    """H-5: the first character of the standing order that can be the victim."""
    for ch in order or ():
        if ch in options:
            return ch
    return None


def forced(s: State, req: Request, standing: dict[str, list[str]]) -> tuple[bool, Any]:
    """H-2 / H-5: ``(True, answer)`` when the request must not be shown to the player."""
    kind = req.kind
    options = req.options or []
    if kind == "victim":
        chosen = by_standing_order(options, standing.get(req.player))
        if chosen is not None:
            return True, chosen
        if len(options) == 1:
            return True, options[0]
    elif len(options) == 1:
        if kind == "move" and not req.ctx["can_sprint"]:
            return True, (options[0]["character"], None, False)
        if kind == "place":
            return True, (options[0]["character"], options[0]["location"], None)
        if kind in ("announce", "destination", "zombie", "vote"):
            return True, options[0]
    return False, None


def answer_json(kind: str, value: Any) -> Any:
    """The contract's JSON form of a parsed answer (for events)."""
    if kind == "cards":
        return [play_json(p) for p in value]
    if kind == "place":
        out = {"character": value[0], "location": value[1]}
        if value[2] is not None:
            out["fallback"] = value[2]
        return out
    if kind == "move":
        out = {"character": value[0]}
        if value[1] is not None:
            out["sprint"] = value[1]
            if value[2]:
                out["sprint_if_full"] = True
        return out
    if kind == "truck":
        return {"keep": value[0], "give": value[1], "to": value[2]}
    return value


def play_json(play: Play) -> dict[str, Any]:
    out: dict[str, Any] = {"card": play.card}
    if play.character is not None:
        out["character"] = play.character
    if play.location is not None:
        out["location"] = play.location
    if play.if_needed:
        out["if_needed"] = True
    return out
