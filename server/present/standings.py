"""A season's standings shaped for pages and mails, in the reader's language."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from babel.numbers import format_decimal

from ..services.leagues.standings import Placed, StandingRow, Standings
from ..text.i18n import translations


def number(lang: str, value: float | None) -> str:
    """Points and average places in the reader's language: at most two decimals, none when whole ("0,75" in Italian
    and Polish)."""
    if value is None:
        return "–"
    return format_decimal(round(value, 2), format="0.##", locale=lang)


def plural_of(value: float | None) -> int:
    """The count that picks the plural form of points: whole points count as themselves ("1 point", "3 points"),
    fractions as plural ("0,75 punti")."""
    return int(value) if value is not None and float(value).is_integer() else 2


def division_title(lang: str, name: str | None) -> str:
    t = translations(lang)
    return t.gettext("Division %(name)s") % {"name": name} if name else t.gettext("Standings")


def tables(lang: str, table: Standings, games_url: Callable[[int], str] | None = None) -> list[dict[str, Any]]:
    """Each division as ``{"title", "rows", "more"}`` (the substitutes' appearances last, when any); a row's ``url``
    lists the player's games of the season (None without ``games_url``); ``more``: a next page exists (``table`` is
    one page of ``services.leagues.standings.standings_page``)."""
    t = translations(lang)
    named = [(division_title(lang, name), rows) for name, rows in table.divisions]
    if table.substitutes:
        named.append((t.gettext("Substitute appearances"), table.substitutes))
    return [
        {
            "title": title,
            "more": i < len(table.more) and table.more[i],
            "rows": [
                {
                    **row,
                    "points_text": number(lang, row["points"]),
                    "average_text": number(lang, row["average_place"]),
                    "victory_text": number(lang, row.get("victory_points")),  # "–": rankings recorded only
                    "url": games_url(row["player"]) if games_url else None,
                }
                for row in rows
            ],
        }
        for i, (title, rows) in enumerate(named)
    ]


def lines(lang: str, table: Standings) -> list[str]:
    """The standings as lines of text (a mail): a title per division, then "rank. name: N league points (games)"."""
    t = translations(lang)
    out = []
    for shown in tables(lang, table):
        out.append(shown["title"] + ":")
        for row in shown["rows"]:
            games = t.ngettext("%(num)d game", "%(num)d games", row["games"]) % {"num": row["games"]}
            out.append(
                t.ngettext(
                    "%(rank)s. %(name)s: %(points)s league point (%(games)s)",
                    "%(rank)s. %(name)s: %(points)s league points (%(games)s)",
                    plural_of(row["points"]),
                )
                % {"rank": row["rank"], "name": row["name"], "points": row["points_text"], "games": games}
            )
    return out


def round_lines(lang: str, games: list[tuple[int, list[Placed]]]) -> list[str]:
    """The reader's games of a round: "Game N: 1. Ann (12 victory points), 2. Bob (9 victory points), …" (none for a
    result recorded as a ranking: "1. Ann, 2. Bob")."""
    t = translations(lang)

    def one(p: Placed) -> str:
        if p.points is None:  # (a result recorded as a ranking)
            return f"{p.place}. {p.name}"
        said = t.ngettext(
            "%(place)s. %(name)s (%(num)d victory point)", "%(place)s. %(name)s (%(num)d victory points)", p.points
        )
        return said % {"place": p.place, "name": p.name, "num": p.points}

    return [
        t.gettext("Game %(game)s: %(places)s") % {"game": game_id, "places": ", ".join(one(p) for p in placed)}
        for game_id, placed in games
    ]


def row_of(table: Standings, player_id: int) -> StandingRow | None:
    return next((row for row in table.rows() if row["player"] == player_id), None)
