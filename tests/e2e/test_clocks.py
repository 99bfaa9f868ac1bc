"""End to end: games between strangers on the clock (a short one here), and ratings that
mean something. The clock is on both boards and runs on them; a stranger who stops moving
loses on time within the clock, both told, rated; ❌ who never moves aborts the game,
unrated, both told. Against Hard on a board the first player wins by force, /rating stays
as it was and /stats keeps the game apart, marked."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import timedelta

import pytest

from bot.config import Settings
from bot.games.db.models import utcnow
from bot.games.play.clock_rules import shown
from bot.locales import en, fa
from tests.e2e.test_matchmaking import ANN, BEN, pair
from tests.support.bot_runner import BotRunner, SettledClock
from tests.support.chat import button_texts, current, press, send, tap_cell
from tests.support.fake_telegram import FakeTelegram, StoredMessage

CLOCK_SECONDS = 3.0


@pytest.fixture
async def quick(telegram: FakeTelegram, database_url: str) -> AsyncIterator[BotRunner]:
    """The real bot with a short clock for strangers, redrawn often."""
    runner = BotRunner(
        telegram,
        database_url,
        stranger_clock_seconds=CLOCK_SECONDS,
        stranger_clock_delay_seconds=0.5,
        clock_redraw_seconds=0.5,
    )
    await runner.start()
    try:
        yield runner
    finally:
        await runner.stop()


async def until(check: Callable[[], bool], seconds: float = 10.0) -> None:
    """Wait for the bot's own clock (a chore) to make `check` true."""
    async with asyncio.timeout(seconds):
        while not check():  # noqa: ASYNC110 - the fake server has no event for "edited"
            await asyncio.sleep(0.05)


def turn_clock(bot: BotRunner) -> SettledClock:
    return bot.turn_clock


def clock_of(message: StoredMessage) -> str:
    (line,) = [line for line in message.text.splitlines() if line.startswith("⏱")]
    return line


def test_the_default_clock_keeps_the_promise() -> None:
    # A player who walks away loses within the clock: under 2 minutes by default.
    settings = Settings(token="1:x")
    assert settings.stranger_clock_seconds < 120
    assert settings.stranger_clock_delay_seconds < settings.stranger_clock_seconds


async def test_a_stranger_who_stops_moving_loses_on_time_both_told_and_rated(
    telegram: FakeTelegram, quick: BotRunner
) -> None:
    x_board, o_board = await pair(telegram, ANN, BEN)
    full = shown(CLOCK_SECONDS)
    # The clock is on both boards, each in its reader's language.
    assert clock_of(x_board) == en.CLOCK_LINE.format(x_mark="❌", x=full, o_mark="⭕", o=full)
    assert clock_of(o_board) == fa.CLOCK_LINE.format(x_mark="❌", x=full, o_mark="⭕", o=full)
    started = utcnow()
    await tap_cell(telegram, ANN, x_board, 4)
    # Ben does not move: his clock runs down on both boards, and he loses on time, at once.
    await until(lambda: "X wins" in current(telegram, x_board).text.splitlines())
    flagged_after = (utcnow() - started).total_seconds()
    assert CLOCK_SECONDS - 0.5 <= flagged_after <= CLOCK_SECONDS + 3
    final_x, final_o = current(telegram, x_board), current(telegram, o_board)
    assert en.RESULT_NAME_TIMED_OUT.format(name="Ben") in final_x.text
    assert clock_of(final_x).endswith("⭕ 0:00")
    assert fa.OUTCOME_X_WINS in final_o.text.splitlines() and clock_of(final_o).endswith("0:00")
    # Both told: Ann won, Ben's time ran out.
    await until(lambda: telegram.last_bot_message(BEN["id"]).text.startswith("⌛"))
    assert telegram.last_bot_message(ANN["id"]).text == en.OPPONENT_TIMED_OUT.format(name="Ben")
    assert "Ann" in telegram.last_bot_message(BEN["id"]).text
    # The win is rated, on both boards and in /rating.
    assert "Ann +" in final_x.text and "Ben −" in final_x.text
    await send(telegram, ANN, "/rating")
    assert "3×3: 1" in telegram.last_bot_message(ANN["id"]).text


async def test_the_clock_runs_on_both_boards(telegram: FakeTelegram, bot: BotRunner) -> None:
    x_board, o_board = await pair(telegram, ANN, BEN)
    await tap_cell(telegram, ANN, x_board, 4)
    seconds = bot.settings.stranger_clock_seconds
    # Ann's move took (almost) nothing: her clock is full; Ben's runs from her move.
    assert clock_of(current(telegram, x_board)).startswith(f"⏱ ❌ {shown(seconds)}")
    await turn_clock(bot).redraw_clocks(utcnow() + timedelta(seconds=seconds / 2))
    half = shown(seconds / 2)
    assert clock_of(current(telegram, x_board)).endswith(f"⭕ {half}")
    assert clock_of(current(telegram, o_board)).endswith(f"⭕ {half}")
    # Nothing happens while Ben has time.
    assert await turn_clock(bot).tick(utcnow() + timedelta(seconds=seconds - 2)) == []


