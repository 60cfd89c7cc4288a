"""Service errors whose messages are shown to people: English for the JSON API and logs, translated on pages.

A message is a msgid (marked with ``N_`` so ``pybabel extract`` finds it) and its parameters: ``str(exc)`` is
``msgid % params`` in English, ``exc.translated(gettext)`` the same sentence in the reader's language. A message
passed through from elsewhere (an engine refusal, a TempoError) has no parameters and no catalog entry, so it
stays as it is. Parameters named in ``terms`` are msgids themselves (a game status) and are translated too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["N_", "ShownError"]


def N_(message: str) -> str:
    """Marks a msgid for extraction; translated where it is shown."""
    return message


class ShownError(ValueError):
    """A refusal whose message is for a person: ``msgid % params`` in English, ``translated`` in theirs."""

    def __init__(self, msgid: str, *, terms: Iterable[str] = (), **params: Any) -> None:
        super().__init__(msgid % params if params else msgid)
        self.msgid = msgid
        self.params = params
        self.terms = frozenset(terms)

    def translated(self, gettext: Callable[..., str]) -> str:
        """The message through ``gettext`` (flask_babel's, or a ``Translations.gettext`` for one language)."""
        if not self.params:
            return gettext(self.msgid)
        params = {k: gettext(v) if k in self.terms else v for k, v in self.params.items()}
        return gettext(self.msgid) % params
