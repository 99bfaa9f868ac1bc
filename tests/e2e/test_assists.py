"""End to end: hints and undo against the AI, by buttons and by commands, and how an assisted
game shows on its board and in /stats."""

from __future__ import annotations

from bot.locales import en
from core.notation import parse_cells
from core.rules import is_over
from core.solver import best_moves
from tests.support.bot_runner import BotRunner, settle
from tests.support.chat import (
    assert_every_query_answered,
    board_cells,
    button_texts,
    current,
    not_modified,
    press,
    send,
    state,
    tap_cell,
    tap_data,
)
from tests.support.fake_telegram import FakeTelegram, StoredMessage

ALICE = FakeTelegram.user(1001, "Alice")
BOB = FakeTelegram.user(1002, "Bob")
GROUP = FakeTelegram.group_chat(-100700, "Friends")


def hinted_cell(tg: FakeTelegram, board: StoredMessage) -> int | None:
    """The cell shown lit by a hint, if any."""
    labels = [text for row in tg.keyboard(board)[:3] for text, _ in row]
    return labels.index("💡") if "💡" in labels else None


def hint_words(cell: int) -> str:
    return en.HINT.format(cell=f"{cell // 3 + 1} {cell % 3 + 1}")


async def test_a_hinted_and_undone_game_against_hard(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/start hard")
    board = telegram.last_bot_message(ALICE["id"])
    assert "💡 Hint" in button_texts(telegram, board)
    assert "↩️ Undo" not in button_texts(telegram, board)  # nothing to take back yet
    assert en.ASSISTED_LINE not in board.text

    answer = await press(telegram, ALICE, board, "💡 Hint")
    cell = hinted_cell(telegram, current(telegram, board))
    assert cell is not None and cell in best_moves(parse_cells("_" * 9))
    assert answer["text"] == hint_words(cell)
    assert en.ASSISTED_LINE in current(telegram, board).text

    # The lit cell is a cell like the others: tapping it plays there.
    assert not (await tap_cell(telegram, ALICE, board, cell)).get("text")
    after_move = board_cells(telegram, current(telegram, board))
    assert after_move[cell] == "X" and after_move.count("O") == 1
    assert hinted_cell(telegram, current(telegram, board)) is None

    answer = await press(telegram, ALICE, board, "↩️ Undo")
    assert answer["text"] == en.UNDONE
    assert board_cells(telegram, current(telegram, board)) == "_" * 9

    # Play on to the end with hints: hard never loses, and Alice plays its best moves.
    while not is_over(parse_cells(board_cells(telegram, current(telegram, board)))):
        await press(telegram, ALICE, board, "💡 Hint")
        cell = hinted_cell(telegram, current(telegram, board))
        assert cell is not None
        assert not (await tap_cell(telegram, ALICE, board, cell)).get("text")
    final = current(telegram, board)
    assert "Draw" in final.text.splitlines()
    assert en.ASSISTED_LINE in final.text  # marked on the final board
    assert "💡 Hint" not in button_texts(telegram, final)

    await send(telegram, ALICE, "/stats")
    stats = telegram.last_bot_message(ALICE["id"]).text.splitlines()
    assert en.STATS_ASSISTED.format(wins=0, losses=0, draws=1) in stats
    assert not any(line.startswith(en.LEVEL_NAMES["hard"]) for line in stats)
    assert_every_query_answered(telegram)


async def test_hint_and_undo_commands(telegram: FakeTelegram, bot: BotRunner) -> None:
    await send(telegram, ALICE, "/hint")
    assert telegram.last_bot_message(ALICE["id"]).text == en.NO_AI_GAME

    await send(telegram, ALICE, "/start medium")
    board = telegram.last_bot_message(ALICE["id"])
    await send(telegram, ALICE, "/undo")
    assert telegram.last_bot_message(ALICE["id"]).text == en.POPUP_NOTHING_TO_UNDO

    await send(telegram, ALICE, "2 2")
    played = board_cells(telegram, current(telegram, board))
    await send(telegram, ALICE, "/hint")
    cell = hinted_cell(telegram, current(telegram, board))
    assert cell is not None and played[cell] == "_"
    assert telegram.last_bot_message(ALICE["id"]).text == hint_words(cell)
    assert cell in best_moves(parse_cells(played))

    await send(telegram, ALICE, "/undo")
    assert telegram.last_bot_message(ALICE["id"]).text == en.UNDONE
    assert board_cells(telegram, current(telegram, board)) == "_" * 9

    # Between people there is no help to have.
    await send(telegram, ALICE, "/start user user")
    await send(telegram, ALICE, "/hint")
    assert telegram.last_bot_message(ALICE["id"]).text == en.NO_AI_GAME


async def test_two_players_on_one_phone_take_back_the_last_move(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/start user user")
    board = telegram.last_bot_message(ALICE["id"])
    assert "↩️ Undo" not in button_texts(telegram, board)  # nothing to take back yet
    assert "💡 Hint" not in button_texts(telegram, board)  # no help between people
    for cell in (4, 0):
        await tap_cell(telegram, ALICE, board, cell)
    assert (await press(telegram, ALICE, board, "↩️ Undo"))["text"] == en.UNDONE_LAST
    # ⭕'s move is taken back, ❌'s stays: ⭕ is to move again.
    assert board_cells(telegram, current(telegram, board)) == "____X____"
    assert "⭕ to move" in current(telegram, board).text
    # /undo does the same.
    await send(telegram, ALICE, "/undo")
    assert telegram.last_bot_message(ALICE["id"]).text == en.UNDONE_LAST
    assert board_cells(telegram, current(telegram, board)) == "_" * 9
    assert "↩️ Undo" not in button_texts(telegram, current(telegram, board))
    assert_every_query_answered(telegram)


async def test_refused_and_repeated_assist_taps_change_nothing(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/start hard", chat=GROUP)
    board = telegram.last_bot_message(GROUP["id"])
    assert not (await tap_cell(telegram, ALICE, board, 4)).get("text")
    board = current(telegram, board)
    before = state(board)

    # Somebody who does not play, a stale board, forged data, a game between people.
    assert (await press(telegram, BOB, board, "💡 Hint"))["text"] == en.POPUP_NOT_A_PLAYER
    assert (await press(telegram, BOB, board, "↩️ Undo"))["text"] == en.POPUP_NOT_A_PLAYER
    game_id = int((telegram.keyboard(board)[0][0][1] or "").split(":")[1])
    stale = await tap_data(telegram, ALICE, board, f"u:{game_id}:0")
    assert stale["text"] == en.POPUP_STALE
    forged = await tap_data(telegram, ALICE, board, f"h:{game_id}:x")
    assert forged["text"] == en.POPUP_UNKNOWN_BUTTON
    assert state(current(telegram, board)) == before

    # Undo tapped twice: the second tap is one on the same drawing (answered, nothing done),
    # or finds the board it drew gone (or loses the version race): one undo, one refusal.
    undo_data = next(data for text, data in telegram.keyboard(board)[3] if text == "↩️ Undo")
    first = telegram.tap(ALICE, board, undo_data or "")
    second = telegram.tap(ALICE, board, undo_data or "")
    answers = [await telegram.answer_to(first), await telegram.answer_to(second)]
    texts = sorted(a.get("text") or "" for a in answers)
    assert en.UNDONE in texts and len(set(texts)) == 2
    assert {*texts} - {en.UNDONE} <= {en.POPUP_STALE, en.POPUP_CONFLICT, en.POPUP_TAPPED_ALREADY}
    await settle(telegram)
    assert board_cells(telegram, current(telegram, board)) == "_" * 9

    await send(telegram, ALICE, "/challenge", chat=GROUP)
    challenge = telegram.last_bot_message(GROUP["id"])
    await press(telegram, BOB, challenge, en.BUTTON_JOIN)
    people = int((telegram.keyboard(challenge)[0][0][1] or "").split(":")[1])
    refused = await tap_data(telegram, ALICE, challenge, f"h:{people}:0")
    assert refused["text"] == en.POPUP_NOT_AGAINST_AI
    assert_every_query_answered(telegram)


async def test_hint_asked_again_of_the_same_position_edits_nothing(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # A journey's /hint after 💡 on the same position: 3×3's hint is the same every time, and
    # the board was drawn again as it was, refused as "not modified" (issue 51, item 8).
    await send(telegram, ALICE, "/start hard")
    board = telegram.last_bot_message(ALICE["id"])
    await send(telegram, ALICE, "/hint")
    lit = current(telegram, board)
    await send(telegram, ALICE, "/hint")
    assert current(telegram, board).edit_count == lit.edit_count
    assert telegram.last_bot_message(ALICE["id"]).text.startswith(en.HINT.split("{")[0])
    assert not_modified(telegram) == []
