"""aiosqlite with one thread hop per statement.

aiosqlite runs SQLite on a thread of its own and hops to it for every call. SQLAlchemy's
adapter makes four calls per statement: open a cursor, execute, fetch the rows, close the
cursor; each hop wakes the thread and then the event loop. Here the cursor is opened on the
thread by the statement itself, the rows come back with it, and the cursor is left for the
garbage collector: one hop per statement, the same SQLite underneath. SQLAlchemy gets these
connections through `create_async_engine(async_creator=...)`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

import aiosqlite
from sqlalchemy.exc import IntegrityError

from bot.games.db.batch import BatchItem, BatchOutcome


class OneHopCursor(aiosqlite.Cursor):
    """An aiosqlite cursor whose `execute` opens its sqlite3 cursor, runs the statement and
    fetches every row in a single call on the connection's thread."""

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self.iter_chunk_size = connection._iter_chunk_size
        self._conn = connection
        self._cursor: sqlite3.Cursor | None = None  # type: ignore[assignment]
        self._rows: list[Any] = []

    async def execute(self, sql: str, parameters: Iterable[Any] | None = None) -> OneHopCursor:
        def run() -> tuple[sqlite3.Cursor, list[Any]]:
            cursor = self._cursor or self._conn._conn.cursor()
            cursor.execute(sql, () if parameters is None else parameters)
            return cursor, (cursor.fetchall() if cursor.description else [])

        self._cursor, self._rows = await self._conn._execute(run)
        return self

    async def executemany(self, sql: str, parameters: Iterable[Iterable[Any]]) -> OneHopCursor:
        def run() -> sqlite3.Cursor:
            cursor = self._cursor or self._conn._conn.cursor()
            cursor.executemany(sql, parameters)
            return cursor

        self._cursor, self._rows = await self._conn._execute(run), []
        return self

    async def fetchone(self) -> Any:
        return self._rows.pop(0) if self._rows else None

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        count = self.arraysize if size is None else size
        taken, self._rows = self._rows[:count], self._rows[count:]
        return taken

    async def fetchall(self) -> list[Any]:
        taken, self._rows = self._rows, []
        return taken

    async def close(self) -> None:
        # Nothing to wait for: a sqlite3 cursor holds no lock once its rows are read, and it is
        # finalized when it is collected.
        self._rows = []

    @property
    def description(self) -> Any:
        return None if self._cursor is None else self._cursor.description

    @property
    def rowcount(self) -> int:
        return -1 if self._cursor is None else self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return None if self._cursor is None else self._cursor.lastrowid

    @property
    def arraysize(self) -> int:
        return 1 if self._cursor is None else self._cursor.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        if self._cursor is not None:
            self._cursor.arraysize = value


class _OpenCursor:
    """What `Connection.cursor()` returns: usable with `async with` and `await`, as
    aiosqlite's own is, but ready without a hop to the thread."""

    def __init__(self, cursor: OneHopCursor) -> None:
        self._cursor = cursor

    async def __aenter__(self) -> OneHopCursor:
        return self._cursor

    async def __aexit__(self, *_exc: object) -> None:
        await self._cursor.close()

    def __await__(self) -> Any:
        async def ready() -> OneHopCursor:
            return self._cursor

        return ready().__await__()


class OneHopConnection(aiosqlite.Connection):
    def cursor(self) -> _OpenCursor:  # type: ignore[override]
        return _OpenCursor(OneHopCursor(self))

    async def run_batch(self, items: list[BatchItem], *, commit: bool = False) -> BatchOutcome:
        """Run statements one after the other in one hop to the thread, stopping at the first
        whose condition fails (the caller rolls back then); with `commit`, commit after the
        last. A write transaction's statements thus cost one hop, and its commit none."""
        try:
            return await self._execute(_run_batch, self._conn, items, commit)
        except sqlite3.IntegrityError as error:
            # What SQLAlchemy would raise: the store answers it as a lost race.
            raise IntegrityError(str(error), None, error) from error

    async def commit(self) -> None:
        if self._conn.in_transaction:  # a batch may have committed already
            await super().commit()

    async def rollback(self) -> None:
        if self._conn.in_transaction:
            await super().rollback()


async def connect(database: str, **kwargs: Any) -> OneHopConnection:
    """Open a SQLite file (sqlite3.connect's keyword arguments) on a connection thread, as
    SQLAlchemy's aiosqlite dialect does: `check_same_thread=False`, a daemon thread."""

    def connector() -> sqlite3.Connection:
        return sqlite3.connect(database, check_same_thread=False, **kwargs)

    connection = OneHopConnection(connector, 64)
    connection._thread.daemon = True
    return await connection


def _run_batch(connection: sqlite3.Connection, items: list[BatchItem], commit: bool) -> Any:
    rows: list[Any] = []
    for index, item in enumerate(items):
        cursor = connection.cursor()
        if item.many:
            cursor.executemany(item.sql, item.parameters)
            returned = None
        else:
            cursor.execute(item.sql, item.parameters)
            fetched = cursor.fetchall() if cursor.description else []
            returned = fetched[0] if fetched else None
        rows.append(returned)
        if (item.needs_row and returned is None) or (
            item.needs_one_change and cursor.rowcount != 1
        ):
            return BatchOutcome(rows, index)
    if commit:
        connection.commit()
    return BatchOutcome(rows)
