"""setuptools' build backend, asking for mypy too when the engine is to be compiled (``DEADMAIL_COMPILE=1``, see
setup.py): the in-tree backend of setuptools' documentation, "Dynamic build dependencies"."""

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (every hook of the PEP 517 interface, unchanged but this one)

MYPYC = ["mypy>=1.10"]


def get_requires_for_build_wheel(config_settings=None):
    extra = MYPYC if os.environ.get("DEADMAIL_COMPILE") == "1" else []
    return _setuptools.get_requires_for_build_wheel(config_settings) + extra
