"""Pacing the bot's messages ahead of Telegram's flood limits, people first.

Telegram lets a bot send about 30 messages a second in all, about one a second in one private
chat (short bursts tolerated) and 20 a minute in one group; an edit counts like a send. A bot
that goes faster is answered 429 "retry after N", with growing penalties. `FloodGate` is PTB's
rate-limiter hook (`ApplicationBuilder.rate_limiter`): every Bot API call but getUpdates passes
through `process_request`. A call that posts or edits a message takes a token from its chat's
bucket, then one from the whole bot's bucket, before it goes out. Everything else (answers to
taps and inline queries, get/set/delete calls, chat actions) goes at once: those are not
messages.

Each bucket is a token bucket: it holds up to the burst Telegram tolerates less one token, and
refills at Telegram's rate. The spare token is a margin for the network: a request that leaves
here a moment late reaches Telegram next to the following one, and one token covers any delay
shorter than a refill (3 s in a group).

A bucket's queue is ordered by pace, then by arrival:

* `Pace.PERSON` (every call that names no pace): someone is waiting for it, e.g. the edit
  after a tap. It goes before every waiting background call.
* `Pace.BACKGROUND` (the final board of an AI match, turn-clock nudges): after every person,
  and in a group never out of the last `reserve` tokens, which stay for people. So in a group
  where four AI matches play, a tap is edited at once, not after the matches' queue.
* `Pace.FRAME`: background that would rather not wait. When its chat has no token for it now,
  it is not queued at all but raises `FrameSkipped`; the AI match shows a later frame instead
  (the board jumps two moves), and its final board always comes, as BACKGROUND.

A 429 that comes all the same (Telegram is stricter than we know, or another process sends as
the same bot) closes the chat's bucket for `retry_after` seconds, so nothing else is sent
there meanwhile, and the request queues again at its pace. The Bot API request class is told
not to wait out 429s itself (`RetryingRequest(retry_flood_limits=False)`): nothing waits twice.

A handler whose message must wait for its chat's pace is doing no work meanwhile, so it gives
back the shared slot its update holds (`running_slot`, set by the update processor,
`bot.update_lanes`) while it waits, and takes one again before it goes on: a chat that is paced
keeps no other chat's update waiting for a slot.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import time
import warnings
from collections.abc import Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from enum import Enum
from typing import Any, Protocol

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter
from telegram.warnings import PTBDeprecationWarning

log = logging.getLogger(__name__)

#: Tokens a bucket keeps below Telegram's burst, as a margin for network delays.
SPARE_TOKENS = 1
#: Buckets kept for idle chats before the full, idle ones are forgotten.
MAX_IDLE_BUCKETS = 1000

JSONResult = bool | dict[str, Any] | list[dict[str, Any]]


class Slot(Protocol):
    """The share of the bot's running updates that the update being handled holds."""

    def step_out(self) -> bool:
        """Give the slot back while the handler only waits; False when this task holds none."""
        ...

    async def step_in(self) -> None:
        """Take a slot again, after `step_out` gave it back."""
        ...


#: The slot of the update this task handles (None: no update, e.g. an AI match's task).
running_slot: ContextVar[Slot | None] = ContextVar("running_slot", default=None)


class Pace(Enum):
    """How urgent a Bot API call is; pass it as `rate_limit_args` (`PERSON` when none is)."""

    PERSON = 0
    BACKGROUND = 1
    FRAME = 2


class FrameSkipped(Exception):
    """A `Pace.FRAME` call found no token for it: it was not sent."""


@dataclass(frozen=True)
class Rate:
    """`count` messages per `seconds`, up to `burst` of them at once (default: `count`)."""

    count: float
    seconds: float
    burst: int | None = None

    @property
    def per_second(self) -> float:
        return self.count / self.seconds

    @property
    def size(self) -> int:
        return self.burst if self.burst is not None else max(1, int(self.count))


@dataclass(frozen=True)
class FloodLimits:
    """Telegram's flood limits: in all, per group, per private chat (None: not limited), and
    the tokens of a group's bucket that background calls leave to people."""

    overall: Rate | None = Rate(30, 1.0)
    group: Rate | None = Rate(20, 60.0)
    private: Rate | None = Rate(1, 1.0, burst=3)
    reserve: int = 3

    @classmethod
    def unlimited(cls) -> FloodLimits:
        """No pacing at all (a fake Bot API server that sets no limits)."""
        return cls(overall=None, group=None, private=None, reserve=0)


#: What Telegram allows: the production setting.
TELEGRAM_FLOOD_LIMITS = FloodLimits()


def is_message(endpoint: str) -> bool:
    """Whether a Bot API method posts or edits a message (what the flood limits count)."""
    if endpoint == "sendChatAction":
        return False
    return endpoint.startswith(("send", "edit", "copyMessage", "forwardMessage", "stopPoll"))


def capacity(rate: Rate) -> float:
    """The tokens a bucket for this rate holds: the burst less the spare ones."""
    return float(max(1, rate.size - SPARE_TOKENS))


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


