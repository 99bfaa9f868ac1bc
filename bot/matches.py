"""AI turns in the background: AI-vs-AI matches (one move per pause) and replies of an AI
that needs time to think (hard on a big board)."""

from __future__ import annotations

import asyncio
import logging

from telegram import Bot
from telegram.error import TelegramError

from bot.boards import show_board
from bot.games.ai_turns import AiTurns
from bot.games.chats import Chats
from bot.games.model import GameView
from bot.games.store import Store

log = logging.getLogger(__name__)


class AiMatchRunner:
    """Plays the AI's turns of a game, one task per game. The state lives in the database, so
    a game interrupted by a restart is resumed by `start` with the same game id."""

    def __init__(
        self, games: Store, ai_turns: AiTurns, chats: Chats, bot: Bot, pause_seconds: float
    ) -> None:
        self._store = games
        self._ai_turns = ai_turns
        self._chats = chats
        self._bot = bot
        self._pause = pause_seconds
        self._tasks: dict[int, asyncio.Task[None]] = {}

    def start(self, game_id: int) -> None:
        if game_id in self._tasks:
            return
        task = asyncio.create_task(self._run(game_id), name=f"ai-turns-{game_id}")
        self._tasks[game_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(game_id, None))

    def follow(self, game: GameView) -> None:
        """Start playing the AI's turns if the AI is to move in this game."""
        if game.waits_for_ai:
            self.start(game.id)

    def cancel(self, game_id: int) -> None:
        task = self._tasks.get(game_id)
        if task is not None:
            task.cancel()

    async def stop_all(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _run(self, game_id: int) -> None:
        while True:
            game = await self._store.get_game(game_id)
            if game is None or not game.waits_for_ai:
                return
            if game.is_ai_match:
                await asyncio.sleep(self._pause)  # paced so spectators can follow
            game = await self._ai_turns.step(game_id)
            if game is None:
                return
            try:
                posted = await show_board(self._bot, game)
                if posted is not None:
                    await self._chats.attach_message(game.id, posted)
            except TelegramError:
                # The move is saved; the next edit shows it. Never let a match task crash.
                log.warning("could not show an AI move of game %s", game_id, exc_info=True)
