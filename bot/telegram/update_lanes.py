"""Fair queues: one lane per chat, so that no chat's burst keeps another chat's updates waiting.

PTB hands every update to the update processor in a task of its own. `UpdateLanes` puts it
in its chat's lane (for an update in no chat, an inline query or a tap on an inline message,
the sender's): a lane runs at most `per_lane` updates at once (a group's `per_group_lane`),
and the rest wait in the lane's own queues, taps first (Telegram takes a tap's answer for
15 s only; a message can wait), each queue in order of arrival. Across lanes at most
`running` updates work at once: the shared slots, taken by the lanes' running updates only,
taps first (for the same reason, though not ahead of a message that came `tap_lead` seconds
before them), each kind in order of arrival. A handler whose reply
waits for its chat's pace gives its shared slot back meanwhile
(`bot.telegram.flood_gate.running_slot`), so a paced chat holds at most its lane's places, and
no shared slot, while it waits.

What cannot be served in time is shed, and its coroutine closed unstarted:
* a tap that waited `tap_patience` seconds for its turn (in its lane, then for a shared
  slot: the handler's own "busy" answer cannot come before it starts), or found
  `queued_taps` taps queued in its lane, is answered with a pop-up saying it did nothing and
  to tap again (the board stays as it was), then dropped;
* a message (or any other update) that finds `queued_others` waiting is dropped.
A lane logs one line for each burst it shed from, when it has drained. A shed update never
ran, so it acted on nothing: every update still acts at most once.

Memory is bounded per chat: a lane holds its places + `queued_taps` + `queued_others` updates
at most; PTB's task for a shed update ends as soon as it is shed (see `bench/flood.py`).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import math
from collections import deque
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import BaseUpdateProcessor

from bot.locales.texts import texts_for
from bot.telegram.flood_gate import running_slot
from bot.telegram.shared_slots import TAP_LEAD, SharedSlot, SharedSlots

log = logging.getLogger(__name__)

#: Updates of one chat handled at once: a private chat's, and a group's (several people play
#: there, each tap answered at once while its edit waits for the group's pace).
PER_LANE = 2
PER_GROUP_LANE = 8
#: Taps and other updates that may wait in one chat's lane.
QUEUED_TAPS = 16
QUEUED_OTHERS = 8
#: Seconds a tap may wait in its lane: what is left of Telegram's 15 s is for its handler.
TAP_PATIENCE = 8.0
#: When (the event loop's clock) the update being handled reached its lane: a tap's handler
#: answers within Telegram's deadline counted from then (`bot.handlers.taps`).
update_arrived: ContextVar[float | None] = ContextVar("update_arrived", default=None)
#: Whether the update being handled comes again after a restart (a crash left it in the inbox,
#: or unacknowledged with Telegram): its first handling, if any, is over, answer or not.
update_recovered: ContextVar[bool] = ContextVar("update_recovered", default=False)
#: Seconds an update may wait for its turn (in its chat's lane, or for a shared slot) before
#: the log says where it waits and why; at most one such line every STUCK_LOG_EVERY seconds.
STUCK_SECONDS = 3.0
STUCK_LOG_EVERY = 10.0
#: PTB's own bound on updates held at once, set out of the way: it would make every chat's
#: updates wait in one line again. The lanes bound what is held, per chat.
HELD_UPDATES = 1 << 30


class Stuck:
    """Updates that waited past `STUCK_SECONDS` for their turn: logged where and why, one line
    for many at most every `STUCK_LOG_EVERY` seconds (a crowd would write a line each)."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._last = ""
        self._logged_at = -math.inf
        self._flush: asyncio.TimerHandle | None = None

    def watch(self, key: int | None, where: str, state: Callable[[], str]) -> asyncio.TimerHandle:
        """A timer that notes the update still waiting `where` after `STUCK_SECONDS`; cancel
        it once the turn comes."""
        return asyncio.get_running_loop().call_later(STUCK_SECONDS, self._note, key, where, state)

    def _note(self, key: int | None, where: str, state: Callable[[], str]) -> None:
        self._counts[where] = self._counts.get(where, 0) + 1
        self._last = f"chat {key}: {state()}" if key is not None else state()
        if self._flush is None:
            loop = asyncio.get_running_loop()
            due = max(0.0, self._logged_at + STUCK_LOG_EVERY - loop.time())
            self._flush = loop.call_later(due, self._log)

    def _log(self) -> None:
        self._flush = None
        self._logged_at = asyncio.get_running_loop().time()
        counts = ", ".join(f"{count} {where}" for where, count in self._counts.items())
        self._counts.clear()
        log.warning(
            "updates waiting over %gs for their turn: %s (the last: %s)",
            STUCK_SECONDS,
            counts,
            self._last,
        )

    def stop(self) -> None:
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None


