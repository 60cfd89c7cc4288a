"""How long a game will take: simulated games before it starts, and ``bench/tempo.py``'s
measurements.

The model (also ``MODEL``, said with every estimate):

- Every seat plays ``engine.bots.SensibleBot`` with the game's options; a bot's seat answers at once.
- A person sleeps in their quiet hours (their own time zone; 23:00-07:00 when they have none) and, while awake,
  checks their mail at random moments, exponential gaps of mean ``reading`` (3 h by default); they answer a request
  at the first check after it opens, except that they miss 5 % of requests entirely (the H-4 default is applied
  at the deadline: ``engine.Game.timeout``).
- They set the standing answers a careful player would: the victim order (H-5, kept by the engine itself), Security
  Camera "look" and weapons and Hidden "only if needed" (``engine.standing_answer``, asked for card requests); none
  for votes or Threat. A request a standing answer covers is answered when it opens.
- Channels: a person who has notifications on a device (push or a chat app, ``SimSeat.channel`` "push") is told
  when a request opens, or when their quiet hours end, and answers after an exponential delay of mean
  ``push_delay`` (30 minutes) while awake, or at their first mail check if sooner. A person still on the page a
  while after an answer (``linger``, ``bench/tempo.py --linger``; 0 in estimates) is handed the next request there
  at once (the live page) and answers it within a minute, missing none (it is in front of them), unless their quiet
  hours have begun (they went to bed).
- With play hours, each person is at a given day's session with probability 0.8; while there, they answer within
  5 minutes (uniform); outside sessions (and on days they miss) they read their mail as above.
- A window closes at the earliest of: every owed answer in; its deadline, from the server's own
  ``services.tempo.window_deadline`` with the quiet hours of those owing an answer (everyone's when being asked is
  a secret: ``tempo.deadline_quiet``, as the server); a vote decided (``engine.vote_decided`` on the answers in
  the order they arrive, unless ``close_decided_votes`` is off); the last call, once all but one have answered
  (``policy.last_called``). With play hours, a deadline that passes while someone who owes an answer is away from
  the session (and not on autopilot) moves once to the next session's (``policy.absence_wait``). These rules are
  ``policy``'s, which the server applies too (tests/server/test_policy.py plays the same windows through both).
- ``max_shift_hours``: the most a deadline was moved for quiet hours (the deadline against the same call without
  them).
- The autopilot, by ``policy.counted`` as the server: each person's public requests defaulted in a row
  are counted (requests asked in secret, ``engine.asked_in_secret``, neither count nor reset the count; nor do
  answers by standing answers or by the autopilot, nor votes closed as decided without them; an answer of their own
  starts it again); after ``policy.after_of(tempo)`` of them (0: never) the seat's later requests are answered
  when they open, by its standing answers or else the sensible bot's. The person reads the autopilot mail at their
  next mail check (or at a session they attend) and taps "I'm back": the autopilot ends from the next request on.
- ``vanish`` (``bench/tempo.py --vanish``): a person who, from a given round on, never answers, never comes to a
  session and never comes back from the autopilot (their standing answers still answer).

Speed: a live game (engine, SensibleBot, deadline code) costs 15-25 ms, so ``bench/tempo.py`` plays its games live
(exact: a defaulted answer changes the rest of the game, as on the server), while an estimate shown before a game
starts (``replay=True``) replays ``ESTIMATE_GAMES`` (100) games from a library of recorded engine games per player
count, options and standing answers (``_library``, recorded once per process on first use). In a replayed game a
defaulted answer does not change what follows (docs/PERFORMANCE.md, "Tempo").

The replayed games are ``RECORDED`` (20) distinct engine games, each replayed 5 times with its own timings of the
people (their mail checks, misses, sessions), so that the first estimate for any table the create page can ask for,
recording included, takes under a second (``bench/estimate.py``; docs/PERFORMANCE.md, "The estimate (issue 29)"):
recording costs 3-9 ms a game (3 to 6 players), a replay 1-3 ms. Before, it replayed 200 distinct games (2-7 s for a
first estimate, 0.5-3 s after). The price is a smaller sample of the engine's games: 20 games may be longer or
shorter than the engine's average (the 20 recorded are longer by chance, about 2 standard errors for 5 players), so
on the tables checked the median moved by -0.3 to +1.9 days (+0.5 on average) and the 90th percentile by -1.8 to
+3.8 days against 200 distinct games (themselves up to 0.7 day off the median of 1,000 games).
"""

