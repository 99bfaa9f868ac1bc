"""Apply pending Alembic migrations from code (the bot does this at start-up)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

import migrations

SCRIPT_LOCATION = Path(migrations.__file__).parent


def alembic_config(database_url: str) -> Config:
    """An Alembic config for the packaged migrations and the given database."""
    config = Config()
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    config.attributes["database_url"] = database_url
    return config


def upgrade_database(database_url: str, revision: str = "head") -> None:
    """Bring the schema to `revision`. Blocking: it runs its own event loop, so call it from a
    thread (`asyncio.to_thread`) when a loop is already running."""
    command.upgrade(alembic_config(database_url), revision)
