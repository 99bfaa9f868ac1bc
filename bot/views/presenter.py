"""Showing a game: the one presenter, built at start-up and held by the context.

"AI's quick reply → render → send or edit every board of the game → record a board posted
afresh → tell the Mini App → let the AI follow" is written here once, and handlers, the Mini
App and every background chore (the AI-turns runner, the turn clock, the board catch-up, the
matchmaker) call it. What a running bot adds to its boards (`BoardHooks`: the Mini App's "Open
board" button and live pages, the board outbox's marks) is the presenter's, set once the
resources are open: no module-level registry.

Errors of Telegram reach the caller: a handler's go to the error handler (and are logged at
ERROR), a background chore decides for itself whether to try again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Protocol

from telegram import Bot

from bot.games.chats import Chats
from bot.games.model import GameView
from bot.telegram.flood_gate import Pace
from bot.views.boards import NO_HOOKS, BoardHooks, send_board, send_second_board, show_board

#: Games whose newest version shown this process remembers (enough for every board in flight).
REMEMBERED = 4096


class AiPlayer(Protocol):
    """What the presenter needs of the AI-turns runner (`bot.chores.ai_runner.AiMatchRunner`), which
    shows its own moves through the presenter."""

    async def reply_at_once(self, game: GameView) -> GameView: ...

    def follow(self, game: GameView) -> None: ...


class Presenter:
    def __init__(self, bot: Bot, chats: Chats, hooks: BoardHooks = NO_HOOKS) -> None:
        self._bot = bot
        self._chats = chats
        #: What the running bot adds to every board (set once the Mini App is open).
        self.hooks = hooks
        #: The AI-turns runner, which shows its own moves through this presenter.
        self.ai: AiPlayer | None = None
        # game id → the newest version this presenter has shown (or is showing).
        self._newest: OrderedDict[int, int] = OrderedDict()
        # game id → (the lock its boards are drawn under, how many hold or wait for it).
        self._drawing: dict[int, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def _in_order(self, game_id: int) -> AsyncIterator[None]:
        """One drawing of a game's boards at a time, in the order they were asked for: an
        edit that waits for a busy group's pace is not overtaken by the next one, so the
        board ends on the newest version (each drawing checks `_is_older` once its turn
        comes)."""
        lock, users = self._drawing.get(game_id, (asyncio.Lock(), 0))
        self._drawing[game_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._drawing[game_id]
            if users == 1:
                del self._drawing[game_id]
            else:
                self._drawing[game_id] = (lock, users - 1)

    def _is_older(self, game: GameView) -> bool:
        """Whether a newer version of the game has been shown already: a view read before a
        write (ultimate's small board chosen as /stop ends the game) must not draw the game
        as it was over the newer board."""
        newest = self._newest.get(game.id, -1)
        if game.version < newest:
            return True
        self._newest[game.id] = game.version
        self._newest.move_to_end(game.id)
        while len(self._newest) > REMEMBERED:
            self._newest.popitem(last=False)
        return False

    async def show(
        self,
        game: GameView,
        *,
        hint: int | None = None,
        block: int | None = None,
        pace: Pace = Pace.PERSON,
        ai: bool = True,
    ) -> GameView:
        """Show the game's new state on its boards (a `hint` cell lit; on ultimate's, the
        small board `block` chosen), after the AI's quick reply (so both moves come in one
        edit); record a board that had to be posted afresh; let the AI play its turns if it
        is to move. `ai=False` for the AI-turns runner itself and the chores that only
        redraw. Returns the game as shown."""
        if ai and self.ai is not None:
            game = await self.ai.reply_at_once(game)
        try:
            async with self._in_order(game.id):
                if self._is_older(game):
                    return game
                posted = await show_board(
                    self._bot, game, hooks=self.hooks, pace=pace, hint=hint, block=block
                )
                if posted is not None:
                    await self._chats.attach_message(game.id, posted)
                    game = replace(game, message_id=posted)
        finally:  # a board Telegram refused does not keep the AI from its turn
            if ai and self.ai is not None:
                self.ai.follow(game)
        return game

    async def post(
        self, chat_id: int, game: GameView, *, pace: Pace = Pace.PERSON, ai: bool = True
    ) -> GameView:
        """Post a new game's board in a chat, record where it is, and let the AI start (a
        quick first move is on the board as it is posted)."""
        if ai and self.ai is not None:
            game = await self.ai.reply_at_once(game)
        try:
            message_id = await send_board(self._bot, chat_id, game, hooks=self.hooks, pace=pace)
            if message_id is not None:
                # None: the answer was lost; the next tap on it (or the catch-up) records it.
                await self._chats.attach_message(game.id, message_id)
                game = replace(game, message_id=message_id)
        finally:
            if ai and self.ai is not None:
                self.ai.follow(game)
        return game

    async def post_second(self, game: GameView) -> GameView:
        """Post the second board of a game between strangers, in ⭕'s private chat."""
        posted = await send_second_board(self._bot, game, self.hooks)
        if posted is None:
            return game
        await self._chats.attach_message(game.id, posted, second=True)
        return replace(game, second_message_id=posted)
