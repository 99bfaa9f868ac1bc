"""End to end in inline mode: `@bot` in any chat offers challenges and games against the AI;
choosing a result posts an inline message (the fake creates it as Telegram does), and every
game is played by taps on that one message."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

from bot.locales import en, ru
from bot.wire.callback_data import pack
from bot.wire.codec import inline_key
from bot.wire.taps import InlineAiTap, InlineJoinTap
from core.board import Board
from core.rules import play
from core.solver import position_score
from tests.support.bot_runner import BotRunner, settle
from tests.support.chat import (
    assert_every_query_answered,
    board_cells,
    button_texts,
    highlighted,
    play_cells,
    press,
    state,
    tap_cell,
    tap_data,
    words,
)
from tests.support.fake_telegram import FakeTelegram, StoredMessage

ALICE = FakeTelegram.user(1001, "Alice", username="alice")
BOB = FakeTelegram.user(1002, "Bob", username="bob")
CAROL = FakeTelegram.user(1003, "Carol")
IVAN = FakeTelegram.user(1005, "Ivan", language_code="ru")

JOIN, REMATCH, REVIEW, RESIGN = "✋ Join", "🔁 Rematch", "🔍 Review", "🏳 Resign"


async def offer(tg: FakeTelegram, user: dict[str, Any], query: str = "") -> list[dict[str, Any]]:
    """Type `@bot <query>`: the results the bot answered with."""
    query_id = tg.inline_query(user, query)
    await tg.wait_for(
        lambda call: (
            call.method == "answerInlineQuery"
            and str(call.params.get("inline_query_id")) == query_id
        )
    )
    await settle(tg)
    return tg.inline_answers[query_id]["results"]


def result(results: list[dict[str, Any]], prefix: str) -> dict[str, Any]:
    [found] = [r for r in results if r["id"].startswith(prefix)]
    return found


def choose(tg: FakeTelegram, chosen: dict[str, Any]) -> StoredMessage:
    """Send a result into a chat: Telegram posts it as an inline message of the bot."""
    return tg.add_inline_message(
        chosen["input_message_content"]["message_text"], chosen["reply_markup"]
    )


async def challenge_of(tg: FakeTelegram, creator: dict[str, Any], mark: str = "X") -> StoredMessage:
    return choose(tg, result(await offer(tg, creator), f"challenge-{mark}"))


async def test_the_inline_query_offers_two_challenges_and_three_ai_levels(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    query_id = telegram.inline_query(ALICE, "")
    await telegram.wait_for("answerInlineQuery")
    await settle(telegram)
    answer = telegram.inline_answers[query_id]
    assert answer["is_personal"] is True and answer["cache_time"] == 10
    results = answer["results"]
    assert [r["title"] for r in results] == [
        "Challenge: you play ❌",
        "Challenge: you play ⭕",
        "Play the Easy AI here",
        "Play the Medium AI here",
        "Play the Hard AI here",
    ]
    assert all(r["type"] == "article" and r["description"] for r in results)
    x, o = result(results, "challenge-X"), result(results, "challenge-O")
    assert x["input_message_content"]["message_text"] == (
        "Alice wants to play Tic-Tac-Toe as ❌! Tap Join to play ⭕."
    )
    assert o["input_message_content"]["message_text"] == (
        "Alice wants to play Tic-Tac-Toe as ⭕! Tap Join to play ❌."
    )
    key = inline_key(telegram.token)
    assert x["reply_markup"] == {
        "inline_keyboard": [[{"text": JOIN, "callback_data": signed("ij:1001:X", key)}]]
    }
    assert o["reply_markup"] == {
        "inline_keyboard": [[{"text": JOIN, "callback_data": signed("ij:1001:O", key)}]]
    }
    for level, name in (("easy", "Easy"), ("medium", "Medium"), ("hard", "Hard")):
        ai = result(results, f"ai-{level}")
        assert ai["input_message_content"]["message_text"] == (
            f"Alice vs {name} AI: Alice's move ❌, tap a cell."
        )
        assert ai["reply_markup"]["inline_keyboard"] == [
            [
                {"text": "·", "callback_data": signed(f"ia:1001:{level}:{row * 3 + col}", key)}
                for col in range(3)
            ]
            for row in range(3)
        ]

    ru_results = await offer(telegram, IVAN)
    assert [r["title"] for r in ru_results][:3] == [
        ru.INLINE_CHALLENGE_X_TITLE,
        ru.INLINE_CHALLENGE_O_TITLE,
        ru.INLINE_AI_TITLE.format(level="Лёгкий"),
    ]
    assert ru.INLINE_CHALLENGE_X_TITLE != en.INLINE_CHALLENGE_X_TITLE
    # Nothing was posted anywhere: games start with the first tap on a chosen result.
    assert not telegram.calls_of("sendMessage") and not telegram.calls_of("editMessageText")


async def test_a_query_that_names_no_board_says_which_sizes_exist(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    for query in ("99", "2", "9x9", "big"):
        results = await offer(telegram, ALICE, query)
        # First a note on the sizes, then the five games on 3×3.
        note, *games = results
        assert note["id"] == "sizes" and note["type"] == "article", query
        assert note["title"] == en.INLINE_SIZES_TITLE == "Board sizes: 3×3 to 8×8"
        assert note["description"] == en.INLINE_SIZES_DESCRIPTION
        text = note["input_message_content"]["message_text"]
        assert text == en.INLINE_SIZES_TEXT.format(bot=telegram.bot_username)
        assert "reply_markup" not in note
        assert [r["id"].split("-")[0] for r in games] == ["challenge"] * 2 + ["ai"] * 3
        assert all(r["id"].endswith("-3-3") for r in games)
    # A size that exists, or none at all: the games only.
    sized = await offer(telegram, ALICE, "5")
    assert len(sized) == 5 and sized[0]["id"] == "challenge-X-5-4"
    assert len(await offer(telegram, ALICE, "")) == 5
    ru_note = (await offer(telegram, IVAN, "99"))[0]
    assert ru_note["title"] == ru.INLINE_SIZES_TITLE != en.INLINE_SIZES_TITLE
    assert not telegram.calls_of("sendMessage")


def signed(payload: str, key: bytes) -> str:
    """The data of an inline button: its payload and the payload's signature."""
    parts = payload.split(":")
    if parts[0] == "ij":
        data = pack(InlineJoinTap(int(parts[1]), parts[2]), key=key)
    else:
        data = pack(InlineAiTap(int(parts[1]), parts[2], int(parts[3])), key=key)
    assert data.startswith(payload + ":")
    return data


