"""The reply grammar: short commands players write when they answer a mail. Pure Python, no I/O.

One command answers one engine request. The English forms, with the Italian and Polish keywords:

- ``VOTE RED`` (vote) · it ``VOTA ROSSO`` · pl ``GŁOSUJ CZERWONY``
- ``GO 3`` (announce, destination) · it ``VAI 3`` · pl ``IDŹ 3``
- ``PLACE TOUGH 3`` (place) · it ``PIAZZA BRUTO 3`` · pl ``POSTAW TWARDZIEL 3``
- ``MOVE PINUP``, ``MOVE PINUP SPRINT 3`` (move) · it ``MUOVI BIONDA SPRINT 3`` · pl ``RUSZ ŚLICZNA LALUNIA SPRINT 3``
- ``VICTIM GUNMAN`` (victim) · it ``VITTIMA UOMO CON LA PISTOLA`` · pl ``OFIARA STRZELEC``
- ``ZOMBIE 4`` (zombie) · it ``ZOMBI 4`` · pl ``ZOMBIE 4``
- ``PASS`` (cards) · it ``PASSO`` · pl ``PAS``
- ``PLAY GRENADE``, ``PLAY HIDDEN PINUP`` (cards) · it ``GIOCA GRANATA``, ``GIOCA NASCONDERSI BIONDA`` · pl
  ``ZAGRAJ GRANAT``, ``ZAGRAJ UKRYCIE ŚLICZNA LALUNIA``
- ``PLAY SPRINT PINUP 3`` (the sprint window) · it ``GIOCA SPRINT BIONDA 3`` · pl ``ZAGRAJ SPRINT ŚLICZNA LALUNIA 3``
- ``KEEP SPRINT GIVE AXE TO BLUE`` (truck) · it ``TIENI SPRINT DAI ASCIA A BLU`` · pl ``ZATRZYMAJ SPRINT DAJ SIEKIERA
  DLA NIEBIESKIEGO``

Names are the rulebooks' (RULES.md A2, A3): characters in Italian Bionda, Bruto, Uomo con la Pistola, Bambina, in
Polish Śliczna lalunia, Twardziel, Strzelec, Mała dziewczynka; the engine's own names (``pinup``, ``axe`` …) work
in every language.

Every language also accepts the English commands. More forms the parser accepts (``hints_for`` words them for mails):

- a location by number or by name (``GO MEGATOYS``, ``GO 3 MEGATOYS``); an optional ``FOR`` / ``TO`` after the verb
  (``VOTE FOR RED``, ``GO TO 3``; it ``PER`` / ``A``; pl ``NA`` / ``DO``);
- several card plays joined with ``AND`` (it ``E``, pl ``I``): ``PLAY AXE AND PLAY THREAT``, or ``PLAY AXE AND
  THREAT``; ``IF NEEDED`` (it ``SE SERVE``, pl ``W RAZIE POTRZEBY``) after a weapon, hardware or hidden play
  (RULES.md H-3);
- ``PLACE TOUGH 3 ELSE 6`` (it ``ALTRIMENTI``, pl ``INACZEJ``): the fallback location in batched turn order;
- ``MOVE PINUP SPRINT 3 IF FULL`` (it ``SE PIENO``, pl ``JEŚLI PEŁNE``): spend the Sprint only when the destination
  is full or closed.

Matching ignores case, accents (``GLOSUJ``), punctuation and extra spaces. ``commands_for`` lists every legal reply
(for ``cards``: ``PASS`` and each single-card play); ``parse_reply`` turns the first command found in a reply body
into the engine's answer JSON, or raises :class:`CommandError` with a message in the player's language that lists
the legal commands; ``strip_reply`` drops quoted text and signatures first.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection, Iterable
from typing import NamedTuple, TypeAlias, TypeVar

import engine
from engine.data import CARDS, CHARACTERS, COLOURS, LOCATIONS
from engine.shapes import JSON, JSONObject, PlacementJSON

from ..models import LANGUAGES, pick_language
from . import glossary
from .i18n import translations

__all__ = [
    "CommandError",
    "Reading",
    "commands_for",
    "hints_for",
    "parse_reply",
    "read_reply",
    "read_standing",
    "strip_reply",
]

#: Longest reply body read, and the longest line considered a command: anything beyond is ignored.
MAX_TEXT = 50_000
MAX_LINE = 300
MAX_LINES = 400


class CommandError(ValueError):
    """No legal command in a reply; the message, in the player's language, lists the legal commands."""


# --- words ------------------------------------------------------------------------------------------------------

