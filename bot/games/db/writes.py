"""Write transactions: Core statements on a SQLAlchemy `Connection`, through SQLAlchemy's own
dialects and public API, and nothing else.

A transaction's statements run in batches on the connection (`CoreTransaction`): the writes
it holds (`later`) and the statement it awaits, or the writes and the commit. Where a batch
runs depends on the database:

* PostgreSQL (and SQLite in memory): on an `AsyncConnection` of the async engine, a batch at
  a time through `AsyncConnection.run_sync` (asyncpg underneath).
* A SQLite file: on a synchronous connection of `engine.sqlite_writer` (pysqlite), a batch at
  a time on a thread of its own. Through aiosqlite every statement hops to its thread and
  back three or four times, and each hop wakes the event loop; here a tap's writes and their
  commit are one hop. `bench/README.md` has the figures.

That connection lives as long as the bot, so the pool's check of a SQLite file at checkout
(`bot.games.db.sqlite_file`) would never run again: each transaction on it asks first whether
the file can still be used (deleted, or made read-only, it fails with `UnusableFile` before
SQLite touches it), and its commit asks again, in the same batch, whether the file is still
there. A write the file did not take is never answered as done.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, TypeVar

from sqlalchemy import Connection, event
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.orm.exc import StaleDataError

from bot.games.db.batch import GuardFailed, Later
from bot.games.db.engine import sqlite_writer
from bot.games.db.sqlite_file import file_of
from bot.telemetry.metrics import Metrics

T = TypeVar("T")
#: Seconds the engine's disposal waits for the writer's connection to close (on its thread,
#: after a statement still running there).
CLOSE_SECONDS = 10.0
#: Runs a function of the transaction's (synchronous) connection where that connection lives.
Run = Callable[[Callable[[Connection], T]], Awaitable[T]]


class Writes:
    """Where write transactions begin.

    SQLite lets one writer in at a time and makes the others poll with growing sleeps;
    queueing this process's writers on a lock instead keeps the latency tail short (and on a
    file they share the writer's one connection). PostgreSQL needs none of this: its row
    locks and the version check do the job, on pooled connections."""

    def __init__(self, engine: AsyncEngine | None, metrics: Metrics | None = None) -> None:
        self._engine = engine
        #: Times each transaction (None: metrics are off).
        self.metrics = metrics
        sqlite = engine is not None and engine.dialect.name == "sqlite"
        self._lock = asyncio.Lock() if sqlite else None
        self._writer = sqlite_writer(engine) if sqlite and engine is not None else None
        self._file = file_of(engine) if self._writer is not None and engine is not None else None
        self._thread: ThreadPoolExecutor | None = None
        self._connection: Connection | None = None
        if self._writer is not None and engine is not None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="sqlite-writes")
            event.listen(engine.sync_engine, "engine_disposed", self._dispose)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[CoreTransaction]:
        """One write transaction: committed on success, rolled back on error."""
        assert self._engine is not None
        async with self._lock or contextlib.nullcontext():
            started, committed = time.perf_counter(), False
            try:
                if self._writer is None:
                    async with self._engine.begin() as connection:
                        transaction = CoreTransaction(connection.run_sync, connection)
                        yield transaction
                        await transaction.flush()
                    committed = True
                    return
                if self._file is not None:
                    self._file.refuse_if_unusable()
                held = self._connection
                if held is None or held.closed or held.invalidated:
                    loop = asyncio.get_running_loop()
                    held = await loop.run_in_executor(self._thread, self._connect, held)
                    self._connection = held
                run = partial(self._run, held)
                transaction = CoreTransaction(run, held)
                try:
                    yield transaction
                    await transaction.flush(then=self._commit)
                    committed = True
                except BaseException:
                    # Shielded: a second cancellation must not leave the transaction open for
                    # the next one (the thread runs the rollback before anything sent after it).
                    await asyncio.shield(run(_roll_back))
                    raise
            finally:
                if self.metrics is not None:
                    elapsed = time.perf_counter() - started
                    self.metrics.transaction(elapsed, committed=committed)

    def _commit(self, connection: Connection) -> None:
        """Commit (on the writer's thread), unless the file went while the transaction ran:
        its writes would be answered as done, and lost."""
        if self._file is not None:
            self._file.refuse_if_gone()
        connection.commit()

    def _connect(self, given_up: Connection | None) -> Connection:
        """The writer's connection (on its thread); one given up is closed first."""
        assert self._writer is not None
        if given_up is not None:
            with contextlib.suppress(Exception):
                given_up.close()
        return self._writer.connect()

    async def _run(self, connection: Connection, work: Callable[[Connection], T]) -> T:
        """Run `work` on the writer's thread, with its connection (the one the transaction
        began on: disposing of the engine meanwhile closes it there, and forgets it here)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, work, connection)

    def _dispose(self, _engine: Any) -> None:
        """The async engine is disposed of: so are the writer's connection and pool (the next
        transaction, if any, opens a new one; the thread stays, idle, until this goes).

        The connection is closed on the writer's thread, after what was queued there (a
        cancelled transaction's rollback): closed from this thread while a statement ran, it
        could be left open inside its transaction, holding the file's write lock. (Closing
        rolls back a transaction still open: SQLAlchemy's `Connection.close`, and under it
        `engine.RollingBackConnection`.)"""
        connection, self._connection = self._connection, None
        if connection is not None and self._thread is not None:
            closing = self._thread.submit(connection.close)
            with contextlib.suppress(Exception):
                closing.result(timeout=CLOSE_SECONDS)
        if self._writer is not None:
            self._writer.dispose()


def _roll_back(connection: Connection) -> None:
    """Undo the transaction; a connection that cannot is given up (the next one is new). One
    closed already (the engine was disposed of) rolled back as it closed."""
    if connection.closed:
        return
    try:
        connection.rollback()
    except Exception:
        connection.invalidate()


class CoreTransaction:
    """A write transaction on a connection, answering the calls the store's functions make:
    `execute` and `scalar` (at once), `later` (a write whose result is not needed yet), `info`
    (the transaction's notes) and `bind` (its dialect).

    Writes held with `later` go, in order, with the transaction's next statement or its
    commit, so a read sees them. Each is an ordinary `Connection.execute`; what a write must
    do is checked on its result: a guarded one must return a row (else `GuardFailed`), a
    versioned UPDATE or DELETE must change exactly one row (else `StaleDataError`)."""

    def __init__(self, run: Run[Any], bind: Any) -> None:
        self._run = run
        self.bind = bind  # what `player_rows.upsert_player` reads the dialect from
        self.info: dict[str, Any] = {}
        self._later: list[Later] = []

    def later(self, write: Later) -> Later:
        """Hold a write for the next statement or the commit; its `row` is set once sent."""
        self._later.append(write)
        return write

    async def execute(self, statement: Any, parameters: Any = None) -> Any:
        """The statement's result (its rows read already), after the writes held."""
        writes, self._later = self._later, []
        return await self._run(
            lambda connection: _execute(connection, writes, statement, parameters)
        )

    async def scalar(self, statement: Any, parameters: Any = None) -> Any:
        return (await self.execute(statement, parameters)).scalar()

    async def flush(self, then: Callable[[Connection], Any] | None = None) -> None:
        """Send the writes held so far (and then run `then`, such as a commit, in the same
        batch), stopping at the first whose condition fails: the error rolls back."""
        writes, self._later = self._later, []
        if writes or then is not None:
            await self._run(lambda connection: _send(connection, writes, then))


def _execute(connection: Connection, writes: list[Later], statement: Any, parameters: Any) -> Any:
    _send(connection, writes)
    result = connection.execute(statement, parameters)
    # Rows are read here, where the connection lives; a write's result has none to read and
    # keeps its rowcount.
    return result.freeze()() if result.returns_rows else result


def _send(
    connection: Connection, writes: list[Later], then: Callable[[Connection], Any] | None = None
) -> None:
    for write in writes:
        result = connection.execute(write.statement, write.parameters)
        write.row = result.first() if result.returns_rows else None
        if write.guard and write.row is None:
            raise GuardFailed
        if write.one_change and result.rowcount != 1:
            raise StaleDataError("the row changed since it was read (another writer came first)")
    if then is not None:
        then(connection)
