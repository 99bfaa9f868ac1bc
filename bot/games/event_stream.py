"""Delivering a game's events to its listeners: in order per game, once each, after commit.

One queue per game, drained by one task while it has events (lila's `RoundAsyncActor`): two
events of a game reach a listener in the order they were committed, and a listener slow on
one game (a busy group's pace) holds up no other game. Listeners are coroutines subscribed by
event type; one that fails is logged and the others still hear the event.

The stream lives in the process that committed the change. A change committed just before a
crash has its boards drawn by the board catch-up (`games.shown_version`, the board outbox);
what else it would have said is lost with the process.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

from bot.games.events import GameEnded, GameEvent, GameMoved, GameStarted, SeatsTaken
from bot.telemetry.log_context import game_scope

log = logging.getLogger(__name__)

#: Seconds a shutdown waits for the events already queued to reach their listeners.
CLOSE_SECONDS = 5.0

E = TypeVar("E", GameStarted, SeatsTaken, GameMoved, GameEnded)
Listener = Callable[[E], Awaitable[object]]


class EventStream:
    def __init__(self) -> None:
        self._listeners: dict[type, list[Callable[[GameEvent], Awaitable[object]]]] = {}
        self._queues: dict[int, deque[GameEvent]] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._idle = asyncio.Event()
        self._idle.set()

    def subscribe(self, kind: type[E], listener: Listener[E]) -> None:
        """Hear every event of type `kind`, of every game, after the others subscribed."""
        self._listeners.setdefault(kind, []).append(listener)  # type: ignore[arg-type]

    def publish(self, events: Iterable[GameEvent]) -> None:
        """Queue committed events for their games' listeners (called after the commit). An
        event nobody listens to costs nothing more: no queue, no task (a move, today)."""
        for event in events:
            if not self._listeners.get(type(event)):
                continue
            game_id = event.game.id
            self._queues.setdefault(game_id, deque()).append(event)
            if game_id not in self._tasks:
                self._idle.clear()
                self._tasks[game_id] = asyncio.get_running_loop().create_task(
                    self._drain(game_id), name=f"game {game_id} events"
                )

    async def _drain(self, game_id: int) -> None:
        queue = self._queues[game_id]
        try:
            while queue:
                event = queue.popleft()
                with game_scope(game_id, update=False):
                    for listener in self._listeners.get(type(event), ()):
                        try:
                            await listener(event)
                        except asyncio.CancelledError:
                            raise
                        except Exception:
                            log.exception("a listener of game %s failed on %s", game_id, event)
        finally:
            del self._queues[game_id]
            del self._tasks[game_id]
            if not self._tasks:
                self._idle.set()

    @property
    def pending(self) -> int:
        """Games with events still to deliver."""
        return len(self._tasks)

    async def idle(self) -> None:
        """Wait until every event published so far has reached its listeners."""
        while self._tasks:
            await self._idle.wait()

    async def close(self, timeout: float = CLOSE_SECONDS) -> None:  # noqa: ASYNC109
        """Deliver what is queued, for `timeout` seconds at most, then cancel the rest (at
        shutdown: a listener waiting for a busy group's pace would hold the bot up)."""
        try:
            await asyncio.wait_for(self.idle(), timeout)
        except TimeoutError:
            tasks = list(self._tasks.values())
            log.warning("shutting down with the events of %d games undelivered", len(tasks))
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