from __future__ import annotations

import json
import random
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from functools import cached_property, lru_cache
from typing import TypedDict, cast

import engine
from engine import standing_answer, vote_decided
from engine.bots import SensibleBot
from engine.data import BY_VALUE, COLOURS
from engine.shapes import JSON, JSONObject

from ...models import TempoJSON
from ..errors import N_
from ..tempo import PlayHours, Quiet, closes_decided_votes, deadline_quiet, last_call_of, window_deadline
from . import policy

#: the standing answers of the model's careful player.
CAREFUL: JSONObject = {"victim": list(BY_VALUE), "camera": "look", "attack": "if_needed"}
#: games simulated for an estimate shown before a game starts; they replay ``RECORDED`` distinct engine games (a
#: replayed game draws its own timings of people, which make most of the spread of days).
ESTIMATE_GAMES = 100
RECORDED = 20
NIGHT = (time(23, 0), time(7, 0))

#: the model, said with every estimate (a msgid: pages translate it; ``model_text`` gives the English).
MODEL = N_(
    "%(games)s simulated games with sensible bots in every seat (%(recorded)s games of the rules engine, each played "
    "again with other timings of the people). Each person checks their mail at random moments "
    "while awake, on average every %(reading)s hours, answers at the first check, and misses 5%% of requests; they "
    "sleep in their quiet hours (23:00-07:00 in the organiser's time zone for players we do not know yet). They "
    "give the victim order, the Security Camera and weapons in attacks by standing answers, but not votes or "
    "Threat. In play hours, each is at a day's session with probability 0.8 and answers within 5 minutes. Players "
    "with notifications on a device are told at once and answer on average 30 minutes later while awake."
)


@dataclass(frozen=True)
class SimSeat:
    """A simulated seat: ``sleep`` is when the person reads no mail; ``quiet`` the quiet hours the server knows
    (for deadlines; None when they have none); a bot reads nothing and answers at once. ``vanishes``: the round
    from which the person never answers again (``bench/tempo.py --vanish``)."""

    sleep: Quiet | None = None
    quiet: Quiet | None = None
    bot: bool = False
    vanishes: int | None = None
    #: how the person is told of a request: "mail" (read at their mail checks) or "push" (told at once).
    channel: str = "mail"


@dataclass(frozen=True)
class Model:
    reading: float = 3 * 3600
    miss: float = 0.05
    session_miss: float = 0.2
    session_answer: float = 300
    standing: JSONObject = field(default_factory=lambda: dict(CAREFUL))
    #: the mean delay between a notification and the answer of a person told by push, while awake (seconds).
    push_delay: float = 30 * 60
    #: how long a person stays on the page after an answer (the next request is handed over there; seconds).
    linger: float = 0.0


@dataclass
class _Game:
    days: float
    windows: int
    asked: int
    #: people's requests given the H-4 default at a deadline (or a last call)
    defaulted: int
    #: people's votes not needed: the vote was decided without them
    skipped: int
    max_shift: float
    #: the last round the game reached (``engine.Game.round``; 0 for a replayed game recorded without it)
    rounds: int = 0
    #: seats put on autopilot in the game (the same seat again after coming back counts again)
    autopilots: int = 0
    #: with a seat that vanishes: when the person vanished, and when their seat went on autopilot (None: not before
    #: the end)
    vanished_at: datetime | None = None
    vanished_pilot_at: datetime | None = None


def person(zone: str, quiet: tuple[time, time] | None = NIGHT) -> SimSeat:
    """A person in ``zone`` with those quiet hours (also when they sleep)."""
    night = Quiet(zone, *(quiet or NIGHT))
    return SimSeat(sleep=night, quiet=None if quiet is None else night)


