"""The two commands a newcomer runs: ``deadmail up`` and ``deadmail demo --auto``, as real processes."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.request
from pathlib import Path

from tests.support import DEADMAIL, clean_env, demo_link, free_port, health
from tests.waiting import wait_for


def test_deadmail_up_serves_pages_and_runs_the_worker_and_prints_no_warning(tmp_path: Path) -> None:
    """On a fresh folder: creates the database, prints its address, serves, and the worker sends the first mail; no
    warning is printed on the way."""
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
        assert wait_for(lambda: health(port), timeout=30, what="deadmail up to answer") == {"ok": True}
        link = demo_link(tmp_path, env)
        assert link.startswith(f"http://127.0.0.1:{port}/s/")
        with urllib.request.urlopen(link, timeout=5) as page:
            assert "Mall of Horror" in page.read().decode()
        mail = tmp_path / "deadmail-data" / "mail"
        sent = wait_for(lambda: sorted(mail.glob("*.eml")), timeout=60, what="the worker deadmail up started to send")
        assert "new@example.org" in sent[0].read_text()
    finally:
        up.terminate()
        rest, errors = up.communicate(timeout=30)
    assert not (tmp_path / "control").exists()  # the broker keeps its files in the data folder
    # quiet: no warning of Celery or kombu (running as root, no broker host, deprecated settings), while it started,
    # served, sent mail and stopped
    printed = (first + rest + errors).splitlines()
    assert [line for line in printed if re.search(r"warn|deprecat|superuser", line, re.IGNORECASE)] == [], errors


def test_demo_auto_plays_a_whole_game_and_prints_one_json_line(tmp_path: Path) -> None:
    """Bots play through HTTP, broker, worker and database; stdout is exactly one JSON object."""
    done = subprocess.run(
        [*DEADMAIL, "demo", "--auto", "--players", "3", "--seed", "2"],
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
    assert 0 <= result["latency_median_s"] <= result["latency_p95_s"]
