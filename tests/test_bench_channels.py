"""bench/push.py and bench/live.py run (tiny) and print one JSON object each with their figures
(docs/PERFORMANCE.md, "Reaching players")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def bench(name: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DEADMAIL_TEST_PG", None)
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / name), "--tiny"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=180,
    )
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


@pytest.mark.long(12)
def test_bench_push_sends_every_notification_and_prints_the_rate() -> None:
    figures = bench("push.py")
    assert figures["benchmark"] == "push" and figures["rows"] == 60
    assert figures["sqlite"]["notifications_per_s"] > 0 and figures["sqlite"]["sender_cpu_ms_per_notification"] > 0


@pytest.mark.long(15)
def test_bench_live_prints_the_idle_cost_and_the_delays() -> None:
    figures = bench("live.py")["sqlite"]
    assert figures["pages"] == 20 and figures["changes"] == 3
    assert 0 <= figures["idle_cores_total"] < 1 and 0 < figures["event_p95_s"] < 5
