"""End to end: matches of several games (`/challenge bo3`). Each game of the match is a board
of its own, sides alternate, every board shows the score, the next game starts by itself
when a game ends, and the board that decides the match says who won it; a restart between
two games loses nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from bot.chores.match_games import MatchGames
from bot.games.db.models import utcnow
from bot.locales import en
from tests.support.bot_runner import BotRunner
from tests.support.chat import (
    button_texts,
    current,
    game_id_on,
    play_cells,
    press,
    send,
    tap_cell,
)
from tests.support.fake_telegram import FakeTelegram, StoredMessage

GROUP = FakeTelegram.group_chat(-100700, "Match night")
ALICE = FakeTelegram.user(1101, "Alice")
BOB = FakeTelegram.user(1102, "Bob")

#: Games' cells, ❌ first: ❌ takes the top row; ⭕ the middle row; nobody.
X_WINS = [0, 3, 1, 4, 2]  # ❌ 0 1 2
O_WINS = [0, 3, 1, 4, 8, 5]  # ⭕ 3 4 5
DRAWN = [0, 4, 8, 1, 7, 6, 2, 5, 3]


def match_games(bot: BotRunner) -> MatchGames:
    assert bot.application is not None
    return bot.application.bot_data.running.match_games


def boards(tg: FakeTelegram) -> list[StoredMessage]:
    """The group's board messages, oldest first."""
    return [
        m for m in tg.bot_messages(GROUP["id"]) if m.reply_markup and "m:" in str(m.reply_markup)
    ]


def score_line(best_of: int, a: str, a_score: str, b_score: str, b: str, game: int) -> str:
    return en.MATCH_LINE.format(
        best_of=best_of, a=a, a_score=a_score, b_score=b_score, b=b, game=game
    )


async def play_game(
    tg: FakeTelegram, bot: BotRunner, board: StoredMessage, x: Any, o: Any, cells: list[int]
) -> StoredMessage:
    """Play a game of the match to its end; the board as it ended, once the next game (if
    any) is posted."""
    await play_cells(tg, board, x, o, cells)
    await match_games(bot).idle()
    return current(tg, board)


async def start_match(tg: FakeTelegram, text: str = "/challenge bo3") -> StoredMessage:
    await send(tg, ALICE, text, chat=GROUP)
    board = tg.last_bot_message(GROUP["id"])
    answer = await press(tg, BOB, board, en.BUTTON_JOIN)
    assert answer.get("text") == "You're in! You play ⭕."
    return current(tg, board)


