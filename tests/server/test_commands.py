"""The two commands a newcomer runs: ``deadmail up`` and ``deadmail demo --auto``, as real processes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

DEADMAIL = [sys.executable, "-c", "from server.cli import main; main()"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def clean_env(tmp_path: Path) -> dict[str, str]:
    """Nothing configured: the embedded defaults, with the data folder in a temporary directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEADMAIL_", "DATABASE_URL", "CELERY_"))}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return env


def test_deadmail_up_serves_pages_and_runs_the_worker(tmp_path: Path) -> None:
    """On a fresh folder: creates the database, prints its address, serves, and the worker sends the first mail."""
    port = free_port()
    env = clean_env(tmp_path)
    up = subprocess.Popen(
        [*DEADMAIL, "up", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert up.stdout is not None
        first = up.stdout.readline()
        assert f"deadmail is running at http://127.0.0.1:{port}/" in first
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as reply:
                    assert json.loads(reply.read()) == {"ok": True}
                    break
            except OSError:
                assert time.monotonic() < deadline, "deadmail up did not answer"
                time.sleep(0.2)
        made = subprocess.run(
            [*DEADMAIL, "demo", "--email", "new@example.org"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        link = next(line.strip() for line in made.stdout.splitlines() if "/s/" in line)
        assert link.startswith(f"http://127.0.0.1:{port}/s/")
        with urllib.request.urlopen(link, timeout=5) as page:
            assert "Mall of Horror" in page.read().decode()
        mail = tmp_path / "deadmail-data" / "mail"
        while not (mail.exists() and any(mail.glob("*.eml"))):  # sent by the worker deadmail up started
            assert time.monotonic() < deadline + 30, "the worker sent no mail"
            time.sleep(0.2)
        assert "new@example.org" in next(mail.glob("*.eml")).read_text()
    finally:
        up.terminate()
        up.communicate(timeout=30)
    assert not (tmp_path / "control").exists()  # the broker keeps its files in the data folder


@pytest.mark.parametrize("players", [3])
def test_demo_auto_plays_a_whole_game_and_prints_one_json_line(tmp_path: Path, players: int) -> None:
    """Bots play through HTTP, broker, worker and database; stdout is exactly one JSON object."""
    done = subprocess.run(
        [*DEADMAIL, "demo", "--auto", "--players", str(players), "--seed", "2"],
        cwd=tmp_path,
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, done.stdout
    result = json.loads(lines[0])
    assert result["status"] == "over"
    assert set(result["outcome"]["scores"]) == {"yellow", "red", "blue"}
    assert result["windows"] > 10
    assert 0 <= result["latency_median_s"] <= result["latency_p95_s"] < 5
