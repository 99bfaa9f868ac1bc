"""The flood budget shared in the database (`bot.flood_budget`): its buckets on a real
database (a SQLite file, or PostgreSQL with TEST_DATABASE_URL), and two flood gates, two
"instances" each with an engine of its own, sending through one database to the fake Bot API
server, which answers 429 past Telegram's limits."""

from __future__ import annotations

import asyncio
import gc
import logging
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import event, select
from sqlalchemy.ext.asyncio import AsyncEngine
from telegram.ext import ExtBot

from bot import flood_budget
from bot.flood_budget import OVERALL_KEY, SharedBudget, shared
from bot.games.db.engine import create_engine
from bot.games.db.models import FloodBucket
from bot.telegram.flood_gate import TELEGRAM_FLOOD_LIMITS, FloodGate, FloodLimits, Pace, Rate
from bot.telegram.flood_limits import Limit, capacity
from tests.support.fake_telegram import FakeTelegram
from tests.support.time_scale import scaled_time

# PTB's own RetryAfter warns about its future type when it is made.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

GROUP = FakeTelegram.group_chat(-100321, "Busy group")
ALICE = FakeTelegram.user(4001, "Alice")
#: Refills so slow that nothing is refilled while a test runs.
SLOW = 1_000_000.0
#: Telegram's windows shortened 20 times: a group's 20 a minute is 20 in 3 s, a private chat's
#: one a second one in 50 ms (wide enough for a busy machine's jitter).
SCALE = 0.05
#: Messages each instance sends to the group and to Alice's private chat: together more than
#: Telegram's bursts (20 and 3), each alone less.
TO_GROUP, TO_ALICE = 12, 6


@pytest.fixture
async def engines(database_url: str) -> AsyncIterator[tuple[AsyncEngine, AsyncEngine]]:
    """Two engines on the test's database, as two instances would have."""
    pair = (create_engine(database_url), create_engine(database_url))
    try:
        yield pair
    finally:
        for engine in pair:
            await engine.dispose()


async def rows(engine: AsyncEngine) -> dict[str, float]:
    async with engine.connect() as connection:
        result = await connection.execute(select(FloodBucket.key, FloodBucket.tokens))
        return {key: tokens for key, tokens in result.all()}


async def test_a_shared_bucket_hands_out_its_burst_then_says_how_long_to_wait(
    engines: tuple[AsyncEngine, AsyncEngine],
) -> None:
    limits = FloodLimits(overall=Rate(30, SLOW), group=Rate(20, 60.0), private=None, reserve=3)
    first, second = (SharedBudget(engine, limits) for engine in engines)
    taken = 0
    while await (first if taken % 2 else second).take(GROUP["id"], Pace.PERSON) is None:
        taken += 1
    assert taken == capacity(Rate(20, 60.0)) == 19  # the burst less a spare, for both at once
    assert shared(Rate(30, 1.0)) == 23  # the whole bot's: less what 0.2 s of flight refills
    shortfall = await first.take(GROUP["id"], Pace.PERSON)
    assert shortfall is not None and shortfall.limit is Limit.GROUP
    assert 0 < shortfall.wait <= 3.0  # a token every 3 s
    # What people wait for takes nothing from the whole bot's bucket ("there is no global
    # limit on the number of sent messages for bots", tdlib/td#3034).
    assert OVERALL_KEY not in await rows(engines[0])
    # Background calls (to private chats, not limited here) share the whole bot's bucket.
    for _ in range(29):
        assert await second.take(ALICE["id"], Pace.BACKGROUND) is None
    shortfall = await first.take(ALICE["id"], Pace.BACKGROUND)
    assert shortfall is not None and shortfall.limit is Limit.OVERALL


async def test_background_calls_leave_a_shared_groups_reserve_to_people(
    engines: tuple[AsyncEngine, AsyncEngine],
) -> None:
    limits = FloodLimits(overall=None, group=Rate(1, SLOW, burst=6), private=None, reserve=2)
    first, second = (SharedBudget(engine, limits) for engine in engines)
    assert await first.take(GROUP["id"], Pace.BACKGROUND) is None
    assert await second.take(GROUP["id"], Pace.BACKGROUND) is None
    assert await first.take(GROUP["id"], Pace.BACKGROUND) is None
    assert await second.take(GROUP["id"], Pace.BACKGROUND) is not None  # 2 left: people's
    assert await second.take(GROUP["id"], Pace.PERSON) is None
    assert await first.take(GROUP["id"], Pace.PERSON) is None
    assert await first.take(GROUP["id"], Pace.PERSON) is not None


