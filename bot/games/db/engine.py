"""The async engine and session factory, tuned per database."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, event, exc
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from bot.games.db.sqlite_file import watch_sqlite_file, watch_writer

log = logging.getLogger(__name__)

#: PostgreSQL connections kept open. SQLAlchemy's default (5, plus 10 that are closed as soon as
#: they are given back) opened and closed connections all the time under load: a new one
#: costs the server a process and the bot a handshake. Beyond this, a transaction waits for one.
POOL_SIZE = 20

#: The database as the rest of the bot holds it (only `bot.games` imports SQLAlchemy).
DatabaseEngine = AsyncEngine
#: What a database that does not answer, or refuses, raises: the rest of the bot catches this.
StorageError = SQLAlchemyError


def create_engine(database_url: str, *, enforce_foreign_keys: bool = True) -> AsyncEngine:
    """An async engine; SQLite gets WAL, a busy timeout and (unless told otherwise) enforced
    foreign keys."""
    if database_url.startswith("sqlite"):
        engine = create_async_engine(
            database_url, connect_args={"timeout": 30, "factory": RollingBackConnection}
        )
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas(enforce_foreign_keys))
        # A file deleted under the running bot is reported, never replaced by an empty one.
        watch_sqlite_file(engine)
        return engine
    engine = create_async_engine(
        database_url,
        pool_size=POOL_SIZE,
        max_overflow=0,
        # PostgreSQL plans a prepared statement afresh at each run while it guesses that a
        # plan for the values at hand may beat the generic one; for the bot's statements
        # (lookups by key, a move's one statement) none does, and that planning was 40% of
        # the server's CPU per tap. Generic plans are made once per connection (PostgreSQL 12+).
        connect_args={"server_settings": {"plan_cache_mode": "force_generic_plan"}},
    )
    replace_dead_connections(engine)
    return engine


class RollingBackConnection(sqlite3.Connection):
    """A SQLite connection that rolls back its transaction, if one is open, before it closes.

    SQLite puts off closing a connection that still has a statement not run to its end: the
    connection lives on, its transaction and its locks with it, until that statement is
    finalized, that is until Python frees the cursor that holds it. SQLAlchemy closes a
    connection so when a cancellation (a timeout, a stopping bot) cuts a statement short: it
    ends it as broken, without a rollback, while the statement goes on on aiosqlite's thread
    (the flood budget's upsert, its RETURNING row unread). The cursor is then held in the
    cancellation's traceback, freed only by the garbage collector, which the running bot makes
    rare (`bot.app.GC_THRESHOLDS`): the file's write lock stayed with it, and every writer,
    this process's or another's, waited its busy timeout and failed "database is locked".
    Rolled back first, the statement is aborted and the locks let go at once (the connection
    itself goes when the cursor does)."""

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):  # closed already, or the file is gone
            self.rollback()
        super().close()


def replace_dead_connections(engine: AsyncEngine) -> None:
    """PostgreSQL: a pooled connection the server dropped (a restart, an idle timeout,
    `pg_terminate_backend`) is replaced before use, as `pool_pre_ping` would, without its cost.

    SQLAlchemy's pre-ping for asyncpg is three round trips per checkout (BEGIN, a query,
    ROLLBACK), a wait on the bot's busiest path. A connection resting in the pool is still
    read by the event loop: when the server says goodbye (its "terminating connection"
    message, then the end of the stream), asyncpg marks the connection closed. So a checkout
    asks asyncpg's public `Connection.is_closed()`, with no round trip, and replaces a closed
    connection; as after a failed pre-ping, the whole pool is replaced then (connections older
    than this one are suspect too). One that the server drops in the instant between the
    loop's last read and the checkout fails its first statement instead; SQLAlchemy sees a
    disconnect there and replaces it too (the pool's other connections with it)."""

    @event.listens_for(engine.sync_engine, "checkout")
    def _check(_dbapi_connection: Any, _record: Any, proxy: Any) -> None:
        if proxy.driver_connection.is_closed():
            raise exc.InvalidatePoolError("the server closed the connection")


def _sqlite_pragmas(enforce_foreign_keys: bool) -> Callable[[Any, Any], None]:
    """What every SQLite connection is told first: WAL, a busy timeout, foreign keys."""

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # In WAL mode NORMAL syncs at checkpoints, not every commit: a crash of the bot
        # loses nothing; only a power cut can lose the last moves.
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute(f"PRAGMA foreign_keys={'ON' if enforce_foreign_keys else 'OFF'}")
        cursor.close()

    return on_connect


def sqlite_writer(engine: AsyncEngine) -> Engine | None:
    """For an engine on a SQLite file: a synchronous engine on the same file (SQLAlchemy's
    pysqlite dialect), for write transactions run on a thread of their own (`writes`); None
    for any other database. (aiosqlite, under the async engine, hops to its thread and back
    three or four times per statement; a whole transaction's writes on the writer's thread
    are one hop.)"""
    url = engine.url
    if url.drivername != "sqlite+aiosqlite" or url.database in (None, "", ":memory:") or url.query:
        return None
    writer = create_sync_engine(
        url.set(drivername="sqlite+pysqlite"),
        # Opened and closed on the writer's thread (`bot.games.db.writes`).
        connect_args={
            "timeout": 30,
            "check_same_thread": False,
            "factory": RollingBackConnection,
        },
    )
    event.listen(writer, "connect", _sqlite_pragmas(enforce_foreign_keys=True))
    watch_writer(engine, writer)
    return writer


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded values after commit, so views can be built after a transaction."""
    return async_sessionmaker(engine, expire_on_commit=False)


async def open_pool(engine: AsyncEngine, connections: int = POOL_SIZE // 2) -> None:
    """Open PostgreSQL connections before the first update needs them: each costs a handshake
    and a new server process, which a player would otherwise wait for in the first burst of
    updates after a start. Half the pool covers a burst; the rest opens on demand, as does
    whatever fails to open here (the bot starts anyway)."""
    if engine.dialect.name == "sqlite":
        return  # a file: nothing to open ahead
    results = await asyncio.gather(
        *(engine.connect() for _ in range(connections)), return_exceptions=True
    )
    await asyncio.gather(
        *(result.close() for result in results if isinstance(result, AsyncConnection))
    )
    failed = [result for result in results if isinstance(result, Exception)]
    if failed:
        log.warning(
            "opened %d of %d connections ahead: %s",
            connections - len(failed),
            connections,
            failed[0],
        )
