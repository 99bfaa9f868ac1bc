"""Boards catch up with their games after a crash (`bot.chores.board_catch_up`): `python -m bot`
is killed (SIGKILL) at the worst moment, after a move's commit and before its edit reached Telegram,
or after a game's commit and before its board was posted; the restarted bot brings every
board up to date, by itself or at the first tap on it. SQLite by default, PostgreSQL with
TEST_DATABASE_URL.

The fake holds the edit (`hold_next`) the way the bot's pace would: the move is stored, the
edit is on its way; the kill makes sure it never arrives.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db.engine import create_session_factory
from bot.games.db.models import Game
from bot.locales import en
from tests.support.chat import board_cells, cell_data, current, game_id_on
from tests.support.fake_telegram import FakeTelegram, StoredMessage
from tests.support.processes import WAIT, BotProcess, bot_env, bot_process, bots_done

# Every test here runs `python -m bot` (or its script) as a process.
pytestmark = pytest.mark.process

ALICE = FakeTelegram.user(1001, "Alice")


#: How long a game must be still before a tap redraws its board (BOARD_TAP_REDRAW_SECONDS).
TAP_REDRAW_SECONDS = 0.5


def env_for(fake: FakeTelegram, database_url: str, catch_up: str) -> dict[str, str]:
    return bot_env(
        fake,
        database_url,
        AI_PAUSE_SECONDS="0.01",
        BOARD_CATCH_UP_SECONDS=catch_up,
        BOARD_TAP_REDRAW_SECONDS=str(TAP_REDRAW_SECONDS),
    )


async def stored(engine: AsyncEngine, game_id: int) -> Game:
    async with create_session_factory(engine)() as session:
        game = await session.get(Game, game_id, populate_existing=True)
        assert game is not None
        return game


async def until_marked(engine: AsyncEngine, game_id: int) -> Game:
    """The game once its board is marked as showing it (marks are written in batches)."""
    for _ in range(int(WAIT / 0.05)):
        game = await stored(engine, game_id)
        if game.shown_version == game.version:
            return game
        await asyncio.sleep(0.05)
    raise AssertionError(f"board of game {game_id} never marked shown")


def shows(fake: FakeTelegram, message: StoredMessage, game: Game) -> bool:
    return board_cells(fake, current(fake, message)) == game.board


async def started(fake: FakeTelegram, process: BotProcess) -> None:
    await process.wait_ready(fake, since=fake.mark())


async def new_game(fake: FakeTelegram, command: str = "/start easy") -> StoredMessage:
    """Alice starts a game against the AI (she is ❌); its board once the bot is done."""
    mark = fake.mark()
    fake.send_text(ALICE, command)
    await fake.wait_for(is_board_for_alice, WAIT, since=mark)
    await bots_done(fake)
    return fake.last_bot_message(ALICE["id"])


async def idle(fake: FakeTelegram) -> None:
    """Nothing in flight (after a kill, the killed bot's last update is never logged as
    handled: `bots_done` would wait for it)."""
    await fake.wait_idle(quiet=0.0, timeout=WAIT)


def is_board_for_alice(call: Any) -> bool:
    return (
        call.method == "sendMessage"
        and call.ok
        and call.params.get("chat_id") == ALICE["id"]
        and "reply_markup" in call.params
    )


async def left_behind(
    fake: FakeTelegram, tmp_path: Path, env: dict[str, str], engine: AsyncEngine, cell: int
) -> tuple[StoredMessage, Game]:
    """A bot process starts, Alice starts a game and taps `cell`; the move (and the AI's
    answer) is committed, its edit is held on its way to Telegram, and the bot is killed.
    Her board message, and the game as stored."""
    async with bot_process(tmp_path, env, name="first") as first:
        await started(fake, first)
        board = await new_game(fake)
        fake.hold_next("editMessageText")
        query = fake.tap(ALICE, board, cell_data(fake, board, cell, prefix=""))
        await fake.answer_to(query, timeout=WAIT)
        await fake.wait_until(lambda: fake.held == 1, WAIT)
        await first.kill()
        fake.release_held()
    return board, await stored(engine, game_id_on(fake, board))


async def test_a_board_whose_edit_a_crash_lost_is_drawn_after_the_restart(
    tmp_path: Path, database_url: str, engine: AsyncEngine
) -> None:
    async with FakeTelegram() as fake:
        env = env_for(fake, database_url, catch_up="0.2")
        board, game = await left_behind(fake, tmp_path, env, engine, 4)
        # Stored: Alice's move and the AI's answer; shown: the empty board.
        assert game.board.count("X") == 1 and game.board.count("O") == 1
        assert board_cells(fake, current(fake, board)) == "_" * 9
        assert game.shown_version < game.version

        async with bot_process(tmp_path, env, name="second") as second:
            await started(fake, second)
            # Nobody taps: the restarted bot draws the board by itself.
            await fake.wait_until(lambda: shows(fake, board, game), WAIT)
            await idle(fake)
            assert (await until_marked(engine, game.id)).version == game.version
            assert "shows an older version" in second.output


async def test_a_tap_on_a_board_left_behind_redraws_it(
    tmp_path: Path, database_url: str, engine: AsyncEngine
) -> None:
    async with FakeTelegram() as fake:
        # Rounds far apart: the tap, not a round, must bring the board up to date.
        env = env_for(fake, database_url, catch_up="300")
        board, game = await left_behind(fake, tmp_path, env, engine, 0)
        # Another instance's edit may still be on its way for a while: a tap redraws a
        # board only once its game has been still that long (BOARD_TAP_REDRAW_SECONDS).
        await asyncio.sleep(TAP_REDRAW_SECONDS)
        async with bot_process(tmp_path, env, name="second") as second:
            await started(fake, second)
            behind = current(fake, board)
            query = fake.tap(ALICE, behind, cell_data(fake, behind, 8, prefix=""))
            answer = await fake.answer_to(query, timeout=WAIT)
            await fake.wait_until(lambda: shows(fake, board, game), WAIT)
            await idle(fake)
            # Said why nothing was played, and shown the game as it is: tap again.
            assert answer.get("text") == en.POPUP_STALE
            assert (await stored(engine, game.id)).board == game.board
            again = current(fake, board)
            query = fake.tap(
                ALICE, again, cell_data(fake, again, again_free(fake, again), prefix="")
            )
            assert not (await fake.answer_to(query, timeout=WAIT)).get("text")
            await idle(fake)
            assert second.proc is not None


def again_free(fake: FakeTelegram, message: StoredMessage) -> int:
    return board_cells(fake, message).index("_")


async def killed_while_posting(
    fake: FakeTelegram, tmp_path: Path, env: dict[str, str]
) -> tuple[int, float]:
    """A bot killed (-9) while Telegram holds the posting of the board of Alice's `/start
    easy`, let through once the bot is dead: the fake's mark before the `/start`, and when
    (the loop's clock) it was sent."""
    async with bot_process(tmp_path, env, name="first") as first:
        await started(fake, first)
        fake.hold_next("sendMessage")
        mark = fake.mark()
        sent = asyncio.get_running_loop().time()
        fake.send_text(ALICE, "/start easy")
        await fake.wait_until(lambda: fake.held == 1, WAIT)
        await first.kill()
        fake.release_held()
    return mark, sent


async def test_a_game_whose_board_a_crash_kept_from_posting_is_posted_after_the_restart(
    tmp_path: Path, database_url: str, engine: AsyncEngine
) -> None:
    async with FakeTelegram() as fake:
        env = env_for(fake, database_url, catch_up="0.2")
        mark, _ = await killed_while_posting(fake, tmp_path, env)
        assert not [call for call in fake.calls[mark:] if is_board_for_alice(call)]
        async with bot_process(tmp_path, env, name="second") as second:
            await started(fake, second)
            await fake.wait_for(is_board_for_alice, WAIT, since=mark)
            await idle(fake)
            board = fake.last_bot_message(ALICE["id"])
            # Marked shown: no later round posts it again.
            game = await until_marked(engine, game_id_on(fake, board))
            assert game.message_id == board.message_id
            assert len([call for call in fake.calls[mark:] if is_board_for_alice(call)]) == 1


async def test_a_board_whose_posting_a_crash_killed_is_posted_once_its_claim_lapsed(
    tmp_path: Path, database_url: str, engine: AsyncEngine
) -> None:
    # Issue 50: a board never posted waits 12 rounds (30 s on the defaults) in case another
    # instance still holds its posting back for a busy group's pace; a posting's claim that
    # lapsed says its poster died. Rounds of 2 s (24 s for a posting nobody claimed), a
    # claim of 0.5 s: posted within the ordinary grace of 2 rounds and one more, about 6 s
    # after the /start, or 8 s with the kill and the restart on a loaded host. Rounds of 1 s
    # left too thin a margin there: 8.4 s, against the 12 s that tell the two apart.
    async with FakeTelegram() as fake:
        env = env_for(fake, database_url, catch_up="2.0")
        mark, sent = await killed_while_posting(fake, tmp_path, env)
        async with bot_process(tmp_path, env, name="second") as second:
            await started(fake, second)
            await fake.wait_for(is_board_for_alice, 16.0, since=mark)
            took = asyncio.get_running_loop().time() - sent
            await idle(fake)
            game = await until_marked(engine, game_id_on(fake, fake.last_bot_message(ALICE["id"])))
            assert game.message_id is not None
            assert took < 16.0, f"posted {took:.1f} s after the /start, not within the grace"


@pytest.mark.paced
async def test_boards_catch_up_within_ten_seconds_of_a_restart_three_times_in_three(
    tmp_path: Path, database_url: str, engine: AsyncEngine
) -> None:
    # Issue 50: a kill -9 with an edit in flight took 21.5 s to catch up, 3 times in 3 (the
    # dead process's claim lasted 15 s, and the grace began again with each process). On the
    # bot's own timings (no setting shortened), each of three kills is caught up within 10 s.
    # One fake for all three (message ids never repeat in a chat, as in Telegram's), and a
    # player of its own each time.
    async with FakeTelegram() as fake:
        env = bot_env(fake, database_url, AI_PAUSE_SECONDS="0.01")
        for attempt in range(3):
            player = FakeTelegram.user(1101 + attempt, f"Player{attempt}")
            async with bot_process(tmp_path, env, name=f"first {attempt}") as first:
                await first.wait_ready(fake, since=fake.mark())
                mark = fake.mark()
                fake.send_text(player, "/start easy")
                posted = await fake.wait_for("sendMessage", WAIT, since=mark)
                board = fake.last_bot_message(player["id"])
                assert posted.ok and board.reply_markup
                fake.hold_next("editMessageText")
                query = fake.tap(player, board, cell_data(fake, board, 4, prefix=""))
                await fake.answer_to(query, timeout=WAIT)
                await fake.wait_until(lambda: fake.held == 1, WAIT)
                await first.kill()
                fake.release_held()
            game = await stored(engine, game_id_on(fake, board))
            assert not shows(fake, board, game)
            async with bot_process(tmp_path, env, name=f"restart {attempt}") as restarted:
                await restarted.wait_ready(fake, since=fake.mark())
                begun = asyncio.get_running_loop().time()  # the restart is up: it polls
                await fake.wait_until(lambda: shows(fake, board, game), 12.0)  # noqa: B023
                took = asyncio.get_running_loop().time() - begun
                assert took <= 10.0, f"caught up {took:.1f} s after the restart"
