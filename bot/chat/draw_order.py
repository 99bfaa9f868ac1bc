"""The order of a game's drawings in this process: one at a time, never an older version
over a newer one, and the redraws still to come (after a doubt, or a claim held elsewhere).

The presenter (`bot.chat.presenter`) draws under it; the board catch-up asks it which games
this process draws now or shortly (`is_drawing`), and leaves those alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable

from bot.games.model import GameView
from bot.telegram.flood_gate import out_of_slot

log = logging.getLogger(__name__)

#: Games whose newest version shown this process remembers (enough for every board in flight).
REMEMBERED = 4096


class DrawOrder:
    def __init__(self) -> None:
        # game id → the newest version this process has shown (or is showing).
        self._newest: OrderedDict[int, int] = OrderedDict()
        # game id → the newest version this process has delivered to every board.
        self._delivered: OrderedDict[int, int] = OrderedDict()
        # game id → (the lock its boards are drawn under, how many hold or wait for it).
        self._drawing: dict[int, tuple[asyncio.Lock, int]] = {}
        # game id → the versions whose drawings wait for their turn.
        self._waiting: dict[int, list[int]] = {}
        # game id → the redraw waiting for a doubt to pass or a claim to be let go.
        self._later: dict[int, asyncio.TimerHandle] = {}
        # game id → until when (the loop's clock) its boards are in doubt, and the version an
        # edit of this process went unanswered for (it may land late).
        self._doubt: dict[int, tuple[float, int]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def redraws_to_come(self) -> int:
        """Redraws waiting for their time or under way (tests wait for none)."""
        return len(self._later) + len(self._tasks)

    @property
    def depth(self) -> int:
        """Games whose boards this process draws now or will shortly (the metrics' outbox
        depth)."""
        return len(self._drawing.keys() | self._later.keys())

    def is_drawing(self, game_id: int) -> bool:
        """Whether this process draws the game's boards now, or will shortly."""
        return game_id in self._drawing or game_id in self._later

    @contextlib.asynccontextmanager
    async def in_order(self, game_id: int, version: int | None = None) -> AsyncIterator[None]:
        """One drawing of a game's boards at a time, in the order they were asked for: an
        edit that waits for a busy group's pace is not overtaken by the next one, so the
        board ends on the newest version (each drawing checks `is_older` and `is_superseded`
        once its turn comes). `version`: the version to be drawn, which makes every older one
        still waiting needless. The wait for the turn is out of the update's shared slot:
        it waits for another drawing's pace."""
        lock, users = self._drawing.get(game_id, (asyncio.Lock(), 0))
        self._drawing[game_id] = (lock, users + 1)
        if version is not None:
            self._waiting.setdefault(game_id, []).append(version)
        waiting = version  # the version queued here until its turn comes
        held = False

        async def take_turn() -> None:
            nonlocal held
            await lock.acquire()
            held = True

        try:
            await (out_of_slot(take_turn()) if lock.locked() else take_turn())
            if waiting is not None:
                self._unqueue(game_id, waiting)
                waiting = None
            yield
        finally:
            if held:
                lock.release()
            if waiting is not None:
                self._unqueue(game_id, waiting)  # cancelled while it waited
            lock, users = self._drawing[game_id]
            if users == 1:
                del self._drawing[game_id]
            else:
                self._drawing[game_id] = (lock, users - 1)

    def _unqueue(self, game_id: int, version: int) -> None:
        """A drawing of this version waits for its turn no more."""
        waiting = self._waiting[game_id]
        waiting.remove(version)
        if not waiting:
            del self._waiting[game_id]

    def is_superseded(self, game: GameView) -> bool:
        """Whether a drawing of a newer version of the game waits for its turn: under a
        chat's pace only the newest version goes out, once."""
        return any(version > game.version for version in self._waiting.get(game.id, ()))

    def is_older(self, game: GameView) -> bool:
        """Whether a newer version of the game has been shown already: a view read before a
        write (ultimate's small board chosen as /stop ends the game) must not draw the game
        as it was over the newer board."""
        return game.version < self._newest.get(game.id, -1)

    def has_shown(self, game: GameView) -> bool:
        """Whether this version of the game, or a newer one, has been drawn (or is drawing),
        answered or not."""
        return game.version <= self._newest.get(game.id, -1)

    def has_delivered(self, game: GameView) -> bool:
        """Whether this version of the game, or a newer one, is on every board (Telegram
        answered each edit)."""
        return game.version <= self._delivered.get(game.id, -1)

    def delivered(self, game: GameView) -> None:
        """This version of the game is on every board."""
        _raise_to(self._delivered, game)

    def showing(self, game: GameView) -> None:
        """This version of the game is being drawn."""
        _raise_to(self._newest, game)

    # --- doubt -------------------------------------------------------------------------------

    def doubt(self, game: GameView, seconds: float) -> None:
        """An edit of this version of the game's boards went unanswered: in doubt for
        `seconds`, in case it lands after a newer edit."""
        until = asyncio.get_running_loop().time() + seconds
        self._doubt[game.id] = (until, game.version)

    def doubt_left(self, game_id: int) -> float | None:
        """Seconds the game's boards stay in doubt (None: none; 0 or less: over, but not yet
        settled)."""
        doubt = self._doubt.get(game_id)
        return None if doubt is None else doubt[0] - asyncio.get_running_loop().time()

    def doubt_was_needless(self, game: GameView) -> bool:
        """Whether the unanswered edit in doubt was the last one: nothing newer was drawn since
        (a late landing of it shows what the board shows anyway), and the game is still there."""
        doubt = self._doubt.get(game.id)
        return doubt is not None and doubt[1] == game.version == self._newest.get(game.id)

    def settle(self, game_id: int) -> None:
        """The game's boards were drawn after their doubt, or are gone: no doubt left."""
        self._doubt.pop(game_id, None)

    # --- redraws to come ---------------------------------------------------------------------

    def later(self, game_id: int, delay: float, redraw: Callable[[int], Awaitable[None]]) -> None:
        """Redraw the game in `delay` seconds (once, however often asked meanwhile)."""
        if game_id in self._later:
            return

        def start() -> None:
            del self._later[game_id]
            task = asyncio.create_task(_quietly(redraw, game_id), name="board redraw")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        self._later[game_id] = asyncio.get_running_loop().call_later(delay, start)

    async def stop(self) -> None:
        """Forget the redraws still waiting, and end those under way (at shutdown)."""
        for handle in self._later.values():
            handle.cancel()
        self._later.clear()
        self._doubt.clear()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def _raise_to(versions: OrderedDict[int, int], game: GameView) -> None:
    """Remember the game's version if newer than the one remembered, for the `REMEMBERED`
    games seen last."""
    versions[game.id] = max(game.version, versions.get(game.id, -1))
    versions.move_to_end(game.id)
    while len(versions) > REMEMBERED:
        versions.popitem(last=False)


async def _quietly(redraw: Callable[[int], Awaitable[None]], game_id: int) -> None:
    try:
        await redraw(game_id)
    except Exception as error:
        # The board catch-up draws it in a later round.
        log.info("board of game %s not drawn again now (%s)", game_id, error)
