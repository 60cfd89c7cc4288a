"""Fixtures: the tables of one league round. Pure: no database, no I/O; the caller passes who is
available, who met whom this season and who declared they know each other, and stores the tables it gets back.

**Table sizes** (``table_sizes``): every table seats 3 to 6 players. Of all the ways to write the number of available
players as a sum of table sizes, the rule takes the one with the most tables of the league's size, then the smallest
total distance of the other tables from that size, then the fewest tables. With the size 5: 600 players are 120 tables
of 5, 601 are 119 of 5 and one of 6, 602 are 119 of 5, one of 4 and one of 3, 7 are 4 + 3, 12 are 5 + 4 + 3. Fewer
than 3 available players cannot be seated: ``FixturesError(TOO_FEW)``.

**Other splits** (``splits``): when the search cannot keep the declared acquaintances apart at those tables (six
players at one table of 6, a pair among them), ``seat`` tries the other ways to split a round of up to ``SMALL``
players into tables of 3 to 6 (``MAX_SPLITS`` of them, in the order of the same rule) and keeps, of the seatings that
keep every acquaintance apart, the one with the fewest repeat meetings, then the earliest split: six players with a
pair sit 3 + 3. Only when no split keeps them apart is the round refused (``APART``).

**Objective** (``cost``, smaller is better), summed over the tables::

    FORBIDDEN x (pairs of declared acquaintances at the table)
    + REPEAT x (earlier meetings of each pair at the table, this season)
    + (24 - the hours of the reference day, in UTC, in which every player at the table is awake)

Declared acquaintances are never seated together in ranked play: a seating that still has such a pair after the
search is refused (``FixturesError(APART)``). ``REPEAT`` (100) is larger than the most awake-hours a swap of two
players can change (2 tables x 24 h), so the search never accepts a repeat meeting to gain overlapping hours: repeats
first, awake hours second. The awake hours: a player's quiet hours (``start``, ``end`` local wall times, which may
wrap past midnight) in their IANA zone are laid on the 24 hours of ``Round.day`` (UTC); hour ``h`` counts as awake
when ``h:30`` UTC falls outside the quiet hours (daylight saving as on that day). A player without quiet hours is awake
all day.

**Search** (``seat``): greedy, then local search by swaps. The greedy start takes the players with the most declared
acquaintances first, the others in an order drawn from ``Round.seed``, and puts each at the open table where it adds the
least to the objective. The local search then visits every player in a drawn order and makes the best swap with a player
of another table that lowers the objective: against every other player when the player's table holds a repeat or an
acquaintance of theirs (or when the round is small: up to ``SMALL`` players), otherwise against ``SAMPLE`` players drawn
at random; it repeats these passes until one changes nothing, after ``MAX_PASSES``, or after ``BUDGET`` swaps weighed (a
bound on the time: about 1 s on the bench's machine, reached only when repeats cannot be avoided). Small rounds are
searched from several greedy starts (``max(1, min(8, 240 // players))``, a new draw each; or ``restarts``) and the best
kept. Everything is drawn from one ``random.Random(seed)``: the same round and seed give the same tables. ``exact``
enumerates every seating (up to ``EXACT_LIMIT`` players) for the tests to compare with; ``seat`` enumerates too when
its search leaves acquaintances together in a round of at most ``EXACT_LIMIT`` players, so a small round is refused
(``APART``) only when no seating keeps them apart.

``swap`` is the organiser's "swap two players" on a previewed round.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from itertools import combinations
from zoneinfo import ZoneInfo

from ..errors import N_, ShownError

__all__ = [
    "APART",
    "SWAP_ACQUAINTED",
    "TOO_FEW",
    "UNSEATED",
    "Available",
    "FixturesError",
    "Round",
    "Score",
    "awake_hours",
    "exact",
    "score",
    "seat",
    "splits",
    "swap",
    "table_sizes",
]

MIN_TABLE, MAX_TABLE = 3, 6
FORBIDDEN = 1_000_000
REPEAT = 100
HOURS = 24
ALL_DAY = (1 << HOURS) - 1
SMALL = 60
SAMPLE = 24
MAX_PASSES = 12
BUDGET = 800_000
EXACT_LIMIT = 12
#: the other splits of a round into table sizes ``seat`` tries when acquaintances cannot sit apart (``splits``).
MAX_SPLITS = 8

TOO_FEW = N_("A round needs at least 3 available players; %(count)s are available.")
APART = N_("The players who declared that they know each other cannot all sit at different tables: nothing was seated.")
SWAP_ACQUAINTED = N_("These two players cannot be swapped: one of them would sit with someone they declared they know.")
UNSEATED = N_("Only players seated in this round can be swapped.")
SIZE = N_("A table seats 3 to 6 players.")

PlayerId = Hashable
Pair = frozenset[PlayerId] | tuple[PlayerId, PlayerId]


class FixturesError(ShownError):
    """The round cannot be seated (or the swap made) as asked; nothing was changed."""


@dataclass(frozen=True)
class Available:
    """A player available for the round: their id, and their quiet hours (local start, end) in ``zone``, or None."""

    id: PlayerId
    quiet: tuple[time, time] | None = None
    zone: str = "UTC"


@dataclass(frozen=True)
class Round:
    """What ``seat`` needs: the available players, the league's table size, how often each pair met this season
    (keyed by a frozenset or a tuple of two ids), the declared acquaintances, the seed, and the UTC day whose hours
    score the awake overlap (the round's start)."""

    players: Sequence[Available]
    size: int = 5
    met: Mapping[Pair, int] = field(default_factory=dict)
    acquainted: Iterable[Pair] = ()
    seed: int = 0
    day: date = date(2026, 1, 14)


@dataclass(frozen=True)
class Score:
    """A seating's figures: acquainted pairs seated together, repeat meetings, the awake hours shared by each table."""

    acquainted: int
    repeats: int
    awake: tuple[int, ...]

    @property
    def cost(self) -> int:
        return FORBIDDEN * self.acquainted + REPEAT * self.repeats + sum(HOURS - hours for hours in self.awake)


def table_sizes(count: int, size: int = 5) -> list[int]:
    """The sizes of the tables for ``count`` players, the league's ``size`` preferred (the module's rule), largest
    first."""
    if not MIN_TABLE <= size <= MAX_TABLE:
        raise FixturesError(SIZE)
    if count < MIN_TABLE:
        raise FixturesError(TOO_FEW, count=count)
    others = [s for s in range(MIN_TABLE, MAX_TABLE + 1) if s != size]
    for preferred in range(count // size, -1, -1):
        rest = _fill(count - preferred * size, size, tuple(others))
        if rest is not None:
            return sorted([size] * preferred + list(rest), reverse=True)
    raise AssertionError("every count of 3 or more is a sum of table sizes")  # pragma: no cover


@cache
def _fill(rest: int, size: int, others: tuple[int, ...]) -> tuple[int, ...] | None:
    """``rest`` players at tables of the ``others`` sizes: the least total distance from ``size``, then the fewest
    tables; None when impossible."""
    if rest == 0:
        return ()
    best: tuple[int, ...] | None = None
    for s in others:
        if s <= rest and (tail := _fill(rest - s, size, others)) is not None:
            candidate = (s, *tail)
            if best is None or _key(candidate, size) < _key(best, size):
                best = candidate
    return best


def _key(sizes: tuple[int, ...], size: int) -> tuple[int, int, tuple[int, ...]]:
    return sum(abs(s - size) for s in sizes), len(sizes), tuple(sorted(sizes, reverse=True))


def splits(count: int, size: int = 5) -> list[list[int]]:
    """The ways to seat ``count`` players at tables of 3 to 6 (largest first): ``table_sizes`` first, then up to
    ``MAX_SPLITS`` others in the order of the same rule (the most tables of ``size``, the least distance of the
    others from it, the fewest tables); only the preferred one for a round of more than ``SMALL`` players."""
    preferred = table_sizes(count, size)
    if count > SMALL:
        return [preferred]
    found: list[tuple[int, ...]] = []
    for sixes in range(count // 6 + 1):
        for fives in range((count - 6 * sixes) // 5 + 1):
            for fours in range((count - 6 * sixes - 5 * fives) // 4 + 1):
                threes, left = divmod(count - 6 * sixes - 5 * fives - 4 * fours, 3)
                if not left:
                    found.append((6,) * sixes + (5,) * fives + (4,) * fours + (3,) * threes)
    others = sorted(
        (list(f) for f in found if list(f) != preferred),
        key=lambda f: (-f.count(size), *_key(tuple(s for s in f if s != size), size)),
    )
    return [preferred, *others[:MAX_SPLITS]]


@cache
def awake_hours(quiet: tuple[time, time] | None, zone: str, day: date) -> int:
    """The hours of ``day`` (UTC) in which the player is awake, as a 24-bit mask (bit ``h``: ``h:30`` UTC)."""
    if quiet is None or quiet[0] == quiet[1]:
        return ALL_DAY
    start, end = quiet
    where = ZoneInfo(zone)
    mask = 0
    noon = datetime(day.year, day.month, day.day, tzinfo=UTC)
    for hour in range(HOURS):
        clock = (noon + timedelta(hours=hour, minutes=30)).astimezone(where).time()
        asleep = start <= clock < end if start < end else clock >= start or clock < end
        if not asleep:
            mask |= 1 << hour
    return mask


class _Problem:
    """The round by index: ``weight[i][j]`` the objective's weight of seating i with j, ``mask[i]`` i's awake hours."""

    def __init__(self, rnd: Round) -> None:
        ids = [p.id for p in rnd.players]
        if len(set(ids)) != len(ids):
            raise ValueError("a player is listed twice")
        self.ids = ids
        self.size = rnd.size
        #: the table sizes being searched (``table_sizes``; another of ``splits`` when acquaintances need it).
        self.sizes = table_sizes(len(ids), rnd.size)
        index = {pid: i for i, pid in enumerate(ids)}
        self.weight: list[dict[int, int]] = [{} for _ in ids]
        self.degree = [0] * len(ids)
        for pair, times in rnd.met.items():
            self._add(index, pair, REPEAT * times)
        for pair in rnd.acquainted:
            if self._add(index, pair, FORBIDDEN):
                for pid in pair:
                    self.degree[index[pid]] += 1
        self.mask = [awake_hours(p.quiet, p.zone, rnd.day) for p in rnd.players]

    def _add(self, index: dict[PlayerId, int], pair: Pair, amount: int) -> bool:
        a, b = tuple(pair)
        if a not in index or b not in index or a == b or amount <= 0:
            return False
        i, j = index[a], index[b]
        self.weight[i][j] = self.weight[i].get(j, 0) + amount
        self.weight[j][i] = self.weight[j].get(i, 0) + amount
        return True

    def counts(self, tables: Sequence[Sequence[int]]) -> tuple[int, int]:
        """The pairs of acquaintances seated together and the repeat meetings of a seating (by index)."""
        together = repeats = 0
        for table in tables:
            for a, b in combinations(table, 2):
                w = self.weight[a].get(b, 0)
                together += w // FORBIDDEN
                repeats += (w % FORBIDDEN) // REPEAT
        return together, repeats

    def table_cost(self, table: Sequence[int]) -> int:
        together = sum(self.weight[a].get(b, 0) for a, b in combinations(table, 2))
        mask = ALL_DAY
        for p in table:
            mask &= self.mask[p]
        return together + HOURS - mask.bit_count()


def seat(rnd: Round, *, restarts: int | None = None) -> list[list[PlayerId]]:
    """The tables of the round (ids, each table in the order of ``rnd.players``, tables largest first), by the
    module's greedy start and local search, at the preferred table sizes or, when acquaintances cannot sit apart
    there, at another split (``splits``). Raises ``FixturesError`` (TOO_FEW, SIZE, APART)."""
    problem = _Problem(rnd)
    rng = random.Random(rnd.seed)
    runs = restarts if restarts is not None else max(1, min(8, 240 // len(problem.ids)))
    tables = _best_split(problem, lambda: _searched(problem, rng, runs))
    if problem.counts(tables)[0] and len(problem.ids) <= EXACT_LIMIT:
        # the swaps can miss the one split that keeps acquaintances apart (7 players at 4 + 3 with 5 pairs): a
        # small round is then enumerated (at most a quarter of a second at 12 players)
        tables = _best_split(problem, lambda: _enumerated(problem))
    return _finish(problem, tables)


def _searched(problem: _Problem, rng: random.Random, runs: int) -> list[list[int]]:
    """The best of ``runs`` greedy starts and local searches at ``problem.sizes``."""
    best: tuple[int, list[list[int]]] | None = None
    for _ in range(runs):
        search = _Search(problem, rng)
        search.improve()
        total = sum(problem.table_cost(t) for t in search.tables)
        if best is None or total < best[0]:
            best = (total, [list(t) for t in search.tables])
        if total == 0:
            break  # nothing left to gain
    assert best is not None
    return best[1]


def _best_split(problem: _Problem, search: Callable[[], list[list[int]]]) -> list[list[int]]:
    """``search``'s seating at the preferred sizes; when it seats acquaintances together, the seating of each other
    split (``splits``) too, and of those that keep them apart the one with the fewest repeats, then the earliest."""
    candidates = splits(len(problem.ids), problem.size)
    best: tuple[tuple[int, int, int], list[list[int]]] | None = None
    for rank, sizes in enumerate(candidates):
        problem.sizes = sizes
        tables = search()
        together, repeats = problem.counts(tables)
        if best is None or (together, repeats, rank) < best[0]:
            best = ((together, repeats, rank), tables)
        if best[0][0] == 0 and rank == 0:
            break  # the preferred split keeps everyone apart
    assert best is not None
    problem.sizes = [len(t) for t in best[1]]
    return best[1]


def _finish(problem: _Problem, tables: list[list[int]]) -> list[list[PlayerId]]:
    for table in tables:
        if any(problem.weight[a].get(b, 0) >= FORBIDDEN for a, b in combinations(table, 2)):
            raise FixturesError(APART)
    ordered = sorted((sorted(t) for t in tables), key=lambda t: (-len(t), t[0]))
    return [[problem.ids[i] for i in t] for t in ordered]


class _Search:
    """One greedy start and its local search; ``own[i]`` is the weight between i and the rest of i's table."""

    def __init__(self, problem: _Problem, rng: random.Random) -> None:
        self.p = problem
        self.rng = rng
        n = len(problem.ids)
        order = list(range(n))
        rng.shuffle(order)
        order.sort(key=lambda i: -problem.degree[i])  # stable: the drawn order among equals
        self.tables: list[list[int]] = [[] for _ in problem.sizes]
        self.tmask = [ALL_DAY] * len(problem.sizes)
        self.pos = [0] * n
        self._seated: set[int] = set()
        for i in order:
            self._place(i)
        self.own = [0] * n
        self.rest = [0] * n
        for t in range(len(self.tables)):
            self._refresh(t)

    def _place(self, i: int) -> None:
        weight, mine = self.p.weight[i], self.p.mask[i]
        near: dict[int, int] = {}
        for j, w in weight.items():
            if j in self._seated:
                near[self.pos[j]] = near.get(self.pos[j], 0) + w
        best, best_cost = -1, 0
        for t, table in enumerate(self.tables):
            if len(table) < self.p.sizes[t]:
                mask = self.tmask[t]
                cost = near.get(t, 0) + mask.bit_count() - (mask & mine).bit_count()
                if best < 0 or cost < best_cost:
                    best, best_cost = t, cost
        self.tables[best].append(i)
        self.tmask[best] &= mine
        self.pos[i] = best
        self._seated.add(i)

    def _refresh(self, t: int) -> None:
        table, masks, weight = self.tables[t], self.p.mask, self.p.weight
        total = ALL_DAY
        for i in table:
            total &= masks[i]
        self.tmask[t] = total
        for i in table:
            rest, own, mine = ALL_DAY, 0, weight[i]
            for j in table:
                if j != i:
                    rest &= masks[j]
                    own += mine.get(j, 0)
            self.rest[i], self.own[i] = rest, own

    def _gain(self, a: int, b: int) -> int:
        """How much the objective falls when a and b (at different tables) change places."""
        A, B = self.pos[a], self.pos[b]
        wa, wb = self.p.weight[a], self.p.weight[b]
        after = 0
        if wa:
            after += sum(wa.get(x, 0) for x in self.tables[B] if x != b)
        if wb:
            after += sum(wb.get(x, 0) for x in self.tables[A] if x != a)
        ma, mb = self.p.mask[a], self.p.mask[b]
        hours_before = self.tmask[A].bit_count() + self.tmask[B].bit_count()
        hours_after = (self.rest[b] & ma).bit_count() + (self.rest[a] & mb).bit_count()
        return self.own[a] + self.own[b] - after + hours_after - hours_before

    def improve(self) -> None:
        n = len(self.p.ids)
        everyone = list(range(n))
        self.evaluated = 0
        for _ in range(MAX_PASSES):
            changed = False
            order = everyone[:]
            self.rng.shuffle(order)
            for a in order:
                if self.evaluated >= BUDGET:
                    return
                if n <= SMALL or self.own[a]:
                    candidates: Iterable[int] = everyone
                else:
                    candidates = (self.rng.randrange(n) for _ in range(SAMPLE))
                best, best_gain = -1, 0
                A = self.pos[a]
                for b in candidates:
                    if self.pos[b] != A:
                        self.evaluated += 1
                        if (gain := self._gain(a, b)) > best_gain:
                            best, best_gain = b, gain
                if best >= 0:
                    self._swap(a, best)
                    changed = True
            if not changed:
                return

    def _swap(self, a: int, b: int) -> None:
        A, B = self.pos[a], self.pos[b]
        self.tables[A][self.tables[A].index(a)] = b
        self.tables[B][self.tables[B].index(b)] = a
        self.pos[a], self.pos[b] = B, A
        self._refresh(A)
        self._refresh(B)


def score(rnd: Round, tables: Sequence[Sequence[PlayerId]]) -> Score:
    """The figures of a seating of ``rnd`` (any seating, not only ``seat``'s)."""
    problem = _Problem(rnd)
    index = {pid: i for i, pid in enumerate(problem.ids)}
    members = [[index[pid] for pid in table] for table in tables]
    awake = []
    for table in members:
        mask = ALL_DAY
        for i in table:
            mask &= problem.mask[i]
        awake.append(mask.bit_count())
    return Score(*problem.counts(members), tuple(awake))


def exact(rnd: Round) -> list[list[PlayerId]]:
    """The best seating by the same objective and splits, by enumerating them all (up to ``EXACT_LIMIT``
    players; for tests). Raises ``FixturesError(APART)`` when every seating puts acquaintances together."""
    problem = _Problem(rnd)
    n = len(problem.ids)
    if n > EXACT_LIMIT:
        raise ValueError(f"exact is for at most {EXACT_LIMIT} players")
    return _finish(problem, _best_split(problem, lambda: _enumerated(problem)))


def _enumerated(problem: _Problem) -> list[list[int]]:
    best: tuple[int, list[list[int]]] | None = None
    for tables in _partitions(list(range(len(problem.ids))), sorted(problem.sizes)):
        total = sum(problem.table_cost(t) for t in tables)
        if best is None or total < best[0]:
            best = (total, tables)
    assert best is not None
    return best[1]


def _partitions(people: list[int], sizes: list[int]) -> Iterator[list[list[int]]]:
    """Every split of ``people`` into tables of ``sizes``, each once: the first person goes to a table of each distinct
    size in turn, with every choice of the others at it."""
    if not people:
        yield []
        return
    first, others = people[0], people[1:]
    for size in sorted(set(sizes)):
        left = sizes[:]
        left.remove(size)
        for mates in combinations(others, size - 1):
            taken = set(mates)
            rest = [p for p in others if p not in taken]
            for tail in _partitions(rest, left):
                yield [[first, *mates], *tail]


def swap(
    tables: Sequence[Sequence[PlayerId]], first: PlayerId, second: PlayerId, acquainted: Iterable[Pair] = ()
) -> list[list[PlayerId]]:
    """The organiser's swap of two players of a previewed round: the new tables (the given ones are not changed).
    Refuses a player not seated (UNSEATED) and a swap that seats declared acquaintances together (SWAP_ACQUAINTED)."""
    new = [list(t) for t in tables]
    where = {pid: (t, k) for t, table in enumerate(new) for k, pid in enumerate(table)}
    if first not in where or second not in where:
        raise FixturesError(UNSEATED)
    (ta, ka), (tb, kb) = where[first], where[second]
    new[ta][ka], new[tb][kb] = second, first
    if ta != tb:
        known = {frozenset(pair) for pair in acquainted}
        for t in (ta, tb):
            if any(frozenset(pair) in known for pair in combinations(new[t], 2)):
                raise FixturesError(SWAP_ACQUAINTED)
    return new
