"""End to end: every way a game ends tells its players how it ended, rates it at most once, and
moves /rating and /stats together; nothing ends a game behind a player's back.

Found by trying it as players do: `/start hard` over a game with moves closed it as "This game
was closed." and rated it −214 without a word; a stranger who blocked the bot left the other
waiting on "their turn" until the turn clock ran out."""

from __future__ import annotations

import re
from datetime import timedelta

from bot.games.db.models import utcnow
from bot.locales import en, fa
from bot.locales.texts import Texts
from bot.views.rating import pool_label
from tests.e2e.test_groups import GROUP, challenge, game_between
from tests.e2e.test_matchmaking import pair
from tests.support.bot_runner import BotRunner, SettledClock
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


# ---------------------------------------------------------------- a test per ending
#
# How each `EndReason` is played end to end, both players told in their chat and language:
#   LINE, FULL: test_private (every level), test_groups (by taps, the winner's name),
#       test_languages (a draw in Russian), test_matchmaking (strangers, ratings on both boards)
#   RESIGNED: test_consent (asks first), test_private; between strangers below
#   STOPPED: test_matchmaking (a stranger's /stop); in a group below
#   TIMEOUT: test_groups (nudge, then on time); between strangers, rated, below
#   BLOCKED: above (strangers, either side); against the AI below
#   REPLACED: above; ABANDONED: test_membership, test_closing_games, above (no moves)
#   FORGOTTEN: against a stranger below (with a move and without), before any move in a
#       group below; CANCELLED: test_groups (Cancel); DECLINED, and a rematch offer lapsing
#       (EXPIRED): test_consent; a challenge lapsing below


def rating_row(rating: str, tr: Texts, pool: str) -> str:
    """The /rating line of one pool ('' when not rated there)."""
    label = f"{pool_label(pool, tr)}:"
    return next((line for line in rating.splitlines() if line.startswith(label)), "")


async def assert_record(
    telegram: FakeTelegram,
    user: dict,
    tr: Texts,
    opponent: str,
    record: tuple[int, int, int],
    rated: int,
    pool: str = "3x3",
) -> None:
    """/stats counts `record` (wins, losses, draws) against `opponent` (a label), and /rating
    has `rated` games in `pool`: the two agree on how many games counted."""
    stats, rating = await stats_and_rating(telegram, user)
    wins, losses, draws = record
    line = tr.STATS_LINE.format(opponent=opponent, wins=wins, losses=losses, draws=draws)
    assert line in stats.splitlines(), stats
    row = rating_row(rating, tr, pool)
    if rated:
        assert re.search(rf"(?<!\d){re.escape(tr.count('COUNT_GAMES', rated))}", row), rating
    else:
        assert row == "", rating


def clock_of(bot: BotRunner) -> tuple[SettledClock, timedelta]:
    return bot.turn_clock, timedelta(seconds=bot.settings.turn_timeout_seconds)


