"""Playing a game: taps on cells, Resign, a draw's offer, typed moves (`2 3` or `6`), /stop."""

from __future__ import annotations

from telegram import CallbackQuery, Update

from bot.context import BotContext
from bot.games.model import GameStatus, GameView, MoveStatus
from bot.games.play import draw_rules
from bot.games.strangers.matchmaking import LeftQueue
from bot.handlers.common import (
    answer,
    answer_and_show,
    player_from,
    popup,
    texts_of,
)
from bot.handlers.delivery import claim_now, claimed_by
from bot.handlers.strangers.searching import stop_searching
from bot.handlers.taps import Tapped
from bot.views.render import player_name, render_move_error
from bot.wire.taps import BlockTap, CellTap, DrawAnswer, DrawTap, ResignAnswer, ResignTap
from core.board import NotNumbersError


async def tap_cell(tapped: Tapped[CellTap], context: BotContext) -> None:
    """A tap on a board cell: the move (and the AI's answer) in one edit of the board."""
    query, tap, ref = tapped.query, tapped.tap, tapped.ref
    user = player_from(query.from_user)
    result = await context.games.play.tap(
        tap.game_id, ref, user, tap.ply, tap.cell, claim=context.deferred_claim
    )
    if await claimed_by(context, result.claim):
        await answer_and_show(query, context, result)


async def tap_resign(tapped: Tapped[ResignTap], context: BotContext) -> None:
    """🏳 Resign asks first: for a player of the game, the question is stored on the game and
    its board shows Yes / No in place of the button (`resign_rules.resign_question`), however
    often it is drawn again, until they answer or a move is made."""
    query, tap, ref = tapped.query, tapped.tap, tapped.ref
    user, tr = player_from(query.from_user), texts_of(query.from_user, context)
    result = await context.games.resigning.ask_to_resign(tap.game_id, ref, user, tap.ply)
    if not result.played or result.game is None:
        await answer(query, popup(tr, result.status, result.game))
        return
    await answer(query, tr.POPUP_RESIGN_CONFIRM)
    await context.presenter.show(result.game, only_chat=asker_chat(result.game, query))


async def tap_resign_answer(tapped: Tapped[ResignAnswer], context: BotContext) -> None:
    """Yes (the opponent wins) or No (the board as it was) on Resign's question; only the
    player it asked may answer."""
    query, tap, ref = tapped.query, tapped.tap, tapped.ref
    user, tr = player_from(query.from_user), texts_of(query.from_user, context)
    if tap.user_id != user.id:
        if await claim_now(context):
            await answer(query, tr.POPUP_NOT_YOURS)
        return
    if tap.confirmed:
        # The update is claimed in the resignation's own transaction, as a move's is.
        result = await context.games.resigning.resign(
            tap.game_id, ref, user, claim=context.deferred_claim
        )
        if await claimed_by(context, result.claim):
            await answer_and_show(query, context, result)
        return
    result = await context.games.resigning.play_on(tap.game_id, ref, user)
    await answer(query, None if result.played else popup(tr, result.status, result.game))
    if result.game is not None and result.status in (MoveStatus.PLAYED, MoveStatus.STALE):
        # The board again, with its Resign button.
        await context.presenter.show(result.game, only_chat=asker_chat(result.game, query))


def asker_chat(game: GameView, query: CallbackQuery) -> int | None:
    """Between strangers, the chat of the board Resign's question is on: the other board
    does not show it, so its drawing would change nothing there (None: one board for all)."""
    message = query.message
    return message.chat.id if game.is_between_strangers and message is not None else None


async def tap_draw(tapped: Tapped[DrawTap], context: BotContext) -> None:
    """🤝 Offer a draw: for a player of a game between two people, the offer is stored on the
    game, and the opponent's board shows Accept / Decline in its place
    (`draw_rules.draw_offer`), however often it is drawn again, until they answer or a move
    is made. A second 🤝 while it is open draws nothing."""
    query, tap, ref = tapped.query, tapped.tap, tapped.ref
    user, tr = player_from(query.from_user), texts_of(query.from_user, context)
    result = await context.games.resigning.offer_draw(tap.game_id, ref, user, tap.ply)
    game = result.game
    if result.status is MoveStatus.ASKED_ALREADY:
        await answer(query, tr.POPUP_DRAW_OPEN)
        return
    asked = None if game is None else draw_rules.draw_offered_to(game)
    mark = None if game is None or asked is None else game.mark_of(asked)
    if not result.played or game is None or mark is None:
        await answer(query, popup(tr, result.status, game))
        return
    await answer(query, tr.POPUP_DRAW_OFFERED.format(name=player_name(game, mark, tr)))
    await context.presenter.show(game)


