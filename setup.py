"""The build: pyproject.toml says everything, except the compiled engine.

``DEADMAIL_COMPILE=1 pip install .`` compiles the rules engine's modules with mypyc (a C compiler and the Python
headers needed): the same code, about twice as fast (docs/PERFORMANCE.md). Without it, or in an editable install
(``pip install -e .``, where a compiled module would hide edits of its source), the engine is pure Python.
"""

import os
import sys

from setuptools import setup

# every module of the engine but these: the command-line entry points, and rng.py (a subclass of random.Random,
# a class written in Python, which a compiled class cannot extend)
INTERPRETED = {"__main__.py", "demo.py", "rng.py"}


def compiled_engine() -> list:
    # pip also runs this file to ask what the build needs and for the metadata: compile only when building
    if os.environ.get("DEADMAIL_COMPILE") != "1" or not {"bdist_wheel", "build_ext"} & set(sys.argv):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        raise SystemExit("DEADMAIL_COMPILE=1: mypyc (pip install mypy) is needed to compile the engine") from None
    here = os.path.dirname(os.path.abspath(__file__))
    modules = sorted(
        os.path.join("engine", name)
        for name in os.listdir(os.path.join(here, "engine"))
        if name.endswith(".py") and name not in INTERPRETED
    )
    return mypycify(modules, opt_level="3")


setup(ext_modules=compiled_engine())
