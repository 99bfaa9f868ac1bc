"""The matchmaking queue follows the games: whoever takes a seat in a game (a challenge, a
rematch, an inline game, a game against the AI, the Mini App's) stops looking for a stranger,
and their waiting message says why. The queue's own pairings left it in their transaction."""

from __future__ import annotations

from datetime import UTC, datetime

from telegram import Bot

from bot.chat.queue import tell_left
from bot.games.events import GameStarted, SeatsTaken, players_of
from bot.games.strangers.matchmaking import LeftQueue, Matchmaking
from bot.games.strangers.pairing import Waiting


async def leave_queue(
    matchmaking: Matchmaking, bot: Bot, user_id: int, reason: LeftQueue
) -> Waiting | None:
    """Take the user out of the queue, if they were in it: their waiting message says why.
    Their entry as it was, or None."""
    left = await matchmaking.cancel(user_id)
    if left is not None:
        await tell_left(bot, left, reason, datetime.now(UTC))
    return left


class QueueLeaving:
    def __init__(self, matchmaking: Matchmaking, bot: Bot) -> None:
        self._matchmaking = matchmaking
        self._bot = bot

    async def started(self, event: GameStarted) -> None:
        if event.game.is_between_strangers:
            # The queue's own pairing: it took both out in its transaction, and may put one
            # back (`Matchmaking.undo_pairing`) before this is heard.
            return
        await self._leave(players_of(event.game))

    async def seated(self, event: SeatsTaken) -> None:
        await self._leave(event.players)

    async def _leave(self, players: tuple[int, ...]) -> None:
        for player in players:
            await leave_queue(self._matchmaking, self._bot, player, LeftQueue.OTHER_GAME)
