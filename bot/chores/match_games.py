"""The next game of a match, posted as soon as the game before it has ended.

The ending's own transaction started the next game (`bot.games.matches.play`); this listener of
the game's `GameEnded` event (`bot.games.event_stream`, told after the commit, in the process
that ended the game) posts its board where the game before was: in the group, or in both strangers'
private chats, through the one presenter. A posting lost in a crash is the board catch-up's:
it posts a game's boards that were never posted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from telegram.error import TelegramError

from bot.chat.presenter import Presenter
from bot.games.db.store import Store
from bot.games.events import GameEnded
from bot.games.matches.use_cases import Matches
from bot.games.model import GameView

log = logging.getLogger(__name__)


class MatchGames:
    def __init__(self, store: Store, presenter: Presenter) -> None:
        self._matches = Matches(store)
        self._store = store
        self._presenter = presenter
        self._posting: set[asyncio.Task[None]] = set()
        self._listening = False
        self._running = False

    def start(self) -> None:
        """Hear the games' endings from now on."""
        if not self._listening:
            self._store.events.subscribe(GameEnded, self.heard)
            self._listening = True
        self._running = True

    async def heard(self, event: GameEnded) -> None:
        """A game ended: if its match goes on, post the next game (in a task of its own: the
        game's other listeners do not wait for the new game's boards)."""
        ended = event.game
        if not self._running or ended.match is None or ended.match.is_over:
            return
        task = asyncio.create_task(self._post_next(ended), name=f"match after game {ended.id}")
        self._posting.add(task)
        task.add_done_callback(self._posting.discard)

    async def _post_next(self, ended: GameView) -> None:
        try:
            await self.post_next(ended)
        except Exception:
            # The database is away: the board catch-up posts the game once it can.
            log.warning("the game after %s was not posted now", ended.id, exc_info=True)

    async def post_next(self, ended: GameView) -> GameView | None:
        """Post the boards of the game that follows `ended` in its match: the game as posted."""
        game = await self._matches.next_of(ended)
        if game is None or game.has_board_message or game.chat_id is None:
            return game
        try:
            game = await self._presenter.post(game.chat_id, game, ai=False)
            if game.is_between_strangers:
                game = await self._presenter.post_second(game)
        except TelegramError as error:
            # The board catch-up posts what is missing.
            log.warning("match game %s not posted now: %s", game.id, error)
        return game

    async def idle(self) -> None:
        """Wait until the postings under way are done (tests, shutdown)."""
        while self._posting:
            await asyncio.wait(set(self._posting))

    async def stop(self) -> None:
        """End the postings under way (at shutdown)."""
        self._running = False
        for task in list(self._posting):
            task.cancel()
        for task in list(self._posting):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
