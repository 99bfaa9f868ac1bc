"""Live updates for the Mini App's pages: a notifier fed by every board the bot shows in chat
(bot.chat.boards' hooks), and the server-sent events that carry a game's state to a page.

An events stream re-reads the game when the notifier says it was shown, and every
`POLL_SECONDS` besides: a move made by another instance of the bot (sharing the database)
shows up too, only a little later. It sends the state only when its version changed.

Streams are capped (`StreamGate`): at most `STREAMS_PER_USER` open at once for one user and
`STREAMS_IN_ALL` for everybody; one more is refused with 429 (the page tries again later), so
one initData cannot hold the server's connections."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from aiohttp import web

from bot.games.events import GameEnded
from bot.games.model import GameView

log = logging.getLogger(__name__)

#: How often a stream re-reads its game without being told of a change.
POLL_SECONDS = 1.0
#: A comment line this often keeps proxies from closing a quiet stream.
KEEPALIVE_SECONDS = 15.0
#: Live streams one user may hold open at once (a page each: phone, desktop, a few tabs).
STREAMS_PER_USER = 5
#: Live streams open at once for everybody.
STREAMS_IN_ALL = 1000


class TooManyStreams(Exception):
    """One more stream than the caps allow."""


class StreamGate:
    """Counts the open streams, per user and in all, and refuses one beyond the caps."""

    def __init__(self, per_user: int = STREAMS_PER_USER, in_all: int = STREAMS_IN_ALL) -> None:
        self.per_user, self.in_all = per_user, in_all
        self._open: dict[int, int] = {}
        self._total = 0

    @contextlib.contextmanager
    def admit(self, user_id: int) -> Iterator[None]:
        """Hold a place for one stream of `user_id` while the block runs; raises
        TooManyStreams when there is none."""
        if self._total >= self.in_all or self._open.get(user_id, 0) >= self.per_user:
            raise TooManyStreams()
        self._open[user_id] = self._open.get(user_id, 0) + 1
        self._total += 1
        try:
            yield
        finally:
            self._total -= 1
            self._open[user_id] -= 1
            if not self._open[user_id]:
                del self._open[user_id]


class GameNotifier:
    """Wakes the event streams of a game when its board is shown (same event loop)."""

    def __init__(self) -> None:
        self._waiters: dict[int, set[asyncio.Event]] = {}

    async def heard(self, event: GameEnded) -> None:
        """A game ended: its pages show how."""
        self.notify(event.game)

    def notify(self, game: GameView) -> None:
        for event in self._waiters.get(game.id, ()):
            event.set()

    @contextlib.contextmanager
    def listening(self, game_id: int) -> Iterator[asyncio.Event]:
        """An event set whenever the game is shown, while the block runs."""
        event = asyncio.Event()
        self._waiters.setdefault(game_id, set()).add(event)
        try:
            yield event
        finally:
            waiters = self._waiters.get(game_id, set())
            waiters.discard(event)
            if not waiters:
                self._waiters.pop(game_id, None)

    def listeners(self, game_id: int) -> int:
        return len(self._waiters.get(game_id, ()))


async def stream_game(
    request: web.Request,
    changed: asyncio.Event,
    closing: asyncio.Event,
    read: Callable[[], Awaitable[dict[str, Any] | None]],
) -> web.StreamResponse:
    """Server-sent events: `state` with the game's JSON whenever its version changes, until
    the page goes away, the server stops, or the game is gone (`gone`)."""
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            # nginx buffers responses by default, which would hold the events back.
            "X-Accel-Buffering": "no",
        }
    )
    await response.prepare(request)
    loop = asyncio.get_running_loop()
    sent_version, last_write = None, loop.time()
    try:
        while not closing.is_set():
            if request.transport is None or request.transport.is_closing():
                break  # the page went away: its place under the caps is free again
            changed.clear()
            state = await read()
            if state is None:
                await response.write(b"event: gone\ndata: {}\n\n")
                break
            if state["version"] != sent_version:
                data = json.dumps(state, separators=(",", ":"))
                await response.write(f"event: state\ndata: {data}\n\n".encode())
                sent_version, last_write = state["version"], loop.time()
            elif loop.time() - last_write > KEEPALIVE_SECONDS:
                await response.write(b": keep-alive\n\n")
                last_write = loop.time()
            await _first(changed, closing, POLL_SECONDS)
    except (ConnectionResetError, ConnectionError):
        log.debug("an events stream's page went away")
    return response


async def _first(changed: asyncio.Event, closing: asyncio.Event, seconds: float) -> None:
    """Wait until either event is set, or `seconds` pass."""
    waits = [asyncio.ensure_future(changed.wait()), asyncio.ensure_future(closing.wait())]
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
