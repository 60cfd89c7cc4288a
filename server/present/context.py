"""The decision in context: what a request is about, in the table's own terms, built from the reader's view only.

For a vote, who votes with how many votes (VOT-2: characters not hidden, the Gunman's extra vote, the Threat cards
already played and so public; VOT-7 for a re-vote) and who may be voted for; for a choice of location, how full
each location is and how many zombies stand in front of it; for a card window, what each playable card would do
right now. Everything comes from ``engine.view`` of the reader: the public board, the public events, the reader's
own request and hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import engine
from engine.data import CAPACITY, LOCATIONS, PARKING, SUPERMARKET, SUPERMARKET_CAP, WEAPONS

from ..text import glossary
from ..text.i18n import translations
from ..text.sentences import Names, player_label
from . import public

__all__ = ["Context", "Row", "context"]

#: events after which Threat cards played before a vote no longer count (the vote they were for was held).
_VOTE_ENDS = frozenset({"round_started", "votes_revealed", "vote_uncontested", "attack", "eaten", "truck_skipped"})


@dataclass
class Row:
    cells: list[str]
    #: the reader's own row (their colour, a location where their characters stand): shown marked, with ``mark``.
    mine: bool = False
    mark: str = ""


@dataclass
class Context:
    """A small table beside the choices: a caption, the column headings, the rows, and sentences under it."""

    caption: str
    columns: list[str]
    rows: list[Row]
    notes: list[str] = field(default_factory=list)


def context(
    lang: str, view: engine.PlayerView, request: engine.RequestJSON, names: Names | None = None
) -> Context | None:
    """The context of the reader's open ``request``; None for a request it would not help (a victim, a truck)."""
    kind = request["kind"]
    if kind == "vote":
        return _vote(lang, view, request, names)
    if kind in ("destination", "announce", "zombie", "place"):
        return _locations(lang, view, request, names)
    if kind == "cards":
        return _cards(lang, view, request)
    return None


# --- counting on the public board ---------------------------------------------------------------------------------


def _at(view: engine.PlayerView, colour: str, loc: int) -> list[str]:
    """The colour's characters at ``loc``, hidden ones included."""
    return [ch for ch, at in view["characters"][colour].items() if at == loc]


def _visible(view: engine.PlayerView, colour: str, loc: int) -> list[str]:
    hidden = {(p, c) for p, c in view["hidden"]}
    return [ch for ch in _at(view, colour, loc) if (colour, ch) not in hidden]


def _since_vote(view: engine.PlayerView) -> list[engine.Event]:
    """The public events since the last vote was held (or the round started)."""
    events = view["events"]
    start = max((i + 1 for i, e in enumerate(events) if e["type"] in _VOTE_ENDS), default=0)
    return events[start:]


def _played(view: engine.PlayerView, card: str, loc: int) -> dict[str, int]:
    """Who played how many ``card`` cards at ``loc`` since the last vote: played cards are public (card_played
    events)."""
    out: dict[str, int] = {}
    for e in _since_vote(view):
        if e["type"] == "card_played" and e["card"] == card and e.get("location") in (loc, None):
            out[e["player"]] = out.get(e["player"], 0) + 1
    return out


def _place(lang: str, loc: Any) -> str:
    return glossary.location_label(lang, int(loc))


# --- votes ------------------------------------------------------------------------------------------------------------


