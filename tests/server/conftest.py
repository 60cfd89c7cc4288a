"""Fixtures of the server tests (the ``stack`` fixtures, both setups, are in tests/conftest.py; the steps they share,
game creation included, in tests/support.py)."""

from __future__ import annotations

import pytest

from tests.conftest import Stack
from tests.support import log_in_as_organiser


@pytest.fixture
def organiser(stack: Stack) -> Stack:
    """The stack, its test client logged in as the organiser (with the API token)."""
    log_in_as_organiser(stack.client)
    return stack
