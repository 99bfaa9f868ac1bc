"""Pacing the bot's messages ahead of Telegram's flood limits, per chat, people first.

Telegram's limits are per chat (Bots FAQ): "avoid sending more than one message per second"
in one chat, and "your bot will not be able to send more than 20 messages per minute to the
same group"; an edit counts like a send. There is no bot-wide limit on what people ask for:
"You can call answerCallbackQuery without any limits; editing of the message in question is
still subject to per chat limits" (tdlib/telegram-bot-api#648), and "there is no global limit
on the number of sent messages for bots" (tdlib/td#3034). The FAQ's "not more than 30
messages per second or so" is about "sending bulk notifications to multiple users". A bot
that goes faster than a chat allows is answered 429 "retry after N", with growing penalties.

`FloodGate` is PTB's rate-limiter hook (`ApplicationBuilder.rate_limiter`): every Bot API call
but getUpdates passes through `process_request`. A call that posts or edits a message takes a
token from its chat's bucket before it goes out; what nobody asked for (`Pace.BACKGROUND` and
`Pace.FRAME`: nudges, notices, announcements to many chats, AI-match boards) takes one from
the whole bot's bucket too, the FAQ's 30 a second for broadcasts. Everything else (answers to
taps and inline queries, get/set/delete calls, chat actions) goes at once: those are not
messages.

Each limit is a token bucket (`bot.telegram.flood_limits`), and its queue is ordered by `Pace`:
people first, then background calls, and AI-match frames only when there is room for them.

A 429 that comes all the same (Telegram is stricter than we know, or another process sends as
the same bot) closes the bucket of the chat it names for `retry_after` seconds, so nothing
else is sent there meanwhile, and the request queues again at its pace; a call with no chat
(an inline message's edit) waits its own `retry_after` alone. The Bot API request class is
told not to wait out 429s itself (`RetryingRequest(retry_flood_limits=False)`): nothing waits
twice.

Several instances of the bot share one budget: with a `SharedBudget` (FLOOD_BUDGET,
`bot.flood_budget`) a message that has its tokens here takes one more from the same
limits kept in the database for every instance, and waits there when another instance spent
them. This process still orders its own calls (people first) and handles its 429s.

A handler whose message must wait for its chat's pace is doing no work meanwhile, so it gives
back the shared slot its update holds (`running_slot`, set by the update processor,
`bot.telegram.update_lanes`) until its call is answered, and takes one again after: a chat
that is paced keeps no other chat's update waiting for a slot, and a call that holds its
tokens never waits for a slot (which once let a crowd deadlock the bot: every slot held by a
wait for tokens that calls waiting for a slot held).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
import warnings
from collections.abc import Callable, Coroutine
from contextvars import ContextVar
from datetime import timedelta
from typing import Any, Protocol, TypeVar

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter
from telegram.warnings import PTBDeprecationWarning

from bot.telegram.flood_limits import (
    TELEGRAM_FLOOD_LIMITS,
    FloodLimits,
    FrameSkipped,
    Limit,
    Pace,
    Rate,
    Shortfall,
    TokenBucket,
    capacity,
    chat_limit,
)
from bot.telemetry.metrics import Metrics

log = logging.getLogger(__name__)

#: Buckets kept for idle chats before the full, idle ones are forgotten.
MAX_IDLE_BUCKETS = 1000

#: A turn nobody needs to wait for.
_NO_TURN = contextlib.nullcontext()

JSONResult = bool | dict[str, Any] | list[dict[str, Any]]
T = TypeVar("T")


class Slot(Protocol):
    """The share of the bot's running updates that the update being handled holds."""

    def step_out(self) -> bool:
        """Give the slot back while the handler only waits; False when this task holds none."""
        ...

    async def step_in(self) -> None:
        """Take a slot again, after `step_out` gave it back."""
        ...


class SharedBudget(Protocol):
    """The flood limits every instance counts in (`bot.flood_budget`)."""

    async def take(self, chat_id: object | None, pace: Pace) -> Shortfall | None:
        """A token for a message to this chat, or what is short (nothing taken then)."""
        ...


#: The slot of the update this task handles (None: no update, e.g. an AI match's task).
running_slot: ContextVar[Slot | None] = ContextVar("running_slot", default=None)


def is_message(endpoint: str) -> bool:
    """Whether a Bot API method posts or edits a message (what the flood limits count)."""
    if endpoint == "sendChatAction":
        return False
    return endpoint.startswith(("send", "edit", "copyMessage", "forwardMessage", "stopPoll"))


