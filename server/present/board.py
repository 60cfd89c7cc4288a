"""The mall, built only from one reader's view (``engine.view``): as a picture for pages (``board_svg``) and as a
compact table for mails (``table``).

The picture: six locations (name, number, capacity), each character as a token in its colour with its type letter and a
``<title>`` ("Red Pin-Up"), the zombies in front of each location (a number and icons), closed locations hatched
and labelled, hidden characters dashed, and a legend of the players with the Chief's badge. Colours are never the
only signal: every token carries its letter and every mark a word. Everything is escaped (``Markup.format``).
"""

from __future__ import annotations

import math
from typing import Any

from markupsafe import Markup

from engine.data import CAPACITY, CHARACTERS, LOCATIONS

from ..text import glossary
from ..text.glossary import letters
from ..text.i18n import translations

__all__ = ["TOKEN_COLOURS", "board_svg", "table"]

#: fill and text colour of a player's tokens (the text keeps a contrast of at least 4.5:1 on its fill).
TOKEN_COLOURS: dict[str, tuple[str, str]] = {
    "red": ("#c62828", "#ffffff"),
    "yellow": ("#fdd835", "#000000"),
    "blue": ("#1565c0", "#ffffff"),
    "green": ("#2e7d32", "#ffffff"),
    "black": ("#212121", "#ffffff"),
    "white": ("#fafafa", "#000000"),
}

WIDTH = 368
BOX_W = 176
BOX_H = 150
GAP = 5
TOKEN_R = 12
TOKEN_STEP = 28
TOKENS_PER_ROW = 6
ZOMBIE_ICONS = 12
LEGEND_ROW = 24


def _token(
    lang: str, colour: str, character: str, at: tuple[float, float], *, letter: str, hidden: bool, you: bool
) -> Markup:
    """One character's token at ``at`` (its centre): its colour, its type letter, and a title saying both."""
    x, y = at
    t = translations(lang)
    fill, ink = TOKEN_COLOURS.get(colour, ("#9e9e9e", "#000000"))
    label = t.gettext("%(colour)s %(character)s") % {
        "colour": glossary.colour_name(lang, colour),
        "character": glossary.character_name(lang, character),
    }
    if hidden:
        label += " " + t.gettext("(hidden)")
    if you:
        label += " " + t.gettext("(yours)")
    classes = "token" + (" hidden" if hidden else "") + (" yours" if you else "")
    size = 11 if len(letter) < 2 else 9
    return Markup(
        '<g class="{cls}" role="img" aria-label="{label}" data-colour="{colour}" data-character="{character}">'
        "<title>{label}</title>"
        '<circle cx="{x}" cy="{y}" r="{r}" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"{dash}/>'
        '<text x="{x}" y="{ty}" text-anchor="middle" font-size="{size}" font-weight="700" fill="{ink}">{letter}</text>'
        "</g>"
    ).format(
        cls=classes,
        label=label,
        colour=colour,
        character=character,
        x=x,
        y=y,
        ty=y + size / 2 - 1,
        r=TOKEN_R,
        fill=fill,
        stroke="#000000" if not you else "#6a1b9a",
        sw=3 if you else 1.5,
        dash=Markup(' stroke-dasharray="3 2"') if hidden else Markup(""),
        size=size,
        ink=ink,
        letter=letter,
    )


