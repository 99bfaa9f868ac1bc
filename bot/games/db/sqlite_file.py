"""The SQLite file under the running bot: deleted, replaced or made read-only. Nothing is
stored then, nothing is answered as stored, and SQLite's shared memory does not kill the
process.

Deleted or replaced: connections already open go on writing to the deleted file, which nobody
will ever read, and a new connection would create a new, empty database. `SqliteFile`
remembers the file the engine opened first (device and inode), and from then on every new
connection opens only an existing file (mode=rw).

Read-only (its permissions; the immutable flag, `chattr +i`, which binds root too; a read-only
mount): connections already open keep their writable descriptors. But in WAL mode every
transaction, a read too, writes to SQLite's wal-index: the -shm file beside the database,
mapped into the process. The kernel answers a write to a page of a mapped file it will not let
be written with SIGBUS, which ends the process on the spot with nothing logged. Closing the
last connection writes there too (its checkpoint), and so does a connection closed at exit.

So before SQLite touches the file (a new connection, every checkout from the pool, every write
transaction on the writer's connection) `SqliteFile.fault` asks: is the path still the file
opened first (one `stat`), and may its -wal and -shm be written (`access`, which sees the
permissions, the immutable flag and a read-only mount)? Three system calls, 5 to 10 µs; a
commit asks again whether the file is still there (the `stat`). If not, the transaction fails
with `UnusableFile` before SQLite runs, and one ERROR says what is wrong and what to do (again
only once the file was usable in between). Connections are not closed while the files are
read-only: the stopping bot leaves them open and ends the process without closing them
(`must_stay_open`, `end_process_if_left_open`). What is left is the instant between the
check and SQLite's next write to its shared memory: should the kernel end the process then,
it says why first (`say_why_before_a_bus_error`).
"""

from __future__ import annotations

import enum
import logging
import os
import signal
import sqlite3
import threading
import weakref
from types import FrameType
from typing import Any
from urllib.request import pathname2url

from sqlalchemy import Engine, event
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

log = logging.getLogger(__name__)


class FileFault(enum.Enum):
    """Why the database's file cannot be used (as /healthz says it)."""

    MISSING = "database file missing"
    READ_ONLY = "database read-only"


#: The ERROR for each fault: what is wrong, and what to do (`%s`: the file's path).
REPORTS = {
    FileFault.MISSING: (
        "the database file %s was deleted or replaced while the bot runs: nothing can be "
        "stored, and taps are answered that they could not be saved. Put the file back and "
        "restart the bot (it will not create an empty one)"
    ),
    FileFault.READ_ONLY: (
        "the database %s is read-only (its -wal or -shm file beside it cannot be written): "
        "nothing can be stored, and taps are answered that they could not be saved. Make the "
        "database's files and their folder writable for the bot's user again (their "
        "permissions, chattr -i, the mount); the bot goes on by itself once they are writable"
    ),
}


class UnusableFile(SQLAlchemyError):
    """A transaction refused before SQLite touched the database's file (see `FileFault`)."""

    def __init__(self, fault: FileFault) -> None:
        super().__init__(fault.value)
        self.fault = fault


