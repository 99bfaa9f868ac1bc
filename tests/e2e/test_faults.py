"""Telegram failing under the bot: flood limits, server errors, dropped connections, lost
answers, blocked users and deleted boards. The fake Bot API server injects each fault; every
assertion is on the calls it recorded (what was sent, how often, what it answered), never on
timings."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram import Bot
from telegram.error import BadRequest, Forbidden, InvalidToken, NetworkError, RetryAfter

from bot import app
from bot.locales import en
from bot.telegram.request import RetryingRequest
from core.notation import format_cells
from tests.support.bot_runner import BotRunner, quiesce
from tests.support.bot_runner import settle as settle_all
from tests.support.chat import board_cells, cell_data, current, game_id_on, send, tap_cell, words
from tests.support.fake_telegram import EDIT_NOT_FOUND, Call, FakeTelegram, StoredMessage

ALICE = FakeTelegram.user(1001, "Alice")
BLOCKED = "Forbidden: bot was blocked by the user"


# --- the request class alone, on a Bot talking to the fake ----------------------------------


class Sleeps(list[float]):
    """Stands in for asyncio.sleep: records each wait and returns at once."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
async def api(telegram: FakeTelegram) -> AsyncIterator[tuple[Bot, Sleeps]]:
    sleeps = Sleeps()
    request = RetryingRequest(backoff_base=0.5, sleep=sleeps)
    bot = Bot(telegram.token, base_url=telegram.base_url, request=request)
    async with bot:
        yield bot, sleeps


def outcomes(calls: list[Call]) -> list[int | None]:
    """The HTTP answer of each call: an error code, None for success, 0 for a dropped one."""
    return [call.error_code for call in calls]


async def test_server_errors_are_retried_with_exponential_backoff(
    telegram: FakeTelegram, api: tuple[Bot, Sleeps]
) -> None:
    bot, sleeps = api
    telegram.fail_next("getWebhookInfo", 502, count=2)
    telegram.fail_next("getWebhookInfo", 500)
    info = await bot.get_webhook_info()
    assert info.url == ""
    assert outcomes(telegram.calls_of("getWebhookInfo")) == [502, 502, 500, None]
    assert sleeps == [0.5, 1.0, 2.0]


async def test_after_five_attempts_the_original_error_is_raised(
    telegram: FakeTelegram, api: tuple[Bot, Sleeps], caplog: pytest.LogCaptureFixture
) -> None:
    bot, sleeps = api
    telegram.fail_next("getWebhookInfo", 502, count=6)
    with caplog.at_level(logging.WARNING), pytest.raises(NetworkError, match="Bad Gateway"):
        await bot.get_webhook_info()
    assert outcomes(telegram.calls_of("getWebhookInfo")) == [502] * 5
    assert sleeps == [0.5, 1.0, 2.0, 4.0]
    retries = [r for r in caplog.records if r.name == "bot.telegram.request"]
    assert len(retries) == 4
    assert all(r.levelno == logging.WARNING and "getWebhookInfo" in r.getMessage() for r in retries)
    # Request URLs carry the token: no log line may show it.
    assert not [r for r in caplog.records if telegram.token in r.getMessage()]


async def test_a_flood_limit_waits_retry_after_seconds_then_sends_again(
    telegram: FakeTelegram, api: tuple[Bot, Sleeps]
) -> None:
    bot, sleeps = api
    telegram.add_chat(FakeTelegram.private_chat(ALICE))
    telegram.fail_next("sendMessage", 429, retry_after=3)
    message = await bot.send_message(ALICE["id"], "hello")
    assert outcomes(telegram.calls_of("sendMessage")) == [429, None]
    assert sleeps == [3.0]
    # Sent once: one message, the one the bot got back.
    assert [m.message_id for m in telegram.bot_messages(ALICE["id"])] == [message.message_id]


# PTB's own RetryAfter warns about its future type when it is made.
@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_a_flood_limit_longer_than_a_minute_is_not_waited_for(
    telegram: FakeTelegram, api: tuple[Bot, Sleeps]
) -> None:
    bot, sleeps = api
    telegram.add_chat(FakeTelegram.private_chat(ALICE))
    telegram.fail_next("sendMessage", 429, retry_after=3600)
    with pytest.raises(RetryAfter):
        await bot.send_message(ALICE["id"], "hello")
    assert outcomes(telegram.calls_of("sendMessage")) == [429]
    assert sleeps == []


