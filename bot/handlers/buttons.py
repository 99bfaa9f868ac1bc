"""Button taps on chat and inline messages: cells, resign, challenges, rematch, review, menu."""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from dataclasses import replace

from telegram import CallbackQuery, Update
from telegram.error import BadRequest

from bot.board_messages import edit_board, send_board
from bot.callback_data import (
    CANCEL,
    DECLINE,
    JOIN,
    REMATCH,
    REVIEW,
    CellTap,
    ForgetTap,
    GameTap,
    HelpTap,
    InlineAiTap,
    InlineJoinTap,
    MenuTap,
    NewGameTap,
    ResignTap,
    inline_key,
    is_authentic,
    parse_callback_data,
)
from bot.context import BotContext
from bot.game_spec import GameSpec
from bot.handlers.common import is_group, player_from, popup, start_and_send, texts_of
from bot.keyboards import menu_keyboard
from bot.render import render_review, symbol
from bot.service import BoardRef, MoveResult, PlayerInfo

log = logging.getLogger(__name__)


async def button(update: Update, context: BotContext) -> None:
    """Act on a tap. Every query is answered, with a pop-up saying why when nothing happens
    (Telegram clients show a spinner until the query is answered)."""
    query = update.callback_query
    if query is None:
        return
    tr = texts_of(query.from_user)
    user = player_from(query.from_user)
    chat = query.message.chat if query.message is not None else None
    ref = BoardRef(chat_id=chat.id if chat else None, inline_message_id=query.inline_message_id)
    if chat is None and query.inline_message_id is None:
        await query.answer(tr.POPUP_UNKNOWN_BUTTON)
        return
    tap = parse_callback_data(query.data)
    service = context.service
    if isinstance(tap, InlineJoinTap | InlineAiTap) and not is_authentic(
        tap, inline_key(context.bot.token)
    ):
        tap = None  # made up, not by this bot's inline results

    if isinstance(tap, CellTap):
        result = await service.play_tap(tap.game_id, ref, user, tap.ply, tap.cell)
        await _answer_and_show(query, context, result)
    elif isinstance(tap, ResignTap):
        await _answer_and_show(query, context, await service.resign(tap.game_id, ref, user))
    elif isinstance(tap, GameTap) and tap.action == REVIEW:
        text = render_review(await service.review(tap.game_id, ref, user), tr)
        await query.answer(text or tr.POPUP_NO_REVIEW, show_alert=text is not None)
    elif isinstance(tap, GameTap) and tap.action == REMATCH:
        await _rematch(query, context, tap.game_id, ref, user)
    elif isinstance(tap, GameTap):
        action = {JOIN: service.join, DECLINE: service.decline, CANCEL: service.cancel}
        result = await action[tap.action](tap.game_id, ref, user)
        await _answer_and_show(query, context, result, joined=tap.action == JOIN)
    elif isinstance(tap, InlineJoinTap) and query.inline_message_id is not None:
        result = await service.join_inline_challenge(
            query.inline_message_id,
            user,
            tap.creator_id,
            tap.creator_mark,
            tap.board.empty_board(),
        )
        await _answer_and_show(query, context, result, joined=True)
    elif isinstance(tap, InlineAiTap) and query.inline_message_id is not None:
        result = await service.start_inline_ai_game(
            query.inline_message_id,
            user,
            tap.creator_id,
            tap.level,
            tap.cell,
            tap.board.empty_board(),
        )
        await _answer_and_show(query, context, result)
    elif isinstance(tap, ForgetTap):
        await _forget(query, context, tap)
    elif isinstance(tap, NewGameTap) and chat is not None:
        await query.answer()
        await start_and_send(
            context, chat, query.from_user, GameSpec(tap.x_kind, tap.o_kind, tap.board)
        )
    elif isinstance(tap, MenuTap) and chat is not None:
        await query.answer()
        welcome = tr.WELCOME_GROUP if is_group(chat) else tr.WELCOME
        menu = menu_keyboard(tr, group=is_group(chat), board=tap.board)
        if _is_menu(query):
            # A size button: redraw this menu for that size instead of posting another.
            if query.message.reply_markup != menu:  # type: ignore[union-attr]
                await _edit_tapped(query.edit_message_reply_markup(menu))
        else:
            await context.bot.send_message(chat.id, welcome, reply_markup=menu)
    elif isinstance(tap, HelpTap) and chat is not None:
        await query.answer()
        await context.bot.send_message(chat.id, tr.HELP.format(bot=context.bot.username))
    else:
        await query.answer(tr.POPUP_UNKNOWN_BUTTON)


