"""The glossary: every name a player reads, in English, Italian and Polish, keyed on ``engine.data``.

One table per kind of thing (colours, characters, cards, locations, phases), each keyed on the engine's own
identifiers, the English names taken from ``engine.data`` itself, the Italian and Polish ones from the rulebooks
(RULES.md A1-A3). Pages, mails, event sentences, the reply grammar's shown forms and translated refusals all name
things through these functions, so a thing has one name per language everywhere. The words that describe (what a
card does, what a request is about, a game's status) are gettext messages, in the catalogs.
"""

from __future__ import annotations

from typing import TypeVar

from engine import data
from engine.data import CAPACITY, WEAPONS

from ..models import pick_language
from .i18n import translations

__all__ = [
    "CARD_NAMES",
    "CHARACTER_NAMES",
    "COLOUR_NAMES",
    "LOCATION_NAMES",
    "PHASE_NAMES",
    "card_name",
    "card_text",
    "character_name",
    "colour_name",
    "kind_name",
    "letters",
    "location_capacity",
    "location_label",
    "location_name",
    "phase_name",
    "standing_answer_name",
    "standing_answer_value",
    "status_name",
]

COLOUR_NAMES: dict[str, dict[str, str]] = {
    "en": {"red": "Red", "yellow": "Yellow", "blue": "Blue", "green": "Green", "black": "Black", "white": "White"},
    "it": {"red": "Rosso", "yellow": "Giallo", "blue": "Blu", "green": "Verde", "black": "Nero", "white": "Bianco"},
    "pl": {
        "red": "Czerwony",
        "yellow": "Żółty",
        "blue": "Niebieski",
        "green": "Zielony",
        "black": "Czarny",
        "white": "Biały",
    },
}

CHARACTER_NAMES: dict[str, dict[str, str]] = {
    "en": dict(data.CHARACTER_NAMES),
    "it": {"pinup": "Bionda", "tough": "Bruto", "gunman": "Uomo con la Pistola", "girl": "Bambina"},
    "pl": {"pinup": "Śliczna lalunia", "tough": "Twardziel", "gunman": "Strzelec", "girl": "Mała dziewczynka"},
}

CARD_NAMES: dict[str, dict[str, str]] = {
    "en": dict(data.CARD_NAMES),
    "it": {
        "threat": "Minaccia",
        "camera": "Telecamera di sicurezza",
        "sprint": "Sprint",
        "hardware": "Barricata",
        "hidden": "Nascondersi",
        "axe": "Ascia",
        "pistol": "Pistola",
        "bat": "Mazza da baseball",
        "shotgun": "Fucile a pompa",
        "grenade": "Granata",
        "chainsaw": "Motosega",
    },
    "pl": {
        "threat": "Zagrożenie",
        "camera": "Kamera Ochrony",
        "sprint": "Sprint",
        "hardware": "Hardware",
        "hidden": "Ukrycie",
        "axe": "Siekiera",
        "pistol": "Pistolet",
        "bat": "Kij baseballowy",
        "shotgun": "Strzelba",
        "grenade": "Granat",
        "chainsaw": "Piła łańcuchowa",
    },
}

LOCATION_NAMES: dict[str, dict[int, str]] = {
    "en": dict(data.LOCATION_NAMES),
    "it": {1: "Bagni", 2: "Cachou", 3: "Megatoys", 4: "Parcheggio", 5: "Ufficio della Sicurezza", 6: "Supermarket"},
    "pl": {1: "Toalety", 2: "Cachou", 3: "Megatoys", 4: "Parking", 5: "Pokój Ochrony", 6: "Supermarket"},
}

PHASE_NAMES: dict[str, dict[str, str]] = {
    "en": {
        "setup": "Setup",
        "truck": "A. Search the truck",
        "chief": "B. Elect the Chief of Security",
        "arrival": "C. Arrival of the zombies",
        "destinations": "D. Choose destinations",
        "moves": "E. Move characters",
        "attack": "F. Attack of the zombies",
        "over": "Game over",
    },
    "it": {
        "setup": "Inizio",
        "truck": "A. Ricerca del camion",
        "chief": "B. Elezione del Capo della Sicurezza",
        "arrival": "C. Arrivo degli zombie",
        "destinations": "D. Scelta delle destinazioni",
        "moves": "E. Movimento dei personaggi",
        "attack": "F. Attacco degli zombie",
        "over": "Fine del gioco",
    },
    "pl": {
        "setup": "Przygotowanie rozgrywki",
        "truck": "a) Przeszukiwanie auta",
        "chief": "b) Wybór Szefa Ochrony",
        "arrival": "c) Przybycie zombie",
        "destinations": "d) Wybór celu",
        "moves": "e) Ruch postaci",
        "attack": "f) Atak zombie",
        "over": "Koniec gry",
    },
}


_K = TypeVar("_K", str, int)


def _name(table: dict[str, dict[_K, str]], lang: str, key: _K) -> str:
    names = table[pick_language(lang)]
    return names[key] if key in names else str(key)


def colour_name(lang: str, colour: str) -> str:
    """A player's colour as a name: "Red", "Rosso", "Czerwony"."""
    return _name(COLOUR_NAMES, lang, colour)


def character_name(lang: str, character: str) -> str:
    """RULES.md A2: "Pin-Up", "Bionda", "Śliczna lalunia" …"""
    return _name(CHARACTER_NAMES, lang, character)


