"""bench/tempo.py runs and prints one JSON object with the tempo figures (``docs/PERFORMANCE.md``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def test_bench_tempo_compares_games_with_one_player_vanishing() -> None:
    """``--vanish``: the same games with all present and with one vanishing at a random round, and the difference."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["--players", "5", "--preset", "week", "--games", "4", "--seed", "1", "--vanish"]

    def figures(*more: str) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "tempo.py"), *args, *more],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            timeout=120,
        )
        return dict(json.loads(done.stdout))

    escalated, waiting = figures(), figures("--autopilot-after", "0")
    for result in (escalated, waiting):
        assert result["vanish"] is True and result["games"] == 4 and result["present"]["games"] == 4
        assert {"days_median", "days_p90", "days_median_difference", "days_p90_difference"} <= set(result)
        assert result["days_median_difference"] == round(result["days_median"] - result["present"]["days_median"], 2)
    assert escalated["autopilot_after"] == 2 and waiting["autopilot_after"] == 0
    assert waiting["vanished_on_autopilot_share"] == 0 and waiting["days_to_autopilot_median"] is None
    assert escalated["vanished_on_autopilot_share"] > 0 and escalated["days_to_autopilot_median"] >= 0


@pytest.mark.parametrize("channel", ["push", "mixed"])
def test_bench_tempo_models_the_channel(channel: str) -> None:
    """``--channel push|mixed`` (and ``--linger``): the figures say which channel they are for."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [
        "--players",
        "5",
        "--preset",
        "week",
        "--games",
        "4",
        "--seed",
        "1",
        "--channel",
        channel,
        "--linger",
        "20m",
    ]
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "tempo.py"), *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=120,
    )
    figures = json.loads(done.stdout)
    assert figures["channel"] == channel and figures["push_delay"] == "30m" and figures["linger"] == "20m"
    assert figures["games"] == 4 and figures["days_median"] > 0