async def test_instances_taking_at_once_never_share_out_more_than_the_burst(
    engines: tuple[AsyncEngine, AsyncEngine],
) -> None:
    limits = FloodLimits(overall=Rate(1, SLOW, burst=13), group=None, private=None, reserve=0)
    budgets = [SharedBudget(engine, limits) for engine in engines]
    results = await asyncio.gather(
        *(budgets[i % 2].take(GROUP["id"], Pace.BACKGROUND) for i in range(40))
    )
    assert sum(result is None for result in results) == 12


async def test_a_crowd_of_messages_waits_its_turn_not_the_timeout(
    engines: tuple[AsyncEngine, AsyncEngine],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The timeout is the database's time for one take, not a queue's: 300 messages at once on
    two instances (each take locks the whole bot's row) once made the last of them wait past
    it, and their instance then paced alone, as if the database were down. The product's own
    timeout: a shorter one made a single take under CI's load look like the database away (without
    the one-at-a-time turn, this fails at 2 s too)."""
    limits = FloodLimits(overall=Rate(1, SLOW, burst=1000), group=None, private=None, reserve=0)
    budgets = [SharedBudget(engine, limits) for engine in engines]
    with caplog.at_level(logging.WARNING, logger="bot.flood_budget"):
        results = await asyncio.gather(
            *(budgets[i % 2].take(ALICE["id"], Pace.BACKGROUND) for i in range(300))
        )
    assert results == [None] * 300
    assert [r.getMessage() for r in caplog.records if r.name == flood_budget.__name__] == []
    assert (await rows(engines[0]))[OVERALL_KEY] == pytest.approx(999 - 300, abs=0.01)


async def send_all(bot: ExtBot, chat_id: int, count: int, name: str) -> None:
    await asyncio.gather(
        *(bot.send_message(chat_id, f"{name} {i}") for i in range(count))  # type: ignore[misc]
    )


async def two_instances_send(
    fake: FakeTelegram, limits: FloodLimits, engines: tuple[AsyncEngine, AsyncEngine] | None
) -> float:
    """Two bots, each with a flood gate (sharing the engines' database when given), send
    `TO_GROUP` messages to the group and `TO_ALICE` to Alice at once; the seconds it took."""
    bots = []
    for i in range(2):
        gate = FloodGate(limits)
        if engines is not None:
            gate.budget = SharedBudget(engines[i], limits)
        bots.append(ExtBot(fake.token, base_url=fake.base_url, rate_limiter=gate))
    for bot in bots:
        await bot.initialize()
    started = time.monotonic()
    try:
        await asyncio.gather(
            *(send_all(bot, GROUP["id"], TO_GROUP, f"group {i}") for i, bot in enumerate(bots)),
            *(send_all(bot, ALICE["id"], TO_ALICE, f"alice {i}") for i, bot in enumerate(bots)),
        )
    finally:
        for bot in bots:
            await bot.shutdown()
    return time.monotonic() - started


@pytest.fixture
async def strict_fake() -> AsyncIterator[FakeTelegram]:
    """The fake with Telegram's limits for groups, private chats and the whole bot, on windows
    `SCALE` times Telegram's."""
    with scaled_time(SCALE):
        async with FakeTelegram() as fake:
            fake.enforce_flood_limits(private=(1, 1.0, 3))
            fake.add_chat(GROUP)
            fake.add_chat(FakeTelegram.private_chat(ALICE))
            yield fake


async def test_two_gates_sharing_a_database_send_no_faster_than_one(
    strict_fake: FakeTelegram,
    engines: tuple[AsyncEngine, AsyncEngine],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limits = TELEGRAM_FLOOD_LIMITS.scaled(SCALE)
    # (How fast they went is the benchmark's to say, `bench/flood_budget.py`: no timed
    # assertion here. A stall would end in the test's timeout, with the calls unsent.)
    # What is counted, not when the database answers: on a host loaded far past its cores,
    # a take on the shared SQLite file passed the 2 s timeout, and its instance paced alone
    # into a 429 (the fallback has a test of its own, below).
    monkeypatch.setattr(flood_budget, "TAKE_TIMEOUT", 30.0)
    await two_instances_send(strict_fake, limits, engines)
    sent = [c for c in strict_fake.calls if c.method == "sendMessage" and c.ok]
    assert strict_fake.too_many_requests == []
    assert len(sent) == 2 * (TO_GROUP + TO_ALICE)


async def test_without_the_shared_budget_two_gates_are_refused(
    strict_fake: FakeTelegram,
) -> None:
    # The test above is not kind by chance: the same load without the budget gets 429s.
    await two_instances_send(strict_fake, TELEGRAM_FLOOD_LIMITS.scaled(SCALE), None)
    assert strict_fake.too_many_requests


async def test_a_database_out_of_reach_leaves_the_local_gate_and_one_warning(
    strict_fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'no such folder' / 'bot.sqlite3'}")
    limits = TELEGRAM_FLOOD_LIMITS.scaled(SCALE)
    gate = FloodGate(limits)
    gate.budget = SharedBudget(engine, limits)
    bot = ExtBot(strict_fake.token, base_url=strict_fake.base_url, rate_limiter=gate)
    await bot.initialize()
    try:
        with caplog.at_level(logging.WARNING, logger="bot.flood_budget"):
            await send_all(bot, GROUP["id"], 10, "still sent")
    finally:
        await bot.shutdown()
        await engine.dispose()
    assert len([c for c in strict_fake.calls if c.method == "sendMessage" and c.ok]) == 10
    warnings = [r for r in caplog.records if r.name == "bot.flood_budget"]
    assert len(warnings) == 1, warnings
    assert "does not answer" in warnings[0].getMessage()


@pytest.mark.parametrize("cut_short_by", ["the take's timeout", "a cancellation"])
async def test_a_take_cut_short_in_its_upsert_leaves_the_file_unlocked(
    cut_short_by: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The take's upsert waits for the file's write lock (another writer holds it) and is cut
    short there: by its timeout, or by a stopping bot cancelling the message's task. SQLAlchemy
    ends that connection as broken, by closing it, while the upsert (… RETURNING), still
    running on aiosqlite's thread, takes the lock and its first row. SQLite puts off closing a
    connection with a statement not yet finished (its cursor lives on, in the cancellation's
    traceback, until the garbage collector frees it, which the running bot makes rare): the
    transaction, and the file's write lock, stayed with it, and a restarted bot's first write
    waited 30 s for it, then failed "database is locked"."""
    path = tmp_path / "bot.sqlite3"
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    async with engine.begin() as connection:
        await connection.run_sync(FloodBucket.metadata.create_all, tables=[FloodBucket.__table__])
    monkeypatch.setattr(flood_budget, "TAKE_TIMEOUT", 0.5 if "timeout" in cut_short_by else 60.0)
    budget = SharedBudget(engine, TELEGRAM_FLOOD_LIMITS)
    assert await budget.take(GROUP["id"], Pace.PERSON) is None  # the pool holds a connection
    upserting, given_up = asyncio.Event(), asyncio.Event()
    event.listen(engine.sync_engine, "before_cursor_execute", lambda *_: upserting.set())
    event.listen(engine.sync_engine, "invalidate", lambda *_: given_up.set())
    other = sqlite3.connect(path, timeout=2.0, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another writer's transaction
    collecting = gc.isenabled()
    gc.disable()  # the garbage collector runs seldom in a running bot (`bot.app.GC_THRESHOLDS`)
    try:
        taking = asyncio.create_task(budget.take(GROUP["id"], Pace.PERSON))
        await asyncio.wait_for(upserting.wait(), 10)
        if "cancellation" in cut_short_by:
            taking.cancel()
        await asyncio.wait_for(given_up.wait(), 10)  # the connection is being closed
        other.execute("ROLLBACK")  # the upsert goes on, and takes the lock
        if "cancellation" in cut_short_by:
            with pytest.raises(asyncio.CancelledError):
                await taking
        else:
            assert await taking is None  # the message goes under the local gate alone
        await engine.dispose()
        # No connection of the engine's is left in a transaction: the file takes a write.
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
    finally:
        other.close()
        if collecting:
            gc.enable()
