"""bot.games.db.backups: SQLite copies that are whole and checked, restores that replace the bot's
file whole or not at all, and the PostgreSQL lines that never show the password.

The copies under a bot that writes all along are in tests/e2e/test_backups.py; the command
line's words and exit codes in tests/bot/test_cli.py."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from bot.games.db.backups import commands, postgres
from bot.games.db.backups.copies import BackupProblem, check_database, copy_database
from bot.games.db.backups.restores import in_use, restore_database
from bot.games.db.migrate import head_revision, known_revisions


@pytest.fixture
def database(tmp_path: Path, migrated_sqlite: Path) -> Path:
    """The bot's database, in WAL mode as the bot keeps it, with a player in it."""
    path = tmp_path / "bot.sqlite3"
    shutil.copyfile(migrated_sqlite, path)
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("INSERT INTO players (id, name, created_at, updated_at) VALUES (7, 'Ann', 0, 0)")
        db.commit()
    return path


def players(path: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        return [name for (name,) in db.execute("SELECT name FROM players ORDER BY id")]


def rewrite(path: Path, *statements: str) -> None:
    with contextlib.closing(sqlite3.connect(path)) as db:
        for statement in statements:
            db.execute(statement)
        db.commit()


@contextlib.contextmanager
def held_open(path: Path) -> Iterator[None]:
    """Another process with a connection to the database, as a running bot has."""
    script = (
        "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
        "db.execute('PRAGMA journal_mode=WAL'); db.execute('SELECT 1 FROM players').fetchall(); "
        "print('open', flush=True); sys.stdin.read()"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stdout.readline() == "open\n"
        yield
    finally:
        process.communicate("", timeout=10)


# --- copies -------------------------------------------------------------------------------------


def test_a_copy_is_one_checked_file_and_the_database_is_untouched(
    tmp_path: Path, database: Path
) -> None:
    before = database.read_bytes()
    copy = copy_database(database, tmp_path / "backup.sqlite3")
    assert copy.path == tmp_path / "backup.sqlite3"
    assert (copy.checked.revision, copy.checked.games) == (head_revision(), 0)
    assert copy.checked.size == copy.path.stat().st_size
    assert players(copy.path) == ["Ann"]
    # A rollback journal's header (file format 1, not WAL's 2): the copy needs no -wal.
    assert copy.path.read_bytes()[18:20] == b"\x01\x01"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backup.sqlite3", "bot.sqlite3"]
    assert database.read_bytes() == before


def test_a_copy_holds_one_snapshot_over_its_steps_while_another_process_writes(
    tmp_path: Path, database: Path
) -> None:
    """One page a step: every step sees the same snapshot, the writes between are not in it."""
    rewrite(
        database,
        *(
            f"INSERT INTO players (id, name, created_at, updated_at) VALUES ({i}, 'P{i}', 0, 0)"
            for i in range(100, 3000)
        ),
    )
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys\n"
            "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "for i in range(10_000, 10_400):\n"
            "    db.execute('INSERT INTO players (id, name, created_at, updated_at) "
            "VALUES (?, ?, 0, 0)', (i, 'late'))\n",
            str(database),
        ]
    )
    try:
        copy = copy_database(database, tmp_path / "backup.sqlite3", pages_per_step=1, pause=0.001)
    finally:
        writer.wait(timeout=60)
    copied = players(copy.path)
    assert copied[:1] == ["Ann"] and len(copied) >= 2901
    # Some prefix of the late writes, never a torn one: ids 10000.. in order, without a gap.
    late = len(copied) - 2901
    with contextlib.closing(sqlite3.connect(copy.path)) as db:
        ids = [i for (i,) in db.execute("SELECT id FROM players WHERE id >= 10000 ORDER BY id")]
    assert ids == list(range(10_000, 10_000 + late))
    assert len(players(database)) == 2901 + 400


