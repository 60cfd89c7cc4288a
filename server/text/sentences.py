"""Sentences for players in English, Italian and Polish: what happened (one line per engine event), what a
request asks, what an answer means. Names come from the glossary, words from the catalogs.

``event_text`` and ``request_text`` say only what is in the event or request they are given: pass them what
``engine.view(game, colour)`` shows that reader.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from babel.lists import format_list
from babel.support import Translations

from engine.data import WEAPONS
from engine.shapes import (
    JSON,
    AnswerAuto,
    AnswerDefaulted,
    AnswerStanding,
    Attack,
    AttackHeld,
    AttackNoTarget,
    CardDealt,
    CardKept,
    CardPlayed,
    ChiefElected,
    ChiefPassed,
    Condemned,
    DeckShuffled,
    DestinationAnnounced,
    DestinationsRevealed,
    DiceSeen,
    Eaten,
    Eliminated,
    Event,
    ExtraZombies,
    FirstChief,
    GameOver,
    GiftReceived,
    InitialZombies,
    Moved,
    MoveJSON,
    NoDestination,
    NoElection,
    Placed,
    PlacementDice,
    PlacementJSON,
    PlayJSON,
    RandomColour,
    RequestJSON,
    RoundStarted,
    TruckCards,
    TruckJSON,
    TruckSearched,
    TruckSkipped,
    VoteNotCast,
    VotesRevealed,
    VoteUncontested,
    ZombieDiceRevealed,
    ZombieDiceRolled,
    ZombieNotPlaced,
    ZombiePlaced,
    ZombiesLeft,
    ZombieSupplyExceeded,
)

from ..models import pick_language
from .glossary import card_name, character_name, colour_name, kind_name, location_label, location_name
from .i18n import DATE_LOCALES, translations

__all__ = ["EVENT_TYPES", "Names", "describe_answer", "event_text", "player_label", "request_text", "told_answer"]

#: the table's public names: colour -> the player's name (None or absent: a bot, or nobody's name to show).
Names = dict[str, str | None]

#: the longest player name a sentence shows.
MAX_NAME = 80


def player_label(lang: str, colour: str, names: Names | None = None) -> str:
    """A player as sentences name them: "Ann (Red)" when the table knows the name, else the colour ("Red")."""
    name = " ".join(str((names or {}).get(colour) or "").split())
    if not name:
        return colour_name(lang, colour)
    name = name[:MAX_NAME]
    return translations(lang).gettext("%(name)s (%(colour)s)") % {
        "name": name,
        "colour": colour_name(lang, colour),
    }


# --- sentences --------------------------------------------------------------------------------------------------


class _Say:
    """The pieces of a sentence for one language."""

    def __init__(self, lang: str, names: Names | None = None, reader: str | None = None) -> None:
        self.lang = pick_language(lang)
        self.t: Translations = translations(self.lang)
        self.names = names
        self.reader = reader

    def who(self, colour: str | None) -> str:
        """A player in the third person: "Ann (Red)"; "—" for nobody (a sentence that has nobody leaves it out)."""
        return "—" if colour is None else player_label(self.lang, colour, self.names)

    def whom(self, colour: str | None) -> str:
        """A player in a list: "you" for the reader, else as ``who``."""
        if self.reader is not None and colour == self.reader:
            return str(self.t.pgettext("in a list", "you"))
        return self.who(colour)

    def char(self, character: str | None) -> str:
        """A character's name; "—" for none (a sentence that has none leaves it out)."""
        return "—" if character is None else character_name(self.lang, character)

    def card(self, card: str | None) -> str:
        """A card's name; "—" for none (a sentence that has none leaves it out)."""
        return "—" if card is None else card_name(self.lang, card)

    def place(self, number: int | None) -> str:
        """A location with its number; "—" for none (a sentence that has none leaves it out)."""
        return "—" if number is None else location_label(self.lang, number)

    def join(self, items: Iterable[str]) -> str:
        items = list(items)
        return format_list(items, locale=DATE_LOCALES[self.lang]) if items else "—"

    def dice(self, values: Iterable[int] | None) -> str:
        return self.join(str(v) for v in values or [])

    def places(self, numbers: Iterable[int] | None) -> str:
        return self.join(self.place(n) for n in numbers or [])

    def cards(self, cards: Iterable[str] | None) -> str:
        return self.join(self.card(c) for c in cards or [])

    def colours(self, colours: Iterable[str] | None) -> str:
        return self.join(self.whom(c) for c in colours or [])


def _first_chief(s: _Say, e: FirstChief, you: bool) -> str:
    if e["drawn"]:
        return s.t.gettext("%(chief)s was drawn to be the first Chief of Security.") % {"chief": s.who(e["chief"])}
    return s.t.gettext("%(chief)s is the first Chief of Security.") % {"chief": s.who(e["chief"])}


def _deck_shuffled(s: _Say, e: DeckShuffled, you: bool) -> str:
    return s.t.gettext("The action cards are shuffled.")


