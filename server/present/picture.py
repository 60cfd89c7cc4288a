"""The mall as a small PNG picture for the HTML part of mails (the big webmail clients show no SVG): the same
layout as the page's board (``board.layout``), drawn with Pillow from the public board only: each room with its
number and places taken, closed rooms hatched, each character a disc in its player's colour with its letter, the
Chief's star, the zombies at each door as a count, and the location a decision is about framed. Words are not drawn
(the picture's alt text says the whole board, and the mail's table below it names everything); the letters and
numbers are ASCII, which Pillow's own font always has.

A picture depends only on what it shows, so equal boards are drawn once per process (``mall_png``'s cache)."""

from __future__ import annotations

import io
import json

from PIL import Image, ImageDraw, ImageFont

import engine
from engine.data import CAPACITY, LOCATIONS, PARKING, SECURITY

from ..text.glossary import letters
from . import board, public

#: drawn at one and a half times the size it is shown (``WIDTH``): sharp enough on a phone, small (about 6 kB).
SCALE = 1.5
WIDTH = board.WIDTH
INK = (29, 27, 22)
PAPER = (251, 250, 246)
FLOOR = (239, 233, 218)
ROOM = (255, 255, 255)
PARKING_FILL = (87, 83, 74)
CLOSED = (214, 209, 196)
ZOMBIE = (77, 124, 15)
FRAME = (31, 95, 58)
STAR = (242, 183, 5)


def mall_png(view: engine.PublicBoard, lang: str, asked: int | None = None) -> bytes:
    """The picture of ``view``'s board (its tokens' letters in ``lang``), ``asked`` framed: PNG bytes."""
    at = {str(loc): public.at(view, loc) for loc in LOCATIONS}
    key = json.dumps(
        [at, view["zombies"], sorted(view["closed"]), view["chief"], view["hidden"], lang, asked], sort_keys=True
    )
    found = _DRAWN.get(key)
    if found is None:
        if len(_DRAWN) >= _DRAWN_KEPT:  # the oldest goes
            _DRAWN.pop(next(iter(_DRAWN)))
        found = _DRAWN[key] = _draw(view, lang, asked)
    return found


#: pictures drawn, by what they show (the oldest of ``_DRAWN_KEPT`` goes first).
_DRAWN: dict[str, bytes] = {}
_DRAWN_KEPT = 256


def _draw(view: engine.PublicBoard, lang: str, asked: int | None) -> bytes:
    rooms, height = board.layout(view)
    s = SCALE
    image = Image.new("RGB", (int(WIDTH * s), int(height * s)), PAPER)
    pen = ImageDraw.Draw(image)
    small = ImageFont.load_default(size=11 * s)
    bold = ImageFont.load_default(size=13 * s)
    parking_top = rooms[PARKING].y - board.GAP / 2
    pen.rounded_rectangle((0, 0, WIDTH * s, parking_top * s), radius=8 * s, fill=FLOOR)
    closed = set(view["closed"])
    hidden = {(str(p), str(c)) for p, c in view["hidden"]}
    marks = letters(lang)
    for loc, room in rooms.items():
        x0, y0, x1, y1 = room.x * s, room.y * s, (room.x + room.w) * s, (room.y + room.h) * s
        fill = CLOSED if loc in closed else PARKING_FILL if loc == PARKING else ROOM
        ink = PAPER if loc == PARKING else INK
        pen.rounded_rectangle((x0, y0, x1, y1), radius=5 * s, fill=fill, outline=INK, width=round(2 * s))
        if loc in closed:  # hatched: the lines x + y = d across the room, cut at its walls
            w, h = room.w, room.h
            for d in range(10, int(w + h), 10):
                start = (x0 + min(d, w) * s, y0 + max(0, d - w) * s)
                end = (x0 + max(0, d - h) * s, y0 + min(d, h) * s)
                pen.line((start, end), fill=(170, 165, 150), width=round(s))
            pen.rounded_rectangle((x0, y0, x1, y1), radius=5 * s, outline=INK, width=round(2 * s))
        if loc == asked:
            frame = (x0 - 3 * s, y0 - 3 * s, x1 + 3 * s, y1 + 3 * s)
            pen.rounded_rectangle(frame, radius=7 * s, outline=FRAME, width=round(4 * s))
        used, capacity = public.count_at(view, loc), CAPACITY[loc]
        pen.text((x0 + 8 * s, y0 + 6 * s), str(loc), font=bold, fill=ink)
        places = str(used) if capacity is None else f"{used}/{capacity}"
        pen.text((x1 - 8 * s, y0 + 7 * s), places, font=small, fill=ink, anchor="ra")
        for i, (colour, character) in enumerate(public.at(view, loc)):
            row, col = divmod(i, max(room.per_row, 1))
            cx = (room.x + 8 + board.TOKEN_R + col * board.STEP) * s
            cy = (room.y + board.HEAD + board.TOKEN_R + 2 + row * board.STEP) * s
            _token(pen, cx, cy, colour, marks[character], small, hidden=(colour, character) in hidden)
        if loc == SECURITY and view["chief"]:  # the Chief's seal, once (as on the page's board)
            sx, sy = (v * s for v in board.seal_centre(room))
            r = board.SEAL_R * s
            seal = board.TOKEN_COLOURS.get(view["chief"], board.UNKNOWN_COLOUR)[0]
            pen.ellipse((sx - r, sy - r, sx + r, sy + r), fill=seal, outline=INK, width=round(s))
            pen.polygon(board.star_points(sx, sy, r - 2 * s), fill=STAR, outline=INK)
        zombies = public.zombies(view, loc)
        if zombies:
            text = f"Z x{zombies}"
            pen.text((x0 + 6 * s, y1 + 5 * s), text, font=bold, fill=ZOMBIE)
    out = io.BytesIO()
    # a few flat colours: a palette of 24 keeps it small (about 6 kB) and quick to encode (under 10 ms)
    image.quantize(colors=24, method=Image.Quantize.FASTOCTREE).save(out, format="PNG", compress_level=6)
    return out.getvalue()


Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


def _token(
    pen: ImageDraw.ImageDraw, cx: float, cy: float, colour: str, letter: str, font: Font, *, hidden: bool
) -> None:
    fill, ink = board.TOKEN_COLOURS.get(colour, board.UNKNOWN_COLOUR)
    r = board.TOKEN_R * SCALE
    pen.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=INK, width=round(SCALE * (2 if hidden else 1)))
    pen.text((cx, cy), letter, font=font, fill=ink, anchor="mm")
