"""Is the database usable, for /healthz: a real tiny write (the `health` row), with a short
timeout, and what stops it in a few words.

A SELECT 1 answered through a 40 s exclusive lock, a full disk and a deleted file. The probe
writes instead: on SQLite with a connection of its own (mode=rw: it never creates a file)
whose busy timeout is the probe's, so a lock is "database locked" in time and no pooled
connection waits 30 s behind it; on PostgreSQL with the pool, in a transaction of its own.
A SQLite file deleted, replaced or made read-only under the running bot
(`bot.games.db.sqlite_file`) is said without touching it: SQLite's write to a read-only
wal-index would end the process.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import sqlite3
from pathlib import Path
from typing import Any
from urllib.request import pathname2url

from sqlalchemy import bindparam
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db import statements
from bot.games.db.models import Heartbeat, utcnow
from bot.games.db.sqlite_file import FileFault, file_of, refusal

log = logging.getLogger(__name__)

#: How long /healthz waits for the probe's write (a lock is waited for this long at most).
PROBE_TIMEOUT = 3.0


class DatabaseState(enum.Enum):
    """What /healthz says of the database."""

    OK = "ok"
    NOT_OPEN = "not open"
    LOCKED = "database locked"
    DISK_FULL = "disk full"
    FILE_MISSING = "database file missing"
    READ_ONLY = "database read-only"
    TIMEOUT = "timeout"
    ERROR = "error"


#: What /healthz says of a fault of the SQLite file.
SAID = {FileFault.MISSING: DatabaseState.FILE_MISSING, FileFault.READ_ONLY: DatabaseState.READ_ONLY}


async def probe(engine: AsyncEngine | None, timeout: float = PROBE_TIMEOUT) -> DatabaseState:  # noqa: ASYNC109
    """Write the health row within `timeout` seconds; what stopped it, if anything."""
    if engine is None:
        return DatabaseState.NOT_OPEN
    file = file_of(engine)
    try:
        async with asyncio.timeout(timeout):
            if file is not None:
                fault = file.fault()
                if fault is not None:
                    return SAID[fault]
                # SQLite's own wait ends first: a lock is said as such, not as a timeout.
                return await asyncio.to_thread(_write_sqlite, file.path, timeout * 0.6)
            async with engine.begin() as connection:
                await connection.execute(_upsert(engine.dialect.name), _row())
    except TimeoutError:
        return DatabaseState.TIMEOUT
    except (DBAPIError, sqlite3.Error, OSError) as error:
        return _state_of(error)
    except Exception as error:  # any driver's error: the check reports it, the bot goes on
        log.info("health probe failed: %s", type(error).__name__)
        return DatabaseState.ERROR
    return DatabaseState.OK


def _row() -> dict[str, Any]:
    return {"health_id": 1, "checked_at": utcnow()}


def _upsert(dialect: str) -> Any:
    insert = statements.upsert_for(dialect)(Heartbeat).values(
        id=bindparam("health_id"), checked_at=bindparam("checked_at")
    )
    return insert.on_conflict_do_update(
        index_elements=[Heartbeat.id], set_={"checked_at": insert.excluded.checked_at}
    )


def _write_sqlite(path: str, timeout: float) -> DatabaseState:
    """The probe's write on a connection of its own, which waits at most `timeout` for a
    lock and opens only an existing file."""
    if not Path(path).exists():
        return DatabaseState.FILE_MISSING
    uri = f"file:{pathname2url(path)}?mode=rw"
    connection = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)
    try:
        connection.execute(
            "INSERT INTO health (id, checked_at) VALUES (1, ?) "
            "ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at",
            (utcnow().isoformat(sep=" "),),
        )
    finally:
        connection.close()
    return DatabaseState.OK


def _state_of(error: BaseException) -> DatabaseState:
    """The few words for a driver's error (SQLite's and PostgreSQL's messages)."""
    text = str(getattr(error, "orig", None) or error).lower()
    if "locked" in text or "lock timeout" in text or "lock_not_available" in text:
        return DatabaseState.LOCKED
    fault = refusal(error)
    if fault is not None:
        return SAID[fault]
    if "disk is full" in text or "no space left" in text or "disk full" in text:
        return DatabaseState.DISK_FULL
    if isinstance(error, DBAPIError) and "diskfull" in type(error.orig).__name__.lower():
        return DatabaseState.DISK_FULL
    log.info("health probe failed: %s", type(error).__name__)
    return DatabaseState.ERROR
