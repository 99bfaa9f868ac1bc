"""End to end: ultimate tic-tac-toe in chat, played to the end by taps (choosing small boards
on the keyboard) and by typed moves, with the refusals on the way."""

from __future__ import annotations

import io
import random

from PIL import Image

from bot.games.model import GameView
from bot.games.use_cases import Games
from bot.locales import en
from bot.views.ultimate import IN_PLAY, NUMBERS
from core.positions import ultimate_board
from core.ultimate import rules as ultimate
from tests.support.bot_runner import BotRunner
from tests.support.chat import (
    assert_every_query_answered,
    current,
    not_modified,
    press,
    send,
    settle,
    tap_data,
    words,
)
from tests.support.fake_telegram import FakeTelegram, StoredMessage

ALICE = FakeTelegram.user(1001, "Alice")


def game_id_of(tg: FakeTelegram, board: StoredMessage) -> int:
    data = next(d for row in tg.keyboard(board) for _, d in row if d and ":" in d)
    return int(data.split(":")[1])


async def stored(bot: BotRunner, game_id: int) -> GameView:
    assert bot.application is not None
    games: Games = bot.application.bot_data.running.games
    game = await games.store.get_game(game_id)
    assert game is not None
    return game


def assert_result_is_the_positions(game: GameView, message: StoredMessage) -> None:
    position = ultimate_board(game.board, game.last_cell)
    assert game.is_finished and ultimate.is_over(position)
    assert words(message) == ultimate.outcome(position)
    assert game.result == (ultimate.winner(position) or "draw")


async def test_an_ultimate_game_by_taps_to_the_end(telegram: FakeTelegram, bot: BotRunner) -> None:
    await send(telegram, ALICE, "/start ultimate easy")
    board = telegram.last_bot_message(ALICE["id"])
    assert en.ULTIMATE_LINE in board.text and en.ULTIMATE_CHOOSE in board.text
    game_id = game_id_of(telegram, board)
    # X may start anywhere: first the choice of small boards, numbered.
    assert [label for row in telegram.keyboard(board)[:3] for label, _ in row] == list(NUMBERS)
    refused = await tap_data(telegram, ALICE, board, f"ub:{game_id}:5:4")
    assert refused["text"] == en.POPUP_STALE
    assert (await tap_data(telegram, ALICE, board, f"ub:{game_id}:0:9"))["text"] == (
        en.POPUP_UNKNOWN_BUTTON
    )

    for _ in range(81):
        message = current(telegram, board)
        if words(message):
            break
        rows = telegram.keyboard(message)[:3]
        labels = [label for row in rows for label, _ in row]
        if labels[0] in NUMBERS or any(label in NUMBERS for label in labels):
            choice = next(d for row in rows for label, d in row if label in NUMBERS)
            assert not (await tap_data(telegram, ALICE, message, choice or "")).get("text")
            message = current(telegram, board)
            rows = telegram.keyboard(message)[:3]
            assert telegram.keyboard(message)[3][0][0] == en.BUTTON_BOARDS
        cell = next(d for row in rows for label, d in row if label == IN_PLAY)
        assert (cell or "").startswith("m:")
        assert not (await tap_data(telegram, ALICE, message, cell or "")).get("text")
    final = current(telegram, board)
    game = await stored(bot, game_id)
    assert_result_is_the_positions(game, final)

    await press(telegram, ALICE, final, "🖼 Picture")
    picture = next(m for m in telegram.messages.values() if m.photo is not None).photo or b""
    Image.open(io.BytesIO(picture)).verify()
    assert_every_query_answered(telegram)


async def test_the_text_says_which_small_board_was_chosen(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/start ultimate easy")
    board = telegram.last_bot_message(ALICE["id"])
    assert en.ULTIMATE_CHOOSE in board.text
    five = next(d for row in telegram.keyboard(board) for label, d in row if label == NUMBERS[4])
    assert not (await tap_data(telegram, ALICE, board, five or "")).get("text")
    chosen = current(telegram, board)
    assert en.ULTIMATE_CHOSEN.format(board=5) in chosen.text
    assert en.ULTIMATE_CHOOSE not in chosen.text
    # Back to the choice: the text offers the choice again.
    await press(telegram, ALICE, chosen, en.BUTTON_BOARDS)
    back = current(telegram, board)
    assert en.ULTIMATE_CHOOSE in back.text and en.ULTIMATE_CHOSEN.format(board=5) not in back.text
    assert_every_query_answered(telegram)


async def test_a_double_tap_on_a_small_board_draws_it_once_and_it_can_be_chosen_again(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # A journey's double tap on a small board's button: both taps drew it, the second
    # refused as "not modified" (issue 51, item 8). A tap acts once on the drawing it was
    # made on; the same button on a later drawing works again.
    await send(telegram, ALICE, "/start ultimate easy")
    board = telegram.last_bot_message(ALICE["id"])
    five = next(d for row in telegram.keyboard(board) for label, d in row if label == NUMBERS[4])
    queries = [telegram.tap(ALICE, board, five or "") for _ in range(2)]
    answers = [(await telegram.answer_to(query)).get("text") for query in queries]
    await settle(telegram)
    assert sorted(answer or "" for answer in answers) == ["", en.POPUP_TAPPED_ALREADY]
    assert en.ULTIMATE_CHOSEN.format(board=5) in current(telegram, board).text
    assert not_modified(telegram) == []
    await press(telegram, ALICE, current(telegram, board), en.BUTTON_BOARDS)
    assert en.ULTIMATE_CHOOSE in current(telegram, board).text
    assert not (await tap_data(telegram, ALICE, current(telegram, board), five or "")).get("text")
    assert en.ULTIMATE_CHOSEN.format(board=5) in current(telegram, board).text


async def test_an_ultimate_game_on_one_phone_by_typed_moves(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/start ultimate user user")
    board = telegram.last_bot_message(ALICE["id"])
    game_id = game_id_of(telegram, board)
    await send(telegram, ALICE, "5 5")
    # O is sent to the centre board: a cell anywhere else is refused, in words.
    await send(telegram, ALICE, "r1 c1")
    assert telegram.last_bot_message(ALICE["id"]).text == en.ERROR_WRONG_BOARD.format(boards="5")
    await send(telegram, ALICE, "10 1")
    assert telegram.last_bot_message(ALICE["id"]).text == en.ERROR_OUT_OF_RANGE.format(size=9)
    await send(telegram, ALICE, "10")  # a cell of the small board in play: 1 to 9
    assert telegram.last_bot_message(ALICE["id"]).text == en.ERROR_CELL_OUT_OF_RANGE.format(cells=9)
    await send(telegram, ALICE, "5 5")
    assert telegram.last_bot_message(ALICE["id"]).text == en.ERROR_OCCUPIED
    assert en.ULTIMATE_PLAY_IN.format(board=5) in current(telegram, board).text

    rng = random.Random(13)
    for turn in range(81):
        game = await stored(bot, game_id)
        if not game.is_active:
            break
        position = ultimate_board(game.board, game.last_cell)
        cell = rng.choice(ultimate.legal_moves(position))
        forms = [
            "{} {}".format(*ultimate.block_cell_numbers(cell)),
            "r{} c{}".format(*ultimate.grid_row_col(cell)),
        ]
        await send(telegram, ALICE, forms[turn % 2])
        after = await stored(bot, game_id)
        assert after.ply == game.ply + 1 and after.last_cell == cell
    assert_result_is_the_positions(await stored(bot, game_id), current(telegram, board))