def _location(lang: str, view: dict[str, Any], loc: int, x: int, y: int, reader: str | None) -> Markup:
    t = translations(lang)
    marks = letters(lang)
    hidden = {(str(p), str(c)) for p, c in view.get("hidden") or []}
    closed = loc in set(view.get("closed") or [])
    zombies = int((view.get("zombies") or {}).get(str(loc), 0) or 0)
    capacity = CAPACITY[loc]
    name = glossary.location_name(lang, loc)
    cap_text = t.gettext("no limit") if capacity is None else t.gettext("holds %(num)s") % {"num": capacity}
    summary = [glossary.location_label(lang, loc), cap_text]
    summary.append(t.ngettext("%(num)d zombie", "%(num)d zombies", zombies) % {"num": zombies})
    if closed:
        summary.append(t.gettext("closed"))
    parts = [
        Markup('<g class="location{cls}" data-location="{loc}" data-zombies="{z}"><title>{title}</title>').format(
            cls=" closed" if closed else "", loc=loc, z=zombies, title=", ".join(summary)
        ),
        Markup('<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" class="box"/>').format(
            x=x, y=y, w=BOX_W, h=BOX_H
        ),
    ]
    if closed:
        parts.append(
            Markup('<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="url(#hatch)" class="hatch"/>').format(
                x=x, y=y, w=BOX_W, h=BOX_H
            )
        )
    parts.append(
        Markup(
            '<text x="{x}" y="{y}" class="loc-name" font-size="12" font-weight="700">'
            '<tspan class="loc-number">{loc}</tspan> {name}</text>'
        ).format(x=x + 8, y=y + 18, loc=loc, name=name)
    )
    parts.append(
        Markup('<text x="{x}" y="{y}" class="loc-cap" font-size="11">{cap}</text>').format(
            x=x + 8, y=y + 33, cap=cap_text
        )
    )
    if closed:
        parts.append(
            Markup(
                '<text x="{x}" y="{y}" class="closed-text" font-size="14" font-weight="700" text-anchor="end">'
                "{word}</text>"
            ).format(x=x + BOX_W - 8, y=y + 33, word=t.gettext("closed").upper())
        )
    # the characters inside
    index = 0
    for colour in view.get("players") or []:
        mine = (view.get("characters") or {}).get(colour) or {}
        for character in CHARACTERS:
            if mine.get(character) != loc:
                continue
            row, col = divmod(index, TOKENS_PER_ROW)
            cx = x + 8 + TOKEN_R + col * TOKEN_STEP
            cy = y + 40 + TOKEN_R + row * TOKEN_STEP
            parts.append(
                _token(
                    lang,
                    colour,
                    character,
                    (cx, cy),
                    letter=marks[character],
                    hidden=(colour, character) in hidden,
                    you=colour == reader,
                )
            )
            index += 1
    # the zombies in front of the door
    base = y + BOX_H - 14
    parts.append(
        Markup(
            '<g class="zombies" role="img" aria-label="{label}"><title>{label}</title>'
            '<text x="{x}" y="{ty}" font-size="13" font-weight="700" class="zombie-count">{n}</text>'
        ).format(
            label=t.ngettext("%(num)d zombie", "%(num)d zombies", zombies) % {"num": zombies},
            x=x + 8,
            ty=base + 5,
            n=zombies,
        )
    )
    for i in range(min(zombies, ZOMBIE_ICONS)):
        parts.append(Markup('<circle cx="{cx}" cy="{cy}" r="5" class="zombie"/>').format(cx=x + 34 + i * 11, cy=base))
    if zombies > ZOMBIE_ICONS:
        parts.append(
            Markup('<text x="{x}" y="{y}" font-size="11" class="zombie-more">+</text>').format(
                x=x + 34 + ZOMBIE_ICONS * 11 - 4, y=base + 4
            )
        )
    parts.append(Markup("</g></g>"))
    return Markup("").join(parts)


def _legend(lang: str, view: dict[str, Any], top: int, reader: str | None) -> Markup:
    t = translations(lang)
    chief = view.get("chief")
    elected = bool(view.get("chief_elected"))
    sizes = view.get("hand_sizes") or {}
    eliminated = view.get("eliminated") or {}
    parts = []
    for i, colour in enumerate(view.get("players") or []):
        x = GAP
        y = top + i * LEGEND_ROW
        fill, _ink = TOKEN_COLOURS.get(colour, ("#9e9e9e", "#000000"))
        words = [glossary.colour_name(lang, colour)]
        if colour == reader:
            words.append(t.gettext("(you)"))
        if colour in sizes:
            words.append(t.ngettext("%(num)d card", "%(num)d cards", int(sizes[colour])) % {"num": int(sizes[colour])})
        if colour in eliminated:
            words.append(t.gettext("zombie player"))
        text = " ".join(words)
        parts.append(
            Markup(
                '<g class="player" data-colour="{colour}"><title>{text}</title>'
                '<rect x="{x}" y="{y}" width="14" height="14" fill="{fill}" stroke="#000000"/>'
                '<text x="{tx}" y="{ty}" font-size="12">{text}</text>'
            ).format(colour=colour, text=text, x=x, y=y, fill=fill, tx=x + 20, ty=y + 12)
        )
        if colour == chief:
            badge = t.gettext("Chief") if elected else t.gettext("Chief (not elected)")
            parts.append(
                Markup(
                    '<g class="chief-badge" role="img" aria-label="{label}"><title>{label}</title>'
                    '<polygon points="{points}" class="badge"/>'
                    '<text x="{tx}" y="{ty}" font-size="11" font-weight="700">{badge}</text></g>'
                ).format(
                    label=t.gettext("Chief of Security: %(colour)s") % {"colour": glossary.colour_name(lang, colour)}
                    + ("" if elected else " " + t.gettext("(not elected this round)")),
                    points=_star(x + 218, y + 7, 8),
                    tx=x + 230,
                    ty=y + 12,
                    badge=badge,
                )
            )
        parts.append(Markup("</g>"))
    return Markup("").join(parts)


