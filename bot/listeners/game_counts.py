"""Games started and ended, counted for the metrics (`bot.telemetry.metrics`) by hearing the
games' events: nothing that starts or ends a game counts it, and every way a game ends is
counted by its `EndReason`."""

from __future__ import annotations

from bot.games.events import GameEnded, GameStarted
from bot.games.model import GameView
from bot.telemetry.metrics import Metrics

#: The kinds of game the metrics tell apart.
STRANGERS, AI_MATCH, AI, PEOPLE = "strangers", "ai_match", "ai", "people"


def game_kind(game: GameView) -> str:
    """A game's kind in the metrics: between strangers (the queue's), an AI match, a person
    against the AI, or people who chose each other (a challenge, one phone, a tournament)."""
    if game.is_between_strangers:
        return STRANGERS
    if game.is_ai_match:
        return AI_MATCH
    if game.is_against_ai:
        return AI
    return PEOPLE


class GameCounts:
    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    async def started(self, event: GameStarted) -> None:
        self._metrics.games_started.labels(game_kind(event.game)).inc()

    async def ended(self, event: GameEnded) -> None:
        reason = event.reason.value if event.reason is not None else "unknown"
        self._metrics.games_ended.labels(game_kind(event.game), reason).inc()
