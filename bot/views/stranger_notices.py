"""Telling a stranger what their opponent did: a board edit makes no sound, so when the other
player leaves (resigns, /stop) or runs out of time, the one left gets a message of its own,
in their language, in their private chat."""

from __future__ import annotations

import logging

from telegram import Bot
from telegram.error import TelegramError

from bot.games.model import GameView
from bot.telegram.flood_gate import Pace, pace_args
from bot.views.render import player_name
from bot.views.texts import texts_for
from core.board import O, X, other

log = logging.getLogger(__name__)


async def tell_the_winner(bot: Bot, game: GameView, message: str) -> None:
    """Send the winner of a game between strangers `message` (a catalog name taking the
    loser's `{name}`): OPPONENT_LEFT or OPPONENT_TIMED_OUT."""
    if not game.is_between_strangers or game.result not in (X, O):
        return
    loser = other(game.result)
    chat_id, language = (
        (game.chat_id, game.language)
        if game.result == X
        else (game.second_chat_id, game.second_language)
    )
    if chat_id is None:
        return
    tr = texts_for(language)
    name = player_name(game, loser, tr)  # a stranger's first name only
    try:
        await bot.send_message(
            chat_id, getattr(tr, message).format(name=name), **pace_args(bot, Pace.PERSON)
        )
    except TelegramError as error:  # e.g. they blocked the bot meanwhile
        log.warning("could not tell the winner of game %s: %s", game.id, error)
