"""The engine: a PostgreSQL bot opens part of its pool at start-up (a connection opened in the
first burst of updates costs a handshake and a server process while a player waits); a SQLite
bot has nothing to open."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db.engine import POOL_SIZE, open_pool


async def test_open_pool_leaves_connections_ready_in_the_pool(engine: AsyncEngine) -> None:
    await engine.dispose()  # whatever the fixture's migration left
    await open_pool(engine)

    opened = engine.pool.checkedin()
    if engine.dialect.name == "sqlite":
        assert opened == 0
        return
    assert opened == POOL_SIZE // 2
    async with engine.connect() as connection:
        ours = await connection.scalar(
            text(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        )
        # Taking one opened none; the others wait in the pool, connected.
        assert engine.pool.checkedin() == opened - 1
    assert ours == opened - 1


async def test_a_connection_that_fails_to_open_ahead_leaves_the_bot_starting(
    engine: AsyncEngine, caplog: pytest.LogCaptureFixture
) -> None:
    if engine.dialect.name == "sqlite":
        pytest.skip("PostgreSQL only: set TEST_DATABASE_URL=postgresql+asyncpg://…")
    async with engine.connect() as connection:
        name = await connection.scalar(text("SELECT current_database()"))
        await connection.execute(text(f'ALTER DATABASE "{name}" CONNECTION LIMIT 3'))
        await connection.commit()
    await engine.dispose()

    await open_pool(engine)

    assert engine.pool.checkedin() == 3
    assert f"opened 3 of {POOL_SIZE // 2} connections ahead" in caplog.text
    async with engine.connect() as connection:  # one of those opened
        assert await connection.scalar(text("SELECT 1")) == 1