async def test_a_dropped_connection_is_retried(
    telegram: FakeTelegram, api: tuple[Bot, Sleeps]
) -> None:
    bot, sleeps = api
    telegram.drop_next("getWebhookInfo", count=2)
    await bot.get_webhook_info()
    assert outcomes(telegram.calls_of("getWebhookInfo")) == [0, 0, None]
    assert sleeps == [0.5, 1.0]


async def test_a_refused_connection_is_retried_then_raised(telegram: FakeTelegram) -> None:
    sleeps = Sleeps()
    request = RetryingRequest(backoff_base=0.25, max_attempts=3, sleep=sleeps)
    port = telegram.port
    await telegram.stop()  # nothing listens on the port any more
    bot = Bot(telegram.token, base_url=f"http://127.0.0.1:{port}/bot", request=request)
    await request.initialize()
    try:
        with pytest.raises(NetworkError):
            await bot.get_me()
    finally:
        await request.shutdown()
    assert sleeps == [0.25, 0.5]


@pytest.mark.parametrize(
    ("code", "error"),
    [(400, BadRequest), (403, Forbidden), (404, InvalidToken)],
)
async def test_client_errors_are_never_retried(
    telegram: FakeTelegram, api: tuple[Bot, Sleeps], code: int, error: type[Exception]
) -> None:
    bot, sleeps = api
    telegram.add_chat(FakeTelegram.private_chat(ALICE))
    telegram.fail_next("sendMessage", code)
    with pytest.raises(error):
        await bot.send_message(ALICE["id"], "hello")
    assert outcomes(telegram.calls_of("sendMessage")) == [code]
    assert sleeps == []
    assert telegram.bot_messages(ALICE["id"]) == []


# --- the whole bot ---------------------------------------------------------------------------


@pytest.fixture
async def fast_bot(telegram: FakeTelegram, database_url: str) -> AsyncIterator[BotRunner]:
    """The real bot, with a 10 ms first backoff so retried server errors do not slow tests."""
    runner = BotRunner(telegram, database_url, retry_backoff_seconds=0.01)
    await runner.start()
    try:
        yield runner
    finally:
        await runner.stop()


def cell_texts(tg: FakeTelegram, message: StoredMessage) -> list[str]:
    return [text for row in tg.keyboard(message)[:3] for text, _ in row]


async def stored_cells(runner: BotRunner, game_id: int) -> str:
    assert runner.application is not None
    game = await runner.application.bot_data.running.games.store.get_game(game_id)
    return format_cells(game.board)


async def settle(tg: FakeTelegram, mark: int, method: str | None) -> None:
    """Wait for the first successful call of `method` since `mark` (a retry waiting out a flood
    limit makes no calls meanwhile), then until the bot is idle."""
    if method is not None:
        await tg.wait_for(lambda call: call.method == method and call.ok, since=mark)
    await quiesce(tg)


async def new_board(
    tg: FakeTelegram, command: str, until: str | None = "sendMessage"
) -> StoredMessage:
    mark = tg.mark()
    tg.send_text(ALICE, command)
    await settle(tg, mark, until)
    return tg.last_bot_message(ALICE["id"])


async def tap(
    tg: FakeTelegram, message: StoredMessage, cell: int, until: str | None = "editMessageText"
) -> dict[str, Any]:
    """Tap a cell, wait until the bot is done; the answerCallbackQuery that succeeded."""
    mark = tg.mark()
    query_id = tg.tap(ALICE, message, cell_data(tg, message, cell))
    await settle(tg, mark, until)
    assert query_id in tg.callback_answers, f"query {query_id} never answered"
    return tg.callback_answers[query_id]


def since(tg: FakeTelegram, mark: int, method: str) -> list[Call]:
    return [call for call in tg.calls[mark:] if call.method == method]


async def assert_move_shown(
    tg: FakeTelegram, runner: BotRunner, board: StoredMessage, cell: int, before: list[str]
) -> None:
    """The tapped cell is stored as X and the board message shows it (it changed there)."""
    game_id = game_id_on(tg, board)
    assert (await stored_cells(runner, game_id))[cell] == "X"
    after = cell_texts(tg, tg.messages[board.key])  # type: ignore[index]
    assert after[cell] != before[cell]


@pytest.mark.parametrize("method", ["editMessageText", "answerCallbackQuery"])
async def test_flood_limit_during_a_move_is_waited_out_and_the_move_is_shown(
    telegram: FakeTelegram, fast_bot: BotRunner, method: str
) -> None:
    board = await new_board(telegram, "/start user user")
    before = cell_texts(telegram, board)
    mark = telegram.mark()
    telegram.fail_next(method, 429, retry_after=1)
    answer = await tap(telegram, board, 4)
    assert not answer.get("text"), answer  # no error pop-up: the move just happened
    assert outcomes(since(telegram, mark, method)) == [429, None]
    first, second = since(telegram, mark, method)
    assert first.params == second.params  # the same request, sent again
    await assert_move_shown(telegram, fast_bot, board, 4, before)
    # One edit of the one board: nothing was posted instead.
    assert outcomes(since(telegram, mark, "editMessageText")) in ([None], [429, None])
    assert since(telegram, mark, "sendMessage") == []


