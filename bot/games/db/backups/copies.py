"""SQLite: a consistent copy of the bot's database while the bot writes to it, through SQLite's
online backup API (`sqlite3.Connection.backup`), and the checks any copy must pass.

The copy is one snapshot. The source connection opens a read transaction before the first
page and holds it until the last: in WAL mode (the bot's) a reader never blocks the bot's
writers nor they it, and every page then comes from the same moment of the database. Without
that transaction each step of the backup API reads a snapshot of its own, and a write by
another process between two steps starts the copy over from its first page: under a stream
of writes an 8 MB copy restarted 1,800 times and took 13 s, against 0.15 s and no restart
with the snapshot held. Pages go a slice at a time with a short pause between slices, so
that the copy shares the disk with the bot rather than taking it for a long copy. The price
of the held snapshot: the bot's checkpoints cannot recycle the WAL until the copy ends, so
the -wal file grows by what the bot writes meanwhile (and is reused after).

The copy is written beside the target under a temporary name, switched to a rollback journal
(one file that needs no -wal beside it), checked (`check_database`), flushed to the disk, and
only then given the target's name, which it never takes from an existing file: a target
never holds half a copy, and a backup never overwrites anything.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.request import pathname2url

from bot.games.db.migrate import head_revision, known_revisions

#: Pages copied between two pauses (4 MiB at SQLite's default 4 KiB page), and the pause.
PAGES_PER_STEP = 1024
PAUSE_SECONDS = 0.005
#: Tables any database of this bot has (the schema is Alembic's: its version is checked too).
THE_BOTS_TABLES = frozenset({"alembic_version", "players", "games", "moves"})


class BackupProblem(Exception):
    """Why a backup or a restore cannot be done, in one line for the host."""


@dataclass(frozen=True)
class Checked:
    """A database that passed `check_database`: what it holds."""

    revision: str  # its schema's Alembic revision, one the packaged migrations know
    games: int
    pages: int
    page_size: int

    @property
    def size(self) -> int:
        return self.pages * self.page_size

    @property
    def behind(self) -> bool:
        """Its schema is older than this version's: the bot migrates it at start-up."""
        return self.revision != head_revision()


@dataclass(frozen=True)
class Copy:
    path: Path
    checked: Checked
    seconds: float  # copying: how long the snapshot was held
    checking: float  # then checking the copy (integrity_check reads every page)


def copy_database(
    source: Path,
    target: Path,
    *,
    pages_per_step: int = PAGES_PER_STEP,
    pause: float = PAUSE_SECONDS,
) -> Copy:
    """Copy the SQLite database at `source` to the new file `target`, consistently while
    other processes write to it (see the module's docstring); BackupProblem when it cannot."""
    started = time.perf_counter()
    source = existing_database(source)
    target = new_file(target)
    staged = staged_name(target)
    try:
        copy_snapshot(source, staged, pages_per_step, pause)
        copied = time.perf_counter()
        checked = check_database(staged)
        flush(staged)
        try:
            os.link(staged, target)  # fails on an existing target, never overwrites it
        except FileExistsError:
            raise BackupProblem(f"{target} appeared meanwhile: nothing was overwritten") from None
        flush(target.parent)
    except OSError as error:
        raise BackupProblem(f"cannot write {target}: {error.strerror or error}") from None
    finally:
        remove(staged)
    return Copy(target, checked, copied - started, time.perf_counter() - copied)


def existing_database(path: Path) -> Path:
    """The absolute path of an existing file; BackupProblem when there is none."""
    path = path.absolute()
    if not path.exists():
        raise BackupProblem(f"no database at {path}: there is no such file")
    if not path.is_file():
        raise BackupProblem(f"no database at {path}: it is not a file")
    return path