#: Shown forms first (used by ``commands_for``), then other accepted spellings.
KEYWORDS: dict[str, dict[str, list[str]]] = {
    "en": {
        "auto": ["AUTO"],
        "s_cards": ["CARDS", "THREAT"],
        "s_camera": ["CAMERA"],
        "s_attack": ["ATTACK", "WEAPONS"],
        "ask": ["ASK", "ASK ME"],
        "look": ["LOOK"],
        "off": ["OFF"],
        "against_leader": ["AGAINST LEADER", "LEADER"],
        "against_most_here": ["AGAINST MOST HERE", "MOST HERE"],
        "vote": ["VOTE"],
        "go": ["GO", "GOTO"],
        "place": ["PLACE", "PUT"],
        "move": ["MOVE"],
        "victim": ["VICTIM"],
        "zombie": ["ZOMBIE"],
        "pass": ["PASS", "NO CARDS", "NOTHING"],
        "play": ["PLAY"],
        "keep": ["KEEP"],
        "give": ["GIVE"],
        "to": ["TO"],
        "and": ["AND", "&", "+"],
        "if_needed": ["IF NEEDED", "IF NECESSARY"],
        "if_full": ["IF FULL"],
        "else": ["ELSE", "FALLBACK", "OR"],
        "sprint": ["SPRINT"],
        "filler": ["FOR", "TO", "AT"],
    },
    "it": {
        "auto": ["AUTO"],
        "s_cards": ["CARTE", "MINACCIA"],
        "s_camera": ["TELECAMERA"],
        "s_attack": ["ATTACCO", "ARMI"],
        "ask": ["CHIEDI", "CHIEDIMI"],
        "look": ["GUARDA"],
        "off": ["SPENTO", "NIENTE"],
        "against_leader": ["CONTRO CAPOLISTA", "CAPOLISTA"],
        "against_most_here": ["CONTRO PIU PRESENTI", "PIU PRESENTI"],
        "vote": ["VOTA", "VOTO"],
        "go": ["VAI", "VADO"],
        "place": ["PIAZZA", "METTI"],
        "move": ["MUOVI", "MUOVO", "SPOSTA"],
        "victim": ["VITTIMA"],
        "zombie": ["ZOMBI"],
        "pass": ["PASSO", "PASSA"],
        "play": ["GIOCA", "GIOCO"],
        "keep": ["TIENI", "TENGO"],
        "give": ["DAI", "DO"],
        "to": ["A", "AL", "ALLA", "AD"],
        "and": ["E", "ED"],
        "if_needed": ["SE SERVE", "SE NECESSARIO"],
        "if_full": ["SE PIENO", "SE PIENA"],
        "else": ["ALTRIMENTI", "OPPURE"],
        "sprint": ["SPRINT"],
        "filler": ["PER", "A", "AL", "ALLA", "IN"],
    },
    "pl": {
        "auto": ["AUTO"],
        "s_cards": ["KARTY", "ZAGROŻENIE"],
        "s_camera": ["KAMERA"],
        "s_attack": ["ATAK", "BROŃ"],
        "ask": ["PYTAJ", "PYTAJ MNIE"],
        "look": ["PATRZ"],
        "off": ["WYŁĄCZ", "NIC"],
        "against_leader": ["PRZECIW LIDEROWI", "LIDER"],
        "against_most_here": ["PRZECIW NAJLICZNIEJSZYM", "NAJLICZNIEJSI"],
        "vote": ["GŁOSUJ", "GŁOSUJĘ"],
        "go": ["IDŹ", "IDĘ"],
        "place": ["POSTAW", "UMIEŚĆ"],
        "move": ["RUSZ", "PRZESUŃ", "RUSZAM"],
        "victim": ["OFIARA"],
        "zombie": ["ZOMBIE", "ZOMBI"],
        "pass": ["PAS", "PASUJĘ", "PASS"],
        "play": ["ZAGRAJ", "GRAM", "ZAGRYWAM"],
        "keep": ["ZATRZYMAJ", "ZATRZYMUJĘ", "ZOSTAW"],
        "give": ["DAJ", "DAJĘ", "ODDAJ"],
        "to": ["DLA", "DO"],
        "and": ["I", "ORAZ"],
        "if_needed": ["W RAZIE POTRZEBY", "JEŚLI TRZEBA", "JEŻELI TRZEBA"],
        "if_full": ["JEŚLI PEŁNE", "JEŻELI PEŁNE", "GDY PEŁNE", "JEŚLI PEŁNY"],
        "else": ["INACZEJ", "ALBO", "LUB"],
        "sprint": ["SPRINT"],
        "filler": ["NA", "DO", "W"],
    },
}

COLOUR_WORDS: dict[str, dict[str, list[str]]] = {
    "en": {
        "red": ["RED"],
        "yellow": ["YELLOW"],
        "blue": ["BLUE"],
        "green": ["GREEN"],
        "black": ["BLACK"],
        "white": ["WHITE"],
    },
    "it": {
        "red": ["ROSSO", "ROSSA", "ROSSI"],
        "yellow": ["GIALLO", "GIALLA", "GIALLI"],
        "blue": ["BLU"],
        "green": ["VERDE", "VERDI"],
        "black": ["NERO", "NERA", "NERI"],
        "white": ["BIANCO", "BIANCA", "BIANCHI"],
    },
    "pl": {
        "red": ["CZERWONY", "CZERWONEGO", "CZERWONA", "CZERWONYCH", "CZERWONI"],
        "yellow": ["ŻÓŁTY", "ŻÓŁTEGO", "ŻÓŁTA", "ŻÓŁTYCH", "ŻÓŁCI"],
        "blue": ["NIEBIESKI", "NIEBIESKIEGO", "NIEBIESKA", "NIEBIESKICH", "NIEBIESCY"],
        "green": ["ZIELONY", "ZIELONEGO", "ZIELONA", "ZIELONYCH", "ZIELONI"],
        "black": ["CZARNY", "CZARNEGO", "CZARNA", "CZARNYCH", "CZARNI"],
        "white": ["BIAŁY", "BIAŁEGO", "BIAŁA", "BIAŁYCH", "BIALI"],
    },
}

