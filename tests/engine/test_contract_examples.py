"""The shared contract examples (copied from shared/examples/engine), through the API and the command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import ScenarioError, run_scenario

from .support import check

EXAMPLES = sorted((Path(__file__).parent / "contract_examples").glob("*.json"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example(path: Path) -> None:
    example = json.loads(path.read_text())
    if example.get("expect_exit") == 2:
        with pytest.raises(ScenarioError):
            run_scenario(example["scenario"])
        return
    check(run_scenario(example["scenario"]), example["expect"])


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_through_command(path: Path) -> None:
    example = json.loads(path.read_text())
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "run", "-"],
        input=json.dumps(example["scenario"]),
        capture_output=True,
        text=True,
        check=False,
    )
    if example.get("expect_exit") == 2:
        assert proc.returncode == 2
        assert proc.stdout == ""
        assert len(proc.stderr.strip().splitlines()) == 1
        return
    assert proc.returncode == 0, proc.stderr
    check(json.loads(proc.stdout), example["expect"])


def test_examples_are_present() -> None:
    assert len(EXAMPLES) >= 8
