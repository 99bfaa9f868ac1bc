"""Small pieces every handler needs."""

from __future__ import annotations

from telegram import Chat, User

from bot import texts
from bot.board_messages import edit_board, send_board
from bot.context import BotContext
from bot.service import MoveStatus, PlayerInfo

POPUPS = {
    MoveStatus.GAME_OVER: texts.POPUP_GAME_OVER,
    MoveStatus.STALE: texts.POPUP_STALE,
    MoveStatus.OCCUPIED: texts.POPUP_OCCUPIED,
    MoveStatus.NOT_YOUR_TURN: texts.POPUP_NOT_YOUR_TURN,
    MoveStatus.NOT_A_PLAYER: texts.POPUP_NOT_A_PLAYER,
    MoveStatus.NO_GAME: texts.POPUP_NO_GAME,
    MoveStatus.INVALID: texts.POPUP_UNKNOWN_BUTTON,
    MoveStatus.CONFLICT: texts.POPUP_CONFLICT,
}


def player_from(user: User) -> PlayerInfo:
    """The plain values of a Telegram user."""
    return PlayerInfo(id=user.id, name=user.full_name, language_code=user.language_code)


async def start_and_send(
    context: BotContext, chat: Chat, user: User, x_kind: str, o_kind: str
) -> None:
    """Start a game in the chat, post its board, close the boards it replaced."""
    started = await context.service.start_game(
        chat.id, player_from(user), x_kind, o_kind, replace_current=chat.type == Chat.PRIVATE
    )
    for closed in started.closed:
        context.ai_matches.cancel(closed.id)
        await edit_board(context.bot, context.service, closed)
    game = await send_board(context.bot, context.service, chat.id, started.game)
    if game.is_ai_match:
        context.ai_matches.start(game.id)
