"""strip_reply on realistic replies (tests/server/reply_corpus.py) in English, Italian and Polish: it keeps exactly
the player's lines, whatever the client (Gmail, Outlook, Apple Mail, Thunderbird, Yahoo, Windows Mail, Samsung,
Italian and Polish webmails), top-posted, bottom-posted or empty. bench/reply_stripping.py measures the same corpus
against the mail-parser-reply library (which keeps quoted commands: docs/PERFORMANCE.md)."""

from __future__ import annotations

import pytest

from server.text.grammar import strip_reply
from tests.server.reply_corpus import CORPUS, Case, lines_of


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_strip_reply_keeps_exactly_the_players_lines(case: Case) -> None:
    assert lines_of(strip_reply(case.body)) == lines_of(case.kept)
