"""What happens to a deadline and to a seat that misses them: the rules the server applies and the estimate's
simulated games follow, as pure functions of plain values (no rows, no sessions). The server (``autopilot``,
``turns``, ``attendance.absences``) and ``estimate`` both call them, so a simulated game keeps the server's rules
(tests/server/test_policy.py plays the same windows through both).

- **The autopilot count** (``counted``): after a window closed, each person's public request defaulted adds one to
  their seat's count of missed deadlines in a row, one they answered themselves starts it again; requests asked in
  secret (B-INFO), answered by standing answers or by the autopilot, and votes closed as decided without them change
  nothing. The count reaching the game's ``autopilot_after`` (``after_of``; 0: never) puts the seat on autopilot.
- **Absences** (``absence_wait``, ``extended_for_absence``): with play hours, a window whose deadline passes while
  someone who owes an answer is absent from the session waits once more, until the short deadline of the next
  session (anyone at the table absent, in a window asked in secret); a declared absence in a game whose absences
  extend deadlines (``absence_mode``) moves the deadline of a window asking the player to the end of the absence,
  within the seat's budget in the game (``budget_of``).
- **The last call** (``last_called``, ``last_call_end``): once one player is left owing an answer, their deadline is
  brought forward to the end of the game's last call, shorter for a player who usually answers quickly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar

from ...models import TempoJSON
from .. import tempo as tempos
from ..tempo import PlayHours, Quiet, last_call_of

# --- the tempo's settings -------------------------------------------------------------------------------------------

#: public requests defaulted in a row that put a seat on autopilot, unless the game says otherwise.
AFTER = 2
#: what a declared absence does in a game: answer by autopilot, or extend the deadlines (within the budget).
ABSENCE_MODES = ("autopilot", "extend")
#: the deadline extension a seat's absences may use in one game, unless the game says otherwise.
BUDGET = int(timedelta(days=3).total_seconds())


def after_of(tempo: TempoJSON | None) -> int:
    """How many public requests defaulted in a row put a seat on autopilot (0: never)."""
    value = tempo.get("autopilot_after", AFTER) if tempo else AFTER
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else AFTER


def absence_mode(tempo: TempoJSON | None) -> str:
    value = tempo.get("absence") if tempo else None
    return value if value in ABSENCE_MODES else ABSENCE_MODES[0]


def budget_of(tempo: TempoJSON | None) -> int:
    """Seconds of deadline extension each seat's absences may use in the game."""
    value = tempo.get("absence_budget", BUDGET) if tempo else BUDGET
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else BUDGET


# --- the autopilot count --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Closed:
    """How a person's request ended when its window closed."""

    #: asked in secret (``engine.asked_in_secret``, B-INFO)
    secret: bool
    #: given the H-4 default at the deadline (not a vote closed as decided without it)
    defaulted: bool
    #: answered by the person themselves (not by a standing answer nor by the autopilot)
    own: bool


@dataclass(frozen=True)
class Count:
    #: the seat's public requests defaulted in a row
    missed: int
    #: the seat goes on autopilot now
    starts: bool


def counted(after: int, missed: int, flying: bool, request: Closed) -> Count:
    """A seat's count once ``request`` closed: ``missed`` before, ``after`` the game's ``after_of``, ``flying``
    whether the seat is on autopilot already. A request asked in secret neither counts nor resets: going on autopilot
    right after such a window would tell the table the player was asked in it."""
    if request.secret:
        return Count(missed, False)
    if request.defaulted:
        missed += 1
        return Count(missed, bool(after) and missed >= after and not flying)
    return Count(0 if request.own else missed, False)


# --- absences -------------------------------------------------------------------------------------------------------

Seat = TypeVar("Seat")


def absence_wait(
    hours: PlayHours | None,
    now: datetime,
    *,
    waited: bool,
    secret: bool,
    table: Iterable[Seat],
    owing: Iterable[Seat],
    absent: Callable[[Seat], bool],
    known: Callable[[Seat], bool],
) -> datetime | None:
    """With play ``hours``, when a window's short deadline has passed at ``now``: the deadline it waits until for
    the players absent from the session, None when it does not wait. It waits once (``waited``: it did already), for
    those still ``owing`` an answer; in a window asked in secret for anyone at the ``table`` (waiting only for the
    askeds would tell who was asked, B-INFO). A seat whose absence the table knows (``known``: on autopilot, or its
    player in a declared absence) is not waited for. ``absent`` is asked first, seat by seat, until one is waited
    for."""
    waiting = table if secret else owing
    if hours is None or waited or not any(absent(seat) and not known(seat) for seat in waiting):
        return None
    return hours.next_session_deadline(now)


def extended_for_absence(deadline: datetime, until: datetime, left: int) -> datetime:
    """In a game whose absences extend deadlines (never in a window asked in secret): the deadline of a window asking
    a player away until ``until``, moved to the end of the absence by at most ``left`` seconds (what the seat's budget
    in the game has left); never earlier."""
    return max(deadline, min(until, deadline + timedelta(seconds=max(left, 0))))


# --- the last call --------------------------------------------------------------------------------------------------

#: the player's latest answers of their own whose pace a last call counts.
PACES = 50


def last_called(tempo: TempoJSON, asked: int, left: int, *, secret: bool, opening: bool) -> bool:
    """Whether a last call is called, just after a person's answer to a window of ``asked`` requests (or,
    ``opening``, as it opens): when one request is ``left`` unanswered and the game has a last call; it calls the
    player who owes it. A window that opens asking one request only is its own last call (its turn mail is the call).
    Never in a window asked in secret: it would tell the last card holder that others were asked (B-INFO). A bot, and
    in the server a player whose deadline waits for the end of a declared absence, are not hurried: the caller leaves
    their deadline as it is."""
    return last_call_of(tempo) is not None and not secret and left == 1 and (asked == 1 or not opening)


def last_call_end(
    tempo: TempoJSON,
    now: datetime,
    deadline: datetime,
    quiet: Quiet | None,
    paces: Sequence[tuple[datetime, datetime]],
) -> datetime:
    """The deadline once the last call is called at ``now`` for the player with the ``quiet`` hours: the earlier of
    ``deadline`` and the end of the last call (``tempo.last_call_end``), shorter for one who answers quickly.
    ``paces``: when each request the player answered themselves in the game opened and when they answered it, oldest
    first (the latest ``PACES`` count)."""
    return tempos.last_call_end(tempo, now, deadline, quiet, paces[-PACES:])
