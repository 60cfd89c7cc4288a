"""The mails look like the pages: the colours, type and buttons of static/deadmail.css ``:root``, written inline (mail
clients read no stylesheet), and the plain-text part stays plain."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from tests.conftest import Stack
from tests.support import compose, create_tagged, html_of, mail_settings, outbox_ids, text_of

CSS = Path(__file__).resolve().parents[2] / "static" / "deadmail.css"


def palette() -> dict[str, str]:
    root = re.search(r":root\s*\{(.*?)\}", CSS.read_text(), re.DOTALL)
    assert root is not None
    return {name: value.strip() for name, value in re.findall(r"--([\w-]+):\s*([^;]+);", root.group(1))}


class _Styles(HTMLParser):
    """The inline style of each element, by tag and class."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.found.append((tag, a.get("class") or "", a.get("style") or ""))

    def style(self, tag: str, cls: str | None = None) -> str:
        """The first ``tag`` with class ``cls`` (None: any; "": none)."""
        return next(s for t, c, s in self.found if t == tag and (cls is None or (cls in c.split() if cls else not c)))


def test_a_mail_uses_the_pages_palette_type_and_buttons(embedded: Stack) -> None:
    created = create_tagged(embedded.db, 3, seed=2)
    message = compose(embedded.db, outbox_ids(embedded.db, created.game_id)[0], mail_settings(embedded.settings))
    assert message is not None
    colours = palette()
    styles = _Styles()
    styles.feed(html_of(message))

    body = styles.style("body")
    assert f"color: {colours['ink']}" in body and f"background: {colours['paper']}" in body
    assert "system-ui" in body  # the pages' --font, then the mail clients' usual ones
    assert "Georgia" in styles.style("h1") and "Georgia" in colours["title-font"]
    tap = styles.style("a", "tap")
    assert f"background: {colours['accent']}" in tap and f"color: {colours['accent-ink']}" in tap
    assert f"color: {colours['link']}" in styles.style("a", "")  # a link that is not a button
    used = {c.lower() for _t, _c, s in styles.found for c in re.findall(r"#[0-9a-fA-F]{3,6}\b", s)}
    assert used <= {v.lower() for v in colours.values()} | {"#fff", "#ffffff", "#f0ede4"}, used  # no other colour

    text = text_of(message)
    assert "<" not in text.replace("<http", "") and "style" not in text  # the plain-text part: plain


def test_the_mail_tables_columns_line_up_when_cachou_is_closed(embedded: Stack) -> None:
    """SET-4: with 3 players Cachou is closed; its reason follows the row, so every row's columns line up."""
    created = create_tagged(embedded.db, 3, seed=2)
    message = compose(embedded.db, outbox_ids(embedded.db, created.game_id)[0], mail_settings(embedded.settings))
    assert message is not None
    rows = [row.strip() for row in text_of(message).split("The mall:")[1].splitlines()[1:7]]
    assert [row.split()[0] for row in rows] == ["1", "2", "3", "4", "5", "6"]
    assert len({row.index(" room ") for row in rows}) == 1, rows
    assert rows[1].startswith("2 Cachou ") and rows[1].endswith(" (closed with 3 or 4 players)"), rows
