"""AI-vs-AI matches: one background task per match, one move per pause."""

from __future__ import annotations

import asyncio
import logging

from telegram import Bot
from telegram.error import TelegramError

from bot.board_messages import edit_board
from bot.service import GameService

log = logging.getLogger(__name__)


class AiMatchRunner:
    """Plays AI-vs-AI games move by move. The state lives in the database, so a match
    interrupted by a restart is resumed by `start` with the same game id."""

    def __init__(self, service: GameService, bot: Bot, pause_seconds: float) -> None:
        self._service = service
        self._bot = bot
        self._pause = pause_seconds
        self._tasks: dict[int, asyncio.Task[None]] = {}

    def start(self, game_id: int) -> None:
        if game_id in self._tasks:
            return
        task = asyncio.create_task(self._run(game_id), name=f"ai-match-{game_id}")
        self._tasks[game_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(game_id, None))

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
            await asyncio.sleep(self._pause)
            game = await self._service.ai_step(game_id)
            if game is None:
                return
            try:
                await edit_board(self._bot, self._service, game)
            except TelegramError:
                # The move is saved; the next edit shows it. Never let a match task crash.
                log.warning("could not show a move of AI match %s", game_id, exc_info=True)
            if not game.is_active:
                return
