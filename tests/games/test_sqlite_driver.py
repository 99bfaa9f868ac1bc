"""SQLite with one thread hop per statement or batch (bot/games/db/sqlite_driver.py), on a real
file: what SQLAlchemy's adapter relies on, and a batch that stops at its first failed
condition commits nothing."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from bot.games.db import sqlite_driver
from bot.games.db.batch import BatchItem
from bot.games.db.engine import create_engine
from bot.games.db.sqlite_driver import OneHopConnection


async def test_a_cursor_runs_fetches_and_counts_in_one_go(tmp_path: Path) -> None:
    connection = await sqlite_driver.connect(str(tmp_path / "one.sqlite3"))
    try:
        async with connection.cursor() as cursor:
            await cursor.execute("CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)")
            await cursor.executemany("INSERT INTO t (b) VALUES (?)", [("x",), ("y",), ("z",)])
            assert cursor.rowcount == 3
            await cursor.execute("SELECT a, b FROM t ORDER BY a")
            assert [d[0] for d in cursor.description] == ["a", "b"]
            assert await cursor.fetchone() == (1, "x")
            assert await cursor.fetchall() == [(2, "y"), (3, "z")]
            assert await cursor.fetchall() == []
        await connection.commit()
    finally:
        await connection.close()


async def test_a_batch_stops_at_the_first_failed_condition_and_nothing_is_kept(
    tmp_path: Path,
) -> None:
    connection = await sqlite_driver.connect(str(tmp_path / "batch.sqlite3"))
    try:
        await connection.execute("CREATE TABLE g (id INTEGER PRIMARY KEY, version INTEGER)")
        await connection.execute("INSERT INTO g VALUES (1, 1)")
        await connection.commit()
        insert = BatchItem("INSERT INTO g VALUES (?, ?)", (2, 1))
        stale = BatchItem(
            "UPDATE g SET version = 3 WHERE id = ? AND version = ?", (1, 2), needs_one_change=True
        )
        never = BatchItem("INSERT INTO g VALUES (?, ?)", (3, 1))
        outcome = await connection.run_batch([insert, stale, never], commit=True)
        assert outcome.failed_at == 1 and len(outcome.rows) == 2  # the third never ran
        await connection.rollback()  # what the caller does on a failed condition
        rows = await connection.execute_fetchall("SELECT id, version FROM g ORDER BY id")
        assert list(rows) == [(1, 1)]

        fresh = BatchItem(
            "UPDATE g SET version = 2 WHERE id = ? AND version = ?", (1, 1), needs_one_change=True
        )
        returning = BatchItem(
            "INSERT INTO g VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING id",
            (1, 9),
            needs_row=True,
        )
        outcome = await connection.run_batch([fresh, returning], commit=True)
        assert outcome.failed_at == 1 and outcome.rows == [None, None]  # id 1 exists
        await connection.rollback()
        outcome = await connection.run_batch([fresh], commit=True)
        assert outcome.failed_at is None and not connection.in_transaction
        await connection.commit()  # nothing left to commit: no hop, no error
        rows = await connection.execute_fetchall("SELECT id, version FROM g ORDER BY id")
        assert list(rows) == [(1, 2)]
    finally:
        await connection.close()


async def test_the_engine_opens_sqlite_files_on_it(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'engine.sqlite3'}")
    try:
        async with engine.begin() as connection:
            await connection.execute(text("CREATE TABLE t (a INTEGER)"))
            await connection.execute(text("INSERT INTO t VALUES (1), (2)"))
            raw = await connection.get_raw_connection()
            assert isinstance(raw.driver_connection, OneHopConnection)
        async with engine.connect() as connection:
            assert await connection.scalar(text("SELECT sum(a) FROM t")) == 3
    finally:
        await engine.dispose()
