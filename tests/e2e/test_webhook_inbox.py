"""Durable webhook receipt (`bot.intake.webhook_inbox`): an update answered 200 is handled even
when the bot is killed (SIGKILL) right after the answer. `python -m bot` runs in webhook mode as
a real process; SQLite by default, PostgreSQL with TEST_DATABASE_URL.

To be killed after the answer and before the handling, the update must wait: two `/help`s
whose replies the fake holds keep the chat's lane busy (`bot.telegram.update_lanes` runs two updates
of a chat at once), and Alice's move waits behind them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.telegram.update_lanes import PER_LANE
from tests.e2e.test_webhook import SECRET, update_with_text
from tests.support.fake_telegram import FakeTelegram
from tests.support.processes import WAIT, WebhookBot, post_update

# Every test here runs `python -m bot` (or its script) as a process.
pytestmark = pytest.mark.process

ALICE = FakeTelegram.user(1001, "Alice")


async def webhook_bot(
    fake: FakeTelegram, tmp_path: Path, database_url: str, name: str
) -> WebhookBot:
    (tmp_path / name).mkdir()
    bot = WebhookBot(fake, tmp_path / name, database_url, SECRET, name=name)
    bot.env["BOARD_CATCH_UP_SECONDS"] = "0.2"
    bot.env["AI_PAUSE_SECONDS"] = "0.01"
    await bot.start()
    await bot.wait_listening()
    return bot


async def post(fake: FakeTelegram, bot: WebhookBot, words: str) -> dict[str, Any]:
    update = update_with_text(fake, ALICE, words)
    assert await post_update(bot.url, update, SECRET) == 200
    return update


async def inbox_ids(engine: AsyncEngine) -> list[int]:
    async with engine.connect() as connection:
        rows = await connection.execute(text("SELECT update_id FROM inbox_updates"))
        return sorted(row[0] for row in rows)


async def stored_board(engine: AsyncEngine) -> str:
    async with engine.connect() as connection:
        return (await connection.execute(text("SELECT board FROM games"))).scalar_one()


async def eventually(check: Any, what: str) -> None:
    for _ in range(int(WAIT / 0.05)):
        if await check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")


async def test_an_update_answered_200_is_handled_after_a_kill(
    tmp_path: Path, database_url: str, engine: AsyncEngine
) -> None:
    async with FakeTelegram() as fake:
        first = await webhook_bot(fake, tmp_path, database_url, "first")
        try:
            mark = fake.mark()
            await post(fake, first, "/start easy")
            await fake.wait_for("sendMessage", WAIT, since=mark)
            await eventually(lambda: _empty(engine), "the handled /start forgotten")
            fake.hold_next("sendMessage", PER_LANE)
            for _ in range(PER_LANE):
                await post(fake, first, "/help")
            await fake.wait_until(lambda: fake.held == PER_LANE, WAIT)
            move = await post(fake, first, "2 2")
            # Answered 200, so stored: Telegram will not send it again.
            assert move["update_id"] in await inbox_ids(engine)
            assert await stored_board(engine) == "_" * 9
        finally:
            await first.kill()
            fake.release_held()

        second = await webhook_bot(fake, tmp_path, database_url, "second")
        try:
            await eventually(
                lambda: _played_center(engine), "the move handled by the restarted bot"
            )
            await eventually(lambda: _empty(engine), "the inbox emptied")
            assert "was received but not handled" in second.output
            # Telegram delivering it again changes nothing: the move acted once.
            assert await post_update(second.url, move, SECRET) == 200
            await eventually(lambda: _empty(engine), "the repeat forgotten")
            board = await stored_board(engine)
            assert board[4] == "X" and board.count("X") == 1 and board.count("O") == 1
        finally:
            await second.kill()


async def _empty(engine: AsyncEngine) -> bool:
    return not await inbox_ids(engine)


async def _played_center(engine: AsyncEngine) -> bool:
    return (await stored_board(engine))[4] == "X"
