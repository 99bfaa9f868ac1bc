"""The features that follow a game by listening to its events (`bot.games.events`): each
subscribes here, once the bot's resources are open, and none is called by the code that
changed the game. A new feature is one more listener; the ones here need no edit for it."""

from __future__ import annotations

from telegram import Bot

from bot.chat.presenter import Presenter
from bot.games.event_stream import EventStream
from bot.games.events import GameEnded, GameStarted, SeatsTaken
from bot.games.strangers.matchmaking import Matchmaking
from bot.listeners.announcer import Announcer
from bot.listeners.ended_boards import AiMatches, EndedBoards
from bot.listeners.game_counts import GameCounts
from bot.listeners.queue import QueueLeaving
from bot.telemetry.metrics import Metrics


def listen(
    events: EventStream,
    *,
    bot: Bot,
    presenter: Presenter,
    ai_matches: AiMatches,
    matchmaking: Matchmaking,
    metrics: Metrics | None = None,
) -> None:
    """Subscribe the chat's listeners, in the order each event reaches them: an ending's
    board first, then what is said aloud of it; the metrics' counts last (with metrics on)."""
    boards = EndedBoards(presenter, ai_matches)
    events.subscribe(GameEnded, boards.heard)
    events.subscribe(GameEnded, Announcer(bot).heard)
    queue = QueueLeaving(matchmaking, bot)
    events.subscribe(GameStarted, queue.started)
    events.subscribe(SeatsTaken, queue.seated)
    if metrics is not None:
        counts = GameCounts(metrics)
        events.subscribe(GameStarted, counts.started)
        events.subscribe(GameEnded, counts.ended)