async def test_a_forged_inline_button_is_refused(telegram: FakeTelegram, bot: BotRunner) -> None:
    """Data a modified client makes up (an inline button in Alice's name, badly signed)
    starts nothing; the real button still works."""
    message = await challenge_of(telegram, ALICE, "X")
    forged = pack(InlineJoinTap(1001, "X"), key=b"not the bot's key")
    answer = await tap_data(telegram, BOB, message, forged)
    assert answer["text"] == en.POPUP_UNKNOWN_BUTTON
    assert not telegram.calls_of("editMessageText")
    joined = await press(telegram, BOB, message, JOIN)
    assert joined["text"] == "You're in! You play ⭕."


async def test_an_inline_challenge_played_to_a_win(telegram: FakeTelegram, bot: BotRunner) -> None:
    message = await challenge_of(telegram, ALICE, "X")
    join = telegram.keyboard(message)[0][0][1]
    assert join == signed("ij:1001:X", inline_key(telegram.token))
    before = state(message)
    answer = await press(telegram, ALICE, message, JOIN)
    assert answer["text"] == "You can't join your own game: wait for a friend."
    assert state(message) == before and not telegram.calls_of("editMessageText")

    answer = await press(telegram, BOB, message, JOIN)
    assert answer["text"] == "You're in! You play ⭕."
    lines = message.text.splitlines()
    assert lines[0] == "❌ Alice vs ⭕ Bob" and "Alice's turn ❌" in lines
    assert board_cells(telegram, message) == "_________"
    assert button_texts(telegram, message)[9:] == [RESIGN, en.BUTTON_DRAW_OFFER]
    assert message.edit_count == 1

    before = state(message)
    assert (await tap_data(telegram, CAROL, message, join))["text"] == "This is not your game."
    assert (await tap_data(telegram, BOB, message, join))["text"].startswith("This board is out")
    assert (await tap_cell(telegram, CAROL, message, 4))["text"] == "This is not your game."
    assert (await tap_cell(telegram, BOB, message, 4))["text"] == "It's not your turn."
    assert state(message) == before

    await play_cells(telegram, message, ALICE, BOB, [0, 4, 1, 2, 8, 6])
    assert board_cells(telegram, message) == "XXO_O_O_X"
    assert "O wins" in message.text.splitlines() and "Bob wins! 🎉" in message.text
    assert highlighted(telegram, message) == {2, 4, 6}
    assert button_texts(telegram, message)[9:] == [REMATCH, REVIEW]

    won = await press(telegram, BOB, message, REVIEW)
    assert won["text"] == en.REVIEW_WON and won["show_alert"] is True
    # Alice's slip: after 1 1, 2 2, 1 2, 1 3 she had to block 3 1 and played 3 3.
    lost = await press(telegram, ALICE, message, REVIEW)
    assert lost["show_alert"] is True
    assert lost["text"] == "Move 5: you played 3 3 — 3 1 was better: it would have held the draw."
    assert (await press(telegram, CAROL, message, REVIEW))["text"] == en.POPUP_NO_REVIEW
    assert not telegram.calls_of("sendMessage")  # everything happened on the one message
    assert_every_query_answered(telegram)


