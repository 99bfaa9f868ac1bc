"""One flood budget for every instance: Telegram's flood limits counted in the database.

Each process's `FloodGate` counts only its own calls. Two instances of the bot (webhook mode
behind a load balancer: one token, one database) together sent twice as fast as Telegram
allows: a probe of two instances, under a load one instance held without a single 429, got
283 answers 429 (15% of its sends and edits). So a message that has its local tokens takes one
more, before it goes out, from the same limits kept in the database for all instances: its
chat's bucket and the whole bot's. N instances then send no faster than one.

Why the database and not Redis: every instance already has the database (the games live
there), so there is no new service to run, secure and watch, and nothing more to configure.
And it is fast enough: a token costs 2.1 ms on PostgreSQL and 2.6 ms on a SQLite file
(`bench/flood_budget.py`, medians of 300 on two shared cores), while Telegram lets a bot send
one message every 33 ms (30 a second). Redis is the answer for thousands of messages a
second; a bot held to 30 has no use for them.

How a token is taken, in one transaction:

1. One upsert refills the buckets the message counts in (its chat's, the whole bot's; a
   missing row is made full): `tokens = least(capacity, tokens + elapsed × rate)`, `elapsed`
   read from the database's own clock (PostgreSQL's `clock_timestamp()`, SQLite's
   `julianday('now')`), so instances on machines whose clocks disagree count one time. It
   locks both rows (always in key order: no deadlock) until the commit; on SQLite the write
   locks the file.
2. If every bucket holds the tokens the message needs (one; in a group a background call
   leaves the `reserve` to people, as the local gate does), each loses one. If not, nothing
   is taken: the gate waits `(needed - tokens) / rate` seconds and asks again.

The buckets refill at the local ones' rates, scaled or not (`FloodLimits.scaled`), and hold a
little less: Telegram's burst less the spare token, less the whole tokens they refill in
`FLIGHT_MARGIN` (the whole bot's 23, not 29; a chat's as many as locally). A shared bucket
counts a message when it leaves, while Telegram counts it when it arrives; the local one counts
it from its answer on, which no instance can do for another's calls without a count of calls in
flight that a crash would leave wrong. The margin is what a message may take to arrive: without
it, two instances whose first messages after a quiet spell took 60 ms to reach the fake server
had a 429 in three runs of four on PostgreSQL (the bucket had refilled while Telegram's, still
full, could not). A message slower than that can still meet a 429, which the gate waits out as
before.

FLOOD_BUDGET (`Sharing`) is `auto` by default: shared on PostgreSQL, the database of hosts
that run several instances; local on SQLite, where a file is one host's and nearly always one
process's, and a shared token would only add a write (a lock of the whole file) to every
message. `shared` turns it on for two processes on one SQLite file (the tests do so); `local`
turns it off.

An instance takes its tokens one at a time: every message locks the whole bot's row, so takes
in parallel would only queue there and for pooled connections, and the last of a crowd waited
past the timeout as if the database were down. When the database does not answer (an error,
or no answer to one take within `TAKE_TIMEOUT`), messages go on under the local gate alone:
one WARNING, then the database is asked again every `RETRY_SECONDS`; one INFO line when it
answers again. A row untouched for an hour is a full bucket, the same as no row: each
instance deletes those now and then.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from dataclasses import dataclass

from bot.games.db.engine import DatabaseEngine, StorageError
from bot.games.db.flood_buckets import BucketWant, FloodBuckets
from bot.telegram.flood_limits import (
    FloodLimits,
    Limit,
    Pace,
    Rate,
    Shortfall,
    capacity,
    chat_limit,
)
from bot.telemetry.metrics import Metrics

log = logging.getLogger(__name__)

#: How long taking a token may wait for the database before the message goes without it.
TAKE_TIMEOUT = 2.0
#: After the database failed, how long messages go under the local gate alone before it is
#: asked again.
RETRY_SECONDS = 10.0
#: A bucket untouched this long is full (Telegram's longest window is a minute): its row goes.
IDLE_SECONDS = 3600.0
#: How often an instance deletes the rows of idle buckets.
SWEEP_SECONDS = 600.0
#: How long a message may take to reach Telegram: the shared buckets hold what they refill in
#: this time less than the local ones.
FLIGHT_MARGIN = 0.2
#: The key of the whole bot's bucket; a chat's is `chat:<id>`.
OVERALL_KEY = "bot"


@dataclass(frozen=True)
class Want:
    """A token a message needs from one shared bucket."""

    key: str
    limit: Limit
    rate: float  # tokens a second
    capacity: float
    needed: float  # tokens the bucket must hold for this message to take one


def shared(rate: Rate) -> float:
    """The tokens a shared bucket for this rate holds: the local bucket's, less the whole tokens
    it refills in `FLIGHT_MARGIN` (the spare token covers the rest), and at least one."""
    return max(1.0, capacity(rate) - math.floor(rate.per_second * FLIGHT_MARGIN))


class SharedBudget:
    """Telegram's flood limits in the database, shared by every instance on it."""

    def __init__(
        self, engine: DatabaseEngine, limits: FloodLimits, metrics: Metrics | None = None
    ) -> None:
        self.engine = engine
        self.limits = limits
        self._buckets = FloodBuckets(engine)
        self._down_until = 0.0  # the local gate alone until then (monotonic)
        self._warned = False
        self._swept_at = time.monotonic()
        self._turn = asyncio.Lock()
        #: Counts the messages that went without it (None: metrics are off).
        self.metrics = metrics

    async def take(self, chat_id: object | None, pace: Pace) -> Shortfall | None:
        """A token from the chat's bucket (None: an inline message, none) and the whole bot's,
        or what is short (nothing is taken then). None too when the database does not answer:
        the message goes under the local gate alone."""
        wants = self.wants(chat_id, pace)
        if not wants:
            return None
        async with self._turn:  # one at a time: see the module's docstring
            now = time.monotonic()
            if now < self._down_until:
                self._fell_back()
                return None
            try:
                async with asyncio.timeout(TAKE_TIMEOUT):
                    shortfall = await self._take(wants)
                    if now - self._swept_at > SWEEP_SECONDS:
                        self._swept_at = now
                        await self._buckets.sweep(IDLE_SECONDS)
            except (StorageError, OSError, TimeoutError) as error:
                self._failed(error)
                self._fell_back()
                return None
        if self._warned:
            self._warned = False
            log.info("the shared flood budget answers again: every instance counts in it")
        return shortfall

    def wants(self, chat_id: object | None, pace: Pace) -> list[Want]:
        """The shared buckets a message of this chat and pace takes a token from, by key."""
        found = []
        if chat_id is not None:
            key, limit = chat_limit(chat_id)
            rate = self.limits.rate(limit)
            if rate is not None:
                reserve = self.limits.reserve if limit is Limit.GROUP else 0
                needed = 1 + (reserve if pace is not Pace.PERSON else 0)
                found.append(Want(f"chat:{key}", limit, rate.per_second, shared(rate), needed))
        overall = self.limits.overall
        if overall is not None and pace.is_bulk:
            found.append(Want(OVERALL_KEY, Limit.OVERALL, overall.per_second, shared(overall), 1))
        return sorted(found, key=lambda want: want.key)

    async def _take(self, wants: list[Want]) -> Shortfall | None:
        levels = await self._buckets.take(
            [BucketWant(want.key, want.rate, want.capacity, want.needed) for want in wants]
        )
        if levels is None:
            return None
        short = [
            Shortfall((want.needed - levels[want.key]) / want.rate, want.limit)
            for want in wants
            if levels[want.key] < want.needed
        ]
        return max(short, key=lambda shortfall: shortfall.wait)

    def _fell_back(self) -> None:
        """A message goes under the local gate alone: counted."""
        if self.metrics is not None:
            self.metrics.flood_budget_fallbacks.inc()

    def _failed(self, error: BaseException) -> None:
        self._down_until = time.monotonic() + RETRY_SECONDS
        if self._warned:
            return
        self._warned = True
        first_line = str(error).strip().splitlines()[:1] or [type(error).__name__]
        log.warning(
            "the shared flood budget does not answer (%s): this instance paces its messages "
            "alone, and asks the database again every %gs",
            first_line[0],
            RETRY_SECONDS,
        )
