"""Scoring and standings: a league's standings from its finished games' results. Pure: no database, no
I/O; the caller reads the games and hands over plain ``GameResult`` values.

Places (END-3). At each table the seats are placed by victory points, then by the cards left in hand; seats still
tied share the place (``play.places.placings``: places 1, 1, 3). For scoring, tied seats take the average of the
places they span (two seats tied for 1st both have place 1.5).

Scoring systems (``SYSTEMS``), each a per-game credit summed over the season:

- ``placement``: a seat at place ``p`` of a table of ``n`` scores ``(n - p) / (n - 1)``: 1 for the winner, 0 for
  the last, evenly spaced between, so tables of 3 to 6 weigh the same. Ties share the average of the points of the
  places they span, which is the same formula on the average place (two tied for 1st of 4: (1 + 2/3) / 2 = 5/6).
  A table of one scores 0.
- ``victory_points``: the game's own victory points.
- ``wins``: 1 per game won; a shared victory (END-3: still tied on cards) counts fully for every winner.

Tie-breaks (``TIE_BREAKS``), applied in the league's order to players level on points: ``victory_points`` (the
total, more is better), ``wins`` (more is better), ``average_placement`` (the average place, lower is better;
players with no placed game come last), ``head_to_head``. Head to head looks only at the players still tied at
that step: for every game two of them both played (and were both placed in), the one placed better scores +1 and
the other -1; the sum ranks them, more is better. Players still tied after every tie-break share a rank (ranks 1, 1,
3) and are listed by player id.

Forfeits (``FORFEITS``): a seat that did not end with the player who started it (``Ending.AUTOPILOT``,
``Ending.SUBSTITUTED``) is credited to that player by the league's rule:

- ``last``: as the table's last place, alone (place ``n``): 0 placement points, no win, and the lowest victory
  points scored at the table;
- ``zero``: nothing: 0 points in every system, no win, 0 victory points, and no place (the game is left out of
  the average placement and head to head);
- ``as_played``: the seat's result as it stands.

A result the organiser recorded as a ranking (``recorded.record_result``) has no victory points: its seats' ``points``
are minus their position (-1 the best, ``victory_points`` None), which places them and counts nowhere as victory
points (not in the column, the ``victory_points`` tie-break nor a ``last`` forfeit's). A row's ``victory_points`` is
the sum over the player's games that have them, None when none has.

The game still counts in the player's games played; the other seats keep their places as played. A substitute's
result (the seat's result as it ended) is theirs but kept apart: ``standings(..., substitutes=True)`` gives the
table of substitute appearances only, and the regular standings never include them.

Divisions: ``standings_by_division`` ranks each division on its own (head to head among its players only);
``promotion_relegation`` moves the top ``n`` of each division up and the bottom ``n`` down.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import engine

from ..play.places import runs

__all__ = [
    "FORFEITS",
    "SYSTEMS",
    "TIE_BREAKS",
    "Credit",
    "Ending",
    "GameResult",
    "Move",
    "Row",
    "SeatResult",
    "from_outcome",
    "promotion_relegation",
    "standings",
    "standings_by_division",
    "standings_csv",
    "victory_points",
]

SYSTEMS = ("placement", "victory_points", "wins")
TIE_BREAKS = ("victory_points", "wins", "average_placement", "head_to_head")
FORFEITS = ("last", "zero", "as_played")
#: sums of placement points are compared rounded to this many decimals (float sums in a different order differ in
#: the last bits).
DIGITS = 9


class Ending(StrEnum):
    """How a seat ended: played to the end by the player who started it, on autopilot, or by a substitute."""

    PLAYED = "played"
    AUTOPILOT = "autopilot"
    SUBSTITUTED = "substituted"


@dataclass(frozen=True)
class Credit:
    """Who a seat's result belongs to: ``player`` who started it (None: a bot), how it ended, and the
    ``substitute`` who finished it (None when nobody did, or a bot did)."""

    player: int | None
    ending: Ending = Ending.PLAYED
    substitute: int | None = None


def victory_points(points: int) -> int | None:
    """A seat's victory points: None for a seat of a result recorded as a ranking (negative ``points``: its order)."""
    return None if points < 0 else points


@dataclass(frozen=True)
class SeatResult:
    """One seat of a finished game: the engine's outcome for its colour (``points`` = victory points, or minus its
    position in a result recorded as a ranking; ``cards`` left in hand, ``winner``) and who it is credited to."""

    colour: str
    points: int
    cards: int
    winner: bool
    player: int | None = None
    ending: Ending = Ending.PLAYED
    substitute: int | None = None


@dataclass(frozen=True)
class GameResult:
    id: int
    seats: tuple[SeatResult, ...]

    @property
    def table_size(self) -> int:
        return len(self.seats)