async def test_flood_limit_on_posting_a_board_posts_it_once(
    telegram: FakeTelegram, fast_bot: BotRunner
) -> None:
    telegram.fail_next("sendMessage", 429, retry_after=1)
    board = await new_board(telegram, "/start user user")
    assert outcomes(telegram.calls_of("sendMessage")) == [429, None]
    assert len(telegram.bot_messages(ALICE["id"])) == 1
    before = cell_texts(telegram, board)
    await tap(telegram, board, 0)
    await assert_move_shown(telegram, fast_bot, board, 0, before)


async def test_bad_gateway_twice_then_success(telegram: FakeTelegram, fast_bot: BotRunner) -> None:
    board = await new_board(telegram, "/start user user")
    before = cell_texts(telegram, board)
    mark = telegram.mark()
    telegram.fail_next("editMessageText", 502, count=2)
    answer = await tap(telegram, board, 2)
    assert not answer.get("text"), answer
    assert outcomes(since(telegram, mark, "editMessageText")) == [502, 502, None]
    await assert_move_shown(telegram, fast_bot, board, 2, before)


@pytest.mark.parametrize("method", ["editMessageText", "answerCallbackQuery"])
async def test_a_dropped_connection_during_a_move_is_retried(
    telegram: FakeTelegram, fast_bot: BotRunner, method: str
) -> None:
    board = await new_board(telegram, "/start user user")
    before = cell_texts(telegram, board)
    mark = telegram.mark()
    telegram.drop_next(method)
    answer = await tap(telegram, board, 8)
    assert not answer.get("text"), answer
    assert outcomes(since(telegram, mark, method)) == [0, None]
    await assert_move_shown(telegram, fast_bot, board, 8, before)


async def test_a_dropped_connection_on_posting_a_board_is_not_posted_again(
    telegram: FakeTelegram, fast_bot: BotRunner, caplog: pytest.LogCaptureFixture
) -> None:
    # Dropped before Telegram carried it out; but the bot cannot tell that from an answer that
    # was lost after it was: it posts nothing rather than risk a second board.
    telegram.drop_next("sendMessage")
    with caplog.at_level(logging.INFO):
        telegram.send_text(ALICE, "/start user user")
        await settle(telegram, 0, None)
    assert outcomes(telegram.calls_of("sendMessage")) == [0]
    assert telegram.bot_messages(ALICE["id"]) == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    # The user sees nothing happen and asks again: a board, and it plays.
    board = await new_board(telegram, "/start user user")
    assert outcomes(telegram.calls_of("sendMessage")) == [0, None]
    assert len(telegram.bot_messages(ALICE["id"])) == 1
    before = cell_texts(telegram, board)
    await tap(telegram, board, 6)
    await assert_move_shown(telegram, fast_bot, board, 6, before)


@pytest.mark.parametrize("hold", [None, 1.5], ids=["connection closed", "read timeout"])
async def test_a_board_whose_answer_is_lost_is_posted_once_and_plays_on(
    telegram: FakeTelegram,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    hold: float | None,
) -> None:
    # A read timeout shorter than the fake holds the answer back (the default is 5 s).
    short = functools.partial(app.RetryingRequest, read_timeout=0.5)
    monkeypatch.setattr(app, "RetryingRequest", short)
    runner = BotRunner(telegram, database_url, retry_backoff_seconds=0.01)
    await runner.start()
    try:
        telegram.lose_answer_next("sendMessage", hold=hold)
        with caplog.at_level(logging.INFO):
            await new_board(telegram, "/start hard", until=None)
        # Telegram posted the board once; the bot never heard so, and did not post it again.
        posted = telegram.calls_of("sendMessage")
        assert outcomes(posted) == [None] and telegram.lost_answers == posted
        (board,) = telegram.bot_messages(ALICE["id"])
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        lost = [r for r in caplog.records if r.name == "bot.telegram.request"]
        assert len(lost) == 1 and lost[0].levelno == logging.WARNING
        assert "sendMessage" in lost[0].getMessage()
        # A tap on that board plays on it: the tap says which message it is.
        before = cell_texts(telegram, board)
        mark = telegram.mark()
        answer = await tap(telegram, board, 4)
        assert not answer.get("text"), answer
        await assert_move_shown(telegram, runner, board, 4, before)
        assert [call.params["message_id"] for call in since(telegram, mark, "editMessageText")] == [
            board.message_id
        ]
        cells = cell_texts(telegram, telegram.messages[board.key])  # type: ignore[index]
        assert cells.count(cells[4]) == 1 and len(set(cells)) == 3  # ❌, the AI's ⭕, empties
        assert since(telegram, mark, "sendMessage") == []
        # And /start again starts a new game on a new board.
        fresh = await new_board(telegram, "/start hard")
        assert fresh.key != board.key and len(telegram.bot_messages(ALICE["id"])) == 2
    finally:
        await runner.stop()


