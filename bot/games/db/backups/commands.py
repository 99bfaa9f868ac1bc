"""`tictactoe-bot backup FILE` and `tictactoe-bot restore FILE`: what DATABASE_URL asks for (a
SQLite copy, or the PostgreSQL tool's line), said as the command line says it. Raises
`DatabaseProblem` for a URL the bot cannot use and `BackupProblem` for what cannot be done."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.games.db.backups import postgres
from bot.games.db.backups.copies import BackupProblem, Checked, copy_database
from bot.games.db.backups.restores import restore_database
from bot.games.db.migrate import head_revision
from bot.games.db.reachable import parse_database_url, shown

if TYPE_CHECKING:
    # The URL as `reachable.parse_database_url` parses it: only bot.games.db imports SQLAlchemy.
    from sqlalchemy.engine import URL


@dataclass(frozen=True)
class Said:
    """What a command prints: `out` on stdout, and a `note` for the host on stderr."""

    out: str
    note: str = ""


def back_up(database_url: str, file: str) -> Said:
    """Copy the database to `file` (SQLite), or say the pg_dump line to use (PostgreSQL)."""
    url = parse_database_url(database_url)
    if url.drivername.startswith("postgresql"):
        note = f"run this line to back {shown(database_url)} up; {postgres.PASSWORD_NOTE}"
        return Said(postgres.dump_line(url, file), note)
    copy = copy_database(_sqlite_file(url), Path(file))
    return Said(
        f"{copy.path}: {_contents(copy.checked)}; copied in {copy.seconds:.1f} s, "
        f"checked in {copy.checking:.1f} s"
    )


def restore(database_url: str, file: str) -> Said:
    """Put the copy `file` in the place of the database (SQLite, the bot stopped), or say the
    pg_restore line to use (PostgreSQL)."""
    url = parse_database_url(database_url)
    if url.drivername.startswith("postgresql"):
        note = (
            f"stop every instance, then run this line to restore {shown(database_url)} from "
            f"{file} (made by pg_dump --format=custom); {postgres.PASSWORD_NOTE}"
        )
        return Said(postgres.restore_line(url, file), note)
    restored = restore_database(Path(file), _sqlite_file(url))
    kept = f"; the database it replaced is {restored.set_aside}" if restored.set_aside else ""
    later = f" (the bot migrates it to {head_revision()} at start-up)"
    return Said(
        f"{restored.database}: restored from {Path(file).absolute()}, "
        f"{_contents(restored.checked)}{later if restored.checked.behind else ''}{kept}"
    )


def _sqlite_file(url: URL) -> Path:
    if url.database in (None, "", ":memory:"):
        raise BackupProblem("DATABASE_URL names a database in memory: there is nothing to copy")
    if url.query:
        raise BackupProblem(
            "DATABASE_URL has options (a SQLite URI): name the file alone, "
            "sqlite+aiosqlite:///path/to/file.sqlite3"
        )
    return Path(url.database)


def _contents(checked: Checked) -> str:
    return (
        f"{checked.games:,} games, {checked.size / 1e6:.1f} MB, "
        f"schema at revision {checked.revision}, integrity ok"
    )
