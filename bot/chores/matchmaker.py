"""The matchmaking queue's running side, on every instance: a round every few seconds pairs
whoever the widening rating windows now allow, posts both boards of each game it starts,
keeps every waiting message's seconds counting, offers the AI to whoever waited
`pairing.AI_OFFER_AFTER` for nobody, and takes out of the queue whoever waited past the limit
(`QUEUE_WAIT_SECONDS`), their message saying so. A game whose first board cannot be posted
(its player blocked the bot, or their chat is gone) is undone, and the other player is back
at the head of the queue, their waiting message as it was. The queue itself is in the database
(`bot.games.strangers.matchmaking`), so any instance may pair, redraw or cancel any entry.

Waiting messages are redrawn at `Pace.BACKGROUND`: people's moves go first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

from telegram import Bot
from telegram.error import BadRequest, Forbidden, TelegramError

from bot.chat.presenter import Presenter
from bot.chat.queue import edit_waiting, render_waiting, shows_already, tell_left
from bot.chores.rounds import Rounds
from bot.games.db.models import utcnow
from bot.games.model import GameView
from bot.games.strangers.matchmaking import LeftQueue, Matchmaking, Paired
from bot.games.strangers.pairing import AI_OFFER_AFTER, Waiting
from bot.locales.texts import isolate, texts_for
from bot.telemetry.metrics import Metrics
from bot.views.rating import first_name

log = logging.getLogger(__name__)

#: How often a waiting message's seconds are redrawn.
REDRAW_EVERY = timedelta(seconds=5)


class Matchmaker:
    def __init__(
        self,
        matchmaking: Matchmaking,
        presenter: Presenter,
        bot: Bot,
        every: float = 2.0,
        wait_limit: timedelta = timedelta(minutes=5),
        metrics: Metrics | None = None,
    ) -> None:
        self._matchmaking = matchmaking
        #: Told the queue's length each round (None: not).
        self._metrics = metrics
        self.wait_limit = wait_limit
        self._presenter = presenter
        self._bot = bot
        self._rounds = Rounds("matchmaking", self.round, every)
        # player id → (the lock their search is started under, how many hold or wait for it)
        self._searches: dict[int, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def one_search_at_a_time(self, player_id: int) -> AsyncIterator[None]:
        """A player's searches started one after the other in this process: a double tap on
        "Find a new opponent" joins the queue and posts its waiting message, then edits that
        one message, where both taps at once each posted one (the second found no message
        to edit yet), and the first stayed behind with a live Cancel."""
        lock, users = self._searches.get(player_id, (asyncio.Lock(), 0))
        self._searches[player_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._searches[player_id]
            if users == 1:
                del self._searches[player_id]
            else:
                self._searches[player_id] = (lock, users - 1)

    def start(self) -> None:
        self._rounds.start()

    async def stop(self) -> None:
        await self._rounds.stop()

    async def round(self) -> None:
        """Let go of whoever waited too long, pair whoever may be paired now, then redraw the
        waiting messages that are due."""
        now = utcnow()
        for waiting in await self._matchmaking.expire(now - self.wait_limit):
            await tell_left(self._bot, waiting, LeftQueue.TIMED_OUT, now)
        for paired in await self._matchmaking.pair_waiting():
            await self.begin(paired)
        now = utcnow()
        queue = await self._matchmaking.waiting()
        if self._metrics is not None:
            self._metrics.queue_length.set(len(queue))
        for waiting in queue:
            await self._redraw(waiting, now)

    async def begin(self, paired: Paired) -> bool:
        """A game the queue started: each gets the board in their private chat, then each
        player's waiting message names the opponent. A board that cannot be posted (its
        player blocked the bot, or their chat is gone) undoes the game: False."""
        first, second = paired.players
        game = paired.game
        posted: GameView | None = None
        try:
            if game.chat_id is not None:
                posted = await self._presenter.post(game.chat_id, game, ai=False)
        except TelegramError as error:
            return not await self._undo(game, first, stays=second, error=error)
        try:
            await self._presenter.post_second(game)
        except TelegramError as error:
            return not await self._undo(posted or game, second, stays=first, error=error)
        for waiting, other in ((first, second), (second, first)):
            tr = texts_for(waiting.language)
            found = tr.QUEUE_FOUND.format(name=isolate(first_name(other.name), tr))
            await edit_waiting(self._bot, waiting, found)
        return True

    async def _undo(
        self, game: GameView, gone: Waiting, *, stays: Waiting, error: TelegramError
    ) -> bool:
        """`gone`'s board could not be posted: the game is undone and `stays` waits on at
        the head of the queue, as if nothing happened (a board of theirs already posted is
        taken back). Whether it was undone."""
        if not _unreachable(error):
            # Not a chat that is gone (a timeout, a server error): the game stands, and the
            # board catch-up posts what is missing.
            log.warning("could not post a board of game %s: %s", game.id, error)
            return False
        log.info("game %s undone: %s's board: %s", game.id, gone.player_id, error)
        if not await self._matchmaking.undo_pairing(game.id, stays, gone):
            return False
        if stays.chat_id == game.chat_id and game.message_id is not None:
            try:
                await self._bot.delete_message(game.chat_id, game.message_id)
            except TelegramError as failure:
                log.info("board of undone game %s not deleted: %s", game.id, failure)
        for paired in await self._matchmaking.pair_waiting(only=stays.player_id):
            await self.begin(paired)
        return True

    async def _redraw(self, waiting: Waiting, now: datetime) -> None:
        if waiting.message_id is None:
            return
        offer_now = not waiting.offered_ai and waiting.waited(now) >= AI_OFFER_AFTER
        drawn_before = now - REDRAW_EVERY
        if not offer_now and waiting.shown_at is not None and waiting.shown_at > drawn_before:
            return
        offer = waiting.offered_ai or offer_now
        message = render_waiting(waiting, now, texts_for(waiting.language), offer=offer)
        if shows_already(waiting, message):
            return  # posted a moment ago: its seconds have not moved yet
        claimed = await self._matchmaking.claim_redraw(
            waiting.player_id, now, drawn_before=drawn_before, offer=offer_now
        )
        if not claimed:
            return  # another instance drew it, or the entry is gone (cancelled, paired)
        await edit_waiting(self._bot, waiting, message.text, message.keyboard)


def _unreachable(error: TelegramError) -> bool:
    """Whether a send failed because the chat cannot be written to (blocked, deactivated,
    gone): sending again will not help."""
    text = str(error).lower()
    return isinstance(error, Forbidden) or (
        isinstance(error, BadRequest) and "chat not found" in text
    )
