"""What follows a move before its board is drawn: the AI's quick reply, in the same edit.
(A game that ends is rated where it ends, in the same transaction: `bot.games.endings`.)"""

from __future__ import annotations

from bot.games.model import GameView
from bot.matches import AiMatchRunner


async def follow_up(matches: AiMatchRunner, game: GameView) -> GameView:
    """The game after the AI's quick reply."""
    return await matches.reply_at_once(game)