def _vote(lang: str, view: engine.PlayerView, request: engine.RequestJSON, names: Names | None) -> Context:
    t = translations(lang)
    loc = request["location"]
    assert loc is not None  # a vote is held at a location
    you = view["you"]
    revote = request["revote"]
    rows: list[Row] = []
    if revote:
        first: dict[str, int] = next(
            (
                e["weights"]
                for e in reversed(view["events"])
                if e["type"] == "votes_revealed" and e["location"] == loc and not e["revote"]
            ),
            {},
        )
        for colour in _from_chief(view):
            if _at(view, colour, loc):
                weight = first.get(colour, 0)
                why = t.gettext("the same votes as in the first vote")
            else:
                weight = 1
                why = t.gettext("no character here: one vote")
            if colour == you:
                weight = request["weight"]  # (never 0: a weight of 0 is not asked, H-2)
            if weight > 0:
                rows.append(_voter(lang, colour, names, [str(weight), why], you))
    else:
        threats = _played(view, "threat", loc)
        for colour in _from_chief(view):
            mine = _visible(view, colour, loc)
            if not mine and not threats.get(colour):  # VOT-2: all hidden, yet a Threat played gives a vote
                continue
            reasons = [t.ngettext("%(num)d character", "%(num)d characters", len(mine)) % {"num": len(mine)}]
            reasons = reasons if mine else []
            if "gunman" in mine:
                reasons.append(t.gettext("%(gunman)s +1") % {"gunman": glossary.character_name(lang, "gunman")})
            if threats.get(colour):
                reasons.append(
                    t.gettext("%(threat)s +%(num)d")
                    % {"threat": glossary.card_name(lang, "threat"), "num": threats[colour]}
                )
            weight = _vote_weight(view, colour, loc)
            if colour == you:
                weight = request["weight"]
            rows.append(_voter(lang, colour, names, [str(weight), ", ".join(reasons)], you))
    options = [player_label(lang, c, names) for c in request["options"] or []]
    notes = [t.gettext("May be voted for: %(colours)s.") % {"colours": ", ".join(options)}]
    if revote:
        notes.append(t.gettext("A re-vote: only the colours tied for first place may be chosen, and everyone votes."))
    notes.append(t.gettext("The colour with the most votes wins; a tie means a re-vote."))
    return Context(
        caption=t.gettext("Who votes at %(place)s") % {"place": _place(lang, loc)},
        columns=[t.gettext("Player"), str(t.pgettext("how many votes", "Votes")), t.gettext("Why")],
        rows=rows,
        notes=notes,
    )


def _voter(lang: str, colour: str, names: Names | None, cells: list[str], you: str) -> Row:
    mark = str(translations(lang).pgettext("in a list", "you")) if colour == you else ""
    return Row([player_label(lang, colour, names), *cells], colour == you, mark)


def _from_chief(view: engine.PlayerView) -> list[str]:
    players = list(view["players"])
    chief = view["chief"]
    if chief not in players:
        return players
    i = players.index(chief)
    return players[i:] + players[:i]


# --- locations ----------------------------------------------------------------------------------------------------


def _locations(lang: str, view: engine.PlayerView, request: engine.RequestJSON, names: Names | None) -> Context:
    t = translations(lang)
    you = view["you"]
    options = request["options"] or []
    allowed = {int(o["location"]) if isinstance(o, dict) else int(o) for o in options}
    closed = set(view["closed"])
    rows = []
    for loc in LOCATIONS:
        if loc in closed:
            continue
        used, cap = public.count_at(view, loc), CAPACITY[loc]
        places = t.gettext("%(used)s (no limit)") % {"used": used} if cap is None else f"{used}/{cap}"
        if cap is not None and used >= cap:
            places += " " + t.gettext("(full)")
        label = _place(lang, loc)
        if loc not in allowed:
            label += " — " + t.gettext("not for you now")
        mine = bool(_at(view, you, loc))
        mark = t.gettext("your characters") if mine else ""
        rows.append(Row([label, places, str(public.zombies(view, loc))], mine, mark))
    notes = []
    for colour, loc in view["destinations"].items():
        if colour != you:
            notes.append(
                t.gettext("The Chief, %(player)s, goes to %(place)s.")
                % {"player": player_label(lang, colour, names), "place": _place(lang, loc)}
            )
    if request["kind"] in ("destination", "announce"):
        notes.append(
            t.gettext("A location that is full when your character arrives sends it to the Parking Lot instead.")
        )
    return Context(
        caption=t.gettext("The locations now"),
        columns=[t.gettext("Location"), t.gettext("Places taken"), t.gettext("Zombies in front")],
        rows=rows,
        notes=notes,
    )


# --- cards --------------------------------------------------------------------------------------------------------


def _cards(lang: str, view: engine.PlayerView, request: engine.RequestJSON) -> Context:
    t = translations(lang)
    loc = request["location"]
    rows = []
    for card in dict.fromkeys(request["playable"]):
        rows.append(Row([glossary.card_name(lang, card), _card_now(lang, view, request, card)]))
    notes = []
    if request["window"] == "attack" and loc is not None:
        notes.append(_attack_now(lang, view, loc))
    return Context(
        caption=t.gettext("What your cards would do now"),
        columns=[t.gettext("Card"), t.gettext("Now")],
        rows=rows,
        notes=notes,
    )


