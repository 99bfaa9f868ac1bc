"""Write transactions on bare connections: the ORM's session is for reads, every write is Core
(a session's unit of work and identity map cost more than the statements on the hot path)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine


class Writes:
    """Where write transactions begin.

    SQLite lets one writer in at a time and makes the others poll with growing sleeps;
    queueing this process's writers on a lock instead keeps the latency tail short, and while
    they queue they pass one connection along instead of taking it from the pool and giving it
    back each time (that costs more than a statement). PostgreSQL needs none of this: its row
    locks and the version check do the job, on pooled connections."""

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
    """A write transaction on a bare connection that answers the calls the store's functions
    make (`execute`, `scalar`, `info`, `bind`): a session's unit of work and identity map are
    dead weight on the hot path, where every statement is Core already."""

    def __init__(self, connection: AsyncConnection) -> None:
        self._connection = connection
        self.bind = connection  # what `upsert_player` reads the dialect from
        self.info: dict[str, Any] = {}

    async def execute(self, statement: Any, parameters: Any = None) -> Any:
        return await self._connection.execute(statement, parameters)

    async def scalar(self, statement: Any, parameters: Any = None) -> Any:
        return await self._connection.scalar(statement, parameters)
