"""Typed moves: `2 3` (row column) or `6` (cell number). In a private chat they go to the
current game; in groups (where privacy mode hides other messages) as replies to a board."""

from __future__ import annotations

from telegram import Update

from bot.board_messages import edit_board
from bot.context import BotContext
from bot.handlers.common import player_from, popup, texts_of
from bot.service import MoveStatus


async def typed_move(update: Update, context: BotContext) -> None:
    """Play a typed move, or say in Hyperskill words why not."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None or message.text is None:
        return
    reply_to = message.reply_to_message
    board_id = None
    if chat.type != chat.PRIVATE:
        if (
            reply_to is None
            or reply_to.from_user is None
            or reply_to.from_user.id != context.bot.id
        ):
            return  # group chatter, not a move
        board_id = reply_to.message_id
    tr = texts_of(user)
    result = await context.service.play_typed(
        chat.id, player_from(user), message.text, message_id=board_id
    )
    if result.played and result.game is not None:
        await edit_board(context.bot, context.service, result.game)
        context.ai_matches.follow(result.game)
    elif result.status is MoveStatus.NO_GAME:
        if board_id is None:
            await message.reply_text(tr.NO_GAME)
    elif result.error is not None:
        await message.reply_text(str(result.error))
    elif result.status is MoveStatus.NOT_YOUR_TURN:
        await message.reply_text(tr.NOT_YOUR_TURN)
    else:
        await message.reply_text(popup(tr, result.status))
