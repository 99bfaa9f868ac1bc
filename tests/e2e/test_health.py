"""/healthz tells the truth about the database (`bot.games.db.health`): a write lock held by
another connection, a full disk and a deleted SQLite file are 503 with the reason, in time;
a deleted file is one ERROR, and the bot never creates an empty database in its place.

The bot's web app runs in this process on a free port, for a started Application against the
fake Bot API server, on a real SQLite file (these faults are a file's)."""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from telegram.ext import Application

from bot.app import build_application
from bot.config import Settings
from bot.games.db import health
from bot.games.db.engine import create_engine
from bot.intake import web
from bot.intake.web import WebServer, build_web_app
from tests.support.fake_telegram import FakeTelegram
from tests.support.processes import free_port, get_json

pytestmark = pytest.mark.skipif(
    os.environ.get("TEST_DATABASE_URL", "").startswith("postgresql"),
    reason="a SQLite file's faults",
)

PROBE = 1.0  # HEALTH_DB_TIMEOUT, shortened


@pytest.fixture
async def healthz(
    telegram: FakeTelegram, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Application, str]]:
    """The web app of a started bot whose engine is open on the test's SQLite file."""
    monkeypatch.setattr(web, "HEALTH_DB_TIMEOUT", PROBE)
    application = build_application(Settings(token=telegram.token, api_base_url=telegram.base_url))
    application.bot_data.engine = create_engine(database_url)
    port = free_port()
    server = WebServer(build_web_app(application), "127.0.0.1", port)
    await server.start()
    await application.initialize()
    await application.start()
    try:
        yield application, f"http://127.0.0.1:{port}/healthz"
    finally:
        await server.stop()
        await application.stop()
        await application.shutdown()
        await application.bot_data.engine.dispose()


def path_of(database_url: str) -> Path:
    database = make_url(database_url).database
    assert database
    return Path(database)


async def test_a_write_lock_is_503_database_locked_in_time(
    healthz: tuple[Application, str], database_url: str
) -> None:
    _, url = healthz
    assert await get_json(url) == (200, {"ok": True, "database": "ok"})
    other = sqlite3.connect(path_of(database_url), isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # reads go on (WAL); no other write can
        assert await get_json(url) == (503, {"ok": False, "database": "database locked"})
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert await get_json(url) == (200, {"ok": True, "database": "ok"})


def test_a_full_disk_is_said_as_such(tmp_path: Path) -> None:
    # SQLite's own "disk full", from a file that may not grow (max_page_count).
    db = sqlite3.connect(tmp_path / "full.sqlite3", isolation_level=None)
    db.execute("CREATE TABLE t (b BLOB)")
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(sqlite3.OperationalError) as full:
        db.execute("INSERT INTO t VALUES (zeroblob(100000))")
    db.close()
    assert health._state_of(full.value) is health.DatabaseState.DISK_FULL


async def test_a_deleted_file_is_503_one_error_and_no_new_empty_database(
    healthz: tuple[Application, str], database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    application, url = healthz
    engine = application.bot_data.engine
    async with engine.connect() as connection:  # the bot has opened its file
        await connection.execute(text("SELECT count(*) FROM games"))
    path = path_of(database_url)
    for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        leftover.unlink(missing_ok=True)
    with caplog.at_level(logging.INFO, "bot.games.db.health"):
        for _ in range(2):
            assert await get_json(url) == (503, {"ok": False, "database": "database file missing"})
        # The bot's own next transaction fails too, rather than writing to the deleted file
        # or to a new, empty one.
        with pytest.raises(Exception, match="database file missing"):
            async with engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1, errors
    assert "was deleted or replaced" in errors[0].getMessage()
    assert not path.exists()