def _attack_now(lang: str, view: engine.PlayerView, loc: int) -> str:
    t = translations(lang)
    zombies = public.zombies(view, loc)
    values = {"place": _place(lang, loc), "num": zombies, "defence": public.defence(view, loc)}
    if loc == PARKING:
        return (
            t.ngettext(
                "%(num)d zombie feeds at %(place)s: one vote, and one character eaten, per zombie.",
                "%(num)d zombies feed at %(place)s: one vote, and one character eaten, per zombie.",
                zombies,
            )
            % values
        )
    return (
        t.ngettext(
            "At %(place)s %(num)d zombie stands against a defence of %(defence)d: it gets in unless it is stopped.",
            "At %(place)s %(num)d zombies stand against a defence of %(defence)d: they get in unless they are stopped.",
            zombies,
        )
        % values
    )


def _outcome(lang: str, zombies: int, defence: int) -> str:
    t = translations(lang)
    if zombies < defence:
        return str(t.gettext("the attack is stopped"))
    return str(t.gettext("still not enough to stop them"))


def _card_now(lang: str, view: engine.PlayerView, request: engine.RequestJSON, card: str) -> str:
    t = translations(lang)
    you = view["you"]
    loc = request["location"]
    if card == "threat":
        weight = _vote_weight(view, you, loc) if loc is not None else 0
        return t.gettext("one more vote in the vote about to be held: %(num)d instead of %(was)d") % {
            "num": weight + 1,
            "was": weight,
        }
    if card == "camera":
        return str(t.gettext("you look in secret at the four zombie dice the Chief rolled"))
    if card == "sprint":
        return str(t.gettext("your character just moved runs to another open location of your choice instead"))
    if loc is None:
        return glossary.card_text(lang, card)
    return _card_at(lang, view, loc, card)


def _card_at(lang: str, view: engine.PlayerView, loc: int, card: str) -> str:
    """What a Weapon, Hardware or Hidden would do in the attack on ``loc`` now."""
    t = translations(lang)
    you = view["you"]
    zombies, defence = public.zombies(view, loc), public.defence(view, loc)
    if card in WEAPONS:
        kills = view["options"]["weapons"][card]
        left = max(0, zombies - kills)
        if loc == PARKING:
            return t.ngettext(
                "kills %(kills)d zombie at %(place)s: %(left)d left to feed",
                "kills %(kills)d zombies at %(place)s: %(left)d left to feed",
                kills,
            ) % {"kills": kills, "place": _place(lang, loc), "left": left}
        return t.ngettext(
            "kills %(kills)d zombie at %(place)s: %(left)d against a defence of %(defence)d, %(outcome)s",
            "kills %(kills)d zombies at %(place)s: %(left)d against a defence of %(defence)d, %(outcome)s",
            kills,
        ) % {
            "kills": kills,
            "place": _place(lang, loc),
            "left": left,
            "defence": defence,
            "outcome": _outcome(lang, left, defence),
        }
    if card == "hardware":
        stronger = min(defence + 1, SUPERMARKET_CAP) if loc == SUPERMARKET else defence + 1
        if stronger == defence:
            return str(t.gettext("nothing here: 4 zombies always get into the Supermarket"))
        return t.gettext("adds 1 to the defence of %(place)s: %(defence)d against %(num)d zombies, %(outcome)s") % {
            "place": _place(lang, loc),
            "defence": stronger,
            "num": zombies,
            "outcome": _outcome(lang, zombies, stronger),
        }
    if card == "hidden":
        mine = [glossary.character_name(lang, c) for c in _visible(view, you, loc)]
        return t.gettext(
            "one of your characters here (%(characters)s) hides: it cannot be eaten and does not vote this round"
        ) % {"characters": ", ".join(mine)}
    return glossary.card_text(lang, card)


def _vote_weight(view: engine.PlayerView, colour: str, loc: int) -> int:
    """VOT-2 for one player at ``loc`` now (Threats already played included)."""
    mine = _visible(view, colour, loc)
    return len(mine) + ("gunman" in mine) + _played(view, "threat", loc).get(colour, 0)
