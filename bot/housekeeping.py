"""Chores no update triggers, run in the background by every instance: forgetting the handled
update ids older than a day, every hour, whatever kind of updates come in (or none)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from bot.games.updates import PRUNE_EVERY, HandledUpdates

log = logging.getLogger(__name__)


class Housekeeping:
    def __init__(self, updates: HandledUpdates, every_seconds: float | None = None) -> None:
        self._updates = updates
        self._every = PRUNE_EVERY.total_seconds() if every_seconds is None else every_seconds
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="housekeeping")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:  # at start-up first: a bot restarted often still prunes
            try:
                await self._updates.prune()
            except Exception:
                # A database that is down now may be back at the next round; nothing waits
                # on this.
                log.warning("could not prune the handled update ids", exc_info=True)
            await asyncio.sleep(self._every)
