"""The one stylesheet is well formed: its braces balance and every rule written at the left margin is at the top
level, not swallowed by an @media block left open (pages would silently lose every rule after it)."""

from __future__ import annotations

import re
from pathlib import Path

CSS = Path(__file__).resolve().parents[2] / "static" / "deadmail.css"


def test_every_block_is_closed_and_top_level_rules_stay_top_level() -> None:
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), CSS.read_text(), flags=re.DOTALL)
    depth = 0
    for number, line in enumerate(text.split("\n"), 1):
        if line[:1] not in ("", " ", "}"):
            assert depth == 0, f"static/deadmail.css:{number} is inside a block left open: {line[:60]}"
        depth += line.count("{") - line.count("}")
        assert depth >= 0, f"static/deadmail.css:{number} closes a block never opened"
    assert depth == 0, "a block is never closed"