class SqliteFile:
    """The SQLite file an engine opened first, and whether it can still be used."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        # What a transaction writes to in WAL mode: the write-ahead log (a read-only one fails
        # every write) and the wal-index (a read-only one is SIGBUS). The database itself is
        # written only by checkpoints, whose failure SQLite shrugs off; the health probe's
        # own connection finds it read-only.
        self._written = (f"{self.path}-wal", f"{self.path}-shm")
        self.identity: tuple[int, int] | None = None
        self._reported: FileFault | None = None
        # `fault` is asked on the event loop's thread and on the writer's.
        self._reporting = threading.Lock()

    def _now(self) -> tuple[int, int] | None:
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            return None
        return found.st_dev, found.st_ino

    def fault(self) -> FileFault | None:
        """What keeps the file opened first from being used now, if anything: gone from its
        path (deleted, or replaced), or read-only. One ERROR when a fault begins, one INFO
        when it ends."""
        if self.identity is None:
            return None  # nothing opened yet: the first connection may create the file
        if self._now() != self.identity:
            fault: FileFault | None = FileFault.MISSING
        elif not all(map(self._writable, self._written)):
            fault = FileFault.READ_ONLY
        else:
            fault = None
        if fault is not self._reported:
            self._report(fault)
        return fault

    @staticmethod
    def _writable(path: str) -> bool:
        # A -wal or -shm not there (yet) is none that could not be written.
        return os.access(path, os.W_OK) or not os.path.lexists(path)

    def _report(self, fault: FileFault | None) -> None:
        with self._reporting:
            if fault is self._reported:
                return
            self._reported = fault
        if fault is None:
            log.info("the database file %s can be used again: the bot stores again", self.path)
        else:
            log.error(REPORTS[fault], self.path)

    def refuse_if_unusable(self) -> None:
        """UnusableFile if the file cannot be used now."""
        fault = self.fault()
        if fault is not None:
            raise UnusableFile(fault)

    def refuse_if_gone(self) -> None:
        """UnusableFile if the file opened first is no longer at its path (one `stat`): what
        a commit asks, whose write to a deleted file would be answered as done, and lost."""
        if self.identity is not None and self._now() != self.identity:
            self.refuse_if_unusable()

    def watch(self, engine: Engine) -> None:
        """Open `engine`'s connections on this file only, and use them only while it can be
        used (see the module's docstring)."""
        event.listen(engine, "do_connect", self._connect)
        event.listen(engine, "connect", self._opened)
        event.listen(engine, "checkout", self._checkout)

    def _connect(
        self, _dialect: Any, _record: Any, cargs: list[Any], cparams: dict[str, Any]
    ) -> None:
        if self.identity is None:
            return  # the first: it may create the file, as on a first start
        self.refuse_if_unusable()
        cargs[:1] = [f"file:{pathname2url(self.path)}?mode=rw"]
        cparams["uri"] = True

    def _opened(self, _dbapi_connection: Any, _record: Any) -> None:
        if self.identity is None:
            self.identity = self._now()

    def _checkout(self, _dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        # Not a DisconnectionError: the pool would close the connection, and closing one on a
        # read-only -shm is the SIGBUS this avoids.
        self.refuse_if_unusable()


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


def file_of(engine: AsyncEngine) -> SqliteFile | None:
    """The watched file of an engine on a SQLite file (None for another database)."""
    return _files.get(engine.sync_engine)


def refusal(error: BaseException | None) -> FileFault | None:
    """The fault of the database's file behind a failure, if that is what it was: our own
    refusal (`UnusableFile`), or a driver's words for a database it may not write (SQLite's
    read-only file, PostgreSQL's standby) or a file it cannot open; its causes too."""
    for _ in range(8):  # a chain of causes is short; a cycle is not followed forever
        if error is None:
            return None
        if isinstance(error, UnusableFile):
            return error.fault
        if isinstance(error, (DBAPIError, sqlite3.Error)):
            text = str(getattr(error, "orig", None) or error).lower()
            if "readonly database" in text or "read-only transaction" in text:
                return FileFault.READ_ONLY
            if "unable to open database file" in text:
                return FileFault.MISSING
        error = error.__cause__ or error.__context__
    return None


_left_open: list[AsyncEngine] = []


def must_stay_open(engine: AsyncEngine) -> bool:
    """Whether the engine's connections must stay open: closing the last one writes to the
    wal-index (its checkpoint), which on a read-only -shm is SIGBUS. The engine is kept then,
    for `end_process_if_left_open`."""
    file = file_of(engine)
    if file is None or file.fault() is not FileFault.READ_ONLY:
        return False
    _left_open.append(engine)
    log.warning(
        "the database file %s is read-only: its connections are left open (closing them "
        "would write to it), and the process ends without closing them",
        file.path,
    )
    return True


def end_process_if_left_open(code: int) -> None:
    """End the process at once, with `code`, if connections were left open: at the
    interpreter's exit they would be closed (`must_stay_open`)."""
    if _left_open:
        logging.shutdown()
        os._exit(code)


def say_why_before_a_bus_error() -> None:
    """Should the kernel end the process with SIGBUS after all (the -shm made read-only in the
    instant between the check and SQLite's write), the log says why first. SQLite runs on
    threads of its own here (aiosqlite's, the writer's, the health probe's): the signal comes to
    that thread, again and again while its write cannot go on, and Python runs this handler on
    the main thread, which logs, then lets the signal end the process as it would have."""
    signal.signal(signal.SIGBUS, _bus_error)


_bus_errors: list[int] = []


def _bus_error(signum: int, _frame: FrameType | None) -> None:
    # The faulting thread signals again and again meanwhile: Python may call this again
    # while it runs (its default action must wait until it has said why).
    if _bus_errors:
        return
    _bus_errors.append(signum)
    log.critical(
        "SIGBUS: a write to a mapped file failed, most likely SQLite's shared memory (the "
        "database's -shm file) made read-only or cut short while the bot ran. The process "
        "ends now. Make the database's files writable for the bot's user, then start it again"
    )
    logging.shutdown()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
