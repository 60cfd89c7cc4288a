"""The Alembic migrations, checked by pytest-alembic's standard tests on SQLite (batch mode) and PostgreSQL:
one head, upgrade from nothing to head, the models match what the migrations build, and every step goes down and
up again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from pytest_alembic.tests import (
    test_model_definitions_match_ddl,
    test_single_head_revision,
    test_up_down_consistency,
    test_upgrade,
)

from server.migrate import alembic_config as make_alembic_config

__all__ = [
    "test_model_definitions_match_ddl",
    "test_single_head_revision",
    "test_up_down_consistency",
    "test_upgrade",
]


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'migrations.db'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def alembic_config(database_url: str) -> Any:
    return make_alembic_config(database_url)


@pytest.fixture
def alembic_engine(database_url: str) -> Iterator[sa.Engine]:
    engine = sa.create_engine(database_url, poolclass=sa.pool.NullPool)
    yield engine
    engine.dispose()


def test_the_engine_under_test_is_empty_and_of_its_kind(alembic_engine: sa.Engine, database_url: str) -> None:
    """The standard tests above start from an empty database of the parametrized kind (not a shared one)."""
    assert alembic_engine.dialect.name == database_url.split(":", 1)[0].split("+", 1)[0]
    assert sa.inspect(alembic_engine).get_table_names() == []


def test_head_builds_every_table_of_the_models(alembic_runner: Any, alembic_engine: sa.Engine) -> None:
    from server.models import Base

    alembic_runner.migrate_up_to("heads")
    tables = set(sa.inspect(alembic_engine).get_table_names())
    assert tables == set(Base.metadata.tables) | {"alembic_version"}
    alembic_runner.migrate_down_to("base")
    assert set(sa.inspect(alembic_engine).get_table_names()) <= {"alembic_version"}
