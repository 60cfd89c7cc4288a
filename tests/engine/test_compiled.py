"""The compiled engine (``DEADMAIL_COMPILE=1 pip install .``: setup.py compiles it with mypyc) passes every test of the
engine, as the pure one does: the wheel is built as production builds it, its compiled modules are laid into a copy
of this checkout, and the engine's tests run there (their pinned digests and golden games included)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import need

ROOT = Path(__file__).resolve().parents[2]
OTHERS = ("--deselect", "tests/engine/test_compiled.py")  # every engine test but this one
JUNK = (
    ".venv",
    ".git",
    "build",
    "*.egg-info",
    "__pycache__",
    "*.so",
    "*_cache",
    ".hypothesis",
    "deadmail-data",
    "screenshots",
)


@pytest.mark.long(210)
def test_the_compiled_engine_passes_the_engine_tests(tmp_path: Path) -> None:
    need("a C compiler (gcc) to compile the engine", None if shutil.which("gcc") else "gcc is not installed")
    copy = tmp_path / "main"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(*JUNK))
    (tmp_path / "shared").symlink_to(ROOT.parent / "shared")  # the specification the rule coverage reads
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DEADMAIL_TEST_PROFILE"))}
    # the wheel as production builds it; without build isolation, so the suite's own setuptools and mypy build it
    # and no index is asked
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), "."],
        cwd=copy,
        env={**env, "DEADMAIL_COMPILE": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = tmp_path.glob("deadmail-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        compiled = [name for name in archive.namelist() if name.endswith(".so")]
        archive.extractall(copy, compiled)
    modules = {Path(name).name.split(".")[0] for name in compiled if name.startswith("engine/")}
    assert modules == {path.stem for path in (ROOT / "engine").glob("*.py")} - {"__main__", "demo", "rng"}

    probe = subprocess.run(
        [sys.executable, "-c", "import engine; print(engine.COMPILED)"],
        cwd=copy,
        env=env,
        capture_output=True,
        check=False,
    )
    assert probe.stdout.strip() == b"True", probe.stderr[-2000:]
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-x", "tests/engine", *OTHERS],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]
    assert " passed" in tests.stdout.splitlines()[-1]
