"""SQLite: a copy put in the place of the bot's database, with the bot stopped.

The copy is read through SQLite (a copy in WAL mode with its -wal beside it comes whole), into
a new file beside the database, and checked as a backup is (`copies.check_database`: sound,
this bot's, at a schema revision this version knows: an older one is migrated at start-up).
Then the database it replaces is set aside, whole: its name gains `.before-restore-<time>`
(a hard link, so the database keeps its name until the copy takes it), and so does its -wal,
which SQLite would otherwise apply to the restored file, pages of another database; its -shm
is only an index, and goes. Last, the copy takes the database's name in one rename: at any
moment the name holds the old database or the new one, whole.

A running bot would go on writing to the file set aside (`bot.games.db.sqlite_file` tells it
so, and it stores nothing more), so a restore refuses while any process has the database
open. SQLite tells: every connection to a database in WAL mode holds a shared lock on one
byte of its -shm file, the "DMS" byte (offset 128; SQLite's WAL file format, walformat.html),
for as long as it is open. A lock that conflicts with it cannot be taken while one is held,
which is what `in_use` tries (a test pins this).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bot.games.db.backups.copies import (
    BackupProblem,
    Checked,
    check_database,
    copy_snapshot,
    existing_database,
    flush,
    remove,
    staged_name,
    writable_folder,
)

#: The byte of the -shm file every connection holds a shared lock on while it is open.
DMS_BYTE = 128


@dataclass(frozen=True)
class Restored:
    database: Path
    checked: Checked
    set_aside: Path | None  # where the database it replaced went, if there was one


def restore_database(copy: Path, database: Path) -> Restored:
    """Put the SQLite database `copy` in the place of `database` (see the module's
    docstring); BackupProblem, and nothing changed, when it cannot."""
    copy = existing_database(copy)
    database = database.absolute()
    if database.exists() and database.samefile(copy):
        raise BackupProblem(f"{copy} is the bot's database itself: name a backup")
    writable_folder(database.parent)
    if in_use(database):
        raise BackupProblem(
            f"a process has {database} open: stop the bot (every instance on this file), "
            "then restore"
        )
    staged = staged_name(database)
    try:
        copy_snapshot(copy, staged, pages_per_step=-1, pause=0, mode="ro")
        checked = check_database(staged)
        flush(staged)
        kept = _set_aside(database)
        os.replace(staged, database)
        flush(database.parent)
    except OSError as error:
        raise BackupProblem(f"cannot restore {database}: {error.strerror or error}") from None
    finally:
        remove(staged)
    return Restored(database, checked, kept)


def in_use(database: Path) -> bool:
    """Whether a process has the SQLite database (in WAL mode) open: it holds its shared lock
    on the -shm file's DMS byte (see the module's docstring)."""
    try:
        descriptor = os.open(f"{database}-shm", os.O_RDWR)
    except FileNotFoundError:
        return False  # no connection has the wal-index: none is open
    except PermissionError:
        raise BackupProblem(
            f"cannot tell whether the bot has {database} open: its -shm file is not writable "
            "for this user (run this as the bot's user)"
        ) from None
    try:
        fcntl.lockf(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, DMS_BYTE, os.SEEK_SET)
    except OSError as error:
        if error.errno in (errno.EAGAIN, errno.EACCES):
            return True
        raise
    else:
        fcntl.lockf(descriptor, fcntl.LOCK_UN, 1, DMS_BYTE, os.SEEK_SET)
        return False
    finally:
        os.close(descriptor)


def _set_aside(database: Path) -> Path | None:
    """Give the database, and its -wal, a name of their own (`.before-restore-<time>`), and
    drop its -shm; None when there is no database there."""
    wal, shm = Path(f"{database}-wal"), Path(f"{database}-shm")
    kept = None
    if database.exists():
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        kept = database.with_name(f"{database.name}.before-restore-{stamp}")
        try:
            os.link(database, kept)
        except OSError as error:  # a file system without hard links: a copy then
            if error.errno == errno.EEXIST:
                raise
            shutil.copy2(database, kept)
        if wal.exists():
            os.replace(wal, f"{kept}-wal")
    else:
        # A -wal without its database belongs to none that is coming: never to the copy.
        with contextlib.suppress(FileNotFoundError):
            wal.unlink()
    with contextlib.suppress(FileNotFoundError):
        shm.unlink()
    return kept