@dataclass
class Lane:
    """One chat's updates: how many run, and the turns of those waiting."""

    #: How many of its updates may run at once.
    places: int = PER_LANE
    running: int = 0
    taps: deque[asyncio.Future[None]] = field(default_factory=deque)
    others: deque[asyncio.Future[None]] = field(default_factory=deque)
    shed_taps: int = 0
    shed_others: int = 0

    @property
    def idle(self) -> bool:
        return not self.running and not self.taps and not self.others


def lane_key(update: object) -> int | None:
    """The lane of an update: its chat, else its sender (None: no lane, e.g. a poll)."""
    if not isinstance(update, Update):
        return None
    if update.effective_chat is not None:
        return update.effective_chat.id
    if update.effective_user is not None:
        return update.effective_user.id
    return None


def is_tap(update: object) -> bool:
    return isinstance(update, Update) and update.callback_query is not None


class UpdateLanes(BaseUpdateProcessor):
    """PTB's update processor with one lane per chat (see the module's docstring)."""

    def __init__(
        self,
        running: int,
        *,
        per_lane: int = PER_LANE,
        per_group_lane: int = PER_GROUP_LANE,
        queued_taps: int = QUEUED_TAPS,
        queued_others: int = QUEUED_OTHERS,
        tap_patience: float = TAP_PATIENCE,
        tap_lead: float = TAP_LEAD,
    ) -> None:
        super().__init__(HELD_UPDATES)
        self.running = running
        self.per_lane = per_lane
        self.per_group_lane = per_group_lane
        self.queued_taps = queued_taps
        self.queued_others = queued_others
        self.tap_patience = tap_patience
        self._shared = SharedSlots(running, tap_lead=tap_lead)
        self._lanes: dict[int, Lane] = {}
        self._closed = False
        self._stuck = Stuck()

    def queued(self, key: int) -> int:
        """Updates waiting in a lane now (not running)."""
        lane = self._lanes.get(key)
        return len(lane.taps) + len(lane.others) if lane is not None else 0

    def held(self, key: int) -> int:
        """Updates a lane holds now, running or waiting."""
        lane = self._lanes.get(key)
        return lane.running + self.queued(key) if lane is not None else 0

    async def initialize(self) -> None:
        """Nothing to open: lanes are made as chats send updates."""
        self._closed = False

    async def shutdown(self) -> None:
        """Wake every queued update to be shed (PTB has stopped taking updates by now)."""
        self._closed = True
        self._stuck.stop()
        for lane in self._lanes.values():
            for turn in (*lane.taps, *lane.others):
                if not turn.done():
                    turn.cancel()

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        """Run the update in its lane's turn, or shed it."""
        update_arrived.set(asyncio.get_running_loop().time())
        key = lane_key(update)
        if key is None:
            await self._run(None, update, coroutine)
            return
        lane = self._lanes.get(key)
        if lane is None:
            # Groups (and channels) have negative ids.
            lane = self._lanes[key] = Lane(self.per_group_lane if key < 0 else self.per_lane)
        if lane.running < lane.places and not lane.taps and not lane.others:
            lane.running += 1
        elif not await self._wait_turn(lane, update, coroutine):
            self._forget_if_idle(key, lane)
            return
        try:
            await self._run(lane, update, coroutine)
        finally:
            self._hand_on(key, lane)

    async def _wait_turn(self, lane: Lane, update: object, coroutine: Awaitable[Any]) -> bool:
        """Queue for the lane's turn: True when it came (the lane counts this update as
        running), False when the update was shed."""
        tap = is_tap(update)
        queue, bound = (lane.taps, self.queued_taps) if tap else (lane.others, self.queued_others)
        if self._closed or len(queue) >= bound:
            await self._shed(lane, update, coroutine)
            return False
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.append(turn)
        key = lane_key(update)

        def state() -> str:
            return (
                f"its lane runs {lane.running} of {lane.places} at once, "
                f"{len(lane.taps)} taps and {len(lane.others)} others queued"
            )

        timer = self._stuck.watch(key, "in their chat's lane", state)
        try:
            await asyncio.wait({turn}, timeout=self.tap_patience if tap else None)
        except asyncio.CancelledError:
            self._leave(lane, queue, turn)
            _close(coroutine)
            raise
        finally:
            timer.cancel()
        if turn.done() and not turn.cancelled():
            return True
        self._leave(lane, queue, turn)
        await self._shed(lane, update, coroutine)
        return False

    def _leave(
        self, lane: Lane, queue: deque[asyncio.Future[None]], turn: asyncio.Future[None]
    ) -> None:
        """Take a turn out of its queue; if it had just come, hand it to the next one."""
        if turn.done() and not turn.cancelled():
            lane.running -= 1  # granted, never used
            self._grant_next(lane)
        else:
            turn.cancel()
            if turn in queue:
                queue.remove(turn)

    async def _run(self, lane: Lane | None, update: object, coroutine: Awaitable[Any]) -> None:
        """Await the update's coroutine in a shared slot, which the flood gate may step out of;
        a tap whose patience runs out first is shed."""
        tap = is_tap(update)
        slot = SharedSlot(self._shared, self._stuck, tap=tap)
        patience = None
        arrived = update_arrived.get()
        if tap and arrived is not None:
            patience = max(0.0, arrived + self.tap_patience - asyncio.get_running_loop().time())
        try:
            taken = await slot.take(patience)
        except BaseException:
            _close(coroutine)
            raise
        if not taken:
            await self._shed(lane, update, coroutine)
            return
        token = running_slot.set(slot)
        try:
            await coroutine
        finally:
            running_slot.reset(token)
            slot.release()

    def _hand_on(self, key: int, lane: Lane) -> None:
        """A running update is done: its lane's next turn goes to the first tap, else the
        first other update."""
        lane.running -= 1
        self._grant_next(lane)
        self._forget_if_idle(key, lane)

    def _grant_next(self, lane: Lane) -> None:
        while lane.running < lane.places and (lane.taps or lane.others):
            turn = (lane.taps or lane.others).popleft()
            if not turn.done():
                turn.set_result(None)
                lane.running += 1

    def _forget_if_idle(self, key: int, lane: Lane) -> None:
        if not lane.idle or self._lanes.get(key) is not lane:
            return
        del self._lanes[key]
        if lane.shed_taps or lane.shed_others:
            log.warning(
                "chat %s sent more than it could be served: %d taps answered unplayed, "
                "%d other updates dropped",
                key,
                lane.shed_taps,
                lane.shed_others,
            )

    async def _shed(self, lane: Lane | None, update: object, coroutine: Awaitable[Any]) -> None:
        """Drop an update unstarted (counted in its lane, if it has one); a tap is answered
        first, with a pop-up in the tapper's client's language saying it did nothing (not once
        shut down: the bot's connection is closed by then)."""
        _close(coroutine)
        if not is_tap(update):
            if lane is not None:
                lane.shed_others += 1
            return
        if lane is not None:
            lane.shed_taps += 1
        assert isinstance(update, Update) and update.callback_query is not None
        if self._closed:
            return
        try:
            query = update.callback_query
            await query.answer(texts_for(query.from_user.language_code).POPUP_BUSY)
        except TelegramError as error:
            log.info("shed callback query %s was not answered: %s", update.callback_query.id, error)


def _close(coroutine: Awaitable[Any]) -> None:
    """Close an update's coroutine that will never run (no 'never awaited' warning)."""
    if inspect.iscoroutine(coroutine):
        coroutine.close()
