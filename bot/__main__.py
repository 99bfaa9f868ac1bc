"""`python -m bot` runs the Telegram bot; `python -m bot console` the terminal game."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    if argv[:1] == ["console"]:
        from bot.console import run_console

        run_console()
        return 0
    from bot.run import run_bot

    return run_bot()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