def simulate(
    seats: list[SimSeat],
    options: engine.OptionsJSON,
    tempo: TempoJSON,
    *,
    games: int,
    seed: int,
    start: datetime | Callable[[random.Random], datetime],
    model: Model | None = None,
    replay: bool = False,
) -> Figures:
    """``games`` simulated games (the model above): the figures of ``summary``. ``start`` is when each game starts
    (or draws it); deterministic for a seed. With ``replay``, the games are replayed from recorded ones
    (``_library``) rather than played by the engine as they go."""
    model = model or Model()
    rng = random.Random(seed)
    traces = _library(colours_of(len(seats)), options, model.standing, games) if replay else None
    played = []
    for i in range(games):
        at = start(rng) if callable(start) else start
        trace = None if traces is None else traces[i]
        played.append(play(seats, options, tempo, model, rng.randrange(2**31), at, trace=trace))
    return summary(played)


class Figures(TypedDict):
    """What ``simulate`` tells of its games (``summary``)."""

    games: int
    days_median: float
    days_p90: float
    windows_median: float
    defaulted_share: float
    votes_not_needed_share: float
    max_shift_hours: float


def summary(played: list[_Game]) -> Figures:
    """Median and 90th percentile days, median windows per game, the share of people's requests defaulted, and
    the largest quiet-hours shift of a deadline."""
    days = sorted(g.days for g in played)
    windows = [g.windows for g in played]
    asked = sum(g.asked for g in played)
    return {
        "games": len(played),
        "days_median": round(statistics.median(days), 2),
        "days_p90": round(_percentile(days, 0.9), 2),
        "windows_median": float(statistics.median(windows)),
        "defaulted_share": round(sum(g.defaulted for g in played) / max(asked, 1), 4),
        "votes_not_needed_share": round(sum(g.skipped for g in played) / max(asked, 1), 4),
        "max_shift_hours": round(max(g.max_shift for g in played), 2),
    }


def _percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass(frozen=True)
class _Window:
    """One window as the players meet it: its requests, each one's bot answer, and each one's standing answer
    (None: the player is asked)."""

    requests: list[engine.Request]
    values: list[JSON]
    auto: list[JSON]
    #: the round of the game the window belongs to (``engine.Game.round``)
    round: int = 0

    # what the window's requests tell, worked out once (a recorded window is replayed in many games)
    @cached_property
    def secrets(self) -> tuple[bool, ...]:
        """Each request asked in secret or not (``engine.asked_in_secret``)."""
        return tuple(engine.asked_in_secret(r) for r in self.requests)

    @cached_property
    def secret(self) -> bool:
        return any(self.secrets)

    @cached_property
    def kinds(self) -> list[str]:
        return [r.kind for r in self.requests]

    @cached_property
    def votes(self) -> bool:
        """Only votes (``vote_decided`` may close the window)."""
        return all(r.kind == "vote" for r in self.requests)


class _Live:
    """Windows of a game played by the engine as the simulation goes: a missing answer gets the H-4 default."""

    def __init__(
        self, colours: list[str], people: set[str], options: engine.OptionsJSON, seed: int, standing: JSONObject
    ):
        rng = random.Random(seed)
        self.eng = engine.new_game(colours, seed=seed, options=options)
        self.bots = {c: SensibleBot(rng.randrange(2**31)) for c in colours}
        self.people, self.standing = people, standing
        victim = standing.get("victim")
        if isinstance(victim, list) and victim:
            for c in sorted(people):
                self.eng.set_standing_order(c, [str(v) for v in victim])

    def next(self) -> _Window | None:
        eng = self.eng
        if eng.over:
            return None
        pending = eng.pending()
        values = [self.bots[r.player].decide(eng, r) for r in pending]
        auto = [
            standing_answer(engine.view(eng, r.player), r, self.standing)
            if r.kind == "cards" and r.player in self.people
            else None
            for r in pending
        ]
        return _Window(pending, values, auto, eng.round)

    def pilot(self, window: _Window, i: int) -> JSON:
        """The autopilot's answer to the window's ``i``-th request, as ``turns._automatic``: the person's standing
        answer (any kind: ``standing.answer_for``), else the sensible bot's. Asked while the window is open."""
        data = window.requests[i]
        chosen = window.auto[i]
        if chosen is None:
            chosen = standing_answer(engine.view(self.eng, data.player), data, self.standing)
        return window.values[i] if chosen is None else chosen

    def close(self, window: _Window, answers: JSONObject) -> None:
        for data in window.requests:
            colour, kind = data.player, data.kind
            if colour in answers:
                self.eng.answer(colour, kind, answers[colour])
            else:
                self.eng.timeout(colour, kind)