async def _edit_tapped(edit: Awaitable[object]) -> None:
    """Edit the tapped message; after a double tap it already shows this ("not modified")."""
    try:
        await edit
    except BadRequest as error:
        if "not modified" not in str(error).lower():
            raise


def _is_menu(query: CallbackQuery) -> bool:
    """Whether the tapped message is a menu (its first button starts a game)."""
    markup = query.message.reply_markup if query.message is not None else None
    if markup is None or not markup.inline_keyboard or not markup.inline_keyboard[0]:
        return False
    return str(markup.inline_keyboard[0][0].callback_data or "").startswith("n:")


async def _answer_and_show(
    query: CallbackQuery, context: BotContext, result: MoveResult, *, joined: bool = False
) -> None:
    """Answer the tap (a pop-up when refused), then show the game's new state."""
    tr = texts_of(query.from_user)
    if not result.played or result.game is None:
        await _answer(query, popup(tr, result.status))
        return
    game = result.game
    if game.message_id is None and game.chat_id is not None and query.message is not None:
        # A tap that raced the board's first posting: the tapped message is the board.
        game = replace(game, message_id=query.message.message_id)
    mark = game.mark_of(query.from_user.id)
    if joined and mark is not None:
        await _answer(query, tr.POPUP_JOINED.format(mark=symbol(mark, tr)))
    else:
        await _answer(query)
    await edit_board(context.bot, context.service, game)
    context.ai_matches.follow(game)


async def _answer(query: CallbackQuery, text: str | None = None) -> None:
    """Answer a tap. Telegram takes one answer per query, and only for a while: a query
    already answered (the same update delivered twice, e.g. to two instances) or too old
    (handled late, after a restart) is no failure, and must not keep a move that is already
    stored from being shown on the board."""
    try:
        await query.answer(text)
    except BadRequest as error:
        if "query is too old" not in str(error).lower():
            raise
        log.info("callback query %s was not answered: %s", query.id, error)


async def _rematch(
    query: CallbackQuery, context: BotContext, game_id: int, ref: BoardRef, user: PlayerInfo
) -> None:
    tr = texts_of(query.from_user)
    result = await context.service.rematch(game_id, ref, user)
    if not result.played or result.game is None:
        await query.answer(popup(tr, result.status))
        return
    await query.answer()
    game = result.game
    if game.inline_message_id is not None:
        await edit_board(context.bot, context.service, game)  # the invitation becomes the game
    elif game.chat_id is not None:
        await send_board(context.bot, context.service, game.chat_id, game)


async def _forget(query: CallbackQuery, context: BotContext, tap: ForgetTap) -> None:
    tr = texts_of(query.from_user)
    if tap.user_id != query.from_user.id:
        await query.answer(tr.POPUP_NOT_YOURS)
        return
    markup = query.message.reply_markup if query.message is not None else None
    buttons = markup.inline_keyboard if markup is not None else ()
    if query.data not in {button.callback_data for row in buttons for button in row}:
        # Forged: only the /forget question carries this button. Never overwrite a board.
        await query.answer(tr.POPUP_UNKNOWN_BUTTON)
        return
    await query.answer()
    if not tap.confirmed:
        await _edit_tapped(query.edit_message_text(tr.FORGET_KEPT))
        return
    report = await context.service.forget(player_from(query.from_user))
    for game in report.ended:
        context.ai_matches.cancel(game.id)
        await edit_board(context.bot, context.service, game)
    if not (report.had_profile or report.games_deleted or report.games_anonymized):
        await _edit_tapped(query.edit_message_text(tr.FORGET_NOTHING))
        return
    await query.edit_message_text(
        tr.FORGET_DONE.format(
            games=report.games_deleted,
            moves=report.moves_deleted,
            anonymized=report.games_anonymized,
        )
    )
