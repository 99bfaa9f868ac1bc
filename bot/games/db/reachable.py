"""Can the bot use DATABASE_URL? One line for the host when it cannot, before anything else
starts: a URL that is none, a database the bot does not speak, a server out of reach, a
database it may read but not write.

The bot speaks SQLite through aiosqlite and PostgreSQL through asyncpg; any other driver
(`mysql://`, `postgresql://` meaning psycopg2) would fail deep inside SQLAlchemy with a
traceback naming a module the host never heard of. No line quotes the password.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from sqlalchemy import inspect, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.games.db.migrate import newer_schema

#: The drivers the bot is built on, and how a host writes each.
SUPPORTED_DRIVERS = {
    "sqlite+aiosqlite": "sqlite+aiosqlite:///tictactoe.sqlite3",
    "postgresql+asyncpg": "postgresql+asyncpg://user:password@host:5432/db",
}
EXAMPLES = " or ".join(SUPPORTED_DRIVERS.values())
#: A guard against a server that takes the connection and never answers.
CONNECT_TIMEOUT = 15.0
#: A write that changes nothing, rolled back anyway.
REWRITE = "UPDATE alembic_version SET version_num = version_num"


class DatabaseProblem(Exception):
    """Why the bot cannot use a database, in one line free of the password. `settings`:
    the URL itself is wrong (a settings error) rather than the world (a server down)."""

    def __init__(self, line: str, *, settings: bool) -> None:
        super().__init__(line)
        self.settings = settings


def parse_database_url(database_url: str) -> URL:
    """The URL, if it is one the bot can use; else DatabaseProblem(settings=True)."""
    try:
        url = make_url(database_url)
    except ArgumentError:
        # Not repeated: the text may hold a password.
        raise DatabaseProblem(
            f"DATABASE_URL is not a database URL such as {EXAMPLES}.", settings=True
        ) from None
    if url.drivername not in SUPPORTED_DRIVERS:
        raise DatabaseProblem(
            f"DATABASE_URL uses {url.drivername!r}, which this bot does not speak: use {EXAMPLES}.",
            settings=True,
        )
    return url


def shown(database_url: str) -> str:
    """The URL as a log line may show it: the password hidden."""
    return make_url(database_url).render_as_string(hide_password=True)


async def check_database(database_url: str) -> None:
    """Connect once, and write nothing in a transaction rolled back; DatabaseProblem (one
    line) when that fails: a database the bot can read but not write (a read-only file or
    mount, a standby server) would otherwise start, then fail every move."""
    from bot.games.db.engine import create_engine

    url = parse_database_url(database_url)
    if url.drivername.startswith("sqlite") and _is_new_file(url):
        return  # the migrations will create it: nothing is left behind if start-up stops here
    engine = create_engine(database_url)
    try:
        async with asyncio.timeout(CONNECT_TIMEOUT):
            async with engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
                await _try_a_write(connection)
    except (SQLAlchemyError, OSError, TimeoutError) as error:
        raise DatabaseProblem(
            f"cannot use the database {shown(database_url)}: {first_line(error)}", settings=False
        ) from None
    finally:
        await engine.dispose()


async def _try_a_write(connection: AsyncConnection) -> None:
    """Rewrite the schema's revision as it is, and roll back (nothing to write before the
    first migration: that one will say); a schema a newer version of the bot migrated is a
    DatabaseProblem (`migrate.newer_schema`)."""
    tables = await connection.run_sync(lambda sync: inspect(sync).get_table_names())
    if "alembic_version" in tables:
        await connection.execute(text(REWRITE))
        await connection.rollback()
        revision = await connection.scalar(text("SELECT max(version_num) FROM alembic_version"))
        problem = newer_schema(revision)
        if problem is not None:
            url = connection.engine.url.render_as_string(hide_password=True)
            raise DatabaseProblem(f"cannot use the database {url}: {problem}", settings=False)


def _is_new_file(url: URL) -> bool:
    """A SQLite file that does not exist yet, in a folder where it can be made; a folder that
    is missing or closed is a DatabaseProblem."""
    if url.database in (None, "", ":memory:") or url.query:
        return False  # in memory, or a URI with options: connecting tells
    path = Path(url.database)
    if path.exists():
        return False
    folder = path.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise DatabaseProblem(
            f"cannot use the database {url}: {folder} is no folder the bot can write in",
            settings=False,
        )
    return True


def first_line(error: BaseException) -> str:
    """The error's kind and first line: SQLAlchemy's first line names the driver's error; the
    rest is SQL and a help link."""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
