"""Turn timeouts for games between people: nudge, then a loss by timeout; games between
strangers on the clock (`bot.games.play.clock_rules`): a flag loses at once (both told), ❌ who
never began aborts the game (both told), and a running clock is redrawn on both boards every
`redraw_seconds` (each board is in a private chat: one edit per 10 s is far under its pace; a
group's boards on the clock, a tournament's, are not redrawn between moves). A turn's clock
starts when its board is shown (`bot.games.play.turn_starts`); one whose board nobody heard
back about starts here, `grace_seconds` after its turn began.

Nobody is waiting for these messages this very moment, so they go at `Pace.BACKGROUND`: after
people's moves under Telegram's flood limits (`bot.telegram.flood_gate`)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import datetime, timedelta

from telegram import Bot
from telegram.constants import ParseMode
from telegram.error import TelegramError

from bot.chat.presenter import Presenter
from bot.chores.outage import Outage
from bot.games.db.models import utcnow
from bot.games.model import GameView
from bot.games.play.clock_rules import TurnEvent
from bot.games.play.timeouts import TurnTimeouts
from bot.games.play.turn_starts import TurnStarts
from bot.locales.texts import texts_for
from bot.telegram.flood_gate import Pace, pace_args
from bot.views.render import render_nudge
from core.board import O

log = logging.getLogger(__name__)


class TurnClock:
    """Checks overdue turns every `interval` seconds. The state lives in the database, so
    several bot instances may run clocks side by side: each change is one versioned write
    (a clock's start, one conditional write)."""

    def __init__(
        self,
        timeouts: TurnTimeouts,
        turn_starts: TurnStarts,
        presenter: Presenter,
        bot: Bot,
        timeout_seconds: float,
        redraw_seconds: float = 10.0,
        grace_seconds: float = 30.0,
    ) -> None:
        self._timeouts = timeouts
        self._turn_starts = turn_starts
        self._grace = timedelta(seconds=grace_seconds)
        self._presenter = presenter
        self._bot = bot
        self._timeout = timedelta(seconds=timeout_seconds)
        # Check often enough that a nudge is never much later than the timeout, and a flag
        # falls within a second of the time running out.
        self._interval = max(0.05, min(1.0, timeout_seconds / 10))
        self._redraw = timedelta(seconds=redraw_seconds)
        self._redrawn_at: datetime | None = None
        self._task: asyncio.Task[None] | None = None
        self._outage = Outage("turn clock", traceback=True, tries="sweeps", logger=log)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="turn-clock")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def tick(self, now: datetime) -> list[tuple[TurnEvent, int]]:
        """Start the clocks whose grace is over, then apply every timeout due at `now`;
        returns what happened to which game."""
        await self._turn_starts.start_unseen(now, self._grace)
        happened = []
        for game_id in await self._timeouts.overdue(now, self._timeout):
            outcome = await self._timeouts.enforce(game_id, now, self._timeout)
            if outcome is None:
                continue
            event, game = outcome
            happened.append((event, game.id))
            try:
                game = await self._presenter.show(game, pace=Pace.BACKGROUND, ai=False)
                if event is TurnEvent.NUDGE:
                    await self._nudge(game)
            except TelegramError:
                log.warning("could not show the %s of game %s", event, game.id, exc_info=True)
        return happened

    async def redraw_clocks(self, now: datetime) -> int:
        """Redraw the boards of every running clock as of `now` (at the background's pace);
        returns how many games were redrawn."""
        games = await self._timeouts.claim_clock_redraws(now, self._redraw)
        for game in games:
            try:
                await self._presenter.show(
                    replace(game, clock_read_at=now), pace=Pace.BACKGROUND, ai=False
                )
            except TelegramError:
                log.warning("could not redraw the clock of game %s", game.id, exc_info=True)
        return len(games)

    async def _nudge(self, game: GameView) -> None:
        """The nudge, as a reply to the board of the player to move (between strangers, the
        one in their own chat), mentioning them."""
        to_second = game.is_between_strangers and game.to_move == O
        chat_id = game.second_chat_id if to_second else game.chat_id
        if chat_id is None:
            return
        tr = texts_for(game.second_language if to_second else game.language)
        await self._bot.send_message(
            chat_id,
            render_nudge(game, tr),
            parse_mode=ParseMode.HTML,
            reply_to_message_id=game.second_message_id if to_second else game.message_id,
            **pace_args(self._bot, Pace.BACKGROUND),
        )

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self._interval)
            try:
                now = utcnow()
                await self.tick(now)
                if self._redrawn_at is None or now - self._redrawn_at >= self._redraw:
                    self._redrawn_at = now
                    await self.redraw_clocks(now)
            except Exception as error:
                # One bad sweep (e.g. the database restarting, or a connection it dropped
                # mid-sweep) must not stop the clock: said as every chore's failed rounds
                # are (`Outage`), and the next sweep comes at its time.
                self._outage.failed(error)
            else:
                self._outage.succeeded()