async def test_an_inline_rematch_replaces_the_game_on_the_same_message(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    message = await challenge_of(telegram, ALICE, "X")
    await press(telegram, BOB, message, JOIN)
    await play_cells(telegram, message, ALICE, BOB, [0, 3, 1, 4, 2])
    assert "Alice wins! 🎉" in message.text
    old_rematch = telegram.keyboard(message)[3][0][1]
    assert old_rematch is not None and old_rematch.startswith("rm:")

    before = state(message)
    assert (await press(telegram, CAROL, message, REMATCH))["text"] == "This is not your game."
    assert state(message) == before

    # Bob's Rematch is an offer on the same message; Alice's Rematch tap accepts it.
    assert not (await press(telegram, BOB, message, REMATCH)).get("text")
    assert message.text.splitlines()[0] == "❌ Bob vs ⭕ Alice"  # whom it is for
    assert en.REMATCH_OFFER.format(name="Bob", invited="Alice") in message.text
    assert button_texts(telegram, message) == ["✅ Accept", "🙅 Decline", "✖ Cancel"]
    refused = await tap_data(telegram, CAROL, message, old_rematch)
    assert refused["text"] == en.POPUP_NOT_INVITED
    accepted = await tap_data(telegram, ALICE, message, old_rematch)
    assert accepted["text"] == "You're in! You play ⭕."
    assert message.text.splitlines()[0] == "❌ Bob vs ⭕ Alice"
    assert "Bob's turn ❌" in message.text
    assert board_cells(telegram, message) == "_________"
    assert button_texts(telegram, message)[9:] == [RESIGN, en.BUTTON_DRAW_OFFER]
    assert not telegram.calls_of("sendMessage")

    before = state(message)
    again = await tap_data(telegram, ALICE, message, old_rematch)
    assert again["text"] == "The rematch has already started."
    assert state(message) == before

    assert (await tap_cell(telegram, ALICE, message, 4))["text"] == "It's not your turn."
    await play_cells(telegram, message, BOB, ALICE, [4, 0, 2, 6, 3, 8, 5])
    assert "X wins" in message.text.splitlines() and "Bob wins! 🎉" in message.text
    assert highlighted(telegram, message) == {3, 4, 5}
    assert_every_query_answered(telegram)


async def test_a_challenger_playing_o_lets_the_joiner_start(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    message = await challenge_of(telegram, ALICE, "O")
    answer = await press(telegram, BOB, message, JOIN)
    assert answer["text"] == "You're in! You play ❌."
    assert message.text.splitlines()[0] == "❌ Bob vs ⭕ Alice"
    assert "Bob's turn ❌" in message.text
    assert (await tap_cell(telegram, ALICE, message, 4))["text"] == "It's not your turn."
    await play_cells(telegram, message, BOB, ALICE, [4, 0])
    assert board_cells(telegram, message) == "O___X____"
    assert (await press(telegram, ALICE, message, RESIGN))["text"] == en.POPUP_RESIGN_CONFIRM
    assert "X wins" not in message.text.splitlines()  # asked, not resigned yet
    assert (await press(telegram, ALICE, message, en.BUTTON_RESIGN_YES)).get("text") is None
    assert "X wins" in message.text.splitlines() and "Alice resigned. 🏳" in message.text


async def expected_review(bot: BotRunner, telegram: FakeTelegram, message: StoredMessage) -> str:
    """What Review must say to Alice (❌) about this finished game, worked out from its stored
    moves with the solved table: her first move worse than the best one, or none."""
    data = next(d for row in telegram.keyboard(message) for label, d in row if label == REVIEW)
    game_id = int(str(data).split(":")[1])
    assert bot.application is not None
    async with bot.application.bot_data.engine.connect() as db:
        moves = (
            await db.execute(
                text("SELECT ply, cell, mark FROM moves WHERE game_id = :g ORDER BY ply"),
                {"g": game_id},
            )
        ).all()
    board = Board.empty()
    for ply, cell, mark in moves:
        best, played = position_score(board), -position_score(play(board, cell))
        if mark == "X" and played < best:
            better = max(board.free_cells(), key=lambda c: -position_score(play(board, c)))
            would = (
                (en.REVIEW_WOULD_WIN if played <= 0 else en.REVIEW_WOULD_WIN_SOONER)
                if best > 0
                else en.REVIEW_WOULD_DRAW
                if best == 0
                else en.REVIEW_WOULD_LOSE_LATER
            )
            return en.REVIEW_MISTAKE.format(
                move=ply,
                played="{} {}".format(*board.row_col(cell)),
                better="{} {}".format(*board.row_col(better)),
                would=would,
            )
        board = play(board, cell)
    return en.REVIEW_PERFECT


async def test_an_inline_game_against_the_ai(telegram: FakeTelegram, bot: BotRunner) -> None:
    message = choose(telegram, result(await offer(telegram, ALICE), "ai-hard"))
    assert message.text == "Alice vs Hard AI: Alice's move ❌, tap a cell."
    first_tap = telegram.keyboard(message)[0][0][1]
    assert first_tap is not None

    before = state(message)
    assert (await tap_cell(telegram, BOB, message, 4))["text"] == "This is not your game."
    assert state(message) == before

    assert not (await tap_cell(telegram, ALICE, message, 4)).get("text")
    lines = message.text.splitlines()
    assert lines[0] == "❌ Alice vs ⭕ Hard AI" and "Alice's turn ❌" in lines
    cells = board_cells(telegram, message)
    assert cells[4] == "X" and cells.count("O") == 1
    assert cells.index("O") in (0, 2, 6, 8)  # hard answers the centre in a corner

    before = state(message)
    assert (await tap_cell(telegram, BOB, message, 1 if cells[1] == "_" else 3))["text"] == (
        "This is not your game."
    )
    assert (await tap_data(telegram, ALICE, message, first_tap))["text"].startswith(
        "This board is out"
    )
    assert state(message) == before

    while not words(message):
        free = board_cells(telegram, message).index("_")
        assert not (await tap_cell(telegram, ALICE, message, free)).get("text")
    assert words(message) in ("O wins", "Draw")  # the hard AI never loses
    # No chat to post a new game in: only Review fits on this message.
    assert button_texts(telegram, message)[9:] == [REVIEW]
    review = await press(telegram, ALICE, message, REVIEW)
    assert review["show_alert"] is True
    assert review["text"] == await expected_review(bot, telegram, message)
    assert (await press(telegram, BOB, message, REVIEW))["text"] == en.POPUP_NO_REVIEW
    assert not telegram.calls_of("sendMessage")
    assert_every_query_answered(telegram)


async def test_two_inline_games_side_by_side(telegram: FakeTelegram, bot: BotRunner) -> None:
    first = await challenge_of(telegram, ALICE)
    second = await challenge_of(telegram, ALICE)
    await press(telegram, BOB, first, JOIN)
    await press(telegram, CAROL, second, JOIN)
    assert first.text.splitlines()[0] == "❌ Alice vs ⭕ Bob"
    assert second.text.splitlines()[0] == "❌ Alice vs ⭕ Carol"
    await tap_cell(telegram, ALICE, first, 0)
    assert board_cells(telegram, first) == "X________"
    assert board_cells(telegram, second) == "_________"
    # A tap on the second board carrying the first game's button does nothing there.
    forged = telegram.keyboard(first)[1][1][1]
    assert forged is not None
    answer = await tap_data(telegram, BOB, second, forged)
    assert answer["text"] == en.POPUP_NO_GAME
    assert board_cells(telegram, first) == "X________"
