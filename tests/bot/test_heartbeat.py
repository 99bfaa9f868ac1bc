"""bot.chores.heartbeat: the file a health check reads in polling mode too, written every
round with what the database probe says, removed when the bot stops, and read as healthy only
while it is fresh and says "ok"."""

from __future__ import annotations

import asyncio
import os
import time
from enum import Enum
from pathlib import Path

from bot.chores.heartbeat import STALE_SECONDS, Heartbeat, heartbeat_problem
from bot.games.db.health import DatabaseState


async def test_each_beat_writes_what_the_probe_says_and_a_stop_removes_it(tmp_path: Path) -> None:
    said: list[Enum] = [DatabaseState.OK, DatabaseState.LOCKED]

    async def probe() -> Enum:
        return said[0] if len(said) == 1 else said.pop(0)

    path = tmp_path / "heartbeat"
    heartbeat = Heartbeat(path, probe, every=0.05)
    heartbeat.start()
    try:
        deadline = time.monotonic() + 10
        while not path.exists() or path.read_text() != "database locked\n":
            assert time.monotonic() < deadline, "no second beat"
            await asyncio.sleep(0.02)
        assert heartbeat_problem(path) == "the database: database locked"
        said[0] = DatabaseState.OK
        while path.read_text() != "ok\n":
            assert time.monotonic() < deadline, "no third beat"
            await asyncio.sleep(0.02)
        assert heartbeat_problem(path) is None
    finally:
        await heartbeat.stop()
    assert not path.exists()
    assert os.listdir(tmp_path) == []  # nothing half-written left beside it
    assert heartbeat_problem(path) == (
        f"no heartbeat at {path}: the bot is not running, or still starting"
    )


def test_an_old_heartbeat_is_a_bot_that_stopped_beating(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    path.write_text("ok\n")
    assert heartbeat_problem(path) is None
    then = time.time() - STALE_SECONDS - 5
    os.utime(path, (then, then))
    problem = heartbeat_problem(path)
    assert problem is not None and problem.startswith("the last heartbeat is 35 s old: ")


async def test_a_beat_that_cannot_be_written_is_an_outage_and_the_next_tries_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "gone" / "heartbeat"

    async def probe() -> Enum:
        return DatabaseState.OK

    heartbeat = Heartbeat(path, probe, every=0.05)
    heartbeat.start()
    try:
        deadline = time.monotonic() + 10
        while heartbeat.outage.failures < 2:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        path.parent.mkdir()
        while not path.exists():
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
    finally:
        await heartbeat.stop()