async def test_each_clock_is_redrawn_once_a_period_however_many_instances(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    x_board, o_board = await pair(telegram, ANN, BEN)
    await tap_cell(telegram, ANN, x_board, 4)
    second = BotRunner(telegram, bot.settings.database_url.get_secret_value())
    await second.start()
    try:
        period = timedelta(seconds=bot.settings.clock_redraw_seconds)
        # Later than either instance's own sweep (on the real clock) reaches: only these
        # calls claim.
        soon = utcnow() + 3 * period
        assert await turn_clock(bot).redraw_clocks(soon) == 1
        edits = (current(telegram, x_board).edit_count, current(telegram, o_board).edit_count)
        # The other instance, within the period: the clock was just redrawn, so it is not.
        assert await turn_clock(second).redraw_clocks(soon + period / 2) == 0
        after = (current(telegram, x_board).edit_count, current(telegram, o_board).edit_count)
        assert after == edits
        # A period on, whichever instance comes first redraws it, once.
        assert await turn_clock(second).redraw_clocks(soon + period) == 1
        assert await turn_clock(bot).redraw_clocks(soon + period) == 0
    finally:
        await second.stop()


async def test_x_who_never_moves_aborts_the_game_unrated_both_told(
    telegram: FakeTelegram, quick: BotRunner
) -> None:
    x_board, o_board = await pair(telegram, ANN, BEN)
    await until(lambda: en.GAME_ABORTED.format(mark="❌") in current(telegram, x_board).text)
    assert fa.GAME_ABORTED.format(mark="❌") in current(telegram, o_board).text
    await until(lambda: telegram.last_bot_message(BEN["id"]).text.startswith("بازی با"))
    assert telegram.last_bot_message(ANN["id"]).text == en.GAME_ABORTED_NOTICE.format(name="Ben")
    # Counts nowhere: no rating, no record; and Ann is free to look again.
    await send(telegram, ANN, "/rating")
    assert telegram.last_bot_message(ANN["id"]).text.startswith(en.RATING_EMPTY)
    await send(telegram, BEN, "/stats")
    assert telegram.last_bot_message(BEN["id"]).text == fa.STATS_EMPTY
    await send(telegram, ANN, "/play")
    assert telegram.last_bot_message(ANN["id"]).text.startswith("🔎 Looking for an opponent")


async def test_hard_on_a_forced_win_board_leaves_the_rating_as_it_was(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ANN, "/start hard 4 3")
    board = telegram.last_bot_message(ANN["id"])
    await tap_cell(telegram, ANN, board, 5)
    await send(telegram, ANN, "/stop")  # a resignation: a loss, unrated on this board
    final = current(telegram, board)
    assert "O wins" in final.text.splitlines() and en.UNRATED_FORCED_WIN in final.text
    assert en.RATING_LINE_AI.split("{")[0] not in final.text
    await send(telegram, ANN, "/rating")
    assert telegram.last_bot_message(ANN["id"]).text.startswith(en.RATING_EMPTY)
    await send(telegram, ANN, "/stats")
    stats = telegram.last_bot_message(ANN["id"]).text.splitlines()
    assert en.STATS_UNRATED.format(wins=0, losses=1, draws=0) in stats
    # Nobody is promised a Hard that never loses where it can: not /help, not the profile.
    await send(telegram, ANN, "/help")
    for text in (telegram.last_bot_message(ANN["id"]).text, en.DESCRIPTION, en.SHORT_DESCRIPTION):
        assert "never loses" not in text.replace("never loses on 3×3", "")


async def test_a_clock_redraw_keeps_the_resign_question_on_the_askers_board_only(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # Issue 51: Ben taps 🏳 Resign and sees Yes / No; the next clock redraw put plain 🏳 Resign
    # back, so his Yes found no button. The question is the game's now: every drawing asks it.
    x_board, o_board = await pair(telegram, ANN, BEN)
    await tap_cell(telegram, ANN, x_board, 4)
    asked = await press(telegram, BEN, current(telegram, o_board), fa.BUTTON_RESIGN)
    assert asked["text"] == fa.POPUP_RESIGN_CONFIRM
    seconds = bot.settings.stranger_clock_seconds
    await turn_clock(bot).redraw_clocks(utcnow() + timedelta(seconds=seconds / 2))
    bens = current(telegram, o_board)
    assert clock_of(bens).endswith(f"⭕ {shown(seconds / 2)}")  # redrawn
    assert fa.BUTTON_RESIGN_YES in button_texts(telegram, bens)
    # Ann's board never asks her Ben's question.
    anns = button_texts(telegram, current(telegram, x_board))
    assert en.BUTTON_RESIGN in anns and en.BUTTON_RESIGN_YES not in anns
    # No: the question goes, and stays gone after the next redraw.
    await press(telegram, BEN, bens, fa.BUTTON_RESIGN_NO)
    await turn_clock(bot).redraw_clocks(utcnow() + timedelta(seconds=seconds * 0.7))
    assert fa.BUTTON_RESIGN in button_texts(telegram, current(telegram, o_board))
    # Asked again, Yes ends the game: Ann wins.
    await press(telegram, BEN, current(telegram, o_board), fa.BUTTON_RESIGN)
    await press(telegram, BEN, current(telegram, o_board), fa.BUTTON_RESIGN_YES)
    assert "X wins" in current(telegram, x_board).text.splitlines()
