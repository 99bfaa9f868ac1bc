"""`python -m bot` with HEARTBEAT_FILE, long polling (no server to ask /healthz): the file says
"ok" within a beat of the start, `tictactoe-bot health` says healthy, and a stopped bot leaves
no heartbeat behind (unhealthy at once). What a beat says of a database that refuses writes:
tests/bot/test_heartbeat.py."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.fake_telegram import FakeTelegram
from tests.support.processes import WAIT, bot_env, bot_process, clean_env, run_to_exit

pytestmark = pytest.mark.process


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as telegram:
        yield telegram


def read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


async def said(path: Path, text: str) -> None:
    """Until the heartbeat file says `text`."""
    deadline = time.monotonic() + 2 * WAIT
    while read(path) != text:
        assert time.monotonic() < deadline, f"the heartbeat never said {text!r}"
        await asyncio.sleep(0.05)


async def test_a_polling_bot_beats_and_health_reads_it(fake: FakeTelegram, tmp_path: Path) -> None:
    beat = tmp_path / "heartbeat"
    database = tmp_path / "bot.sqlite3"
    env = bot_env(fake, f"sqlite+aiosqlite:///{database}", HEARTBEAT_FILE=str(beat))
    check = clean_env(HEARTBEAT_FILE=str(beat))
    async with bot_process(tmp_path, env) as bot:
        await bot.wait_ready(fake, since=0)
        await said(beat, "ok\n")
        code, out, err = await run_to_exit(tmp_path, check, "health")
        assert (code, out, err) == (0, "healthy\n", ""), bot.tail()
        assert await bot.stop(signal.SIGTERM) == 0, bot.tail()
    assert read(beat) is None
    code, out, err = await run_to_exit(tmp_path, check, "health")
    assert (code, out) == (1, "")
    assert err == f"unhealthy: no heartbeat at {beat}: the bot is not running, or still starting\n"