CHARACTER_WORDS: dict[str, dict[str, list[str]]] = {
    "en": {
        "pinup": ["PINUP", "PIN UP"],
        "tough": ["TOUGH", "TOUGH GUY"],
        "gunman": ["GUNMAN"],
        "girl": ["GIRL", "LITTLE GIRL"],
    },
    "it": {
        "pinup": ["BIONDA"],
        "tough": ["BRUTO"],
        "gunman": ["UOMO CON LA PISTOLA", "UOMO"],
        "girl": ["BAMBINA"],
    },
    "pl": {
        "pinup": ["ŚLICZNA LALUNIA", "LALUNIA", "ŚLICZNĄ LALUNIĘ", "LALUNIĘ"],
        "tough": ["TWARDZIEL", "TWARDZIELA"],
        "gunman": ["STRZELEC", "STRZELCA"],
        "girl": ["MAŁA DZIEWCZYNKA", "DZIEWCZYNKA", "MAŁĄ DZIEWCZYNKĘ", "DZIEWCZYNKĘ"],
    },
}

CARD_WORDS: dict[str, dict[str, list[str]]] = {
    "en": {
        "threat": ["THREAT"],
        "camera": ["CAMERA", "SECURITY CAMERA"],
        "sprint": ["SPRINT"],
        "hardware": ["HARDWARE"],
        "hidden": ["HIDDEN", "HIDE"],
        "axe": ["AXE"],
        "pistol": ["PISTOL"],
        "bat": ["BAT", "BASEBALL BAT"],
        "shotgun": ["SHOTGUN"],
        "grenade": ["GRENADE"],
        "chainsaw": ["CHAINSAW"],
    },
    "it": {
        "threat": ["MINACCIA"],
        "camera": ["TELECAMERA", "TELECAMERA DI SICUREZZA"],
        "sprint": ["SPRINT"],
        "hardware": ["BARRICATA"],
        "hidden": ["NASCONDERSI", "NASCONDI"],
        "axe": ["ASCIA"],
        "pistol": ["PISTOLA"],
        "bat": ["MAZZA DA BASEBALL", "MAZZA"],
        "shotgun": ["FUCILE", "FUCILE A POMPA"],
        "grenade": ["GRANATA"],
        "chainsaw": ["MOTOSEGA"],
    },
    "pl": {
        "threat": ["ZAGROŻENIE"],
        "camera": ["KAMERA OCHRONY", "KAMERA", "KAMERĘ OCHRONY", "KAMERĘ"],
        "sprint": ["SPRINT"],
        "hardware": ["HARDWARE"],
        "hidden": ["UKRYCIE"],
        "axe": ["SIEKIERA", "SIEKIERĘ"],
        "pistol": ["PISTOLET"],
        "bat": ["KIJ BASEBALLOWY", "KIJ BEJSBOLOWY", "KIJ"],
        "shotgun": ["STRZELBA", "STRZELBĘ"],
        "grenade": ["GRANAT"],
        "chainsaw": ["PIŁA ŁAŃCUCHOWA", "PIŁĘ ŁAŃCUCHOWĄ", "PIŁA"],
    },
}

LOCATION_WORDS: dict[str, dict[int, list[str]]] = {
    "en": {
        1: ["RESTROOM", "TOILETS", "TOILET"],
        2: ["CACHOU"],
        3: ["MEGATOYS", "MEGATOYS PARADISE"],
        4: ["PARKING", "PARKING LOT"],
        5: ["SECURITY HQ", "SECURITY", "SECURITY CENTER", "SECURITY CENTRE"],
        6: ["SUPERMARKET"],
    },
    "it": {
        1: ["BAGNI", "BAGNO"],
        2: ["CACHOU", "LOCAZIONE 2"],
        3: ["MEGATOYS"],
        4: ["PARCHEGGIO"],
        5: ["UFFICIO DELLA SICUREZZA", "SICUREZZA"],
        6: ["SUPERMARKET", "SUPERMERCATO"],
    },
    "pl": {
        1: ["TOALETY", "TOALETA"],
        2: ["CACHOU"],
        3: ["MEGATOYS"],
        4: ["PARKING"],
        5: ["POKÓJ OCHRONY", "OCHRONA"],
        6: ["SUPERMARKET"],
    },
}

CHARACTER_ORDER = CHARACTERS
IF_NEEDED_CARDS = frozenset({"axe", "pistol", "bat", "shotgun", "grenade", "chainsaw", "hardware", "hidden"})


# --- normalising ------------------------------------------------------------------------------------------------

_NON_WORD = re.compile(r"[^0-9A-Z&+]+")


def normalise(text: str) -> str:
    """Upper case without accents (ł and Ł included), punctuation as spaces, single spaces."""
    text = text.replace("ł", "l").replace("Ł", "L")
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).upper()
    return " ".join(_NON_WORD.sub(" ", bare).split())


def _words(text: str) -> tuple[str, ...]:
    return tuple(normalise(text).split())


_V = TypeVar("_V", str, int)
#: phrase (its words) -> what it names: a colour, character or card (str), a location (int).
Phrases: TypeAlias = dict[tuple[str, ...], _V]


