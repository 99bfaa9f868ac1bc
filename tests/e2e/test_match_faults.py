"""End to end: an AI match outlives a database failure. Its task logs the failure and tries
again (its state is in the database), instead of dying until the next start of the bot."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from bot.chores.ai_runner import AiMatchRunner
from tests.support.bot_runner import BotRunner
from tests.support.chat import send, words
from tests.support.fake_telegram import FakeTelegram

ALICE = FakeTelegram.user(1201, "Alice")


async def test_an_ai_match_rides_out_a_failing_database(
    telegram: FakeTelegram, bot: BotRunner, caplog: pytest.LogCaptureFixture
) -> None:
    assert bot.application is not None
    store = bot.application.bot_data.running.games.store
    real_get_game = store.get_game
    failures = 3

    async def failing_get_game(game_id: int, *args: Any, **kwargs: Any) -> Any:
        nonlocal failures
        if failures:
            failures -= 1
            raise OperationalError("SELECT …", {}, Exception("database is locked"))
        return await real_get_game(game_id, *args, **kwargs)

    # The database fails the match task's first reads (a locked or restarting database).
    store.get_game = failing_get_game
    caplog.set_level(logging.WARNING, logger="bot.chores.ai_runner")
    await send(telegram, ALICE, "/start easy hard")
    match = telegram.last_bot_message(ALICE["id"])
    await telegram.wait_until(lambda: bool(words(match)), timeout=30, what="the match to end")
    assert words(match) in ("O wins", "Draw")  # hard never loses
    assert failures == 0
    retried = [r for r in caplog.records if "the database failed" in r.getMessage()]
    assert len(retried) == 3
    await bot.quiesce()
    matches: AiMatchRunner = bot.application.bot_data.running.matches
    assert matches.playing == frozenset()
