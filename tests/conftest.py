"""Shared fixtures: a migrated SQLite file per test, and the game service on it."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.db.engine import create_engine, create_session_factory
from bot.db.migrate import upgrade_database
from bot.service import GameService
from tests.bot_runner import BotRunner
from tests.fake_telegram import FakeTelegram


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    """A fresh, empty SQLite file (migrations not applied)."""
    return f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}"


@pytest.fixture
async def service(database_url: str) -> AsyncIterator[GameService]:
    """The game service on a migrated SQLite file, with a seeded generator."""
    await asyncio.to_thread(upgrade_database, database_url)
    engine = create_engine(database_url)
    try:
        yield GameService(create_session_factory(engine), random.Random(7))
    finally:
        await engine.dispose()


@pytest.fixture
async def telegram() -> AsyncIterator[FakeTelegram]:
    """The fake Telegram Bot API server on 127.0.0.1."""
    async with FakeTelegram() as fake:
        yield fake


@pytest.fixture
async def bot(telegram: FakeTelegram, database_url: str) -> AsyncIterator[BotRunner]:
    """The real bot, polling the fake server, on a fresh SQLite file."""
    runner = BotRunner(telegram, database_url)
    await runner.start()
    try:
        yield runner
    finally:
        await runner.stop()
