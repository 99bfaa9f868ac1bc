"""The metrics' own rules: how a Bot API call's outcome is named (on a PTB Bot talking HTTP to
the fake Bot API server), that each metric has Prometheus's kind of name, and that a bot
without METRICS_PORT makes no metrics and opens no port."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from prometheus_client.parser import text_string_to_metric_families
from telegram import Bot
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter

from bot.app import build_application
from bot.config import Settings
from bot.run import BotLife
from bot.telegram.request import RetryingRequest
from bot.telemetry.metrics import Metrics, answer_outcome
from tests.support.fake_telegram import FakeTelegram

ALICE = FakeTelegram.user(1001, "Alice")


async def no_sleep(_seconds: float) -> None:
    """Retries go at once: the test is about what is counted, not when."""


@pytest.fixture
async def api(telegram: FakeTelegram) -> AsyncIterator[tuple[Bot, Metrics]]:
    telegram.add_chat(FakeTelegram.private_chat(ALICE))
    metrics = Metrics()
    request = RetryingRequest(sleep=no_sleep, read_timeout=0.2)
    request.metrics = metrics
    async with Bot(telegram.token, base_url=telegram.base_url, request=request) as bot:
        yield bot, metrics


def calls(metrics: Metrics, method: str, outcome: str) -> float:
    labels = {"method": method, "outcome": outcome}
    return metrics.registry.get_sample_value("tictactoe_bot_api_calls_total", labels) or 0.0


def test_an_answer_is_ok_429_a_refusal_or_a_server_error() -> None:
    assert [answer_outcome(status) for status in (200, 429, 400, 403, 404, 409, 500, 502)] == [
        "ok",
        "429",
        "refused",
        "refused",
        "refused",
        "refused",
        "server_error",
        "server_error",
    ]


async def test_every_try_of_a_call_is_counted_by_its_outcome(
    telegram: FakeTelegram, api: tuple[Bot, Metrics]
) -> None:
    bot, metrics = api
    assert calls(metrics, "getMe", "ok") == 1  # `async with Bot` asks getMe
    await bot.send_message(ALICE["id"], "hello")
    assert calls(metrics, "sendMessage", "ok") == 1

    telegram.fail_next("sendMessage", 400)
    with pytest.raises(BadRequest):
        await bot.send_message(ALICE["id"], "refused")
    telegram.fail_next("sendMessage", 403)
    with pytest.raises(Forbidden):
        await bot.send_message(ALICE["id"], "blocked")
    assert calls(metrics, "sendMessage", "refused") == 2

    # A 429 is waited out and sent again (this request retries flood limits itself): two tries.
    telegram.fail_next("getMe", 429, retry_after=0)
    await bot.get_me()
    assert calls(metrics, "getMe", "429") == 1

    telegram.fail_next("getMe", 502)
    await bot.get_me()
    assert calls(metrics, "getMe", "server_error") == 1
    assert calls(metrics, "getMe", "ok") == 3

    telegram.lose_answer_next("sendMessage", hold=1.0)  # past the read timeout
    with pytest.raises(NetworkError):
        await bot.send_message(ALICE["id"], "no answer")
    assert calls(metrics, "sendMessage", "timeout") == 1

    telegram.drop_next("sendMessage")  # the connection closed, no answer
    with pytest.raises(NetworkError):
        await bot.send_message(ALICE["id"], "dropped")
    assert calls(metrics, "sendMessage", "no_connection") == 1
    assert calls(metrics, "sendMessage", "ok") == 1  # nothing else was counted on the way

    telegram.fail_next("sendMessage", 429, retry_after=3600)  # too long to wait: raised
    with pytest.raises(RetryAfter):
        await bot.send_message(ALICE["id"], "too many")
    assert calls(metrics, "sendMessage", "429") == 1


def test_the_names_follow_prometheus_conventions() -> None:
    metrics = Metrics()
    metrics.update_handled("message", 0.01)
    metrics.bot_api_call("sendMessage", "ok")
    families = {
        family.name: family
        for family in text_string_to_metric_families(_exposition(metrics))
        if family.name.startswith("tictactoe_")
    }
    assert len(families) >= 14
    for name, family in families.items():
        if family.type == "counter":
            assert not name.endswith("_total")  # the parser strips it: it was there
        if family.type == "histogram":
            assert name.endswith("_seconds"), name
        assert family.documentation, name


def _exposition(metrics: Metrics) -> str:
    from prometheus_client import generate_latest

    return generate_latest(metrics.registry).decode()


async def test_without_metrics_port_there_are_no_metrics_and_no_port() -> None:
    settings = Settings(token="1:x", api_base_url="http://127.0.0.1:1/bot")
    assert settings.metrics_port is None
    application = build_application(settings)
    assert application.bot_data.metrics is None
    life = BotLife(application, settings)
    await life.serve_metrics()  # does nothing: not even the resources are asked for
    assert life.metrics_server is None


def test_each_bot_has_a_registry_of_its_own() -> None:
    first, second = Metrics(), Metrics()
    first.bot_api_call("getMe", "ok")
    assert first.registry is not second.registry
    labels = {"method": "getMe", "outcome": "ok"}
    assert second.registry.get_sample_value("tictactoe_bot_api_calls_total", labels) is None
