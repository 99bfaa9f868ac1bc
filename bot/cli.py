"""`tictactoe-bot` (and `python -m bot`): run the bot, play in the terminal, migrate.

    tictactoe-bot [run]      the Telegram bot (long polling, or a webhook with WEBHOOK_URL)
    tictactoe-bot console    the Hyperskill "Tic-Tac-Toe with AI" game in the terminal
    tictactoe-bot migrate    bring DATABASE_URL's schema up to date, then exit

Settings come from the environment and `.env` (see `.env.example`). Each command imports what
it needs only when it runs, so `--help` and `console` start quickly and never touch Telegram.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence

EPILOG = "Settings: environment variables or a .env file in the working directory."


def build_parser() -> argparse.ArgumentParser:
    """The command line: three subcommands; none given means `run`."""
    parser = argparse.ArgumentParser(
        prog="tictactoe-bot",
        description="Tic-Tac-Toe for Telegram: the bot, the terminal game, the migrations.",
        epilog=EPILOG,
    )
    commands = parser.add_subparsers(dest="command", metavar="{run,console,migrate}")
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The console script's entry point; returns the exit code."""
    args = build_parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    if args.command == "console":
        from bot.console import play_in_terminal

        return play_in_terminal()
    if args.command == "migrate":
        return migrate()
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
