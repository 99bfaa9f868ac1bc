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
    if game.is_between_strangers and game.result in (X, O):
        await _tell(bot, game, game.result, message)


async def tell_the_loser(bot: Bot, game: GameView, message: str) -> None:
    """Send the loser of a game between strangers `message` (taking the winner's `{name}`):
    YOU_FLAGGED."""
    if game.is_between_strangers and game.result in (X, O):
        await _tell(bot, game, other(game.result), message)


async def tell_both(bot: Bot, game: GameView, message: str) -> None:
    """Send both players of a game between strangers `message` (taking the other's
    `{name}`): GAME_ABORTED_NOTICE."""
    if game.is_between_strangers:
        for mark in (X, O):
            await _tell(bot, game, mark, message)


async def _tell(bot: Bot, game: GameView, mark: str, message: str) -> None:
    """`message` to the player of `mark`, in their chat and language, naming the other."""
    chat_id, language = (
        (game.chat_id, game.language) if mark == X else (game.second_chat_id, game.second_language)
    )
    if chat_id is None:
        return
    tr = texts_for(language)
    name = player_name(game, other(mark), tr)  # a stranger's first name only
    try:
        await bot.send_message(
            chat_id, getattr(tr, message).format(name=name), **pace_args(bot, Pace.PERSON)
        )
    except TelegramError as error:  # e.g. they blocked the bot meanwhile
        log.warning("could not tell a player of game %s: %s", game.id, error)
