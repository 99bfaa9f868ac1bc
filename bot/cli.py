"""`tictactoe-bot` (and `python -m bot`): run the bot, play in the terminal, migrate, back up.

    tictactoe-bot [run]         the Telegram bot (long polling, or a webhook with WEBHOOK_URL)
    tictactoe-bot console       the Hyperskill "Tic-Tac-Toe with AI" game in the terminal
    tictactoe-bot migrate       bring DATABASE_URL's schema up to date, then exit
    tictactoe-bot backup FILE   a consistent copy of the database while the bot runs (SQLite;
                                on PostgreSQL, the pg_dump line to use)
    tictactoe-bot restore FILE  put a backup in the database's place, the bot stopped (SQLite;
                                on PostgreSQL, the pg_restore line to use)
    tictactoe-bot health        exit 0 if the running bot is healthy (its HEARTBEAT_FILE, and
                                /healthz in webhook mode): a container's health check

Settings come from the environment and `.env` (see `.env.example`). Each command imports what
it needs only when it runs, so `--help` and `console` start quickly and never touch Telegram.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence

EPILOG = "Settings: environment variables or a .env file in the working directory."
#: WEBHOOK_PORT's default (bot.config's DEFAULT_WEBHOOK_PORT, which `health` does not import).
HEALTHZ_PORT = 8443


def build_parser() -> argparse.ArgumentParser:
    """The command line: its subcommands; none given means `run`."""
    parser = argparse.ArgumentParser(
        prog="tictactoe-bot",
        description="Tic-Tac-Toe for Telegram: the bot, the terminal game, the migrations, "
        "backups.",
        epilog=EPILOG,
    )
    commands = parser.add_subparsers(dest="command", metavar="{run,console,migrate,backup,restore}")
    commands.add_parser(
        "run",
        help="run the Telegram bot (the default)",
        description="Run the Telegram bot until Ctrl-C or SIGTERM: long polling, or a webhook "
        "server (with /healthz) when WEBHOOK_URL is set. Migrates the database first.",
        epilog=EPILOG,
    )
    commands.add_parser(
        "console",
        help="play in the terminal (no token needed)",
        description="The Hyperskill game: `start hard user`, `start easy easy`, `exit`.",
    )
    commands.add_parser(
        "migrate",
        help="apply the database migrations to DATABASE_URL and exit",
        description="Bring the schema of DATABASE_URL up to date (the bot also does this at "
        "start-up); useful before starting several instances. No token needed.",
        epilog=EPILOG,
    )
    backup = commands.add_parser(
        "backup",
        help="copy the database to FILE while the bot runs",
        description="SQLite: a consistent copy of DATABASE_URL's file, taken while the bot runs "
        "and writes, checked, written to FILE (a new file). PostgreSQL: prints the pg_dump line "
        "to use (the password is not printed). No token needed.",
        epilog=EPILOG,
    )
    backup.add_argument("file", metavar="FILE", help="the backup to write (a new file)")
    restore = commands.add_parser(
        "restore",
        help="put the backup FILE in the database's place (stop the bot first)",
        description="SQLite: checks FILE (sound, this bot's, a schema this version knows), sets "
        "the database aside as <file>.before-restore-<time> and puts FILE in its place; "
        "refuses while the bot has the database open. PostgreSQL: prints the pg_restore line "
        "to use. No token needed.",
        epilog=EPILOG,
    )
    restore.add_argument("file", metavar="FILE", help="a backup made by `tictactoe-bot backup`")
    commands.add_parser(
        "health",
        help="exit 0 if the bot running here is healthy (for a container's health check)",
        description="Healthy: the bot's HEARTBEAT_FILE is at most 30 s old and says its "
        "database takes a write, and in webhook mode its /healthz answers 200 too. One line "
        "says why not, and the exit code is 1. No token needed.",
        epilog=EPILOG,
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The console script's entry point; returns the exit code."""
    args = build_parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    if args.command == "console":
        from bot.console import play_in_terminal

        return play_in_terminal()
    if args.command == "migrate":
        return migrate()
    if args.command in ("backup", "restore"):
        return backup_or_restore(args.command, args.file)
    if args.command == "health":
        return health()
    # Start-up makes a great many objects that live as long as the bot (modules, SQLAlchemy's
    # and PTB's classes, the solved table); collecting as they come took two full passes, a
    # seventh of a second. The bot turns the collector back on once they are built, and
    # freezes them out of it (bot.app.build_lasting_state).
    gc.disable()
    from bot.run import run_bot

    return run_bot()