def _card_dealt(s: _Say, e: CardDealt, you: bool) -> str:
    if you:
        return s.t.gettext("You are dealt a card: %(card)s.") % {"card": s.card(e["card"])}
    return s.t.gettext("%(player)s is dealt a card: %(card)s.") % {
        "player": s.who(e["player"]),
        "card": s.card(e["card"]),
    }


def _placement_dice(s: _Say, e: PlacementDice, you: bool) -> str:
    if you:
        return s.t.gettext("You roll %(dice)s to place a character.") % {"dice": s.dice(e["dice"])}
    return s.t.gettext("%(player)s rolls %(dice)s to place a character.") % {
        "player": s.who(e["player"]),
        "dice": s.dice(e["dice"]),
    }


def _placed(s: _Say, e: Placed, you: bool) -> str:
    values = {
        "player": s.who(e["player"]),
        "character": s.char(e["character"]),
        "place": s.place(e["location"]),
    }
    if you:
        return s.t.gettext("You place your %(character)s at %(place)s.") % values
    return s.t.gettext("%(player)s places the %(character)s at %(place)s.") % values


def _initial_zombies(s: _Say, e: InitialZombies, you: bool) -> str:
    text = s.t.gettext("The first zombies arrive: the dice show %(dice)s.") % {"dice": s.dice(e["dice"])}
    if e["ignored"]:
        text += " " + s.t.gettext("Dice showing a closed location are ignored: %(dice)s.") % {
            "dice": s.dice(e["ignored"])
        }
    return text


def _round_started(s: _Say, e: RoundStarted, you: bool) -> str:
    return s.t.gettext("Round %(round)s begins.") % {"round": e["round"]}


def _truck_skipped(s: _Say, e: TruckSkipped, you: bool) -> str:
    reason = e["reason"]
    if reason == "deck_empty":
        return s.t.gettext("Nobody searches the truck: there are no cards left in it.")
    if reason == "parking_empty":
        return s.t.gettext("Nobody searches the truck: there is nobody at the Parking Lot.")
    return s.t.gettext("Nobody searches the truck: the re-vote was tied.")


def _auto_truck(s: _Say, answer: TruckJSON) -> str:
    return s.t.gettext("You keep %(card)s, the only card in the truck.") % {"card": s.card(answer["keep"])}


def _auto_victim(s: _Say, answer: object) -> str:
    return s.t.gettext(
        "Your %(character)s was given up to the zombies by your standing order or as your only choice."
    ) % {"character": s.char(str(answer))}


def _auto_vote(s: _Say, answer: object) -> str:
    return s.t.gettext("Your vote went to %(colour)s, the only possible choice.") % {"colour": s.who(str(answer))}


def _auto_destination(s: _Say, answer: int) -> str:
    return s.t.gettext("Your destination is %(place)s, the only possible choice.") % {"place": s.place(answer)}


def _auto_zombie(s: _Say, answer: int) -> str:
    return s.t.gettext("Your zombie goes to %(place)s, the only possible choice.") % {"place": s.place(answer)}


def _auto_move(s: _Say, answer: MoveJSON) -> str:
    return s.t.gettext("You move your %(character)s, the only character you could move.") % {
        "character": s.char(answer["character"])
    }


def _auto_place(s: _Say, answer: PlacementJSON) -> str:
    return s.t.gettext("Your %(character)s is placed at %(place)s, the only possible choice.") % {
        "character": s.char(answer["character"]),
        "place": s.place(answer["location"]),
    }


#: request kind -> the sentence telling the reader their automatic answer, by the answer's JSON type: any value
#: (said as it is), a location, an object.
_AUTO_AS_GIVEN: dict[str, Callable[[_Say, object], str]] = {"victim": _auto_victim, "vote": _auto_vote}
_AUTO_LOCATION: dict[str, Callable[[_Say, int], str]] = {
    "announce": _auto_destination,
    "destination": _auto_destination,
    "zombie": _auto_zombie,
}


def _auto_told(s: _Say, kind: str, answer: object) -> str | None:
    """The reader's automatic answer of a request of ``kind``; None for a kind without its sentence, or an answer
    not of its kind's shape."""
    if kind in _AUTO_AS_GIVEN:
        return _AUTO_AS_GIVEN[kind](s, answer)
    if kind in _AUTO_LOCATION:
        return _AUTO_LOCATION[kind](s, answer) if isinstance(answer, int) else None
    if not isinstance(answer, dict):
        return None
    if kind == "truck":
        return _auto_truck(s, cast(TruckJSON, answer))
    if kind == "move":
        return _auto_move(s, cast(MoveJSON, answer))
    if kind == "place":
        return _auto_place(s, cast(PlacementJSON, answer))
    return None


def _answer_auto(s: _Say, e: AnswerAuto, you: bool) -> str:
    if not you:
        return s.t.gettext("%(player)s had only one possible answer; it was given automatically.") % {
            "player": s.who(e["player"])
        }
    told = _auto_told(s, e["kind"], e["answer"])
    return s.t.gettext("You had only one possible answer; it was given automatically.") if told is None else told


