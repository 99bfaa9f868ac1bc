"""Alembic environment: async engine, URL from the bot's settings (DATABASE_URL or .env)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from alembic import context
from sqlalchemy.engine import Connection

from bot.config import DEFAULT_DATABASE_URL, read_env_file
from bot.db.engine import create_engine
from bot.db.models import Base

target_metadata = Base.metadata


def database_url() -> str:
    # The bot passes its URL in; `alembic upgrade head` from a shell reads the environment.
    url = context.config.attributes.get("database_url")
    if url:
        return url
    return (
        os.environ.get("DATABASE_URL")
        or read_env_file(Path(".env")).get("DATABASE_URL")
        or DEFAULT_DATABASE_URL
    )


def run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_async_migrations() -> None:
    # SQLite batch migrations copy a table, drop the old one and rename the copy; with foreign
    # keys enforced, dropping the old `games` would cascade into `moves` and delete them.
    engine = create_engine(database_url(), enforce_foreign_keys=False)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(run_migrations)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    context.configure(url=database_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(run_async_migrations())
