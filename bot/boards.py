"""Sending and editing board messages (chat messages and inline messages alike).

Nothing here writes to the database: a function that posts a new board returns its message
id, and the caller records it (`Games.chats.attach_message`).

A board whose posting got no answer (`OutcomeUnknown`) is not posted again: it may well be in
the chat already. Its message id stays unknown; the next tap on it tells the bot which message
it is, and a game nobody taps is shown afresh by the turn clock. Background callers (AI
matches, the turn clock) pass a slower `Pace`, so people's boards go first (`bot.flood_gate`).
"""

from __future__ import annotations

import logging

from telegram import Bot
from telegram.error import BadRequest

from bot.flood_gate import Pace, pace_args
from bot.games.model import GameView
from bot.render import render_game
from bot.telegram_request import OutcomeUnknown

log = logging.getLogger(__name__)


async def send_board(
    bot: Bot,
    chat_id: int,
    game: GameView,
    *,
    reply_to: int | None = None,
    pace: Pace = Pace.PERSON,
) -> int | None:
    """Post a new board message for the game; returns its message id, or None when Telegram's
    answer was lost (the board may be there: it is not posted twice)."""
    board = render_game(game)
    try:
        message = await bot.send_message(
            chat_id,
            board.text,
            reply_markup=board.keyboard,
            reply_to_message_id=reply_to,
            **pace_args(bot, pace),
        )
    except OutcomeUnknown:
        log.info(
            "board of game %s: posted with no answer; the next tap on it will show it", game.id
        )
        return None
    return message.message_id


async def show_board(bot: Bot, game: GameView, *, pace: Pace = Pace.PERSON) -> int | None:
    """Show the game's current state on its board message. Returns the id of a new board
    message when it had to post one: a running game whose chat board is gone (deleted by a
    user) or was never stored (posting it failed) continues on a fresh one. Raises
    `FrameSkipped` for a `Pace.FRAME` that Telegram's flood limits have no room for now."""
    if game.inline_message_id is not None:
        where: dict = {"inline_message_id": game.inline_message_id}
    elif game.chat_id is not None and game.message_id is not None:
        where = {"chat_id": game.chat_id, "message_id": game.message_id}
    elif game.chat_id is not None and (game.is_active or game.is_open):
        return await send_board(bot, game.chat_id, game, pace=pace)
    else:
        # A closed game whose board is not known yet (closed while it was being posted):
        # there is nothing to update.
        return None
    board = render_game(game)
    try:
        await bot.edit_message_text(
            board.text, reply_markup=board.keyboard, **where, **pace_args(bot, pace)
        )
    except BadRequest as error:
        text = str(error).lower()
        if "not modified" in text:
            return None  # Already showing this state (e.g. a retried update): nothing to do.
        if "not found" in text and game.chat_id is not None and (game.is_active or game.is_open):
            log.info("board message of game %s is gone; posting a fresh one", game.id)
            return await send_board(bot, game.chat_id, game, pace=pace)
        raise
    return None
