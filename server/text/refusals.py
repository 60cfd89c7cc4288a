"""Refusals in the reader's language: a service's ``ShownError`` (an engine refusal it carries included) translated
through the catalogs, its parameters named in the reader's words.

Parameters are named as ``engine.errors.PARAMETERS`` says (a ``location`` number as "3 (Megatoys)", a ``colour``
id as "Rosso" …) with the glossary's names; one named in the error's ``terms`` is a msgid and is translated; any
other is shown as it is.
"""

from __future__ import annotations

from engine.errors import Names

from ..services.errors import ShownError, named
from . import glossary
from .i18n import translations


def names(lang: str) -> Names:
    """How ``lang`` names the values of refusals' parameters."""
    return Names(
        location=lambda loc: glossary.location_label(lang, int(loc)),
        colour=lambda colour: glossary.colour_name(lang, colour),
        character=lambda character: glossary.character_name(lang, character),
        card=lambda card: glossary.card_name(lang, card),
        kind=lambda kind: glossary.kind_name(lang, kind),
    )


def refusal(exc: ShownError, lang: str) -> str:
    """The message of ``exc`` in ``lang``; a message without a catalog entry stays as it is (English)."""
    t = translations(lang)
    if not exc.params:
        return str(t.gettext(exc.msgid))
    params = named(exc.params, names(lang))
    for key in exc.terms:
        params[key] = t.gettext(str(exc.params[key]))
    return str(t.gettext(exc.msgid)) % params
