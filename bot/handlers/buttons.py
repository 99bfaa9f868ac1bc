"""Button taps: board cells, resign, new game, menu, help."""

from __future__ import annotations

from telegram import Update

from bot import texts
from bot.board_messages import edit_board
from bot.callback_data import (
    CellTap,
    HelpTap,
    MenuTap,
    NewGameTap,
    ResignTap,
    parse_callback_data,
)
from bot.context import BotContext
from bot.handlers.common import POPUPS, player_from, start_and_send
from bot.keyboards import menu_keyboard
from bot.service import MoveResult


async def button(update: Update, context: BotContext) -> None:
    """Act on a tap. Every query is answered, with a pop-up saying why when nothing happens
    (Telegram clients show a spinner until the query is answered)."""
    query = update.callback_query
    if query is None:
        return
    user = player_from(query.from_user)
    message = query.message
    chat = message.chat if message is not None else None
    tap = parse_callback_data(query.data)

    if isinstance(tap, CellTap | ResignTap):
        if isinstance(tap, CellTap):
            result = await context.service.play_tap(
                tap.game_id, chat.id if chat else None, user, tap.ply, tap.cell
            )
        else:
            result = await context.service.resign(tap.game_id, chat.id if chat else None, user)
        await query.answer(_popup(result))
        if result.played and result.game is not None:
            await edit_board(context.bot, context.service, result.game)
    elif isinstance(tap, NewGameTap) and chat is not None:
        await query.answer()
        await start_and_send(context, chat, query.from_user, tap.x_kind, tap.o_kind)
    elif isinstance(tap, MenuTap) and chat is not None:
        await query.answer()
        await context.bot.send_message(chat.id, texts.WELCOME, reply_markup=menu_keyboard())
    elif isinstance(tap, HelpTap) and chat is not None:
        await query.answer()
        await context.bot.send_message(chat.id, texts.HELP)
    else:
        await query.answer(texts.POPUP_UNKNOWN_BUTTON)


def _popup(result: MoveResult) -> str | None:
    if result.played:
        return None
    return POPUPS.get(result.status, texts.POPUP_ERROR)
