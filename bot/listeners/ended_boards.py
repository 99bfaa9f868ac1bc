"""An ended game's boards: however it ended (a move, /stop, a new game over it, the clock,
the Mini App, the bot blocked), its boards show how, once, and an AI match among them stops.
A board that its handler or chore draws already is not drawn twice (`Presenter.show`)."""

from __future__ import annotations

import logging
from typing import Protocol

from telegram.error import TelegramError

from bot.chat.presenter import Presenter
from bot.games.events import GameEnded

log = logging.getLogger(__name__)


class AiMatches(Protocol):
    """The AI-turns runner (`bot.chores.ai_runner.AiMatchRunner`): ended, a game plays no more."""

    def cancel(self, game_id: int) -> None: ...


class EndedBoards:
    def __init__(self, presenter: Presenter, ai_matches: AiMatches) -> None:
        self._presenter = presenter
        self._ai_matches = ai_matches

    async def heard(self, event: GameEnded) -> None:
        game = event.game
        self._ai_matches.cancel(game.id)
        try:
            await self._presenter.show(game, ai=False)
        except TelegramError as failed:  # e.g. its chat blocked the bot: the board stays
            log.info("game %s: its ended board not shown: %s", game.id, failed)
