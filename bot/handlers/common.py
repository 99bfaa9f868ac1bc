"""Small pieces every handler needs."""

from __future__ import annotations

from types import ModuleType

from telegram import Chat, User

from bot.board_messages import edit_board, send_board
from bot.context import BotContext
from bot.game_spec import GameSpec
from bot.service import USER, MoveStatus, PlayerInfo
from bot.texts import texts_for

POPUPS = {
    MoveStatus.GAME_OVER: "POPUP_GAME_OVER",
    MoveStatus.STALE: "POPUP_STALE",
    MoveStatus.OCCUPIED: "POPUP_OCCUPIED",
    MoveStatus.NOT_YOUR_TURN: "POPUP_NOT_YOUR_TURN",
    MoveStatus.NOT_A_PLAYER: "POPUP_NOT_A_PLAYER",
    MoveStatus.NO_GAME: "POPUP_NO_GAME",
    MoveStatus.INVALID: "POPUP_UNKNOWN_BUTTON",
    MoveStatus.CONFLICT: "POPUP_CONFLICT",
    MoveStatus.WAITING: "POPUP_WAITING",
    MoveStatus.OWN_GAME: "POPUP_OWN_GAME",
    MoveStatus.NOT_INVITED: "POPUP_NOT_INVITED",
    MoveStatus.NOT_CHALLENGER: "POPUP_NOT_CHALLENGER",
    MoveStatus.REMATCH_TAKEN: "POPUP_REMATCH_TAKEN",
}


def popup(tr: ModuleType, status: MoveStatus) -> str:
    """Why a tap did nothing, in the tapper's language."""
    return getattr(tr, POPUPS.get(status, "POPUP_ERROR"))


def player_from(user: User) -> PlayerInfo:
    """The plain values of a Telegram user."""
    return PlayerInfo(
        id=user.id, name=user.full_name, language_code=user.language_code, username=user.username
    )


def texts_of(user: User | None) -> ModuleType:
    """The strings in a user's language."""
    return texts_for(user.language_code if user else None)


def is_group(chat: Chat) -> bool:
    return chat.type in (Chat.GROUP, Chat.SUPERGROUP)


async def start_and_send(context: BotContext, chat: Chat, user: User, spec: GameSpec) -> None:
    """Start a game in the chat and post its board. In a group, `user user` is a challenge
    anyone can join; in a private chat a new game replaces the current one."""
    board = spec.board.empty_board()
    if is_group(chat) and spec.x_kind == USER and spec.o_kind == USER:
        challenge = await context.service.create_challenge(chat.id, player_from(user), board=board)
        await send_board(context.bot, context.service, chat.id, challenge)
        return
    started = await context.service.start_game(
        chat.id,
        player_from(user),
        spec.x_kind,
        spec.o_kind,
        replace_current=chat.type == Chat.PRIVATE,
        board=board,
    )
    for closed in started.closed:
        context.ai_matches.cancel(closed.id)
        await edit_board(context.bot, context.service, closed)
    game = await send_board(context.bot, context.service, chat.id, started.game)
    context.ai_matches.follow(game)