class Vocabulary:
    """The phrases one player may use: their language's words and the English ones. Every name of the glossary
    is one of them (a player may write what their mail calls a thing), and so is every engine identifier."""

    def __init__(self, language: str) -> None:
        langs = ("en",) if language == "en" else ("en", language)
        self.keywords: dict[str, set[tuple[str, ...]]] = {}
        for lang in langs:
            for key, forms in KEYWORDS[lang].items():
                self.keywords.setdefault(key, set()).update(_words(f) for f in forms)
        self.colours = self._table(COLOUR_WORDS, langs, COLOURS, glossary.colour_name)
        self.characters = self._table(CHARACTER_WORDS, langs, CHARACTERS, glossary.character_name)
        self.cards = self._table(CARD_WORDS, langs, CARDS, glossary.card_name)
        self.locations: Phrases[int] = self._table(LOCATION_WORDS, langs, LOCATIONS, glossary.location_name)
        for loc in LOCATIONS:
            self.locations[(str(loc),)] = loc
        for table in (self.colours, self.characters, self.cards):
            for value in list(table.values()):
                table.setdefault((str(value).upper(),), value)  # the engine's own names work everywhere

    @staticmethod
    def _table(
        words: dict[str, dict[_V, list[str]]],
        langs: Iterable[str],
        keys: Iterable[_V],
        name: Callable[[str, _V], str],
    ) -> Phrases[_V]:
        out: Phrases[_V] = {}
        for lang in langs:
            for value, forms in words[lang].items():
                for form in forms:
                    out.setdefault(_words(form), value)
            for key in keys:
                out.setdefault(_words(name(lang, key)), key)
        return out


_VOCABULARIES = {lang: Vocabulary(lang) for lang in LANGUAGES}


# --- listing ----------------------------------------------------------------------------------------------------


def _kw(lang: str, key: str) -> str:
    return KEYWORDS[lang][key][0]


def _colour(lang: str, colour: str) -> str:
    return COLOUR_WORDS[lang][colour][0]


def _recipient(lang: str, colour: str) -> str:
    """A colour after TO: Polish DLA takes the genitive (DLA CZERWONEGO)."""
    return COLOUR_WORDS[lang][colour][1 if lang == "pl" else 0]


def _char(lang: str, character: str) -> str:
    return CHARACTER_WORDS[lang][character][0]


def _card(lang: str, card: str) -> str:
    return CARD_WORDS[lang][card][0]


def _open_locations(view: engine.PlayerView) -> list[int]:
    closed = set(view["closed"])
    return [loc for loc in LOCATIONS if loc not in closed]


def _can_sprint_on_move(view: engine.PlayerView) -> bool:
    return view["options"]["sprint_timing"] == "on_move" and "sprint" in view["hand"]


def _can_hide(request: engine.RequestJSON, view: engine.PlayerView) -> list[str]:
    """The player's characters at the attacked location who are not hidden yet."""
    me = request["player"]
    loc = request["location"]
    mine = view["characters"][me]
    hidden = {tuple(pair) for pair in view["hidden"]}
    return [c for c in CHARACTER_ORDER if mine.get(c) == loc and (me, c) not in hidden]


def _moved(request: engine.RequestJSON, view: engine.PlayerView) -> str | None:
    """The character the player moved this round (the last ``moved`` event of theirs)."""
    me = request["player"]
    for event in reversed(view["events"]):
        if event["type"] == "moved" and event["player"] == me:
            return event["character"]
        if event["type"] == "round_started":
            break
    return None


def _recipients(request: engine.RequestJSON, view: engine.PlayerView) -> list[str]:
    players = list(view["players"])
    me = request["player"]
    chars = view["characters"]
    if me in players:
        i = players.index(me)
        players = players[i + 1 :] + players[:i]
    return [p for p in players if p != me and chars[p]]


def _dedupe(lines: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(lines))


def _vote_commands(lang: str, request: engine.RequestJSON, view: engine.PlayerView) -> list[str]:
    return [f"{_kw(lang, 'vote')} {_colour(lang, c)}" for c in request["options"] or []]


def _go_commands(lang: str, request: engine.RequestJSON, view: engine.PlayerView) -> list[str]:
    verb = "zombie" if request["kind"] == "zombie" else "go"
    return [f"{_kw(lang, verb)} {loc}" for loc in request["options"] or []]


def _victim_commands(lang: str, request: engine.RequestJSON, view: engine.PlayerView) -> list[str]:
    return [f"{_kw(lang, 'victim')} {_char(lang, c)}" for c in request["options"] or []]


def _place_command(lang: str, option: JSONObject, fallback: int | None = None) -> str:
    """PLACE <character> <location> [ELSE <fallback>]."""
    line = f"{_kw(lang, 'place')} {_char(lang, str(option['character']))} {option['location']}"
    return line if fallback is None else f"{line} {_kw(lang, 'else')} {fallback}"


def _place_commands(lang: str, request: engine.RequestJSON, view: engine.PlayerView) -> list[str]:
    return [_place_command(lang, o) for o in request["options"] or []]


def _move_commands(lang: str, request: engine.RequestJSON, view: engine.PlayerView) -> list[str]:
    characters = [_char(lang, o["character"]) for o in request["options"] or []]
    out = [f"{_kw(lang, 'move')} {c}" for c in characters]
    if _can_sprint_on_move(view):
        out += [
            f"{_kw(lang, 'move')} {c} {_kw(lang, 'sprint')} {loc}" for c in characters for loc in _open_locations(view)
        ]
    return out


def _truck_commands(lang: str, request: engine.RequestJSON, view: engine.PlayerView) -> list[str]:
    cards = request["cards"]
    out = []
    for i, keep in enumerate(cards):
        for give in cards[:i] + cards[i + 1 :]:
            for to in _recipients(request, view):
                out.append(
                    f"{_kw(lang, 'keep')} {_card(lang, keep)} {_kw(lang, 'give')} {_card(lang, give)} "
                    f"{_kw(lang, 'to')} {_recipient(lang, to)}"
                )
    return out


