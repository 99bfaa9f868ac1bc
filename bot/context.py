"""The handlers' context: the shared service, match runner and settings, typed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from telegram.ext import CallbackContext, ExtBot

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.matches import AiMatchRunner
    from bot.service import GameService


class BotContext(CallbackContext[ExtBot, dict, dict, dict]):
    """PTB's context plus the resources opened in `post_init` (kept in `bot_data`)."""

    @property
    def service(self) -> GameService:
        return self.bot_data["service"]

    @property
    def ai_matches(self) -> AiMatchRunner:
        return self.bot_data["matches"]

    @property
    def settings(self) -> Settings:
        return self.bot_data["settings"]
