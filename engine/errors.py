"""Typed errors of the engine, and how a refusal's parameters are named in a player's language.

An :class:`IllegalAnswer` carries a message id (an English format string with ``%(name)s`` placeholders, marked
with :func:`N_` so that ``pybabel extract`` finds it) and its parameters as data. ``str(exc)`` is the English
sentence; a caller that speaks another language translates ``exc.msgid`` and renders ``exc.params`` with its own
names::

    text = gettext(exc.msgid) % render_params(exc.params, Names(location=..., colour=..., ...))

The parameter's NAME says what its value is and how it is shown (:data:`PARAMETERS`):

=========================  ===========================================  =========================================
name                       value                                        shown in English
=========================  ===========================================  =========================================
``location``               a location number (int)                      ``3 (Megatoys)``
``locations``              a list of location numbers                   ``1 (Restroom), 3 (Megatoys)``
``colour``                 a player's colour id                         ``red``
``colours``                a list of colour ids                         ``red, blue``
``character``              a character id                               ``Tough Guy (tough)``
``characters``             a list of character ids                      ``Pin-Up (pinup), Gunman (gunman)``
``card``                   a card id                                    ``Security Camera``
``cards``                  a list of card ids                           ``Axe, Sprint``
``kind``                   a request kind (:class:`~engine.data.Kind`)  ``place``
``kinds``                  a list of request kinds                      ``place, cards``
``value``                  what the player sent, already shortened      as is (``'x'``, ``12``, ``None``)
                           by ``engine.requests.shown`` (a str)
``field``                  a field name of a JSON answer                as is
``fields``                 a list of field names                        as is, joined: ``character, location``
``example``                a JSON example of an answer                  as is
=========================  ===========================================  =========================================
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, NamedTuple, cast

from .data import CARD_NAMES, CHARACTER_NAMES, LOCATION_NAMES


def N_(message: str) -> str:
    """Marks a message id for extraction (``pybabel extract -k N_``); it is translated where it is shown."""
    return message


class ScenarioError(ValueError):
    """A scenario (or a stored state) that cannot exist: bad JSON, unknown key or value, impossible position."""


def _same(value: object) -> str:
    return str(value)


def _join(names: Sequence[str]) -> str:
    return ", ".join(names)


class Names(NamedTuple):
    """How one language names each sort of parameter value; ``join`` lists several names."""

    location: Callable[[int], str]
    colour: Callable[[str], str]
    character: Callable[[str], str]
    card: Callable[[str], str]
    kind: Callable[[str], str]
    join: Callable[[Sequence[str]], str] = _join


#: Parameter name -> (the :class:`Names` field that names its value, or None for "shown as is"; is it a list).
PARAMETERS: Final[dict[str, tuple[str | None, bool]]] = {
    "location": ("location", False),
    "locations": ("location", True),
    "colour": ("colour", False),
    "colours": ("colour", True),
    "character": ("character", False),
    "characters": ("character", True),
    "card": ("card", False),
    "cards": ("card", True),
    "kind": ("kind", False),
    "kinds": ("kind", True),
    "value": (None, False),
    "field": (None, False),
    "fields": (None, True),
    "example": (None, False),
}


def render_params(params: Mapping[str, object], names: Names) -> dict[str, str]:
    """Each parameter as text, named by ``names`` according to :data:`PARAMETERS`; ready for ``msgid % ...``."""
    out = {}
    for key, value in params.items():
        what, many = PARAMETERS[key]
        name: Callable[[Any], str] = _same if what is None else getattr(names, what)  # each takes its own type
        out[key] = names.join([name(v) for v in cast(Iterable[object], value)]) if many else name(value)
    return out


def location_name(loc: int) -> str:
    return f"{loc} ({LOCATION_NAMES[loc]})"


def character_name(character: str) -> str:
    return f"{CHARACTER_NAMES[character]} ({character})"


def card_name(card: str) -> str:
    return CARD_NAMES[card]


#: The engine's own English names: colours and request kinds by their ids.
ENGLISH: Final = Names(location=location_name, colour=_same, character=character_name, card=card_name, kind=_same)


def render(msgid: str, params: Mapping[str, object], names: Names = ENGLISH) -> str:
    """The message with its parameters filled in (English by default)."""
    return msgid % render_params(params, names) if params else msgid


class IllegalAnswer(ValueError):
    """An answer the rules do not allow; the message is meant for the player.

    ``msgid`` is the English format string (marked with :func:`N_`), ``params`` its values as data, named as in
    :data:`PARAMETERS`; ``str(exc)`` is the English sentence.
    """

    def __init__(self, msgid: str, **params: Any) -> None:
        super().__init__(render(msgid, params))
        self.msgid = msgid
        self.params = params
