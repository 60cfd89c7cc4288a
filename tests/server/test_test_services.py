"""A test run without PostgreSQL and Redis: each service is probed once, its tests skip quietly, and the summary
says so in one line per missing service (not one per test); with DEADMAIL_REQUIRE_SERVICES=1 they fail."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.support import clean_env, free_port

TESTS = """
import pytest


@pytest.mark.parametrize("n", range(4))
def test_postgres(postgres_url, n):
    pass


@pytest.mark.parametrize("n", range(3))
def test_redis(redis_url, n):
    pass


def test_both(stack):
    assert stack.name == "embedded"
"""


def run_without_services(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_services.py").write_text(TESTS)
    closed_pg, closed_redis = free_port(), free_port()  # nothing listens there
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-ra", "-q", "-p", "no:cacheprovider", "."],
        cwd=tmp_path,
        env={
            **clean_env(tmp_path),
            "DEADMAIL_TEST_PG": f"postgresql+psycopg://postgres@127.0.0.1:{closed_pg}/test",
            "DEADMAIL_TEST_REDIS": f"redis://127.0.0.1:{closed_redis}/15",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,  # the test reads the exit status
    )


def test_a_run_without_services_says_so_once_per_service(tmp_path: Path) -> None:
    done = run_without_services(tmp_path)

    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    said = [line for line in lines if "not reachable" in line]
    assert len(said) == 2, done.stdout
    assert re.match(r"SKIPPED \[5\] .*conftest\.py:\d+: PostgreSQL not reachable at .*set DEADMAIL_TEST_PG$", said[0])
    assert re.match(r"SKIPPED \[3\] .*conftest\.py:\d+: Redis not reachable at .*set DEADMAIL_TEST_REDIS$", said[1])
    assert not any("test_services.py" in line for line in lines if "SKIPPED" in line)  # no line per test
    assert lines[-1].startswith("1 passed, 8 skipped")


def test_a_run_that_requires_the_services_fails_without_them(tmp_path: Path) -> None:
    done = run_without_services(tmp_path, DEADMAIL_REQUIRE_SERVICES="1")

    assert done.returncode == 1
    assert "1 passed, 8 errors" in done.stdout.splitlines()[-1]
    assert "DEADMAIL_REQUIRE_SERVICES=1 says it must be" in done.stdout
