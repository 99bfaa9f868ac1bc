"""Every board tells the truth: whatever Telegram does to an edit (answers it late, carries it
out after a newer one, refuses it for longer than the retries last) and however many
processes draw, a board ends showing its game, and is marked shown only once it does.

Each test is a fault found by a probe, scripted against the fake Bot API:
- ⭕'s board of a game between strangers posted late (its chat's pace), while ❌ moves;
- an edit carried out after the bot gave up waiting for it, and after a newer edit;
- an edit refused (502) past every retry;
- two processes drawing one game, the first one's edit on its way while the second draws.
"""

from __future__ import annotations

import asyncio
import functools
from datetime import timedelta

import pytest

from bot import app
from bot.chat.boards import BoardHooks
from bot.chat.presenter import Presenter
from bot.chores.board_catch_up import BoardCatchUp
from bot.games.db.models import utcnow
from bot.games.db.outbox import BoardOutbox
from bot.games.model import BoardRef, GameView, PlayerInfo
from bot.views.render import render_game
from core.notation import format_cells
from tests.support.bot_runner import BotRunner
from tests.support.chat import board_cells, current, game_id_on, send, tap_cell
from tests.support.fake_telegram import FakeTelegram, StoredMessage

ANN = FakeTelegram.user(4101, "Ann")
BEN = FakeTelegram.user(4102, "Ben")
WAIT = 15.0


def boards_of(tg: FakeTelegram, user: dict) -> list[StoredMessage]:
    return [
        m for m in tg.bot_messages(user["id"]) if m.reply_markup and "m:" in str(m.reply_markup)
    ]


async def stored(runner: BotRunner, game_id: int) -> GameView:
    assert runner.application is not None
    game = await runner.application.bot_data.running.games.store.get_game(game_id)
    assert game is not None
    return game


async def until_true_and_marked(tg: FakeTelegram, runner: BotRunner, game_id: int) -> GameView:
    """Until every board of the game shows it as stored, and the game says its boards do."""
    assert runner.application is not None
    catch_up = runner.application.bot_data.running.board_catch_up
    deadline = asyncio.get_running_loop().time() + WAIT
    while True:
        await catch_up.flush()
        game = await stored(runner, game_id)
        if game.shown_version == game.version and shows(tg, game):
            return game
        assert asyncio.get_running_loop().time() < deadline, (
            game.version,
            game.shown_version,
            [m.text for m in boards(tg, game)],
        )
        await asyncio.sleep(0.05)


def boards(tg: FakeTelegram, game: GameView) -> list[StoredMessage]:
    found = []
    for chat_id, message_id in (
        (game.chat_id, game.message_id),
        (game.second_chat_id, game.second_message_id),
    ):
        if chat_id is not None and message_id is not None:
            found.append(tg.messages[(chat_id, message_id)])
    return found


def shows(tg: FakeTelegram, game: GameView) -> bool:
    """Whether each board of the game shows its cells as stored now."""
    expected = format_cells(game.board)
    on = boards(tg, game)
    if game.second_chat_id is not None and len(on) < 2:
        return False
    return bool(on) and all(board_cells(tg, message) == expected for message in on)


