"""A crowd at once: many chats tap and start games in the same moment, under the flood limits.

Every tap is answered within Telegram's deadline (the fake takes no answer after it), every
board ends on its game's newest version, and no update is left waiting: a crowd larger than
the bot's shared slots once left updates waiting until shutdown (a tap's edit held its slot
while it waited for the whole bot's gate, and a reply that had its tokens waited for a slot).
Assertions are on what the fake recorded, never on timings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from bot.app import CONCURRENT_UPDATES
from bot.locales import en
from bot.telegram.flood_gate import TELEGRAM_FLOOD_LIMITS, Rate
from tests.support.bot_runner import BotRunner
from tests.support.chat import board_cells, cell_data, send
from tests.support.fake_telegram import FakeTelegram

CHATS = 100
USER_BASE = 700_000


@pytest.fixture
async def paced_bot(telegram: FakeTelegram, database_url: str) -> AsyncIterator[BotRunner]:
    """The bot on Telegram's flood limits (the test's shortened windows), private chats'
    one message a second too, against a fake that enforces them. The whole bot's rate stays
    on Telegram's clock: 30 a second is what once deadlocked a crowd larger than the shared
    slots, when every message waited for it."""
    telegram.enforce_flood_limits(private=(1, 1.0, 3))
    limits = replace(TELEGRAM_FLOOD_LIMITS.scaled(telegram.time_scale), overall=Rate(30, 1.0))
    runner = BotRunner(telegram, database_url, flood_limits=limits)
    await runner.start()
    try:
        yield runner
    finally:
        await runner.stop()


async def test_a_crowd_larger_than_the_shared_slots_is_answered_and_drawn(
    telegram: FakeTelegram, paced_bot: BotRunner
) -> None:
    assert CHATS * 2 > CONCURRENT_UPDATES  # the crowd outnumbers the shared slots
    tappers = [FakeTelegram.user(USER_BASE + i, f"P{i}") for i in range(CHATS)]
    starters = [FakeTelegram.user(USER_BASE + CHATS + i, f"S{i}") for i in range(CHATS)]
    for user in tappers:
        await send(telegram, user, "/start easy")
    boards = [telegram.last_bot_message(user["id"]) for user in tappers]

    # In one moment: half the chats tap their boards, the other half start a game.
    taps = []
    for tapper, board, starter in zip(tappers, boards, starters, strict=True):
        free = board_cells(telegram, board).index("_")
        taps.append(telegram.tap(tapper, board, cell_data(telegram, board, free)))
        telegram.send_text(starter, "/start medium")

    await paced_bot.quiesce(timeout=60)
    unanswered = [query for query in taps if query not in telegram.callback_answers]
    assert not unanswered, f"{len(unanswered)} of {len(taps)} taps never answered"
    # Played, answered without a word; or, where the database kept a tap past
    # TAP_ANSWER_SECONDS (PostgreSQL on a loaded machine), answered "busy" while its move
    # still went through: the board shows the move and easy's reply either way. Or, where the
    # tap waited for a shared slot past its patience (a loaded CI host), answered that it did
    # nothing, before Telegram's deadline: its board stays as it was.
    for tapper, board, query in zip(tappers, boards, taps, strict=True):
        said = telegram.callback_answers[query].get("text")
        assert said in {None, en.POPUP_GAME_BUSY, en.POPUP_BUSY}, said
        free = board_cells(telegram, board).count("_")
        assert free == (9 if said == en.POPUP_BUSY else 7), tapper
    for starter in starters:
        assert board_cells(telegram, telegram.last_bot_message(starter["id"])) == "_" * 9
    assert not telegram.too_many_requests