class _Replayed:
    """Windows of a recorded game (``_library``): the same whatever the answers (a default does not change it)."""

    def __init__(self, trace: list[_Window]):
        self.windows = iter(trace)

    def next(self) -> _Window | None:
        return next(self.windows, None)

    def pilot(self, window: _Window, i: int) -> JSON:
        """The autopilot's answer: the recorded standing answer, else the bot's."""
        return window.values[i] if window.auto[i] is None else window.auto[i]

    def close(self, window: _Window, answers: JSONObject) -> None:
        pass


def record(colours: list[str], options: engine.OptionsJSON, seed: int, standing: JSONObject) -> list[_Window]:
    """A whole game with every request answered (by its standing answer, else the bot's)."""
    live = _Live(colours, set(colours), options, seed, standing)
    trace = []
    while (window := live.next()) is not None:
        trace.append(window)
        answers = {
            data.player: value if auto is None else auto
            for data, value, auto in zip(window.requests, window.values, window.auto, strict=True)
        }
        live.close(window, answers)
    return trace


#: recorded games per (colours, options, standing), grown as estimates ask for more (a few option sets kept).
_LIBRARY: dict[str, list[list[_Window]]] = {}
_LIBRARY_KEYS = 8


def _library(colours: list[str], options: engine.OptionsJSON, standing: JSONObject, games: int) -> list[list[_Window]]:
    """``games`` recorded games for a replay: the first ``RECORDED`` of the library's, each replayed in turn as often
    as needed (each replay draws its own timings)."""
    key = json.dumps([colours, options, standing], sort_keys=True)
    traces = _LIBRARY.pop(key, [])
    while len(_LIBRARY) >= _LIBRARY_KEYS:  # the least recently used goes
        del _LIBRARY[next(iter(_LIBRARY))]
    _LIBRARY[key] = traces
    distinct = recorded_for(games)
    while len(traces) < distinct:
        traces.append(record(colours, options, 7919 * len(traces) + 1, standing))
    return [traces[i % distinct] for i in range(games)]


def colours_of(count: int) -> list[str]:
    return ["yellow", "red", "blue"] if count == 3 else list(COLOURS[:count])


