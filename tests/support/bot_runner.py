"""Run the real bot in-process against the fake Bot API server, the way `run_polling` does."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import replace
from datetime import datetime
from typing import Any

from telegram.ext import Application

from bot.app import ALLOWED_UPDATES, build_application
from bot.chores.turn_clock import TurnClock
from bot.config import Settings
from bot.games.event_stream import EventStream
from bot.games.events import GameEnded
from bot.games.play.clock_rules import TurnEvent
from bot.telegram.flood_gate import TELEGRAM_FLOOD_LIMITS, FloodLimits
from tests.support.fake_telegram import FakeTelegram


class BotRunner:
    """The bot's Application started and stopped in the same order as `run_polling`:
    initialize, post_init, start polling … stop, shutdown, post_shutdown.

    It also counts the updates the bot has finished handling, so tests can wait for exactly
    that (`settle`) instead of guessing with pauses."""

    def __init__(
        self, telegram: FakeTelegram, database_url: str, ai_pause: float = 0.05, **settings: Any
    ) -> None:
        self.telegram = telegram
        # The bot paces itself where the fake enforces Telegram's flood limits (per group and
        # for the whole bot; private chats' short bursts Telegram tolerates), as in production,
        # on the fake's clock (`tests.support.time_scale`).
        paced = replace(TELEGRAM_FLOOD_LIMITS, private=None).scaled(telegram.time_scale)
        default = paced if telegram.flood_limits_on else FloodLimits.unlimited()
        settings.setdefault("flood_limits", default)
        # A board whose edit went unanswered is drawn again this soon (tests wait for it).
        settings.setdefault("board_doubt_seconds", 0.5)
        self.settings = Settings(
            token=telegram.token,
            database_url=database_url,
            api_base_url=telegram.base_url,
            ai_pause_seconds=ai_pause,
            **settings,
        )
        self.application: Application | None = None
        # Shared by every runner on this fake server, so a restarted bot continues the count.
        if not hasattr(telegram, "handled_update_ids"):
            telegram.handled_update_ids = set()  # type: ignore[attr-defined]
        self.handled: set[int] = telegram.handled_update_ids  # type: ignore[attr-defined]
        # Every game ended, as its listeners heard it, by every runner on this fake server:
        # an ending is told once, whatever ended it and whichever instance (`stop` checks).
        if not hasattr(telegram, "endings_heard"):
            telegram.endings_heard = Counter()  # type: ignore[attr-defined]
        self.endings: Counter[int] = telegram.endings_heard  # type: ignore[attr-defined]

    async def start(self) -> Application:
        application = build_application(self.settings)
        # Counted when the update processor is done with it: handled, or shed by its chat's
        # lane (`bot.telegram.update_lanes`) without ever reaching `process_update`.
        processor = application.update_processor
        handle = processor.do_process_update

        async def process_and_count(update: object, coroutine: Any) -> None:
            try:
                await handle(update, coroutine)
            finally:
                update_id = getattr(update, "update_id", None)
                if update_id is not None:
                    self.handled.add(update_id)

        processor.do_process_update = process_and_count  # type: ignore[method-assign]
        await application.initialize()
        if application.post_init is not None:
            await application.post_init(application)
        application.bot_data.running.games.store.events.subscribe(GameEnded, self._heard)
        await application.start()
        assert application.updater is not None
        await application.updater.start_polling(
            poll_interval=0, timeout=1, allowed_updates=ALLOWED_UPDATES
        )
        # What the bot puts off until it runs (its profile, the solved table) is done before a
        # test begins, so that a test's calls are the ones it caused.
        for started in ("profile", "solved_table"):
            task = application.bot_data.tasks.get(started)
            if task is not None:
                await asyncio.wait({task}, timeout=10)
        self.application = application
        self.telegram.bot_runner = self  # type: ignore[attr-defined]
        return application

    async def settle(self, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Wait until every update queued so far has been handled to its end."""
        deadline = time.monotonic() + timeout
        while True:
            queued = {update["update_id"] for update in self.telegram.updates}
            if queued <= self.handled:
                # ... and what they changed has reached the games' listeners.
                events = self._events()
                if events is None or not events.pending:
                    return
                await asyncio.wait_for(events.idle(), max(0.0, deadline - time.monotonic()))
                continue
            if time.monotonic() > deadline:
                raise AssertionError(f"updates not handled: {sorted(queued - self.handled)}")
            await asyncio.sleep(0.005)

    @property
    def turn_clock(self) -> SettledClock:
        """The bot's turn clock, each tick awaited to its end: the endings it made have
        reached their listeners (the boards, the announcer) when `tick` returns."""
        assert self.application is not None
        running = self.application.bot_data.running
        return SettledClock(running.turn_clock, running.games.store.events)

    def _events(self) -> EventStream | None:
        resources = None if self.application is None else self.application.bot_data
        if resources is None or resources.opened is None:
            return None
        return resources.opened.games.store.events

    async def quiesce(self, timeout: float = 30.0) -> None:  # noqa: ASYNC109
        """Wait until every update queued so far is handled, every AI turn they started is
        played, every board redraw the presenter has to come is done (after an unanswered
        edit, `BOARD_DOUBT_SECONDS`), and no Bot API call is in flight: after this, nothing
        more happens until the next update (a turn-clock nudge aside, minutes away in
        tests)."""
        assert self.application is not None
        running = self.application.bot_data.running
        deadline = time.monotonic() + timeout
        while True:
            await self.settle(max(0.0, deadline - time.monotonic()))
            redraws = running.presenter.order.redraws_to_come
            if not running.matches.playing and not redraws:
                break
            if time.monotonic() > deadline:
                playing = sorted(running.matches.playing)
                raise AssertionError(f"AI turns still playing: {playing}; redraws: {redraws}")
            await asyncio.sleep(0.005)
        await self.telegram.wait_idle(quiet=0.0, timeout=max(0.0, deadline - time.monotonic()))

    async def _heard(self, event: GameEnded) -> None:
        self.endings[event.game.id] += 1

    async def stop(self) -> None:
        application, self.application = self.application, None
        if application is None:
            return
        assert application.updater is not None
        await application.updater.stop()
        await application.stop()
        await application.shutdown()
        if application.post_shutdown is not None:
            await application.post_shutdown(application)
        if getattr(self.telegram, "bot_runner", None) is self:
            del self.telegram.bot_runner  # type: ignore[attr-defined]
        told_twice = {game: n for game, n in self.endings.items() if n > 1}
        assert not told_twice, f"endings told more than once: {told_twice}"


class SettledClock:
    def __init__(self, clock: TurnClock, events: EventStream) -> None:
        self.clock = clock
        self._events = events

    async def tick(self, now: datetime) -> list[tuple[TurnEvent, int]]:
        happened = await self.clock.tick(now)
        await self._events.idle()
        return happened

    async def redraw_clocks(self, now: datetime) -> int:
        return await self.clock.redraw_clocks(now)


async def quiesce(telegram: FakeTelegram) -> None:
    """Wait until the bot running against `telegram` is done with everything sent to it,
    AI turns included (`BotRunner.quiesce`): what a test sees next is all it will see."""
    runner: BotRunner | None = getattr(telegram, "bot_runner", None)
    assert runner is not None, "no bot runs against this fake"
    await runner.quiesce()


async def settle(telegram: FakeTelegram) -> None:
    """Wait until the bot running against `telegram` has handled everything sent to it."""
    runner: BotRunner | None = getattr(telegram, "bot_runner", None)
    if runner is None:
        await telegram.wait_idle(quiet=0.1)
    else:
        await runner.settle()
