"""The mall, built only from one reader's view (``engine.view``): as a picture for pages (``board_svg``) and as a
compact table for mails (``table``).

The picture is a game board: the five shops of the mall on its floor, the Parking Lot outside with the truck, each
location a room with its number, name and places ("2/3": taken of its capacity; the Parking only counts), free
places drawn as empty spots, each character a token in its player's colour with a figure of its type and its type
letter, the zombies standing at the door (figures, and their number), the defence of an occupied room (DEF-3),
closed rooms hatched (Cachou, closed with 3 or 4 players, says so: SET-4), rooms closed by the zombies (E-3) marked as
overrun, and during the attack (phase F) the room whose attack is being fought marked "under attack" and every room
whose zombies are enough to get in marked "in danger" (F-3, from the public board), each in words inside the room and
with a sign at its door. The
Chief's tokens carry a star. Below the picture an HTML legend names the players (as "Ann (Red)" when the page
gives the table's ``names``), the figures, the marks, the truck's cards and the cards out of the game.

Colours are never the only signal: every token carries its letter and figure, every mark a word and a pattern.
Everything is escaped (``Markup.format``); the picture has a ``<title>`` and a ``<desc>`` telling the whole board in
words, since a screen reader reads no figure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from markupsafe import Markup

import engine
from engine import new_game
from engine.bots import SensibleBot
from engine.data import (
    CACHOU,
    CAPACITY,
    CHARACTERS,
    COLOURS,
    DECK_SIZE,
    LOCATIONS,
    PARKING,
    SECURITY,
    Phase,
)
from engine.shapes import VotesRevealed
from engine.view import spectator_view

from ..text import glossary
from ..text.glossary import letters
from ..text.i18n import translations
from ..text.sentences import Names, event_text, player_label
from . import public

__all__ = [
    "TOKEN_COLOURS",
    "board_svg",
    "card_icon",
    "describe",
    "discarded",
    "layout",
    "sample_board",
    "sample_view",
    "star_points",
    "table",
    "token_icon",
]

#: fill and ink (figure) colour of a player's tokens (the ink keeps a contrast of at least 4.5:1 on its fill).
TOKEN_COLOURS: dict[str, tuple[str, str]] = {
    "red": ("#c62828", "#ffffff"),
    "yellow": ("#fdd835", "#000000"),
    "blue": ("#1565c0", "#ffffff"),
    "green": ("#2e7d32", "#ffffff"),
    "black": ("#212121", "#ffffff"),
    "white": ("#fafafa", "#000000"),
}
UNKNOWN_COLOUR = ("#9e9e9e", "#000000")
#: the Chief's star (a game piece's colour, like the tokens'), outlined in ink.
STAR_FILL = "#f2b705"

WIDTH = 360
MARGIN = 6
GAP = 8
HEAD = 34
STEP = 32
TOKEN_R = 13
STRIP = 30
TRUCK_W = 112
ZOMBIE_FIGURES = 5
#: the height of one line of marks in words ("UNDER ATTACK", "IN DANGER") at the bottom of a room
MARK_LINE = 20

# --- figures: small pictograms drawn in a box of about 20 x 20 around (0, 0) ------------------------------------

#: one path per character type (RULES.md A2), recognisable at 20 px: the Pin-Up's long hair and hourglass dress,
#: the Tough Guy's shoulders and fists, the Gunman's hat and pistol, the Little Girl's pigtails and small size.
FIGURES: dict[str, str] = {
    "pinup": (
        "M0,-9.5a3.4,3.4 0 1,1 -0.01,0z"
        "M-3.6,-6.2c-1.4,2.6 -1.2,5.2 0.4,6.4l1.3,-3.5zM3.6,-6.2c1.4,2.6 1.2,5.2 -0.4,6.4l-1.3,-3.5z"
        "M-2.6,-1.8h5.2l-1.5,4.2l4.4,6.6h-11l4.4,-6.6z"
    ),
    "tough": (
        "M0,-10a3.2,3.2 0 1,1 -0.01,0z"
        "M-7.5,-2.6q7.5,-2.6 15,0l-1.2,6.4h-2.8v5.6h-7v-5.6h-2.8z"
        "M-8.4,1.2a2.3,2.3 0 1,0 0.01,0zM8.4,1.2a2.3,2.3 0 1,0 0.01,0z"
    ),
    "gunman": (
        "M-6.4,-8.6h8.8v1.4h-8.8zM-4.6,-11.4h5.2v3h-5.2z"
        "M-2,-6.8a2.9,2.9 0 1,1 -0.01,0z"
        "M-5.2,-1.4h6.4v10.6h-6.4z"
        "M1.2,-1.2h6.2v2h-6.2zM6.4,-3.6h3.6v2.4h-1.4v1.6h-2.2z"
    ),
    "girl": (
        "M0,-6.4a2.9,2.9 0 1,1 -0.01,0z"
        "M-4.4,-4.6a1.7,1.7 0 1,0 0.01,0zM4.4,-4.6a1.7,1.7 0 1,0 0.01,0z"
        "M-1.6,0.2h3.2l3.2,6.2h-9.6z"
        "M-2,6.4h1.4v3h-1.4zM0.6,6.4h1.4v3h-1.4z"
    ),
}
#: a zombie: head bent forward, arms stretched out, shuffling legs.
ZOMBIE_FIGURE = (
    "M1.6,-10.4a3,3 0 1,1 -0.01,0z"
    "M-3.6,-4.6h5.2l1,7.6h-5.6z"
    "M0.6,-4h8.2v2h-8.2zM0.2,-1.2h7.6v1.8h-7.6z"
    "M-2.8,3h2.4l-1.4,7h-2.4zM0,3h2.4l1.8,7h-2.4z"
)


def _figure(path: str, x: float, y: float, fill: str, *, scale: float = 1.0, cls: str = "figure") -> Markup:
    return Markup('<path class="{cls}" transform="translate({x} {y}) scale({s})" fill="{fill}" d="{d}"/>').format(
        cls=cls, x=_n(x), y=_n(y), s=_n(scale), fill=fill, d=path
    )


def _n(value: float) -> str:
    """A coordinate, short: 12, 12.5."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def star_points(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """The Chief's star: its ten corners around (cx, cy), the points ``r`` out (also the mail picture's)."""
    corners = []
    for i in range(10):
        radius = r if i % 2 == 0 else r * 0.45
        angle = math.pi / 2 + i * math.pi / 5
        corners.append((cx + radius * math.cos(angle), cy - radius * math.sin(angle)))
    return corners


def _star(cx: float, cy: float, r: float) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in star_points(cx, cy, r))


# --- what the public board says -----------------------------------------------------------------------------------


def discarded(view: engine.PublicBoard) -> int | None:
    """Cards out of the game (A3: every card played is removed at once), from public counts only: the 21 cards of
    the box less the truck's deck and the hands' sizes (B-INFO). None when the view does not give them."""
    if "deck_size" not in view or "hand_sizes" not in view:
        return None
    in_hands = sum(int(n) for n in view["hand_sizes"].values())
    return max(0, DECK_SIZE - int(view["deck_size"]) - in_hands)


def _closed_few(view: engine.PublicBoard, loc: int) -> bool:
    """Cachou, closed from the setup because the table has 3 or 4 players (SET-4)."""
    return loc == CACHOU and loc in set(view["closed"]) and len(view["players"]) <= 4


def _overrun(view: engine.PublicBoard, loc: int) -> bool:
    """Closed by the zombies (E-3): every closed location but Cachou closed at setup with 3-4 players (SET-4)."""
    return loc in set(view["closed"]) and not _closed_few(view, loc)


def _mark_lines(view: engine.PublicBoard, loc: int) -> int:
    """The lines of marks in words at the bottom of the room: under attack, in danger (0 to 2)."""
    return int(public.attack_under_way(view) == loc) + int(public.in_danger(view, loc))


# --- layout ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Room:
    loc: int
    x: float
    y: float
    w: float
    h: float  # the room; its door strip (the zombies) is the STRIP below it
    per_row: int
    spots: int


def _per_row(width: float) -> int:
    return max(1, int((width - 12) // STEP))


def _rows(spots: int, per_row: int) -> int:
    return max(1, math.ceil(spots / per_row))


def layout(view: engine.PublicBoard) -> tuple[dict[int, _Room], float]:
    """The shops two by two, the Supermarket across, then the Parking Lot outside with the truck."""
    half = (WIDTH - 2 * MARGIN - GAP) / 2
    full = WIDTH - 2 * MARGIN
    rows: list[list[tuple[int, float]]] = [[(1, half), (2, half)], [(3, half), (5, half)], [(6, full)], [(4, full)]]
    rooms: dict[int, _Room] = {}
    y: float = MARGIN
    for row in rows:
        planned = []
        for loc, width in row:
            used = public.count_at(view, loc)
            capacity = CAPACITY[loc]
            spots = used if loc in set(view["closed"]) else max(used, capacity or 0)
            room_width = width - TRUCK_W if loc == PARKING else width
            per_row = _per_row(room_width)
            lines = _rows(spots, per_row)
            per_row = math.ceil(max(spots, 1) / lines)  # spread evenly: 6 places are two rows of 3
            planned.append((loc, width, per_row, spots, lines))
        height = HEAD + max(p[4] for p in planned) * STEP + 8
        height += MARK_LINE * max(_mark_lines(view, p[0]) for p in planned)
        x: float = MARGIN
        for loc, width, per_row, spots, _lines in planned:
            rooms[loc] = _Room(loc, x, y, width, height, per_row, spots)
            x += width + GAP
        y += height + STRIP + GAP
    return rooms, y - GAP + MARGIN


# --- drawing --------------------------------------------------------------------------------------------------------


def _token_label(
    lang: str, view: engine.PublicBoard, colour: str, character: str, *, hidden: bool, you: bool, letter: bool = False
) -> str:
    """ "Red Pin-Up (yours)"; with ``letter``, the token's own name: "Red P Pin-Up (yours)" (it holds what it
    shows)."""
    t = translations(lang)
    label = t.gettext("%(colour)s %(character)s") % {
        "colour": glossary.colour_name(lang, colour),
        "character": _named(lang, character) if letter else glossary.character_name(lang, character),
    }
    if hidden:
        label += " " + t.gettext("(hidden)")
    if you:
        label += " " + t.gettext("(yours)")
    if colour == view["chief"]:
        label += " " + t.gettext("(Chief of Security)")
    return label


def _token_shape(colour: str, character: str, letter: str, x: float, y: float, *, hidden: bool, you: bool) -> Markup:
    """The drawing of one token centred on (x, y): its colour, figure, letter badge, and marks (the Chief's star is
    drawn once, on the Security HQ's sign: ``_chief_seal``)."""
    fill, ink = TOKEN_COLOURS.get(colour, UNKNOWN_COLOUR)
    parts = []
    if you:
        parts.append(
            Markup(
                '<circle class="yours-halo" cx="{x}" cy="{y}" r="{r}"/>'
                '<circle class="yours-ring" cx="{x}" cy="{y}" r="{r}"/>'
            ).format(x=x, y=y, r=TOKEN_R + 3)
        )
    parts.append(
        Markup('<circle class="disc{cls}" cx="{x}" cy="{y}" r="{r}" fill="{fill}"/>').format(
            cls=" hidden-disc" if hidden else "", x=x, y=y, r=TOKEN_R, fill=fill
        )
    )
    parts.append(_figure(FIGURES[character], x - 2, y - 0.5, ink, scale=0.95))
    size = 9 if len(letter) < 2 else 7
    parts.append(
        Markup(
            '<circle class="letter-badge" cx="{bx}" cy="{by}" r="6.5"/>'
            '<text class="letter" x="{bx}" y="{ty}" text-anchor="middle" font-size="{size}">{letter}</text>'
        ).format(bx=x + 9.5, by=y + 8.5, ty=_n(y + 8.5 + size * 0.36), size=size, letter=letter)
    )
    return Markup("").join(parts)


def _token(
    lang: str, view: engine.PublicBoard, colour: str, character: str, at: tuple[float, float], **marks: bool
) -> Markup:
    """One character's token: its title says who it is, ``data-*`` say it to tests and scripts."""
    x, y = at
    hidden, you, chief = marks["hidden"], marks["you"], colour == view["chief"]
    label = _token_label(lang, view, colour, character, hidden=hidden, you=you)
    name = _token_label(lang, view, colour, character, hidden=hidden, you=you, letter=True)
    classes = "token" + (" hidden" if hidden else "") + (" yours" if you else "") + (" chief" if chief else "")
    return Markup(
        '<g class="{cls}" role="img" aria-label="{name}" data-colour="{colour}" data-character="{character}"{pick}>'
        "<title>{label}</title>{shape}</g>"
    ).format(
        cls=classes,
        name=name,
        label=label,
        colour=colour,
        character=character,
        pick=Markup(' data-pick="character:{}"').format(character) if you else "",
        shape=_token_shape(colour, character, letters(lang)[character], x, y, hidden=hidden, you=you),
    )


#: a pictogram per card (drawn for deadmail, in a 24 x 24 box, lines in the text's colour).
CARD_FIGURES: dict[str, str] = {
    "threat": "M12 3 22 20H2Z M12 9v5 M12 16.5v1",
    "camera": "M3 8h4l2-3h6l2 3h4v11H3Z M12 10.5a3.5 3.5 0 1 0 0.01 0",
    "sprint": "M4 6l6 6-6 6 M12 6l6 6-6 6",
    "hardware": "M4 20 14 10 M11 5l8 8 M13 3l8 8-3 3-8-8Z",
    "hidden": "M2 12s4-6 10-6 10 6 10 6-4 6-10 6S2 12 2 12Z M4 20 20 4",
    "axe": "M6 21 17 6 M13 3c4 0 7 3 7 7l-5-1-3-3Z",
    "pistol": "M3 8h17v4H10l-1 7H5l1-7H3Z",
    "bat": "M4 20l2 0 13-13c1-1 1-3 0-3s-2-1-3 0L3 17Z",
    "shotgun": "M2 10h20v3H9l-2 6H4l1-6H2Z M9 13h4",
    "grenade": "M12 8a6 7 0 1 0 0.01 0 M10 8V5h4v3 M14 5l4-2",
    "chainsaw": "M2 9h8v8H2Z M10 11h11c1 0 1 4 0 4H10 M4 9V6h4",
}


def card_icon(card: str) -> Markup:
    """A card's pictogram, decorative (its name is always written beside it)."""
    return Markup(
        '<svg class="card-icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="{d}"/></svg>'
    ).format(d=CARD_FIGURES.get(card, "M4 4h16v16H4Z"))


def _named(lang: str, character: str) -> str:
    """A character's name after the letter its token shows, as the legend says them ("P Pin-Up"): a token's name
    holds what it shows."""
    return f"{letters(lang)[character]} {glossary.character_name(lang, character)}"


@cache
def token_icon(lang: str, colour: str, character: str, *, you: bool) -> Markup:
    """One token alone, as a player's panel shows their characters (the reader's own are picks, as on the board)."""
    label = _named(lang, character)
    shape = _token_shape(colour, character, letters(lang)[character], 0, 0, hidden=False, you=False)
    return Markup(
        '<svg class="token-icon" viewBox="-16 -16 32 32" role="img" aria-label="{label}"{pick}>{shape}</svg>'
    ).format(label=label, shape=shape, pick=Markup(' data-pick="character:{}"').format(character) if you else "")


def _wrap(name: str, width: float, size: float) -> list[str]:
    """A location's name on one line, or two when it does not fit (bold text is about 0.6 em a letter)."""
    if len(name) * size * 0.6 <= width or " " not in name:
        return [name]
    words = name.split(" ")
    best = min(range(1, len(words)), key=lambda i: max(len(" ".join(words[:i])), len(" ".join(words[i:]))))
    return [" ".join(words[:best]), " ".join(words[best:])]


def _places_text(used: int, capacity: int | None) -> str:
    return str(used) if capacity is None else f"{used}/{capacity}"


@dataclass(frozen=True, slots=True)
class _Here:
    """What the public board says about one location."""

    used: int
    capacity: int | None
    zombies: int
    defence: int
    closed: bool
    overrun: bool
    danger: bool
    #: its attack is being fought now (phase F)
    attacked: bool = False
    #: Cachou closed with 3 or 4 players (SET-4)
    closed_few: bool = False


def _here(view: engine.PublicBoard, loc: int) -> _Here:
    return _Here(
        used=public.count_at(view, loc),
        capacity=CAPACITY[loc],
        zombies=public.zombies(view, loc),
        defence=public.defence(view, loc),
        closed=loc in set(view["closed"]),
        overrun=_overrun(view, loc),
        danger=public.in_danger(view, loc),
        attacked=public.attack_under_way(view) == loc,
        closed_few=_closed_few(view, loc),
    )


def closed_text(lang: str, h: _Here) -> str:
    """Why a closed location is closed, in words ("" when it is open)."""
    t = translations(lang)
    if h.overrun:
        return t.gettext("overrun: closed by the zombies")
    if h.closed_few:
        return t.gettext("closed with 3 or 4 players")
    return t.gettext("closed") if h.closed else ""


def marks_text(lang: str, h: _Here) -> list[str]:
    """The attack's marks of a location in words: under attack now, in danger."""
    t = translations(lang)
    marks = [t.gettext("under attack now")] if h.attacked else []
    if h.danger:
        marks.append(t.gettext("in danger: the zombies are enough to get in"))
    return marks


def _summary(lang: str, loc: int, h: _Here) -> str:
    """The location in words: its title, and the start of its sentence in the picture's description."""
    t = translations(lang)
    if h.capacity is None:
        places = t.ngettext("%(num)d character, no limit", "%(num)d characters, no limit", h.used) % {"num": h.used}
    else:
        places = t.ngettext("%(used)d of %(num)d place taken", "%(used)d of %(num)d places taken", h.capacity) % {
            "used": h.used,
            "num": h.capacity,
        }
    summary = [glossary.location_label(lang, loc), places]
    summary.append(t.ngettext("%(num)d zombie", "%(num)d zombies", h.zombies) % {"num": h.zombies})
    if h.used and loc != PARKING:
        summary.append(t.gettext("defence %(num)d") % {"num": h.defence})
    if h.closed:
        summary.append(closed_text(lang, h))
    summary.extend(marks_text(lang, h))
    return ", ".join(summary)


def _head(lang: str, room: _Room, h: _Here) -> Markup:
    """The room's walls and its sign: the number, the name (on two lines when long), the places."""
    loc, x, y, w = room.loc, room.x, room.y, room.w
    parts = [
        Markup('<rect class="room" x="{x}" y="{y}" width="{w}" height="{h}" rx="5"/>').format(x=x, y=y, w=w, h=room.h),
        Markup('<path class="room-head" d="M{x},{yb}v-{r2}a5,5 0 0,1 5,-5h{wi}a5,5 0 0,1 5,5v{r2}z"/>').format(
            x=x, yb=y + HEAD - 6, r2=HEAD - 11, wi=w - 10
        ),
    ]
    if loc == PARKING:
        parts.extend(_parking_lines(room))
    parts.append(
        Markup(
            '<circle class="loc-disc" cx="{cx}" cy="{cy}" r="10"/>'
            '<text class="loc-number" x="{cx}" y="{ty}" text-anchor="middle" font-size="12">{loc}</text>'
        ).format(cx=x + 15, cy=y + 15, ty=y + 19.5, loc=loc)
    )
    pill_w = PILL_W
    name = glossary.location_name(lang, loc)
    lines = _wrap(name, w - 30 - pill_w - 10 - (SEAL_R * 2 + 4 if loc == SECURITY else 0), 13)
    if len(lines) == 1:
        parts.append(
            Markup('<text class="loc-name" x="{x}" y="{y}" font-size="13">{name}</text>').format(
                x=x + 31, y=y + 20, name=name
            )
        )
    else:
        parts.append(
            Markup(
                '<text class="loc-name" x="{x}" y="{y}" font-size="11">'
                '<tspan x="{x}" y="{y}">{a}</tspan><tspan x="{x}" y="{y2}">{b}</tspan></text>'
            ).format(x=x + 31, y=y + 14, y2=y + 26, a=lines[0], b=lines[1])
        )
    parts.append(
        Markup(
            '<g class="places"><rect class="places-pill" x="{px}" y="{py}" width="{pw}" height="20" rx="10"/>'
            '<text class="places-text" x="{tx}" y="{ty}" text-anchor="middle" font-size="12">{text}</text></g>'
        ).format(
            px=x + w - pill_w - 6,
            py=y + 6,
            pw=pill_w,
            tx=x + w - 6 - pill_w / 2,
            ty=y + 20.5,
            text=_places_text(h.used, h.capacity),
        )
    )
    return Markup("").join(parts)


#: the width of a room's places pill; the radius of the Chief's seal beside it on the Security HQ's sign.
PILL_W = 40
SEAL_R = 10


def seal_centre(room: _Room) -> tuple[float, float]:
    """Where the Chief's seal sits: on the Security HQ's sign, left of its places."""
    return room.x + room.w - PILL_W - 8 - SEAL_R, room.y + 16


def _chief_seal(lang: str, view: engine.PublicBoard, room: _Room, names: Names | None) -> Markup:
    """The Chief of Security, drawn once: a star on a disc of the Chief's colour, on the Security HQ's sign."""
    chief = view["chief"]
    if not chief:
        return Markup("")
    t = translations(lang)
    x, y = seal_centre(room)
    label = t.gettext("Chief of Security: %(colour)s") % {"colour": player_label(lang, chief, names)}
    return Markup(
        '<g class="chief-seal" data-colour="{c}"><title>{label}</title>'
        '<circle class="seal-disc" cx="{x}" cy="{y}" r="{r}" fill="{fill}"/>'
        '<polygon class="chief-star" points="{p}" fill="{star}"/></g>'
    ).format(
        c=chief,
        label=label,
        x=_n(x),
        y=_n(y),
        r=SEAL_R,
        fill=TOKEN_COLOURS.get(chief, UNKNOWN_COLOUR)[0],
        p=_star(x, y, SEAL_R - 2),
        star=STAR_FILL,
    )


def _marks(lang: str, room: _Room, h: _Here) -> Markup:
    """In front of the door: the defence and the danger; over the room: closed or overrun."""
    t = translations(lang)
    x, y, w, bottom = room.x, room.y, room.w, room.y + room.h
    parts = []
    if h.used and room.loc != PARKING and not h.closed:
        parts.append(
            Markup(
                '<g class="defence"><title>{label}</title>'
                '<path class="shield" d="M{x},{y}h16v7c0,5 -4,8 -8,10c-4,-2 -8,-5 -8,-10z"/>'
                '<text class="defence-text" x="{tx}" y="{ty}" text-anchor="middle" font-size="11">{n}</text></g>'
            ).format(
                label=t.gettext("defence %(num)d") % {"num": h.defence},
                x=x + w - 24,
                y=bottom + 6,
                tx=x + w - 16,
                ty=bottom + 18,
                n=h.defence,
            )
        )
    if h.danger:
        # a warning sign right of the zombies' number (the words are inside the room: _mark_words)
        shown = min(h.zombies, ZOMBIE_FIGURES)
        sign = x + 12 + shown * 15 + 9 * len(f"×{h.zombies}") + 6
        parts.append(
            Markup(
                '<g class="danger-mark"><title>{label}</title>'
                '<path class="danger-sign" d="M{sx},{sy}l9,16h-18z"/>'
                '<text class="danger-text" x="{sx}" y="{ey}" text-anchor="middle" font-size="11">!</text></g>'
            ).format(
                label=t.gettext("in danger: the zombies are enough to get in"),
                sx=_n(sign + 9),
                sy=bottom + 6,
                ey=bottom + 20,
            )
        )
    parts.append(_mark_words(lang, room, h))
    if h.closed_few:
        parts.append(_closed_banner(lang, room))
    elif h.closed:
        middle = y + HEAD + (room.h - HEAD) / 2
        parts.append(
            Markup(
                '<rect class="hatch" x="{x}" y="{y}" width="{w}" height="{h}" rx="5" fill="url(#{pattern})"/>'
                '<g class="closed-mark"><rect class="closed-banner" x="{bx}" y="{by}" width="120" height="22" rx="3"/>'
                '<text class="closed-text" x="{tx}" y="{ty}" text-anchor="middle" font-size="13">{word}</text></g>'
            ).format(
                x=x,
                y=y + HEAD - 6,
                w=w,
                h=room.h - HEAD + 6,
                pattern="dm-overrun" if h.overrun else "dm-hatch",
                bx=x + w / 2 - 60,
                by=middle - 13,
                tx=x + w / 2,
                ty=middle + 2.5,
                word=(t.gettext("overrun") if h.overrun else t.gettext("closed")).upper(),
            )
        )
    return Markup("").join(parts)


def _mark_words(lang: str, room: _Room, h: _Here) -> Markup:
    """At the bottom of the room, one pill a line: "UNDER ATTACK" while its attack is fought, "IN DANGER" while its
    zombies are enough to get in (the room is drawn MARK_LINE taller for each: ``_layout``)."""
    t = translations(lang)
    words = [("attack", t.gettext("under attack").upper())] if h.attacked else []
    if h.danger:
        words.append(("danger", t.gettext("in danger").upper()))
    parts = []
    top = room.y + room.h - 6 - MARK_LINE * len(words)
    for i, (kind, word) in enumerate(words):
        width = min(12 + len(word) * 7, room.w - 16)
        parts.append(
            Markup(
                '<g class="{kind}-words"><rect class="{kind}-pill" x="{x}" y="{y}" width="{w}" height="16" rx="8"/>'
                '<text class="{kind}-text" x="{tx}" y="{ty}" text-anchor="middle" font-size="10">{word}</text></g>'
            ).format(
                kind=kind,
                x=room.x + 8,
                y=_n(top + i * MARK_LINE),
                w=width,
                tx=_n(room.x + 8 + width / 2),
                ty=_n(top + i * MARK_LINE + 11.5),
                word=word,
            )
        )
    return Markup("").join(parts)


def _closed_banner(lang: str, room: _Room) -> Markup:
    """Cachou closed with 3 or 4 players (SET-4): hatched, and a banner saying it and why."""
    t = translations(lang)
    x, y, w = room.x, room.y, room.w
    middle = y + HEAD + (room.h - HEAD) / 2
    width = min(w - 12, 150)
    return Markup(
        '<rect class="hatch" x="{x}" y="{y}" width="{w}" height="{h}" rx="5" fill="url(#dm-hatch)"/>'
        '<g class="closed-mark"><rect class="closed-banner" x="{bx}" y="{by}" width="{bw}" height="30" rx="3"/>'
        '<text class="closed-text" x="{tx}" y="{ty}" text-anchor="middle" font-size="12">{word}</text>'
        '<text class="closed-why" x="{tx}" y="{wy}" text-anchor="middle" font-size="9.5">{why}</text></g>'
    ).format(
        x=x,
        y=y + HEAD - 6,
        w=w,
        h=room.h - HEAD + 6,
        bx=_n(x + w / 2 - width / 2),
        by=_n(middle - 16),
        bw=width,
        tx=_n(x + w / 2),
        ty=_n(middle - 3),
        wy=_n(middle + 10),
        word=t.gettext("closed").upper(),
        why=t.gettext("with 3 or 4 players"),
    )


def _location(lang: str, view: engine.PublicBoard, room: _Room, reader: str | None, *, asked: bool = False) -> Markup:
    """One location as drawn (``_sentence`` says it in words)."""
    loc = room.loc
    hidden = {(str(p), str(c)) for p, c in view["hidden"]}
    here = public.at(view, loc)
    h = _here(view, loc)
    title = _summary(lang, loc, h)
    cls = "location" + (" parking" if loc == PARKING else "") + (" closed" if h.closed else "")
    cls += (" overrun" if h.overrun else "") + (" danger" if h.danger else "") + (" full" if _full(h) else "")
    cls += (" attacked" if h.attacked else "") + (" asked" if asked else "")
    parts = [
        Markup(
            '<g class="{cls}" data-location="{loc}" data-pick="location:{loc}" data-zombies="{z}" data-used="{used}" '
            'data-capacity="{cap}"><title>{title}</title>'
        ).format(cls=cls, loc=loc, z=h.zombies, used=h.used, cap="" if h.capacity is None else h.capacity, title=title),
        _head(lang, room, h),
    ]
    # the places, and the characters in them
    for i in range(room.spots):
        row, col = divmod(i, room.per_row)
        cx, cy = room.x + 8 + TOKEN_R + col * STEP, room.y + HEAD + TOKEN_R + 2 + row * STEP
        if i < h.used:
            colour, character = here[i]
            you = colour == reader
            parts.append(_token(lang, view, colour, character, (cx, cy), hidden=(colour, character) in hidden, you=you))
        else:
            parts.append(Markup('<circle class="free-place" cx="{x}" cy="{y}" r="{r}"/>').format(x=cx, y=cy, r=TOKEN_R))
    if loc == PARKING:
        parts.append(_truck(lang, view, room))
    # the door, the zombies in front of it, the marks
    parts.append(
        Markup('<rect class="door" x="{x}" y="{y}" width="34" height="6" rx="1"/>').format(
            x=room.x + 12, y=room.y + room.h - 3
        )
    )
    parts.append(_zombies(lang, h.zombies, room.x, room.y + room.h, room.w))
    parts.append(_marks(lang, room, h))
    parts.append(Markup("</g>"))
    return Markup("").join(parts)


def _sentence(lang: str, view: engine.PublicBoard, loc: int, reader: str | None) -> str:
    """A location in words: its summary and who is there ("Megatoys (3), 2 of 4 places taken, …: Red Pin-Up")."""
    hidden = {(str(p), str(c)) for p, c in view["hidden"]}
    people = ", ".join(
        _token_label(lang, view, colour, character, hidden=(colour, character) in hidden, you=colour == reader)
        for colour, character in public.at(view, loc)
    )
    title = _summary(lang, loc, _here(view, loc))
    return title + (": " + people if people else "")


def describe(view: engine.PublicBoard, lang: str, reader: str | None, names: Names | None = None) -> str:
    """The whole board in words: every location and who is there, then the Chief (the picture's description, and
    the mail picture's alt text)."""
    t = translations(lang)
    sentences = [_sentence(lang, view, loc, reader) for loc in LOCATIONS]
    chief = view["chief"]
    if chief:
        sentences.append(
            t.gettext("Chief of Security: %(colour)s") % {"colour": player_label(lang, chief, names)}
            + ("" if view["chief_elected"] else " " + t.gettext("(not elected this round)"))
        )
    return ". ".join(sentences) + "."


def _full(h: _Here) -> bool:
    return h.capacity is not None and h.used >= h.capacity


def _parking_lines(room: _Room) -> list[Markup]:
    """The white lines of the parking bays, behind the tokens."""
    lines = []
    x = room.x + 8 + TOKEN_R - STEP / 2
    for col in range(room.per_row + 1):
        lines.append(
            Markup('<line class="bay" x1="{x}" y1="{y1}" x2="{x}" y2="{y2}"/>').format(
                x=_n(x + col * STEP), y1=room.y + HEAD, y2=room.y + room.h - 6
            )
        )
    return lines


def _zombies(lang: str, zombies: int, x: float, y: float, w: float) -> Markup:
    """The zombies on the floor in front of a door: a figure each (up to five) and their number when there are any."""
    t = translations(lang)
    label = t.ngettext("%(num)d zombie", "%(num)d zombies", zombies) % {"num": zombies}
    parts = [Markup('<g class="zombies" role="img" aria-label="{label}"><title>{label}</title>').format(label=label)]
    shown = min(zombies, ZOMBIE_FIGURES)
    for i in range(shown):
        parts.append(_figure(ZOMBIE_FIGURE, x + 16 + i * 15, y + 16, "currentColor", scale=1.05, cls="zombie"))
    if zombies:
        parts.append(
            Markup('<text class="zombie-count" x="{x}" y="{y}" font-size="13">×{n}</text>').format(
                x=x + 12 + shown * 15, y=y + 21, n=zombies
            )
        )
    parts.append(Markup("</g>"))
    return Markup("").join(parts)


def _truck(lang: str, view: engine.PublicBoard, room: _Room) -> Markup:
    """The truck parked in the Parking Lot with the cards left in it, and the pile of cards out of the game."""
    t = translations(lang)
    deck = view["deck_size"]
    gone = discarded(view)
    x = room.x + room.w - TRUCK_W + 4
    y = room.y + HEAD + 2
    deck_label = t.ngettext("The truck: %(num)d card left", "The truck: %(num)d cards left", deck) % {"num": deck}
    parts = [
        Markup(
            '<g class="truck" role="img" aria-label="{label}"><title>{label}</title>'
            '<rect class="truck-box" x="{x}" y="{y}" width="44" height="24" rx="2"/>'
            '<path class="truck-cab" d="M{cx},{cy}h10l6,8v8h-16z"/>'
            '<circle class="wheel" cx="{w1}" cy="{wy}" r="3.5"/><circle class="wheel" cx="{w2}" cy="{wy}" r="3.5"/>'
            '<text class="truck-count" x="{tx}" y="{ty}" text-anchor="middle" font-size="13">{n}</text></g>'
        ).format(
            label=deck_label,
            x=x,
            y=y,
            cx=x + 45,
            cy=y + 8,
            w1=x + 10,
            w2=x + 50,
            wy=y + 25,
            tx=x + 22,
            ty=y + 17,
            n=deck,
        )
    ]
    if gone is not None:
        gone_label = t.ngettext("%(num)d card out of the game", "%(num)d cards out of the game", gone) % {"num": gone}
        parts.append(
            Markup(
                '<g class="discard" role="img" aria-label="{label}"><title>{label}</title>'
                '<rect class="card-back" x="{x1}" y="{y1}" width="18" height="25" rx="2"/>'
                '<rect class="card-back" x="{x}" y="{y}" width="18" height="25" rx="2"/>'
                '<text class="discard-count" x="{tx}" y="{ty}" text-anchor="middle" font-size="12">{n}</text></g>'
            ).format(label=gone_label, x1=x + 80, y1=y - 2, x=x + 75, y=y + 1, tx=x + 84, ty=y + 18, n=gone)
        )
    return Markup("").join(parts)


_DEFS = Markup(
    "<defs>"
    '<pattern id="dm-hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
    '<line class="hatch-line" x1="0" y1="0" x2="0" y2="8"/></pattern>'
    '<pattern id="dm-overrun" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">'
    '<line class="overrun-line" x1="0" y1="0" x2="0" y2="8"/></pattern>'
    "</defs>"
)


# --- the legend (HTML: more readable than text in a picture) -----------------------------------------------------


def _icon(inner: Markup, box: str = "-16 -16 32 32") -> Markup:
    return Markup('<svg class="legend-icon" viewBox="{box}" aria-hidden="true" focusable="false">{inner}</svg>').format(
        box=box, inner=inner
    )


def _named_you(lang: str, name: str | None) -> bool:
    """The reader's name already says "you" ("You (Red)"): the legend does not add "(you)" again."""
    said = translations(lang).gettext("(you)").strip("() ").casefold()
    return " ".join(str(name or "").split()).casefold() in {said, "you"}


def _legend(lang: str, view: engine.PublicBoard, reader: str | None, names: Names | None, *, moved: bool) -> Markup:
    """``moved``: this round's moves are made (the players' destinations are then said by the arrows)."""
    t = translations(lang)
    chief = view["chief"]
    elected = view["chief_elected"]
    sizes = view["hand_sizes"]
    eliminated = view["eliminated"]
    marks = letters(lang)
    players = []
    for colour in view["players"]:
        words = [Markup('<span class="legend-name">{name}</span>').format(name=player_label(lang, colour, names))]
        if colour == reader and not _named_you(lang, (names or {}).get(colour)):
            words.append(Markup('<strong class="legend-you">{you}</strong>').format(you=t.gettext("(you)")))
        if colour in sizes:
            n = int(sizes[colour])
            words.append(
                Markup('<span class="muted">{cards}</span>').format(
                    cards=t.ngettext("%(num)d card", "%(num)d cards", n) % {"num": n}
                )
            )
        if colour in eliminated:
            words.append(Markup('<span class="legend-zombie-player">{w}</span>').format(w=t.gettext("zombie player")))
        if colour in view["destinations"] and not moved:  # until they have moved (then the arrows say it)
            place = glossary.location_label(lang, int(view["destinations"][colour]))
            words.append(
                Markup('<span class="legend-heading">{w}</span>').format(
                    w=t.gettext("heading to %(place)s") % {"place": place}
                )
            )
        if colour == chief:
            label = (
                t.gettext("Chief of Security") if elected else t.gettext("Chief of Security (not elected this round)")
            )
            words.append(
                Markup('<span class="chief-badge">{star}{label}</span>').format(
                    star=_icon(
                        Markup('<polygon class="chief-star" points="{p}" fill="{f}"/>').format(
                            p=_star(0, 0, 13), f=STAR_FILL
                        )
                    ),
                    label=label,
                )
            )
        fill, _ink = TOKEN_COLOURS.get(colour, UNKNOWN_COLOUR)
        swatch = _icon(Markup('<circle class="disc" cx="0" cy="0" r="13" fill="{fill}"/>').format(fill=fill))
        players.append(
            Markup('<li class="player" data-colour="{colour}">{swatch} {words}</li>').format(
                colour=colour, swatch=swatch, words=Markup(" ").join(words)
            )
        )
    keys = []
    for character in CHARACTERS:
        figure = _figure(FIGURES[character], 0, 0, "currentColor", scale=1.2)
        keys.append(
            Markup('<li data-character="{c}">{icon} <strong>{letter}</strong> {name}</li>').format(
                c=character, icon=_icon(figure), letter=marks[character], name=glossary.character_name(lang, character)
            )
        )
    keys.append(
        Markup('<li class="key-zombie">{icon} {word}</li>').format(
            icon=_icon(_figure(ZOMBIE_FIGURE, -1, 0, "currentColor", scale=1.2, cls="zombie")), word=t.gettext("zombie")
        )
    )
    if reader is not None:
        keys.append(
            Markup('<li class="key-yours">{icon} {word}</li>').format(
                icon=_icon(
                    Markup('<circle class="yours-ring" r="13"/><circle class="disc" r="9" fill="{f}"/>').format(
                        f=UNKNOWN_COLOUR[0]
                    )
                ),
                word=t.gettext("yours"),
            )
        )
    keys.append(
        Markup('<li class="key-hidden">{icon} {word}</li>').format(
            icon=_icon(Markup('<circle class="disc hidden-disc" r="12" fill="{f}"/>').format(f=UNKNOWN_COLOUR[0])),
            word=t.gettext("hidden"),
        )
    )
    keys.append(
        Markup('<li class="key-free">{icon} {word}</li>').format(
            icon=_icon(Markup('<circle class="free-place" r="12"/>')), word=t.gettext("free place")
        )
    )
    keys.append(
        Markup('<li class="key-defence">{icon} {word}</li>').format(
            icon=_icon(Markup('<path class="shield" d="M-8,-9h16v7c0,5 -4,8 -8,10c-4,-2 -8,-5 -8,-10z"/>')),
            word=t.gettext("defence (a Tough Guy counts 2)"),
        )
    )
    keys.append(
        Markup('<li class="key-closed">{icon} {word}</li>').format(
            icon=_icon(Markup('<rect x="-13" y="-13" width="26" height="26" fill="url(#dm-hatch)" class="hatch"/>')),
            word=t.gettext("closed"),
        )
    )
    keys.append(
        Markup('<li class="key-overrun">{icon} {word}</li>').format(
            icon=_icon(Markup('<rect x="-13" y="-13" width="26" height="26" fill="url(#dm-overrun)" class="hatch"/>')),
            word=t.gettext("overrun: closed by the zombies"),
        )
    )
    if public.attack_under_way(view) is not None:
        keys.append(
            Markup('<li class="key-attack">{icon} {word}</li>').format(
                icon=_icon(Markup('<rect class="attack-pill" x="-14" y="-7" width="28" height="14" rx="7"/>')),
                word=t.gettext("under attack now: its attack is being fought"),
            )
        )
    if view["phase"] == Phase.ATTACK:
        keys.append(
            Markup('<li class="key-danger">{icon} {word}</li>').format(
                icon=_icon(Markup('<path class="danger-sign" d="M0,-12l12,22h-24z"/>')),
                word=t.gettext("in danger: the zombies are enough to get in"),
            )
        )
    deck = view["deck_size"]
    counts = [t.ngettext("The truck: %(num)d card left", "The truck: %(num)d cards left", deck) % {"num": deck}]
    gone = discarded(view)
    if gone is not None:
        counts.append(t.ngettext("%(num)d card out of the game", "%(num)d cards out of the game", gone) % {"num": gone})
    return Markup(
        '<div class="board-legend">{vote}'
        '<ul class="legend-players" aria-label="{players_label}">{players}</ul>'
        '<ul class="legend-keys" aria-label="{keys_label}">{keys}</ul>'
        '<p class="board-counts">{counts}</p>'
        "</div>"
    ).format(
        vote=_vote_line(lang, view, reader, names),
        players_label=t.gettext("Players"),
        players=Markup("").join(players),
        keys_label=t.gettext("What the marks mean"),
        keys=Markup("").join(keys),
        counts=" · ".join(counts),
    )


def last_vote(view: engine.PublicBoard) -> VotesRevealed | None:
    """This round's last vote, once revealed (``votes_revealed``: public), or None."""
    found: VotesRevealed | None = None
    for event in view.get("events", []):
        if event["type"] == "round_started":
            found = None
        elif event["type"] == "votes_revealed":
            found = event
    return found


def _vote_line(lang: str, view: engine.PublicBoard, reader: str | None, names: Names | None) -> Markup:
    """This round's last vote under the board: each ballot as the voter's colour and the colour voted for, then the
    vote in words (who voted whom, with how many votes, and the totals)."""
    vote = last_vote(view)
    if vote is None:
        return Markup("")
    ballots = Markup("").join(
        Markup(
            '<span class="ballot"><span class="swatch colour-{voter}"></span>→'
            '<span class="swatch colour-{choice}"></span>{weight}</span>'
        ).format(
            voter=voter,
            choice=choice or "none",
            weight="" if vote["weights"][voter] == 1 else f"×{vote['weights'][voter]}",
        )
        for voter, choice in vote["votes"].items()
    )
    return Markup(
        '<p class="board-vote" data-location="{loc}"><span class="ballots" aria-hidden="true">{ballots}</span> '
        "{text}</p>"
    ).format(loc=vote["location"], ballots=ballots, text=event_text(lang, vote, reader, names))


# --- the picture ----------------------------------------------------------------------------------------------------


def _this_round_moves(view: engine.PublicBoard) -> list[tuple[str, int, int]]:
    """The moves of the current round (public ``moved`` events since it began): (colour, from, to), stays left out."""
    moves: list[tuple[str, int, int]] = []
    for event in view.get("events", []):
        if event["type"] == "round_started":
            moves = []
        elif event["type"] == "moved" and event.get("origin") != event.get("location"):
            moves.append((str(event["player"]), int(event["origin"]), int(event["location"])))
    return moves


def _travel(lang: str, view: engine.PublicBoard, rooms: dict[int, _Room], moves: list[tuple[str, int, int]]) -> Markup:
    """Where the players go: each revealed destination as a flag in its player's colour in the room,
    each of this round's ``moves`` as an arrow from the room left to the room reached."""
    t = translations(lang)
    parts = []
    if not moves:  # the flags say where the players head until they have moved
        going: dict[int, list[str]] = {}
        for colour, loc in view["destinations"].items():
            going.setdefault(int(loc), []).append(colour)
        for loc, colours in going.items():
            room = rooms[loc]
            for i, colour in enumerate(colours):
                # planted at the right of the room's first row (clear of its sign; left of the truck outside)
                right = room.x + room.w - (TRUCK_W if loc == PARKING else 0)
                x, y = right - 16 - i * 13, room.y + HEAD + 2 * TOKEN_R + 4
                fill, _ink = TOKEN_COLOURS.get(colour, UNKNOWN_COLOUR)
                label = t.gettext("%(colour)s heads here") % {"colour": glossary.colour_name(lang, colour)}
                parts.append(
                    Markup(
                        '<g class="destination-flag" data-colour="{c}"><title>{label}</title>'
                        '<line class="flag-pole" x1="{x}" y1="{y}" x2="{x}" y2="{y2}"/>'
                        '<path class="flag" d="M{x},{y2}l10,4l-10,4z" fill="{fill}"/></g>'
                    ).format(c=colour, label=label, x=_n(x), y=_n(y), y2=_n(y - 14), fill=fill)
                )
    for i, (colour, origin, target) in enumerate(moves):
        a, b = rooms[origin], rooms[target]
        shift = (i % 5 - 2) * 4  # side by side when several take the same way
        x1, y1 = a.x + a.w / 2 + shift, a.y + a.h / 2 + shift
        x2, y2 = b.x + b.w / 2 + shift, b.y + b.h / 2 + shift
        label = t.gettext("%(colour)s moved from %(origin)s to %(target)s") % {
            "colour": glossary.colour_name(lang, colour),
            "origin": glossary.location_label(lang, origin),
            "target": glossary.location_label(lang, target),
        }
        fill, _ink = TOKEN_COLOURS.get(colour, UNKNOWN_COLOUR)
        parts.append(
            Markup(
                '<g class="move-arrow" data-colour="{c}" data-from="{a}" data-to="{b}"><title>{label}</title>'
                '<line class="arrow-edge" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>'
                '<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{fill}" marker-end="url(#dm-arrow-{c})"/></g>'
            ).format(c=colour, a=origin, b=target, label=label, x1=_n(x1), y1=_n(y1), x2=_n(x2), y2=_n(y2), fill=fill)
        )
    if moves:
        parts.insert(
            0,
            Markup("<defs>{m}</defs>").format(
                m=Markup("").join(
                    Markup(
                        '<marker id="dm-arrow-{c}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" '
                        'markerHeight="5" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="{f}" '
                        'stroke="#1d1b16" stroke-width="1"/></marker>'
                    ).format(c=c, f=TOKEN_COLOURS.get(c, UNKNOWN_COLOUR)[0])
                    for c in sorted({m[0] for m in moves})
                )
            ),
        )
    return Markup("").join(parts)


def board_svg(
    view: engine.PublicBoard, lang: str, reader: str | None, names: Names | None = None, *, asked: int | None = None
) -> Markup:
    """The mall for ``reader`` (a colour, or None for a spectator), in ``lang``: a ``<figure>`` holding the
    ``<svg class="board" role="img">`` scaled to its container, and its legend. ``asked``: the location the reader's
    decision is about (a vote's, an attack's, a move's destination), framed."""
    t = translations(lang)
    rooms, height = layout(view)
    moves = _this_round_moves(view)
    title = t.gettext("The mall, round %(round)s") % {"round": view["round"]}
    # in number order: the order a screen reader and a test read them
    drawn = [_location(lang, view, rooms[loc], reader, asked=loc == asked) for loc in LOCATIONS]
    parking = rooms[PARKING]
    mall_bottom = parking.y - GAP / 2
    svg = Markup(
        '<svg class="board" role="img" viewBox="0 0 {w} {h}" xmlns="http://www.w3.org/2000/svg" '
        'preserveAspectRatio="xMidYMin meet"><title>{title}</title><desc>{desc}</desc>{defs}'
        '<rect class="floor" x="0" y="0" width="{w}" height="{mall}" rx="8"/>'
        '<rect class="outside" x="0" y="{mall}" width="{w}" height="{rest}" rx="8"/>'
        "{rooms}{seal}{travel}</svg>"
    ).format(
        w=WIDTH,
        h=_n(height),
        title=title,
        desc=describe(view, lang, reader, names),
        defs=_DEFS,
        mall=_n(mall_bottom),
        rest=_n(height - mall_bottom),
        rooms=Markup("").join(drawn),
        seal=_chief_seal(lang, view, rooms[SECURITY], names),
        travel=_travel(lang, view, rooms, moves),
    )
    return Markup('<figure class="board-figure">{svg}{legend}</figure>').format(
        svg=svg, legend=_legend(lang, view, reader, names, moved=bool(moves))
    )


# --- a sample position for the home page ------------------------------------------------------------------------


@cache
def sample_view() -> engine.SpectatorView:
    """A public board in the middle of a game: five sensible bots from a fixed seed, stopped at the attack of the
    third round (computed once)."""
    game = new_game(list(COLOURS[:5]), seed=7)
    bots = {p: SensibleBot(7 + i) for i, p in enumerate(game.players)}
    while not game.over and not (game.round >= 3 and game.phase == Phase.ATTACK):
        for req in game.pending():
            game.answer(req.player, req.kind, bots[req.player].decide(game, req))
    return spectator_view(game)


@cache
def sample_board(lang: str) -> Markup:
    """The home page's picture of the board (``sample_view``), once per language."""
    return board_svg(sample_view(), lang, None)


@dataclass(frozen=True, slots=True)
class TableRow:
    """A location in the mails' table of the mall."""

    number: int
    name: str
    #: "–" for the Parking (unlimited).
    capacity: str
    zombies: int
    closed: bool
    closed_text: str
    #: the attack's marks in words (under attack now, in danger).
    marks: str
    #: "Red T*G" per colour with characters there (* hidden).
    people: str


@dataclass(frozen=True, slots=True)
class MailTable:
    """The compact table of the mall for mails."""

    rows: list[TableRow]
    #: the characters' letters.
    legend: str
    #: the Chief's colour name (None: no Chief).
    chief: str | None
    chief_elected: bool


def table(lang: str, view: engine.PublicBoard) -> MailTable:
    """The compact table of the mall for mails: location, capacity, zombies, closed (and why), characters, the
    attack's marks in words (under attack now, in danger), Chief."""
    marks = letters(lang)
    hidden = {tuple(pair) for pair in view["hidden"]}
    closed = set(view["closed"])
    rows = []
    for loc in LOCATIONS:
        people = []
        for colour in view["players"]:
            mine = view["characters"][colour]
            here = [c for c in CHARACTERS if mine.get(c) == loc]
            if here:
                tokens = "".join(marks[c] + ("*" if (colour, c) in hidden else "") for c in here)
                people.append(f"{glossary.colour_name(lang, colour)} {tokens}")
        rows.append(
            TableRow(
                number=loc,
                name=glossary.location_name(lang, loc),
                capacity="–" if CAPACITY[loc] is None else str(CAPACITY[loc]),
                zombies=view["zombies"][str(loc)],
                closed=loc in closed,
                closed_text=closed_text(lang, _here(view, loc)) if loc in closed else "",
                marks="; ".join(marks_text(lang, _here(view, loc))),
                people=", ".join(people),
            )
        )
    chief = view["chief"]
    return MailTable(
        rows=rows,
        legend=", ".join(f"{marks[c]} = {glossary.character_name(lang, c)}" for c in CHARACTERS),
        chief=glossary.colour_name(lang, chief) if chief else None,
        chief_elected=view["chief_elected"],
    )
