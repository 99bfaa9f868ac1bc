"""A chore every instance runs in the background, a round every few seconds, the first at
once (and the next at once when `wake` is called meanwhile): a round that fails (the database
away) is logged as an outage (`Outage`: the first with its traceback, then a line a minute
with a count, and a line once a round works again), and the next one comes."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from bot.chores.outage import Outage

log = logging.getLogger(__name__)


class Rounds:
    def __init__(self, name: str, round_: Callable[[], Awaitable[object]], every: float) -> None:
        self._name, self._round, self._every = name, round_, every
        self._task: asyncio.Task[None] | None = None
        self._woken = asyncio.Event()
        self.outage = Outage(name, traceback=True, tries="rounds", logger=log)

    def wake(self) -> None:
        """The next round now, not at its time."""
        self._woken.set()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=self._name)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            self._woken.clear()
            try:
                await self._round()
            except Exception as error:
                # Nothing waits on a round: the next one tries again.
                self.outage.failed(error)
            else:
                self.outage.succeeded()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), self._every)
