"""The slots every chat's lane shares (`bot.telegram.update_lanes`): how many updates work at
once across chats. A freed slot goes to the first waiting tap (Telegram takes a tap's answer
for 15 s only), else to the first other update, unless that one came `TAP_LEAD` seconds
before the tap; a wait can be bounded."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Protocol


class Watcher(Protocol):
    """What notes an update waiting long for its turn (`update_lanes.Stuck`)."""

    def watch(
        self, key: int | None, where: str, state: Callable[[], str]
    ) -> asyncio.TimerHandle: ...


#: Seconds a tap may go ahead of another update waiting for a shared slot: taps first
#: (Telegram's 15 s), but a message is not kept waiting by taps that came more than this later,
#: which a bot saturated by taps would otherwise do for as long as they keep coming.
TAP_LEAD = 2.0


class SharedSlots:
    """The slots every lane's running updates share: a freed one goes to the first waiting
    tap, else to the first waiting other update (or to that one, if it came `tap_lead`
    seconds before the tap)."""

    def __init__(self, count: int, *, tap_lead: float = TAP_LEAD) -> None:
        self._free = count
        self.tap_lead = tap_lead
        #: Each kind's waiting turns, in order of arrival: (when it came, its future).
        self._taps: deque[tuple[float, asyncio.Future[None]]] = deque()
        self._others: deque[tuple[float, asyncio.Future[None]]] = deque()

    def locked(self) -> bool:
        return self._free == 0

    async def acquire(self, *, tap: bool, timeout: float | None = None) -> bool:  # noqa: ASYNC109
        """Take a slot: False when none came within `timeout` seconds (None: no bound)."""
        if self._free:  # (then nobody waits: a freed slot goes to a waiting turn first)
            self._free -= 1
            return True
        loop = asyncio.get_running_loop()
        turn: asyncio.Future[None] = loop.create_future()
        waiting = self._taps if tap else self._others
        entry = (loop.time(), turn)
        waiting.append(entry)
        try:
            await asyncio.wait({turn}, timeout=timeout)
        except asyncio.CancelledError:
            self._give_up(waiting, entry)
            raise
        if turn.done():
            return True
        self._give_up(waiting, entry)
        return False

    def _give_up(
        self,
        waiting: deque[tuple[float, asyncio.Future[None]]],
        entry: tuple[float, asyncio.Future[None]],
    ) -> None:
        turn = entry[1]
        if turn.done():
            self.release()  # granted as it gave up: the next one's
        else:
            turn.cancel()
            waiting.remove(entry)

    def release(self) -> None:
        while self._taps or self._others:
            _, turn = self._next().popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self._free += 1

    def _next(self) -> deque[tuple[float, asyncio.Future[None]]]:
        """The queue whose first turn is next."""
        if not self._others:
            return self._taps
        if not self._taps:
            return self._others
        came_long_before = self._others[0][0] + self.tap_lead < self._taps[0][0]
        return self._others if came_long_before else self._taps


class SharedSlot:
    """One running update's shared slot; only the task handling the update steps it out."""

    def __init__(self, bound: SharedSlots, stuck: Watcher, *, tap: bool) -> None:
        self._bound = bound
        self._stuck = stuck
        self._tap = tap
        self._task = asyncio.current_task()
        self._held = False

    async def take(self, timeout: float | None = None) -> bool:  # noqa: ASYNC109
        """Take a slot; False when none came within `timeout` seconds (None: no bound)."""
        timer = None
        if self._bound.locked():
            timer = self._stuck.watch(None, "for a shared slot", self._state)
        try:
            self._held = await self._bound.acquire(tap=self._tap, timeout=timeout)
        finally:
            if timer is not None:
                timer.cancel()
        return self._held

    def _state(self) -> str:
        return "every shared slot is running an update (none waits for its chat's pace)"

    def release(self) -> None:
        if self._held:
            self._held = False
            self._bound.release()

    def step_out(self) -> bool:
        if not self._held or asyncio.current_task() is not self._task:
            return False  # a task the handler started (an AI match) holds no slot of its own
        self.release()
        return True

    async def step_in(self) -> None:
        if not self._held:
            await self.take()
