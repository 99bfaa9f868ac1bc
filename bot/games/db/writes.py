"""Write transactions: Core statements on an `AsyncConnection`, through SQLAlchemy's own
aiosqlite and asyncpg dialects and nothing else."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.orm.exc import StaleDataError

from bot.games.db.batch import GuardFailed, Later


class Writes:
    """Where write transactions begin.

    SQLite lets one writer in at a time and makes the others poll with growing sleeps;
    queueing this process's writers on a lock instead keeps the latency tail short, and while
    they queue they pass one connection along instead of taking it from the pool and giving it
    back each time. PostgreSQL needs none of this: its row locks and the version check do the
    job, on pooled connections."""

    def __init__(self, engine: AsyncEngine | None) -> None:
        self._engine = engine
        sqlite = engine is not None and engine.dialect.name == "sqlite"
        self._lock = asyncio.Lock() if sqlite else None
        self._writer: AsyncConnection | None = None
        self._queued = 0

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncConnection]:
        """One write transaction: committed on success, rolled back on error."""
        assert self._engine is not None
        if self._lock is None:
            async with self._engine.begin() as connection:
                yield connection
            return
        self._queued += 1
        try:
            await self._lock.acquire()
        finally:
            self._queued -= 1
        try:
            connection = self._writer
            if connection is None or connection.closed or connection.invalidated:
                connection = self._writer = await self._engine.connect()
            try:
                async with connection.begin():
                    yield connection
            finally:
                if self._queued == 0:  # nobody waits: back to the pool
                    self._writer = None
                    await connection.close()
        finally:
            self._lock.release()


class CoreTransaction:
    """A write transaction on a connection, answering the calls the store's functions make:
    `execute` and `scalar` (at once), `later` (a write whose result is not needed yet), `info`
    (the transaction's notes) and `bind` (its dialect).

    Writes held with `later` go, in order, before the transaction's next statement or its
    commit, so a read sees them. Each is an ordinary `AsyncConnection.execute`; what a write
    must do is checked on its result: a guarded one must return a row (else `GuardFailed`),
    a versioned UPDATE or DELETE must change exactly one row (else `StaleDataError`)."""

    def __init__(self, connection: AsyncConnection) -> None:
        self._connection = connection
        self.bind = connection  # what `player_rows.upsert_player` reads the dialect from
        self.info: dict[str, Any] = {}
        self._later: list[Later] = []

    def later(self, write: Later) -> Later:
        """Hold a write for the next statement or the commit; its `row` is set once sent."""
        self._later.append(write)
        return write

    async def execute(self, statement: Any, parameters: Any = None) -> Any:
        await self.flush()
        return await self._connection.execute(statement, parameters)

    async def scalar(self, statement: Any, parameters: Any = None) -> Any:
        await self.flush()
        return await self._connection.scalar(statement, parameters)

    async def flush(self) -> None:
        """Send the writes held so far, stopping at the first whose condition fails (the
        transaction is then rolled back by the error)."""
        writes, self._later = self._later, []
        for write in writes:
            result = await self._connection.execute(write.statement, write.parameters)
            write.row = result.first() if result.returns_rows else None
            if write.guard and write.row is None:
                raise GuardFailed
            if write.one_change and result.rowcount != 1:
                raise StaleDataError(
                    "the row changed since it was read (another writer came first)"
                )
