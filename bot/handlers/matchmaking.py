"""Playing strangers: /play (a size or ultimate may follow), the menu's and a finished
game's "Play someone", the waiting message's Cancel and its offer of the AI, and "Don't pair
me with them again". Every button here acts for the one who taps it, on their own entry."""

from __future__ import annotations

from datetime import UTC, datetime

from telegram import (
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
    User,
)

from bot.context import BotContext
from bot.games.matchmaking import JoinStatus
from bot.games.model import USER, PlayerKind
from bot.games.pairing import board_key, board_of_key
from bot.handlers.common import (
    answer,
    edit_tapped,
    player_from,
    texts_of,
)
from bot.handlers.menu import start_game
from bot.handlers.taps import Tapped
from bot.views.queue import render_waiting
from bot.views.rating import first_name
from bot.views.render import player_name
from bot.views.texts import isolate
from bot.wire.callback_data import STOP_LOOKING, BlockPlayerTap, QueueTap
from bot.wire.game_spec import GameSpec, parse_play_args
from core.board import BoardSize, X, other


async def play_command(update: Update, context: BotContext) -> None:
    """/play [size [k] | ultimate]: look for a stranger to play, from a private chat."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    tr = texts_of(user, context)
    if chat.type != Chat.PRIVATE:
        link = InlineKeyboardButton(
            tr.BUTTON_OPEN_PRIVATE, url=f"https://t.me/{context.bot.username}"
        )
        await message.reply_text(tr.QUEUE_PRIVATE_ONLY, reply_markup=InlineKeyboardMarkup([[link]]))
        return
    board = parse_play_args(context.args or [])
    if board is None:
        await message.reply_text(tr.BAD_PARAMETERS)
        return
    await look_for_opponent(context, chat.id, user, board)


async def look_for_opponent(
    context: BotContext, chat_id: int, user: User, board: BoardSize
) -> None:
    """Join the queue: paired at once (both boards posted), or a waiting message with Cancel,
    or told to finish the game against a stranger they play already."""
    tr = texts_of(user, context)
    language = context.chosen_language or user.language_code
    result = await context.games.matchmaking.join(
        player_from(user), chat_id, board_key(board), language
    )
    if result.status is JoinStatus.PLAYING and result.game is not None:
        opponent = other(result.game.mark_of(user.id) or X)
        name = player_name(result.game, opponent, tr)
        await context.bot.send_message(chat_id, tr.QUEUE_PLAYING.format(name=name))
    elif result.paired is not None:
        await context.running.matchmaker.begin(result.paired)
    elif result.waiting is not None:
        shown = render_waiting(result.waiting, datetime.now(UTC), tr, offer=False)
        posted = await context.bot.send_message(chat_id, shown.text, reply_markup=shown.keyboard)
        await context.games.matchmaking.attach_message(user.id, posted.message_id)


async def tap_queue(tapped: Tapped[QueueTap], context: BotContext) -> None:
    """Play someone (again), Cancel, or play the AI offered instead."""
    query, tap = tapped.query, tapped.tap
    tr, chat = texts_of(query.from_user, context), tapped.message.chat
    if chat.type != Chat.PRIVATE:
        await answer(query, tr.QUEUE_PRIVATE_ONLY, alert=True)
        return
    if tap.kind == STOP_LOOKING or tap.level is not None:
        left = await context.games.matchmaking.cancel(query.from_user.id)
        if left is None:  # cancelled already, or paired meanwhile: the board is below
            await answer(query, tr.POPUP_NOT_WAITING)
            await edit_tapped(query.edit_message_reply_markup(None))
            return
        await answer(query)
        if tap.level is None:
            await edit_tapped(query.edit_message_text(tr.QUEUE_CANCELLED))
            return
        await edit_tapped(query.edit_message_reply_markup(None))
        board = board_of_key(tap.board or "3x3").shape
        await start_game(
            context, chat, query.from_user, GameSpec(USER, PlayerKind.of(tap.level), board)
        )
        return
    await answer(query)
    board = board_of_key(tap.board or "3x3").shape
    await look_for_opponent(context, chat.id, query.from_user, board)


async def tap_block(tapped: Tapped[BlockPlayerTap], context: BotContext) -> None:
    """Don't pair me with my opponent of this game again."""
    query, tap = tapped.query, tapped.tap
    tr = texts_of(query.from_user, context)
    blocked = await context.games.matchmaking.block(player_from(query.from_user), tap.game_id)
    if blocked is None:
        await answer(query, tr.POPUP_NOT_A_PLAYER)
        return
    name = isolate(first_name(blocked or tr.NOBODY_YET), tr)
    await answer(query, tr.POPUP_BLOCKED.format(name=name), alert=True)
