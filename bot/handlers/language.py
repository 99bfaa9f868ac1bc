"""/language: the player picks the language the bot speaks with them."""

from __future__ import annotations

import contextlib

from telegram import BotCommandScopeChat, Chat, Update
from telegram.error import TelegramError

from bot.context import BotContext
from bot.handlers.common import (
    answer,
    edit_tapped,
    player_from,
    texts_of,
)
from bot.handlers.taps import Tapped
from bot.locales.texts import texts_for
from bot.views.keyboards import language_keyboard
from bot.views.profile import command_menus
from bot.wire.taps import LanguageTap


async def language(update: Update, context: BotContext) -> None:
    """Every language the bot speaks, each in its own name."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    tr = texts_of(user, context)
    await message.reply_text(tr.LANGUAGE_ASK, reply_markup=language_keyboard(tr.code, user.id))


async def tap_language(tapped: Tapped[LanguageTap], context: BotContext) -> None:
    """Store the choice, and say so in the chosen language (the question becomes the answer).
    Only the person who sent /language chooses: anyone else's tap changes nothing."""
    query, tap, message = tapped.query, tapped.tap, tapped.message
    await context.games.players.choose_language(player_from(query.from_user), tap.code)
    tr = texts_for(tap.code)
    await answer(query)
    await edit_tapped(query.edit_message_text(tr.LANGUAGE_CHOSEN))
    chat = message.chat
    if chat.type == Chat.PRIVATE:
        # Telegram shows the command menu in the client's language; in this chat, show it in
        # the chosen one. Not needed to play: a failure changes nothing else.
        private, _ = command_menus(tap.code)
        with contextlib.suppress(TelegramError):
            await context.bot.set_my_commands(private, BotCommandScopeChat(chat.id))