def _answer_standing(s: _Say, e: AnswerStanding, you: bool) -> str:
    """Told to its player alone (H-6); the replay shows it to everyone once the game is over."""
    what = kind_name(s.lang, e["kind"])
    if not you:
        return s.t.gettext("%(player)s was answered by their standing answers (%(what)s).") % {
            "player": s.who(e["player"]),
            "what": what,
        }
    answer = describe_answer(s.lang, {"kind": e["kind"]}, e["answer"])
    return s.t.gettext("Your standing answers answered for you (%(what)s): %(answer)s.") % {
        "what": what,
        "answer": answer,
    }


def _answer_defaulted(s: _Say, e: AnswerDefaulted, you: bool) -> str:
    values = {"player": s.who(e["player"]), "what": kind_name(s.lang, e["kind"])}
    if you:
        return s.t.gettext("You did not answer in time (%(what)s): the default answer was used.") % values
    return s.t.gettext("%(player)s did not answer in time (%(what)s): the default answer was used.") % values


def _vote_not_cast(s: _Say, e: VoteNotCast, you: bool) -> str:
    """A vote closed once decided (``close_decided_votes``): the voter missed no deadline."""
    if you:
        return s.t.gettext("You did not vote: the vote was already decided.")
    return s.t.gettext("%(player)s did not vote: the vote was already decided.") % {"player": s.who(e["player"])}


def _gift_received(s: _Say, e: GiftReceived, reader: str | None) -> str:
    values = {"player": s.who(e["player"]), "giver": s.who(e["giver"]), "card": s.card(e["card"])}
    if reader is not None and reader == e["player"]:
        return s.t.gettext("%(giver)s gives you a card from the truck: %(card)s.") % values
    if reader is not None and reader == e["giver"]:
        return s.t.gettext("You give %(card)s to %(player)s.") % values
    return s.t.gettext("%(giver)s gives %(player)s a card from the truck: %(card)s.") % values


def _truck_searched(s: _Say, e: TruckSearched, you: bool) -> str:
    drew = e["drew"]
    values = {"player": s.who(e["player"]), "num": drew, "to": s.who(e["gave_to"])}
    if e["gave_to"]:
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


def _truck_cards(s: _Say, e: TruckCards, you: bool) -> str:
    values = {
        "player": s.who(e["player"]),
        "cards": s.cards(e["cards"]),
        "kept": s.card(e["kept"]),
        "gave": s.card(e["gave"]),
        "bottom": s.cards(e["bottom"]),
    }
    if you:
        parts = [s.t.gettext("In the truck you found %(cards)s and kept %(kept)s.") % values]
        if e["gave"]:
            parts.append(s.t.gettext("You gave away %(gave)s.") % values)
    else:
        parts = [s.t.gettext("In the truck %(player)s found %(cards)s and kept %(kept)s.") % values]
        if e["gave"]:
            parts.append(s.t.gettext("%(player)s gave away %(gave)s.") % values)
    if e["bottom"]:
        parts.append(s.t.gettext("Back to the bottom of the deck: %(bottom)s.") % values)
    return " ".join(parts)


def _no_election(s: _Say, e: NoElection, you: bool) -> str:
    values = {"chief": s.who(e["chief"])}
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


def _chief_elected(s: _Say, e: ChiefElected, reader: str | None) -> str:
    if reader is not None and reader == e["chief"]:
        return s.t.gettext("You are elected Chief of Security.")
    return s.t.gettext("%(chief)s is elected Chief of Security.") % {"chief": s.who(e["chief"])}


def _zombie_dice_rolled(s: _Say, e: ZombieDiceRolled, you: bool) -> str:
    return s.t.gettext("The Chief rolls the zombie dice in secret; they show %(dice)s.") % {"dice": s.dice(e["values"])}


def _destination_announced(s: _Say, e: DestinationAnnounced, you: bool) -> str:
    values = {"player": s.who(e["player"]), "place": s.place(e["location"])}
    if you:
        return s.t.gettext("As the elected Chief you announce your destination: %(place)s.") % values
    return s.t.gettext("%(player)s, the elected Chief, announces the destination %(place)s.") % values


def _zombie_not_placed(s: _Say, e: ZombieNotPlaced, you: bool) -> str:
    if you:
        return s.t.gettext("You place no zombie.")
    return s.t.gettext("%(player)s places no zombie.") % {"player": s.who(e["player"])}


def _zombie_placed(s: _Say, e: ZombiePlaced, you: bool) -> str:
    values = {"player": s.who(e["player"]), "place": s.place(e["location"])}
    if you:
        return s.t.gettext("As a zombie player you add a zombie at %(place)s.") % values
    return s.t.gettext("%(player)s, a zombie player, adds a zombie at %(place)s.") % values


def _no_destination(s: _Say, e: NoDestination, you: bool) -> str:
    return s.t.gettext("%(player)s has no location to go to and skips the move.") % {"player": s.who(e["player"])}


def _destinations_revealed(s: _Say, e: DestinationsRevealed, you: bool) -> str:
    chosen = e["destinations"]
    pairs = [
        s.t.gettext("%(player)s → %(place)s") % {"player": s.whom(p), "place": s.place(loc)}
        for p, loc in chosen.items()
    ]
    return s.t.gettext("Destinations revealed: %(list)s.") % {"list": s.join(pairs)}