async def test_a_best_of_3_ends_2_0_with_sides_alternating(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    first = await start_match(telegram)
    assert first.text.splitlines()[0] == "❌ Alice vs ⭕ Bob"
    assert score_line(3, "Alice", "0", "0", "Bob", 1) in first.text
    first = await play_game(telegram, bot, first, ALICE, BOB, X_WINS)
    assert score_line(3, "Alice", "1", "0", "Bob", 1) in first.text
    assert "wins the match" not in first.text

    second = boards(telegram)[-1]
    assert second.key != first.key
    assert second.text.splitlines()[0] == "❌ Bob vs ⭕ Alice"  # sides swapped
    assert score_line(3, "Alice", "1", "0", "Bob", 2) in second.text
    # Alice wins again, now with ⭕: 2–0, and the match is over.
    second = await play_game(telegram, bot, second, BOB, ALICE, O_WINS)
    assert score_line(3, "Alice", "2", "0", "Bob", 2) in second.text
    assert en.MATCH_WON.format(name="Alice", score="2–0") in second.text
    assert len(boards(telegram)) == 2  # no third game
    # Rematch after a match: Bob offers another best of 3, Alice accepts; its game 1 begins.
    await press(telegram, BOB, second, en.BUTTON_REMATCH)
    offer = telegram.last_bot_message(GROUP["id"])
    await press(telegram, ALICE, offer, en.BUTTON_ACCEPT)
    rematch = current(telegram, offer)
    assert rematch.text.splitlines()[0] == "❌ Alice vs ⭕ Bob"  # Bob had ❌ last: swapped
    assert score_line(3, "Alice", "0", "0", "Bob", 1) in rematch.text


async def test_a_best_of_3_ends_2_1(telegram: FakeTelegram, bot: BotRunner) -> None:
    first = await start_match(telegram, "/challenge best3")
    await play_game(telegram, bot, first, ALICE, BOB, X_WINS)  # Alice 1–0
    second = boards(telegram)[-1]
    second = await play_game(telegram, bot, second, BOB, ALICE, X_WINS)  # Bob wins with ❌
    assert score_line(3, "Alice", "1", "1", "Bob", 2) in second.text
    third = boards(telegram)[-1]
    assert third.text.splitlines()[0] == "❌ Alice vs ⭕ Bob"
    assert score_line(3, "Alice", "1", "1", "Bob", 3) in third.text
    third = await play_game(telegram, bot, third, ALICE, BOB, X_WINS)
    assert en.MATCH_WON.format(name="Alice", score="2–1") in third.text
    assert len(boards(telegram)) == 3


async def test_a_drawn_game_counts_half_and_a_level_match_is_drawn(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    first = await start_match(telegram)
    await play_game(telegram, bot, first, ALICE, BOB, X_WINS)  # Alice 1–0
    second = await play_game(telegram, bot, boards(telegram)[-1], BOB, ALICE, DRAWN)
    assert score_line(3, "Alice", "1½", "½", "Bob", 2) in second.text
    third = boards(telegram)[-1]
    third = await play_game(telegram, bot, third, ALICE, BOB, O_WINS)  # Bob wins with ⭕
    assert en.MATCH_DRAWN.format(score="1½–1½") in third.text
    assert len(boards(telegram)) == 3


async def test_a_restart_between_two_games_continues_the_match(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    first = await start_match(telegram)
    # The bot dies between the ending's commit and the next board's posting.
    await match_games(bot).stop()
    await play_cells(telegram, first, ALICE, BOB, X_WINS)
    assert len(boards(telegram)) == 1
    await bot.stop()
    restarted = BotRunner(telegram, bot.settings.database_url.get_secret_value())
    await restarted.start()
    try:
        assert restarted.application is not None
        catch_up = restarted.application.bot_data.running.board_catch_up
        # The board catch-up posts the game the ending started (once it had time to be posted).
        assert await catch_up.catch_up(now=utcnow() + timedelta(hours=3)) == 1
        second = boards(telegram)[-1]
        assert second.text.splitlines()[0] == "❌ Bob vs ⭕ Alice"
        assert score_line(3, "Alice", "1", "0", "Bob", 2) in second.text
        second = await play_game(telegram, restarted, second, BOB, ALICE, O_WINS)
        assert en.MATCH_WON.format(name="Alice", score="2–0") in second.text
    finally:
        await restarted.stop()


ANN = FakeTelegram.user(1201, "Ann")
BEN = FakeTelegram.user(1202, "Ben")
CID = FakeTelegram.user(1203, "Cid")


def private_boards(tg: FakeTelegram, user: dict[str, Any]) -> list[StoredMessage]:
    """The board messages in the user's private chat, oldest first."""
    return [
        m for m in tg.bot_messages(user["id"]) if m.reply_markup and "m:" in str(m.reply_markup)
    ]


async def play_apart(
    tg: FakeTelegram, bot: BotRunner, x: dict[str, Any], o: dict[str, Any], cells: list[int]
) -> tuple[StoredMessage, StoredMessage]:
    """Strangers play a game of their match, each on the board in their own chat: both
    boards as the game ended, once the next game (if any) is posted."""
    boards = {x["id"]: private_boards(tg, x)[-1], o["id"]: private_boards(tg, o)[-1]}
    for i, cell in enumerate(cells):
        mover = x if i % 2 == 0 else o
        answer = await tap_cell(tg, mover, boards[mover["id"]], cell)
        assert not answer.get("text"), (i, cell, answer)
    await match_games(bot).idle()
    return current(tg, boards[x["id"]]), current(tg, boards[o["id"]])


async def test_strangers_play_a_best_of_3_from_the_queue_in_their_private_chats(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # Only players asking for the same match length are paired.
    await send(telegram, CID, "/play")
    await send(telegram, ANN, "/play bo3")
    waiting = telegram.last_bot_message(ANN["id"])
    assert "🏆 bo3" in waiting.text
    assert not private_boards(telegram, ANN) and not private_boards(telegram, CID)
    await send(telegram, BEN, "/play bo3")
    (ann_board,), (ben_board,) = private_boards(telegram, ANN), private_boards(telegram, BEN)
    for board in (ann_board, ben_board):
        assert board.text.splitlines()[0] == "❌ Ann vs ⭕ Ben"
        assert score_line(3, "Ann", "0", "0", "Ben", 1) in board.text

    ann_board, ben_board = await play_apart(telegram, bot, ANN, BEN, X_WINS)
    assert score_line(3, "Ann", "1", "0", "Ben", 1) in ben_board.text
    # Game 2: Ben has ❌ now, each still in their own chat.
    assert len(private_boards(telegram, ANN)) == len(private_boards(telegram, BEN)) == 2
    for board in (private_boards(telegram, ANN)[-1], private_boards(telegram, BEN)[-1]):
        assert board.text.splitlines()[0] == "❌ Ben vs ⭕ Ann"
        assert score_line(3, "Ann", "1", "0", "Ben", 2) in board.text
    ben_board, ann_board = await play_apart(telegram, bot, BEN, ANN, X_WINS)  # Ben 1–1
    ann_board, ben_board = await play_apart(telegram, bot, ANN, BEN, O_WINS)  # Ben 2–1
    for board in (ann_board, ben_board):
        assert score_line(3, "Ann", "1", "2", "Ben", 3) in board.text
        assert en.MATCH_WON.format(name="Ben", score="2–1") in board.text
    assert len(private_boards(telegram, ANN)) == len(private_boards(telegram, BEN)) == 3


async def test_start_user_user_bo5_in_a_group_is_a_match_and_elsewhere_is_refused(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    first = await start_match(telegram, "/start user user bo5")
    assert score_line(5, "Alice", "0", "0", "Bob", 1) in first.text
    # A match is a challenge: not in a private chat, and not against the AI.
    await send(telegram, ALICE, "/start user user bo3")
    group_only = en.GROUP_ONLY.format(bot=telegram.bot_username)
    assert telegram.last_bot_message(ALICE["id"]).text == group_only
    await send(telegram, ALICE, "/start hard bo3")
    assert telegram.last_bot_message(ALICE["id"]).text.startswith("Bad parameters!")
    assert not [m for m in telegram.bot_messages(ALICE["id"]) if m.reply_markup]


async def test_a_match_game_the_match_goes_on_after_offers_no_new_game(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # Issue 51: game 1's ended board offered 🔁 Rematch while game 2 was being played (and
    # between strangers, 🌍 Find a new opponent and 🚫 Don't pair me with them again).
    first = await play_game(telegram, bot, await start_match(telegram), ALICE, BOB, X_WINS)
    labels = button_texts(telegram, first)
    assert en.BUTTON_REMATCH not in labels and en.BUTTON_REPLAY in labels, labels
    # The board that ends the match offers the rematch, as before.
    last = await play_game(telegram, bot, boards(telegram)[-1], BOB, ALICE, O_WINS)
    assert en.BUTTON_REMATCH in button_texts(telegram, last)


async def test_strangers_are_told_a_match_game_was_resigned_not_that_one_left(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ANN, "/play bo3")
    await send(telegram, BEN, "/play bo3")
    ann_first, ben_first = await play_apart(telegram, bot, ANN, BEN, O_WINS)  # Ben 1–0
    for board in (ann_first, ben_first):
        labels = button_texts(telegram, board)
        assert en.BUTTON_PLAY_SOMEONE_AGAIN not in labels and en.BUTTON_BLOCK not in labels
    # Game 2: Ben has ❌ and resigns it; Ann wins that game (1–1), and the match goes on.
    ben_second = private_boards(telegram, BEN)[-1]
    await press(telegram, BEN, ben_second, en.BUTTON_RESIGN)
    await press(telegram, BEN, current(telegram, ben_second), en.BUTTON_RESIGN_YES)
    await match_games(bot).idle()
    await bot.settle()
    told = [m.text for m in telegram.bot_messages(ANN["id"]) if not m.reply_markup]
    assert en.MATCH_OPPONENT_RESIGNED.format(name="Ben", game=2) in told, told
    assert en.OPPONENT_LEFT.format(name="Ben") not in told
    assert len(private_boards(telegram, ANN)) == 3  # game 3 is on


async def test_a_rematch_offer_of_a_match_names_both_players(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # Issue 51: it read "❌ ? vs ⭕ Bob … Best of 3 · ? 0 – 0 Bob", though it named Alice.
    first = await play_game(telegram, bot, await start_match(telegram), ALICE, BOB, X_WINS)
    last = await play_game(telegram, bot, boards(telegram)[-1], BOB, ALICE, O_WINS)
    assert first.key != last.key
    await press(telegram, BOB, last, en.BUTTON_REMATCH)
    offer = telegram.last_bot_message(GROUP["id"])
    assert offer.text.splitlines()[0] == "❌ Alice vs ⭕ Bob"
    assert score_line(3, "Alice", "0", "0", "Bob", 1) in offer.text


async def test_an_old_match_board_redrawn_later_keeps_its_own_score(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # Issue 51: game 1's board, drawn again once game 2 had ended, showed the match's score
    # then (1–1), not game 1's (1–0).
    first = await play_game(telegram, bot, await start_match(telegram), ALICE, BOB, X_WINS)
    await play_game(telegram, bot, boards(telegram)[-1], BOB, ALICE, X_WINS)  # Bob: 1–1
    assert bot.application is not None
    running = bot.application.bot_data.running
    game = await running.games.store.get_game(game_id_on(telegram, first))
    assert game is not None
    await running.presenter.show(game, again=True)
    await bot.settle()
    shown = current(telegram, first)
    assert score_line(3, "Alice", "1", "0", "Bob", 1) in shown.text, shown.text


async def test_a_tap_on_an_earlier_game_of_a_match_points_to_the_newest_board(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # Issue 51: it said "This game is over. Start a new one with /start." while game 2 was on.
    first = await play_game(telegram, bot, await start_match(telegram), ALICE, BOB, X_WINS)
    answer = await tap_cell(telegram, BOB, first, 8)
    assert answer.get("text") == en.POPUP_MATCH_GOES_ON
    # Once the match is over, its boards are over like any game's.
    last = await play_game(telegram, bot, boards(telegram)[-1], BOB, ALICE, O_WINS)
    assert (await tap_cell(telegram, BOB, last, 8)).get("text") == en.POPUP_GAME_OVER
