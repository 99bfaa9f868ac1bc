"""The bot's heartbeat (HEARTBEAT_FILE), for a health check in polling mode too, where no
server answers /healthz: every HEARTBEAT_SECONDS the check /healthz makes (the database takes a
tiny write within 3 s, `bot.games.db.health.probe`), its answer written to the file ("ok", or
what is wrong: "database locked", "disk full"…). `tictactoe-bot health` reads it: healthy while
the file says "ok" and is fresh. A file that stops changing says what no probe can: the event
loop is stuck, or the process is gone. A stopping bot removes it.

The file is replaced whole each time (written beside it, then renamed), so a reader never
reads half of it; its modification time is the beat's.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Awaitable, Callable
from enum import Enum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from bot.chores.rounds import Rounds

if TYPE_CHECKING:
    from bot.games.db.engine import DatabaseEngine

HEARTBEAT_SECONDS = 10.0
#: A heartbeat older than this (three beats) is a bot that stopped beating.
STALE_SECONDS = 3 * HEARTBEAT_SECONDS
HEALTHY = "ok"


class Heartbeat(Rounds):
    def __init__(
        self,
        path: str | Path,
        probe: Callable[[], Awaitable[Enum]],
        every: float = HEARTBEAT_SECONDS,
    ) -> None:
        self.path = Path(path)
        self._probe = probe
        super().__init__("heartbeat", self.beat, every)

    async def beat(self) -> None:
        """Probe the database, and write what it says."""
        state = await self._probe()
        await asyncio.to_thread(_replace, self.path, f"{state.value}\n")

    async def stop(self) -> None:
        await super().stop()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def beating(path: str | None, engine: DatabaseEngine | None) -> Heartbeat | None:
    """The heartbeat on `path` (HEARTBEAT_FILE), probing `engine` as /healthz does; None
    without a path. (The probe, and SQLAlchemy with it, is imported here: `tictactoe-bot
    health` imports this module only to read the file.)"""
    from bot.games.db.health import probe

    return None if path is None else Heartbeat(path, partial(probe, engine))


def _replace(path: Path, text: str) -> None:
    staged = path.with_name(f".{path.name}.{os.getpid()}")
    staged.write_text(text, encoding="utf-8")
    os.replace(staged, path)


def heartbeat_problem(path: str | Path, stale_after: float = STALE_SECONDS) -> str | None:
    """What the heartbeat file says is wrong, in one line; None when it is fresh and "ok"."""
    try:
        said = Path(path).read_text(encoding="utf-8").strip()
        age = time.time() - os.stat(path).st_mtime
    except FileNotFoundError:
        return f"no heartbeat at {path}: the bot is not running, or still starting"
    except OSError as error:
        return f"cannot read the heartbeat {path}: {error.strerror or error}"
    if age > stale_after:
        return f"the last heartbeat is {age:.0f} s old: the bot stopped beating (stuck or gone)"
    if said != HEALTHY:
        return f"the database: {said or 'nothing said'}"
    return None
