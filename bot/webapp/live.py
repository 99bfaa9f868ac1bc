"""Live updates for the Mini App's pages: a notifier fed by every board the bot shows in chat
(bot.chat.boards' hooks) and by the games' events, and the server-sent events that carry a
game's state to a page, or a page looking for a stranger to the game it found.

An events stream re-reads the game when the notifier says it was shown, and every
`POLL_SECONDS` besides: a move made by another instance of the bot (sharing the database)
shows up too, only a little later. It sends the state only when its version changed. A
search's stream (`stream_pairing`) looks for the user's game against a stranger when a game
seating them starts (`GameStarted`, `SeatsTaken`), and as often besides, and says which once
there is one: looking for what is so, not waiting for a change, it misses no pairing made
before it opened.

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

from bot.games.events import GameEnded, GameStarted, SeatsTaken, players_of
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


class Waiters:
    """asyncio events by a key (a game's id, a player's), set together (same event loop)."""

    def __init__(self) -> None:
        self._waiters: dict[int, set[asyncio.Event]] = {}

    def wake(self, key: int) -> None:
        for event in self._waiters.get(key, ()):
            event.set()

    @contextlib.contextmanager
    def waiting(self, key: int) -> Iterator[asyncio.Event]:
        """An event set whenever `key` is woken, while the block runs."""
        event = asyncio.Event()
        self._waiters.setdefault(key, set()).add(event)
        try:
            yield event
        finally:
            waiters = self._waiters.get(key, set())
            waiters.discard(event)
            if not waiters:
                self._waiters.pop(key, None)

    def count(self, key: int) -> int:
        return len(self._waiters.get(key, ()))


class GameNotifier:
    """Wakes the event streams of a game when its board is shown or it ends, and a player's
    search stream when a game seats them."""

    def __init__(self) -> None:
        self._games = Waiters()
        self._players = Waiters()

    async def heard(self, event: GameEnded) -> None:
        """A game ended: its pages show how."""
        self.notify(event.game)

    async def heard_seated(self, event: GameStarted | SeatsTaken) -> None:
        """A game seated players (a stranger's game begins so): their searches look."""
        seated = event.players if isinstance(event, SeatsTaken) else players_of(event.game)
        for player in seated:
            self._players.wake(player)

    def notify(self, game: GameView) -> None:
        self._games.wake(game.id)

    def listening(self, game_id: int) -> contextlib.AbstractContextManager[asyncio.Event]:
        """An event set whenever the game is shown, while the block runs."""
        return self._games.waiting(game_id)

    def seated(self, player_id: int) -> contextlib.AbstractContextManager[asyncio.Event]:
        """An event set whenever a game seats the player, while the block runs."""
        return self._players.waiting(player_id)

    def listeners(self, game_id: int) -> int:
        return self._games.count(game_id)


async def events_response(request: web.Request) -> web.StreamResponse:
    """A server-sent events' response, under way."""
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            # nginx buffers responses by default, which would hold the events back.
            "X-Accel-Buffering": "no",
        }
    )
    await response.prepare(request)
    return response


async def stream_game(
    request: web.Request,
    changed: asyncio.Event,
    closing: asyncio.Event,
    read: Callable[[], Awaitable[dict[str, Any] | None]],
    sent: Callable[[], Awaitable[None]] | None = None,
) -> web.StreamResponse:
    """Server-sent events: `state` with the game's JSON whenever its version changes, until
    the page goes away, the server stops, or the game is gone (`gone`). `sent` hears of
    each state the page has now (written to it)."""
    response = await events_response(request)
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
                if sent is not None:
                    await sent()
            elif loop.time() - last_write > KEEPALIVE_SECONDS:
                await response.write(b": keep-alive\n\n")
                last_write = loop.time()
            await _first(changed, closing, POLL_SECONDS)
    except (ConnectionResetError, ConnectionError):
        log.debug("an events stream's page went away")
    return response


async def stream_pairing(
    request: web.Request,
    seated: asyncio.Event,
    closing: asyncio.Event,
    find: Callable[[], Awaitable[str | None]],
) -> web.StreamResponse:
    """Server-sent events for a page looking for a stranger: `paired` with the public id of
    the user's game against one (`find`) once there is one, and the stream ends; until then
    a comment now and then, until the page goes away or the server stops."""
    response = await events_response(request)
    loop = asyncio.get_running_loop()
    last_write = loop.time()
    try:
        while not closing.is_set():
            if request.transport is None or request.transport.is_closing():
                break
            seated.clear()
            found = await find()
            if found is not None:
                data = json.dumps({"id": found}, separators=(",", ":"))
                await response.write(f"event: paired\ndata: {data}\n\n".encode())
                break
            if loop.time() - last_write > KEEPALIVE_SECONDS:
                await response.write(b": keep-alive\n\n")
                last_write = loop.time()
            await _first(seated, closing, POLL_SECONDS)
    except (ConnectionResetError, ConnectionError):
        log.debug("a search's page went away")
    return response


async def _first(changed: asyncio.Event, closing: asyncio.Event, seconds: float) -> None:
    """Wait until either event is set, or `seconds` pass."""
    waits = [asyncio.ensure_future(changed.wait()), asyncio.ensure_future(closing.wait())]
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
