"""The Mini App in Chromium for every seat and as much as the chat: Carol (🔺) plays her turn
of a three-player game on the page, and the start page lists it with every player."""

from __future__ import annotations

from typing import Any

import pytest

from bot.locales import en
from tests.support.chat import board_cells, current, press, send, tap_cell
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.browser import open_page, screenshot, wait_ply
from tests.webapp.support import bot_with_mini_app

pytestmark = pytest.mark.browser

ALICE = FakeTelegram.user(1001, "Alice", language_code="en")
BOB = FakeTelegram.user(1002, "Bob", language_code="en")
CAROL = FakeTelegram.user(1003, "Carol", language_code="en")
GROUP = FakeTelegram.group_chat(-100970, "Friends")


@pytest.mark.parametrize(("width", "scheme"), [(320, "dark"), (390, "light")])
async def test_carol_plays_her_turn_of_a_three_player_game_on_the_page(
    telegram: FakeTelegram, database_url: str, browser: Any, width: int, scheme: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page_url):
        await send(telegram, ALICE, "/start", chat=GROUP)
        await press(telegram, ALICE, telegram.last_bot_message(GROUP["id"]), en.MENU_THREE_PLAYERS)
        board = telegram.last_bot_message(GROUP["id"])
        for user in (BOB, CAROL):
            await press(telegram, user, board, en.BUTTON_JOIN)
        board = current(telegram, board)
        page, _ = await open_page(browser, page_url, telegram.token, CAROL, scheme, width=width)
        # The start page lists the game with both other players, not as a game of two.
        line = page.locator("#open-games li button")
        await line.wait_for()
        assert "Alice, Bob" in await line.text_content()
        await screenshot(page, f"miniapp-seats-home-{width}-{scheme}.png")
        await line.click()
        await wait_ply(page, 0)
        chips = await page.eval_on_selector_all(
            "#players .player", "chips => chips.map(c => c.dataset.mark)"
        )
        assert chips == ["X", "O", "T"]
        assert await page.locator("#players .player[data-mark='T'] .you").count() == 1
        size = int(
            await page.eval_on_selector(
                "#board", "b => getComputedStyle(b).getPropertyValue('--n')"
            )
        )
        for user, cell in ((ALICE, 0), (BOB, size)):
            assert not (await tap_cell(telegram, user, board, cell)).get("text")
        await page.wait_for_selector("#board[data-your-turn='true']")
        await page.click(f"#board .cell[data-cell='{2 * size}']")
        await wait_ply(page, 3)
        assert board_cells(telegram, board, size)[2 * size] == "T"
        assert await page.locator(f"#board .cell[data-cell='{2 * size}'] svg.mark.T").count() == 1
        await screenshot(page, f"miniapp-seats-game-{width}-{scheme}.png")
