"""Write transactions on bare connections: the ORM's session is for reads, every write is Core
(a session's unit of work and identity map cost more than the statements on the hot path)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.orm.exc import StaleDataError

from bot.games.db.batch import BatchItem, BatchOutcome, GuardFailed, Later
from bot.games.db.sqlite_driver import OneHopConnection


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
    make (`execute`, `scalar`, `later`, `info`, `bind`): a session's unit of work and identity
    map are dead weight on the hot path, where every statement is Core already.

    Writes whose result is not needed at once (`later`) wait for the next statement or the
    commit and go together: on SQLite in one hop to its thread, commit included; on
    PostgreSQL straight on asyncpg (`asyncpg_batch`), with no BEGIN or COMMIT for a lone one."""

    def __init__(self, connection: AsyncConnection) -> None:
        self._connection = connection
        self.bind = connection  # what `player_rows.upsert_player` reads the dialect from
        self.info: dict[str, Any] = {}
        self._later: list[Later] = []

    def later(self, write: Later) -> Later:
        """Hold a write for the next statement or the commit. Its statement must be built
        once (a module constant or a cached one): it is compiled once per driver and kept."""
        self._later.append(write)
        return write

    async def execute(self, statement: Any, parameters: Any = None) -> Any:
        await self.flush()
        return await self._connection.execute(statement, parameters)

    async def scalar(self, statement: Any, parameters: Any = None) -> Any:
        await self.flush()
        return await self._connection.scalar(statement, parameters)

    async def flush(self, *, commit: bool = False) -> None:
        """Send the waiting writes (and commit, with `commit`, where that costs nothing)."""
        writes, self._later = self._later, []
        if not writes:
            return
        dialect = self._connection.dialect
        driver = (await self._connection.get_raw_connection()).driver_connection
        if isinstance(driver, OneHopConnection):
            await _send_batch(partial(driver.run_batch, commit=commit), dialect, writes)
            return
        if dialect.driver == "asyncpg" and (commit or driver.is_in_transaction()):
            # Only a PostgreSQL bot needs these.
            from bot.games.db import asyncpg_batch, fused_writes

            run = partial(asyncpg_batch.run_batch, driver)
            fused = fused_writes.fuse(writes)
            if fused is None:
                await _send_batch(run, dialect, writes)
                return
            item = _batch_item(Later(fused.statement, fused.parameters), dialect)
            fused.apply((await run([item])).rows[0])
            return
        for write in writes:
            result = await self._connection.execute(write.statement, write.parameters)
            write.row = result.first() if result.returns_rows else None
            _check(write, write.row, result.rowcount)


async def _send_batch(
    run: Callable[[list[BatchItem]], Awaitable[BatchOutcome]],
    dialect: Dialect,
    writes: list[Later],
) -> None:
    items = [_batch_item(write, dialect) for write in writes]
    outcome = await run(items)
    for write, row in zip(writes, outcome.rows, strict=False):
        write.row = row
    if outcome.failed_at is not None:
        failed = writes[outcome.failed_at]
        _check(failed, failed.row, 0 if failed.one_change else 1)


def _check(write: Later, row: Any, rowcount: int) -> None:
    if write.guard and row is None:
        raise GuardFailed
    if write.one_change and rowcount != 1:
        raise StaleDataError("the row changed since it was read (another writer came first)")


def _batch_item(write: Later, dialect: Dialect) -> BatchItem:
    many = isinstance(write.parameters, list)
    rows = write.parameters if many else [write.parameters]
    sql, names, processors, compiled = _compiled(write.statement, tuple(rows[0]), dialect)
    positional = [
        tuple(
            processors[name](value) if name in processors else value
            for name, value in ((n, params[n]) for n in names)
        )
        for params in (compiled.construct_params(row) for row in rows)
    ]
    return BatchItem(
        sql,
        positional if many else positional[0],
        many=many,
        returns_rows=bool(compiled.effective_returning) or write.statement.is_select,
        needs_row=write.guard,
        needs_one_change=write.one_change,
    )


_COMPILED: dict[tuple[Any, tuple[str, ...], str], tuple[str, Any, Any, Any]] = {}


def _compiled(statement: Any, keys: tuple[str, ...], dialect: Dialect) -> tuple[str, Any, Any, Any]:
    """The statement compiled for the driver once per set of parameter names: its SQL, the
    order of its positional parameters and their type conversions (SQLite: datetimes to
    text)."""
    key = (statement, keys, dialect.name)
    found = _COMPILED.get(key)
    if found is None:
        compiled = statement.compile(dialect=dialect, column_keys=list(keys))
        # Defaults computed in Python at execution would be missed here: none are allowed.
        if compiled.insert_prefetch or compiled.update_prefetch:  # not an assert: -O keeps it
            raise TypeError(f"a Python-side column default would be missed: {statement}")
        found = (compiled.string, compiled.positiontup, compiled._bind_processors, compiled)
        _COMPILED[key] = found
    return found