def _cards_commands(lang: str, request: engine.RequestJSON, view: engine.PlayerView) -> list[str]:
    out = [_kw(lang, "pass")]
    play = _kw(lang, "play")
    for card in request["playable"]:
        if card == "hidden":
            out += [f"{play} {_card(lang, card)} {_char(lang, c)}" for c in _can_hide(request, view)]
        elif card == "sprint":
            moved = _moved(request, view)
            if moved is not None:
                out += [f"{play} {_card(lang, card)} {_char(lang, moved)} {loc}" for loc in _open_locations(view)]
        else:
            out.append(f"{play} {_card(lang, card)}")
    return out


_COMMANDS: dict[str, Callable[[str, engine.RequestJSON, engine.PlayerView], list[str]]] = {
    "vote": _vote_commands,
    "announce": _go_commands,
    "destination": _go_commands,
    "zombie": _go_commands,
    "victim": _victim_commands,
    "place": _place_commands,
    "move": _move_commands,
    "truck": _truck_commands,
    "cards": _cards_commands,
}


def commands_for(request: engine.RequestJSON, view: engine.PlayerView, language: str) -> list[str]:
    """Every legal reply to ``request`` in ``language`` (for ``cards``: PASS and each single-card play)."""
    listing = _COMMANDS.get(request["kind"])
    return [] if listing is None else _dedupe(listing(pick_language(language), request, view))


def fallback_choices(
    request: engine.RequestJSON, view: engine.PlayerView, language: str
) -> list[tuple[str, PlacementJSON]]:
    """In batched order, each placement of ``commands_for`` with each fallback location (``ELSE``), as the command
    and its answer: what the board's picker offers as a third tap; not listed (``hints_for`` tells of the form)."""
    if request["kind"] != "place" or view["options"]["turn_order"] != "batched":
        return []
    lang = pick_language(language)
    return [
        (_place_command(lang, o, spare), {"character": o["character"], "location": o["location"], "fallback": spare})
        for o in request["options"] or []
        for spare in _open_locations(view)
        if spare != o["location"]
    ]


def _cards_hints(lang: str, request: engine.RequestJSON, view: engine.PlayerView) -> list[str]:
    t = translations(lang)
    playable = request["playable"]
    hand = view["hand"]
    plays = [c for c in playable if c not in ("hidden", "sprint")]
    out = []
    if len(plays) >= 2 or any(hand.count(c) > 1 for c in plays):
        play = _kw(lang, "play")
        second = plays[1] if len(plays) > 1 else plays[0]
        example = f"{play} {_card(lang, plays[0])} {_kw(lang, 'and')} {play} {_card(lang, second)}"
        out.append(
            t.gettext("Several cards can be played at once: join the plays with AND, as in “%(example)s”.")
            % {"example": example}
        )
    needy = [c for c in playable if c in IF_NEEDED_CARDS and c != "hidden"]
    if needy:
        example = f"{_kw(lang, 'play')} {_card(lang, needy[0])} {_kw(lang, 'if_needed')}"
        out.append(
            t.gettext(
                "Add IF NEEDED after a weapon, Hardware or Hidden play to keep the card if the zombies are already "
                "held off when your turn comes, as in “%(example)s”."
            )
            % {"example": example}
        )
    return out


def _place_hints(lang: str, request: engine.RequestJSON, view: engine.PlayerView) -> list[str]:
    options = request["options"] or []
    if view["options"]["turn_order"] != "batched" or not options:
        return []
    o = options[0]
    spare = next((loc for loc in _open_locations(view) if loc != o["location"]), 4)
    example = _place_command(lang, o, spare)
    return [
        translations(lang).gettext(
            "In batched order you may add a fallback location, used if your choice is full: “%(example)s”."
        )
        % {"example": example}
    ]


def _move_hints(lang: str, request: engine.RequestJSON, view: engine.PlayerView) -> list[str]:
    options = request["options"] or []
    if not _can_sprint_on_move(view) or not options:
        return []
    example = (
        f"{_kw(lang, 'move')} {_char(lang, options[0]['character'])} {_kw(lang, 'sprint')} 4 {_kw(lang, 'if_full')}"
    )
    return [
        translations(lang).gettext(
            "Add IF FULL after a Sprint to spend it only if the destination is full or closed: “%(example)s”."
        )
        % {"example": example}
    ]


_HINTS: dict[str, Callable[[str, engine.RequestJSON, engine.PlayerView], list[str]]] = {
    "cards": _cards_hints,
    "place": _place_hints,
    "move": _move_hints,
}


def hints_for(request: engine.RequestJSON, view: engine.PlayerView, language: str) -> list[str]:
    """Sentences, in ``language``, about the optional forms that fit this request (AND, IF NEEDED, ELSE, IF FULL)."""
    hints = _HINTS.get(request["kind"])
    return [] if hints is None else hints(pick_language(language), request, view)


def error_message(language: str, commands: list[str], line: str | None = None) -> str:
    """The explanation sent back when a reply holds no legal command."""
    t = translations(pick_language(language))
    if line is None:
        head = t.gettext("No command was found in your reply.")
    else:
        shown = line if len(line) <= 60 else line[:57] + "..."
        head = t.gettext("“%(line)s” is not a reply you can make now.") % {"line": shown}
    return "\n".join([head, "", t.gettext("Reply with one of these lines:"), *(f"    {c}" for c in commands)])


# --- parsing ----------------------------------------------------------------------------------------------------


class _NoMatch(Exception):
    """This line is not a legal command for the request."""


