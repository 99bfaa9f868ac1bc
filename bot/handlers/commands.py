"""Commands: /start, /stop (/exit), /help, /stats."""

from __future__ import annotations

from telegram import Update

from bot import texts
from bot.board_messages import edit_board
from bot.context import BotContext
from bot.handlers.common import player_from, start_and_send
from bot.keyboards import menu_keyboard
from bot.render import render_stats
from bot.service import PLAYER_KINDS, USER, MoveStatus


def parse_start_args(args: list[str]) -> tuple[str, str] | None:
    """`hard` → (user, hard); `hard user` or `hard_user` → (hard, user); else None."""
    words = "_".join(args).lower().replace("_", " ").split()
    if len(words) == 1 and words[0] in PLAYER_KINDS and words[0] != USER:
        return USER, words[0]
    if len(words) == 2 and all(word in PLAYER_KINDS for word in words):
        return words[0], words[1]
    return None


async def start(update: Update, context: BotContext) -> None:
    """Show the menu, or start the game named in the arguments (deep links too)."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    if not context.args:
        await message.reply_text(texts.WELCOME, reply_markup=menu_keyboard())
        return
    kinds = parse_start_args(context.args)
    if kinds is None:
        await message.reply_text(texts.BAD_PARAMETERS)
        return
    await start_and_send(context, chat, user, *kinds)


async def stop(update: Update, context: BotContext) -> None:
    """End the chat's current game; a running game counts as resigned."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    result = await context.service.stop_current(chat.id, player_from(user))
    if result.status is MoveStatus.NO_GAME or result.game is None:
        await message.reply_text(texts.NO_GAME)
        return
    if result.status is not MoveStatus.PLAYED:
        await message.reply_text(texts.POPUP_NOT_A_PLAYER)
        return
    context.ai_matches.cancel(result.game.id)
    await edit_board(context.bot, context.service, result.game)
    reply = texts.STOPPED_AI_MATCH if result.game.is_ai_match else texts.STOPPED
    await message.reply_text(reply)


async def help_command(update: Update, context: BotContext) -> None:
    """How to play, in a few lines."""
    if update.effective_message is not None:
        await update.effective_message.reply_text(texts.HELP)


async def stats(update: Update, context: BotContext) -> None:
    """The sender's wins, losses and draws per AI level."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    await message.reply_text(render_stats(await context.service.stats(user.id)))