def _zombie_dice_revealed(s: _Say, e: ZombieDiceRevealed, you: bool) -> str:
    text = s.t.gettext("The zombie dice are revealed: %(dice)s; a zombie arrives at each location shown.") % {
        "dice": s.dice(e["values"])
    }
    if e["ignored"]:
        text += " " + s.t.gettext("Dice showing a closed location are ignored: %(dice)s.") % {
            "dice": s.dice(e["ignored"])
        }
    return text


def _condemned(s: _Say, e: Condemned, you: bool) -> str:
    n = e["zombies_removed"]
    return s.t.ngettext(
        "%(place)s is condemned and closed for the rest of the game; its %(num)d zombie is removed.",
        "%(place)s is condemned and closed for the rest of the game; its %(num)d zombies are removed.",
        n,
    ) % {"place": s.place(e["location"]), "num": n}


def _card_played(s: _Say, e: CardPlayed, you: bool) -> str:
    values = {
        "player": s.who(e["player"]),
        "card": s.card(e["card"]),
        "character": s.char(e.get("character")),
        "place": s.place(e.get("location")),
    }
    return (_card_you_played if you else _card_they_played)(s, e, values)


def _card_they_played(s: _Say, e: CardPlayed, values: dict[str, str]) -> str:
    card, t = e["card"], s.t
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
        n = e["killed"]
        return t.ngettext(
            "%(player)s uses the %(card)s at %(place)s and kills %(num)d zombie.",
            "%(player)s uses the %(card)s at %(place)s and kills %(num)d zombies.",
            n,
        ) % {**values, "num": n}
    return t.gettext("%(player)s plays %(card)s.") % values


def _card_you_played(s: _Say, e: CardPlayed, values: dict[str, str]) -> str:
    card, t = e["card"], s.t
    if card == "threat":
        return t.gettext("You play a Threat: one extra vote.")
    if card == "camera":
        return t.gettext("You use a Security Camera to look at the zombie dice.")
    if card == "sprint":
        return t.gettext("You play a Sprint: your %(character)s runs to %(place)s instead.") % values
    if card == "hardware":
        return t.gettext("You play Hardware at %(place)s: one more zombie is held off.") % values
    if card == "hidden":
        return t.gettext("You play Hidden: your %(character)s hides at %(place)s.") % values
    if card in WEAPONS:
        n = e["killed"]
        return t.ngettext(
            "You use the %(card)s at %(place)s and kill %(num)d zombie.",
            "You use the %(card)s at %(place)s and kill %(num)d zombies.",
            n,
        ) % {**values, "num": n}
    return t.gettext("You play %(card)s.") % values


def _card_kept(s: _Say, e: CardKept, you: bool) -> str:
    values = {"player": s.who(e["player"]), "card": s.card(e["card"])}
    if e["reason"] == "destination_has_room":
        if you:
            return s.t.gettext("You keep your %(card)s: your destination had room.") % values
        return s.t.gettext("%(player)s keeps the %(card)s: the destination had room.") % values
    if you:
        return s.t.gettext("You keep your %(card)s: the zombies were already held off.") % values
    return s.t.gettext("%(player)s keeps the %(card)s: the zombies were already held off.") % values


def _moved(s: _Say, e: Moved, you: bool) -> str:
    origin, target, end = e["origin"], e["target"], e["location"]
    values = {
        "player": s.who(e["player"]),
        "character": s.char(e["character"]),
        "origin": s.place(origin),
        "target": s.place(target),
        "place": s.place(end),
    }
    if you:
        return _you_moved(s, origin, target, end, values)
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


def _you_moved(s: _Say, origin: int, target: int, end: int, values: dict[str, str]) -> str:
    if end == target and origin == end:
        return s.t.gettext("Your %(character)s stays at %(place)s.") % values
    if end == target:
        return s.t.gettext("You move your %(character)s from %(origin)s to %(place)s.") % values
    if origin == end:
        return s.t.gettext("Your %(character)s cannot get into %(target)s and stays at %(place)s.") % values
    return (
        s.t.gettext("Your %(character)s cannot get into %(target)s and goes from %(origin)s to %(place)s instead.")
        % values
    )


def _extra_zombies(s: _Say, e: ExtraZombies, you: bool) -> str:
    most, pinups = e["most_characters"], e["most_pinups"]
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


def _attack(s: _Say, e: Attack, you: bool) -> str:
    n = e["zombies"]
    values = {"place": s.place(e["location"]), "num": n, "strength": e["strength"]}
    if e["location"] == 4:
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


def _attack_held(s: _Say, e: AttackHeld, you: bool) -> str:
    n = e["zombies"]
    return s.t.ngettext(
        "%(place)s holds: %(num)d zombie is not enough against a strength of %(threshold)s.",
        "%(place)s holds: %(num)d zombies are not enough against a strength of %(threshold)s.",
        n,
    ) % {"place": s.place(e["location"]), "num": n, "threshold": e["threshold"]}