def from_outcome(game_id: int, outcome: engine.Outcome, credits: Mapping[str, Credit]) -> GameResult:
    """A ``GameResult`` from an engine game's ``outcome`` and each colour's ``Credit`` (a colour without one is a
    bot's)."""
    scores, cards, winners = outcome["scores"], outcome["cards"], set(outcome["winners"])
    seats = []
    for colour in scores:
        credit = credits.get(colour) or Credit(None)
        seats.append(
            SeatResult(
                colour,
                scores[colour],
                cards.get(colour, 0),
                colour in winners,
                credit.player,
                credit.ending,
                credit.substitute,
            )
        )
    return GameResult(game_id, tuple(seats))


@dataclass
class Row:
    """One line of the standings. ``points`` in the league's system; ``average_place`` None when the player has no
    placed game (only ``zero`` forfeits); ``game_ids`` in the order the games were given; ``places``: game id ->
    the place credited (averaged over ties; absent for a ``zero`` forfeit)."""

    player: int
    games: int = 0
    points: float = 0.0
    wins: int = 0
    victory_points: int | None = None
    average_place: float | None = None
    rank: int = 0
    game_ids: list[int] = field(default_factory=list)
    places: dict[int, float] = field(default_factory=dict)
    substitute: bool = False
    division: str | None = None


def _check(system: str, tie_breaks: Sequence[str], forfeit: str) -> None:
    if system not in SYSTEMS:
        raise ValueError(f"unknown scoring system {system!r}: one of {', '.join(SYSTEMS)}")
    unknown = [t for t in tie_breaks if t not in TIE_BREAKS]
    if unknown or len(set(tie_breaks)) != len(tie_breaks):
        raise ValueError(f"tie-breaks {list(tie_breaks)!r}: each at most once among {', '.join(TIE_BREAKS)}")
    if forfeit not in FORFEITS:
        raise ValueError(f"unknown forfeit rule {forfeit!r}: one of {', '.join(FORFEITS)}")


def _system_points(system: str, size: int, place: float | None, victory_points: int | None, won: bool) -> float:
    if system == "victory_points":
        return victory_points or 0
    if system == "wins":
        return 1 if won else 0
    if place is None or size < 2:
        return 0.0
    return (size - place) / (size - 1)


def _tally(games: Iterable[GameResult], system: str, forfeit: str, substitutes: bool) -> dict[int, Row]:
    """Player -> their row, unranked: one pass over the seats, placed as ``placings`` does."""
    rows: dict[int, Row] = {}
    for game in games:
        size = len(game.seats)
        ordered = sorted(game.seats, key=_by_place)
        keys = [(seat.points, seat.cards) for seat in ordered]
        lowest = victory_points(keys[-1][0]) if keys else 0
        for start, end in runs(keys):
            shared = (start + 1 + end) / 2  # the average of places start + 1 .. end
            for seat in ordered[start:end]:
                place: float | None = shared
                vp, won = victory_points(seat.points), seat.winner
                if substitutes:
                    who = seat.substitute if seat.ending is Ending.SUBSTITUTED else None
                else:
                    who = seat.player
                    if seat.ending is not Ending.PLAYED and forfeit == "last":
                        place, vp, won = size, lowest, False
                    elif seat.ending is not Ending.PLAYED and forfeit == "zero":
                        place, vp, won = None, None if vp is None else 0, False
                if who is None:
                    continue
                row = rows.get(who)
                if row is None:
                    row = rows[who] = Row(who, substitute=substitutes)
                row.games += 1
                row.game_ids.append(game.id)
                row.points += _system_points(system, size, place, vp, won)
                if vp is not None:
                    row.victory_points = (row.victory_points or 0) + vp
                row.wins += won
                if place is not None:
                    row.places[game.id] = place
    for row in rows.values():
        if row.places:
            row.average_place = sum(row.places.values()) / len(row.places)
    return rows


def _by_place(seat: SeatResult) -> tuple[int, int]:
    return (-seat.points, -seat.cards)


def _head_to_head(group: Sequence[Row]) -> dict[int, int]:
    """Player -> (times placed better than another of ``group``) - (times placed worse), over the games they shared:
    linear in the group's games."""
    tables: dict[int, list[tuple[float, int]]] = {}
    for row in group:
        for game_id, place in row.places.items():
            tables.setdefault(game_id, []).append((place, row.player))
    score = {row.player: 0 for row in group}
    for placed in tables.values():
        for place, player in placed:
            score[player] += sum(1 if place < other else -1 for other, _ in placed if other != place)
    return score


def _key(name: str, group: Sequence[Row]) -> Callable[[Row], float]:
    """The tie-break ``name`` as a sort key, smaller first."""
    if name == "victory_points":
        return lambda row: -(row.victory_points or 0)  # none (rankings only) counts as none scored
    if name == "wins":
        return lambda row: -row.wins
    if name == "average_placement":
        return lambda row: float("inf") if row.average_place is None else round(row.average_place, DIGITS)
    scores = _head_to_head(group)
    return lambda row: -scores[row.player]


