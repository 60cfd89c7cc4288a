"""Names and sentences for players in English, Italian and Polish (issue 4), as the rulebooks give them.

Names are tables per language (RULES.md A1-A3; the same words the reply grammar in commands.py reads).
Sentences go through the catalogs (``translations(lang).gettext``). ``event_text`` and ``request_text`` say only
what is in the event or request they are given: pass them what ``engine.view(game, colour)`` shows that reader.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from babel.lists import format_list
from babel.support import Translations

from engine import data
from engine.data import CAPACITY, WEAPONS

from .i18n import DATE_LOCALES, language, translations

__all__ = [
    "CARD_NAMES",
    "CHARACTER_NAMES",
    "COLOUR_NAMES",
    "LOCATION_NAMES",
    "card_name",
    "card_text",
    "character_name",
    "colour_name",
    "event_text",
    "location_capacity",
    "location_label",
    "location_name",
    "phase_name",
    "request_text",
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
    "en": {1: "Restroom", 2: "Cachou", 3: "Megatoys", 4: "Parking Lot", 5: "Security HQ", 6: "Supermarket"},
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


def _name(table: dict[str, dict[Any, str]], lang: str, key: Any) -> str:
    names = table[language(lang)]
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


def card_entry(lang: str, card: str) -> dict[str, str]:
    """A card in a hand: its engine name, its name in ``lang`` and what it does."""
    return {"card": card, "name": card_name(lang, card), "text": card_text(lang, card)}


# --- sentences --------------------------------------------------------------------------------------------------


class _Say:
    """The pieces of a sentence for one language."""

    def __init__(self, lang: str) -> None:
        self.lang = language(lang)
        self.t: Translations = translations(self.lang)

    def who(self, colour: Any) -> str:
        return colour_name(self.lang, str(colour))

    def char(self, character: Any) -> str:
        return character_name(self.lang, str(character))

    def card(self, card: Any) -> str:
        return card_name(self.lang, str(card))

    def place(self, number: Any) -> str:
        return location_label(self.lang, number)

    def join(self, items: Iterable[str]) -> str:
        items = list(items)
        return format_list(items, locale=DATE_LOCALES[self.lang]) if items else "—"

    def dice(self, values: Any) -> str:
        return self.join(str(v) for v in values or [])

    def places(self, numbers: Any) -> str:
        return self.join(self.place(n) for n in numbers or [])

    def cards(self, cards: Any) -> str:
        return self.join(self.card(c) for c in cards or [])

    def colours(self, colours: Any) -> str:
        return self.join(self.who(c) for c in colours or [])


Event = dict[str, Any]


def _first_chief(s: _Say, e: Event, you: bool) -> str:
    if e.get("drawn"):
        return s.t.gettext("%(chief)s was drawn to be the first Chief of Security.") % {"chief": s.who(e.get("chief"))}
    return s.t.gettext("%(chief)s is the first Chief of Security.") % {"chief": s.who(e.get("chief"))}


def _deck_shuffled(s: _Say, e: Event, you: bool) -> str:
    return s.t.gettext("The action cards are shuffled.")


def _card_dealt(s: _Say, e: Event, you: bool) -> str:
    if you:
        return s.t.gettext("You are dealt a card: %(card)s.") % {"card": s.card(e.get("card"))}
    return s.t.gettext("%(player)s is dealt a card: %(card)s.") % {
        "player": s.who(e.get("player")),
        "card": s.card(e.get("card")),
    }


def _placement_dice(s: _Say, e: Event, you: bool) -> str:
    return s.t.gettext("%(player)s rolls %(dice)s to place a character.") % {
        "player": s.who(e.get("player")),
        "dice": s.dice(e.get("dice")),
    }


def _placed(s: _Say, e: Event, you: bool) -> str:
    values = {
        "player": s.who(e.get("player")),
        "character": s.char(e.get("character")),
        "place": s.place(e.get("location")),
    }
    if you:
        return s.t.gettext("You place your %(character)s at %(place)s.") % values
    return s.t.gettext("%(player)s places the %(character)s at %(place)s.") % values


def _initial_zombies(s: _Say, e: Event, you: bool) -> str:
    text = s.t.gettext("The first zombies arrive: the dice show %(dice)s.") % {"dice": s.dice(e.get("dice"))}
    if e.get("ignored"):
        text += " " + s.t.gettext("Dice showing a closed location are ignored: %(dice)s.") % {
            "dice": s.dice(e.get("ignored"))
        }
    return text


def _round_started(s: _Say, e: Event, you: bool) -> str:
    return s.t.gettext("Round %(round)s begins.") % {"round": e.get("round")}


def _truck_skipped(s: _Say, e: Event, you: bool) -> str:
    reason = e.get("reason")
    if reason == "deck_empty":
        return s.t.gettext("Nobody searches the truck: there are no cards left in it.")
    if reason == "parking_empty":
        return s.t.gettext("Nobody searches the truck: there is nobody at the Parking Lot.")
    return s.t.gettext("Nobody searches the truck: the re-vote was tied.")


def _answer_auto(s: _Say, e: Event, you: bool) -> str:
    kind, answer = e.get("kind"), e.get("answer")
    if not you:
        return s.t.gettext("%(player)s had only one possible answer; it was given automatically.") % {
            "player": s.who(e.get("player"))
        }
    if kind == "truck" and isinstance(answer, dict):
        return s.t.gettext("You keep %(card)s, the only card in the truck.") % {"card": s.card(answer.get("keep"))}
    if kind == "victim":
        return s.t.gettext(
            "Your %(character)s was given up to the zombies by your standing order or as your only choice."
        ) % {"character": s.char(answer)}
    if kind == "vote":
        return s.t.gettext("Your vote went to %(colour)s, the only possible choice.") % {"colour": s.who(answer)}
    if kind in ("announce", "destination"):
        return s.t.gettext("Your destination is %(place)s, the only possible choice.") % {"place": s.place(answer)}
    if kind == "zombie":
        return s.t.gettext("Your zombie goes to %(place)s, the only possible choice.") % {"place": s.place(answer)}
    if kind == "move" and isinstance(answer, dict):
        return s.t.gettext("You move your %(character)s, the only character you could move.") % {
            "character": s.char(answer.get("character"))
        }
    if kind == "place" and isinstance(answer, dict):
        return s.t.gettext("Your %(character)s is placed at %(place)s, the only possible choice.") % {
            "character": s.char(answer.get("character")),
            "place": s.place(answer.get("location")),
        }
    return s.t.gettext("You had only one possible answer; it was given automatically.")


def _kind(s: _Say, kind: Any) -> str:
    t = s.t
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
    return names.get(kind, t.gettext("a decision"))


def _answer_defaulted(s: _Say, e: Event, you: bool) -> str:
    values = {"player": s.who(e.get("player")), "what": _kind(s, e.get("kind"))}
    if you:
        return s.t.gettext("You did not answer in time (%(what)s): the default answer was used.") % values
    return s.t.gettext("%(player)s did not answer in time (%(what)s): the default answer was used.") % values


def _gift_received(s: _Say, e: Event, reader: str | None) -> str:
    values = {"player": s.who(e.get("player")), "giver": s.who(e.get("giver")), "card": s.card(e.get("card"))}
    if reader is not None and reader == e.get("player"):
        return s.t.gettext("%(giver)s gives you a card from the truck: %(card)s.") % values
    if reader is not None and reader == e.get("giver"):
        return s.t.gettext("You give %(card)s to %(player)s.") % values
    return s.t.gettext("%(giver)s gives %(player)s a card from the truck: %(card)s.") % values


def _truck_searched(s: _Say, e: Event, you: bool) -> str:
    drew = int(e.get("drew") or 0)
    values = {"player": s.who(e.get("player")), "num": drew, "to": s.who(e.get("gave_to"))}
    if e.get("gave_to"):
        return (
            s.t.ngettext(
                "%(player)s searches the truck, draws %(num)d card and gives one to %(to)s.",
                "%(player)s searches the truck, draws %(num)d cards and gives one to %(to)s.",
                drew,
            )
            % values
        )
    return (
        s.t.ngettext(
            "%(player)s searches the truck and draws %(num)d card.",
            "%(player)s searches the truck and draws %(num)d cards.",
            drew,
        )
        % values
    )


def _truck_cards(s: _Say, e: Event, you: bool) -> str:
    values = {
        "player": s.who(e.get("player")),
        "cards": s.cards(e.get("cards")),
        "kept": s.card(e.get("kept")),
        "gave": s.card(e.get("gave")),
        "bottom": s.cards(e.get("bottom")),
    }
    if you:
        parts = [s.t.gettext("In the truck you found %(cards)s and kept %(kept)s.") % values]
        if e.get("gave"):
            parts.append(s.t.gettext("You gave away %(gave)s.") % values)
    else:
        parts = [s.t.gettext("In the truck %(player)s found %(cards)s and kept %(kept)s.") % values]
        if e.get("gave"):
            parts.append(s.t.gettext("%(player)s gave away %(gave)s.") % values)
    if e.get("bottom"):
        parts.append(s.t.gettext("Back to the bottom of the deck: %(bottom)s.") % values)
    return " ".join(parts)


def _no_election(s: _Say, e: Event, you: bool) -> str:
    values = {"chief": s.who(e.get("chief"))}
    if e.get("reason") == "tie":
        return (
            s.t.gettext("The vote for Chief was tied twice: %(chief)s stays Chief of Security, not elected.") % values
        )
    return (
        s.t.gettext(
            "No vote for Chief: nobody is at the Security HQ, or it is closed. %(chief)s stays Chief of Security."
        )
        % values
    )


def _chief_elected(s: _Say, e: Event, reader: str | None) -> str:
    if reader is not None and reader == e.get("chief"):
        return s.t.gettext("You are elected Chief of Security.")
    return s.t.gettext("%(chief)s is elected Chief of Security.") % {"chief": s.who(e.get("chief"))}


def _zombie_dice_rolled(s: _Say, e: Event, you: bool) -> str:
    return s.t.gettext("The Chief rolls the zombie dice in secret; they show %(dice)s.") % {
        "dice": s.dice(e.get("values"))
    }


def _destination_announced(s: _Say, e: Event, you: bool) -> str:
    values = {"player": s.who(e.get("player")), "place": s.place(e.get("location"))}
    if you:
        return s.t.gettext("As the elected Chief you announce your destination: %(place)s.") % values
    return s.t.gettext("%(player)s, the elected Chief, announces the destination %(place)s.") % values


def _zombie_not_placed(s: _Say, e: Event, you: bool) -> str:
    return s.t.gettext("%(player)s places no zombie.") % {"player": s.who(e.get("player"))}


def _zombie_placed(s: _Say, e: Event, you: bool) -> str:
    values = {"player": s.who(e.get("player")), "place": s.place(e.get("location"))}
    if you:
        return s.t.gettext("As a zombie player you add a zombie at %(place)s.") % values
    return s.t.gettext("%(player)s, a zombie player, adds a zombie at %(place)s.") % values


def _no_destination(s: _Say, e: Event, you: bool) -> str:
    return s.t.gettext("%(player)s has no location to go to and skips the move.") % {"player": s.who(e.get("player"))}


def _destinations_revealed(s: _Say, e: Event, you: bool) -> str:
    chosen = e.get("destinations") or {}
    pairs = [
        s.t.gettext("%(player)s → %(place)s") % {"player": s.who(p), "place": s.place(loc)} for p, loc in chosen.items()
    ]
    return s.t.gettext("Destinations revealed: %(list)s.") % {"list": s.join(pairs)}


def _zombie_dice_revealed(s: _Say, e: Event, you: bool) -> str:
    text = s.t.gettext("The zombie dice are revealed: %(dice)s; a zombie arrives at each location shown.") % {
        "dice": s.dice(e.get("values"))
    }
    if e.get("ignored"):
        text += " " + s.t.gettext("Dice showing a closed location are ignored: %(dice)s.") % {
            "dice": s.dice(e.get("ignored"))
        }
    return text


def _condemned(s: _Say, e: Event, you: bool) -> str:
    n = int(e.get("zombies_removed") or 0)
    return s.t.ngettext(
        "%(place)s is condemned and closed for the rest of the game; its %(num)d zombie is removed.",
        "%(place)s is condemned and closed for the rest of the game; its %(num)d zombies are removed.",
        n,
    ) % {"place": s.place(e.get("location")), "num": n}


def _card_played(s: _Say, e: Event, you: bool) -> str:
    card = e.get("card")
    values = {
        "player": s.who(e.get("player")),
        "card": s.card(card),
        "character": s.char(e.get("character")),
        "place": s.place(e.get("location")),
    }
    t = s.t
    if card == "threat":
        if e.get("location") is None:
            return t.gettext("%(player)s plays a Threat: one extra vote.") % values
        return t.gettext("%(player)s plays a Threat at %(place)s: one extra vote.") % values
    if card == "camera":
        return t.gettext("%(player)s uses a Security Camera to look at the zombie dice.") % values
    if card == "sprint":
        return t.gettext("%(player)s plays a Sprint: the %(character)s runs to %(place)s instead.") % values
    if card == "hardware":
        return t.gettext("%(player)s plays Hardware at %(place)s: one more zombie is held off.") % values
    if card == "hidden":
        return t.gettext("%(player)s plays Hidden: the %(character)s hides at %(place)s.") % values
    if card in WEAPONS:
        n = int(e.get("killed") or 0)
        return t.ngettext(
            "%(player)s uses the %(card)s at %(place)s and kills %(num)d zombie.",
            "%(player)s uses the %(card)s at %(place)s and kills %(num)d zombies.",
            n,
        ) % {**values, "num": n}
    return t.gettext("%(player)s plays %(card)s.") % values


def _card_kept(s: _Say, e: Event, you: bool) -> str:
    values = {"player": s.who(e.get("player")), "card": s.card(e.get("card"))}
    if e.get("reason") == "destination_has_room":
        if you:
            return s.t.gettext("You keep your %(card)s: your destination had room.") % values
        return s.t.gettext("%(player)s keeps the %(card)s: the destination had room.") % values
    if you:
        return s.t.gettext("You keep your %(card)s: the zombies were already held off.") % values
    return s.t.gettext("%(player)s keeps the %(card)s: the zombies were already held off.") % values


def _moved(s: _Say, e: Event, you: bool) -> str:
    origin, target, end = e.get("origin"), e.get("target"), e.get("location")
    values = {
        "player": s.who(e.get("player")),
        "character": s.char(e.get("character")),
        "origin": s.place(origin),
        "target": s.place(target),
        "place": s.place(end),
    }
    if end == target and origin == end:
        return s.t.gettext("%(player)s: the %(character)s stays at %(place)s.") % values
    if end == target:
        return s.t.gettext("%(player)s moves the %(character)s from %(origin)s to %(place)s.") % values
    if origin == end:
        return s.t.gettext("%(player)s: the %(character)s cannot get into %(target)s and stays at %(place)s.") % values
    return (
        s.t.gettext(
            "%(player)s: the %(character)s cannot get into %(target)s and goes from %(origin)s to %(place)s instead."
        )
        % values
    )


def _extra_zombies(s: _Say, e: Event, you: bool) -> str:
    most, pinups = e.get("most_characters"), e.get("most_pinups")
    if most is None and pinups is None:
        return s.t.gettext("No extra zombies: the most characters and the most Pin-Ups are tied, or nobody is there.")
    parts = []
    if most is not None:
        parts.append(
            s.t.gettext("An extra zombie comes to %(place)s, the location with the most characters.")
            % {"place": s.place(most)}
        )
    if pinups is not None:
        parts.append(
            s.t.gettext("An extra zombie comes to %(place)s, the location with the most Pin-Ups.")
            % {"place": s.place(pinups)}
        )
    return " ".join(parts)


def _attack(s: _Say, e: Event, you: bool) -> str:
    n = int(e.get("zombies") or 0)
    values = {"place": s.place(e.get("location")), "num": n, "strength": e.get("strength")}
    if e.get("location") == 4:
        return (
            s.t.ngettext(
                "%(num)d zombie feeds at %(place)s: the characters there vote who is eaten.",
                "%(num)d zombies feed at %(place)s: the characters there vote who is eaten, one vote per zombie.",
                n,
            )
            % values
        )
    return (
        s.t.ngettext(
            "%(num)d zombie attacks %(place)s, held by a strength of %(strength)s: it gets in unless the defenders "
            "stop it.",
            "%(num)d zombies attack %(place)s, held by a strength of %(strength)s: they get in unless the defenders "
            "stop them.",
            n,
        )
        % values
    )


def _attack_held(s: _Say, e: Event, you: bool) -> str:
    n = int(e.get("zombies") or 0)
    return s.t.ngettext(
        "%(place)s holds: %(num)d zombie is not enough against a strength of %(threshold)s.",
        "%(place)s holds: %(num)d zombies are not enough against a strength of %(threshold)s.",
        n,
    ) % {"place": s.place(e.get("location")), "num": n, "threshold": e.get("threshold")}


def _attack_no_target(s: _Say, e: Event, you: bool) -> str:
    return s.t.gettext("At %(place)s everyone is hidden: nobody is eaten and the zombies stay outside.") % {
        "place": s.place(e.get("location"))
    }


def _zombies_left(s: _Say, e: Event, you: bool) -> str:
    n = int(e.get("zombies") or 0)
    return s.t.ngettext(
        "%(num)d zombie leaves %(place)s.",
        "%(num)d zombies leave %(place)s.",
        n,
    ) % {"place": s.place(e.get("location")), "num": n}


def _vote_uncontested(s: _Say, e: Event, you: bool) -> str:
    return s.t.gettext("No vote needed at %(place)s: %(colour)s is the only colour that can be chosen.") % {
        "place": s.place(e.get("location")),
        "colour": s.who(e.get("colour")),
    }


def _random_colour(s: _Say, e: Event, you: bool) -> str:
    return s.t.gettext("The re-vote at %(place)s is tied again: %(colour)s is drawn at random among %(pool)s.") % {
        "place": s.place(e.get("location")),
        "colour": s.who(e.get("colour")),
        "pool": s.colours(e.get("pool")),
    }


def _eaten(s: _Say, e: Event, you: bool) -> str:
    values = {
        "player": s.who(e.get("player")),
        "character": s.char(e.get("character")),
        "place": s.place(e.get("location")),
    }
    if you:
        return s.t.gettext("The zombies eat your %(character)s at %(place)s.") % values
    return s.t.gettext("The zombies eat %(player)s's %(character)s at %(place)s.") % values


def _eliminated(s: _Say, e: Event, you: bool) -> str:
    if you:
        return s.t.gettext("You have no characters left: you still vote in re-votes and come back as a zombie.")
    return s.t.gettext("%(player)s has no characters left and becomes a zombie player.") % {
        "player": s.who(e.get("player"))
    }


def _chief_passed(s: _Say, e: Event, reader: str | None) -> str:
    if reader is not None and reader == e.get("chief"):
        return s.t.gettext("The Chief of Security is gone: you are the Chief now.")
    return s.t.gettext("The Chief of Security is gone: %(chief)s is the Chief now.") % {"chief": s.who(e.get("chief"))}


def _votes_revealed(s: _Say, e: Event, you: bool) -> str:
    weights = e.get("weights") or {}
    ballots = []
    for voter, choice in (e.get("votes") or {}).items():
        n = int(weights.get(voter) or 0)
        values = {"voter": s.who(voter), "colour": s.who(choice), "num": n}
        if choice is None:
            ballots.append(
                s.t.ngettext("%(voter)s abstains (%(num)d vote)", "%(voter)s abstains (%(num)d votes)", n) % values
            )
        else:
            ballots.append(
                s.t.ngettext("%(voter)s → %(colour)s (%(num)d vote)", "%(voter)s → %(colour)s (%(num)d votes)", n)
                % values
            )
    totals = [
        s.t.gettext("%(colour)s %(num)s") % {"colour": s.who(c), "num": n} for c, n in (e.get("totals") or {}).items()
    ]
    values = {"place": s.place(e.get("location")), "ballots": s.join(ballots), "totals": s.join(totals)}
    if e.get("revote"):
        return s.t.gettext("Re-vote at %(place)s: %(ballots)s. Totals: %(totals)s.") % values
    return s.t.gettext("Vote at %(place)s: %(ballots)s. Totals: %(totals)s.") % values


def _dice_seen(s: _Say, e: Event, you: bool) -> str:
    values = {"player": s.who(e.get("player")), "dice": s.dice(e.get("values"))}
    if you:
        return s.t.gettext("You look at the zombie dice: %(dice)s.") % values
    return s.t.gettext("%(player)s looks at the zombie dice: %(dice)s.") % values


def _zombie_supply_exceeded(s: _Say, e: Event, you: bool) -> str:
    n = int(e.get("zombies") or 0)
    return s.t.ngettext(
        "The board holds %(num)d zombie, more than the 30 in the box.",
        "The board holds %(num)d zombies, more than the 30 in the box.",
        n,
    ) % {"num": n}


def _game_over(s: _Say, e: Event, you: bool) -> str:
    winners = list(e.get("winners") or [])
    cards = e.get("cards") or {}
    parts = []
    if winners:
        parts.append(
            s.t.ngettext(
                "The game is over. Winner: %(winners)s.", "The game is over. Winners: %(winners)s.", len(winners)
            )
            % {"winners": s.colours(winners)}
        )
    else:
        parts.append(s.t.gettext("The game is over."))
    scores = []
    for colour, points in (e.get("scores") or {}).items():
        p, c = int(points or 0), int(cards.get(colour) or 0)
        score = s.t.ngettext("%(player)s %(num)d point", "%(player)s %(num)d points", p) % {
            "player": s.who(colour),
            "num": p,
        }
        if colour in cards:
            score += " " + s.t.ngettext("(%(num)d card)", "(%(num)d cards)", c) % {"num": c}
        scores.append(score)
    if scores:
        parts.append(s.t.gettext("Scores: %(scores)s.") % {"scores": s.join(scores)})
    return " ".join(parts)


#: Event type -> sentence. Entries whose function takes ``reader`` compare it with a field other than ``player``.
_EVENTS: dict[str, Callable[[_Say, Event, bool], str]] = {
    "first_chief": _first_chief,
    "deck_shuffled": _deck_shuffled,
    "card_dealt": _card_dealt,
    "placement_dice": _placement_dice,
    "placed": _placed,
    "initial_zombies": _initial_zombies,
    "round_started": _round_started,
    "truck_skipped": _truck_skipped,
    "answer_auto": _answer_auto,
    "answer_defaulted": _answer_defaulted,
    "truck_searched": _truck_searched,
    "truck_cards": _truck_cards,
    "no_election": _no_election,
    "zombie_dice_rolled": _zombie_dice_rolled,
    "destination_announced": _destination_announced,
    "zombie_not_placed": _zombie_not_placed,
    "zombie_placed": _zombie_placed,
    "no_destination": _no_destination,
    "destinations_revealed": _destinations_revealed,
    "zombie_dice_revealed": _zombie_dice_revealed,
    "condemned": _condemned,
    "card_played": _card_played,
    "card_kept": _card_kept,
    "moved": _moved,
    "extra_zombies": _extra_zombies,
    "attack": _attack,
    "attack_held": _attack_held,
    "attack_no_target": _attack_no_target,
    "zombies_left": _zombies_left,
    "vote_uncontested": _vote_uncontested,
    "random_colour": _random_colour,
    "eaten": _eaten,
    "eliminated": _eliminated,
    "votes_revealed": _votes_revealed,
    "dice_seen": _dice_seen,
    "zombie_supply_exceeded": _zombie_supply_exceeded,
    "game_over": _game_over,
}
_READER_EVENTS: dict[str, Callable[[_Say, Event, str | None], str]] = {
    "gift_received": _gift_received,
    "chief_elected": _chief_elected,
    "chief_passed": _chief_passed,
}
EVENT_TYPES = frozenset(_EVENTS) | frozenset(_READER_EVENTS)


def event_text(lang: str, event: dict[str, Any], reader: str | None) -> str:
    """One line for an engine event (as ``engine.view`` shows it to ``reader``, a colour, or None)."""
    s = _Say(lang)
    kind = event.get("type")
    if kind in _READER_EVENTS:
        return _READER_EVENTS[kind](s, event, reader)
    if kind in _EVENTS:
        you = reader is not None and event.get("player") == reader
        return _EVENTS[kind](s, event, you)
    return s.t.gettext("Something happened in the game.")


# --- requests ---------------------------------------------------------------------------------------------------


def request_text(lang: str, request: dict[str, Any], phase: str | None = None) -> str:
    """What the player must decide now, for one of their requests (``view["requests"]``).

    ``phase`` (the view's phase) says what a vote is for; without it the sentence names only the location.
    """
    s = _Say(lang)
    t = s.t
    kind = request.get("kind")
    loc = request.get("location")
    num = int(request.get("weight") or 0)
    values = {
        "place": s.place(loc),
        "options": s.colours(request.get("options")) if kind == "vote" else "",
        "dice": s.dice(request.get("dice")),
        "destination": s.place(request.get("destination")),
        "cards": s.cards(request.get("cards") or request.get("playable")),
        "num": num,
    }
    if kind == "vote":
        if request.get("revote"):
            text = t.ngettext(
                "Re-vote at %(place)s with %(num)d vote: choose one of the tied colours, %(options)s.",
                "Re-vote at %(place)s with %(num)d votes: choose one of the tied colours, %(options)s.",
                num,
            )
        elif phase == "truck":
            text = t.ngettext(
                "Vote at %(place)s with %(num)d vote: who searches the truck? Choose among %(options)s.",
                "Vote at %(place)s with %(num)d votes: who searches the truck? Choose among %(options)s.",
                num,
            )
        elif phase == "chief":
            text = t.ngettext(
                "Vote at %(place)s with %(num)d vote: who becomes Chief of Security? Choose among %(options)s.",
                "Vote at %(place)s with %(num)d votes: who becomes Chief of Security? Choose among %(options)s.",
                num,
            )
        elif phase == "attack":
            text = t.ngettext(
                "Vote at %(place)s with %(num)d vote: whose character do the zombies eat? Choose among %(options)s.",
                "Vote at %(place)s with %(num)d votes: whose character do the zombies eat? Choose among %(options)s.",
                num,
            )
        else:
            text = t.ngettext(
                "Vote at %(place)s with %(num)d vote: choose among %(options)s.",
                "Vote at %(place)s with %(num)d votes: choose among %(options)s.",
                num,
            )
        return text % values
    if kind == "victim":
        return (
            t.gettext("Your colour lost the vote at %(place)s: choose which of your characters the zombies eat.")
            % values
        )
    if kind == "place":
        return t.gettext("Place one of your characters: your dice show %(dice)s.") % values
    if kind == "announce":
        return t.gettext("You are the elected Chief: choose your destination; it is announced to everyone.") % values
    if kind == "destination":
        text = t.gettext("Choose in secret the location where one of your characters will go.") % values
        if request.get("dice"):
            text += " " + t.gettext("The zombie dice you saw show %(dice)s.") % values
        return text
    if kind == "move":
        return t.gettext("Move one of your characters to %(destination)s, your revealed destination.") % values
    if kind == "zombie":
        return t.gettext("You are a zombie player: choose the location where your zombie appears.") % values
    if kind == "truck":
        return (
            t.gettext(
                "You search the truck and find %(cards)s: keep one, give one to another player; the last one goes "
                "to the bottom of the deck."
            )
            % values
        )
    if kind == "cards":
        window = request.get("window")
        if window == "truck":
            return t.gettext("Before the vote for the truck you may play %(cards)s, or pass.") % values
        if window == "chief":
            return t.gettext("Before the vote for Chief of Security you may play %(cards)s, or pass.") % values
        if window == "arrival":
            return t.gettext("You may use %(cards)s to look at the zombie dice, or pass.") % values
        if window == "sprint":
            return t.gettext("You may play %(cards)s to change the move you just made, or pass.") % values
        return t.gettext("Zombies attack %(place)s: you may play %(cards)s, or pass.") % values
    return t.gettext("You have a decision to make.")
