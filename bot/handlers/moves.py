"""Typed moves in a private chat: `2 3` (row column) or `6` (cell number)."""

from __future__ import annotations

from telegram import Update

from bot import texts
from bot.board_messages import edit_board
from bot.context import BotContext
from bot.handlers.common import POPUPS, player_from
from bot.service import MoveStatus


async def typed_move(update: Update, context: BotContext) -> None:
    """Play a typed move in the chat's current game, or say in Hyperskill words why not."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None or message.text is None:
        return
    result = await context.service.play_typed(chat.id, player_from(user), message.text)
    if result.played and result.game is not None:
        await edit_board(context.bot, context.service, result.game)
    elif result.status is MoveStatus.NO_GAME:
        await message.reply_text(texts.NO_GAME)
    elif result.error is not None:
        await message.reply_text(str(result.error))
    elif result.status is MoveStatus.NOT_YOUR_TURN:
        await message.reply_text(texts.NOT_YOUR_TURN)
    else:
        await message.reply_text(POPUPS.get(result.status, texts.POPUP_ERROR))
