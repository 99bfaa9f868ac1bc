"""Shared fixtures: a migrated database per test (SQLite, or PostgreSQL with TEST_DATABASE_URL),
the use-cases on it, the fake Bot API server and the real bot."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import random
import time
import uuid
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import hypothesis
import pytest
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db.engine import create_engine, create_session_factory
from bot.games.db.migrate import upgrade_database
from bot.games.use_cases import Games, open_games
from tests.support.bot_runner import BotRunner
from tests.support.fake_telegram import FakeTelegram

# CI is a gate, not a fuzzing campaign: there the property tests replay the same examples
# every run (derandomized, no example database), so a pass or a failure is reproducible.
# Run them locally (without CI set) to explore new examples.
hypothesis.settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    hypothesis.settings.load_profile("ci")


@pytest.fixture
def database_url(tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database (migrations not applied): a SQLite file, or, when
    TEST_DATABASE_URL names a PostgreSQL server (`postgresql+asyncpg://…`), a database of its
    own there, dropped after the test."""
    admin_url = os.environ.get("TEST_DATABASE_URL", "").strip()
    if not admin_url:
        yield f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}"
        return
    admin = make_url(admin_url)
    name = f"test_{uuid.uuid4().hex[:16]}"
    _run_admin(admin, f'CREATE DATABASE "{name}"')
    try:
        yield admin.set(database=name).render_as_string(hide_password=False)
    finally:
        _drop_database(admin, name)


def _drop_database(admin: URL, name: str) -> None:
    """Drop a test's database. PostgreSQL may refuse for a moment while an autovacuum worker
    is in it; the server is a throwaway one, so after a few tries the database is left."""
    for attempt in range(5):
        try:
            _run_admin(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            return
        except Exception:
            if attempt == 4:
                warnings.warn(f"could not drop test database {name}", stacklevel=1)
                return
            time.sleep(0.2 * (attempt + 1))


def _run_admin(admin: URL, sql: str) -> None:
    """One statement on the PostgreSQL server, outside any transaction (CREATE DATABASE needs
    that), in a thread with its own event loop: this fixture may run inside the test's loop."""

    async def run() -> None:
        connection = await asyncpg.connect(
            host=admin.host,
            port=admin.port,
            user=admin.username,
            password=admin.password,
            database=admin.database or "postgres",
        )
        try:
            await connection.execute(sql)
        finally:
            await connection.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, run()).result()


@pytest.fixture
async def games(database_url: str) -> AsyncIterator[Games]:
    """The use-cases on a migrated database (see `database_url`), with a seeded generator."""
    await asyncio.to_thread(upgrade_database, database_url)
    engine = create_engine(database_url)
    try:
        yield open_games(create_session_factory(engine), random.Random(7))
    finally:
        await engine.dispose()


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    """The test's own connection to the database (see `database_url`), to read what the bot,
    or the bots, stored there."""
    engine = create_engine(database_url)
    try:
        yield engine
    finally:
        await engine.dispose()


@pytest.fixture
async def telegram() -> AsyncIterator[FakeTelegram]:
    """The fake Telegram Bot API server on 127.0.0.1."""
    async with FakeTelegram() as fake:
        yield fake


@pytest.fixture
async def bot(telegram: FakeTelegram, database_url: str) -> AsyncIterator[BotRunner]:
    """The real bot, polling the fake server, on a fresh database."""
    runner = BotRunner(telegram, database_url)
    await runner.start()
    try:
        yield runner
    finally:
        await runner.stop()