@dataclass
class _Table:
    """The simulated players of one game, and what they do."""

    seats: dict[str, SimSeat]
    tempo: TempoJSON
    model: Model
    rng: random.Random
    #: (colour, session day) -> at that session or not (drawn once)
    present: dict[tuple[str, date], bool] = field(default_factory=dict)
    #: colour -> (opened, answered) of each request the person answered themselves (their pace, for last calls)
    answered: dict[str, list[tuple[datetime, datetime]]] = field(default_factory=dict)
    #: the people who have vanished by now (``SimSeat.vanishes``)
    gone: set[str] = field(default_factory=set)
    #: colour -> public requests defaulted in a row (``Seat.missed``)
    missed: dict[str, int] = field(default_factory=dict)
    #: colour -> (on autopilot since, back at: None for never) of each seat on autopilot now
    pilots: dict[str, tuple[datetime, datetime | None]] = field(default_factory=dict)
    #: the tempo's play hours, read once
    hours: PlayHours | None = field(init=False)
    #: the tempo's settings the windows ask about, read once: a last call, the autopilot's count, decided votes
    calls_last: bool = field(init=False)
    after: int = field(init=False)
    decided_votes: bool = field(init=False)

    def __post_init__(self) -> None:
        self.hours = PlayHours.of(self.tempo)
        self.calls_last = last_call_of(self.tempo) is not None
        self.after = policy.after_of(self.tempo)
        self.decided_votes = closes_decided_votes(self.tempo)

    @property
    def people(self) -> set[str]:
        return {c for c, seat in self.seats.items() if not seat.bot}

    def answer_at(self, colour: str, t: datetime, *, may_miss: bool = True) -> datetime | None:
        """When the person answers a request opened at ``t``: their first mail check (None: missed, unless not
        ``may_miss``), or in a session they attend, within minutes. Never once they have vanished."""
        if colour in self.gone:
            return None
        model, rng = self.model, self.rng
        mine = self.answered.get(colour) if model.linger else None
        if mine and _awake(self.seats[colour], t) and t <= mine[-1][1] + timedelta(seconds=model.linger):
            return t + timedelta(seconds=rng.uniform(5, 60))  # still on the page: handed over there, never missed
        missed = may_miss and rng.random() < model.miss
        seat = self.seats[colour]
        by_mail = None if missed else _next_check(seat.sleep, t, model.reading, rng)
        if by_mail is not None and seat.channel == "push":  # told at once (after their quiet hours), then a delay
            by_mail = min(by_mail, _next_check(seat.sleep, t, model.push_delay, rng))
        hours = self.hours
        if hours is None:
            return by_mail
        at = t
        for _ in range(8):  # the next sessions, a day each
            begin, end = _session_at(hours, at)
            if self.at_session(colour, begin):
                session = max(t, begin) + timedelta(seconds=rng.uniform(0, model.session_answer))
                if session < end:
                    return session if by_mail is None else min(by_mail, session)
            if by_mail is not None and by_mail < end:
                return by_mail
            at = end
        return by_mail

    def at_session(self, colour: str, begin: datetime) -> bool:
        """Whether the person comes to the session starting at ``begin`` (drawn once; never once vanished)."""
        if colour in self.gone:
            return False
        day = (colour, begin.date())
        if day not in self.present:
            self.present[day] = self.rng.random() >= self.model.session_miss
        return self.present[day]

    def absent(self, colour: str, deadline: datetime) -> bool:
        """Whether the person is away from the session of play hours that ``deadline`` falls in (the server: not on
        their page since the window opened; a person at the session answers within minutes)."""
        session = None if self.hours is None else self.hours.session_at(deadline)
        return session is not None and not self.seats[colour].bot and not self.at_session(colour, session[0])

    def vanish(self, window: _Window) -> list[str]:
        """The people who vanish as ``window`` opens (their round has come)."""
        now = [
            c
            for c, seat in self.seats.items()
            if seat.vanishes is not None and c not in self.gone and window.round >= seat.vanishes
        ]
        self.gone.update(now)
        return now

    def flying(self, t: datetime) -> set[str]:
        """The seats on autopilot for requests opening at ``t``; those back by then are off it, their count
        starting again (``autopilot.back``)."""
        for colour, (_, back) in list(self.pilots.items()):
            if back is not None and back <= t and colour not in self.gone:
                del self.pilots[colour]
                self.missed[colour] = 0
        return set(self.pilots)

    def count(self, window: _Window, answers: JSONObject, own: set[int], why: str, at: datetime) -> list[str]:
        """After ``window`` closed at ``at``, each person's count of missed deadlines (``policy.counted``, as
        ``autopilot.count_missed``): a request not answered is defaulted unless the window closed as a vote decided
        (``why``); ``own``: the indices of the requests the person answered themselves. Returns the seats put on
        autopilot."""
        after = self.after
        started = []
        for i, data in enumerate(window.requests):
            colour = data.player
            if self.seats[colour].bot:
                continue
            closed = policy.Closed(
                secret=window.secrets[i],
                defaulted=colour not in answers and why != "decided",
                own=colour in answers and i in own,
            )
            count = policy.counted(after, self.missed.get(colour, 0), colour in self.pilots, closed)
            self.missed[colour] = count.missed
            if count.starts:
                # the autopilot mail is read at the next check, and "I'm back" tapped (never, once vanished)
                back = None if colour in self.gone else self.answer_at(colour, at, may_miss=False)
                self.pilots[colour] = (at, back)
                started.append(colour)
        return started

    def paces(
        self,
        arrivals: list[tuple[datetime, int, str, JSON]],
        answers: JSONObject,
        own: set[int],
        opened: datetime,
        close: datetime,
    ) -> None:
        """After a window opened at ``opened`` closed at ``close``: the pace of each answer the person gave themselves
        (``own``: indices) in it, for their last calls."""
        for at, i, colour, _ in arrivals:
            if opened < at <= close and colour in answers and i in own:
                self.answered.setdefault(colour, []).append((opened, at))

    def wait_for_absent(self, window: _Window, answers: JSONObject, close: datetime) -> datetime | None:
        """With play hours, the deadline ``window``, whose deadline passed at ``close``, waits until for those absent
        from the session (``policy.absence_wait``, as ``turns._wait_for_absent``); None when it does not wait."""
        if self.hours is None:  # (``policy.absence_wait``: never without play hours)
            return None
        return policy.absence_wait(
            self.hours,
            close,
            waited=False,
            secret=window.secret,
            table=self.seats,
            owing=[r.player for r in window.requests if r.player not in answers],
            absent=lambda colour: self.absent(colour, close),
            known=lambda colour: colour in self.pilots,
        )

    def arrivals(
        self, window: _Window, t: datetime, pilot: dict[int, JSON] | None = None
    ) -> list[tuple[datetime, int, str, JSON]]:
        """Each answer that comes, when (a standing answer, the autopilot's (``pilot``: by index) or a bot's at
        once), in the order they arrive."""
        out: list[tuple[datetime, int, str, JSON]] = []
        pilot = pilot or {}
        for i, (data, value, auto) in enumerate(zip(window.requests, window.values, window.auto, strict=True)):
            colour = data.player
            if i in pilot:
                out.append((t, i, colour, pilot[i]))
            elif self.seats[colour].bot or auto is not None:
                out.append((t, i, colour, value if auto is None else auto))
            elif (at := self.answer_at(colour, t)) is not None:
                out.append((at, i, colour, value))
        return sorted(out, key=lambda a: (a[0], a[1]))

    def close(
        self, window: _Window, arrivals: list[tuple[datetime, int, str, JSON]], opened: datetime, deadline: datetime
    ) -> tuple[datetime, JSONObject, str]:
        """When ``window``, opened at ``opened``, closes, the answers in by then, and why: "all", "decided" (a vote),
        or "deadline" (the deadline or a last call)."""
        # as services.play.turns: a last call may be called when the window opens, and by a person's answer
        requests, secret = window.requests, window.secret
        vote = self.decided_votes and window.votes
        close = self.last_call(requests, {}, opened, deadline, secret=secret, opening=True)
        answers: JSONObject = {}
        for at, _, colour, value in arrivals:
            if at >= close:
                break
            answers[colour] = value
            if len(answers) == len(requests):
                return at, answers, "all"
            if vote and vote_decided(requests, cast(dict[str, str], answers)):  # (a vote's answers are colours)
                return at, answers, "decided"
            if at > opened:
                close = self.last_call(requests, answers, at, close, secret=secret, opening=False)
        return close, answers, "deadline"

    def last_call(
        self,
        requests: list[engine.Request],
        answers: JSONObject,
        at: datetime,
        deadline: datetime,
        *,
        secret: bool,
        opening: bool,
    ) -> datetime:
        """The deadline once ``answers`` are in at ``at`` (or the window opened, ``opening``): brought forward by a
        last call (``policy.last_called``, ``policy.last_call_end``; none for a bot)."""
        if not self.calls_last:  # (``policy.last_called``: never without one)
            return deadline
        left = [r.player for r in requests if r.player not in answers]
        if not policy.last_called(self.tempo, len(requests), len(left), secret=secret, opening=opening):
            return deadline
        seat = self.seats[left[0]]
        if seat.bot:
            return deadline
        return policy.last_call_end(self.tempo, at, deadline, seat.quiet, self.answered.get(left[0], []))