def _attack_no_target(s: _Say, e: AttackNoTarget, you: bool) -> str:
    return s.t.gettext("At %(place)s everyone is hidden: nobody is eaten and the zombies stay outside.") % {
        "place": s.place(e["location"])
    }


def _zombies_left(s: _Say, e: ZombiesLeft, you: bool) -> str:
    n = e["zombies"]
    return s.t.ngettext(
        "%(num)d zombie leaves %(place)s.",
        "%(num)d zombies leave %(place)s.",
        n,
    ) % {"place": s.place(e["location"]), "num": n}


def _vote_uncontested(s: _Say, e: VoteUncontested, you: bool) -> str:
    return s.t.gettext("No vote needed at %(place)s: %(colour)s is the only colour that can be chosen.") % {
        "place": s.place(e["location"]),
        "colour": s.who(e["colour"]),
    }


def _random_colour(s: _Say, e: RandomColour, you: bool) -> str:
    return s.t.gettext("The re-vote at %(place)s is tied again: %(colour)s is drawn at random among %(pool)s.") % {
        "place": s.place(e["location"]),
        "colour": s.who(e["colour"]),
        "pool": s.colours(e["pool"]),
    }


def _eaten(s: _Say, e: Eaten, you: bool) -> str:
    values = {
        "player": s.who(e["player"]),
        "character": s.char(e["character"]),
        "place": s.place(e["location"]),
    }
    if you:
        return s.t.gettext("The zombies eat your %(character)s at %(place)s.") % values
    return s.t.gettext("The zombies eat %(player)s's %(character)s at %(place)s.") % values


def _eliminated(s: _Say, e: Eliminated, you: bool) -> str:
    if you:
        return s.t.gettext("You have no characters left: you still vote in re-votes and come back as a zombie.")
    return s.t.gettext("%(player)s has no characters left and becomes a zombie player.") % {
        "player": s.who(e["player"])
    }


def _chief_passed(s: _Say, e: ChiefPassed, reader: str | None) -> str:
    if reader is not None and reader == e["chief"]:
        return s.t.gettext("The Chief of Security is gone: you are the Chief now.")
    return s.t.gettext("The Chief of Security is gone: %(chief)s is the Chief now.") % {"chief": s.who(e["chief"])}


def _votes_revealed(s: _Say, e: VotesRevealed, you: bool) -> str:
    weights = e["weights"]
    ballots = []
    for voter, choice in e["votes"].items():
        n = weights[voter]
        values = {"voter": s.whom(voter), "colour": s.whom(choice), "num": n}
        if choice is None and s.reader is not None and voter == s.reader:  # "you abstains" is not English
            ballots.append(s.t.ngettext("you abstain (%(num)d vote)", "you abstain (%(num)d votes)", n) % values)
        elif choice is None:
            ballots.append(
                s.t.ngettext("%(voter)s abstains (%(num)d vote)", "%(voter)s abstains (%(num)d votes)", n) % values
            )
        else:
            ballots.append(
                s.t.ngettext("%(voter)s → %(colour)s (%(num)d vote)", "%(voter)s → %(colour)s (%(num)d votes)", n)
                % values
            )
    totals = [s.t.gettext("%(colour)s %(num)s") % {"colour": s.whom(c), "num": n} for c, n in e["totals"].items()]
    values = {"place": s.place(e["location"]), "ballots": s.join(ballots), "totals": s.join(totals)}
    if e["revote"]:
        return s.t.gettext("Re-vote at %(place)s: %(ballots)s. Totals: %(totals)s.") % values
    return s.t.gettext("Vote at %(place)s: %(ballots)s. Totals: %(totals)s.") % values


def _dice_seen(s: _Say, e: DiceSeen, you: bool) -> str:
    values = {"player": s.who(e["player"]), "dice": s.dice(e["values"])}
    if you:
        return s.t.gettext("You look at the zombie dice: %(dice)s.") % values
    return s.t.gettext("%(player)s looks at the zombie dice: %(dice)s.") % values


def _zombie_supply_exceeded(s: _Say, e: ZombieSupplyExceeded, you: bool) -> str:
    n = e["zombies"]
    return s.t.ngettext(
        "The board holds %(num)d zombie, more than the 30 in the box.",
        "The board holds %(num)d zombies, more than the 30 in the box.",
        n,
    ) % {"num": n}


def _game_over(s: _Say, e: GameOver, you: bool) -> str:
    winners = list(e["winners"])
    cards = e["cards"]
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
    for colour, points in e["scores"].items():
        score = s.t.ngettext("%(player)s %(num)d point", "%(player)s %(num)d points", points) % {
            "player": s.whom(colour),
            "num": points,
        }
        score += " " + s.t.ngettext("(%(num)d card)", "(%(num)d cards)", cards[colour]) % {"num": cards[colour]}
        scores.append(score)
    if scores:
        parts.append(s.t.gettext("Scores: %(scores)s.") % {"scores": s.join(scores)})
    return " ".join(parts)


