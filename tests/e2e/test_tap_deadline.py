"""A tap is answered while Telegram still takes an answer (`bot.handlers.taps`): a move that
waits on a SQLite file locked by another connection is answered "the game is busy" after
TAP_ANSWER_SECONDS (shortened here), once, and its work goes on: when the lock goes, the move
is stored and the board shows it, with no second answer."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy.engine import make_url

from bot.locales import en
from tests.support.bot_runner import BotRunner, quiesce
from tests.support.chat import board_cells, cell_data, current, successful_answers
from tests.support.fake_telegram import FakeTelegram

ALICE = FakeTelegram.user(1001, "Alice", language_code="de")
DEADLINE = 1.0  # TAP_ANSWER_SECONDS, shortened
LOCKED = 2.5  # how long the other connection holds the write lock
WAIT = 15.0

pytestmark = pytest.mark.skipif(
    os.environ.get("TEST_DATABASE_URL", "").startswith("postgresql"),
    reason="a SQLite file's lock",
)


@pytest.fixture
async def bot(telegram: FakeTelegram, database_url: str) -> AsyncIterator[BotRunner]:
    runner = BotRunner(telegram, database_url, tap_answer_seconds=DEADLINE)
    await runner.start()
    try:
        yield runner
    finally:
        await runner.stop()


@contextlib.contextmanager
def write_lock(database_url: str) -> Iterator[None]:
    """Another connection holds the database's write lock (BEGIN IMMEDIATE) meanwhile."""
    path = make_url(database_url).database
    assert path
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


async def test_a_tap_held_up_by_a_lock_is_answered_busy_in_time_and_its_move_still_shows(
    telegram: FakeTelegram, bot: BotRunner, database_url: str
) -> None:
    fake = telegram
    fake.send_text(ALICE, "/start user user")
    await quiesce(fake)
    board = fake.last_bot_message(ALICE["id"])
    assert board_cells(fake, board) == "_________"

    with write_lock(database_url):
        tapped = time.monotonic()
        query_id = fake.tap(ALICE, board, cell_data(fake, current(fake, board), 4))
        busy = await fake.answer_to(query_id, timeout=WAIT)
        answered_after = time.monotonic() - tapped
        assert busy["text"] == "Das Spiel ist gerade beschäftigt. Versuch es gleich noch einmal."
        assert DEADLINE <= answered_after < fake.callback_answer_deadline
        await asyncio.sleep(LOCKED - answered_after)
        assert board_cells(fake, current(fake, board)) == "_________"  # still waiting
    # The lock is gone: the move is stored and shown, and the tap gets no second answer.
    await fake.wait_until(lambda: board_cells(fake, current(fake, board)) == "____X____", WAIT)
    await quiesce(fake)
    assert len(successful_answers(fake, query_id)) == 1
    assert (
        len(
            [
                c
                for c in fake.calls_of("answerCallbackQuery")
                if c.params.get("callback_query_id") == query_id
            ]
        )
        == 1
    )
    assert en.POPUP_ERROR not in str(fake.calls)

    # A tap with nothing in its way is answered by its handler, as ever.
    query_id = fake.tap(ALICE, board, cell_data(fake, current(fake, board), 0))
    assert not (await fake.answer_to(query_id, timeout=WAIT)).get("text")
    await quiesce(fake)
    assert board_cells(fake, current(fake, board)) == "O___X____"
