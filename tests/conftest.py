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
