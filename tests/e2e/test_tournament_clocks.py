"""Tournament games on the clock, end to end: `/tournament` takes a time control as `/play`
does (the bot's stranger clock by default), the header says it, and every round's board shows
both clocks. A player who stops moving loses on time within the clock and the next round
starts; ❌ who never moves forfeits the aborted game (the round still completes). The
standings message is edited on those events only, and a group's boards are not redrawn as a
clock ticks (a group's pace is for moves). A short clock here; every wait is on an event,
none on a time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from bot.games.db.models import utcnow
from bot.games.model import GameView
from bot.games.play.clock_rules import Clock, clock_key, time_left
from bot.locales import en
from core.board import O
from tests.e2e.test_clocks import clock_of, turn_clock, until
from tests.e2e.test_tournament_pace import spend_the_groups_messages
from tests.e2e.test_tournaments import GROUP, PEOPLE, new_boards, standings
from tests.support.bot_runner import BotRunner
from tests.support.chat import (
    board_cells,
    cell_data,
    current,
    game_id_on,
    press,
    send,
    tap_cell,
    words,
)
from tests.support.fake_telegram import FakeTelegram, StoredMessage

CLOCK = Clock(3.0, 0.5)
ANN, BEN, CAT = PEOPLE[:3]
BY_ID = {person["id"]: person for person in PEOPLE}


@pytest.fixture
async def quick(telegram: FakeTelegram, database_url: str) -> AsyncIterator[BotRunner]:
    """The real bot with a short stranger clock (so a tournament's by default), redrawn
    often."""
    runner = BotRunner(
        telegram,
        database_url,
        stranger_clock_seconds=CLOCK.seconds,
        stranger_clock_delay_seconds=CLOCK.delay,
        clock_redraw_seconds=0.5,
    )
    await runner.start()
    try:
        yield runner
    finally:
        await runner.stop()


async def game_on(bot: BotRunner, telegram: FakeTelegram, board: StoredMessage) -> GameView:
    assert bot.application is not None
    store = bot.application.bot_data.running.games.store
    game = await store.get_game(game_id_on(telegram, board))
    assert game is not None
    return game


async def open_and_start(telegram: FakeTelegram, command: str) -> StoredMessage:
    """Ann opens a tournament with `command`, Ben and Cat join, Ann starts it."""
    await send(telegram, ANN, command, chat=GROUP)
    message = telegram.last_bot_message(GROUP["id"])
    for person in (BEN, CAT):
        await press(telegram, person, message, en.TOURNAMENT_JOIN)
    await press(telegram, ANN, message, en.TOURNAMENT_START)
    return message


async def next_board(telegram: FakeTelegram, seen: set[Any]) -> StoredMessage:
    """The one board of the round posted next (three players: a game and a bye a round)."""
    boards: list[StoredMessage] = []

    def posted() -> bool:
        boards[:] = new_boards(telegram, seen)
        return len(boards) == 1

    await telegram.wait_until(posted, timeout=15, what="the round's board")
    seen.add(boards[0].key)
    return boards[0]


def points(message: StoredMessage) -> dict[str, float]:
    return {name: pts for name, (_, pts, _) in standings(message).items()}


async def test_the_clock_ends_an_absent_players_games_and_the_rounds_go_on(
    telegram: FakeTelegram, quick: BotRunner
) -> None:
    message = await open_and_start(telegram, "/tournament")
    title = en.TOURNAMENT_TITLE_CLOCK.format(
        board="3×3", format=en.TOURNAMENT_FORMATS["roundrobin"], clock=clock_key(CLOCK)
    )
    assert current(telegram, message).text.splitlines()[0] == title  # the bot's clock
    seen: set[Any] = set()
    # Round 1: ❌ moves, ⭕ walks away and loses on time within the clock.
    board = await next_board(telegram, seen)
    game = await game_on(quick, telegram, board)
    x, o = BY_ID[game.x_player_id or 0], BY_ID[game.o_player_id or 0]
    (bye,) = {ANN["id"], BEN["id"], CAT["id"]} - {x["id"], o["id"]}
    count = {person["first_name"]: 0.0 for person in (ANN, BEN, CAT)}
    count[x["first_name"]] += 1.0
    count[BY_ID[bye]["first_name"]] += 1.0
    await tap_cell(telegram, x, board, 4)
    await until(lambda: words(current(telegram, board)) == "X wins")
    flagged = current(telegram, board)
    assert en.RESULT_NAME_TIMED_OUT.format(name=o["first_name"]) in flagged.text
    assert clock_of(flagged).endswith("⭕ 0:00")
    # Round 2 starts (its bye a point at once), and the standings count the loss on time.
    board = await next_board(telegram, seen)
    edits = current(telegram, message).edit_count
    drawn = current(telegram, board).edit_count
    game = await game_on(quick, telegram, board)
    x, o = BY_ID[game.x_player_id or 0], BY_ID[game.o_player_id or 0]
    (bye,) = {ANN["id"], BEN["id"], CAT["id"]} - {x["id"], o["id"]}
    count[BY_ID[bye]["first_name"]] += 1.0
    assert "Round 2 of 3" in current(telegram, message).text
    assert points(current(telegram, message)) == count
    # Round 2: nobody moves. Neither the board nor the standings are edited as the clock
    # runs (a group's pace is for moves); ❌ who never moved has the game aborted, and
    # forfeits it: one edit of the standings, for that event.
    count[o["first_name"]] += 1.0
    assert await turn_clock(quick).redraw_clocks(utcnow() + timedelta(seconds=1)) == 0
    assert current(telegram, board).edit_count == drawn
    # Its board says ❌'s player forfeits it in the tournament, by name.
    aborted = en.TOURNAMENT_GAME_ABORTED.format(name=x["first_name"])
    await until(lambda: aborted in current(telegram, board).text)
    board = await next_board(telegram, seen)  # the round completed: round 3
    assert current(telegram, message).edit_count == edits + 1
    game = await game_on(quick, telegram, board)
    (bye,) = {ANN["id"], BEN["id"], CAT["id"]} - {game.x_player_id, game.o_player_id}
    count[BY_ID[bye]["first_name"]] += 1.0
    after = current(telegram, message)
    assert "Round 3 of 3" in after.text
    assert points(after) == count
    await press(telegram, ANN, message, en.TOURNAMENT_END)


async def test_a_tournaments_own_control_is_on_its_boards_and_a_bad_one_changes_nothing(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    before = len(telegram.bot_messages(GROUP["id"]))
    for bad in ("/tournament 4 3+", "/tournament 0+2", "/tournament 3+2 1+0"):
        await send(telegram, ANN, bad, chat=GROUP)
        assert telegram.last_bot_message(GROUP["id"]).text == en.BAD_TOURNAMENT
    assert len(telegram.bot_messages(GROUP["id"])) == before + 3  # the answers, nothing else
    message = await open_and_start(telegram, "/tournament 3+2")
    assert current(telegram, message).text.splitlines()[0].endswith("· ⏱ 3+2")
    (board,) = new_boards(telegram, set())
    line = en.CLOCK_LINE.format(x_mark="❌", x="3:00", o_mark="⭕", o="3:00")
    assert clock_of(current(telegram, board)) == line
    game = await game_on(bot, telegram, board)
    assert (game.clock_seconds, game.clock_delay) == (180.0, 2.0)


#: Issue 51's group: its minute of messages spent, one every 3 s (Telegram's own clock, for
#: the one message this waits for).
PACE = 60 / 20


@pytest.fixture
async def busy_group(database_url: str) -> AsyncIterator[tuple[FakeTelegram, BotRunner]]:
    """The fake and the bot on Telegram's flood windows, 12 s a side and nothing back."""
    async with FakeTelegram(time_scale=1.0) as telegram:
        runner = BotRunner(
            telegram, database_url, stranger_clock_seconds=12.0, stranger_clock_delay_seconds=0.0
        )
        await runner.start()
        try:
            yield telegram, runner
        finally:
            await runner.stop()


async def test_a_board_the_groups_pace_holds_costs_its_player_no_time(
    busy_group: tuple[FakeTelegram, BotRunner],
) -> None:
    # Issue 51: Cat moved within a second of her board showing her turn and still lost 3 s
    # a move: the bot held her board's edit for the group's pace while her clock ran.
    telegram, bot = busy_group
    await open_and_start(telegram, "/tournament")
    board = await next_board(telegram, set())
    game = await game_on(bot, telegram, board)
    x, o = BY_ID[game.x_player_id or 0], BY_ID[game.o_player_id or 0]
    await spend_the_groups_messages(bot)
    loop = asyncio.get_running_loop()
    moved_at = loop.time()
    telegram.tap(x, board, cell_data(telegram, board, 4))
    # ❌'s move is stored at once; its board waits for the group's next message, and until
    # it shows ⭕ his turn his clock does not run.
    async with asyncio.timeout(PACE):
        # Nothing tells of a write to the database but reading it.
        while (held := await game_on(bot, telegram, board)).ply == 0:  # noqa: ASYNC110
            await asyncio.sleep(0.01)
    assert board_cells(telegram, current(telegram, board))[4] == "_"  # not shown yet
    assert time_left(held, O, utcnow()) == 12.0
    await telegram.wait_until(lambda: board_cells(telegram, current(telegram, board))[4] == "X")
    assert loop.time() - moved_at > PACE / 2  # the pace did hold it
    # ⭕ answers at once: he spent no more than the bot's own work, not the group's pace.
    await tap_cell(telegram, o, current(telegram, board), 0)
    answered = await game_on(bot, telegram, board)
    assert answered.ply == 2 and answered.o_clock is not None
    assert answered.o_clock > 11.0, answered.o_clock