async def test_a_strangers_board_posted_late_shows_the_move_made_meanwhile(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # Ben's board waits on its way (his chat's pace) while Ann, whose board is there, moves.
    await send(telegram, ANN, "/play")
    telegram.hold_next("sendMessage", chat_id=BEN["id"])
    telegram.send_text(BEN, "/play")
    await telegram.wait_until(lambda: telegram.held == 1 and boards_of(telegram, ANN), WAIT)
    (x_board,) = boards_of(telegram, ANN)
    game_id = game_id_on(telegram, x_board)
    # (Not waiting for the bot to be done with everything: Ben's /play is still posting.)
    query = telegram.tap(ANN, x_board, f"m:{game_id}:0:4")
    assert not (await telegram.answer_to(query, timeout=WAIT)).get("text")
    await telegram.wait_until(
        lambda: board_cells(telegram, current(telegram, x_board))[4] == "X", WAIT
    )
    assert bot.application is not None
    await bot.application.bot_data.running.board_catch_up.flush()
    moved = await stored(bot, game_id)
    # Ann's board shows her move, but the game is not shown: Ben's board is not there yet.
    assert moved.shown_version < moved.version
    telegram.release_held()
    game = await until_true_and_marked(telegram, bot, game_id)
    (o_board,) = boards_of(telegram, BEN)
    assert board_cells(telegram, current(telegram, o_board))[4] == "X"
    assert game.version == moved.version


async def test_an_edit_carried_out_after_a_newer_one_is_drawn_over(
    telegram: FakeTelegram, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A read timeout shorter than Telegram takes to carry the edit out.
    short = functools.partial(app.RetryingRequest, read_timeout=0.5)
    monkeypatch.setattr(app, "RetryingRequest", short)
    runner = BotRunner(telegram, database_url, retry_backoff_seconds=0.01, board_doubt_seconds=2.5)
    await runner.start()
    try:
        await send(telegram, ANN, "/start user user")
        (board,) = boards_of(telegram, ANN)
        game_id = game_id_on(telegram, board)
        # Ann's first move: Telegram carries its edit out 1.5 s late, after the bot's retry and
        # after the edit of her next move.
        telegram.land_late_next("editMessageText", after=1.5)
        first = telegram.tap(ANN, board, f"m:{game_id}:0:0")
        await telegram.answer_to(first, timeout=WAIT)
        await telegram.wait_until(lambda: board_cells(telegram, current(telegram, board))[0] == "X")
        second = telegram.tap(ANN, current(telegram, board), f"m:{game_id}:1:4")
        await telegram.answer_to(second, timeout=WAIT)
        await telegram.wait_until(
            lambda: board_cells(telegram, current(telegram, board)) == "X___O____", WAIT
        )
        # The late edit lands: the board goes back to the first move...
        await telegram.wait_until(
            lambda: board_cells(telegram, current(telegram, board)) == "X________", WAIT
        )
        # ...and the bot, in doubt since that edit went unanswered, draws the game again.
        game = await until_true_and_marked(telegram, runner, game_id)
        assert board_cells(telegram, current(telegram, board)) == "X___O____"
        assert current(telegram, board).text == render_game(game).text
    finally:
        await runner.stop()


async def test_an_edit_refused_past_every_retry_is_drawn_once_telegram_answers(
    telegram: FakeTelegram, database_url: str
) -> None:
    runner = BotRunner(
        telegram, database_url, retry_backoff_seconds=0.01, board_catch_up_seconds=0.2
    )
    await runner.start()
    try:
        await send(telegram, ANN, "/start user user")
        (board,) = boards_of(telegram, ANN)
        game_id = game_id_on(telegram, board)
        telegram.fail_next("editMessageText", 502, "Bad Gateway", count=5)
        await tap_cell(telegram, ANN, board, 0)
        # Every try refused: the board is behind, and stays marked so.
        assert board_cells(telegram, current(telegram, board)) == "_" * 9
        assert (await stored(runner, game_id)).shown_version < (
            await stored(runner, game_id)
        ).version
        # Telegram answers again: the board catch-up draws the move by itself.
        game = await until_true_and_marked(telegram, runner, game_id)
        assert board_cells(telegram, current(telegram, board))[0] == "X"
        assert format_cells(game.board)[0] == "X"
    finally:
        await runner.stop()


async def test_two_processes_never_land_an_older_edit_after_a_newer_one(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    assert bot.application is not None
    running = bot.application.bot_data.running
    games = running.games
    # A second process on the same database: its own presenter, its own name in claims.
    outbox = BoardOutbox(games.store)
    other = Presenter(bot.application.bot, games.chats, outbox, claimed_retry_seconds=0.1)
    other.hooks = BoardHooks(delivered=BoardCatchUp(outbox, other).delivered)
    await send(telegram, ANN, "/start user user")
    (board,) = boards_of(telegram, ANN)
    game_id = game_id_on(telegram, board)
    # Ann's move is drawn by the first process, whose edit is held on its way...
    telegram.hold_next("editMessageText")
    first = telegram.tap(ANN, board, f"m:{game_id}:0:0")
    await telegram.answer_to(first, timeout=WAIT)
    await telegram.wait_until(lambda: telegram.held == 1, WAIT)
    # ...while Ann moves again (as if through the other process), which shows it at once.
    ann = PlayerInfo(ANN["id"], ANN["first_name"], "en")
    result = await games.play.tap(game_id, BoardRef(chat_id=board.chat_id), ann, 1, 4)
    assert result.game is not None
    await other.show(result.game, ai=False)
    # The other process found the board claimed: it drew nothing over the edit on its way.
    assert board_cells(telegram, current(telegram, board)) == "_" * 9
    telegram.release_held()
    game = await until_true_and_marked(telegram, bot, game_id)
    assert board_cells(telegram, current(telegram, board)) == "X___O____"
    assert game.version == result.game.version
    await other.stop()


async def test_a_board_held_back_by_its_chats_pace_is_posted_once(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # A board waits to be posted (a busy group's pace would hold it so) far longer than the
    # board catch-up waits for a posting before it posts the board itself.
    telegram.hold_next("sendMessage", chat_id=ANN["id"])
    telegram.send_text(ANN, "/start user user")
    await telegram.wait_until(lambda: telegram.held == 1, WAIT)
    assert bot.application is not None
    catch_up = bot.application.bot_data.running.board_catch_up
    later = utcnow()
    for _ in range(3):  # rounds as far apart as ever: the grace for a posting long past
        later += timedelta(hours=1)
        await catch_up.catch_up(now=later)
    telegram.release_held()
    await telegram.wait_until(lambda: bool(boards_of(telegram, ANN)), WAIT)
    await catch_up.catch_up(now=later + timedelta(hours=1))
    await bot.quiesce()
    assert len(boards_of(telegram, ANN)) == 1


async def test_a_game_replaced_before_its_board_was_posted_is_not_left_behind(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # Issue 50: games replaced before their board was posted kept shown_version < version
    # for good: every round of the board catch-up read them again.
    telegram.hold_next("sendMessage", chat_id=ANN["id"])
    telegram.send_text(ANN, "/start easy")
    await telegram.wait_until(lambda: telegram.held == 1, WAIT)
    telegram.send_text(ANN, "/start medium")  # replaces it while its board is on its way
    await telegram.wait_until(lambda: len(boards_of(telegram, ANN)) >= 1, WAIT)
    telegram.release_held()
    await bot.quiesce()
    assert bot.application is not None
    running = bot.application.bot_data.running
    await running.board_catch_up.catch_up(now=utcnow() + timedelta(hours=1))
    await bot.quiesce()
    await running.board_catch_up.flush()
    assert await running.games.outbox.behind(now=utcnow() + timedelta(hours=2)) == {}
