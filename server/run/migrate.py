"""Running the Alembic migrations from code (``deadmail up`` and ``deadmail migrate``)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from ..config import ROOT
from ..db import private_sqlite_file


def alembic_config(url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.attributes["url"] = url
    return config


def upgrade(url: str) -> None:
    """Create the database or bring it to the latest schema."""
    private_sqlite_file(url)  # SQLite: made 0600 before SQLite makes it with the umask's mode
    command.upgrade(alembic_config(url), "head")