def _star(cx: float, cy: float, r: float) -> str:
    points = []
    for i in range(10):
        radius = r if i % 2 == 0 else r * 0.45
        angle = math.pi / 2 + i * math.pi / 5
        points.append(f"{cx + radius * math.cos(angle):.1f},{cy - radius * math.sin(angle):.1f}")
    return " ".join(points)


def board_svg(view: dict[str, Any], lang: str, reader: str | None) -> Markup:
    """The mall for ``reader`` (a colour, or None), in ``lang``: a ``<svg role="img">`` scaled to its container."""
    t = translations(lang)
    players = list(view.get("players") or [])
    legend_rows = len(players)
    boxes_h = 3 * BOX_H + 4 * GAP
    height = boxes_h + legend_rows * LEGEND_ROW + GAP
    title = t.gettext("The mall, round %(round)s") % {"round": view.get("round") or 0}
    legend = ", ".join(f"{mark} = {glossary.character_name(lang, c)}" for c, mark in letters(lang).items())
    parts = [
        Markup(
            '<svg class="board" role="img" aria-labelledby="board-title board-desc" viewBox="0 0 {w} {h}" '
            'xmlns="http://www.w3.org/2000/svg" preserveAspectRatio="xMidYMin meet">'
            '<title id="board-title">{title}</title><desc id="board-desc">{desc}</desc>'
            '<defs><pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" '
            'patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="8" class="hatch-line"/></pattern></defs>'
        ).format(w=WIDTH, h=height, title=title, desc=legend)
    ]
    for i, loc in enumerate(LOCATIONS):
        row, col = divmod(i, 2)
        parts.append(_location(lang, view, loc, GAP + col * (BOX_W + GAP), GAP + row * (BOX_H + GAP), reader))
    parts.append(_legend(lang, view, boxes_h, reader))
    parts.append(Markup("</svg>"))
    return Markup("").join(parts)


def table(lang: str, view: dict[str, Any]) -> dict[str, Any]:
    """The compact table of the mall for mails: location, capacity, zombies, closed, characters, Chief."""
    marks = letters(lang)
    hidden = {tuple(pair) for pair in view.get("hidden") or []}
    closed = set(view.get("closed") or [])
    rows = []
    for loc in LOCATIONS:
        people = []
        for colour in view.get("players") or []:
            mine = (view.get("characters") or {}).get(colour) or {}
            here = [c for c in CHARACTERS if mine.get(c) == loc]
            if here:
                tokens = "".join(marks[c] + ("*" if (colour, c) in hidden else "") for c in here)
                people.append(f"{glossary.colour_name(lang, colour)} {tokens}")
        rows.append(
            {
                "number": loc,
                "name": glossary.location_name(lang, loc),
                "capacity": "–" if CAPACITY[loc] is None else str(CAPACITY[loc]),
                "zombies": (view.get("zombies") or {}).get(str(loc), 0),
                "closed": loc in closed,
                "people": ", ".join(people),
            }
        )
    chief = view.get("chief")
    return {
        "rows": rows,
        "legend": ", ".join(f"{marks[c]} = {glossary.character_name(lang, c)}" for c in CHARACTERS),
        "chief": glossary.colour_name(lang, chief) if chief else None,
        "chief_elected": bool(view.get("chief_elected")),
    }
