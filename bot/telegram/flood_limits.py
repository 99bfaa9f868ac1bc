"""Telegram's flood limits, the token bucket that keeps one, and the paces calls queue by.

Each bucket holds up to the burst Telegram tolerates less one spare token, and refills at
Telegram's rate. A call holds its token while it is in flight, and the bucket counts it as spent
only from its answer on: Telegram counted it somewhere in between, and a busy host or a slow
network can make calls that left here well apart arrive at Telegram together. Counting each at
the latest moment it can have arrived keeps the bucket no more generous than Telegram's, however
late the calls arrive; the spare token is a margin for what Telegram does not document.

A bucket's queue is ordered by pace, then by arrival:

* `Pace.PERSON` (every call that names no pace): someone is waiting for it, e.g. the edit
  after a tap. It goes before every waiting background call.
* `Pace.BACKGROUND` (the final board of an AI match, turn-clock nudges): after every person,
  and in a group never out of the last `reserve` tokens, which stay for people. So in a group
  where four AI matches play, a tap is edited at once, not after the matches' queue.
* `Pace.FRAME`: background that would rather not wait. When its chat has no token for it now,
  it is not queued at all but raises `FrameSkipped`; the AI match shows a later frame instead
  (the board jumps two moves), and its final board always comes, as BACKGROUND.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import math
import time
from dataclasses import dataclass, replace
from enum import Enum, StrEnum

#: Tokens a bucket keeps below Telegram's burst, as a margin.
SPARE_TOKENS = 1


class Pace(Enum):
    """How urgent a Bot API call is; pass it as `rate_limit_args` (`PERSON` when none is)."""

    PERSON = 0
    BACKGROUND = 1
    FRAME = 2

    @property
    def is_bulk(self) -> bool:
        """Whether nobody waits for it (nudges, notices, announcements, AI-match boards): only
        such calls count in the whole bot's limit, the FAQ's 30 a second for broadcasts."""
        return self is not Pace.PERSON


class Limit(Enum):
    """Which of Telegram's flood limits a bucket keeps."""

    OVERALL = "overall"
    GROUP = "group"
    PRIVATE = "private"


class Sharing(StrEnum):
    """Where the flood limits are counted (FLOOD_BUDGET): by each process for itself
    (`LOCAL`), or in the database for every instance together (`SHARED`,
    `bot.flood_budget`); `AUTO` shares on PostgreSQL, not on SQLite."""

    AUTO = "auto"
    SHARED = "shared"
    LOCAL = "local"

    @classmethod
    def read(cls, value: object) -> object:
        """FLOOD_BUDGET's text (any case) as a `Sharing`; anything else as it is."""
        if not isinstance(value, str):
            return value
        if value.strip().lower() not in tuple(cls):
            raise ValueError(f"FLOOD_BUDGET must be auto, shared or local, not {value.strip()!r}.")
        return cls(value.strip().lower())

    def shares_on(self, dialect: str) -> bool:
        """Whether the limits are counted in a database of this SQLAlchemy dialect."""
        return self is Sharing.SHARED or (self is Sharing.AUTO and dialect == "postgresql")


@dataclass(frozen=True)
class Shortfall:
    """No token now in a bucket the call needs: the seconds until there is one, and which
    limit is short."""

    wait: float
    limit: Limit


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
    """Telegram's flood limits: per group, per private chat, and for the whole bot's
    background calls, broadcasts and notices (None: not limited); and the tokens of a group's
    bucket that background calls leave to people."""

    overall: Rate | None = Rate(30, 1.0)
    group: Rate | None = Rate(20, 60.0)
    private: Rate | None = Rate(1, 1.0, burst=3)
    reserve: int = 3

    @classmethod
    def unlimited(cls) -> FloodLimits:
        """No pacing at all (a fake Bot API server that sets no limits)."""
        return cls(overall=None, group=None, private=None, reserve=0)

    def rate(self, limit: Limit) -> Rate | None:
        """The rate of one limit (None: not limited)."""
        return {Limit.OVERALL: self.overall, Limit.GROUP: self.group, Limit.PRIVATE: self.private}[
            limit
        ]

    def scaled(self, factor: float) -> FloodLimits:
        """The same counts and bursts over windows `factor` times as long (tests shorten
        Telegram's minute this way; the counts the bot must keep to stay the same)."""

        def scale(rate: Rate | None) -> Rate | None:
            return None if rate is None else replace(rate, seconds=rate.seconds * factor)

        return replace(
            self,
            overall=scale(self.overall),
            group=scale(self.group),
            private=scale(self.private),
        )


#: What Telegram allows: the production setting.
TELEGRAM_FLOOD_LIMITS = FloodLimits()


def chat_limit(chat_id: object) -> tuple[int | str, Limit]:
    """A chat's key (its id as a number where it is one) and the limit its messages count in:
    groups and channels have negative ids or are named by @username."""
    key: int | str = str(chat_id)
    with contextlib.suppress(ValueError):
        key = int(key)
    group = isinstance(key, str) or key < 0
    return key, Limit.GROUP if group else Limit.PRIVATE


def capacity(rate: Rate) -> float:
    """The tokens a bucket for this rate holds: the burst less the spare ones."""
    return float(max(1, rate.size - SPARE_TOKENS))


class TokenBucket:
    """One flood limit: tokens refilled at a rate, handed out by pace, then by arrival."""

    _arrivals = itertools.count()

    def __init__(self, rate: Rate, reserve: int = 0) -> None:
        self.capacity = capacity(rate)
        if reserve >= self.capacity:
            raise ValueError(f"a reserve of {reserve} leaves no token of {self.capacity:g}")
        self._rate = rate.per_second
        self._reserve = reserve
        self._level = self.capacity  # counting only the calls already answered
        self._stamp = _now()
        self._in_flight = 0  # tokens taken by calls not answered yet
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
        return not self.waiting and not self._in_flight and self._level >= self.capacity

    async def take(self, pace: Pace) -> None:
        """Wait for a token (FRAME: take one now or raise `FrameSkipped`)."""
        rank = min(pace.value, Pace.BACKGROUND.value)
        if self.has_token(pace):
            self._in_flight += 1
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
        """Return a token that was taken but not used (or refused by Telegram: 429)."""
        self._in_flight -= 1
        self._pump()

    def spend(self) -> None:
        """The call that took a token is answered: Telegram has counted it by now, so the
        bucket refills for it from now on, not from when it left."""
        self._in_flight -= 1
        self._refill(_now())
        self._level -= 1
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
        """Seconds until a call of this rank may take a token (0: now; infinity: not before
        a call in flight is answered)."""
        if now < self._closed_until:
            return self._closed_until - now
        self._refill(now)
        needed = 1 + (self._reserve if rank >= Pace.BACKGROUND.value else 0) + self._in_flight
        if needed > self.capacity:
            return math.inf
        return max(0.0, (needed - self._level) / self._rate)

    def _pump(self) -> None:
        """Hand tokens to the waiters in order; set a timer for the first that must wait."""
        self.cancel_timer()
        now = _now()
        while (head := self._head()) is not None:
            delay = self._delay(head[0], now)
            if delay > 0:
                if delay < math.inf:  # else an answer pumps again
                    self._timer = asyncio.get_running_loop().call_later(delay, self._pump)
                return
            heapq.heappop(self._waiters)
            self._in_flight += 1
            head[2].set_result(None)


def _now() -> float:
    # The event loop's clock (timers are set on it), readable before a loop runs.
    return time.monotonic()
