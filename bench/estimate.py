"""The estimate on the organiser's create page: seconds per estimate, first call in a fresh process included, as one
JSON object (issue 29: at most 1 s at p95 for any table the create page can ask for).

    python bench/estimate.py [--repeats 3] [--tables all|NAME,NAME] [--tiny]

For each table (3 to 6 players; the default rules and each non-default choice the form offers, a first chief, other
weapons; no preset, each preset, custom tempos with a last call, play hours in another zone, no quiet hours, votes
waiting for every voter, no autopilot; bots and people) a fresh Python process (a subprocess, as a web worker just
started) imports the server, opens a throw-away SQLite database (its tables made once, by this process) and times
``services.play.games.estimate_game`` as the create page calls it: the first call (``first_s``: recording the
engine games of the library included), then ``--repeats`` more calls of the same table (``again_s``). Reported:
p50, p95 and max of the first calls over the tables and of all later calls, each table's seconds and figures, the
games simulated, and the machine's load (``os.getloadavg``) before and after. Timings are wall-clock seconds inside
the subprocess (its imports are not counted: a web worker imported everything before its first request).

``PYTHONPATH`` chooses the checkout measured (this file may be copied into another one: it imports whichever
``server`` comes first on the path). ``--tiny``: three tables, one repeat (CI).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/estimate.py` from a checkout: after PYTHONPATH, which may choose another
    sys.path.append(str(ROOT))

PEOPLE = [f"P{i} <p{i}@example.org>" for i in range(6)]
CUSTOM = {"deadlines": ["6h", "vote=2h", "cards=1h"], "last_call": "2h"}
EVENINGS = {"play_hours": "Mon-Fri 21:00-23:30 America/New_York", "play_deadline": "15m"}


def table(players: int, bots: int = 0, random_bots: int = 0, **spec: Any) -> dict[str, Any]:
    """A create-page table: ``players`` seats, the last ``bots`` sensible bots and ``random_bots`` random ones."""
    seats = PEOPLE[: players - bots - random_bots] + ["bot"] * bots + ["bot:random"] * random_bots
    return {"players": seats, "timezone": "Europe/Rome", **spec}


TABLES: dict[str, dict[str, Any]] = {
    "3p-none": table(3),
    "3p-week": table(3, preset="week"),
    "3p-week-strict": table(3, preset="week", options={"turn_order": "strict"}),
    "3p-play-hours-1bot": table(3, bots=1, preset="play-hours"),
    "4p-relaxed": table(4, preset="relaxed"),
    "4p-week-after-moves": table(4, preset="week", options={"sprint_timing": "after_moves"}),
    "4p-custom-tied": table(4, options={"attack_tie_pool": "tied"}, **CUSTOM),
    "4p-evenings-2bots": table(4, bots=1, random_bots=1, **EVENINGS),
    "5p-week": table(5, preset="week"),
    "5p-play-hours": table(5, preset="play-hours"),
    "5p-relaxed-every-round": table(5, preset="relaxed", options={"zombie_player": "every_round"}),
    "5p-none-no-quiet-votes-wait": table(5, avoid_quiet_hours=False, close_decided_votes=False, autopilot_after=0),
    "5p-week-2bots-weapons": table(
        5,
        bots=2,
        preset="week",
        options={"weapons": {"axe": 2, "pistol": 2, "bat": 1, "shotgun": 3, "grenade": 2, "chainsaw": 2}},
    ),
    "6p-none": table(6),
    "6p-week": table(6, preset="week"),
    "6p-play-hours": table(6, preset="play-hours"),
    "6p-relaxed-strict-everyone": table(
        6, preset="relaxed", options={"turn_order": "strict", "attack_cards": "everyone", "first_chief": "red"}
    ),
    "6p-custom-3bots": table(6, bots=3, **CUSTOM),
    "6p-all-bots": table(6, bots=6, preset="week"),
}
TINY = ["3p-week", "5p-week-2bots-weapons", "6p-play-hours"]


def child(url: str, body: dict[str, Any], repeats: int) -> dict[str, Any]:
    """In the fresh process: the first estimate of ``body`` and ``repeats`` more, timed."""
    from datetime import UTC, datetime

    from server.db import Database
    from server.services.play import games

    db = Database(url)
    spec = games.spec_from_json(body)
    now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday morning (the figures do not depend on the wall clock)
    times, figures = [], None
    for _ in range(1 + repeats):
        started = time.perf_counter()
        figures = games.estimate_game(db, spec, now=now)
        times.append(time.perf_counter() - started)
    assert figures is not None
    shown = {"games": figures["games"], "days_median": figures["days_median"], "days_p90": figures["days_p90"]}
    return {"first_s": round(times[0], 3), "again_s": [round(t, 3) for t in times[1:]], **shown}


def percentiles(values: list[float]) -> dict[str, float]:
    """p50, p95 (``server.run.demo.percentile``'s rank: with 20 values or fewer, p95 is the max) and max."""
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"p50": round(at(0.5), 3), "p95": round(at(0.95), 3), "max": round(ordered[-1], 3), "n": len(ordered)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="later calls of each table, in the same process")
    parser.add_argument("--tables", default="all", help="all, or names: " + ",".join(TABLES))
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:  # the fresh process: a database URL and a table, as JSON
        url, body = json.loads(args.child)
        print(json.dumps(child(url, body, args.repeats)))
        return
    names = TINY if args.tiny else list(TABLES) if args.tables == "all" else args.tables.split(",")
    repeats = 1 if args.tiny else args.repeats
    load_before = os.getloadavg()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        import server
        from server.db import Database
        from server.models import Base

        url = f"sqlite:///{folder}/estimate.db"
        Base.metadata.create_all(Database(url).engine)  # (the estimate reads players only: no migrations needed)

        measured: dict[str, Any] = {}
        for name in names:
            command = [sys.executable, __file__, "--repeats", str(repeats), "--child", json.dumps([url, TABLES[name]])]
            done = subprocess.run(command, capture_output=True, text=True, check=False, env=os.environ.copy())
            if done.returncode != 0:
                sys.stderr.write(done.stderr)
                raise SystemExit(f"{name}: the estimate failed")
            measured[name] = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"  {name}: first {measured[name]['first_s']} s, again {measured[name]['again_s']}", file=sys.stderr)
    firsts = [m["first_s"] for m in measured.values()]
    again = [t for m in measured.values() for t in m["again_s"]]
    print(
        json.dumps(
            {
                "checkout": str(Path(server.__file__).resolve().parent.parent),
                "games": sorted({m["games"] for m in measured.values()}),
                "tables": len(measured),
                "repeats": repeats,
                "first_call_s": percentiles(firsts),
                "later_calls_s": percentiles(again) if again else None,
                "load_before": [round(x, 2) for x in load_before],
                "load_after": [round(x, 2) for x in os.getloadavg()],
                "cores": os.cpu_count(),
                "seconds": round(time.perf_counter() - started, 1),
                "by_table": measured,
            }
        )
    )


if __name__ == "__main__":
    main()