ANN = FakeTelegram.user(1002, "Ann")
BEN = FakeTelegram.user(1003, "Ben")


def boards_in(tg: FakeTelegram, user: dict[str, Any]) -> list[StoredMessage]:
    """The board messages in the user's private chat (they have cell buttons)."""
    return [
        m for m in tg.bot_messages(user["id"]) if m.reply_markup and "m:" in str(m.reply_markup)
    ]


@pytest.mark.parametrize("lost", ["x", "o"], ids=["❌'s board", "⭕'s board"])
async def test_a_stranger_board_whose_answer_is_lost_reaches_its_player(
    telegram: FakeTelegram, database_url: str, monkeypatch: pytest.MonkeyPatch, lost: str
) -> None:
    # ❌'s board in doubt: ❌ taps it, which says which message it is, and plays on it. ⭕'s
    # board in doubt while ❌ moves (issue 50): it said "Ann's turn" for good, so ⭕ had no
    # reason to tap, and lost on time. It is posted again once the game moves on; the first
    # copy, tapped, says where the game goes on, and the tap plays.
    short = functools.partial(app.RetryingRequest, read_timeout=0.5)
    monkeypatch.setattr(app, "RetryingRequest", short)
    runner = BotRunner(
        telegram, database_url, retry_backoff_seconds=0.01, board_catch_up_seconds=0.2
    )
    await runner.start()
    try:
        await send(telegram, ANN, "/play")
        blind = ANN if lost == "x" else BEN
        # ❌ moves while ⭕'s board is still on its way (its answer held back).
        telegram.lose_answer_next("sendMessage", hold=1.5, chat_id=blind["id"])
        telegram.send_text(BEN, "/play")
        await telegram.wait_until(lambda: len(boards_in(telegram, BEN)) == 1, what="⭕'s board")
        (x_board,) = boards_in(telegram, ANN)
        assert not (await tap_cell(telegram, ANN, x_board, 4)).get("text")
        # The board catch-up's rounds go by, past its grace for a board behind.
        await asyncio.sleep(2.0)
        await settle_all(telegram)
        assert len(telegram.lost_answers) == 1
        if lost == "x":
            assert [len(boards_in(telegram, who)) for who in (ANN, BEN)] == [1, 1]
            (o_board,) = boards_in(telegram, BEN)
        else:
            copy, o_board = boards_in(telegram, BEN)
            assert board_cells(telegram, copy) == "_" * 9
            assert board_cells(telegram, current(telegram, o_board)) == "____X____"
            # ⭕ taps the first copy: it is behind, and says where the game goes on.
            stale = await tap_cell(telegram, BEN, copy, 0)
            assert stale.get("text") == en.POPUP_STALE
            await settle_all(telegram)
            settled = current(telegram, copy)
            assert settled.text == en.BOARD_POSTED_AGAIN and settled.reply_markup is None
        # ⭕ taps the board they have: it is the game's, and the game plays on both boards.
        await tap_cell(telegram, BEN, current(telegram, o_board), 0)
        await settle_all(telegram)
        o_board = current(telegram, o_board)
        if board_cells(telegram, o_board) != "O___X____":  # the tap was on a board behind
            assert not (await tap_cell(telegram, BEN, o_board, 0)).get("text")
        for cell in (1, 2):
            assert not (await tap_cell(telegram, ANN, current(telegram, x_board), cell)).get("text")
            if cell == 1:
                assert not (await tap_cell(telegram, BEN, current(telegram, o_board), 8)).get(
                    "text"
                )
        await settle_all(telegram)
        x_board, o_board = current(telegram, x_board), current(telegram, o_board)
        assert board_cells(telegram, x_board) == board_cells(telegram, o_board) == "OXX_X___O"
        assert len(boards_in(telegram, ANN)) == 1
    finally:
        await runner.stop()


