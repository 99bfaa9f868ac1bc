"""End to end in a private chat: the real bot, over HTTP, against the fake Bot API server."""

from __future__ import annotations

from typing import Any

from bot.locales import en
from core.notation import parse_cells
from core.rules import outcome, winning_cells
from tests.support.bot_runner import BotRunner, quiesce, settle
from tests.support.chat import (
    assert_every_query_answered,
    board_cells,
    button_texts,
    current,
    highlighted,
    press,
    send,
    tap_cell,
    tap_data,
)
from tests.support.fake_telegram import FakeTelegram, StoredMessage

ALICE = FakeTelegram.user(1001, "Alice")


async def new_board(tg: FakeTelegram, user: dict[str, Any], command: str) -> StoredMessage:
    await send(tg, user, command)
    return tg.last_bot_message(user["id"])


async def play_to_the_end(
    tg: FakeTelegram, message: StoredMessage, pick: str = "first"
) -> StoredMessage:
    """Tap free cells (the first, or the last one) until the game is over."""
    for _ in range(9):
        cells = board_cells(tg, message)
        if outcome(parse_cells(cells)) != "Game not finished":
            break
        free = [i for i, c in enumerate(cells) if c == "_"]
        answer = await tap_cell(tg, ALICE, message, free[0] if pick == "first" else free[-1])
        assert "text" not in answer or not answer["text"], answer
    return current(tg, message)


async def test_start_shows_the_menu(telegram: FakeTelegram, bot: BotRunner) -> None:
    menu = await new_board(telegram, ALICE, "/start")
    assert "Welcome to Tic-Tac-Toe" in menu.text
    assert button_texts(telegram, menu) == [
        "❌ Easy",
        "❌ Medium",
        "❌ Hard",
        "⭕ Easy",
        "⭕ Medium",
        "⭕ Hard",
        "👥 Two players",
        "🤖 AI vs AI",
        "✔3×3",
        "4×4",
        "5×5",
        "6×6",
        "7×7",
        "8×8",
        "🧩 Ultimate vs Hard AI",
        "🧩 Ultimate: two players",
        "🌍 Play someone",
        "❓ Help",
    ]