class _Reader:
    """Reads one line's words against a vocabulary, longest phrase first."""

    def __init__(self, words: tuple[str, ...], vocab: Vocabulary) -> None:
        self.words = words
        self.vocab = vocab
        self.i = 0

    def done(self) -> bool:
        return self.i >= len(self.words)

    def _phrase(self, table: Collection[tuple[str, ...]]) -> tuple[str, ...] | None:
        """The longest phrase of ``table`` at the reader's place (five words at most); None when there is none."""
        for n in range(min(5, len(self.words) - self.i), 0, -1):
            key = self.words[self.i : self.i + n]
            if key in table:
                return key
        return None

    def peek(self, table: Collection[tuple[str, ...]]) -> bool:
        return self._phrase(table) is not None

    def keyword(self, key: str) -> bool:
        found = self._phrase(self.vocab.keywords[key])
        if found is None:
            return False
        self.i += len(found)
        return True

    def value(self, table: Phrases[_V]) -> _V:
        found = self._phrase(table)
        if found is None:
            raise _NoMatch
        self.i += len(found)
        return table[found]

    def location(self) -> int:
        loc = self.value(self.vocab.locations)
        found = self._phrase(self.vocab.locations)  # "3 MEGATOYS": the number, then its own name
        if found is not None and self.vocab.locations[found] == loc and not self.words[self.i].isdigit():
            self.i += len(found)
        return loc

    def end(self) -> None:
        if not self.done():
            raise _NoMatch


def _parse_vote(r: _Reader, request: engine.RequestJSON, view: engine.PlayerView) -> str:
    if not r.keyword("vote"):
        raise _NoMatch
    r.keyword("filler")
    colour = r.value(r.vocab.colours)
    r.end()
    if colour not in (request["options"] or []):
        raise _NoMatch
    return colour


def _parse_go(r: _Reader, request: engine.RequestJSON, view: engine.PlayerView) -> int:
    verbs = ("zombie", "go") if request["kind"] == "zombie" else ("go",)
    if not any(r.keyword(v) for v in verbs):
        raise _NoMatch
    r.keyword("filler")
    loc = r.location()
    r.end()
    if loc not in (request["options"] or []):
        raise _NoMatch
    return loc


def _parse_victim(r: _Reader, request: engine.RequestJSON, view: engine.PlayerView) -> str:
    if not r.keyword("victim"):
        raise _NoMatch
    character = r.value(r.vocab.characters)
    r.end()
    if character not in (request["options"] or []):
        raise _NoMatch
    return character


def _parse_place(r: _Reader, request: engine.RequestJSON, view: engine.PlayerView) -> JSONObject:
    options = request["options"] or []
    if not r.keyword("place"):
        raise _NoMatch
    character = r.value(r.vocab.characters)
    r.keyword("filler")
    loc = r.location()
    answer: JSONObject = {"character": character, "location": loc}
    if r.keyword("else"):
        r.keyword("filler")
        fallback = r.location()
        if fallback not in _open_locations(view):
            raise _NoMatch
        answer["fallback"] = fallback
    r.end()
    if {"character": character, "location": loc} not in options:
        raise _NoMatch
    return answer


def _parse_move(r: _Reader, request: engine.RequestJSON, view: engine.PlayerView) -> JSONObject:
    options = request["options"] or []
    if not r.keyword("move"):
        raise _NoMatch
    character = r.value(r.vocab.characters)
    if {"character": character} not in options:
        raise _NoMatch
    answer: JSONObject = {"character": character}
    if r.keyword("sprint"):
        r.keyword("filler")
        loc = r.location()
        if not _can_sprint_on_move(view) or loc not in _open_locations(view):
            raise _NoMatch
        answer["sprint"] = loc
        if r.keyword("if_full"):
            answer["sprint_if_full"] = True
    r.end()
    return answer


def _parse_truck(r: _Reader, request: engine.RequestJSON, view: engine.PlayerView) -> JSONObject:
    keep: str | None = None
    give: str | None = None
    to: str | None = None
    while not r.done():
        if keep is None and r.keyword("keep"):
            keep = r.value(r.vocab.cards)
        elif give is None and r.keyword("give"):
            give = r.value(r.vocab.cards)
            if not r.keyword("to"):
                raise _NoMatch
            to = r.value(r.vocab.colours)
        elif not r.keyword("and"):
            raise _NoMatch
    cards = list(request["cards"])  # a copy: the kept card is taken out
    if keep is None or give is None or keep not in cards:
        raise _NoMatch
    cards.remove(keep)
    if give not in cards or to not in _recipients(request, view):
        raise _NoMatch
    return {"keep": keep, "give": give, "to": to}


def _parse_cards(r: _Reader, request: engine.RequestJSON, view: engine.PlayerView) -> list[JSON]:
    if r.keyword("pass"):
        r.end()
        return []
    if not r.keyword("play"):
        raise _NoMatch
    playable = set(request["playable"])
    hand = view["hand"]
    used: dict[str, int] = {}
    hiding: set[str] = set()
    plays: list[JSON] = []
    while True:
        card = r.value(r.vocab.cards)
        if card not in playable:
            raise _NoMatch
        used[card] = used.get(card, 0) + 1
        if used[card] > hand.count(card) or (card in ("camera", "sprint") and used[card] > 1):
            raise _NoMatch
        plays.append(_parse_play(r, card, request, view, hiding))
        if r.done():
            return plays
        joined = r.keyword("and")
        joined = r.keyword("play") or joined
        if not joined:
            raise _NoMatch