def test_a_copy_never_overwrites_a_file(tmp_path: Path, database: Path) -> None:
    target = tmp_path / "backup.sqlite3"
    target.write_text("an older backup")
    with pytest.raises(BackupProblem, match=r"backup\.sqlite3 exists: give a new file's name"):
        copy_database(database, target)
    assert target.read_text() == "an older backup"


@pytest.mark.parametrize(
    ("source", "target", "says"),
    [
        (
            "missing.sqlite3",
            "backup.sqlite3",
            r"no database at .*missing\.sqlite3: there is no such file",
        ),
        (".", "backup.sqlite3", r"no database at .*: it is not a file"),
        ("bot.sqlite3", "no/such/folder/backup.sqlite3", r"no folder .*no/such/folder: create it"),
        ("bot.sqlite3", "/proc/backup.sqlite3", r"(cannot write in|cannot create a file in) /proc"),
    ],
)
def test_wrong_paths_are_said_in_one_line(
    tmp_path: Path, database: Path, source: str, target: str, says: str
) -> None:
    with pytest.raises(BackupProblem, match=says) as refused:
        copy_database(tmp_path / source, tmp_path / target)
    assert "\n" not in str(refused.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bot.sqlite3"]  # nothing left behind


# --- checks -------------------------------------------------------------------------------------


def test_the_check_refuses_what_is_not_a_sound_database_of_this_bot(
    tmp_path: Path, database: Path
) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database " * 1000)
    with pytest.raises(BackupProblem, match="is no SQLite database this bot can read"):
        check_database(text)
    other = tmp_path / "other.sqlite3"
    rewrite(other, "CREATE TABLE t (x)")
    with pytest.raises(BackupProblem, match=r"is no database of this bot's \(it has no games\)"):
        check_database(other)
    rewrite(database, "UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(BackupProblem, match="revision 9999, which this version of the bot does"):
        check_database(database)


def test_the_check_finds_a_damaged_file(tmp_path: Path, database: Path) -> None:
    rewrite(database, "PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(database.read_bytes())
    data[4096 * 3 : 4096 * 6] = b"\xff" * (4096 * 3)  # three pages of the tables' b-trees
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(bytes(data))
    with pytest.raises(BackupProblem, match=r"damaged|malformed") as refused:
        check_database(damaged)
    assert "\n" not in str(refused.value)


# --- restores -----------------------------------------------------------------------------------


def test_a_restore_puts_the_copy_in_place_and_sets_the_database_aside_whole(
    tmp_path: Path, database: Path
) -> None:
    copy = copy_database(database, tmp_path / "backup.sqlite3").path
    # After the backup, Bob came: in the WAL only (not yet in the file), as after a crash.
    with contextlib.closing(sqlite3.connect(database)) as db:
        db.execute("PRAGMA wal_autocheckpoint=0")
        db.execute("INSERT INTO players (id, name, created_at, updated_at) VALUES (8, 'Bob', 0, 0)")
        db.commit()
        shutil.copyfile(f"{database}-wal", tmp_path / "wal")
    shutil.copyfile(tmp_path / "wal", f"{database}-wal")  # the WAL a crash leaves behind

    restored = restore_database(copy, database)
    assert restored.checked.revision == head_revision()
    assert players(database) == ["Ann"]
    assert not Path(f"{database}-wal").exists() and not Path(f"{database}-shm").exists()
    assert restored.set_aside is not None
    assert restored.set_aside.name.startswith("bot.sqlite3.before-restore-")
    assert players(restored.set_aside) == ["Ann", "Bob"]  # with its WAL: nothing lost
    assert players(copy) == ["Ann"]


def test_a_restore_refuses_while_a_process_has_the_database_open(
    tmp_path: Path, database: Path
) -> None:
    copy = copy_database(database, tmp_path / "backup.sqlite3").path
    rewrite(
        database, "INSERT INTO players (id, name, created_at, updated_at) VALUES (8, 'Bob', 0, 0)"
    )
    with held_open(database):
        assert in_use(database)
        with pytest.raises(BackupProblem, match=r"a process has .*bot\.sqlite3 open: stop the bot"):
            restore_database(copy, database)
    assert not in_use(database)
    assert players(database) == ["Ann", "Bob"]
    assert not [p for p in tmp_path.iterdir() if "partial" in p.name or "before" in p.name]


def test_a_restore_of_a_bad_copy_changes_nothing(tmp_path: Path, database: Path) -> None:
    bad = tmp_path / "bad.sqlite3"
    rewrite(bad, "CREATE TABLE t (x)")
    with pytest.raises(BackupProblem, match="no database of this bot's"):
        restore_database(bad, database)
    assert players(database) == ["Ann"]
    assert not [p for p in tmp_path.iterdir() if "partial" in p.name or "before" in p.name]
    with pytest.raises(BackupProblem, match="is the bot's database itself"):
        restore_database(database, database)


def test_a_restore_into_an_empty_place_drops_a_stray_wal(tmp_path: Path, database: Path) -> None:
    copy = copy_database(database, tmp_path / "backup.sqlite3").path
    target = tmp_path / "new.sqlite3"
    Path(f"{target}-wal").write_bytes(b"pages of another database")
    restored = restore_database(copy, target)
    assert restored.set_aside is None
    assert not Path(f"{target}-wal").exists()
    assert players(target) == ["Ann"]


def test_a_copy_of_an_older_schema_is_restored_and_migrated_at_start_up(
    tmp_path: Path, database: Path
) -> None:
    older = known_revisions()[head_revision()]
    assert older is not None
    rewrite(database, f"UPDATE alembic_version SET version_num = '{older}'")
    copy = copy_database(database, tmp_path / "backup.sqlite3").path
    said = commands.restore(f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}", str(copy))
    assert f"schema at revision {older}" in said.out
    assert f"(the bot migrates it to {head_revision()} at start-up)" in said.out


# --- the commands, and PostgreSQL --------------------------------------------------------------


def test_the_backup_command_says_what_it_copied(tmp_path: Path, database: Path) -> None:
    said = commands.back_up(f"sqlite+aiosqlite:///{database}", str(tmp_path / "b.sqlite3"))
    assert said.note == ""
    assert said.out.startswith(f"{tmp_path / 'b.sqlite3'}: 0 games, 0.")
    assert f"schema at revision {head_revision()}, integrity ok; copied in " in said.out
    assert said.out.endswith(" s") and ", checked in " in said.out


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("sqlite+aiosqlite:///:memory:", "a database in memory"),
        ("sqlite+aiosqlite:///file:bot.sqlite3?mode=rwc&uri=true", "DATABASE_URL has options"),
    ],
)
def test_sqlite_urls_without_a_plain_file_are_refused(url: str, says: str) -> None:
    for command in (commands.back_up, commands.restore):
        with pytest.raises(BackupProblem, match=says):
            command(url, "backup.sqlite3")


def test_postgresql_gets_the_lines_to_run_without_the_password() -> None:
    url = "postgresql+asyncpg://tictactoe:hunter2@db.example:5433/games"
    dump = commands.back_up(url, "/backups/games 1.dump")
    assert dump.out == (
        "pg_dump --format=custom '--file=/backups/games 1.dump' --host=db.example --port=5433 "
        "--username=tictactoe --dbname=games"
    )
    again = commands.restore(url, "/backups/games 1.dump")
    assert again.out == (
        "pg_restore --clean --if-exists --no-owner --single-transaction --host=db.example "
        "--port=5433 --username=tictactoe --dbname=games '/backups/games 1.dump'"
    )
    for said in (dump, again):
        assert "hunter2" not in said.out + said.note
        assert "PGPASSWORD" in said.note and "tictactoe:***@db.example" in said.note


def test_postgresql_ssl_is_said_as_libpq_reads_it() -> None:
    url = make_url("postgresql+asyncpg://bot:pw@db/games?ssl=require")
    assert postgres.dump_line(url, "g.dump").startswith("PGSSLMODE=require pg_dump ")
