"""End to end on bigger boards: 5×5 and 8×8 in a private chat, 6×6 between two people in a
group. The hard AI's replies on these boards are searched in a worker process."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from core.notation import parse_cells
from core.rules import outcome
from tests.support.bot_runner import BotRunner
from tests.support.chat import RESULTS, board_cells, button_texts, current, send, tap_cell, tap_data
from tests.support.fake_telegram import FakeTelegram, StoredMessage

ALICE = FakeTelegram.user(2001, "Alice", username="alice")
BOB = FakeTelegram.user(2002, "Bob", username="bob")
GROUP = FakeTelegram.group_chat(-200500, "Big boards")


@pytest.fixture
async def big_bot(telegram: FakeTelegram, database_url: str) -> AsyncIterator[BotRunner]:
    """The bot with a short thinking time for hard, so whole games stay quick."""
    runner = BotRunner(telegram, database_url, ai_time_budget_seconds=0.05)
    await runner.start()
    try:
        yield runner
    finally:
        await runner.stop()


def finished(message: StoredMessage) -> bool:
    return any(word in message.text.splitlines() for word in RESULTS)


async def ai_has_answered(tg: FakeTelegram, board: StoredMessage, size: int) -> None:
    """Wait until it is the user's move again (or the game is over)."""

    def done() -> bool:
        message = current(tg, board)
        placed = board_cells(tg, message, size)
        return finished(message) or placed.count("X") == placed.count("O")

    await tg.wait_until(done, timeout=20, what="the AI's reply")


async def play_against_hard(
    tg: FakeTelegram, board: StoredMessage, size: int, typed: bool
) -> StoredMessage:
    """Play the first free cell (by tap, or typed as `row col`) until the game ends."""
    for _ in range(size * size):
        message = current(tg, board)
        if finished(message):
            return message
        free = board_cells(tg, message, size).index("_")
        if typed:
            await send(tg, ALICE, f"{free // size + 1} {free % size + 1}")
        else:
            answer = await tap_cell(tg, ALICE, message, free)
            assert not answer.get("text"), answer
        await ai_has_answered(tg, board, size)
    raise AssertionError("the game did not end")


