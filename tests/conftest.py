"""Shared fixtures: a migrated database per test (SQLite, or PostgreSQL with TEST_DATABASE_URL),
the use-cases on it, the fake Bot API server and the real bot."""

from __future__ import annotations

import asyncio
import compileall
import concurrent.futures
import contextlib
import os
import random
import shutil
import sqlite3
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

from bot.chores import board_catch_up
from bot.games.db.engine import create_engine, create_session_factory
from bot.games.db.migrate import upgrade_database
from bot.games.use_cases import Games, open_games
from tests.support.bot_runner import BotRunner
from tests.support.fake_telegram import FakeTelegram
from tests.support.time_scale import TELEGRAM_CLOCK, scaled_time

# CI is a gate, not a fuzzing campaign: there the property tests replay the same examples
# every run (derandomized, no example database), so a pass or a failure is reproducible.
# Run them locally (without CI set) to explore new examples.
# No deadline: a deadline is a timed assertion, and on a shared, busy machine an example that
# renders a big board may take longer than 200 ms without anything being wrong (speed is
# measured by bench/, not by tests).
hypothesis.settings.register_profile("default", deadline=None)
hypothesis.settings.register_profile("ci", derandomize=True, database=None, deadline=None)
hypothesis.settings.load_profile("ci" if os.environ.get("CI") else "default")


DATABASE_FIXTURES = frozenset({"database_url", "empty_database_url"})


def pytest_configure(config: pytest.Config) -> None:
    """Once, in the main process: the project's bytecode, written. The tests start `python -m
    bot` (and its workers) well over a hundred times, and where PYTHONDONTWRITEBYTECODE is set
    (or in a clean clone's first moments) each compiled bot/ and core/ again: about 0.4 s of
    CPU a process. compileall writes whatever that setting says; every process then reads."""
    if not hasattr(config, "workerinput"):
        root = Path(__file__).resolve().parents[1]
        for package in ("bot", "core", "migrations"):
            compileall.compile_dir(root / package, quiet=1, workers=1)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two test processes a core. Most of an end-to-end test is waiting (for the
    bot, the fake server, a paced chat), so one process a core leaves the cores half idle;
    measured on 2 cores, 4 processes took two thirds of the time 2 did, for the same CPU."""
    return 2 * (os.cpu_count() or 1)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests that use a test database (CI runs those again on PostgreSQL), and leave
    the paced tier out unless `-m` names it (`-m paced`, `-m "paced and database"`): it waits
    on Telegram's real clock, minutes where the rest takes seconds."""
    for item in items:
        if DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.database)
    if "paced" in (config.getoption("markexpr") or ""):
        return
    paced = [item for item in items if item.get_closest_marker("paced") is not None]
    if paced:
        config.hook.pytest_deselected(items=paced)
        items[:] = [item for item in items if item.get_closest_marker("paced") is None]


@pytest.fixture(autouse=True)
def _telegram_clock(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tests marked `paced` run on Telegram's own clock; the others on the run's shortened
    flood windows (`tests.support.time_scale`)."""
    if request.node.get_closest_marker("paced") is None:
        yield
        return
    with scaled_time(TELEGRAM_CLOCK):
        yield


#: How long a bot in a test gathers the boards it drew before marking them shown, instead of
#: `board_catch_up.MARK_DELAY_SECONDS` (0.5 s): a bot that stops writes the marks it gathered
#: (`BoardCatchUp.flush`), so every test that drew a board waited that long in its teardown,
#: and `flush` in a test (the journeys' every step) too. Batching is a matter of cost, not of
#: correctness: the catch-up must draw the same boards for any delay.
TEST_MARK_DELAY_SECONDS = 0.05


@pytest.fixture(autouse=True)
def _short_mark_delay(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The boards' marks gathered for `TEST_MARK_DELAY_SECONDS` (it is no setting of the bot's:
    a module constant); the paced tier keeps the bot's own delay, as it runs live."""
    if request.node.get_closest_marker("paced") is None:
        monkeypatch.setattr(board_catch_up, "MARK_DELAY_SECONDS", TEST_MARK_DELAY_SECONDS)


@pytest.fixture(params=["shortened", pytest.param("telegram", marks=pytest.mark.paced)])
def both_clocks(request: pytest.FixtureRequest) -> str:
    """Runs a test twice: on the shortened flood windows (in the default run) and on
    Telegram's own clock (in the paced tier). For tests that prove something of the flood
    limits that holds whatever their window, and is worth proving on the real one too."""
    return str(request.param)


def _admin_url() -> URL | None:
    """The PostgreSQL server named by TEST_DATABASE_URL, or None for SQLite."""
    admin_url = os.environ.get("TEST_DATABASE_URL", "").strip()
    return make_url(admin_url) if admin_url else None


@pytest.fixture(scope="module")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file with every migration applied, checkpointed: a database to copy (the
    backups' tests: a backup of this kind is SQLite's alone)."""
    path = tmp_path_factory.mktemp("migrated") / "bot.sqlite3"
    upgrade_database(f"sqlite+aiosqlite:///{path}")
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture(scope="session")
def _migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One database per test process with every migration applied, for tests to copy: a
    SQLite file, or a PostgreSQL database that `CREATE DATABASE … TEMPLATE` copies. Running
    the ten Alembic migrations costs far more than a copy; `tests/games/test_migrations.py`
    runs the migrations themselves on empty databases."""
    admin = _admin_url()
    if admin is None:
        path = tmp_path_factory.mktemp("template") / "migrated.sqlite3"
        upgrade_database(f"sqlite+aiosqlite:///{path}")
        # Fold the write-ahead log into the file, so that a copy of the file is the database.
        with contextlib.closing(sqlite3.connect(path)) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        yield str(path)
        return
    name = f"template_{uuid.uuid4().hex[:16]}"
    _run_admin(admin, f'CREATE DATABASE "{name}"')
    try:
        upgrade_database(admin.set(database=name).render_as_string(hide_password=False))
        yield name
    finally:
        _drop_database(admin, name)


@pytest.fixture
def database_url(tmp_path: Path, _migrated_template: str) -> Iterator[str]:
    """A fresh database of the test's own with the schema at the migrations' head: a SQLite
    file, or, when TEST_DATABASE_URL names a PostgreSQL server (`postgresql+asyncpg://…`), a
    database there, dropped after the test."""
    admin = _admin_url()
    if admin is None:
        path = tmp_path / "bot.sqlite3"
        shutil.copyfile(_migrated_template, path)
        yield f"sqlite+aiosqlite:///{path}"
        return
    with _postgres_database(admin, f'TEMPLATE "{_migrated_template}"') as url:
        yield url


@pytest.fixture
def empty_database_url(tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database (no migration applied), as `database_url` otherwise: for the
    tests of the migrations and of a bot's first start."""
    admin = _admin_url()
    if admin is None:
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.sqlite3'}"
        return
    with _postgres_database(admin) as url:
        yield url


@contextlib.contextmanager
def _postgres_database(admin: URL, options: str = "") -> Iterator[str]:
    """A new database on the server (CREATE DATABASE with `options`), dropped afterwards."""
    name = f"test_{uuid.uuid4().hex[:16]}"
    _run_admin(admin, f'CREATE DATABASE "{name}" {options}')
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
