"""`python -m bot`: the same command line as the `tictactoe-bot` console script (bot.cli)."""

from __future__ import annotations

import sys

from bot.cli import main

if __name__ == "__main__":
    sys.exit(main())