def pace_args(bot: object, pace: Pace) -> dict[str, Any]:
    """Keyword arguments that give a Bot API call this pace. PERSON is the default and needs
    none; a bot without a rate limiter (a plain `telegram.Bot`) takes none."""
    if pace is Pace.PERSON or getattr(bot, "rate_limiter", None) is None:
        return {}
    return {"rate_limit_args": pace}


def retry_after_seconds(error: RetryAfter) -> float:
    """`retry_after` in seconds, whichever type this PTB version gives it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = error.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


class FloodGate(BaseRateLimiter[Pace]):
    """PTB's rate limiter: Telegram's flood limits kept ahead of time, people first."""

    def __init__(
        self,
        limits: FloodLimits | None = None,
        *,
        max_attempts: int = 5,
        max_retry_after: float = 60.0,
        metrics: Metrics | None = None,
    ) -> None:
        self.limits = limits or FloodLimits()
        group = self.limits.group
        if group is not None and self.limits.reserve >= capacity(group):
            raise ValueError("the reserve for people must leave a group some tokens")
        self.max_attempts = max_attempts
        self.max_retry_after = max_retry_after
        overall = self.limits.overall
        self._overall = TokenBucket(overall) if overall is not None else None
        self._chats: dict[int | str, TokenBucket] = {}
        #: The limits shared with other instances (None: this process's alone); set while the
        #: database is open (`bot.app.open_resources`).
        self.budget: SharedBudget | None = None
        # Calls short of the whole bot's shared tokens ask again one at a time.
        self._overall_turn = asyncio.Lock()
        #: Times each message's wait (None: metrics are off).
        self.metrics = metrics

    async def initialize(self) -> None:
        """Nothing to open: buckets are made as chats appear."""

    async def shutdown(self) -> None:
        """Stop the buckets' timers."""
        for bucket in [*self._chats.values(), self._overall]:
            if bucket is not None:
                bucket.cancel_timer()

    def waiting(self, chat_id: int | str) -> int:
        """Calls queued for a chat now (they wait for its bucket or the whole bot's)."""
        bucket = self._chats.get(chat_id)
        return bucket.waiting if bucket is not None else 0

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, JSONResult]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: Pace | None,
    ) -> JSONResult:
        """Send the call when its buckets allow; after a 429, close them and queue it again."""
        pace = rate_limit_args if isinstance(rate_limit_args, Pace) else Pace.PERSON
        buckets = self._buckets(endpoint, data, pace) if is_message(endpoint) else []
        # A call that waits (for its pace, another instance's tokens, a 429's retry_after) is
        # out of the update's shared slot from then until it is answered: a paced chat holds
        # no slot, and a call that holds its tokens never waits for one.
        away = _Away()
        call = functools.partial(callback, *args, **kwargs)
        chat_id = data.get("chat_id")
        return await away.until_done(self._send(call, endpoint, chat_id, pace, buckets, away))

    async def _send(
        self,
        call: Callable[[], Coroutine[Any, Any, JSONResult]],
        endpoint: str,
        chat_id: object,
        pace: Pace,
        buckets: list[TokenBucket],
        away: _Away,
    ) -> JSONResult:
        """Send the call when its buckets allow; after a 429, close them and queue it again."""
        attempt = 1
        metrics = self.metrics if buckets else None
        since = time.perf_counter() if metrics is not None else 0.0
        while True:
            if pace is not Pace.FRAME and not all(bucket.has_token(pace) for bucket in buckets):
                away.leave()
            await _take_all(buckets, pace)
            if buckets and self.budget is not None:
                await self._shared_token(self.budget, chat_id, pace, buckets, away)
            if metrics is not None:
                # Each try's wait: for its tokens, and before a try again for a 429's.
                now = time.perf_counter()
                metrics.flood_waited(_chat_kind(chat_id), PACE_NAMES[pace], now - since)
                since = now
            try:
                return await _counted(call(), buckets)
            except RetryAfter as error:
                delay = retry_after_seconds(error)
                if delay > self.max_retry_after or attempt >= self.max_attempts:
                    raise
            log.warning(
                "Bot API %s: 429 Too Many Requests; attempt %d of %d, again in %gs",
                endpoint,
                attempt,
                self.max_attempts,
                delay,
            )
            attempt += 1
            away.leave()
            if buckets:
                buckets[0].close_for(delay)  # the chat's bucket when there is one
            else:
                await asyncio.sleep(delay)

    async def _shared_token(
        self,
        budget: SharedBudget,
        chat_id: object,
        pace: Pace,
        buckets: list[TokenBucket],
        away: _Away,
    ) -> None:
        """A token from the limits every instance shares, once this process's are taken; a
        wait there is out of the update's slot. The local tokens go back if none comes (a
        frame finds no room, or the call is cancelled while it waits)."""
        try:
            shortfall = await budget.take(chat_id, pace)
            if shortfall is None:
                return
            if pace is Pace.FRAME:
                raise FrameSkipped
            away.leave()
            await self._wait_shared(budget, chat_id, pace, shortfall)
        except BaseException:
            for bucket in buckets:
                bucket.give_back()
            raise

    async def _wait_shared(
        self, budget: SharedBudget, chat_id: object, pace: Pace, shortfall: Shortfall | None
    ) -> None:
        loop = asyncio.get_running_loop()
        while shortfall is not None:
            due = loop.time() + shortfall.wait
            # Calls short of the whole bot's tokens take turns, or every one of them would ask
            # the database again at the same moment, and all but one in vain.
            turn = self._overall_turn if shortfall.limit is Limit.OVERALL else _NO_TURN
            async with turn:
                await asyncio.sleep(max(0.0, due - loop.time()))
                shortfall = await budget.take(chat_id, pace)

    def _buckets(self, endpoint: str, data: dict[str, Any], pace: Pace) -> list[TokenBucket]:
        """The buckets a message takes tokens from: its chat's, then, for what nobody is
        waiting for (background calls and frames), the whole bot's."""
        found = []
        chat_id = data.get("chat_id")
        if chat_id is not None:
            bucket = self._chat_bucket(chat_id)
            if bucket is not None:
                found.append(bucket)
        if self._overall is not None and pace.is_bulk:
            found.append(self._overall)
        return found

    def _chat_bucket(self, chat_id: object) -> TokenBucket | None:
        key, limit = chat_limit(chat_id)
        group = limit is Limit.GROUP
        rate = self.limits.rate(limit)
        if rate is None:
            return None
        bucket = self._chats.get(key)
        if bucket is None:
            if len(self._chats) >= MAX_IDLE_BUCKETS:
                self._chats = {k: b for k, b in self._chats.items() if not b.is_idle()}
            bucket = TokenBucket(rate, self.limits.reserve if group else 0)
            self._chats[key] = bucket
        return bucket