def _blocks(group: list[Row], key: Callable[[Row], float]) -> list[list[Row]]:
    """``group`` sorted by ``key`` (then player id), cut where the key changes."""
    ordered = sorted(group, key=lambda row: (key(row), row.player))
    out: list[list[Row]] = []
    for row in ordered:
        if out and key(out[-1][0]) == key(row):
            out[-1].append(row)
        else:
            out.append([row])
    return out


def _break(group: list[Row], tie_breaks: Sequence[str]) -> list[list[Row]]:
    """A group level on points, split by the tie-breaks in order: the blocks still tied after them all."""
    if len(group) == 1 or not tie_breaks:
        return [group]
    return [tied for block in _blocks(group, _key(tie_breaks[0], group)) for tied in _break(block, tie_breaks[1:])]


def _rank(rows: Iterable[Row], tie_breaks: Sequence[str]) -> list[Row]:
    out: list[Row] = []
    for level in _blocks(list(rows), lambda row: -round(row.points, DIGITS)):
        for tied in _break(level, tie_breaks):
            for row in tied:
                row.rank = len(out) + 1
            out.extend(tied)
    return out


def standings(
    games: Iterable[GameResult],
    system: str = "placement",
    tie_breaks: Sequence[str] = TIE_BREAKS,
    forfeit: str = "last",
    *,
    substitutes: bool = False,
) -> list[Row]:
    """The ranked rows of ``games`` (see the module's text for the systems, tie-breaks and forfeit rules); with
    ``substitutes``, the separate table of substitutes' results. Linear in the seats, plus head to head among tied
    players only."""
    _check(system, tie_breaks, forfeit)
    return _rank(_tally(games, system, forfeit, substitutes).values(), tie_breaks)


def standings_by_division(
    games: Iterable[GameResult],
    divisions: Mapping[int, str],
    system: str = "placement",
    tie_breaks: Sequence[str] = TIE_BREAKS,
    forfeit: str = "last",
    *,
    substitutes: bool = False,
) -> dict[str | None, list[Row]]:
    """``standings`` per division: player id -> division in ``divisions``; each division ranked on its own (head to
    head among its players only). Players without a division are ranked together under None. Divisions in the order
    they first appear in ``divisions``, None last."""
    _check(system, tie_breaks, forfeit)
    grouped: dict[str | None, list[Row]] = {name: [] for name in dict.fromkeys(divisions.values())}
    for row in _tally(games, system, forfeit, substitutes).values():
        row.division = divisions.get(row.player)
        grouped.setdefault(row.division, []).append(row)
    return {name: _rank(rows, tie_breaks) for name, rows in grouped.items() if rows}


@dataclass(frozen=True)
class Move:
    player: int
    source: str
    destination: str


def promotion_relegation(
    rows_by_division: Mapping[str, Sequence[Row]], n: int, order: Sequence[str] | None = None
) -> list[Move]:
    """Who changes division for the next season: ``order`` lists the divisions from the highest to the lowest
    (default: the mapping's order). The first ``n`` rows of every division but the highest move up one division,
    the last ``n`` rows of every division but the lowest move down one. Rows are taken in the standings' order (a tie
    across the cut is settled by that order). In a division of fewer than ``2 n`` players, promotion comes first and
    relegation takes only those left. Promotions first, then relegations, each from the highest division down."""
    if n < 0:
        raise ValueError("n must not be negative")
    names = list(order if order is not None else rows_by_division)
    promoted: list[Move] = []
    relegated: list[Move] = []
    for index, name in enumerate(names):
        rows = list(rows_by_division.get(name, ()))
        up = rows[:n] if index > 0 else []
        promoted.extend(Move(row.player, name, names[index - 1]) for row in up)
        if index < len(names) - 1:
            rest = rows[len(up) :]
            relegated.extend(Move(row.player, name, names[index + 1]) for row in rest[max(len(rest) - n, 0) :])
    return promoted + relegated


CSV_HEADER = (
    "rank",
    "player",
    "name",
    "division",
    "substitute",
    "games",
    "points",
    "wins",
    "victory_points",
    "average_place",
    "game_ids",
)


def _number(value: float | None) -> str:
    if value is None:
        return ""
    rounded = round(value, 4)
    return str(int(rounded)) if rounded == int(rounded) else repr(rounded)


def _cell(text: str) -> str:
    """A text a spreadsheet would read as a formula, kept as text."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def standings_csv(rows: Iterable[Row], names: Mapping[int, str] | None = None) -> str:
    """The standings as CSV (header ``CSV_HEADER``): numbers rounded to 4 decimals, game ids separated by spaces,
    ``name`` from ``names`` (empty without)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_HEADER)
    for row in rows:
        writer.writerow(
            (
                row.rank,
                row.player,
                _cell((names or {}).get(row.player, "")),
                _cell(row.division or ""),
                "yes" if row.substitute else "no",
                row.games,
                _number(row.points),
                row.wins,
                _number(row.victory_points),
                _number(row.average_place),
                " ".join(str(g) for g in row.game_ids),
            )
        )
    return out.getvalue()