async def test_stop_in_a_group_game_resigns_it_and_both_see_it(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await game_between(telegram, ALICE, ANN)
    await tap_cell(telegram, ALICE, board, 4)
    await send(telegram, ANN, "/stop", chat=GROUP)
    assert telegram.last_bot_message(GROUP["id"]).text == en.STOPPED
    shown = current(telegram, board).text.splitlines()
    assert en.OUTCOME_X_WINS in shown and en.RESULT_NAME_RESIGNED.format(name="Ann") in shown
    assert en.NAME_TO_MOVE.format(name="Ann", mark=en.O_SYMBOL) not in shown
    # Friends are rated once both are rated in the pool: this first game counts in /stats.
    await assert_record(telegram, ALICE, en, en.STATS_HUMANS, (1, 0, 0), rated=0)
    await assert_record(telegram, ANN, en, en.STATS_HUMANS, (0, 1, 0), rated=0)


async def test_a_stranger_who_resigns_loses_and_both_are_told(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    x_board, o_board = await pair(telegram, ANN, BEN)
    await tap_cell(telegram, ANN, x_board, 4)
    await press(telegram, BEN, current(telegram, o_board), fa.BUTTON_RESIGN)
    await press(telegram, BEN, current(telegram, o_board), fa.BUTTON_RESIGN_YES)
    # Ann: her board and a message of its own, in English; Ben: his board, in Persian.
    ann_sees = current(telegram, x_board).text.splitlines()
    assert en.OUTCOME_X_WINS in ann_sees and en.RESULT_NAME_RESIGNED.format(name="Ben") in ann_sees
    assert telegram.last_bot_message(ANN["id"]).text == en.OPPONENT_LEFT.format(name="Ben")
    ben_sees = current(telegram, o_board).text
    assert fa.OUTCOME_X_WINS in ben_sees.splitlines(), ben_sees
    # Rated once, the change on both boards; /stats and /rating count it once each.
    assert en.RATING_LINE.split("{")[0] in current(telegram, x_board).text
    assert fa.RATING_LINE.split("{")[0] in ben_sees
    await assert_record(telegram, ANN, en, en.STATS_HUMANS, (1, 0, 0), rated=1)
    await assert_record(telegram, BEN, fa, fa.STATS_HUMANS, (0, 1, 0), rated=1)


async def test_a_stranger_who_walks_away_loses_on_the_clock_rated_once(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    x_board, o_board = await pair(telegram, ANN, BEN)
    await tap_cell(telegram, ANN, x_board, 4)
    clock, timeout = clock_of(bot)
    t0 = utcnow()
    # Strangers are on the clock (`clock_rules`): no nudge, a flag as soon as it is out.
    seconds = timedelta(seconds=bot.settings.stranger_clock_seconds)
    assert seconds < timeout and await clock.tick(t0 + seconds - timedelta(seconds=2)) == []
    assert [event for event, _ in await clock.tick(t0 + seconds + timedelta(seconds=1))] == [
        "timeout"
    ]
    assert telegram.last_bot_message(BEN["id"]).text == fa.YOU_FLAGGED.format(
        name="\u2068Ann\u2069"
    )
    # Ann is told, in English, in her chat; Ben's board says he ran out of time, in Persian.
    assert telegram.last_bot_message(ANN["id"]).text == en.OPPONENT_TIMED_OUT.format(name="Ben")
    ann_sees = current(telegram, x_board).text.splitlines()
    assert en.OUTCOME_X_WINS in ann_sees and en.RESULT_NAME_TIMED_OUT.format(name="Ben") in ann_sees
    ben_sees = current(telegram, o_board).text.splitlines()
    assert fa.OUTCOME_X_WINS in ben_sees
    assert fa.RESULT_NAME_TIMED_OUT.format(name="\u2068Ben\u2069") in ben_sees, ben_sees
    assert await clock.tick(t0 + 5 * timeout) == []  # over: nothing more, nor rated again
    await assert_record(telegram, ANN, en, en.STATS_HUMANS, (1, 0, 0), rated=1)
    await assert_record(telegram, BEN, fa, fa.STATS_HUMANS, (0, 1, 0), rated=1)


async def test_forget_mid_game_against_a_stranger_tells_the_other(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    x_board, o_board = await pair(telegram, ANN, BEN)
    await tap_cell(telegram, ANN, x_board, 4)
    await send(telegram, BEN, "/forget")
    await press(telegram, BEN, telegram.last_bot_message(BEN["id"]), fa.BUTTON_FORGET_YES)
    # Ann is told who left, as he leaves; the board shows the game as stored, without his
    # name (`/forget` erased it), as it did once the board catch-up had redrawn it.
    ann_sees = current(telegram, x_board).text.splitlines()
    assert en.OUTCOME_X_WINS in ann_sees and en.RESULT_NAME_LEFT.format(name="?") in ann_sees
    assert telegram.last_bot_message(ANN["id"]).text == en.OPPONENT_LEFT.format(name="Ben")
    assert fa.OUTCOME_X_WINS in current(telegram, o_board).text.splitlines()
    # Not rated (Ben's data is gone); Ann's /stats counts the win.
    await assert_record(telegram, ANN, en, en.STATS_HUMANS, (1, 0, 0), rated=0)


async def test_forget_before_any_move_against_a_stranger_tells_the_other_it_counts_nowhere(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    x_board, _ = await pair(telegram, ANN, BEN)
    await send(telegram, BEN, "/forget")
    await press(telegram, BEN, telegram.last_bot_message(BEN["id"]), fa.BUTTON_FORGET_YES)
    told = en.GAME_LEFT_UNPLAYED_NOTICE.format(name="Ben")
    assert telegram.last_bot_message(ANN["id"]).text == told
    assert en.GAME_LEFT_UNPLAYED in current(telegram, x_board).text.splitlines()
    assert en.STATS_EMPTY in (await stats_and_rating(telegram, ANN))[0]


async def test_forget_before_any_move_closes_the_game_counting_nowhere(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # Ann joined Alice's challenge; nobody moved, and Ann deletes her data. It ends as a new
    # game over it would: no result on an empty board, no buttons of a finished game (Review
    # and Replay of nothing, Rematch of no one), counted nowhere.
    board = await game_between(telegram, ALICE, ANN)
    await send(telegram, ANN, "/forget")
    await press(telegram, ANN, telegram.last_bot_message(ANN["id"]), en.BUTTON_FORGET_YES)
    shown = current(telegram, board)
    lines = shown.text.splitlines()
    assert en.GAME_LEFT_UNPLAYED in lines, lines
    assert not {en.OUTCOME_X_WINS, en.OUTCOME_O_WINS} & set(lines)
    assert set(button_texts(telegram, shown)) == {en.EMPTY_SYMBOL}
    assert en.STATS_EMPTY in (await stats_and_rating(telegram, ALICE))[0]
    # Alice deletes hers too, and the game goes: nothing on its board was left to answer
    # "This game doesn't exist any more".
    await send(telegram, ALICE, "/forget")
    await press(telegram, ALICE, telegram.last_bot_message(ALICE["id"]), en.BUTTON_FORGET_YES)
    assert set(button_texts(telegram, current(telegram, board))) == {en.EMPTY_SYMBOL}


async def test_a_challenge_nobody_joins_lapses(telegram: FakeTelegram, bot: BotRunner) -> None:
    board = await challenge(telegram, ALICE)
    clock, timeout = clock_of(bot)
    t0 = utcnow()
    assert await clock.tick(t0 + timeout) == []  # a challenge is not nudged
    assert [event for event, _ in await clock.tick(t0 + 2 * timeout)] == ["expired"]
    shown = current(telegram, board)
    assert en.CHALLENGE_EXPIRED in shown.text.splitlines() and shown.reply_markup is None
    assert en.STATS_EMPTY in (await stats_and_rating(telegram, ALICE))[0]


async def test_blocking_the_bot_mid_game_against_the_ai_counts_a_loss(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await started(telegram, ALICE, "/start medium")
    await tap_cell(telegram, ALICE, board, 4)
    telegram.membership_changed(FakeTelegram.private_chat(ALICE), ALICE, "member", "kicked")
    await bot.settle()
    # She comes back (Telegram tells the bot), and /stats and /rating count one loss.
    telegram.membership_changed(FakeTelegram.private_chat(ALICE), ALICE, "kicked", "member")
    await bot.settle()
    medium = en.LEVEL_NAMES["medium"]
    await assert_record(telegram, ALICE, en, medium, (0, 1, 0), rated=1, pool="ai:3x3")


async def test_a_player_who_blocks_the_bot_while_looking_is_not_paired(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, BEN, "/play")
    telegram.membership_changed(FakeTelegram.private_chat(BEN), BEN, "member", "kicked")
    await bot.settle()
    # Ann looks next: she waits for someone who is there, not a game with nobody.
    await send(telegram, ANN, "/play")
    assert telegram.last_bot_message(ANN["id"]).text.startswith(en.QUEUE_LOOKING.split("{")[0])
    assert not [m for m in telegram.bot_messages(ANN["id"]) if "m:" in str(m.reply_markup)]


async def test_back_after_blocking_the_bot_the_old_board_says_the_game_is_over(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await started(telegram, ALICE, "/start medium")
    await tap_cell(telegram, ALICE, board, 4)
    telegram.membership_changed(FakeTelegram.private_chat(ALICE), ALICE, "member", "kicked")
    await bot.settle()
    assert en.RESULT_YOU_RESIGNED not in current(telegram, board).text  # cannot be edited
    telegram.membership_changed(FakeTelegram.private_chat(ALICE), ALICE, "kicked", "member")
    await bot.quiesce()
    shown = current(telegram, board).text.splitlines()
    assert en.OUTCOME_O_WINS in shown and en.RESULT_YOU_RESIGNED in shown, shown
    assert en.YOUR_MOVE.format(mark=en.X_SYMBOL) not in shown


async def test_a_view_tapped_as_the_game_ends_does_not_draw_it_live_again(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    """Found by the journeys: ultimate's small board chosen (a view: nothing written) while
    /stop ends the game drew the game as it was over the final board, which said "Ann's turn"
    for good. Raced a few times, as the order varies."""
    for _ in range(4):
        await send(telegram, ALICE, "/start ultimate", chat=GROUP)
        board = telegram.last_bot_message(GROUP["id"])
        views = [d for row in telegram.keyboard(board) for _, d in row if d and d.startswith("ub:")]
        telegram.send_text(ALICE, "/stop", chat=GROUP)
        telegram.tap(ALICE, board, views[4])
        await bot.quiesce()
        shown = current(telegram, board).text.splitlines()
        assert en.OUTCOME_O_WINS in shown and en.RESULT_NAME_RESIGNED.format(name="Alice") in shown
