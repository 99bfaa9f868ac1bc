"""bot.cli: the `tictactoe-bot` console script and `python -m bot`, run as real processes.

The script is the one pip installed next to this Python (`pip install -e '.[test]'`), so these
tests also check that pyproject declares it.
"""

from __future__ import annotations

import contextlib
import http.server
import sqlite3
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.processes import clean_env, free_port

# Every test here runs `python -m bot` (or its script) as a process.
pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).with_name("tictactoe-bot")
TOKEN = "7412589630:AAF-secretPart_ForTests-xyz"
SECRET = TOKEN.split(":", 1)[1]
TIMEOUT = 60  # a guard against a hang, not a measurement


def run(*args: str, cwd: Path, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """`tictactoe-bot ARGS` in ``cwd`` with no bot settings but ``env``, to its end."""
    return subprocess.run(
        [str(SCRIPT), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=clean_env(**env),
        timeout=TIMEOUT,
        check=False,
    )


def tables(database: Path) -> set[str]:
    with contextlib.closing(sqlite3.connect(database)) as db:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
    return {name for (name,) in rows}


def test_pyproject_declares_the_script() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "scripts"
    ]
    assert scripts == {"tictactoe-bot": "bot.cli:main"}
    assert SCRIPT.is_file(), "reinstall: pip install -e '.[test]'"


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["-h"],
        ["run", "--help"],
        ["migrate", "--help"],
        ["backup", "--help"],
        ["health", "--help"],
    ],
)
def test_help_never_starts_the_bot(tmp_path: Path, args: list[str]) -> None:
    # Settings that would start a bot (and fail to reach Telegram) if --help started one.
    api = f"http://127.0.0.1:{free_port()}/bot"
    done = run(*args, cwd=tmp_path, TELEGRAM_BOT_TOKEN=TOKEN, TELEGRAM_API_BASE_URL=api)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.startswith("usage: tictactoe-bot")
    assert list(tmp_path.iterdir()) == [], "no database, no files"


def test_help_names_every_command(tmp_path: Path) -> None:
    out = run("--help", cwd=tmp_path).stdout
    for command in ("run", "console", "migrate", "backup", "restore", "health"):
        assert f"    {command} " in out, out
    assert ".env" in out


def test_python_m_bot_is_the_same_command_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_env(),
        timeout=TIMEOUT,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == run("--help", cwd=tmp_path).stdout


@pytest.mark.parametrize("args", [[], ["run"]])
def test_run_is_the_default_and_needs_a_token(tmp_path: Path, args: list[str]) -> None:
    done = run(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("TELEGRAM_BOT_TOKEN is not set")


def test_an_unknown_command_is_a_usage_error(tmp_path: Path) -> None:
    done = run("serve", cwd=tmp_path)
    assert done.returncode == 2
    assert "invalid choice: 'serve'" in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("url", "code", "says"),
    [
        # {port}: a port nothing listens on, found when the test runs (a test's id must be
        # the same in every process that collects it).
        ("postgresql+asyncpg://bot:hunter2@127.0.0.1:{port}/games", 1, "cannot use the database"),
        ("mysql://bot:hunter2@db/games", 2, "DATABASE_URL uses 'mysql'"),
        ("postgresql://bot:hunter2@db/games", 2, "DATABASE_URL uses 'postgresql'"),
        ("sqlite+aiosqlite:////no/such/folder/games.sqlite3", 1, "cannot use the database"),
        ("not a url hunter2", 2, "DATABASE_URL is not a database URL"),
    ],
)
def test_run_checks_the_database_first_in_one_line(
    tmp_path: Path, url: str, code: int, says: str
) -> None:
    # Telegram is out of reach too: the database is checked first, and named alone.
    api = f"http://127.0.0.1:{free_port()}/bot"
    url = url.replace("{port}", str(free_port()))
    done = run(cwd=tmp_path, TELEGRAM_BOT_TOKEN=TOKEN, TELEGRAM_API_BASE_URL=api, DATABASE_URL=url)
    assert done.returncode == code, done.stderr
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith(says), line
    assert "hunter2" not in done.stderr
    assert SECRET not in done.stderr


def test_migrate_names_a_database_the_bot_does_not_speak(tmp_path: Path) -> None:
    done = run("migrate", cwd=tmp_path, DATABASE_URL="mysql://x")
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("DATABASE_URL uses 'mysql', which this bot does not speak"), line


# --- migrate -------------------------------------------------------------------------------------


