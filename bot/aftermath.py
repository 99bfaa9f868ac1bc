"""What follows a move before its board is drawn: the AI's quick reply (in the same edit),
and the ratings of a game that has just ended (its final board shows the change)."""

from __future__ import annotations

import logging

from sqlalchemy.exc import SQLAlchemyError

from bot.games.model import GameView
from bot.games.ratings import Ratings
from bot.matches import AiMatchRunner

log = logging.getLogger(__name__)


async def rate_if_over(ratings: Ratings, game: GameView) -> GameView:
    """A game that has ended, rated (once; see `bot.games.ratings`); any other as it is. A
    database failure leaves it unrated rather than keep its board from showing the end."""
    try:
        return await ratings.rate_ended(game)
    except (SQLAlchemyError, OSError):
        log.warning("game %s: not rated, the database failed", game.id, exc_info=True)
        return game


async def follow_up(matches: AiMatchRunner, ratings: Ratings, game: GameView) -> GameView:
    """The game after the AI's quick reply, rated if that (or the move) ended it."""
    return await rate_if_over(ratings, await matches.reply_at_once(game))
