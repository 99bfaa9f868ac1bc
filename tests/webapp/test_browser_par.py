"""The page on a par with lichess's board (issue 52), in Chromium at 320 and 390 px: two
players on one phone have a name each, Undo and a buzz at the end."""

from __future__ import annotations

from typing import Any

import pytest

from bot.locales import en
from tests.support.chat import board_cells, current
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.browser import open_new_game, screenshot, wait_ply
from tests.webapp.support import bot_with_mini_app

# Every test here drives the page in Chromium.
pytestmark = pytest.mark.browser

CAROL = FakeTelegram.user(1003, "Carol", language_code="en")
WIDTHS = [320, 390]


# Item 8: both chips said "Carol", no Undo, no buzz at the end.
@pytest.mark.parametrize("width", WIDTHS)
async def test_two_players_on_one_phone_have_a_name_each_undo_and_a_buzz(
    telegram: FakeTelegram, database_url: str, browser: Any, width: int
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _url):
        page, board = await open_new_game(telegram, browser, CAROL, "/start user user", width=width)
        names = await page.eval_on_selector_all(
            "#players .name", "ns => ns.map(n => n.textContent)"
        )
        assert names == ["Player 1", "Player 2"]
        assert await page.text_content("#status") == "Player 1's turn ❌"
        assert await page.locator("[data-action='undo']").count() == 0  # nothing to undo
        for ply, cell in enumerate((4, 0), start=1):
            await page.click(f"#board .cell[data-cell='{cell}']")
            await wait_ply(page, ply)
        assert await page.text_content("#status") == "Player 1's turn ❌"
        # Undo, as the chat's ↩️: the last move (⭕'s) goes, here and on the chat's board.
        await page.click("[data-action='undo']")
        await wait_ply(page, 1)
        assert await page.text_content("#status") == "Player 2's turn ⭕"
        assert await page.text_content("#notice") == en.UNDONE_LAST
        assert board_cells(telegram, current(telegram, board)) == "____X____"
        await screenshot(page, f"par-one-phone-{width}.png")
        # ⭕ 0, ❌ 1, ⭕ 2, ❌ 7: ❌'s middle column; the phone buzzes once, for a win.
        for ply, cell in enumerate((0, 1, 2, 7), start=2):
            await page.click(f"#board .cell[data-cell='{cell}']")
            await wait_ply(page, ply)
        await page.wait_for_selector("#board[data-status='finished']")
        assert await page.text_content("#status") == en.RESULT_MARK_WON.format(mark="❌")
        buzzes = [c for c in await page.evaluate("window.hapticCalls") if "notification" in c]
        assert buzzes == ["notification:success"]
