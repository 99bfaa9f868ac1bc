"""Taps on messages Telegram no longer shows the bot: the callback query carries an
InaccessibleMessage (its chat, its id, date 0), which has no text and no keyboard. Every such
tap is answered, nothing is logged at ERROR, and nothing changes that the tap did not ask for.

python-telegram-bot 22 parses it as a `Message` with date 0 (`CallbackQuery.de_json`), whose
`reply_markup` is None; the handlers also take its `InaccessibleMessage`, which has none.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from bot.locales import en
from tests.support.bot_runner import BotRunner, settle
from tests.support.chat import current, send, tap_cell
from tests.support.fake_telegram import FakeTelegram

ALICE = FakeTelegram.user(1001, "Alice")


@pytest.fixture(autouse=True)
def _no_errors(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.ERROR)
    yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


async def test_resign_on_an_old_board_still_asks_first(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/start medium")
    board = telegram.last_bot_message(ALICE["id"])
    await tap_cell(telegram, ALICE, board, 4)
    query = telegram.tap_button(ALICE, current(telegram, board), "🏳 Resign", inaccessible=True)
    assert (await telegram.answer_to(query))["text"] == en.POPUP_RESIGN_CONFIRM
    await settle(telegram)
    # The question is drawn from the game, as the message's own keyboard was not sent.
    row = [text for text, _ in telegram.keyboard(current(telegram, board))[3]]
    assert row == ["💡 Hint", "↩️ Undo", en.BUTTON_RESIGN_YES, en.BUTTON_RESIGN_NO]
    assert "Your move" in current(telegram, board).text


async def test_a_size_on_an_old_menu_posts_the_menu_anew(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/start")
    menu = telegram.last_bot_message(ALICE["id"])
    size = telegram.keyboard(menu)[3][4][1] or ""
    query = telegram.tap(ALICE, menu, size, inaccessible=True)
    assert not (await telegram.answer_to(query)).get("text")
    await settle(telegram)
    posted = telegram.last_bot_message(ALICE["id"])
    assert posted.message_id != menu.message_id
    assert [text for text, _ in telegram.keyboard(posted)[3]][4] == "✔7×7"


async def test_forget_on_an_old_question_deletes_nothing(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/start easy")
    board = telegram.last_bot_message(ALICE["id"])
    await send(telegram, ALICE, "/forget")
    question = telegram.last_bot_message(ALICE["id"])
    query = telegram.tap_button(ALICE, question, en.BUTTON_FORGET_YES, inaccessible=True)
    # The bot cannot see that this button is on its question: it takes it for a stray one.
    assert (await telegram.answer_to(query))["text"] == en.POPUP_UNKNOWN_BUTTON
    await settle(telegram)
    # Nothing was deleted: the game goes on (a /forget would have closed it).
    assert "Your move" in current(telegram, board).text
    assert current(telegram, question).text == question.text
