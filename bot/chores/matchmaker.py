"""The matchmaking queue's running side, on every instance: a round every few seconds pairs
whoever the widening rating windows now allow, posts both boards of each game it starts,
keeps every waiting message's seconds counting, and offers the AI to whoever waited
`pairing.AI_OFFER_AFTER` for nobody. The queue itself is in the database
(`bot.games.matchmaking`), so any instance may pair, redraw or cancel any entry.

Waiting messages are redrawn at `Pace.BACKGROUND`: people's moves go first.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from telegram import Bot
from telegram.error import BadRequest, TelegramError

from bot.chores.rounds import Rounds
from bot.games.db.models import utcnow
from bot.games.matchmaking import Matchmaking, Paired
from bot.games.pairing import AI_OFFER_AFTER, Waiting
from bot.telegram.flood_gate import Pace, pace_args
from bot.views.presenter import Presenter
from bot.views.queue import render_waiting
from bot.views.rating import first_name
from bot.views.texts import isolate, texts_for

log = logging.getLogger(__name__)

#: How often a waiting message's seconds are redrawn.
REDRAW_EVERY = timedelta(seconds=5)


class Matchmaker:
    def __init__(
        self, matchmaking: Matchmaking, presenter: Presenter, bot: Bot, every: float = 2.0
    ) -> None:
        self._matchmaking = matchmaking
        self._presenter = presenter
        self._bot = bot
        self._rounds = Rounds("matchmaking", self.round, every)

    def start(self) -> None:
        self._rounds.start()

    async def stop(self) -> None:
        await self._rounds.stop()

    async def round(self) -> None:
        """Pair whoever may be paired now, then redraw the waiting messages that are due."""
        for paired in await self._matchmaking.pair_waiting():
            await self.begin(paired)
        now = utcnow()
        for waiting in await self._matchmaking.waiting():
            await self._redraw(waiting, now)

    async def begin(self, paired: Paired) -> None:
        """A game the queue started: each player's waiting message names the opponent, and
        each gets the board in their private chat."""
        first, second = paired.players
        for waiting, other in ((first, second), (second, first)):
            if waiting.message_id is not None:
                tr = texts_for(waiting.language)
                found = tr.QUEUE_FOUND.format(name=isolate(first_name(other.name), tr))
                await self._edit(waiting, found, None)
        game = paired.game
        try:
            if game.chat_id is not None:
                await self._presenter.post(game.chat_id, game, ai=False)
            await self._presenter.post_second(game)
        except TelegramError as error:
            # One of them blocked the bot meanwhile: the game ends by the turn clock.
            log.warning("could not post a board of game %s: %s", game.id, error)

    async def _redraw(self, waiting: Waiting, now: datetime) -> None:
        if waiting.message_id is None:
            return
        offer_now = not waiting.offered_ai and waiting.waited(now) >= AI_OFFER_AFTER
        drawn_before = now - REDRAW_EVERY
        if not offer_now and waiting.shown_at is not None and waiting.shown_at > drawn_before:
            return
        claimed = await self._matchmaking.claim_redraw(
            waiting.player_id, now, drawn_before=drawn_before, offer=offer_now
        )
        if not claimed:
            return  # another instance drew it, or the entry is gone (cancelled, paired)
        offer = waiting.offered_ai or offer_now
        message = render_waiting(waiting, now, texts_for(waiting.language), offer=offer)
        await self._edit(waiting, message.text, message.keyboard)

    async def _edit(self, waiting: Waiting, text: str, keyboard: object) -> None:
        try:
            await self._bot.edit_message_text(
                text,
                chat_id=waiting.chat_id,
                message_id=waiting.message_id,
                reply_markup=keyboard,  # type: ignore[arg-type]
                **pace_args(self._bot, Pace.BACKGROUND),
            )
        except BadRequest as error:
            if "not modified" not in str(error).lower():
                log.info("waiting message of %s: %s", waiting.player_id, error)
        except TelegramError as error:
            log.info("waiting message of %s: %s", waiting.player_id, error)
