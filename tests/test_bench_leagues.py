"""bench/leagues.py runs and prints one JSON object with the fixtures figures (``docs/PERFORMANCE.md``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_leagues_prints_the_fixtures_figures() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["--players", "40", "--size", "4", "--history", "3", "--runs", "2", "--seed", "2"]
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "leagues.py"), *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=120,
    )
    figures = json.loads(done.stdout)["fixtures"]
    assert figures["players"] == 40 and figures["runs"] == 2 and figures["tables"] == 10
    assert figures["table_sizes"] == {"4": 10} and figures["acquainted"] == 0
    assert 0 <= figures["repeats"] <= figures["random_repeats"] and figures["earlier_meetings"] > 0
    assert figures["seconds_median"] > 0 and 0 <= figures["awake_hours_mean"] <= 24
