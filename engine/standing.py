"""Standing answers (beyond H-5): what a player said in advance for the small steps, so they are not asked.

``standing_answer(view, request, standing)`` gives the answer a player's standing answers give to one of their
requests, computed from that player's own view (``engine.view(game, colour)``) and what the request shows the
player only; None means "ask me". ``standing`` is a dict whose missing keys (or the value ``"ask"``) mean "ask me":

- ``cards``: ``"pass"`` — the card windows before the truck and Chief votes (Threat) and the Sprint window: pass;
- ``camera``: ``"look"`` — the arrival window (C-3): play the Security Camera;
- ``attack``: ``"if_needed"`` — an attack card window (F-4): play every Weapon and Hardware in hand that may be
  played, and one Hidden on the player's most valuable non-hidden character there, each ``if_needed`` (H-3);
  Threat is not played (a hand with nothing else passes);
- ``vote``: a policy of ``VOTE_POLICIES`` (VOT-1), each using only what the player sees;
- ``victim``: an order of characters (H-5): the first one that can be the victim.

The vote policies (points are the B-END values of the characters still on the board, which are public; ties go to
the colour first in seating order from the Chief; a policy that cannot pick, for example when only the player's own
colour may be chosen, asks):

- ``against_leader``: in a truck or Chief vote, for my own colour when I can, else for the colour with the fewest
  points; in an attack, against the colour with the most points among those that may be chosen, never mine.
- ``against_most_here``: in a truck or Chief vote, as ``against_leader``; in an attack, against the colour with the
  most non-hidden characters at the location, never mine (ties: the most points, then seating order).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .data import CARDS, POINTS, WEAPONS, Kind
from .requests import Request
from .rules import order_from
from .shapes import JSON, PlayerView

ASK = "ask"
#: the names of the vote policies, in the order they are offered.
VOTE_POLICIES = ("against_leader", "against_most_here")
#: each setting with the values it takes besides "ask" (``victim`` takes an order of characters).
CHOICES: dict[str, tuple[str, ...]] = {
    "cards": ("pass",),
    "camera": ("look",),
    "attack": ("if_needed",),
    "vote": VOTE_POLICIES,
}
#: the settings, in the order they are shown.
KEYS = ("cards", "camera", "attack", "vote", "victim")


def setting_for(request: Request) -> str | None:
    """The setting that may answer ``request``, or None when no setting does."""
    kind = request.kind
    if kind == Kind.CARDS:
        window = request.info.get("window")
        return {"truck": "cards", "chief": "cards", "sprint": "cards", "arrival": "camera", "attack": "attack"}.get(
            str(window)
        )
    if kind == Kind.VOTE:
        return "vote"
    if kind == Kind.VICTIM:
        return "victim"
    return None


def standing_answer(view: PlayerView, request: Request, standing: Mapping[str, object]) -> JSON:
    """The answer ``standing`` gives to ``request`` for the player whose ``view`` this is; None: ask them."""
    key = setting_for(request)
    if key is None or request.player != view["you"]:
        return None
    value = standing.get(key)
    if value is None or value == ASK:
        return None
    if key == "victim":
        options = request.options or []
        return next((c for c in value if c in options), None) if isinstance(value, list) else None
    if key == "vote":
        policy = _POLICIES.get(str(value))
        return None if policy is None else policy(view, request)
    playable = request.info.get("playable", [])
    if value == "pass" and key == "cards":
        return []
    if value == "look" and key == "camera":
        return [{"card": "camera"}] if "camera" in playable else None
    if value == "if_needed" and key == "attack":
        return _attack_plays(view, request, playable)
    return None


def _attack_plays(view: PlayerView, request: Request, playable: list[str]) -> list[JSON]:
    """F-4 / H-3: every Weapon and Hardware held, and one Hidden on the most valuable character there, if needed."""
    hand: list[str] = view["hand"]
    plays: list[JSON] = []
    for card in CARDS:
        if card in playable and (card in WEAPONS or card == "hardware"):
            plays += [{"card": card, "if_needed": True}] * hand.count(card)
    loc = request.info.get("location")
    me = view["you"]
    hidden = {(p, c) for p, c in view["hidden"]}
    here = [c for c, at in view["characters"][me].items() if at == loc and (me, c) not in hidden]
    if "hidden" in playable and here:
        best = max(here, key=lambda c: POINTS[c])
        plays.append({"card": "hidden", "character": best, "if_needed": True})
    return plays


def _points(view: PlayerView, colour: str) -> int:
    return sum(POINTS[c] for c in view["characters"].get(colour, {}))


def _seating(view: PlayerView) -> list[str]:
    return order_from(view["players"], view["chief"])


def _fewest_points(view: PlayerView, options: list[str]) -> str:
    seats = _seating(view)
    return min(options, key=lambda c: (_points(view, c), seats.index(c)))


def _for_me_or_weakest(view: PlayerView, request: Request) -> str | None:
    """A truck or Chief vote (VOT-1): my own colour when I may vote for it, else the colour with the fewest points."""
    options = list(request.names())
    if not options:
        return None
    me = view["you"]
    return me if me in options else _fewest_points(view, options)


Score = Callable[[PlayerView, Request, str], tuple[int, ...]]
Policy = Callable[[PlayerView, Request], str | None]


def _against(score: Score) -> Policy:
    """An attack vote against the colour that ``score`` puts highest, never mine; other votes for me or the weakest."""

    def policy(view: PlayerView, request: Request) -> str | None:
        if view["phase"] != "attack":
            return _for_me_or_weakest(view, request)
        others: list[str] = [str(c) for c in request.options or [] if c != view["you"]]
        if not others:
            return None  # only my own colour may be chosen: ask (the engine answers it when it is forced, H-2)
        seats = _seating(view)
        return min(others, key=lambda c: (*(-n for n in score(view, request, c)), seats.index(c)))

    return policy


def _here(view: PlayerView, colour: str, loc: int | None) -> int:
    hidden = {(p, c) for p, c in view["hidden"]}
    return sum(1 for c, at in view["characters"].get(colour, {}).items() if at == loc and (colour, c) not in hidden)


_POLICIES: dict[str, Policy] = {
    "against_leader": _against(lambda view, request, c: (_points(view, c),)),
    "against_most_here": _against(
        lambda view, request, c: (_here(view, c, request.info.get("location")), _points(view, c))
    ),
}