async def test_an_ai_match_whose_board_answer_is_lost_posts_only_its_final_board(
    telegram: FakeTelegram, fast_bot: BotRunner
) -> None:
    group = telegram.add_chat(FakeTelegram.group_chat(-100200, "Spectators"))
    telegram.lose_answer_next("sendMessage")
    telegram.send_text(ALICE, "/start easy hard", chat=group)
    # The first board is in the chat, but the bot does not know which message it is: rather
    # than a second live board beside it, the match's result comes as one more message.
    await telegram.wait_until(
        lambda: len(telegram.bot_messages(group["id"])) == 2, timeout=10, what="the result"
    )
    await fast_bot.quiesce()  # the match is over: nothing more will come
    first, final = telegram.bot_messages(group["id"])
    assert first.edit_count == 0 and board_cells(telegram, first) == "_" * 9
    assert words(final) in ("O wins", "Draw") and final.edit_count == 0
    assert game_id_on(telegram, final) == game_id_on(telegram, first)
    assert telegram.calls_of("editMessageText") == []


async def test_a_user_who_blocked_the_bot_costs_one_try_and_one_log_line(
    telegram: FakeTelegram, fast_bot: BotRunner, caplog: pytest.LogCaptureFixture
) -> None:
    # Blocked: every message to Alice is refused, until she unblocks the bot.
    telegram.fail_next("sendMessage", 403, BLOCKED, count=100)
    with caplog.at_level(logging.INFO):
        telegram.send_text(ALICE, "/help")
        update_id = telegram.updates[-1]["update_id"]
        await quiesce(telegram)
    sent = telegram.calls_of("sendMessage")
    # The reply, and at most the error handler's one apology: both refused, neither retried.
    # One try: no retry, and no apology that would only be refused again.
    assert len(sent) == 1
    assert outcomes(sent) == [403]
    assert all(call.params["chat_id"] == ALICE["id"] for call in sent)
    assert not [r for r in caplog.records if r.name == "bot.telegram.request"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    refusals = [r for r in caplog.records if r.name == "bot.handlers.errors"]
    assert len(refusals) == 1 and refusals[0].levelno == logging.WARNING
    assert str(update_id) in refusals[0].getMessage() and refusals[0].exc_info is None
    # The update is done: the next one is handled normally, with no trace of the old one.
    telegram.clear_failures()
    mark = telegram.mark()
    await new_board(telegram, "/help")
    assert outcomes(since(telegram, mark, "sendMessage")) == [None]


async def test_a_deleted_board_continues_on_a_fresh_message(
    telegram: FakeTelegram, fast_bot: BotRunner
) -> None:
    board = await new_board(telegram, "/start user user")
    game_id = game_id_on(telegram, board)
    await tap(telegram, board, 0)
    mark = telegram.mark()
    telegram.fail_next("editMessageText", 400, EDIT_NOT_FOUND)
    current = telegram.messages[board.key]  # type: ignore[index]
    answer = await tap(telegram, current, 4, until="sendMessage")
    assert not answer.get("text"), answer
    # The failed edit is not retried; the game goes on on a new board message.
    assert outcomes(since(telegram, mark, "editMessageText")) == [400]
    posted = since(telegram, mark, "sendMessage")
    assert outcomes(posted) == [None]
    fresh = telegram.messages[(ALICE["id"], posted[0].result["message_id"])]
    assert fresh.key != board.key
    assert game_id_on(telegram, fresh) == game_id
    assert await stored_cells(fast_bot, game_id) == "X___O____"
    # The next tap on the fresh board edits the fresh board.
    before = cell_texts(telegram, fresh)
    mark = telegram.mark()
    await tap(telegram, fresh, 8)
    edits = since(telegram, mark, "editMessageText")
    assert outcomes(edits) == [None]
    assert edits[0].params["message_id"] == fresh.message_id
    assert await stored_cells(fast_bot, game_id) == "X___O___X"
    assert cell_texts(telegram, telegram.messages[fresh.key])[8] != before[8]


async def test_a_reply_whose_answer_is_lost_is_neither_repeated_nor_apologised_for(
    telegram: FakeTelegram, fast_bot: BotRunner, caplog: pytest.LogCaptureFixture
) -> None:
    telegram.lose_answer_next("sendMessage")
    with caplog.at_level(logging.INFO):
        telegram.send_text(ALICE, "/help")
        await telegram.wait_until(lambda: telegram.lost_answers != [], what="the lost answer")
        await settle_all(telegram)
    # The help arrived once; the bot, not knowing, neither sent it again nor said sorry.
    [help_message] = telegram.bot_messages(ALICE["id"])
    assert help_message.text.startswith("How to play")
    assert len(telegram.calls_of("sendMessage")) == 1
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
