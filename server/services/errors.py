"""Service errors whose messages are shown to people: English for the JSON API and logs, translated on pages.

A message is a msgid (marked with ``N_`` so ``pybabel extract`` finds it) and its parameters: ``str(exc)`` is the
English sentence, ``server.text.refusals.refusal(exc, lang)`` the same in the reader's language. Parameters are
named as the engine names its refusals' (``engine.errors.PARAMETERS``: a ``location`` is a number, a ``colour``
an id …) and shown by those names; any other parameter is shown as it is. Parameters named in ``terms`` are msgids
themselves (a game status) and are translated too. A message passed through from elsewhere without parameters
and catalog entry (an engine's ScenarioError) stays as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.errors import ENGLISH, PARAMETERS, Names, render_params

__all__ = ["N_", "ShownError", "named"]


def named(params: dict[str, Any], names: Names) -> dict[str, object]:
    """The parameters with those the engine's table knows named by ``names`` (``engine.errors.Names``)."""
    known = {k: v for k, v in params.items() if k in PARAMETERS}
    return {**params, **render_params(known, names)}


def N_(message: str) -> str:
    """Marks a msgid for extraction; translated where it is shown."""
    return message


class ShownError(ValueError):
    """A refusal whose message is for a person: ``msgid % params`` in English, ``translated`` in theirs."""

    def __init__(self, msgid: str, *, terms: Iterable[str] = (), **params: Any) -> None:
        super().__init__(msgid % named(params, ENGLISH) if params else msgid)
        self.msgid = msgid
        self.params = params
        self.terms = frozenset(terms)
