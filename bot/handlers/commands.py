"""Commands: /start, /challenge, /stop (/exit), /help, /stats, /top."""

from __future__ import annotations

from telegram import Chat, Update

from bot.board_messages import edit_board, send_board
from bot.context import BotContext
from bot.game_spec import parse_board_size, parse_start_args
from bot.handlers.common import is_group, player_from, start_and_send, texts_of
from bot.keyboards import forget_keyboard, menu_keyboard
from bot.render import render_stats, render_top
from bot.service import MoveStatus


async def start(update: Update, context: BotContext) -> None:
    """Show the menu, or start the game named in the arguments (deep links too)."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    tr = texts_of(user)
    if not context.args:
        welcome = tr.WELCOME_GROUP if is_group(chat) else tr.WELCOME
        await message.reply_text(welcome, reply_markup=menu_keyboard(tr, group=is_group(chat)))
        return
    spec = parse_start_args(context.args)
    if spec is None:
        await message.reply_text(tr.BAD_PARAMETERS)
        return
    await start_and_send(context, chat, user, spec)


async def challenge(update: Update, context: BotContext) -> None:
    """Challenge anyone in the group, `@name`, or the author of the replied-to message."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    tr = texts_of(user)
    if not is_group(chat):
        await message.reply_text(tr.GROUP_ONLY.format(bot=context.bot.username))
        return
    args = [a.lower() for a in context.args or []]
    invited = message.reply_to_message.from_user if message.reply_to_message else None
    mentions = [a for a in args if a.startswith("@")]
    size = parse_board_size([a for a in args if not a.startswith("@")])
    if size is None or len(mentions) > 1 or any(len(m) < 2 for m in mentions):
        await message.reply_text(tr.BAD_CHALLENGE)
        return
    username = None
    if mentions:
        username, invited = mentions[0][1:], None
    if invited is not None and invited.is_bot:
        await message.reply_text(tr.CHALLENGE_BOT)
        return
    if (invited is not None and invited.id == user.id) or (
        username and user.username and username.lower() == user.username.lower()
    ):
        await message.reply_text(tr.CHALLENGE_YOURSELF)
        return
    game = await context.service.create_challenge(
        chat.id,
        player_from(user),
        invited=player_from(invited) if invited else None,
        invited_username=username,
        board=size.empty_board(),
    )
    await send_board(context.bot, context.service, chat.id, game)


async def stop(update: Update, context: BotContext) -> None:
    """End the sender's current game here; a running game counts as resigned."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    tr = texts_of(user)
    result = await context.service.stop_current(chat.id, player_from(user))
    if result.status is MoveStatus.NO_GAME or result.game is None:
        await message.reply_text(tr.NO_GAME)
        return
    if not result.played:
        await message.reply_text(tr.POPUP_CONFLICT)
        return
    game = result.game
    context.ai_matches.cancel(game.id)
    await edit_board(context.bot, context.service, game)
    if game.is_ai_match:
        await message.reply_text(tr.STOPPED_AI_MATCH)
    elif game.status == "cancelled":
        await message.reply_text(tr.STOPPED_CHALLENGE)
    else:
        await message.reply_text(tr.STOPPED)


async def forget(update: Update, context: BotContext) -> None:
    """Ask before deleting everything stored about the sender."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    tr = texts_of(user)
    await message.reply_text(tr.FORGET_ASK, reply_markup=forget_keyboard(tr, user.id))


async def help_command(update: Update, context: BotContext) -> None:
    """How to play, in a few lines."""
    if update.effective_message is not None:
        tr = texts_of(update.effective_user)
        await update.effective_message.reply_text(tr.HELP.format(bot=context.bot.username))


async def stats(update: Update, context: BotContext) -> None:
    """The sender's record per opponent kind and their winning streak."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    record = await context.service.stats(user.id)
    await message.reply_text(render_stats(record, texts_of(user)))


async def top(update: Update, context: BotContext) -> None:
    """The group's leaderboard of games between people played there."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    tr = texts_of(update.effective_user)
    if chat.type == Chat.PRIVATE:
        await message.reply_text(tr.TOP_PRIVATE)
        return
    await message.reply_text(render_top(await context.service.top(chat.id), tr))