async def test_a_5x5_game_against_hard_by_taps_and_typed_moves(
    telegram: FakeTelegram, big_bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/start hard 5")
    board = telegram.last_bot_message(ALICE["id"])
    assert "5×5, 4 in a row" in board.text
    assert board_cells(telegram, board, 5) == "_" * 25
    assert len(telegram.keyboard(board)) == 6  # five rows of cells, then Resign

    await send(telegram, ALICE, "13")  # cell numbers run to 25 on 5×5
    await ai_has_answered(telegram, board, 5)
    placed = board_cells(telegram, current(telegram, board), 5)
    assert placed[12] == "X" and placed.count("O") == 1
    for text, reply in [
        ("6 1", "Coordinates should be from 1 to 5!"),
        ("26", "Cell numbers are from 1 to 25!"),
        ("3 3", "This cell is occupied! Choose another one!"),
        ("three", "You should enter numbers!"),
    ]:
        await send(telegram, ALICE, text)
        assert telegram.last_bot_message(ALICE["id"]).text == reply, text

    final = await play_against_hard(telegram, board, 5, typed=False)
    placed = board_cells(telegram, final, 5)
    words = outcome(parse_cells(placed, k=4))
    # Whether hard wins is the AI's business (tests/core/test_search.py, bench/ai.py); here the
    # result must be the board's.
    assert words in final.text.splitlines()
    assert "🔍 Review" not in button_texts(telegram, final)


async def test_an_8x8_game_by_typed_moves(telegram: FakeTelegram, big_bot: BotRunner) -> None:
    await send(telegram, ALICE, "/start hard_8")  # the deep-link form
    board = telegram.last_bot_message(ALICE["id"])
    assert "8×8, 5 in a row" in board.text
    # Hint and Resign under the board (nothing to undo yet).
    assert [len(row) for row in telegram.keyboard(board)] == [8] * 8 + [2]
    await send(telegram, ALICE, "9 1")
    assert telegram.last_bot_message(ALICE["id"]).text == "Coordinates should be from 1 to 8!"
    await send(telegram, ALICE, "64")
    await ai_has_answered(telegram, board, 8)
    assert board_cells(telegram, current(telegram, board), 8)[63] == "X"

    final = await play_against_hard(telegram, board, 8, typed=True)
    words = outcome(parse_cells(board_cells(telegram, final, 8), k=5))
    assert words in final.text.splitlines()


async def test_the_menu_offers_sizes_and_starts_a_game_on_the_chosen_one(
    telegram: FakeTelegram, big_bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/start")
    menu = telegram.last_bot_message(ALICE["id"])
    size_row = telegram.keyboard(menu)[3]
    assert [text for text, _ in size_row] == ["✔3×3", "4×4", "5×5", "6×6", "7×7", "8×8"]
    await tap_data(telegram, ALICE, menu, size_row[4][1] or "")
    redrawn = current(telegram, menu)
    assert [text for text, _ in telegram.keyboard(redrawn)[3]][4] == "✔7×7"
    await tap_data(telegram, ALICE, redrawn, telegram.keyboard(redrawn)[0][0][1] or "")  # ❌ Easy
    game = telegram.last_bot_message(ALICE["id"])
    assert "7×7, 5 in a row" in game.text and "Easy AI" in game.text
    assert len(telegram.keyboard(game)[0]) == 7


async def test_a_custom_line_length_and_bad_sizes(
    telegram: FakeTelegram, big_bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/start user user 6 4")
    assert "6×6, 4 in a row" in telegram.last_bot_message(ALICE["id"]).text
    for command in ["/start hard 9", "/start hard 2", "/start hard 5 6", "/start hard 5x6"]:
        await send(telegram, ALICE, command)
        assert telegram.last_bot_message(ALICE["id"]).text.startswith("Bad parameters!"), command


async def test_a_6x6_group_game_between_two_people(
    telegram: FakeTelegram, big_bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/challenge 6", chat=GROUP)
    board = telegram.last_bot_message(GROUP["id"])
    assert "6×6, 5 in a row" in board.text
    join = telegram.keyboard(board)[0][0][1]
    await tap_data(telegram, BOB, board, join or "")
    board = current(telegram, board)
    assert "Alice's turn" in board.text and len(telegram.keyboard(board)) == 7

    # Alice fills the top row's first five cells; Bob answers on the second row.
    moves = [(ALICE, 0), (BOB, 6), (ALICE, 1), (BOB, 7), (ALICE, 2), (BOB, 8), (ALICE, 3)]
    for user, cell in moves:
        answer = await tap_cell(telegram, user, current(telegram, board), cell)
        assert not answer.get("text"), (user["first_name"], cell, answer)
    # Bob replies to the board with a typed move; then Alice completes five in a row.
    await send(telegram, BOB, "2 4", chat=GROUP, reply_to=current(telegram, board))
    assert board_cells(telegram, current(telegram, board), 6)[9] == "O"
    answer = await tap_cell(telegram, BOB, current(telegram, board), 20)
    assert answer["text"] == "It's not your turn."
    await tap_cell(telegram, ALICE, current(telegram, board), 4)
    final = current(telegram, board)
    assert "X wins" in final.text.splitlines() and "Alice wins" in final.text
    highlighted = [
        i
        for i, (text, _) in enumerate(b for row in telegram.keyboard(final)[:6] for b in row)
        if text == "❎"
    ]
    assert highlighted == [0, 1, 2, 3, 4]
    assert [t for t, _ in telegram.keyboard(final)[6]] == ["🔁 Rematch"]


async def test_hard_answers_in_the_same_edit_as_the_move_on_a_big_board(
    telegram: FakeTelegram, big_bot: BotRunner
) -> None:
    """Hard needs at most 50 ms of CPU on the classic boards: its reply comes in the edit that
    shows the person's move, and its first move on the board as it is posted; no "thinking…"
    edit costs the player a second of the chat's pace."""
    await send(telegram, ALICE, "/start hard user 6")  # hard plays ❌ and moves first
    board = telegram.last_bot_message(ALICE["id"])
    assert len(board.history) == 1 and board_cells(telegram, board, 6).count("X") == 1
    for _ in range(3):
        message = current(telegram, board)
        before = len(message.history)
        free = board_cells(telegram, message, 6).index("_")
        await tap_cell(telegram, ALICE, message, free)
        after = current(telegram, board)
        placed = board_cells(telegram, after, 6)
        assert len(after.history) == before + 1, [text for text, _ in after.history[before:]]
        assert placed[free] == "O" and placed.count("X") == placed.count("O") + 1
    assert not any("thinking" in text for text, _ in current(telegram, board).history)
