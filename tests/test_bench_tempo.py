"""bench/tempo.py runs and prints one JSON object with the figures issue 11 asks for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("preset", ["week", "today", "play-hours"])
def test_bench_tempo_prints_the_figures(preset: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["--players", "4", "--turn-order", "strict", "--preset", preset, "--reading", "1h", "--games", "5"]
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "tempo.py"), *args, "--seed", "2"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=120,
    )
    figures = json.loads(done.stdout)
    assert {"days_median", "days_p90", "windows_median", "defaulted_share", "max_shift_hours"} <= set(figures)
    assert figures["games"] == 5 and figures["preset"] == preset and 0 <= figures["max_shift_hours"] <= 12