#: Event type -> sentence, each taking its type's ``engine.shapes`` event (a table's value type cannot say which).
#: Entries whose function takes ``reader`` compare it with a field other than ``player``.
_EVENTS: dict[str, Callable[[_Say, Any, bool], str]] = {
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
    "answer_standing": _answer_standing,
    "vote_not_cast": _vote_not_cast,
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
_READER_EVENTS: dict[str, Callable[[_Say, Any, str | None], str]] = {
    "gift_received": _gift_received,
    "chief_elected": _chief_elected,
    "chief_passed": _chief_passed,
}
EVENT_TYPES = frozenset(_EVENTS) | frozenset(_READER_EVENTS)


def event_text(lang: str, event: Event, reader: str | None, names: Names | None = None) -> str:
    """One line for an engine event (as ``engine.view`` shows it to ``reader``, a colour, or None), from the
    reader's side: "you" for the reader, other players by ``names`` ("Ann (Red)", else "Red")."""
    s = _Say(lang, names, reader)
    kind = event["type"]
    if kind in _READER_EVENTS:
        return _READER_EVENTS[kind](s, event, reader)
    if kind in _EVENTS:
        you = reader is not None and event.get("player") == reader
        return _EVENTS[kind](s, event, you)
    return s.t.gettext("Something happened in the game.")


# --- requests ---------------------------------------------------------------------------------------------------


def _vote_request(s: _Say, request: RequestJSON, phase: str | None) -> str:
    t, num = s.t, request["weight"]
    values = {"place": s.place(request["location"]), "options": s.colours(request["options"]), "num": num}
    if request["revote"]:
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


def _victim_request(s: _Say, request: RequestJSON, phase: str | None) -> str:
    return s.t.gettext("Your colour lost the vote at %(place)s: choose which of your characters the zombies eat.") % {
        "place": s.place(request["location"])
    }


def _place_request(s: _Say, request: RequestJSON, phase: str | None) -> str:
    return s.t.gettext("Place one of your characters: your dice show %(dice)s.") % {"dice": s.dice(request["dice"])}


def _announce_request(s: _Say, request: RequestJSON, phase: str | None) -> str:
    return s.t.gettext("You are the elected Chief: choose your destination; it is announced to everyone.")


def _destination_request(s: _Say, request: RequestJSON, phase: str | None) -> str:
    text = s.t.gettext("Choose in secret the location where one of your characters will go.")
    if request.get("dice"):
        text += " " + s.t.gettext("The zombie dice you saw show %(dice)s.") % {"dice": s.dice(request.get("dice"))}
    return text


def _move_request(s: _Say, request: RequestJSON, phase: str | None) -> str:
    return s.t.gettext("Move one of your characters to %(destination)s, your revealed destination.") % {
        "destination": s.place(request["destination"])
    }


def _zombie_request(s: _Say, request: RequestJSON, phase: str | None) -> str:
    return s.t.gettext("You are a zombie player: choose the location where your zombie appears.")


def _truck_request(s: _Say, request: RequestJSON, phase: str | None) -> str:
    return s.t.gettext(
        "You search the truck and find %(cards)s: keep one, give one to another player; the last one goes "
        "to the bottom of the deck."
    ) % {"cards": s.cards(request["cards"])}


def _cards_request(s: _Say, request: RequestJSON, phase: str | None) -> str:
    t = s.t
    values = {
        "cards": s.cards(request["playable"]),
        "place": s.place(request["location"]),
    }
    texts = {
        "truck": t.gettext("Before the vote for the truck you may play %(cards)s, or pass."),
        "chief": t.gettext("Before the vote for Chief of Security you may play %(cards)s, or pass."),
        "arrival": t.gettext("You may use %(cards)s to look at the zombie dice, or pass."),
        "sprint": t.gettext("You may play %(cards)s to change the move you just made, or pass."),
    }
    text = texts.get(request["window"], t.gettext("Zombies attack %(place)s: you may play %(cards)s, or pass."))
    return text % values


_REQUESTS: dict[str, Callable[[_Say, RequestJSON, str | None], str]] = {
    "vote": _vote_request,
    "victim": _victim_request,
    "place": _place_request,
    "announce": _announce_request,
    "destination": _destination_request,
    "move": _move_request,
    "zombie": _zombie_request,
    "truck": _truck_request,
    "cards": _cards_request,
}


def request_text(lang: str, request: RequestJSON, phase: str | None = None, names: Names | None = None) -> str:
    """What the player must decide now, for one of their requests (``view["requests"]``).

    ``phase`` (the view's phase) says what a vote is for; without it the sentence names only the location.
    """
    s = _Say(lang, names)
    sentence = _REQUESTS.get(request["kind"])
    return s.t.gettext("You have a decision to make.") if sentence is None else sentence(s, request, phase)


def request_location(request: RequestJSON) -> int | None:
    """The location a request is about (a vote's, an attack's, a move's destination); None for none."""
    where = request.get("destination") if request["kind"] == "move" else request.get("location")
    return None if where is None else int(where)


def request_headline(lang: str, request: RequestJSON) -> str:
    """What is asked and where, in a few words ("Vote at Parking Lot (4)"): the seat page's bar."""
    s = _Say(lang, None)
    t, kind, where = s.t, request["kind"], request_location(request)
    place = {"place": s.place(where)}
    if kind == "vote":
        return t.gettext("Vote at %(place)s") % place
    if kind == "victim":
        return t.gettext("Who is lost at %(place)s") % place
    if kind == "move":
        return t.gettext("Move a character to %(place)s") % place
    if kind == "cards":
        return t.gettext("Play a card or pass: %(place)s") % place if where else t.gettext("Play a card or pass")
    headlines = {
        "place": t.gettext("Place a character"),
        "truck": t.gettext("Share the truck's cards"),
        "announce": t.gettext("Announce your destination"),
        "destination": t.gettext("Choose your destination"),
        "zombie": t.gettext("Place your zombie"),
    }
    return headlines.get(kind, t.gettext("You have a decision to make."))


# --- answers ----------------------------------------------------------------------------------------------------


def _spot(s: _Say, loc: int | str) -> str:
    """A location in an answer's words: "Megatoys (3)"."""
    return f"{location_name(s.lang, int(loc))} ({int(loc)})"


def _vote_answer(s: _Say, answer: object) -> str:
    return s.t.gettext("vote for %(colour)s") % {"colour": s.who(str(answer))}


def _go_answer(s: _Say, answer: int | str) -> str:
    return s.t.gettext("go to %(location)s") % {"location": _spot(s, answer)}


def _zombie_answer(s: _Say, answer: int | str) -> str:
    return s.t.gettext("put your zombie at %(location)s") % {"location": _spot(s, answer)}


def _victim_answer(s: _Say, answer: object) -> str:
    return s.t.gettext("give up your %(character)s") % {"character": s.char(str(answer))}


def _place_answer(s: _Say, answer: PlacementJSON) -> str:
    text = s.t.gettext("place your %(character)s at %(location)s") % {
        "character": s.char(answer["character"]),
        "location": _spot(s, answer["location"]),
    }
    fallback = answer.get("fallback")
    if fallback is not None:
        text += " " + s.t.gettext("(or at %(location)s if it is full)") % {"location": _spot(s, fallback)}
    return text


def _move_answer(s: _Say, answer: MoveJSON) -> str:
    text = s.t.gettext("move your %(character)s") % {"character": s.char(answer["character"])}
    sprint_to = answer.get("sprint")
    if sprint_to is not None:
        sprint = (
            s.t.gettext("and play Sprint to %(location)s only if the destination is full or closed")
            if answer.get("sprint_if_full")
            else s.t.gettext("and play Sprint to %(location)s")
        )
        text += " " + sprint % {"location": _spot(s, sprint_to)}
    return text


def _truck_answer(s: _Say, answer: TruckJSON) -> str:
    give = answer.get("give")
    if give is None:
        return s.t.gettext("keep %(card)s") % {"card": s.card(answer["keep"])}
    return s.t.gettext("keep %(keep)s and give %(give)s to %(colour)s") % {
        "keep": s.card(answer["keep"]),
        "give": s.card(give),
        "colour": s.who(answer["to"]),
    }


def _cards_answer(s: _Say, answer: list[PlayJSON]) -> str:
    if not answer:
        return s.t.gettext("play no card")
    return s.t.gettext("play %(cards)s") % {"cards": _plays(s, answer)}


def _plays(s: _Say, answer: list[PlayJSON]) -> str:
    """The cards of a ``cards`` answer: "Axe, Hidden (Pin-Up) (only if needed)"."""
    plays = []
    for play in answer:
        words = s.card(play["card"])
        character, location = play.get("character"), play.get("location")
        if character:
            words += f" ({s.char(character)}"
            words += f", {_spot(s, location)})" if location else ")"
        if play.get("if_needed"):
            words += " " + s.t.gettext("(only if needed)")
        plays.append(words)
    return ", ".join(plays)


#: request kind -> its answer's words, by the answer's JSON type: any value (said as it is), a location.
_AS_GIVEN: dict[str, Callable[[_Say, object], str]] = {"vote": _vote_answer, "victim": _victim_answer}
_AT_LOCATION: dict[str, Callable[[_Say, int | str], str]] = {
    "announce": _go_answer,
    "destination": _go_answer,
    "zombie": _zombie_answer,
}


def _answer_words(s: _Say, kind: str, answer: object) -> str | None:
    """``answer`` to a request of ``kind`` in words; None for an unknown kind, or an answer not of its kind's
    JSON shape (``engine.shapes``: an object for ``place``, ``move`` and ``truck``, a list for ``cards``)."""
    if kind in _AS_GIVEN:
        return _AS_GIVEN[kind](s, answer)
    if kind in _AT_LOCATION:
        return _AT_LOCATION[kind](s, answer) if isinstance(answer, (int, str)) else None
    if kind == "cards":
        return _cards_answer(s, cast(list[PlayJSON], answer)) if isinstance(answer, list) else None
    if not isinstance(answer, dict):
        return None
    if kind == "place":
        return _place_answer(s, cast(PlacementJSON, answer))
    if kind == "move":
        return _move_answer(s, cast(MoveJSON, answer))
    if kind == "truck":
        return _truck_answer(s, cast(TruckJSON, answer))
    return None


def _flat(answer: object) -> str:
    flat = " ".join(str(answer or "").split())
    return flat if len(flat) <= 200 else flat[:199] + "…"


def describe_answer(lang: str, request: Mapping[str, object], answer: object, names: Names | None = None) -> str:
    """What an answer means, in words (``You are about to: …``, ``We understood: …``); of ``request`` (a request's
    JSON) only its ``kind`` counts."""
    words = _answer_words(_Say(lang, names), str(request.get("kind")), answer)
    return _flat(answer) if words is None else words


# --- answers told in the third person (the replay) ------------------------------------------------------------


def _told_vote(s: _Say, v: dict[str, str], answer: str) -> str:
    return s.t.gettext("%(player)s voted for %(colour)s.") % {**v, "colour": s.who(answer)}


def _told_go(s: _Say, v: dict[str, str], answer: int) -> str:
    return s.t.gettext("%(player)s chose %(location)s.") % {**v, "location": _spot(s, answer)}


def _told_zombie(s: _Say, v: dict[str, str], answer: int) -> str:
    return s.t.gettext("%(player)s put their zombie at %(location)s.") % {**v, "location": _spot(s, answer)}


def _told_victim(s: _Say, v: dict[str, str], answer: str) -> str:
    return s.t.gettext("%(player)s gave up their %(character)s.") % {**v, "character": s.char(answer)}


def _told_place(s: _Say, v: dict[str, str], answer: PlacementJSON) -> str:
    return s.t.gettext("%(player)s placed their %(character)s at %(location)s.") % {
        **v,
        "character": s.char(answer["character"]),
        "location": _spot(s, answer["location"]),
    }


def _told_move(s: _Say, v: dict[str, str], answer: MoveJSON) -> str:
    values = {**v, "character": s.char(answer["character"])}
    sprint = answer.get("sprint")
    if sprint is None:
        return s.t.gettext("%(player)s moved their %(character)s.") % values
    return s.t.gettext("%(player)s moved their %(character)s with a Sprint to %(location)s.") % {
        **values,
        "location": _spot(s, sprint),
    }


def _told_truck(s: _Say, v: dict[str, str], answer: TruckJSON) -> str:
    give = answer.get("give")
    if give is None:
        return s.t.gettext("%(player)s kept %(card)s.") % {**v, "card": s.card(answer["keep"])}
    return s.t.gettext("%(player)s kept %(keep)s and gave %(give)s to %(colour)s.") % {
        **v,
        "keep": s.card(answer["keep"]),
        "give": s.card(give),
        "colour": s.who(answer["to"]),
    }


def _told_cards(s: _Say, v: dict[str, str], answer: list[PlayJSON]) -> str:
    if not answer:
        return s.t.gettext("%(player)s played no card.") % v
    return s.t.gettext("%(player)s chose to play %(cards)s.") % {**v, "cards": _plays(s, answer)}


#: request kind -> its answer told, by the answer's JSON type: a colour or character, a location.
_TOLD_NAME: dict[str, Callable[[_Say, dict[str, str], str], str]] = {"vote": _told_vote, "victim": _told_victim}
_TOLD_LOCATION: dict[str, Callable[[_Say, dict[str, str], int], str]] = {
    "announce": _told_go,
    "destination": _told_go,
    "zombie": _told_zombie,
}


def _told(s: _Say, v: dict[str, str], kind: str, answer: JSON) -> str | None:
    """``answer`` to a request of ``kind`` told; None for an unknown kind, or an answer not of its kind's shape."""
    if isinstance(answer, str):
        return _TOLD_NAME[kind](s, v, answer) if kind in _TOLD_NAME else None
    if isinstance(answer, int):
        return _TOLD_LOCATION[kind](s, v, answer) if kind in _TOLD_LOCATION else None
    if isinstance(answer, list):
        return _told_cards(s, v, cast(list[PlayJSON], answer)) if kind == "cards" else None
    if not isinstance(answer, dict):
        return None
    if kind == "place":
        return _told_place(s, v, cast(PlacementJSON, answer))
    if kind == "move":
        return _told_move(s, v, cast(MoveJSON, answer))
    if kind == "truck":
        return _told_truck(s, v, cast(TruckJSON, answer))
    return None


def told_answer(
    lang: str, request: Mapping[str, object] | None, answer: JSON, player: str, names: Names | None = None
) -> str:
    """An answer told in the third person, as the replay lists them: "Ann (Red) voted for Blue."; "Ann (Red) gave
    no answer." when there was none (an abstention). Of ``request`` (a request's JSON) only its ``kind`` counts."""
    s = _Say(lang, names)
    values = {"player": s.who(player)}
    if answer is None:
        return s.t.gettext("%(player)s gave no answer.") % values
    told = _told(s, values, str((request or {}).get("kind")), answer)
    return f"{s.who(player)}: {_flat(answer)}" if told is None else told
