"""Alembic environment: runs migrations against the URL the server configured."""

from __future__ import annotations

from alembic import context
from sqlalchemy import pool

from agent.server.db import Base, make_engine

config = context.config
target_metadata = Base.metadata


def run_migrations_offline() -> None:
    """Emit SQL without a connection."""
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Migrate through a real connection."""
    url = config.get_main_option("sqlalchemy.url")
    assert url is not None
    engine = make_engine(url)
    engine.pool = pool.NullPool(engine.pool._creator)  # type: ignore[attr-defined]
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
