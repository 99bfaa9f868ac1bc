"""End to end: the board shows where the last move went (its mark framed), so a player sees the
AI's or the opponent's reply without comparing boards by eye."""

from __future__ import annotations

from bot.locales import en
from tests.support.bot_runner import BotRunner
from tests.support.chat import (
    board_cells,
    current,
    highlighted,
    last_move,
    press,
    send,
    tap_cell,
)
from tests.support.fake_telegram import FakeTelegram

ALICE = FakeTelegram.user(1101, "Alice")
BOB = FakeTelegram.user(1102, "Bob")
GROUP = FakeTelegram.group_chat(-100900, "Friends")


def changed(before: str, after: str) -> set[int]:
    return {i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b}


async def test_the_ais_reply_is_the_framed_cell(telegram: FakeTelegram, bot: BotRunner) -> None:
    await send(telegram, ALICE, "/start hard 4")
    board = telegram.last_bot_message(ALICE["id"])
    assert last_move(telegram, board) is None  # no move yet
    await tap_cell(telegram, ALICE, board, 5)
    await bot.quiesce()  # the AI's reply on 4×4 comes after a search
    after = board_cells(telegram, current(telegram, board))
    [reply] = changed("_" * 16, after) - {5}
    assert after[reply] == "O"
    assert last_move(telegram, current(telegram, board)) == reply


async def test_the_ai_opening_as_o_is_framed(telegram: FakeTelegram, bot: BotRunner) -> None:
    await send(telegram, ALICE, "/start hard user")
    await bot.quiesce()
    board = current(telegram, telegram.last_bot_message(ALICE["id"]))
    [opening] = changed("_" * 9, board_cells(telegram, board))
    assert last_move(telegram, board) == opening


async def test_between_people_the_opponents_move_is_framed(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    telegram.add_chat(GROUP)
    await send(telegram, ALICE, "/start user user", chat=GROUP)
    board = telegram.last_bot_message(GROUP["id"])
    await press(telegram, BOB, board, en.BUTTON_JOIN)
    for player, cell in ((ALICE, 4), (BOB, 0), (ALICE, 8)):
        await tap_cell(telegram, player, current(telegram, board), cell)
        assert last_move(telegram, current(telegram, board)) == cell


async def test_a_winning_line_is_lit_and_not_framed(telegram: FakeTelegram, bot: BotRunner) -> None:
    await send(telegram, ALICE, "/start user user")
    board = telegram.last_bot_message(ALICE["id"])
    for cell in (0, 3, 1, 4, 2):  # X takes the top row with its last move
        await tap_cell(telegram, ALICE, current(telegram, board), cell)
    final = current(telegram, board)
    assert highlighted(telegram, final) == {0, 1, 2}
    assert last_move(telegram, final) is None