def play(
    seats: list[SimSeat],
    options: engine.OptionsJSON,
    tempo: TempoJSON,
    model: Model,
    seed: int,
    start: datetime,
    *,
    trace: list[_Window] | None = None,
    shifts: bool = False,
) -> _Game:
    """One game from ``start``: played live by the engine, or replayed from ``trace``. The quiet-hours deadline
    of a window is computed when it matters (the window would not close before the deadline without it), or for
    every window with ``shifts`` (to measure ``max_shift``)."""
    colours = colours_of(len(seats))
    table = _Table(dict(zip(colours, seats, strict=True)), tempo, model, random.Random(seed))
    people = table.people
    game: _Live | _Replayed = (
        _Live(colours, people, options, seed, model.standing) if trace is None else _Replayed(trace)
    )
    t = start
    asked = defaulted = skipped = windows = rounds = autopilots = 0
    max_shift = 0.0
    vanished_at = vanished_pilot_at = None
    vanishing = any(seat.vanishes is not None for seat in seats)
    quiet_for = {c: seat.quiet for c, seat in table.seats.items()}.get
    while (window := game.next()) is not None:
        requests = window.requests
        windows += 1
        rounds = max(rounds, window.round)
        if vanishing and (gone := table.vanish(window)):
            vanished_at = t
            vanished_pilot_at = t if table.pilots.keys() & set(gone) else None  # on autopilot already
        flying = table.flying(t) if table.pilots else set()
        pilot = {i: game.pilot(window, i) for i, r in enumerate(requests) if r.player in flying} if flying else {}
        quiet = deadline_quiet(requests, colours, quiet_for)  # as the server
        kinds = window.kinds
        plain = window_deadline(t, kinds, tempo, [])  # quiet hours only ever move a deadline later
        arrivals = table.arrivals(window, t, pilot)
        close, answers, why = table.close(window, arrivals, t, plain)
        if quiet and (shifts or close >= plain):  # the deadline matters (or is measured): the server's, in full
            deadline = window_deadline(t, kinds, tempo, quiet)
            max_shift = max(max_shift, (deadline - plain).total_seconds() / 3600)
            close, answers, why = table.close(window, arrivals, t, deadline)
        if why == "deadline" and (waits := table.wait_for_absent(window, answers, close)) is not None:
            close, answers, why = table.close(window, arrivals, t, waits)
        owed = [r.player for r in requests if r.player in people]
        missing = sum(c not in answers for c in owed)
        asked += len(owed)
        if why == "decided":
            skipped += missing
        else:
            defaulted += missing
        own = {i for _, i, colour, _ in arrivals if colour in people and window.auto[i] is None and i not in pilot}
        table.paces(arrivals, answers, own, t, close)
        started = table.count(window, answers, own, why, close)
        autopilots += len(started)
        if vanished_at is not None and vanished_pilot_at is None and table.gone.intersection(started):
            vanished_pilot_at = close
        game.close(window, answers)
        t = max(close, t)
    return _Game(
        (t - start).total_seconds() / 86400,
        windows,
        asked,
        defaulted,
        skipped,
        max_shift,
        rounds,
        autopilots,
        vanished_at,
        vanished_pilot_at,
    )


