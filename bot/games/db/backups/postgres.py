"""PostgreSQL: the bot copies nothing itself, pg_dump does (one snapshot, consistent while the
bot writes) and pg_restore puts it back. These are the lines to use, made from DATABASE_URL
without its password: both tools read that from PGPASSWORD or ~/.pgpass, never from a
command line that `ps` would show to anyone on the machine."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # The URL as `reachable.parse_database_url` parses it: only bot.games.db imports SQLAlchemy.
    from sqlalchemy.engine import URL


#: What to tell of the password, which no line here holds.
PASSWORD_NOTE = (
    "pg_dump and pg_restore read DATABASE_URL's password from PGPASSWORD or ~/.pgpass "
    "(not printed here)"
)


def dump_line(url: URL, file: str) -> str:
    """The pg_dump command that writes the database to `file` in its custom format (compressed;
    pg_restore reads it, table by table if need be)."""
    return _line(url, ["pg_dump", "--format=custom", f"--file={file}", *_connection(url)])


def restore_line(url: URL, file: str) -> str:
    """The pg_restore command that puts `file` (pg_dump's custom format) in the place of what
    the database holds, in one transaction: all of it, or nothing if anything fails."""
    command = ["pg_restore", "--clean", "--if-exists", "--no-owner", "--single-transaction"]
    return _line(url, [*command, *_connection(url), file])


def _connection(url: URL) -> list[str]:
    options = [f"--host={url.host}"] if url.host else []
    options += [f"--port={url.port}"] if url.port else []
    options += [f"--username={url.username}"] if url.username else []
    return [*options, f"--dbname={url.database or url.username or 'postgres'}"]


def _line(url: URL, command: list[str]) -> str:
    # asyncpg's `?ssl=require` is libpq's sslmode: said in the environment libpq reads.
    ssl = url.query.get("ssl") or url.query.get("sslmode")
    prefix = f"PGSSLMODE={shlex.quote(str(ssl))} " if isinstance(ssl, str) else ""
    return prefix + shlex.join(command)
