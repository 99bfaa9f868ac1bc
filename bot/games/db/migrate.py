"""Apply pending Alembic migrations from code (the bot does this at start-up).

Alembic (and, through it, every SQLAlchemy dialect) takes about a sixth of a second to import,
so the bot first asks the database which revision it is at and imports Alembic only when it
is behind."""

from __future__ import annotations

import logging
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

import migrations

if TYPE_CHECKING:
    from alembic.config import Config

SCRIPT_LOCATION = Path(migrations.__file__).parent
_REVISION = re.compile(r'^(down_revision|revision)\s*=\s*(?:"([^"]*)"|None)', re.MULTILINE)


def alembic_config(database_url: str) -> Config:
    """An Alembic config for the packaged migrations and the given database."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    config.attributes["database_url"] = database_url
    return config


class OneLinePerMigration(logging.Filter):
    """Alembic at INFO, as a start-up says it: one line per migration applied ("Running
    upgrade 0020 -> 0021, Resign's question is stored on its game, …"), its description's
    first line only; its plugins' set-up and its notes on the dialect say nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.levelno > logging.INFO:
            return True
        if not message.startswith("Running upgrade"):
            return False
        record.msg, record.args = message.split("\n", 1)[0], None
        return True


#: The loggers Alembic says an upgrade's steps on.
ALEMBIC_LOGGERS = ("alembic.runtime.migration", "alembic.runtime.plugins")


def upgrade_database(database_url: str, revision: str = "head") -> None:
    """Bring the schema to `revision`. Blocking: it runs its own event loop, so call it from a
    thread (`asyncio.to_thread`) when a loop is already running."""
    one_line = OneLinePerMigration()
    for name in ALEMBIC_LOGGERS:  # before the import: Alembic's plugins speak as it loads
        logging.getLogger(name).addFilter(one_line)
    try:
        from alembic import command
        from alembic.util import CommandError

        command.upgrade(alembic_config(database_url), revision)
    except CommandError as error:  # e.g. a revision it does not know: a newer version's schema
        raise SchemaError(f"{error} (a newer version of the bot migrated it?)") from None
    finally:
        for name in ALEMBIC_LOGGERS:
            logging.getLogger(name).removeFilter(one_line)


class SchemaError(SQLAlchemyError):
    """Alembic cannot bring the schema to the revision asked for (a StorageError)."""


def newer_schema(revision: str | None) -> str | None:
    """What is wrong with a database whose schema is at `revision`, if a newer version of the
    bot migrated it (during a rolling upgrade, an instance not yet upgraded that restarts):
    this version's migrations cannot bring it anywhere, and its code may not fit it."""
    if revision is None or revision in known_revisions():
        return None
    return (
        f"its schema is at revision {revision}, newer than this version of the bot knows "
        f"({head_revision()}): a newer version migrated it; run that version"
    )


@cache
def known_revisions() -> dict[str, str | None]:
    """Every revision of the packaged migrations and the one it builds on (read from the
    scripts' `revision` and `down_revision` lines, without Alembic)."""
    known: dict[str, str | None] = {}
    for script in (SCRIPT_LOCATION / "versions").glob("*.py"):
        found = dict((key, value) for key, value in _REVISION.findall(script.read_text("utf-8")))
        if "revision" in found:
            known[found["revision"]] = found.get("down_revision") or None
    return known


@cache
def head_revision() -> str:
    """The newest revision of the packaged migrations: the one no other revision builds on."""
    revisions = known_revisions()
    heads = set(revisions) - set(revisions.values())
    if len(heads) != 1:
        raise RuntimeError(f"the migrations have {len(heads)} heads: {sorted(heads)}")
    return heads.pop()


async def is_current(engine: AsyncEngine) -> bool:
    """Whether the database's schema is at the packaged migrations' head already."""
    try:
        async with engine.connect() as connection:
            stored: str | None = await connection.scalar(
                text("SELECT version_num FROM alembic_version")
            )
    except SQLAlchemyError:
        return False  # no schema yet (or no such table): Alembic will say what is wrong
    return stored == head_revision()
