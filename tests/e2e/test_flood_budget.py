"""Two bot processes in webhook mode on one database count Telegram's flood limits together
(FLOOD_BUDGET=shared, `bot.flood_budget`): under a load one instance holds without a
429, two instances sharing it get none either.

Both are real `python -m bot` processes on the test's database (a SQLite file, or PostgreSQL
with TEST_DATABASE_URL), with Telegram's own flood limits, against a fake Bot API server that
enforces the same on Telegram's clock: 30 messages a second in all, one a second in a private
chat (bursts of 3), 20 a minute in a group. The test posts the updates alternately to the two
instances, as a load balancer would: more than the whole bot's burst of `/help`s from
strangers, four from one person, and more than a group's burst from the group. Each instance
alone would send its half at once, within every limit; the two together exceed each of them.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.support.fake_telegram import FakeTelegram
from tests.support.processes import WebhookBot, post_update
from tests.support.time_scale import TELEGRAM_CLOCK

# Every test here runs `python -m bot` as a process.
pytestmark = pytest.mark.process

SECRET = "shared_Secret-of-both-instances"
WAIT = 20.0  # generous: a wait only takes this long when something is broken
#: The group's 22 replies: its burst of 19 (20 less a spare), then one every 3 s.
SETTLE = 60.0
STOP_WAIT = 10.0

GROUP = FakeTelegram.group_chat(-100888, "Busy group")
ALICE = FakeTelegram.user(3001, "Alice")
STRANGERS = [FakeTelegram.user(3100 + i, f"Stranger {i}") for i in range(60)]
#: `/help`s per instance: from Alice (2 of her chat's burst of 3 each) and from the group (11
#: of its 20 each).
FROM_ALICE, FROM_GROUP = 2, 11


@pytest.fixture
async def telegram() -> AsyncIterator[FakeTelegram]:
    """The fake on Telegram's clock, with its limits for private chats too: the processes
    pace themselves by Telegram's own numbers."""
    async with FakeTelegram(time_scale=TELEGRAM_CLOCK) as fake:
        fake.enforce_flood_limits(private=(1, 1.0, 3))
        yield fake


@pytest.fixture
async def instances(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> AsyncIterator[tuple[WebhookBot, WebhookBot]]:
    """Two instances with the shared flood budget, on the test's database."""
    pair = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        instance = WebhookBot(telegram, tmp_path / name, database_url, SECRET, name=name)
        instance.env["FLOOD_BUDGET"] = "shared"
        pair.append(instance)
    a, b = pair
    try:
        await asyncio.gather(a.start(), b.start())
        await asyncio.gather(a.wait_listening(), b.wait_listening())
        yield a, b
    finally:
        codes = []
        for instance in pair:
            if instance.proc is not None:
                codes.append(await instance.stop(signal.SIGTERM, STOP_WAIT, exited_ok=True))
        assert codes == [0, 0], "\n".join(instance.tail() for instance in pair)


def helps(fake: FakeTelegram) -> list[dict[str, Any]]:
    """The updates of the load, in the order they are posted."""
    updates = []
    for stranger in STRANGERS:
        fake.send_text(stranger, "/help")
        updates.append(dict(fake.updates[-1]))
    for _ in range(2 * FROM_ALICE):
        fake.send_text(ALICE, "/help")
        updates.append(dict(fake.updates[-1]))
    for _ in range(2 * FROM_GROUP):
        fake.send_text(ALICE, "/help", chat=GROUP)
        updates.append(dict(fake.updates[-1]))
    return updates


async def test_two_instances_sharing_the_flood_budget_are_never_refused(
    telegram: FakeTelegram, instances: tuple[WebhookBot, WebhookBot]
) -> None:
    fake = telegram
    updates = helps(fake)
    posted: dict[str, set[int]] = {instance.name: set() for instance in instances}
    async with aiohttp.ClientSession() as http:

        async def post(instance: WebhookBot, update: dict[str, Any]) -> None:
            assert await post_update(instance.url, update, SECRET, http) == 200
            posted[instance.name].add(update["update_id"])

        await asyncio.gather(*(post(instances[i % 2], update) for i, update in enumerate(updates)))
    deadline = time.monotonic() + SETTLE
    while any(posted[i.name] - i.handled() for i in instances):
        assert time.monotonic() < deadline, "\n".join(i.tail() for i in instances)
        await asyncio.sleep(0.1)

    assert fake.too_many_requests == [], "\n".join(i.tail() for i in instances)
    for stranger in STRANGERS:
        assert len(fake.bot_messages(stranger["id"])) == 1
    assert len(fake.bot_messages(ALICE["id"])) == 2 * FROM_ALICE
    assert len(fake.bot_messages(GROUP["id"])) == 2 * FROM_GROUP
    for instance in instances:
        assert "counted in the database" in instance.output, instance.tail()
        assert "does not answer" not in instance.output, instance.tail()
        assert " ERROR " not in instance.output and "Traceback" not in instance.output