async def tap_draw_answer(tapped: Tapped[DrawAnswer], context: BotContext) -> None:
    """Accept (the game ends drawn by agreement) or Decline (the offer goes) a draw offered;
    only the player it is offered to may answer."""
    query, tap, ref = tapped.query, tapped.tap, tapped.ref
    user, tr = player_from(query.from_user), texts_of(query.from_user, context)
    if tap.user_id != user.id:
        if await claim_now(context):
            await answer(query, tr.POPUP_NOT_YOURS)
        return
    draws = context.games.resigning
    if tap.accepted:
        # The update is claimed in the ending's own transaction, as a move's is.
        result = await draws.answer_draw(tap.game_id, ref, user, True, context.deferred_claim)
        if await claimed_by(context, result.claim):
            await answer_and_show(query, context, result)
        return
    result = await draws.answer_draw(tap.game_id, ref, user, False)
    await answer(query, tr.POPUP_DRAW_DECLINED if result.played else popup(tr, result.status))
    if result.played and result.game is not None:
        await context.presenter.show(result.game)


async def tap_block(tapped: Tapped[BlockTap], context: BotContext) -> None:
    """Ultimate: show the small board the player picked (or the choice of them again)."""
    query, tap, ref = tapped.query, tapped.tap, tapped.ref
    user = player_from(query.from_user)
    result = await context.games.play.show_block(tap.game_id, ref, user, tap.ply, tap.block)
    await answer_and_show(query, context, result, block=tap.block)


async def typed_move(update: Update, context: BotContext) -> None:
    """Play a typed move: in a private chat in the current game, in a group as a reply to a
    board (privacy mode hides other messages). Mistakes are answered in the player's words."""
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
    tr = texts_of(user, context)
    result = await context.games.play.typed(
        chat.id, player_from(user), message.text, message_id=board_id
    )
    if (
        result.game is not None
        and result.game.is_between_strangers
        and isinstance(result.error, NotNumbersError)
    ):
        # Words for a stranger go nowhere: said once a game, then let be (each answer would
        # spend the chat's pace, which the opponent's moves need).
        if await context.games.stranger_chats.first_chatter(result.game, user.id):
            await message.reply_text(tr.STRANGER_ROOM)
        return
    if result.played and result.game is not None:
        await context.presenter.show(result.game)
    elif result.status is MoveStatus.NO_GAME:
        if board_id is None:
            await message.reply_text(tr.NO_GAME)
    elif result.error is not None:
        await message.reply_text(render_move_error(result.error, tr))
    else:  # not your turn, not your game…: the words a tap gets for the same refusal
        await message.reply_text(popup(tr, result.status))


async def stop(update: Update, context: BotContext) -> None:
    """End the sender's current game here; a running game counts as resigned."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    tr = texts_of(user, context)
    result = await context.games.play.stop_current(chat.id, player_from(user))
    if result.status is MoveStatus.NO_GAME or result.game is None:
        searching = None
        if chat.type == chat.PRIVATE:  # no game: maybe a search, which /stop ends
            searching = await stop_searching(context, user.id, LeftQueue.CANCELLED)
        await message.reply_text(tr.QUEUE_CANCELLED if searching is not None else tr.NO_GAME)
        return
    if not result.played:
        await message.reply_text(tr.POPUP_CONFLICT)
        return
    game = result.game
    if game.is_live:  # one of three or four left: the others play on (an ending's board is
        await context.presenter.show(game)  # its listener's, `bot.listeners`)
    if chat.type == chat.PRIVATE:  # a search beside the game ends with it
        await stop_searching(context, user.id, LeftQueue.CANCELLED)
    if game.is_ai_match:
        await message.reply_text(tr.STOPPED_AI_MATCH)
    elif game.status == GameStatus.CANCELLED:
        await message.reply_text(tr.STOPPED_CHALLENGE)
    else:
        await message.reply_text(tr.STOPPED)