def new_file(path: Path) -> Path:
    """The absolute path of a file that can be created; BackupProblem otherwise."""
    path = path.absolute()
    if path.exists() or path.is_symlink():
        raise BackupProblem(f"{path} exists: give a new file's name (a backup overwrites nothing)")
    writable_folder(path.parent)
    return path


def writable_folder(folder: Path) -> None:
    if not folder.is_dir():
        raise BackupProblem(f"no folder {folder}: create it first")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise BackupProblem(f"cannot write in {folder}: it is not writable for this user")


def staged_name(target: Path) -> Path:
    """Where a file is written before it takes `target`'s name: beside it (the same file
    system, so the renaming is atomic), hidden, and this process's own."""
    return target.with_name(f".{target.name}.{os.getpid()}.partial")


def copy_snapshot(
    source: Path, staged: Path, pages_per_step: int, pause: float, mode: str = "rw"
) -> None:
    """Copy one snapshot of `source` to the new file `staged`, as a database with a rollback
    journal (see the module's docstring). The bot's database is opened read-write (`mode`;
    nothing is written), so that the last connection to close, the bot stopped, folds the WAL
    into the file and removes it, as the bot's own would; a backup read-only (`ro`)."""
    try:
        reader = sqlite3.connect(_opening(source, mode), uri=True, timeout=30, isolation_level=None)
    except sqlite3.Error as error:
        raise BackupProblem(f"cannot open {source}: {error}") from None
    try:
        writer = sqlite3.connect(staged, isolation_level=None)
    except sqlite3.Error as error:
        reader.close()
        raise BackupProblem(f"cannot create a file in {staged.parent}: {error}") from None
    try:
        # The read transaction, and with it the snapshot, begins with its first read.
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM sqlite_master").fetchone()

        def between_steps(_status: int, remaining: int, _total: int) -> None:
            if remaining and pause:
                time.sleep(pause)

        reader.backup(writer, pages=pages_per_step, progress=between_steps)
        reader.execute("COMMIT")
        # The copy says "WAL" in its header as its source did: one file, with no -wal.
        writer.execute("PRAGMA journal_mode=DELETE")
    except sqlite3.Error as error:
        raise BackupProblem(f"cannot copy {source}: {error}") from None
    finally:
        writer.close()
        reader.close()


def check_database(path: Path) -> Checked:
    """That `path` is a sound SQLite database (`PRAGMA integrity_check`) of this bot's, at a
    schema revision its migrations know; BackupProblem otherwise."""
    try:
        with contextlib.closing(sqlite3.connect(_opening(path, "ro"), uri=True)) as db:
            problems = [row[0] for row in db.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
                raise BackupProblem(f"{path} is damaged: {problems[0]}{more}")
            query = "SELECT name FROM sqlite_master WHERE type = 'table'"
            tables = {name for (name,) in db.execute(query)}
            if not tables >= THE_BOTS_TABLES:
                raise BackupProblem(f"{path} is no database of this bot's (it has no games)")
            revision = db.execute("SELECT max(version_num) FROM alembic_version").fetchone()[0]
            games = db.execute("SELECT count(*) FROM games").fetchone()[0]
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            page_size = db.execute("PRAGMA page_size").fetchone()[0]
    except sqlite3.DatabaseError as error:
        raise BackupProblem(f"{path} is no SQLite database this bot can read: {error}") from None
    if revision not in known_revisions():
        raise BackupProblem(
            f"{path} has its schema at revision {revision}, which this version of the bot does "
            "not know (a newer version's?)"
        )
    return Checked(revision, games, pages, page_size)


def flush(path: Path) -> None:
    """Make what was written to a file, or a folder's names, durable."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def remove(path: Path) -> None:
    """Remove a file this process wrote, with the journal SQLite may have left beside it."""
    for leftover in (path, Path(f"{path}-journal")):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()


def _opening(path: Path, mode: str) -> str:
    """A URI opening an existing database (never creating one): `ro` or `rw`."""
    return f"file:{pathname2url(str(path))}?mode={mode}"
