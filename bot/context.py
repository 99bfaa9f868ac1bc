"""The handlers' context: the use-cases, the presenter, the AI-turns runner and the settings,
typed (`bot.resources`); and `BotApplication`, the type of the Application that makes it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from telegram import CallbackQuery
from telegram.ext import Application, CallbackContext, ContextTypes, ExtBot, JobQueue

from bot.resources import Resources
from bot.telegram.flood_limits import Pace

if TYPE_CHECKING:
    from bot.chat.presenter import Presenter
    from bot.chores.ai_runner import AiMatchRunner
    from bot.chores.board_catch_up import BoardCatchUp
    from bot.config import Settings
    from bot.games.model import UpdateClaim
    from bot.games.use_cases import Games
    from bot.resources import Running


class BotContext(CallbackContext[ExtBot[Pace], dict[Any, Any], dict[Any, Any], Resources]):
    """PTB's context plus the resources opened in `post_init` (`bot_data`, a `Resources`).

    PTB makes one context per update and hands it to every handler group, so what the first
    group (`handlers/delivery`) learns about the update's sender reaches the handlers."""

    #: The language the update's sender chose with /language (None: their client's).
    chosen_language: str | None = None
    #: A board tap's update, left for its use-case to claim in its own transaction.
    deferred_claim: UpdateClaim | None = None
    #: The update's tap, if it is one: answered even when the update was handled already.
    tap: CallbackQuery | None = None

    @property
    def running(self) -> Running:
        return self.bot_data.running

    @property
    def games(self) -> Games:
        return self.bot_data.running.games

    @property
    def presenter(self) -> Presenter:
        """The one way a game is shown (`bot.chat.presenter`)."""
        return self.bot_data.running.presenter

    @property
    def ai_matches(self) -> AiMatchRunner:
        return self.bot_data.running.matches

    @property
    def board_catch_up(self) -> BoardCatchUp:
        return self.bot_data.running.board_catch_up

    @property
    def settings(self) -> Settings:
        return self.bot_data.config


#: The Application `bot.app.build_application` builds, as PTB's builder types it: a bot whose
#: calls the flood gate paces (`Pace`), this context, and the resources as `bot_data`. The job
#: queue is the builder's default type (none runs: APScheduler is no dependency).
BotApplication: TypeAlias = Application[
    ExtBot[Pace],
    BotContext,
    dict[Any, Any],
    dict[Any, Any],
    Resources,
    JobQueue[ContextTypes.DEFAULT_TYPE],
]
