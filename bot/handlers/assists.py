"""Help against the AI: the 💡 and ↩️ buttons of a board, /hint and /undo."""

from __future__ import annotations

from telegram import Update

from bot.context import BotContext
from bot.games.model import BoardRef, GameView, MoveResult
from bot.handlers.common import answer, player_from, popup, texts_of
from bot.handlers.taps import Tapped
from bot.locales.texts import Texts
from bot.wire.callback_data import HINT
from bot.wire.taps import AssistTap
from core.positions import cell_words


async def tap_assist(tapped: Tapped[AssistTap], context: BotContext) -> None:
    """💡 lights the best move on the board; ↩️ takes back the last move and the AI's reply."""
    query, tap, ref = tapped.query, tapped.tap, tapped.ref
    user = player_from(query.from_user)
    assists = context.games.assists
    use_case = assists.hint if tap.action == HINT else assists.undo
    result = await use_case(tap.game_id, ref, user, tap.ply)
    tr = texts_of(query.from_user, context)
    if not result.played or result.game is None:
        await answer(query, popup(tr, result.status))
        return
    await answer(query, _done(result, tr))
    await _show(context, result)


async def hint(update: Update, context: BotContext) -> None:
    """/hint: the best move in the sender's game against the AI here, lit on its board."""
    await _command(update, context, undo=False)


async def undo(update: Update, context: BotContext) -> None:
    """/undo: take back the sender's last move and the AI's reply (on one phone, the last
    move)."""
    await _command(update, context, undo=True)


async def _command(update: Update, context: BotContext, *, undo: bool) -> None:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    tr = texts_of(user, context)
    player = player_from(user)
    assists = context.games.assists
    game = await assists.current_game(chat.id, player, undo=undo)
    if game is None:
        await message.reply_text(tr.NO_AI_GAME)
        return
    use_case = assists.undo if undo else assists.hint
    result = await use_case(game.id, BoardRef(chat_id=chat.id), player)
    if not result.played or result.game is None:
        await message.reply_text(popup(tr, result.status))
        return
    await _show(context, result)
    await message.reply_text(_done(result, tr))


def _done(result: MoveResult, tr: Texts) -> str:
    """What a hint or an undo says it did."""
    game: GameView = result.game  # type: ignore[assignment]
    if result.hint is None:
        return tr.UNDONE_LAST if game.is_one_phone else tr.UNDONE
    return tr.HINT.format(cell=cell_words(game.board, result.hint))


async def _show(context: BotContext, result: MoveResult) -> None:
    assert result.game is not None
    await context.presenter.show(result.game, hint=result.hint)
