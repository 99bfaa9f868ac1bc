"""The announcer: what an ending says aloud. A board edit makes no sound, so when a stranger's
opponent leaves (resigns, /stop) or runs out of time, the one left gets a message of its own,
in their language, in their private chat. It hears every ending (`GameEnded`); nobody calls
it."""

from __future__ import annotations

import logging

from telegram import Bot
from telegram.error import TelegramError

from bot.games.events import GameEnded
from bot.games.model import FORFEITS, EndReason, GameView
from bot.locales.texts import texts_for
from bot.telegram.flood_gate import Pace, pace_args
from bot.views.render import player_name
from core.board import O, X, other

log = logging.getLogger(__name__)


class Announcer:
    def __init__(self, bot: Bot) -> None:
        self._bot = bot

    async def heard(self, event: GameEnded) -> None:
        await tell_strangers(self._bot, event.game, named=event.before)


async def tell_strangers(bot: Bot, game: GameView, named: GameView | None = None) -> None:
    """After a game between strangers ended, tell each player what the board alone would not
    say aloud, by how it ended: the winner that the other left (resigned, /stop, blocked the
    bot, /forget) or ran out of time, the loser that their time ran out, both that it was
    aborted. A game won on the board, or not between strangers, says nothing more. `named`:
    the game as it was just before, whose names a /forget has not erased yet (the message is
    said as the player left; the boards show the game as stored)."""
    if not game.is_between_strangers:
        return
    for mark, message in _notices(game):
        await _tell(bot, game, mark, message, named or game)


def _notices(game: GameView) -> list[tuple[str, str]]:
    """Whom to tell what (a mark, a catalog name taking the other's `{name}` and the match
    game's number `{game}`). In a match, a resignation or a flag loses that game and the
    match goes on; any other leaving stops the match (`bot.games.matches.play`)."""
    if game.end_reason == EndReason.ABORTED:
        return [(X, "GAME_ABORTED_NOTICE"), (O, "GAME_ABORTED_NOTICE")]
    if game.end_reason == EndReason.FORGOTTEN and game.result is None:
        # Left (/forget) before any move: the one still in it (their id is kept) is told.
        stays = [mark for mark in (X, O) if game.player_id_of(mark) is not None]
        return [(mark, "GAME_LEFT_UNPLAYED_NOTICE") for mark in stays]
    if game.result not in (X, O):
        return []
    winner, loser = game.result, other(game.result)
    in_match = game.match_game is not None
    if game.end_reason == EndReason.TIMEOUT:
        if in_match:
            return [(winner, "MATCH_OPPONENT_TIMED_OUT"), (loser, "MATCH_YOU_FLAGGED")]
        return [(winner, "OPPONENT_TIMED_OUT"), (loser, "YOU_FLAGGED")]
    if game.end_reason == EndReason.RESIGNED and in_match:
        return [(winner, "MATCH_OPPONENT_RESIGNED")]
    if game.end_reason in FORFEITS:
        return [(winner, "MATCH_OPPONENT_LEFT" if in_match else "OPPONENT_LEFT")]
    return []


async def _tell(bot: Bot, game: GameView, mark: str, message: str, named: GameView) -> None:
    """`message` to the player of `mark`, in their chat and language, naming the other."""
    chat_id, language = (
        (game.chat_id, game.language) if mark == X else (game.second_chat_id, game.second_language)
    )
    if chat_id is None:
        return
    tr = texts_for(language)
    name = player_name(named, other(mark), tr)  # a stranger's first name only
    try:
        await bot.send_message(
            chat_id,
            tr.text(message).format(name=name, game=game.match_game),
            **pace_args(bot, Pace.PERSON),
        )
    except TelegramError as error:  # e.g. they blocked the bot meanwhile
        log.warning("could not tell a player of game %s: %s", game.id, error)