def _next_check(sleep: Quiet | None, t: datetime, mean: float, rng: random.Random) -> datetime:
    """The first mail check after ``t``: checks come at exponential gaps while awake (a Poisson process stopped
    during the night: memoryless, so a night simply restarts the wait)."""
    while True:
        if sleep is not None and (woken := sleep.end_of_quiet(t)) is not None:
            t = woken
        check = t + timedelta(seconds=rng.expovariate(1 / mean))
        falls_asleep = None if sleep is None else sleep.next_start(t)
        if falls_asleep is None or check < falls_asleep:
            return check
        t = falls_asleep


def _awake(seat: SimSeat, t: datetime) -> bool:
    """Whether the person is out of their sleeping hours at ``t``."""
    return seat.sleep is None or seat.sleep.end_of_quiet(t) is None


@lru_cache(maxsize=4096)
def _session_at(hours: PlayHours, t: datetime) -> tuple[datetime, datetime]:
    """The play-hours session ``t`` is in, or else the next one: its start and end. Cached (a pure function of
    values): every person asked in a window asks it for the window's opening, and again for the same session ends."""
    session = hours.session_at(t) or hours.session_at(hours.next_start(t))
    assert session is not None
    return session


def seats_for(zones: Iterable[tuple[str, tuple[time, time] | None] | None]) -> list[SimSeat]:
    """Seats from (zone, quiet hours or None) per person, None for a bot."""
    return [SimSeat(bot=True) if z is None else person(z[0], z[1]) for z in zones]


def hours_text(seconds: float) -> str:
    return f"{seconds / 3600:g}"


def recorded_for(games: int) -> int:
    """The distinct engine games an estimate of ``games`` replays (``_library``)."""
    return min(games, RECORDED)


def model_text(games: int, reading: float) -> str:
    return MODEL % {"games": games, "recorded": recorded_for(games), "reading": hours_text(reading)}
