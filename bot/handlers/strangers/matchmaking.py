"""Playing strangers: /play (a size or ultimate may follow), the menu's and a finished
game's "Play someone", the waiting message's Cancel and its offer of the AI, and "Don't pair
me with them again". Every button here acts for the one who taps it, on their own entry."""

from __future__ import annotations

from telegram import (
    Chat,
    Update,
)

from bot.context import BotContext
from bot.games.model import USER, PlayerKind
from bot.games.play.clock_rules import clock_of_key
from bot.games.strangers.pairing import board_of_key
from bot.handlers.common import (
    answer,
    edit_tapped,
    player_from,
    texts_of,
)
from bot.handlers.menu import start_game
from bot.handlers.strangers.searching import language_of, look_for_opponent, play
from bot.handlers.taps import Tapped
from bot.locales.texts import isolate
from bot.telegram.tapped_keyboard import tapped_markup
from bot.views.questions import asking_to_block, block_answered
from bot.views.rating import first_name
from bot.wire.callback_data import STOP_LOOKING
from bot.wire.game_spec import GameSpec
from bot.wire.taps import BlockPlayerTap, QueueTap


async def play_command(update: Update, context: BotContext) -> None:
    """/play [size [k] | ultimate]: look for a stranger to play, from a private chat."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is not None and chat is not None and user is not None:
        await play(context, message, chat, user, context.args or [])


async def tap_queue(tapped: Tapped[QueueTap], context: BotContext) -> None:
    """Play someone (again), Cancel, or play the AI offered instead."""
    query, tap = tapped.query, tapped.tap
    tr, chat = texts_of(query.from_user, context), tapped.message.chat
    if chat.type != Chat.PRIVATE:
        await answer(query, tr.QUEUE_PRIVATE_ONLY, alert=True)
        return
    if tap.kind == STOP_LOOKING or tap.level is not None:
        left = await context.games.matchmaking.cancel(
            query.from_user.id, from_message=tapped.message.message_id
        )
        if left is None:  # cancelled already, paired meanwhile, or an older search's message
            await answer(query, tr.POPUP_NOT_WAITING)
            if tapped_markup(query.message) is not None:  # else its buttons are gone already
                await edit_tapped(query.edit_message_reply_markup(None))
            return
        await answer(query)
        if tap.level is None:
            await edit_tapped(query.edit_message_text(tr.QUEUE_CANCELLED))
            return
        await edit_tapped(query.edit_message_text(tr.QUEUE_OTHER_GAME))
        board = board_of_key(tap.board or "3x3").shape
        await start_game(
            context, chat, query.from_user, GameSpec(USER, PlayerKind.of(tap.level), board)
        )
        return
    await answer(query)
    board = board_of_key(tap.board or "3x3").shape
    clock = clock_of_key(tap.clock) if tap.clock else None
    if tap.resign_underway:  # the question is answered: it goes, the board shows the rest
        await edit_tapped(query.edit_message_reply_markup(None))
    user = query.from_user
    await look_for_opponent(
        context,
        chat.id,
        player_from(user),
        board,
        language_of(user, context),
        clock,
        resign_underway=tap.resign_underway,
    )


async def tap_block(tapped: Tapped[BlockPlayerTap], context: BotContext) -> None:
    """🚫 Don't pair me with my opponent of this game again: it asks first (Yes / No in place
    of the button, `bot.views.questions`); Yes blocks them."""
    query, tap = tapped.query, tapped.tap
    tr = texts_of(query.from_user, context)
    markup = tapped_markup(query.message)
    if tap.confirmed is None:
        await answer(query, tr.POPUP_BLOCK_CONFIRM)
        if markup is not None:
            asking = asking_to_block(markup, query.data or "", tap.game_id, tr)
            await edit_tapped(query.edit_message_reply_markup(asking))
        return
    if tap.confirmed:
        blocked = await context.games.matchmaking.block(player_from(query.from_user), tap.game_id)
        if blocked is None:
            await answer(query, tr.POPUP_NOT_A_PLAYER)
            return
        name = isolate(first_name(blocked or tr.NOBODY_YET), tr)
        await answer(query, tr.POPUP_BLOCKED.format(name=name), alert=True)
    else:
        await answer(query)
    if markup is not None:
        answered = block_answered(markup, tap.game_id, tap.confirmed, tr)
        await edit_tapped(query.edit_message_reply_markup(answered))