#: The label of each pace in the metrics.
PACE_NAMES = {pace: pace.name.lower() for pace in Pace}


def _chat_kind(chat_id: object) -> str:
    """A message's kind of chat, as the metrics name it: private, group, or inline (an inline
    message's edit names no chat)."""
    if chat_id is None:
        return "inline"
    return chat_limit(chat_id)[1].value


class _Away:
    """A call's absence from its update's shared slot: it leaves at most once, when it must
    wait, and comes back once the call is over (not when it is cancelled: the update is
    ending, and its slot with it)."""

    def __init__(self) -> None:
        self._slot = running_slot.get()
        self._out = False

    def leave(self) -> None:
        if not self._out and self._slot is not None and self._slot.step_out():
            self._out = True

    async def until_done(self, work: Coroutine[Any, Any, T]) -> T:
        """Await `work` (which may `leave`), then come back if it left."""
        try:
            result = await work
        except asyncio.CancelledError:
            raise
        except BaseException:
            await self._back()
            raise
        await self._back()
        return result

    async def _back(self) -> None:
        if self._out:
            self._out = False
            assert self._slot is not None
            await self._slot.step_in()


async def out_of_slot(work: Coroutine[Any, Any, T]) -> T:
    """Run `work`, mostly a wait, with the update's shared slot given back meanwhile, and
    take a slot again once it is done."""
    away = _Away()
    away.leave()
    return await away.until_done(work)


async def _counted(call: Coroutine[Any, Any, JSONResult], buckets: list[TokenBucket]) -> JSONResult:
    """The call's answer; its tokens are spent when it comes (or fails: it may have arrived),
    and given back after a 429, which Telegram did not count."""
    refused = False
    try:
        return await call
    except RetryAfter:
        refused = True
        raise
    finally:
        for bucket in buckets:
            if refused:
                bucket.give_back()
            else:
                bucket.spend()


async def _take_all(buckets: list[TokenBucket], pace: Pace) -> None:
    """A token from each bucket in turn; those taken go back if a later one is not had."""
    taken: list[TokenBucket] = []
    try:
        for bucket in buckets:
            await bucket.take(pace)
            taken.append(bucket)
    except BaseException:  # FrameSkipped, or cancelled while queued
        for bucket in taken:
            bucket.give_back()
        raise


__all__ = [
    "TELEGRAM_FLOOD_LIMITS",
    "FloodGate",
    "FloodLimits",
    "FrameSkipped",
    "Pace",
    "Rate",
    "SharedBudget",
    "is_message",
    "out_of_slot",
    "pace_args",
    "running_slot",
]
