"""Every ending reaches every listener once, whatever ended it: a move, /stop in a chat or a
group, a stranger's resignation, a match's game, the Mini App. Each test plays one source
and checks what each listener did with it: the ended board (`EndedBoards`), the announcer
(`Announcer`), a match's next game (`MatchGames`), the Mini App's pages (`GameNotifier`); the
runner counts every ending its listeners heard and fails a test that told one twice. A
tournament's game wakes its round (`TournamentRounds`)."""

from __future__ import annotations

import aiohttp
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db.models import Game
from bot.games.events import GameEnded
from bot.locales import en
from tests.e2e.test_groups import GROUP, game_between
from tests.e2e.test_matches import BOB as MATCH_BOB
from tests.e2e.test_matches import boards, match_games, start_match
from tests.e2e.test_matchmaking import pair
from tests.e2e.test_tournaments import (  # noqa: F401 (bots: the fixture)
    BY_ID,
    Bots,
    bots,
    new_boards,
    sign_up,
    standings,
)
from tests.support.bot_runner import BotRunner
from tests.support.chat import current, press, send
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.support import auth, bot_with_mini_app, call, public_id_on

ALICE = FakeTelegram.user(7101, "Alice")
ANN = FakeTelegram.user(7102, "Ann")
BEN = FakeTelegram.user(7103, "Ben")


def ended(bot: BotRunner) -> dict[int, int]:
    """Each game whose ending the listeners heard, and how many times."""
    return dict(bot.endings)


async def test_stop_in_a_private_chat_ends_the_game_once_on_its_board(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/start medium")
    board = telegram.last_bot_message(ALICE["id"])
    await send(telegram, ALICE, "/stop")
    assert list(ended(bot).values()) == [1]
    shown = current(telegram, board).text.splitlines()
    assert en.OUTCOME_O_WINS in shown and en.RESULT_YOU_RESIGNED in shown
    # Drawn once: by the listener alone (the handler draws no ending).
    assert len([c for c in telegram.calls_of("editMessageText")]) == 1


async def test_stop_in_a_group_ends_the_game_once_on_its_board(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await game_between(telegram, ALICE, ANN)
    edits = len(telegram.calls_of("editMessageText"))
    await send(telegram, ANN, "/stop", chat=GROUP)
    assert list(ended(bot).values()) == [1]
    assert en.OUTCOME_X_WINS in current(telegram, board).text.splitlines()
    assert len(telegram.calls_of("editMessageText")) == edits + 1


async def test_a_stranger_who_resigns_is_announced_once(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    x_board, o_board = await pair(telegram, ANN, BEN)
    await press(telegram, BEN, current(telegram, o_board), en.BUTTON_RESIGN)
    await press(telegram, BEN, current(telegram, o_board), en.BUTTON_RESIGN_YES)
    assert list(ended(bot).values()) == [1]
    told = [
        m for m in telegram.bot_messages(ANN["id"]) if m.text == en.OPPONENT_LEFT.format(name="Ben")
    ]
    assert len(told) == 1
    for board in (x_board, o_board):
        assert en.OUTCOME_X_WINS in current(telegram, board).text.splitlines()


async def test_a_match_game_resigned_posts_the_next_game_once(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await start_match(telegram)
    await press(telegram, MATCH_BOB, board, en.BUTTON_RESIGN)
    await press(telegram, MATCH_BOB, current(telegram, board), en.BUTTON_RESIGN_YES)
    await match_games(bot).idle()
    assert list(ended(bot).values()) == [1]
    assert len(boards(telegram)) == 2  # game 1's board, and game 2's posted once


async def test_a_resignation_on_the_mini_app_ends_the_game_once_for_chat_and_pages(
    telegram: FakeTelegram, database_url: str, engine: AsyncEngine
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (runner, page):
        notified: list[int] = []
        assert runner.application is not None
        resources = runner.application.bot_data
        assert resources.mini_app is not None
        notifier = resources.mini_app.notifier

        async def pages_told(event: GameEnded) -> None:
            notified.append(event.game.id)

        runner.application.bot_data.running.games.store.events.subscribe(GameEnded, pages_told)
        await send(telegram, ALICE, "/start hard")
        board = telegram.last_bot_message(ALICE["id"])
        url = page + f"api/games/{public_id_on(telegram, board)}"
        with notifier.listening(await newest_game(engine)) as page_event:
            async with aiohttp.ClientSession() as http:
                status, _ = await call(
                    http, "POST", url + "/actions", auth(telegram, ALICE), {"action": "resign"}
                )
            assert status == 200
            await runner.settle()
            assert page_event.is_set()  # the page showing the game heard its ending
        assert list(ended(runner).values()) == [1] and len(notified) == 1
        shown = current(telegram, board).text.splitlines()
        assert en.OUTCOME_O_WINS in shown and en.RESULT_YOU_RESIGNED in shown


async def newest_game(engine: AsyncEngine) -> int:
    async with engine.connect() as connection:
        newest = await connection.scalar(select(func.max(Game.id)))
    assert newest is not None
    return int(newest)


async def test_a_tournament_game_resigned_counts_in_the_standings_once(
    telegram: FakeTelegram,
    bots: Bots,  # noqa: F811 (the fixture, imported above)
) -> None:
    message = await sign_up(telegram)
    assert bots.runner is not None
    await bots.runner.settle()
    board = new_boards(telegram, set())[0]
    game = await bots.game(board)
    assert game.o_player_id is not None and game.x_player_id is not None
    loser, winner = BY_ID[game.o_player_id], BY_ID[game.x_player_id]
    await press(telegram, loser, current(telegram, board), en.BUTTON_RESIGN)
    await press(telegram, loser, current(telegram, board), en.BUTTON_RESIGN_YES)
    # The ending wakes the tournament's round (its listener): the standings count it.
    await telegram.wait_until(
        lambda: standings(current(telegram, message)).get(winner["first_name"], (0, 0.0))[1] == 1.0,
        timeout=10.0,
        what="the resignation in the standings",
    )
    assert bots.runner.endings[game.id] == 1
    assert standings(current(telegram, message))[loser["first_name"]][1] == 0.0
