"""Typed errors of the engine."""

from __future__ import annotations


class ScenarioError(ValueError):
    """A scenario (or a stored state) that cannot exist: bad JSON, unknown key or value, impossible position."""


class IllegalAnswer(ValueError):
    """An answer the rules do not allow; the message is meant for the player."""
