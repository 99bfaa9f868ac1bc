"""End to end in a group: a game for three people, from the menu's button to the winner's
picture, with the refusals on the way; and what a private chat says to such a game."""

from __future__ import annotations

from bot.locales import en
from tests.support.bot_runner import BotRunner
from tests.support.chat import (
    assert_every_query_answered,
    board_cells,
    button_texts,
    current,
    press,
    send,
    tap_cell,
)
from tests.support.fake_telegram import FakeTelegram

GROUP = FakeTelegram.group_chat(-100950, "Friends")
ALICE = FakeTelegram.user(1001, "Alice")
BOB = FakeTelegram.user(1002, "Bob")
CAROL = FakeTelegram.user(1003, "Carol")
DAVE = FakeTelegram.user(1004, "Dave")


async def test_a_three_player_game_in_a_group(telegram: FakeTelegram, bot: BotRunner) -> None:
    await send(telegram, ALICE, "/start", chat=GROUP)
    menu = telegram.last_bot_message(GROUP["id"])
    assert {en.MENU_THREE_PLAYERS, en.MENU_FOUR_PLAYERS} <= set(button_texts(telegram, menu))
    await press(telegram, ALICE, menu, en.MENU_THREE_PLAYERS)
    board = telegram.last_bot_message(GROUP["id"])
    assert en.MANY_OPEN.format(name="Alice", seats=3, left=2) in board.text

    joined = await press(telegram, BOB, board, en.BUTTON_JOIN)
    assert joined["text"] == en.POPUP_JOINED.format(mark="⭕")
    assert en.MANY_OPEN.format(name="Alice", seats=3, left=1) in current(telegram, board).text
    again = await press(telegram, BOB, board, en.BUTTON_JOIN)
    assert again["text"] == en.POPUP_JOINED_ALREADY
    joined = await press(telegram, CAROL, board, en.BUTTON_JOIN)
    assert joined["text"] == en.POPUP_JOINED.format(mark="🔺")

    board = current(telegram, board)
    assert board.text.splitlines()[0] == "❌ Alice · ⭕ Bob · 🔺 Carol"
    assert "6×6, 4 in a row" in board.text
    assert board_cells(telegram, board, 6) == "_" * 36
    assert en.NAME_TO_MOVE.format(name="Alice", mark="❌") in board.text

    # Bob may not move before Alice, nor Dave ever.
    assert (await tap_cell(telegram, BOB, board, 0))["text"] == en.POPUP_NOT_YOUR_TURN
    assert (await tap_cell(telegram, DAVE, board, 0))["text"] == en.POPUP_NOT_A_PLAYER
    moves = [(ALICE, 0), (BOB, 6), (CAROL, 12), (ALICE, 1), (BOB, 7), (CAROL, 13)]
    moves += [(ALICE, 2), (BOB, 8), (CAROL, 14), (ALICE, 30), (BOB, 25), (CAROL, 15)]
    for user, cell in moves:
        assert not (await tap_cell(telegram, user, board, cell)).get("text"), (user, cell)
    final = current(telegram, board)
    assert en.RESULT_NAME_WON.format(name="Carol") in final.text
    labels = [label for row in telegram.keyboard(final)[:6] for label, _ in row]
    assert [i for i, label in enumerate(labels) if label == "🔻"] == [12, 13, 14, 15]
    assert board_cells(telegram, final, 6).count("T") == 4

    # The picture shows every seat. A rematch is a new game Carol opens: the others take a
    # seat if they want to (Alice's Rematch tap, Bob's Join), nobody is seated unasked.
    await press(telegram, DAVE, final, "🖼 Picture")
    assert any(m.photo for m in telegram.messages.values() if m.chat_id == GROUP["id"])
    await press(telegram, CAROL, final, "🔁 Rematch")
    rematch = telegram.last_bot_message(GROUP["id"])
    assert rematch.text.splitlines()[0] == "❌ Carol · ⭕ ? · 🔺 ?"
    assert en.MANY_OPEN.format(name="Carol", seats=3, left=2) in rematch.text
    assert (await press(telegram, DAVE, final, "🔁 Rematch"))["text"] == en.POPUP_NOT_A_PLAYER
    await press(telegram, ALICE, final, "🔁 Rematch")
    await press(telegram, BOB, rematch, en.BUTTON_JOIN)
    assert rematch.text.splitlines()[0] == "❌ Carol · ⭕ Alice · 🔺 Bob"
    assert_every_query_answered(telegram)


async def test_four_players_by_command_and_none_in_private(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/start user user user user 8")
    assert telegram.last_bot_message(ALICE["id"]).text == en.MANY_GROUPS_ONLY

    await send(telegram, ALICE, "/start user user user user 8", chat=GROUP)
    board = telegram.last_bot_message(GROUP["id"])
    assert en.MANY_OPEN.format(name="Alice", seats=4, left=3) in board.text
    for user in (BOB, CAROL, DAVE):
        await press(telegram, user, board, en.BUTTON_JOIN)
    board = current(telegram, board)
    assert board.text.splitlines()[0] == "❌ Alice · ⭕ Bob · 🔺 Carol · 🟦 Dave"
    assert "8×8, 4 in a row" in board.text
    # Bob resigns: the others play on, and his turn is passed by.
    await send(telegram, BOB, "/stop", chat=GROUP)
    board = current(telegram, board)
    assert en.MANY_OUT.format(names="Bob") in board.text
    assert not (await tap_cell(telegram, ALICE, board, 0)).get("text")
    assert en.NAME_TO_MOVE.format(name="Carol", mark="🔺") in current(telegram, board).text
    await send(telegram, ALICE, "/start user user user 4", chat=GROUP)
    refused = telegram.last_bot_message(GROUP["id"]).text.splitlines()
    assert refused[:2] == ["Bad parameters!", en.BAD_MANY_SIZE]
