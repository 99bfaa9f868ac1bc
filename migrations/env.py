"""Alembic environment: async engine, URL from the bot's settings (DATABASE_URL or .env)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from alembic import context
from sqlalchemy import event, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.config import DEFAULT_DATABASE_URL, read_env_file
from bot.games.db.engine import create_engine
from bot.games.db.models import Base

target_metadata = Base.metadata

#: PostgreSQL advisory lock key held while migrating: instances starting at the same moment
#: migrate one after the other (the later ones then find the schema at head).
MIGRATION_LOCK_KEY = 0x7469_6374_6163  # "tictac"


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
        # SQLite: all revisions in one transaction begun with BEGIN IMMEDIATE (see
        # `_serialize_sqlite`), so a second instance waits for the first, then finds nothing to do.
        transactional_ddl=True if connection.dialect.name == "sqlite" else None,
    )
    with context.begin_transaction():
        context.run_migrations()


def _serialize_sqlite(engine: AsyncEngine) -> None:
    """Let the transaction hold SQLite's write lock from its start (the driver's own BEGIN is
    deferred and skips DDL): a concurrent upgrade waits (busy timeout) instead of racing."""

    @event.listens_for(engine.sync_engine, "connect")
    def _no_driver_transactions(dbapi_connection: object, _record: object) -> None:
        dbapi_connection.isolation_level = None  # type: ignore[attr-defined]

    @event.listens_for(engine.sync_engine, "begin")
    def _begin_immediate(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


async def run_async_migrations() -> None:
    # SQLite batch migrations copy a table, drop the old one and rename the copy; with foreign
    # keys enforced, dropping the old `games` would cascade into `moves` and delete them.
    engine = create_engine(database_url(), enforce_foreign_keys=False)
    postgresql = engine.dialect.name == "postgresql"
    if engine.dialect.name == "sqlite":
        _serialize_sqlite(engine)
    try:
        async with engine.connect() as connection:
            if postgresql:
                # A session lock: kept across the migration's own transaction.
                lock = text("SELECT pg_advisory_lock(:key)")
                await connection.execute(lock, {"key": MIGRATION_LOCK_KEY})
                await connection.commit()
            try:
                await connection.run_sync(run_migrations)
            finally:
                if postgresql:
                    await connection.rollback()  # nothing left after a success; a failure's end
                    unlock = text("SELECT pg_advisory_unlock(:key)")
                    await connection.execute(unlock, {"key": MIGRATION_LOCK_KEY})
                    await connection.commit()
    finally:
        await engine.dispose()


if context.is_offline_mode():
    context.configure(url=database_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(run_async_migrations())