async def test_full_games_against_every_level_by_taps(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    for level in ("easy", "medium", "hard"):
        board = await new_board(telegram, ALICE, f"/start {level}")
        assert f"❌ Alice vs ⭕ {level.capitalize()} AI" in board.text
        assert "Your move ❌" in board.text
        assert board_cells(telegram, board) == "_________"
        final = await play_to_the_end(telegram, board)
        words = outcome(parse_cells(board_cells(telegram, final)))
        assert words in ("X wins", "O wins", "Draw")
        assert words in final.text.splitlines()
        if words != "Draw":
            # Every winning line is highlighted: usually one, two when the last move made two.
            lit = highlighted(telegram, final)
            assert lit == winning_cells(parse_cells(board_cells(telegram, final)))
            assert len(lit) in (3, 5)
        if level == "hard":
            assert words != "X wins"
        # Review only where it has something to show: not after Alice's own win.
        review = [] if words == "X wins" else ["🔍 Review"]
        assert button_texts(telegram, final)[9:] == [
            "🔁 Play again",
            "🔄 Swap sides",
            "🎚 Another level",
            *review,
            "🖼 Picture",
            "🎬 Replay",
        ]
    assert_every_query_answered(telegram, exactly_once=False)


async def test_playing_as_o_from_the_menu_lets_the_ai_start(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    menu = await new_board(telegram, ALICE, "/start")
    answer = await tap_data(telegram, ALICE, menu, "n:hard:user")
    assert not answer.get("text")
    board = telegram.last_bot_message(ALICE["id"])
    assert board.key != menu.key
    cells = board_cells(telegram, board)
    assert cells.count("X") == 1 and cells.count("O") == 0
    assert "❌ Hard AI vs ⭕ Alice" in board.text and "Your move ⭕" in board.text
    final = await play_to_the_end(telegram, board, pick="last")
    assert "X wins" in final.text or "Draw" in final.text


async def test_two_players_on_one_phone_by_typed_moves(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await new_board(telegram, ALICE, "/start user user")
    assert "Two players" in board.text and "❌ to move" in board.text
    for move in ["1 1", "2 1", "1  2", "5"]:
        await send(telegram, ALICE, move)
    assert board_cells(telegram, telegram.messages[board.key]) == "XX_OO____"
    assert "❌ to move" in telegram.messages[board.key].text
    await send(telegram, ALICE, "3")
    final = telegram.messages[board.key]
    assert board_cells(telegram, final) == "XXXOO____"
    assert "X wins" in final.text.splitlines()
    assert highlighted(telegram, final) == {0, 1, 2}
    # No new messages: every move edited the one board in place.
    assert telegram.last_bot_message(ALICE["id"]).key == board.key


async def test_typed_moves_in_the_players_digits_and_with_a_comma_or_a_hyphen(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await new_board(telegram, ALICE, "/start user user")
    # Persian, full-width (with the full-width comma), a hyphen, a comma, Arabic-Indic.
    for move in ["۱ ۱", "１，２", "2-2", "2, 1", "٣ ٣"]:
        await send(telegram, ALICE, move)
        assert telegram.last_bot_message(ALICE["id"]).key == board.key, move  # no error
    final = current(telegram, board)
    assert board_cells(telegram, final) == "XO_OX___X"
    assert "X wins" in final.text.splitlines()


async def test_five_by_five_cell_numbers_out_of_range_name_the_cells(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await new_board(telegram, ALICE, "/start user user 5")
    for text, reply in [
        ("0", "Cell numbers are from 1 to 25!"),
        ("26", "Cell numbers are from 1 to 25!"),
        ("6 1", "Coordinates should be from 1 to 5!"),
        ("1-6", "Coordinates should be from 1 to 5!"),
    ]:
        await send(telegram, ALICE, text)
        assert telegram.last_bot_message(ALICE["id"]).text == reply, text


async def test_typed_mistakes_answer_with_hyperskill_texts_and_change_nothing(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await new_board(telegram, ALICE, "/start user user")
    await send(telegram, ALICE, "2 2")
    edits = telegram.messages[board.key].edit_count
    for text, reply in [
        ("one", "You should enter numbers!"),
        ("one three", "You should enter numbers!"),
        ("4 1", "Coordinates should be from 1 to 3!"),
        ("0", "Cell numbers are from 1 to 9!"),
        ("10", "Cell numbers are from 1 to 9!"),
        ("2 2", "This cell is occupied! Choose another one!"),
        ("5", "This cell is occupied! Choose another one!"),
    ]:
        await send(telegram, ALICE, text)
        assert telegram.last_bot_message(ALICE["id"]).text == reply, text
    assert telegram.messages[board.key].edit_count == edits
    assert board_cells(telegram, telegram.messages[board.key]) == "____X____"


async def test_typed_mistakes_are_answered_in_the_players_language(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    """core raises typed errors with no wording; a Russian-speaking player reads Russian."""
    boris = FakeTelegram.user(1002, "Борис", language_code="ru")
    board = await new_board(telegram, boris, "/start user user 5")
    await send(telegram, boris, "3 3")
    edits = telegram.messages[board.key].edit_count
    for text, reply in [
        ("3 3", "Эта клетка занята! Выбери другую!"),
        ("13", "Эта клетка занята! Выбери другую!"),
        ("6 1", "Координаты должны быть от 1 до 5!"),
        ("0 3", "Координаты должны быть от 1 до 5!"),
        # One number is a cell number: the answer names the cells, not the coordinates.
        ("26", "Номер клетки должен быть от 1 до 25!"),
        ("0", "Номер клетки должен быть от 1 до 25!"),
        ("٢٦", "Номер клетки должен быть от 1 до 25!"),
        ("три", "Нужно ввести числа!"),
    ]:
        await send(telegram, boris, text)
        assert telegram.last_bot_message(boris["id"]).text == reply, text
    assert telegram.messages[board.key].edit_count == edits
    assert board_cells(telegram, telegram.messages[board.key]) == "____________X____________"


async def test_typed_move_without_a_game_says_how_to_start(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ALICE, "2 2")
    assert "/start" in telegram.last_bot_message(ALICE["id"]).text


async def test_bad_parameters(telegram: FakeTelegram, bot: BotRunner) -> None:
    for command in ["/start foo", "/start user", "/start easy hard medium", "/start easy_nobody"]:
        await send(telegram, ALICE, command)
        reply = telegram.last_bot_message(ALICE["id"]).text
        assert reply.startswith("Bad parameters!\nUsage: /start"), command
    await send(telegram, ALICE, "1 1")
    assert "no game in progress" in telegram.last_bot_message(ALICE["id"]).text


async def test_bad_parameters_say_what_was_wrong_and_the_ranges(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    usage = en.BAD_PARAMETERS.splitlines()[1]
    assert all(word in usage for word in ("size", "k", "3 to 8", "ultimate"))
    for command, reason in [
        ("/start hard 9", en.BAD_SIZE),
        ("/start hard 2", en.BAD_SIZE),
        ("/start user user 9x9", en.BAD_SIZE),
        ("/start hard 6 7", en.BAD_K.format(size=6)),
        ("/start hard_5_2", en.BAD_K.format(size=5)),
        ("/start ultimate medium 5", en.BAD_ULTIMATE_SIZE),
    ]:
        await send(telegram, ALICE, command)
        reply = telegram.last_bot_message(ALICE["id"]).text
        assert reply.splitlines() == ["Bad parameters!", reason, usage], command
    assert "6×6" in en.BAD_K.format(size=6) and "3 to 6" in en.BAD_K.format(size=6)
    await send(telegram, ALICE, "/start foo")  # nothing to tell but the usage
    assert telegram.last_bot_message(ALICE["id"]).text == en.BAD_PARAMETERS


async def test_deep_link_hard_user_starts_with_the_ai(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await new_board(telegram, ALICE, "/start hard_user")
    assert board_cells(telegram, board).count("X") == 1
    assert "❌ Hard AI vs ⭕ Alice" in board.text


async def test_stale_repeated_and_forged_taps_get_a_popup_and_change_nothing(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await new_board(telegram, ALICE, "/start user user")
    old_data = telegram.keyboard(board)[0][0][1]
    await tap_cell(telegram, ALICE, board, 4)
    board = telegram.messages[board.key]
    state = (board.text, board.reply_markup, board.edit_count)
    since = telegram.mark()

    assert "occupied" in (await tap_cell(telegram, ALICE, board, 4))["text"]
    assert "out of date" in (await tap_data(telegram, ALICE, board, old_data))["text"]
    game_id = old_data.split(":")[1]
    for forged in [
        f"m:{int(game_id) + 50}:1:0",
        f"m:{game_id}:1:9",
        "m:x:1:0",
        "zzz",
        "n:god:user",
    ]:
        answer = await tap_data(telegram, ALICE, board, forged)
        assert answer.get("text"), forged
    # Another user tapping this board (e.g. a forwarded message) is refused too.
    mallory = FakeTelegram.user(666, "Mallory")
    assert "not your game" in (await tap_data(telegram, mallory, board, f"m:{game_id}:1:0"))["text"]

    board = telegram.messages[board.key]
    assert (board.text, board.reply_markup, board.edit_count) == state
    assert not [c for c in telegram.calls[since:] if c.method.startswith("edit")]
    assert_every_query_answered(telegram, exactly_once=False)


async def test_a_finished_game_refuses_taps(telegram: FakeTelegram, bot: BotRunner) -> None:
    board = await new_board(telegram, ALICE, "/start user user")
    for move in ["1 1", "2 1", "1 2", "2 2", "1 3"]:
        await send(telegram, ALICE, move)
    board = telegram.messages[board.key]
    edits = board.edit_count
    assert "over" in (await tap_cell(telegram, ALICE, board, 8))["text"]
    assert telegram.messages[board.key].edit_count == edits


async def test_resign_button_and_stop_command(telegram: FakeTelegram, bot: BotRunner) -> None:
    board = await new_board(telegram, ALICE, "/start medium")
    await tap_cell(telegram, ALICE, board, 4)
    board = telegram.messages[board.key]
    # Under the board: help against the AI, then resigning.
    assert [text for text, _ in telegram.keyboard(board)[3]] == ["💡 Hint", "↩️ Undo", "🏳 Resign"]
    # Resign asks first: the button becomes Yes / No; No gives the board back as it was.
    before = telegram.keyboard(board)
    asked = await press(telegram, ALICE, board, "🏳 Resign")
    assert asked["text"] == en.POPUP_RESIGN_CONFIRM
    row = [text for text, _ in telegram.keyboard(board)[3]]
    assert row == ["💡 Hint", "↩️ Undo", en.BUTTON_RESIGN_YES, en.BUTTON_RESIGN_NO]
    assert not (await press(telegram, ALICE, board, en.BUTTON_RESIGN_NO)).get("text")
    assert telegram.keyboard(board) == before and "Your move" in board.text
    await press(telegram, ALICE, board, "🏳 Resign")
    await press(telegram, ALICE, board, en.BUTTON_RESIGN_YES)
    final = telegram.messages[board.key]
    assert "O wins" in final.text and "You resigned" in final.text

    board = await new_board(telegram, ALICE, "/start easy")
    await send(telegram, ALICE, "/stop")
    assert "resigned" in telegram.last_bot_message(ALICE["id"]).text
    assert "O wins" in telegram.messages[board.key].text
    await send(telegram, ALICE, "/exit")
    assert "no game in progress" in telegram.last_bot_message(ALICE["id"]).text


async def test_a_new_game_closes_the_previous_board(telegram: FakeTelegram, bot: BotRunner) -> None:
    first = await new_board(telegram, ALICE, "/start easy")
    second = await new_board(telegram, ALICE, "/start hard")
    assert first.key != second.key
    assert en.GAME_REPLACED in telegram.messages[first.key].text
    assert "over" in (await tap_cell(telegram, ALICE, telegram.messages[first.key], 0))["text"]
    await send(telegram, ALICE, "2 2")
    assert board_cells(telegram, telegram.messages[second.key])[4] == "X"


async def test_two_starts_at_once_post_two_boards_and_keep_the_newest_game(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # Both updates arrive in one batch and are handled concurrently: the second start may
    # close the first game before its board is stored. Still one board per start.
    telegram.send_text(ALICE, "/start user user")
    telegram.send_text(ALICE, "/start user user")
    await settle(telegram)
    boards = telegram.bot_messages(ALICE["id"])
    assert len(boards) == 2
    await send(telegram, ALICE, "5")
    played = [m for m in telegram.bot_messages(ALICE["id"]) if board_cells(telegram, m)[4] == "X"]
    assert len(played) == 1


async def test_ai_vs_ai_plays_to_the_end_one_edit_per_move(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await new_board(telegram, ALICE, "/start easy hard")
    assert "❌ Easy AI vs ⭕ Hard AI" in board.text
    first_shown = telegram.calls_of("sendMessage")[-1].params["reply_markup"]["inline_keyboard"]
    assert {button["text"] for row in first_shown[:3] for button in row} == {"·"}

    def finished() -> bool:
        text = telegram.messages[board.key].text
        return any(w in text.splitlines() for w in ("X wins", "O wins", "Draw"))

    await telegram.wait_until(finished, timeout=10, what="the AI match to finish")
    final = telegram.messages[board.key]
    cells = board_cells(telegram, final)
    assert outcome(parse_cells(cells)) in final.text
    assert final.edit_count == 9 - cells.count("_")
    assert outcome(parse_cells(cells)) != "X wins"  # hard never loses
    await quiesce(telegram)
    assert telegram.messages[board.key].edit_count == final.edit_count


async def test_a_restart_in_the_middle_of_a_game_loses_nothing(
    telegram: FakeTelegram, database_url: str
) -> None:
    runner = BotRunner(telegram, database_url)
    await runner.start()
    try:
        board = await new_board(telegram, ALICE, "/start user user")
        await tap_cell(telegram, ALICE, board, 0)
        await tap_cell(telegram, ALICE, telegram.messages[board.key], 3)
    finally:
        await runner.stop()

    restarted = BotRunner(telegram, database_url)
    await restarted.start()
    try:
        board = telegram.messages[board.key]
        assert board_cells(telegram, board) == "X__O_____"
        await tap_cell(telegram, ALICE, board, 1)
        await send(telegram, ALICE, "3 1")
        await tap_cell(telegram, ALICE, telegram.messages[board.key], 2)
        final = telegram.messages[board.key]
        assert board_cells(telegram, final) == "XXXO__O__"
        assert "X wins" in final.text
    finally:
        await restarted.stop()


async def test_an_ai_match_resumes_after_a_restart(
    telegram: FakeTelegram, database_url: str
) -> None:
    runner = BotRunner(telegram, database_url, ai_pause=0.3)
    await runner.start()
    try:
        board = await new_board(telegram, ALICE, "/start hard hard")
        await telegram.wait_until(lambda: telegram.messages[board.key].edit_count >= 1)
    finally:
        await runner.stop()
    stopped_at = telegram.messages[board.key].edit_count
    assert stopped_at < 9

    restarted = BotRunner(telegram, database_url, ai_pause=0.01)
    await restarted.start()
    try:
        await telegram.wait_until(
            lambda: "Draw" in telegram.messages[board.key].text, timeout=10, what="a draw"
        )
        assert board_cells(telegram, telegram.messages[board.key]).count("_") == 0
    finally:
        await restarted.stop()


async def test_stats_after_several_games(telegram: FakeTelegram, bot: BotRunner) -> None:
    await send(telegram, ALICE, "/stats")
    assert "No finished games" in telegram.last_bot_message(ALICE["id"]).text
    for _ in range(2):
        await play_to_the_end(telegram, await new_board(telegram, ALICE, "/start hard"))
    await new_board(telegram, ALICE, "/start medium")
    await send(telegram, ALICE, "/stop")  # before any move: counts nowhere
    await tap_cell(telegram, ALICE, await new_board(telegram, ALICE, "/start easy"), 4)
    await send(telegram, ALICE, "/stop")
    await send(telegram, ALICE, "/start user user")  # two players on one phone: not counted
    await send(telegram, ALICE, "/stop")
    await send(telegram, ALICE, "/stats")
    lines = telegram.last_bot_message(ALICE["id"]).text.splitlines()
    assert lines[1] == "Easy: 0 / 1 / 0"
    hard = lines[2]
    wins, losses, draws = (int(n) for n in hard.removeprefix("Hard: ").split(" / "))
    assert wins == 0 and losses + draws == 2
    assert lines[3] == f"Total: 0 / {losses + 1} / {draws} in 3 games"


async def test_help(telegram: FakeTelegram, bot: BotRunner) -> None:
    await send(telegram, ALICE, "/help")
    assert "How to play" in telegram.last_bot_message(ALICE["id"]).text
    menu = await new_board(telegram, ALICE, "/start")
    await tap_data(telegram, ALICE, menu, "help")
    assert "How to play" in telegram.last_bot_message(ALICE["id"]).text
    # Data that only begins like the help button's is no help button (found by the fuzz test).
    sent = len(telegram.bot_messages(ALICE["id"]))
    answer = await tap_data(telegram, ALICE, menu, "help:")
    assert answer.get("text") == en.POPUP_UNKNOWN_BUTTON
    assert len(telegram.bot_messages(ALICE["id"])) == sent
