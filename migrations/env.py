"""Alembic environment: the models' metadata, the URL from the environment (or the caller), batch mode always."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Engine, engine_from_config, pool

from server.config import Settings, prepare_data_dir
from server.models import Base

config = context.config
target_metadata = Base.metadata


def url() -> str:
    """The caller's URL, else the environment's, its data folder prepared as for every command (the default SQLite
    database lives there)."""
    return (
        config.attributes.get("url")
        or config.get_main_option("sqlalchemy.url")
        or prepare_data_dir(Settings.from_env()).database_url
    )


def run_offline() -> None:
    context.configure(url=url(), target_metadata=target_metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if isinstance(connection, Engine):  # pytest-alembic hands over an Engine
        with connection.connect() as conn:
            context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
            with context.begin_transaction():
                context.run_migrations()
        return
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = engine_from_config({"sqlalchemy.url": url()}, prefix="sqlalchemy.", poolclass=pool.NullPool)
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
