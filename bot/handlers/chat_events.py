"""Chat events: a group that became a supergroup keeps its games."""

from __future__ import annotations

from telegram import Update

from bot.context import BotContext


async def chat_migrated(update: Update, context: BotContext) -> None:
    """Move the games of a migrated group to its new (supergroup) chat id."""
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id is not None:
        await context.games.chats.migrate(message.chat.id, message.migrate_to_chat_id)
    elif message.migrate_from_chat_id is not None:
        await context.games.chats.migrate(message.migrate_from_chat_id, message.chat.id)
