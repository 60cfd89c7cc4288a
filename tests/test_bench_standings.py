"""bench/standings.py runs (a tiny season, on the PostgreSQL of the tests) and prints one JSON object with the
standings page figures (``docs/PERFORMANCE.md``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import PG_URL, need_service

ROOT = Path(__file__).resolve().parents[1]


def test_bench_standings_prints_the_page_figures() -> None:
    need_service("PostgreSQL")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DEADMAIL_TEST_PG": PG_URL}
    args = ["--games", "40", "--rounds", "4", "--size", "5", "--requests", "3", "--seed", "2"]
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "standings.py"), *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=120,
    )
    figures = json.loads(done.stdout)
    assert figures["games"] == 40 and figures["players"] == 50 and figures["results"] == 200
    assert figures["store_ms"] > 0 and figures["first_ms"] > 0
    for page in ("member", "public"):
        assert 0 < figures[page]["p50_ms"] <= figures[page]["p99_ms"] <= figures[page]["max_ms"]
