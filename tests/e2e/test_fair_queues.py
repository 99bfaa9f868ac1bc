"""One chat floods the bot, under Telegram's real flood limits (the fake answers 429 past them,
private chats included, and the bot paces itself with Telegram's numbers): another chat's tap
is still answered within Telegram's deadline, before the flood is through; the flooded chat's
own taps are all answered; its game stays what its board shows. Assertions are on what the fake
recorded (it takes a tap's answer only within the deadline) and on order, never on timings."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest

from bot.telegram.flood_gate import TELEGRAM_FLOOD_LIMITS, FloodGate
from bot.telegram.update_lanes import UpdateLanes
from core.notation import format_cells
from tests.support.bot_runner import BotRunner
from tests.support.chat import board_cells, cell_data, game_id_on, send
from tests.support.fake_telegram import FakeTelegram

# Telegram's clock: whether another chat's tap beats Telegram's answer deadline while a flood
# drains at one message a second is a question of real seconds.
pytestmark = pytest.mark.paced

MALLORY = FakeTelegram.user(1001, "Mallory")
BOB = FakeTelegram.user(1002, "Bob")
BURST = 1000
#: Every tenth update of the burst is a tap on Mallory's board, the rest /help.
TAP_EVERY = 10
#: Generous: the flooded chat's kept updates go at its pace of one message a second.
DRAIN_TIMEOUT = 120.0


@pytest.fixture
async def paced_bot(telegram: FakeTelegram, database_url: str) -> AsyncIterator[BotRunner]:
    """The bot with Telegram's flood limits, against a fake that enforces them, private chats'
    one message a second (bursts of 3) too."""
    telegram.enforce_flood_limits(private=(1, 1.0, 3))
    runner = BotRunner(telegram, database_url, flood_limits=TELEGRAM_FLOOD_LIMITS)
    await runner.start()
    try:
        yield runner
    finally:
        await runner.stop()


async def test_a_burst_of_1000_from_one_chat_keeps_nobody_else_waiting(
    telegram: FakeTelegram, paced_bot: BotRunner, caplog: pytest.LogCaptureFixture
) -> None:
    assert paced_bot.application is not None
    lanes = paced_bot.application.update_processor
    gate = paced_bot.application.bot.rate_limiter
    assert isinstance(lanes, UpdateLanes) and isinstance(gate, FloodGate)
    await send(telegram, MALLORY, "/start hard")
    await send(telegram, BOB, "/start hard")
    board, bobs_board = (telegram.last_bot_message(u["id"]) for u in (MALLORY, BOB))
    first_update = len(telegram.updates)

    with caplog.at_level(logging.WARNING, logger="bot.telegram.update_lanes"):
        taps = []
        for i in range(BURST):
            if i % TAP_EVERY:
                telegram.send_text(MALLORY, "/help")
            else:
                taps.append(telegram.tap(MALLORY, board, cell_data(telegram, board, i % 9)))
        bobs_tap = telegram.tap(BOB, bobs_board, cell_data(telegram, bobs_board, 4))
        await telegram.wait_until(
            lambda: bobs_tap in telegram.callback_answers, timeout=30, what="Bob's answer"
        )
        # Answered (the fake takes no answer past the deadline), before the flood was through.
        assert telegram.callback_answers[bobs_tap].get("text") is None
        assert lanes.held(MALLORY["id"]) > 0

        def drained() -> bool:
            return lanes.held(MALLORY["id"]) == 0 and gate.waiting(MALLORY["id"]) == 0

        await telegram.wait_until(drained, timeout=DRAIN_TIMEOUT, what="the flood drained")
        await telegram.wait_idle(quiet=0.3)

    # Every one of Mallory's taps was answered within the deadline: played, refused or shed.
    assert all(query_id in telegram.callback_answers for query_id in taps)
    # Each update of the burst ran, or was shed (and counted in the one log line).
    [line] = [r for r in caplog.records if "more than it could be served" in r.getMessage()]
    _, shed_taps, shed_others = line.args  # type: ignore[misc]
    burst_ids = {u["update_id"] for u in telegram.updates[first_update:]}
    # The runner counts an update once its lane is done with it, run or shed.
    assert burst_ids <= paced_bot.handled
    assert shed_taps > 0 and shed_others > 0
    assert shed_taps + shed_others < BURST
    assert telegram.too_many_requests == []

    # Both games are what their boards show.
    store = paced_bot.application.bot_data.running.games.store
    for shown in (board, bobs_board):
        game = await store.get_game(game_id_on(telegram, shown))
        await telegram.wait_until(
            lambda shown=shown, game=game: format_cells(game.board) == board_cells(telegram, shown),
            timeout=10,
            what="the board showing its game",
        )
    assert board_cells(telegram, bobs_board)[4] == "X"
