"""Is the database usable, for /healthz: a real tiny write (the `health` row), with a short
timeout, and what stops it in a few words. And a SQLite file deleted under the running bot.

A SELECT 1 answered through a 40 s exclusive lock, a full disk and a deleted file. The probe
writes instead: on SQLite with a connection of its own (mode=rw: it never creates a file)
whose busy timeout is the probe's, so a lock is "database locked" in time and no pooled
connection waits 30 s behind it; on PostgreSQL with the pool, in a transaction of its own.

A SQLite file deleted (or replaced) while the bot runs: connections already open go on
writing to the deleted file, which nobody will ever read, and a new connection would create
a new, empty database. `SqliteFile` remembers the file the engine opened first (device and
inode); from then on every new connection opens only an existing file (mode=rw), and every
checkout from the pool checks that the file is still that one: if not, the transaction fails
and one ERROR says why (once).
"""

from __future__ import annotations

import asyncio
import enum
import logging
import os
import sqlite3
import weakref
from pathlib import Path
from typing import Any
from urllib.request import pathname2url

from sqlalchemy import Engine, bindparam, event
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db import statements
from bot.games.db.models import Heartbeat, utcnow

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
    TIMEOUT = "timeout"
    ERROR = "error"


class SqliteFile:
    """The SQLite file an engine opened first, and whether it is still the one at its path."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        self.identity: tuple[int, int] | None = None
        self._reported = False

    def _now(self) -> tuple[int, int] | None:
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            return None
        return found.st_dev, found.st_ino

    def missing(self) -> bool:
        """Whether the file opened first is gone from its path (deleted, or replaced); the
        first time, one ERROR."""
        if self.identity is None or self._now() == self.identity:
            return False
        if not self._reported:
            self._reported = True
            log.error(
                "the database file %s was deleted or replaced while the bot runs: nothing "
                "can be stored until it is back (the bot will not create an empty one)",
                self.path,
            )
        return True

    def watch(self, engine: Engine) -> None:
        """Open `engine`'s connections on this file only (see the module's docstring)."""
        event.listen(engine, "do_connect", self._connect)
        event.listen(engine, "connect", self._opened)
        event.listen(engine, "checkout", self._checkout)

    def _connect(
        self, _dialect: Any, _record: Any, cargs: list[Any], cparams: dict[str, Any]
    ) -> None:
        if self.identity is None:
            return  # the first: it may create the file, as on a first start
        if self.missing():
            raise DisconnectionError(DatabaseState.FILE_MISSING.value)
        cargs[:1] = [f"file:{pathname2url(self.path)}?mode=rw"]
        cparams["uri"] = True

    def _opened(self, _dbapi_connection: Any, _record: Any) -> None:
        if self.identity is None:
            self.identity = self._now()

    def _checkout(self, _dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        if self.missing():
            raise DisconnectionError(DatabaseState.FILE_MISSING.value)


_files: weakref.WeakKeyDictionary[Engine, SqliteFile] = weakref.WeakKeyDictionary()


def watch_sqlite_file(engine: AsyncEngine) -> None:
    """Watch the file of an engine on a SQLite file (nothing for another database)."""
    database = engine.url.database
    if engine.dialect.name != "sqlite" or database in (None, "", ":memory:") or engine.url.query:
        return
    file = _files[engine.sync_engine] = SqliteFile(database)
    file.watch(engine.sync_engine)


def watch_writer(engine: AsyncEngine, writer: Engine) -> None:
    """The writer thread's engine (`bot.games.db.engine.sqlite_writer`) on the same file."""
    file = _files.get(engine.sync_engine)
    if file is not None:
        file.watch(writer)


async def probe(engine: AsyncEngine | None, timeout: float = PROBE_TIMEOUT) -> DatabaseState:  # noqa: ASYNC109
    """Write the health row within `timeout` seconds; what stopped it, if anything."""
    if engine is None:
        return DatabaseState.NOT_OPEN
    file = _files.get(engine.sync_engine)
    try:
        async with asyncio.timeout(timeout):
            if file is not None:
                if file.missing():
                    return DatabaseState.FILE_MISSING
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
    if "disk is full" in text or "no space left" in text or "disk full" in text:
        return DatabaseState.DISK_FULL
    if "unable to open database file" in text:
        return DatabaseState.FILE_MISSING
    if isinstance(error, DBAPIError) and "diskfull" in type(error.orig).__name__.lower():
        return DatabaseState.DISK_FULL
    log.info("health probe failed: %s", type(error).__name__)
    return DatabaseState.ERROR
