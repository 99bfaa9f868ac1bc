"""End to end: every way a game ends tells its players how it ended, rates it at most once, and
moves /rating and /stats together; nothing ends a game behind a player's back.

Found by trying it as players do: `/start hard` over a game with moves closed it as "This game
was closed." and rated it −214 without a word; a stranger who blocked the bot left the other
waiting on "their turn" until the turn clock ran out."""

from __future__ import annotations

from bot.locales import en, fa
from tests.e2e.test_matchmaking import pair
from tests.support.bot_runner import BotRunner
from tests.support.chat import button_texts, current, press, send, tap_cell
from tests.support.fake_telegram import FakeTelegram, StoredMessage

ALICE = FakeTelegram.user(7001, "Alice")
ANN = FakeTelegram.user(7002, "Ann")
BEN = FakeTelegram.user(7003, "Ben", language_code="fa")
HARD = en.AI_NAME.format(level=en.LEVEL_NAMES["medium"])


async def started(telegram: FakeTelegram, user: dict, command: str) -> StoredMessage:
    await send(telegram, user, command)
    return telegram.last_bot_message(user["id"])


async def stats_and_rating(telegram: FakeTelegram, user: dict) -> tuple[str, str]:
    await send(telegram, user, "/stats")
    stats = telegram.last_bot_message(user["id"]).text
    await send(telegram, user, "/rating")
    return stats, telegram.last_bot_message(user["id"]).text


async def test_a_new_game_over_one_with_moves_asks_first_then_counts_it_lost(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await started(telegram, ALICE, "/start medium")
    await tap_cell(telegram, ALICE, board, 4)
    question = await started(telegram, ALICE, "/start hard")
    assert question.message_id != board.message_id
    assert question.text == en.REPLACE_QUESTION.format(name=HARD)
    assert button_texts(telegram, question) == [en.BUTTON_REPLACE, en.BUTTON_KEEP_PLAYING]
    # Nothing changed meanwhile: the game is on, nothing is rated.
    assert en.RESULT_YOU_REPLACED not in current(telegram, board).text
    assert en.STATS_EMPTY in (await stats_and_rating(telegram, ALICE))[0]
    # "Keep playing": the question is put away, and the game goes on.
    await press(telegram, ALICE, question, en.BUTTON_KEEP_PLAYING)
    assert current(telegram, question).text == en.KEEP_PLAYING
    assert current(telegram, question).reply_markup is None
    # Asked again, "Resign and start": the old board says it counted as a loss, with the
    # rating's change; the question says what was done; the new board comes.
    question = await started(telegram, ALICE, "/start hard")
    await press(telegram, ALICE, question, en.BUTTON_REPLACE)
    old = current(telegram, board).text.splitlines()
    assert en.RESULT_YOU_REPLACED in old and en.OUTCOME_O_WINS in old
    assert any(line.startswith(en.RATING_LINE_AI.split("{")[0]) for line in old), old
    assert current(telegram, question).text == en.REPLACED_NOTICE.format(name=HARD)
    new = telegram.last_bot_message(ALICE["id"])
    assert new.message_id not in (board.message_id, question.message_id)
    assert en.AI_NAME.format(level=en.LEVEL_NAMES["hard"]) in new.text
    # /stats and /rating both count it: one loss against Medium, one rated game.
    stats, rating = await stats_and_rating(telegram, ALICE)
    assert (
        en.STATS_LINE.format(opponent=en.LEVEL_NAMES["medium"], wins=0, losses=1, draws=0)
        in stats.splitlines()
    )
    assert en.RATING_EMPTY not in rating


async def test_a_game_nobody_moved_in_is_replaced_without_a_question(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await started(telegram, ALICE, "/start medium")
    new = await started(telegram, ALICE, "/start hard")
    assert en.GAME_REPLACED in current(telegram, board).text.splitlines()
    assert new.message_id != board.message_id and en.REPLACE_QUESTION[:10] not in new.text
    assert en.STATS_EMPTY in (await stats_and_rating(telegram, ALICE))[0]


async def test_an_old_play_again_over_a_game_underway_asks_first(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    first = await started(telegram, ALICE, "/start medium")
    await tap_cell(telegram, ALICE, first, 4)
    await press(telegram, ALICE, current(telegram, first), en.BUTTON_RESIGN)
    await press(telegram, ALICE, current(telegram, first), en.BUTTON_RESIGN_YES)
    second = await started(telegram, ALICE, "/start medium")
    await tap_cell(telegram, ALICE, second, 4)
    # The first board's Play again, further up the chat, over the second game with a move.
    await press(telegram, ALICE, current(telegram, first), en.BUTTON_PLAY_AGAIN)
    question = telegram.last_bot_message(ALICE["id"])
    assert question.text == en.REPLACE_QUESTION.format(name=HARD)
    assert en.RESULT_YOU_REPLACED not in current(telegram, second).text


async def test_a_stranger_who_blocks_the_bot_loses_and_the_other_is_told_at_once(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    x_board, _o_board = await pair(telegram, ANN, BEN)
    await tap_cell(telegram, ANN, x_board, 4)
    # Ben (⭕, to move) blocks the bot: the game ends now, not when his turn runs out.
    telegram.membership_changed(FakeTelegram.private_chat(BEN), BEN, "member", "kicked")
    await bot.settle()
    shown = current(telegram, x_board).text.splitlines()
    assert en.OUTCOME_X_WINS in shown
    assert en.RESULT_NAME_LEFT.format(name="Ben") in shown, shown
    told = telegram.last_bot_message(ANN["id"]).text
    assert told == en.OPPONENT_LEFT.format(name="Ben")
    # /stats counts the win (the game had a move; /rating: strangers are rated from game one).
    stats, _rating = await stats_and_rating(telegram, ANN)
    assert en.STATS_LINE.format(opponent=en.STATS_HUMANS, wins=1, losses=0, draws=0) in (
        stats.splitlines()
    )


async def test_a_stranger_whose_opponent_blocks_first_is_told_too(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    _x_board, o_board = await pair(telegram, ANN, BEN)
    # Ann (❌, to move, no move yet) blocks the bot: Ben wins and is told at once.
    telegram.membership_changed(FakeTelegram.private_chat(ANN), ANN, "member", "kicked")
    await bot.settle()
    # Ben reads his board, and the news, in Persian (his language).
    shown = current(telegram, o_board)
    assert fa.OUTCOME_O_WINS in shown.text.splitlines(), shown.text
    assert fa.RESULT_NAME_LEFT.format(name="\u2068Ann\u2069") in shown.text
    assert telegram.last_bot_message(BEN["id"]).text == fa.OPPONENT_LEFT.format(
        name="\u2068Ann\u2069"
    )


async def test_a_new_game_beside_a_stranger_game_leaves_it_running_on_either_side(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    x_board, o_board = await pair(telegram, ANN, BEN)
    for user, board, other in ((ANN, x_board, "Ben"), (BEN, o_board, "\u2068Ann\u2069")):
        await send(telegram, user, "/start easy")
        language = en if user is ANN else fa
        # The new board, then the word that the game against the stranger goes on.
        assert telegram.last_bot_message(user["id"]).text == language.GAMES_GO_ON.format(
            names=other
        )
        assert current(telegram, board).reply_markup is not None  # still live