def card_name(lang: str, card: str) -> str:
    """RULES.md A3: "Threat", "Minaccia", "Zagrożenie" …; weapons by their own names."""
    return _name(CARD_NAMES, lang, card)


def location_name(lang: str, number: int) -> str:
    """RULES.md A1: "Security HQ", "Ufficio della Sicurezza", "Pokój Ochrony" …"""
    return _name(LOCATION_NAMES, lang, number)


def location_capacity(number: int) -> int | None:
    """How many character tokens the location holds; None for the Parking (unlimited)."""
    return CAPACITY.get(number)


def phase_name(lang: str, phase: str) -> str:
    """The phase of a round as the rulebook titles it ("F. Attack of the zombies")."""
    return _name(PHASE_NAMES, lang, phase)


def location_label(lang: str, number: int) -> str:
    """A location with its number, as sentences show it: "Security HQ (5)", "5 (Pokój Ochrony)"."""
    t = translations(lang)
    return t.gettext("%(name)s (%(number)s)") % {"name": location_name(lang, number), "number": number}


def card_text(lang: str, card: str) -> str:
    """What a card does (RULES.md A3), in one or two sentences."""
    t = translations(lang)
    if card in WEAPONS:
        kills = data.DEFAULT_WEAPONS[card]
        return t.ngettext(
            "Weapon: immediately kills %(num)d zombie at the attacked location, the Parking Lot included. "
            "Play it before the vote of an attack.",
            "Weapon: immediately kills %(num)d zombies at the attacked location, the Parking Lot included. "
            "Play it before the vote of an attack.",
            kills,
        ) % {"num": kills}
    texts = {
        "threat": t.gettext(
            "One extra vote for the vote about to be held; several can be played at once, and they still count "
            "in the re-vote. Play it before a vote."
        ),
        "camera": t.gettext("Look in secret at the four zombie dice after the Chief has rolled them."),
        "sprint": t.gettext(
            "When you move, change your destination to any open location, even back to the one your character "
            "is leaving."
        ),
        "hardware": t.gettext(
            "Holds off one extra zombie during this attack. It cannot be used at the Parking Lot, nor to stop 4 or "
            "more zombies from entering the Supermarket."
        ),
        "hidden": t.gettext(
            "One of your characters at the attacked location hides for the rest of the round: it cannot be "
            "chosen as the victim and does not vote, but still counts to hold the zombies off."
        ),
    }
    return texts.get(card, card_name(lang, card))


def letters(lang: str) -> dict[str, str]:
    """The type letter of each character in ``lang`` (P, T, G, L in English): tokens carry it besides their colour."""
    t = translations(lang)
    return {
        "pinup": str(t.pgettext("character letter", "P")),
        "tough": str(t.pgettext("character letter", "T")),
        "gunman": str(t.pgettext("character letter", "G")),
        "girl": str(t.pgettext("character letter", "L")),
    }


def kind_name(lang: str, kind: object) -> str:
    """What a request is about, as a noun phrase: "the vote", "placing a character" …"""
    t = translations(lang)
    names = {
        "place": t.gettext("placing a character"),
        "cards": t.gettext("playing cards"),
        "vote": t.gettext("the vote"),
        "victim": t.gettext("choosing the victim"),
        "truck": t.gettext("sharing the truck cards"),
        "announce": t.gettext("announcing a destination"),
        "destination": t.gettext("choosing a destination"),
        "move": t.gettext("moving a character"),
        "zombie": t.gettext("placing a zombie"),
    }
    return names.get(str(kind), t.gettext("a decision"))


def status_name(lang: str, status: object) -> str:
    """A game's status: "running", "over", "abandoned"."""
    t = translations(lang)
    names = {"running": t.gettext("running"), "over": t.gettext("over"), "abandoned": t.gettext("abandoned")}
    return names.get(str(status), str(status))


def standing_answer_name(lang: str, key: str) -> str:
    """A standing answer's setting (``engine.standing``): "Security Camera", "Votes" …"""
    t = translations(lang)
    names = {
        "cards": t.gettext("%(threat)s and %(sprint)s")
        % {"threat": card_name(lang, "threat"), "sprint": card_name(lang, "sprint")},
        "camera": card_name(lang, "camera"),
        "attack": t.gettext("Weapons, %(hardware)s and %(hidden)s in an attack")
        % {"hardware": card_name(lang, "hardware"), "hidden": card_name(lang, "hidden")},
        "vote": t.gettext("Votes"),
        "victim": t.gettext("Victim order"),
    }
    return names.get(key, key)


def standing_answer_value(lang: str, key: str, value: object) -> str:
    """What a standing answer does: "ask me", "always look", a victim order as a list of characters …"""
    t = translations(lang)
    if key == "victim" and isinstance(value, list):
        return ", ".join(character_name(lang, str(c)) for c in value)
    names = {
        "ask": t.gettext("ask me"),
        "pass": t.gettext("always pass"),
        "look": t.gettext("always look"),
        "if_needed": t.gettext("play them only if needed"),
        "against_leader": t.gettext(
            "for me in truck and Chief votes, else the fewest points; in an attack, against the most points, never me"
        ),
        "against_most_here": t.gettext(
            "for me in truck and Chief votes, else the fewest points; in an attack, against the most characters "
            "there, never me"
        ),
    }
    return names.get(str(value), str(value))