def _parse_play(
    r: _Reader, card: str, request: engine.RequestJSON, view: engine.PlayerView, hiding: set[str]
) -> JSONObject:
    """One card play after its card: Hidden's character, Sprint's character and location, IF NEEDED."""
    play: JSONObject = {"card": card}
    if card == "hidden":
        can_hide = [c for c in _can_hide(request, view) if c not in hiding]
        hides = r.value(r.vocab.characters) if r.peek(r.vocab.characters) else None
        if hides is None and len(can_hide) == 1:
            hides = can_hide[0]
        if hides is None or hides not in can_hide:
            raise _NoMatch
        play["character"] = hides
        hiding.add(hides)
    elif card == "sprint":
        moved = _moved(request, view)
        runs = r.value(r.vocab.characters) if r.peek(r.vocab.characters) else moved
        if moved is None or runs != moved:
            raise _NoMatch
        play["character"] = runs
        r.keyword("filler")
        location = play["location"] = r.location()
        if location not in _open_locations(view):
            raise _NoMatch
    if r.keyword("if_needed"):
        if card not in IF_NEEDED_CARDS:
            raise _NoMatch
        play["if_needed"] = True
    return play


_PARSERS: dict[str, Callable[[_Reader, engine.RequestJSON, engine.PlayerView], JSON]] = {
    "vote": _parse_vote,
    "announce": _parse_go,
    "destination": _parse_go,
    "zombie": _parse_go,
    "victim": _parse_victim,
    "place": _parse_place,
    "move": _parse_move,
    "truck": _parse_truck,
    "cards": _parse_cards,
}


def _parse_line(
    words: tuple[str, ...], request: engine.RequestJSON, view: engine.PlayerView, vocab: Vocabulary
) -> JSON:
    parser = _PARSERS.get(request["kind"])
    if parser is None:
        raise _NoMatch
    return parser(_Reader(words, vocab), request, view)


class Reading(NamedTuple):
    """A command found in a reply: the engine answer JSON, and the line it was read from."""

    answer: JSON
    line: str


def read_reply(text: str, request: engine.RequestJSON, view: engine.PlayerView, language: str) -> Reading:
    """The first legal command in a reply body (quotes and signature stripped first): its engine answer JSON and
    its line. Raises :class:`CommandError`, worded in ``language`` and listing the legal commands, when there is
    none."""
    lang = pick_language(language)
    vocab = _VOCABULARIES[lang]
    first_attempt: str | None = None
    verbs = ("vote", "go", "place", "move", "victim", "zombie", "pass", "play", "keep", "give")
    try:
        body = strip_reply(str(text)[:MAX_TEXT])
        for raw in body.splitlines()[:MAX_LINES]:
            words = _words(raw) if len(raw) <= MAX_LINE else ()
            if not words:
                continue
            try:
                return Reading(_parse_line(words, request, view, vocab), raw.strip())
            except _NoMatch:
                if first_attempt is None and any(_Reader(words, vocab).keyword(v) for v in verbs):
                    first_attempt = " ".join(raw.split())
    except Exception:  # hostile input must never escape as anything but a CommandError
        first_attempt = None
    try:
        commands = commands_for(request, view, lang)
    except Exception:
        commands = []
    raise CommandError(error_message(lang, commands, first_attempt))


def parse_reply(text: str, request: engine.RequestJSON, view: engine.PlayerView, language: str) -> JSON:
    """The engine answer JSON of ``read_reply``."""
    return read_reply(text, request, view, language).answer


# --- standing answers --------------------------------------------------------------------------------------------

#: a setting's word -> the setting, and the values each takes (besides ASK), as keywords
#: setting -> "ask", one of its values, or (``victim``) a victim order.
StandingChanges: TypeAlias = dict[str, str | list[str]]

_SETTINGS = {"s_cards": "cards", "s_camera": "camera", "s_attack": "attack", "vote": "vote", "victim": "victim"}
_VALUES = {
    "cards": ("pass",),
    "camera": ("look",),
    "attack": ("if_needed",),
    "vote": ("against_leader", "against_most_here"),
}


def read_standing(text: str, language: str) -> StandingChanges | None:
    """The standing-answers command in a reply body (quotes and signature stripped first), as changes for
    ``standing.check_changes``; None when its first command line is not one. ``AUTO CAMERA LOOK``, ``AUTO CAMERA
    ASK``, ``AUTO VOTE AGAINST LEADER``, ``AUTO ATTACK IF NEEDED``, ``AUTO CARDS PASS``, ``AUTO VICTIM GIRL GUNMAN``,
    ``AUTO OFF`` (every one asks again in this game); it ``AUTO TELECAMERA GUARDA``, ``AUTO VOTO CHIEDI``, ``AUTO
    SPENTO``; pl ``AUTO KAMERA PATRZ``, ``AUTO GŁOSUJ PYTAJ``, ``AUTO WYŁĄCZ``. CommandError (in ``language``)
    for an ``AUTO`` line that says nothing understood."""
    lang = pick_language(language)
    vocab = _VOCABULARIES[lang]
    body = strip_reply(str(text)[:MAX_TEXT])
    line = next((raw for raw in body.splitlines()[:MAX_LINES] if raw.strip()), "")
    words = _words(line) if len(line) <= MAX_LINE else ()
    r = _Reader(words, vocab)
    if not words or not r.keyword("auto"):
        return None
    try:
        return _standing_changes(r)
    except _NoMatch:
        raise CommandError(
            translations(lang).gettext(
                "“%(command)s” is not a standing answer. Write for example “%(example)s”, or “%(off)s”."
            )
            % {"command": " ".join(line.split())[:80], "example": "AUTO CAMERA LOOK", "off": "AUTO OFF"}
        ) from None


