"""The schema comes from Alembic, and it is exactly the models' schema."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from bot.games.db.engine import create_engine
from bot.games.db.migrate import alembic_config, head_revision, is_current, upgrade_database
from bot.games.db.models import Base

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def database_url(empty_database_url: str) -> str:
    """These tests run the migrations themselves: an empty database."""
    return empty_database_url


async def _schema_differences(database_url: str) -> list:
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:

            def compare(sync_connection):  # type: ignore[no-untyped-def]
                context = MigrationContext.configure(sync_connection, opts={"compare_type": True})
                return compare_metadata(context, Base.metadata)

            return await connection.run_sync(compare)
    finally:
        await engine.dispose()


async def _tables(database_url: str) -> set[str]:
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:
            return set(await connection.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        await engine.dispose()


async def test_upgrade_head_on_empty_database_gives_exactly_the_models_schema(
    database_url: str,
) -> None:
    await asyncio.to_thread(upgrade_database, database_url)
    assert await _schema_differences(database_url) == []
    assert await _tables(database_url) == {
        "alembic_version",
        "players",
        "games",
        "moves",
        "handled_updates",
        "inbox_updates",
        "ratings",
        "match_queue",
        "pairing_blocks",
        "flood_budget",
        "health",
        "tournaments",
        "tournament_players",
        "tournament_pairings",
        "matches",
    }


async def test_an_empty_database_differs_from_the_models(database_url: str) -> None:
    # The comparison above can fail: without migrations every table is missing.
    differences = await _schema_differences(database_url)
    added = {d[1].name for d in differences if d[0] == "add_table"}
    assert added == {
        "players",
        "games",
        "moves",
        "handled_updates",
        "inbox_updates",
        "ratings",
        "match_queue",
        "pairing_blocks",
        "flood_budget",
        "health",
        "tournaments",
        "tournament_players",
        "tournament_pairings",
        "matches",
    }


async def test_upgrade_is_idempotent_and_downgrade_goes_back_to_empty(database_url: str) -> None:
    await asyncio.to_thread(upgrade_database, database_url)
    await asyncio.to_thread(upgrade_database, database_url)
    await asyncio.to_thread(command.downgrade, alembic_config(database_url), "base")
    assert await _tables(database_url) == {"alembic_version"}


def test_the_head_read_without_alembic_is_alembics_head() -> None:
    scripts = ScriptDirectory.from_config(alembic_config("sqlite://"))
    assert head_revision() == scripts.get_current_head()


async def test_start_up_sees_whether_the_schema_is_current(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        assert not await is_current(engine)  # empty: no alembic_version table
        await asyncio.to_thread(upgrade_database, database_url, "0004")
        assert not await is_current(engine)  # behind
        await asyncio.to_thread(upgrade_database, database_url)
        assert await is_current(engine)
    finally:
        await engine.dispose()


@pytest.mark.process
def test_alembic_upgrade_head_works_from_the_repo_root(tmp_path: Path) -> None:
    database = tmp_path / "cli.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{database}"}
    alembic = Path(sys.executable).parent / "alembic"
    done = subprocess.run(
        [str(alembic), "upgrade", "head"], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    url = f"sqlite+aiosqlite:///{database}"
    tables = {"alembic_version", "players", "games", "moves", "handled_updates", "inbox_updates"}
    assert asyncio.run(_tables(url)) == tables | {
        "ratings",
        "match_queue",
        "pairing_blocks",
        "flood_budget",
        "health",
        "tournaments",
        "tournament_players",
        "tournament_pairings",
        "matches",
    }


async def test_an_upgrade_says_one_line_per_migration_and_nothing_else(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Issue 50: every start printed Alembic's plugin set-up, its notes on the dialect, and
    # the migrations' descriptions over several lines each.
    with caplog.at_level(logging.INFO, logger="alembic"):
        await asyncio.to_thread(upgrade_database, database_url)
    said = [r.getMessage() for r in caplog.records if r.name.startswith("alembic")]
    migrations = list(ScriptDirectory.from_config(alembic_config(database_url)).walk_revisions())
    assert len(said) == len(migrations), said
    assert all(line.startswith("Running upgrade") and "\n" not in line for line in said), said
