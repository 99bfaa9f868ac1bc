"""The composition root: builds the Application, opens resources, registers handlers."""

from __future__ import annotations

import asyncio
import logging
import random

from telegram import BotCommand
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from bot import texts
from bot.config import Settings
from bot.context import BotContext
from bot.db.engine import create_engine, create_session_factory
from bot.db.migrate import upgrade_database
from bot.handlers import buttons, commands, errors, moves
from bot.matches import AiMatchRunner
from bot.service import GameService

log = logging.getLogger(__name__)


def build_application(settings: Settings) -> Application:
    """The bot, ready for `run_polling` (which calls `post_init` and `post_shutdown`)."""
    builder = (
        ApplicationBuilder()
        .token(settings.token)
        .context_types(ContextTypes(context=BotContext))
        .post_init(open_resources)
        .post_shutdown(close_resources)
    )
    if settings.api_base_url:
        builder = builder.base_url(settings.api_base_url)
    application = builder.build()
    application.bot_data["settings"] = settings
    register_handlers(application)
    return application


def register_handlers(application: Application) -> None:
    application.add_handler(CommandHandler("start", commands.start))
    application.add_handler(CommandHandler(["stop", "exit"], commands.stop))
    application.add_handler(CommandHandler("help", commands.help_command))
    application.add_handler(CommandHandler("stats", commands.stats))
    application.add_handler(CallbackQueryHandler(buttons.button))
    application.add_handler(
        MessageHandler(filters.ChatType.PRIVATE & filters.TEXT & ~filters.COMMAND, moves.typed_move)
    )
    application.add_error_handler(errors.on_error)


async def open_resources(application: Application) -> None:
    """Migrate the database, open it, register the command menu, resume AI matches."""
    settings: Settings = application.bot_data["settings"]
    # Alembic runs its own event loop, so it gets a thread of its own.
    await asyncio.to_thread(upgrade_database, settings.database_url)
    engine = create_engine(settings.database_url)
    service = GameService(create_session_factory(engine), random.Random())
    matches = AiMatchRunner(service, application.bot, settings.ai_pause_seconds)
    application.bot_data.update(engine=engine, service=service, matches=matches)
    await application.bot.set_my_commands([BotCommand(name, text) for name, text in texts.COMMANDS])
    for game in await service.running_ai_matches():
        matches.start(game.id)
    log.info("bot @%s is ready", application.bot.username)


async def close_resources(application: Application) -> None:
    """Stop match tasks and close the database."""
    matches: AiMatchRunner | None = application.bot_data.get("matches")
    if matches is not None:
        await matches.stop_all()
    engine = application.bot_data.get("engine")
    if engine is not None:
        await engine.dispose()
