"""The metrics of a real bot (in this process, against the fake Bot API server): what playing
moves, and what /metrics shows (`bot.intake.metrics_page`). `tests/e2e/test_process.py` reads
them from a bot process over HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client.parser import text_string_to_metric_families

from bot.intake.metrics_page import build_metrics_app
from bot.telemetry.metrics import Metrics
from tests.support.bot_runner import BotRunner, quiesce
from tests.support.chat import board_cells, send, tap_cell, words
from tests.support.fake_telegram import FakeTelegram, StoredMessage
from tests.support.processes import free_port

ALICE = FakeTelegram.user(1001, "Alice")


@pytest.fixture
async def bot(telegram: FakeTelegram, database_url: str) -> AsyncIterator[BotRunner]:
    """The bot with METRICS_PORT set (this process does not serve it: the test reads the
    registry, or the page through aiohttp's test client)."""
    runner = BotRunner(telegram, database_url, metrics_port=free_port())
    await runner.start()
    try:
        yield runner
    finally:
        await runner.stop()


def metrics_of(bot: BotRunner) -> Metrics:
    assert bot.application is not None
    metrics = bot.application.bot_data.metrics
    assert metrics is not None
    return metrics


def value(metrics: Metrics, name: str, **labels: str) -> float:
    return metrics.registry.get_sample_value(name, labels) or 0.0


async def play_hard_game(telegram: FakeTelegram) -> StoredMessage:
    """Alice plays /start hard to its end, first free cell each time."""
    await send(telegram, ALICE, "/start hard")
    board = telegram.last_bot_message(ALICE["id"])
    while not words(telegram.messages[board.key]):  # type: ignore[index]
        cells = board_cells(telegram, telegram.messages[board.key])  # type: ignore[index]
        answer = await tap_cell(telegram, ALICE, board, cells.index("_"))
        assert not answer.get("text"), answer
    await quiesce(telegram)
    return telegram.messages[board.key]  # type: ignore[index]


async def test_a_game_moves_the_counters(telegram: FakeTelegram, bot: BotRunner) -> None:
    metrics = metrics_of(bot)
    final = await play_hard_game(telegram)
    result = words(final)
    assert result in ("O wins", "Draw")
    taps = len(telegram.calls_of("answerCallbackQuery"))
    assert taps >= 3

    assert value(metrics, "tictactoe_games_started_total", kind="ai") == 1
    reason = "line" if result == "O wins" else "full"
    assert value(metrics, "tictactoe_games_ended_total", kind="ai", reason=reason) == 1
    answered = value(
        metrics, "tictactoe_bot_api_calls_total", method="answerCallbackQuery", outcome="ok"
    )
    assert answered == taps
    sent = value(metrics, "tictactoe_bot_api_calls_total", method="sendMessage", outcome="ok")
    assert sent == len(telegram.calls_of("sendMessage"))
    # Each tap's move and the new game were written: observations with their time.
    commits = value(metrics, "tictactoe_db_transaction_duration_seconds_count", outcome="commit")
    assert commits >= taps + 1
    assert value(metrics, "tictactoe_db_transaction_duration_seconds_sum", outcome="commit") > 0


async def test_the_page_reads_the_states_when_it_is_asked(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    metrics = metrics_of(bot)
    assert bot.application is not None
    page = build_metrics_app(metrics, bot.application.bot_data.running)
    async with TestClient(TestServer(page)) as client:
        await send(telegram, ALICE, "/start hard")
        response = await client.get("/metrics")
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        families = {f.name: f for f in text_string_to_metric_families(await response.text())}
        [live] = families["tictactoe_games_live"].samples
        assert live.value == 1
        assert families["tictactoe_board_outbox_depth"].samples[0].value == 0
        assert "process_resident_memory_bytes" in families

        board = telegram.last_bot_message(ALICE["id"])
        await tap_cell(telegram, ALICE, board, 4)
        await send(telegram, ALICE, "/stop")
        await quiesce(telegram)
        text = await (await client.get("/metrics")).text()
        families = {f.name: f for f in text_string_to_metric_families(text)}
        assert families["tictactoe_games_live"].samples[0].value == 0
        ended = {
            tuple(sorted(s.labels.items())): s.value
            for s in families["tictactoe_games_ended"].samples
            if s.name.endswith("_total")
        }
        assert ended == {(("kind", "ai"), ("reason", "stopped")): 1.0}
