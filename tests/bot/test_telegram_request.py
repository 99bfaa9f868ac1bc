"""What `RetryingRequest` sends again, on a PTB Bot talking HTTP to the fake Bot API server:
calls that create something only when Telegram surely never got them; calls that change
nothing when repeated also after a lost answer, where "already done" counts as done."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator

import pytest
from telegram import Bot
from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut

from bot.telegram.request import OutcomeUnknown, RetryingRequest, is_repeatable
from tests.support.fake_telegram import Call, FakeTelegram

ALICE = FakeTelegram.user(1001, "Alice")


class Sleeps(list[float]):
    """Stands in for asyncio.sleep: records each wait and returns at once."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
async def api(telegram: FakeTelegram) -> AsyncIterator[tuple[Bot, Sleeps]]:
    telegram.add_chat(FakeTelegram.private_chat(ALICE))
    sleeps = Sleeps()
    request = RetryingRequest(backoff_base=0.5, sleep=sleeps, read_timeout=0.2)
    async with Bot(telegram.token, base_url=telegram.base_url, request=request) as bot:
        yield bot, sleeps


def outcomes(calls: list[Call]) -> list[int | None]:
    """The HTTP answer of each call: an error code, None for success, 0 for a dropped one."""
    return [call.error_code for call in calls]


def test_which_methods_may_be_sent_twice() -> None:
    for method in ("getMe", "editMessageText", "setMyCommands", "deleteMessage"):
        assert is_repeatable(method)
    for method in ("sendMessage", "copyMessage", "forwardMessage", "sendPhoto"):
        assert not is_repeatable(method)
    assert is_repeatable("answerCallbackQuery")


@pytest.mark.parametrize("hold", [None, 1.0], ids=["connection closed", "read timeout"])
async def test_a_send_whose_answer_is_lost_is_not_sent_again(
    telegram: FakeTelegram, api: tuple[Bot, Sleeps], hold: float | None
) -> None:
    bot, sleeps = api
    telegram.lose_answer_next("sendMessage", hold=hold)
    with pytest.raises(OutcomeUnknown) as raised:
        await bot.send_message(ALICE["id"], "board")
    # A NetworkError (a TimedOut behind it, for a read timeout), so callers that catch those
    # still do.
    assert isinstance(raised.value, NetworkError)
    assert isinstance(raised.value.__cause__, TimedOut if hold else NetworkError)
    assert telegram.token not in str(raised.value)
    assert outcomes(telegram.calls_of("sendMessage")) == [None]
    assert [m.text for m in telegram.bot_messages(ALICE["id"])] == ["board"]
    assert sleeps == []


async def test_a_send_dropped_before_it_was_carried_out_is_not_sent_again_either(
    telegram: FakeTelegram, api: tuple[Bot, Sleeps]
) -> None:
    # The client cannot tell this from a lost answer: better nothing than a board twice.
    bot, sleeps = api
    telegram.drop_next("sendMessage")
    with pytest.raises(OutcomeUnknown):
        await bot.send_message(ALICE["id"], "board")
    assert outcomes(telegram.calls_of("sendMessage")) == [0]
    assert telegram.bot_messages(ALICE["id"]) == [] and sleeps == []


async def test_a_send_that_surely_never_left_is_sent_again() -> None:
    with socket.socket() as probe:  # a port nothing listens on: connection refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sleeps = Sleeps()
    request = RetryingRequest(backoff_base=0.25, max_attempts=3, sleep=sleeps)
    bot = Bot("1:T", base_url=f"http://127.0.0.1:{port}/bot", request=request)
    await request.initialize()
    try:
        with pytest.raises(NetworkError) as raised:
            await bot.send_message(ALICE["id"], "board")
    finally:
        await request.shutdown()
    assert not isinstance(raised.value, OutcomeUnknown)
    assert sleeps == [0.25, 0.5]


async def test_a_send_answered_5xx_is_sent_again(
    telegram: FakeTelegram, api: tuple[Bot, Sleeps]
) -> None:
    bot, sleeps = api
    telegram.fail_next("sendMessage", 502)
    await bot.send_message(ALICE["id"], "board")
    assert outcomes(telegram.calls_of("sendMessage")) == [502, None]
    assert len(telegram.bot_messages(ALICE["id"])) == 1 and sleeps == [0.5]


async def test_an_edit_whose_answer_is_lost_is_sent_again_and_not_modified_is_done(
    telegram: FakeTelegram, api: tuple[Bot, Sleeps]
) -> None:
    bot, sleeps = api
    board = await bot.send_message(ALICE["id"], "move 1")
    telegram.lose_answer_next("editMessageText")
    edited = await bot.edit_message_text("move 2", chat_id=ALICE["id"], message_id=board.id)
    assert edited is True  # what the repeat stands for: done, with no message to show
    edits = telegram.calls_of("editMessageText")
    assert outcomes(edits) == [None, 400] and "not modified" in (edits[1].description or "")
    assert telegram.messages[(ALICE["id"], board.id)].edit_count == 1
    assert sleeps == [0.5]


async def test_not_modified_on_a_first_try_is_still_an_error(
    telegram: FakeTelegram, api: tuple[Bot, Sleeps]
) -> None:
    bot, _ = api
    board = await bot.send_message(ALICE["id"], "same")
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_text("same", chat_id=ALICE["id"], message_id=board.id)


async def test_an_answer_to_a_tap_whose_answer_is_lost_is_done_once(
    telegram: FakeTelegram, api: tuple[Bot, Sleeps]
) -> None:
    bot, _ = api
    board = await bot.send_message(ALICE["id"], "board")
    query_id = telegram.tap(ALICE, (ALICE["id"], board.id), "x")
    telegram.lose_answer_next("answerCallbackQuery", hold=1.0)
    assert await bot.answer_callback_query(query_id, "ok") is True
    assert outcomes(telegram.calls_of("answerCallbackQuery")) == [None, 400]
    assert telegram.callback_answers[query_id]["text"] == "ok"


async def test_a_lost_delete_is_done(telegram: FakeTelegram, api: tuple[Bot, Sleeps]) -> None:
    bot, _ = api
    board = await bot.send_message(ALICE["id"], "board")
    telegram.lose_answer_next("deleteMessage")
    assert await bot.delete_message(ALICE["id"], board.id) is True
    assert outcomes(telegram.calls_of("deleteMessage")) == [None, 400]


async def test_a_lost_read_is_read_again(telegram: FakeTelegram, api: tuple[Bot, Sleeps]) -> None:
    bot, sleeps = api
    telegram.lose_answer_next("getWebhookInfo", count=2)
    assert (await bot.get_webhook_info()).url == ""
    assert outcomes(telegram.calls_of("getWebhookInfo")) == [None, None, None]
    assert sleeps == [0.5, 1.0]


# PTB's own RetryAfter warns about its future type when it is made.
@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_with_a_rate_limiter_above_it_a_429_goes_straight_up(
    telegram: FakeTelegram,
) -> None:
    telegram.add_chat(FakeTelegram.private_chat(ALICE))
    sleeps = Sleeps()
    request = RetryingRequest(sleep=sleeps, retry_flood_limits=False)
    telegram.fail_next("sendMessage", 429, retry_after=3)
    async with Bot(telegram.token, base_url=telegram.base_url, request=request) as bot:
        with pytest.raises(RetryAfter):
            await bot.send_message(ALICE["id"], "board")
    assert outcomes(telegram.calls_of("sendMessage")) == [429] and sleeps == []
