"""Sending and editing board messages (chat messages and inline messages alike)."""

from __future__ import annotations

import logging
from dataclasses import replace

from telegram import Bot
from telegram.error import BadRequest

from bot.render import render_game
from bot.service import GameService, GameView

log = logging.getLogger(__name__)


async def send_board(
    bot: Bot,
    service: GameService,
    chat_id: int,
    game: GameView,
    *,
    reply_to: int | None = None,
) -> GameView:
    """Post a new board message for the game and remember its id."""
    board = render_game(game)
    message = await bot.send_message(
        chat_id, board.text, reply_markup=board.keyboard, reply_to_message_id=reply_to
    )
    await service.attach_message(game.id, message.message_id)
    return replace(game, message_id=message.message_id)


async def edit_board(bot: Bot, service: GameService, game: GameView) -> None:
    """Show the game's current state on its board message.

    If a chat's board message is gone (deleted by a user), a running game continues on a
    fresh one.
    """
    board = render_game(game)
    if game.inline_message_id is not None:
        where: dict = {"inline_message_id": game.inline_message_id}
    elif game.chat_id is not None and game.message_id is not None:
        where = {"chat_id": game.chat_id, "message_id": game.message_id}
    elif game.chat_id is not None and (game.is_active or game.is_open):
        # Its board was never stored (e.g. posting it failed): the game goes on on a new one.
        await send_board(bot, service, game.chat_id, game)
        return
    else:
        # A closed game whose board is not known yet (closed while it was being posted):
        # there is nothing to update.
        return
    try:
        await bot.edit_message_text(board.text, reply_markup=board.keyboard, **where)
    except BadRequest as error:
        text = str(error).lower()
        if "not modified" in text:
            return  # Already showing this state (e.g. a retried update): nothing to do.
        if "not found" in text and game.chat_id is not None and (game.is_active or game.is_open):
            log.info("board message of game %s is gone; posting a fresh one", game.id)
            await send_board(bot, service, game.chat_id, game)
            return
        raise