def migrate() -> int:
    """Apply the migrations to DATABASE_URL; one line on stdout, or one on stderr and 1."""
    from bot.config import ConfigError, load_database_url
    from bot.games.db.engine import StorageError
    from bot.games.db.migrate import upgrade_database
    from bot.games.db.reachable import DatabaseProblem, first_line, parse_database_url, shown

    try:
        url = load_database_url()
        parse_database_url(url)
    except (ConfigError, DatabaseProblem) as error:
        print(error, file=sys.stderr)
        return 2
    try:
        upgrade_database(url)
    except (StorageError, OSError) as error:
        print(f"cannot migrate {shown(url)}: {first_line(error)}", file=sys.stderr)
        return 1
    print(f"{shown(url)}: the schema is up to date")
    return 0


def backup_or_restore(command: str, file: str) -> int:
    """`backup FILE` or `restore FILE`: what was done (or the line to run) on stdout, or one
    line on stderr and 1 (2 for a setting)."""
    from bot.config import ConfigError, load_database_url
    from bot.games.db.backups.commands import back_up, restore
    from bot.games.db.backups.copies import BackupProblem
    from bot.games.db.reachable import DatabaseProblem

    try:
        url = load_database_url()
        said = (back_up if command == "backup" else restore)(url, file)
    except (ConfigError, DatabaseProblem) as error:
        print(error, file=sys.stderr)
        return 2
    except BackupProblem as error:
        print(f"{command}: {error}", file=sys.stderr)
        return 1
    if said.note:
        print(said.note, file=sys.stderr)
    print(said.out)
    return 0


def health() -> int:
    """Whether the bot running here is healthy: its heartbeat file, and /healthz in webhook
    mode; one line on stdout and 0, or one on stderr and 1 (2: nothing to check)."""
    import os

    from dotenv import dotenv_values

    from bot.chores.heartbeat import heartbeat_problem

    # python-dotenv alone, not bot.config (which imports Telegram's library: half a second of
    # CPU at every check); a `.env` the bot would refuse stops the bot, not this check.
    values = {k: v for k, v in dotenv_values(".env").items() if v is not None}
    values.update(os.environ)
    heartbeat = values.get("HEARTBEAT_FILE", "").strip()
    webhook = bool(values.get("WEBHOOK_URL", "").strip())
    if not heartbeat and not webhook:
        print("nothing to check: set HEARTBEAT_FILE (webhook mode has /healthz)", file=sys.stderr)
        return 2
    problem = heartbeat_problem(heartbeat) if heartbeat else None
    if problem is None and webhook:
        problem = _healthz_problem(values)
    if problem is not None:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    print("healthy")
    return 0


def _healthz_problem(values: dict[str, str]) -> str | None:
    """What the webhook server's /healthz says is wrong (None: 200), asked on this machine."""
    import json
    import urllib.error
    import urllib.request

    listen = values.get("WEBHOOK_LISTEN", "").strip()
    host = "127.0.0.1" if listen in ("", "0.0.0.0", "::") else listen
    port = values.get("WEBHOOK_PORT", "").strip() or str(HEALTHZ_PORT)
    url = f"http://{host}:{port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=5):
            return None
    except urllib.error.HTTPError as error:
        try:  # 503 says what is wrong: {"ok": false, "database": "disk full"}
            said = json.loads(error.read()).get("database")
        except (ValueError, AttributeError, OSError):
            said = None
        return f"{url} answered {error.code}" + (f": the database: {said}" if said else "")
    except (OSError, ValueError) as error:
        return f"{url} did not answer: {getattr(error, 'reason', None) or error}"