class TokenBucket:
    """One flood limit: tokens refilled at a rate, handed out by pace, then by arrival."""

    _arrivals = itertools.count()

    def __init__(self, rate: Rate, reserve: int = 0) -> None:
        self.capacity = capacity(rate)
        if reserve >= self.capacity:
            raise ValueError(f"a reserve of {reserve} leaves no token of {self.capacity:g}")
        self._rate = rate.per_second
        self._reserve = reserve
        self._level = self.capacity
        self._stamp = _now()
        self._closed_until = 0.0
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []
        self._timer: asyncio.TimerHandle | None = None

    @property
    def waiting(self) -> int:
        """Calls queued here now."""
        return sum(1 for *_, future in self._waiters if not future.done())

    def is_idle(self) -> bool:
        """Full and nobody waiting: forgetting it changes nothing."""
        self._refill(_now())
        return not self.waiting and self._level >= self.capacity

    async def take(self, pace: Pace) -> None:
        """Wait for a token (FRAME: take one now or raise `FrameSkipped`)."""
        rank = min(pace.value, Pace.BACKGROUND.value)
        if self.has_token(pace):
            self._level -= 1
            return
        if pace is Pace.FRAME:
            raise FrameSkipped
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (rank, next(self._arrivals), future))
        self._pump()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.give_back()  # granted, then cancelled: the token was never used
            raise

    def has_token(self, pace: Pace) -> bool:
        """Whether a call of this pace would take a token now, without waiting."""
        rank = min(pace.value, Pace.BACKGROUND.value)
        head = self._head()
        return (head is None or head[0] > rank) and self._delay(rank, _now()) <= 0

    def give_back(self) -> None:
        """Return a token that was taken but not used."""
        self._level = min(self.capacity, self._level + 1)
        self._pump()

    def close_for(self, seconds: float) -> None:
        """Telegram said 429: nothing more for `seconds`, then one token to start again."""
        now = _now()
        self._closed_until = max(self._closed_until, now + seconds)
        self._level, self._stamp = 1.0, self._closed_until
        self._pump()

    def cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _head(self) -> tuple[int, int, asyncio.Future[None]] | None:
        while self._waiters and self._waiters[0][2].done():
            heapq.heappop(self._waiters)  # cancelled while waiting
        return self._waiters[0] if self._waiters else None

    def _refill(self, now: float) -> None:
        if now > self._stamp:
            self._level = min(self.capacity, self._level + (now - self._stamp) * self._rate)
            self._stamp = now

    def _delay(self, rank: int, now: float) -> float:
        """Seconds until a call of this rank may take a token (0: now)."""
        if now < self._closed_until:
            return self._closed_until - now
        self._refill(now)
        needed = 1 + (self._reserve if rank >= Pace.BACKGROUND.value else 0)
        return max(0.0, (needed - self._level) / self._rate)

    def _pump(self) -> None:
        """Hand tokens to the waiters in order; set a timer for the first that must wait."""
        self.cancel_timer()
        now = _now()
        while (head := self._head()) is not None:
            delay = self._delay(head[0], now)
            if delay > 0:
                self._timer = asyncio.get_running_loop().call_later(delay, self._pump)
                return
            heapq.heappop(self._waiters)
            self._level -= 1
            head[2].set_result(None)


class FloodGate(BaseRateLimiter[Pace]):
    """PTB's rate limiter: Telegram's flood limits kept ahead of time, people first."""

    def __init__(
        self,
        limits: FloodLimits | None = None,
        *,
        max_attempts: int = 5,
        max_retry_after: float = 60.0,
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
        buckets = self._buckets(endpoint, data) if is_message(endpoint) else []
        attempt = 1
        while True:
            await _wait_for_tokens(buckets, pace)
            try:
                return await callback(*args, **kwargs)
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
            if buckets:
                buckets[0].close_for(delay)  # the chat's bucket when there is one
            else:
                await asyncio.sleep(delay)

    def _buckets(self, endpoint: str, data: dict[str, Any]) -> list[TokenBucket]:
        """The buckets a message takes tokens from: its chat's, then the whole bot's."""
        found = []
        chat_id = data.get("chat_id")
        if chat_id is not None:
            bucket = self._chat_bucket(chat_id)
            if bucket is not None:
                found.append(bucket)
        if self._overall is not None:
            found.append(self._overall)
        return found

    def _chat_bucket(self, chat_id: object) -> TokenBucket | None:
        key: int | str = str(chat_id)
        with contextlib.suppress(ValueError):
            key = int(key)
        # Groups and channels have negative ids or are named by @username.
        group = isinstance(key, str) or key < 0
        rate = self.limits.group if group else self.limits.private
        if rate is None:
            return None
        bucket = self._chats.get(key)
        if bucket is None:
            if len(self._chats) >= MAX_IDLE_BUCKETS:
                self._chats = {k: b for k, b in self._chats.items() if not b.is_idle()}
            bucket = TokenBucket(rate, self.limits.reserve if group else 0)
            self._chats[key] = bucket
        return bucket


async def _wait_for_tokens(buckets: list[TokenBucket], pace: Pace) -> None:
    """A token from each bucket; out of the update's shared slot while that means waiting."""
    slot = running_slot.get()
    must_wait = pace is not Pace.FRAME and not all(b.has_token(pace) for b in buckets)
    if slot is None or not must_wait or not slot.step_out():
        await _take_all(buckets, pace)
        return
    await _take_all(buckets, pace)
    await slot.step_in()


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


def _now() -> float:
    # The event loop's clock (timers are set on it), readable before a loop runs.
    return time.monotonic()