def _standing_changes(r: _Reader) -> StandingChanges:
    if r.keyword("off"):
        r.end()
        return dict.fromkeys(("cards", "camera", "attack", "vote", "victim"), "ask")
    setting = next((name for word, name in _SETTINGS.items() if r.keyword(word)), None)
    if setting is None:
        raise _NoMatch
    if r.keyword("ask") or r.keyword("off"):
        r.end()
        return {setting: "ask"}
    if setting == "victim":
        order = []
        while not r.done():
            order.append(r.value(r.vocab.characters))
        if not order:
            raise _NoMatch
        return {setting: order}
    value = next((v for v in _VALUES[setting] if r.keyword(v)), None)
    if value is None:
        raise _NoMatch
    r.end()
    return {setting: value}


# --- stripping --------------------------------------------------------------------------------------------------

_ATTRIBUTION_END = re.compile(
    r"(wrote|ha scritto|scritto|pisze|napisa(?:ł|l)(?:\(a\))?|napisa(?:ł|l)a|a écrit|schrieb)\s*:\s*$", re.IGNORECASE
)
_ATTRIBUTION_START = re.compile(r"^\s*(on|il|w dniu|dnia|le|am)\b", re.IGNORECASE)
#: Gmail in Polish puts the date first ("pon., 3 lis 2026 o 10:00 Ann <…> napisał(a):").
_GMAIL_PL = re.compile(r"\b\d{1,2}:\d{2}\b.*(napisa(?:ł|l)|pisze)", re.IGNORECASE)
#: Apple Mail in Polish: "Wiadomość napisana przez Ann <…> w dniu 3 lis 2026, o godz. 10:00:".
_APPLE_PL = re.compile(r"^\s*wiadomo(?:ść|sc) napisana przez\b.*:\s*$", re.IGNORECASE)
_ORIGINAL = re.compile(
    r"^\s*-{2,}\s*(original message|messaggio originale|oryginalna wiadomo(?:ść|sc)|wiadomo(?:ść|sc) oryginalna|"
    r"forwarded message|messaggio inoltrato|wiadomo(?:ść|sc) przekazana)\s*-{2,}\s*$",
    re.IGNORECASE,
)
_UNDERSCORES = re.compile(r"^\s*_{10,}\s*$")
_HEADER_FROM = re.compile(r"^\s*\**(from|da|od)\s*:\**\s", re.IGNORECASE)
_HEADER_NEXT = re.compile(
    r"^\s*\**(sent|date|to|subject|cc|inviato|data|a|oggetto|wysłane|wys[lł]ano|data|do|temat|dw)\s*:", re.IGNORECASE
)
#: the signature a phone or mail app adds ("Sent from my iPhone", "Inviato dal mio dispositivo Galaxy", "Wysłane z
#: iPhone'a", "Get Outlook for Android", "Ottieni Outlook per Android", "Sent from Mail for Windows").
_MOBILE = re.compile(
    r"^\s*(sent from\b|get outlook for|ottieni outlook per|inviato da(?:l|lla)?\b|wys[lł]ane z|wys[lł]ano z)",
    re.IGNORECASE,
)


def strip_reply(text: str) -> str:
    """The part of a reply the player wrote: no quoted lines, no quoted original below an attribution or a header
    block, no signature. A reply written below (or between) quoted lines is kept too."""
    lines = str(text)[:MAX_TEXT].replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept: list[str] = []
    skip = 0
    for i, line in enumerate(lines):
        if skip:
            skip -= 1
            continue
        if _ends_the_reply(lines, i):
            break
        attribution = _attribution(lines, i)
        if attribution:
            if not _quote_follows(lines, i + attribution):
                break
            skip = attribution - 1  # a quote follows: the player may write below it
            continue
        if not line.strip().startswith(">"):
            kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    while kept and not kept[0].strip():
        kept.pop(0)
    return "\n".join(kept)


def _ends_the_reply(lines: list[str], i: int) -> bool:
    """A signature, or the original mail below a separator or a header block: nothing after it is the player's."""
    line = lines[i]
    if line.rstrip() == "--" or _MOBILE.match(line) or _ORIGINAL.match(line) or _UNDERSCORES.match(line):
        return True
    return bool(_HEADER_FROM.match(line) and any(_HEADER_NEXT.match(n) for n in lines[i + 1 : i + 5]))


def _quote_follows(lines: list[str], start: int) -> bool:
    """The first non-empty line from ``start`` on is quoted (``>``)."""
    return next((line.strip().startswith(">") for line in lines[start:] if line.strip()), False)


def _attribution(lines: list[str], i: int) -> int:
    """How many lines the attribution starting at line ``i`` takes (``On … wrote:`` and its kin, which clients may
    wrap over two or three lines); 0 when none starts there."""
    line = lines[i]
    if len(line) > 400 or line.strip().startswith(">") or not line.strip():
        return 0
    joined = line
    for count, nxt in enumerate([None, *lines[i + 1 : i + 3]], start=1):
        if nxt is not None:
            if nxt.strip().startswith(">") or not nxt.strip():
                return 0
            joined += " " + nxt
        if len(joined) > 400:
            return 0
        if _APPLE_PL.match(joined) or (
            _ATTRIBUTION_END.search(joined) and (_ATTRIBUTION_START.match(joined) or _GMAIL_PL.search(joined))
        ):
            return count
    return 0