def test_migrate_creates_the_tables_and_needs_no_token(tmp_path: Path) -> None:
    database = tmp_path / "games.sqlite3"
    url = f"sqlite+aiosqlite:///{database}"
    first = run("migrate", cwd=tmp_path, DATABASE_URL=url)
    assert first.returncode == 0, first.stderr
    assert first.stdout == f"{url}: the schema is up to date\n"
    assert first.stderr == ""
    assert {"players", "games", "moves", "alembic_version"} <= tables(database)
    with contextlib.closing(sqlite3.connect(database)) as db:
        [(revision,)] = db.execute("SELECT version_num FROM alembic_version").fetchall()
    # Again: nothing to do, the same revision.
    again = run("migrate", cwd=tmp_path, DATABASE_URL=url)
    assert (again.returncode, again.stdout) == (0, first.stdout)
    with contextlib.closing(sqlite3.connect(database)) as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(revision,)]


def test_migrate_reads_database_url_from_dot_env(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        "DATABASE_URL=sqlite+aiosqlite:///from-env-file.sqlite3  # the games\n", encoding="utf-8"
    )
    done = run("migrate", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "games" in tables(tmp_path / "from-env-file.sqlite3")


def test_migrate_defaults_to_the_sqlite_file_in_the_working_directory(tmp_path: Path) -> None:
    assert run("migrate", cwd=tmp_path).returncode == 0
    assert "moves" in tables(tmp_path / "tictactoe.sqlite3")


def test_a_failed_migration_is_one_line_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql+asyncpg://bot:hunter2@127.0.0.1:{free_port()}/games"
    done = run("migrate", cwd=tmp_path, DATABASE_URL=url)
    assert done.returncode == 1
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    shown = url.replace("hunter2", "***")
    assert line.startswith(f"cannot migrate {shown}: "), line
    assert "hunter2" not in done.stderr
    assert "Traceback" not in done.stderr


def test_a_schema_a_newer_version_migrated_is_one_line_for_migrate_and_run(
    tmp_path: Path,
) -> None:
    """A rolling upgrade migrates first: an instance not yet upgraded that restarts then finds
    a revision it does not know, and says so rather than start on a schema it may not fit."""
    database = tmp_path / "games.sqlite3"
    url = f"sqlite+aiosqlite:///{database}"
    assert run("migrate", cwd=tmp_path, DATABASE_URL=url).returncode == 0
    with contextlib.closing(sqlite3.connect(database)) as db:
        db.execute("UPDATE alembic_version SET version_num = '9999'")
        db.commit()
    migrate = run("migrate", cwd=tmp_path, DATABASE_URL=url)
    assert (migrate.returncode, migrate.stdout) == (1, "")
    [line] = migrate.stderr.splitlines()
    assert line.startswith(f"cannot migrate {url}: SchemaError: "), line
    assert "'9999' (a newer version of the bot migrated it?)" in line
    api = f"http://127.0.0.1:{free_port()}/bot"
    start = run(cwd=tmp_path, TELEGRAM_BOT_TOKEN=TOKEN, TELEGRAM_API_BASE_URL=api, DATABASE_URL=url)
    assert (start.returncode, start.stdout) == (1, "")
    [line] = start.stderr.splitlines()
    assert line.startswith(f"cannot use the database {url}: its schema is at revision 9999, "), line
    assert line.endswith("a newer version migrated it; run that version")


def test_a_database_url_that_is_no_url_is_one_line(tmp_path: Path) -> None:
    done = run("migrate", cwd=tmp_path, DATABASE_URL="games.sqlite3 with hunter2")
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("DATABASE_URL is not a database URL")
    assert "hunter2" not in line
    assert list(tmp_path.iterdir()) == []


# --- backup and restore --------------------------------------------------------------------------
# Under a bot that writes all along: tests/e2e/test_backups.py; each refusal: tests/games/.


def test_backup_and_restore_round_trip_through_the_command_line(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'games.sqlite3'}"
    assert run("migrate", cwd=tmp_path, DATABASE_URL=url).returncode == 0
    backup = run("backup", "backups.sqlite3", cwd=tmp_path, DATABASE_URL=url)
    assert (backup.returncode, backup.stderr) == (0, ""), backup.stderr
    [line] = backup.stdout.splitlines()
    assert line.startswith(f"{tmp_path / 'backups.sqlite3'}: 0 games, "), line
    assert "integrity ok; copied in " in line
    restore = run("restore", "backups.sqlite3", cwd=tmp_path, DATABASE_URL=url)
    assert (restore.returncode, restore.stderr) == (0, ""), restore.stderr
    [line] = restore.stdout.splitlines()
    assert line.startswith(f"{tmp_path / 'games.sqlite3'}: restored from "), line
    assert "the database it replaced is " in line
    assert "games" in tables(tmp_path / "games.sqlite3")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["backup", "games.sqlite3"], "backup: no database at "),
        (["restore", "missing.sqlite3"], "restore: no database at "),
        (["restore", ".env"], "restore: cannot copy "),
    ],
)
def test_backup_and_restore_refuse_in_one_line_without_a_traceback(
    tmp_path: Path, args: list[str], says: str
) -> None:
    (tmp_path / ".env").write_text("DATABASE_URL=sqlite+aiosqlite:///games.sqlite3\n")
    done = run(*args, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (1, "")
    [line] = done.stderr.splitlines()
    assert line.startswith(says), line


def test_backup_on_postgresql_prints_the_pg_dump_line_without_the_password(
    tmp_path: Path,
) -> None:
    url = "postgresql+asyncpg://bot:hunter2@db:5432/games"
    done = run("backup", "games.dump", cwd=tmp_path, DATABASE_URL=url)
    assert done.returncode == 0
    assert done.stdout == (
        "pg_dump --format=custom --file=games.dump --host=db --port=5432 --username=bot "
        "--dbname=games\n"
    )
    assert "PGPASSWORD" in done.stderr
    assert "hunter2" not in done.stdout + done.stderr
    assert list(tmp_path.iterdir()) == []


# --- health ------------------------------------------------------------------------------------
# The heartbeat's rules: tests/bot/test_heartbeat.py; a running bot's: tests/e2e/test_heartbeat.py.


@contextlib.contextmanager
def healthz_server(status: int, body: bytes) -> Iterator[int]:
    """A stand-in for the webhook server's /healthz on 127.0.0.1; its port."""

    class Answer(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(status if self.path == "/healthz" else 404)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_health_reads_the_heartbeat_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("HEARTBEAT_FILE=beat\n")
    missing = run("health", cwd=tmp_path)
    assert (missing.returncode, missing.stdout) == (1, "")
    assert (
        missing.stderr
        == "unhealthy: no heartbeat at beat: the bot is not running, or still starting\n"
    )
    (tmp_path / "beat").write_text("disk full\n")
    full = run("health", cwd=tmp_path)
    assert (full.returncode, full.stderr) == (1, "unhealthy: the database: disk full\n")
    (tmp_path / "beat").write_text("ok\n")
    assert run("health", cwd=tmp_path).stdout == "healthy\n"


def test_health_needs_something_to_check(tmp_path: Path) -> None:
    done = run("health", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("nothing to check: set HEARTBEAT_FILE")


@pytest.mark.parametrize(
    ("status", "body", "code", "says"),
    [
        (200, b'{"ok": true, "database": "ok"}', 0, ""),
        (
            503,
            b'{"ok": false, "database": "disk full"}',
            1,
            "answered 503: the database: disk full",
        ),
        (503, b"<html>a proxy's page</html>", 1, "answered 503\n"),
    ],
)
def test_health_asks_healthz_in_webhook_mode(
    tmp_path: Path, status: int, body: bytes, code: int, says: str
) -> None:
    (tmp_path / "beat").write_text("ok\n")
    with healthz_server(status, body) as port:
        done = run(
            "health",
            cwd=tmp_path,
            HEARTBEAT_FILE="beat",
            WEBHOOK_URL="https://bot.example.org/telegram",
            WEBHOOK_PORT=str(port),
        )
    assert done.returncode == code, done.stderr
    assert says in done.stderr
    assert len(done.stderr.splitlines()) == code


# --- console -------------------------------------------------------------------------------------


def test_console_plays_a_game_from_stdin(tmp_path: Path) -> None:
    done = run("console", cwd=tmp_path, stdin="start hard hard\nexit\n")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("Input command: ---------\n")
    assert done.stdout.count('Making move level "hard"') == 9
    assert done.stdout.endswith("Draw\n\nInput command: ")
    assert list(tmp_path.iterdir()) == [], "the console game stores nothing"


def test_run_refuses_a_database_it_may_read_but_not_write_in_one_line(tmp_path: Path) -> None:
    database = tmp_path / "games.sqlite3"
    url = f"sqlite+aiosqlite:///{database}"
    assert run("migrate", cwd=tmp_path, DATABASE_URL=url).returncode == 0
    # Opened read-only (chmod would not stop a root user: a read-only open stands for a
    # read-only file, mount or standby server).
    read_only = f"sqlite+aiosqlite:///file:{database}?mode=ro&uri=true"
    api = f"http://127.0.0.1:{free_port()}/bot"
    done = run(
        cwd=tmp_path, TELEGRAM_BOT_TOKEN=TOKEN, TELEGRAM_API_BASE_URL=api, DATABASE_URL=read_only
    )
    assert done.returncode == 1, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("cannot use the database"), line
    assert "readonly" in line, line
