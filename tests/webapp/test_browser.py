"""The Mini App in a real headless Chromium at phone size (390×844): taps on cells, the AI's
replies and a tap in chat appearing live, the chat board edited to the same position, the
result in words, a loss buzzing once and not "success"; the start page in one row of sizes;
an 8×8 game in Persian, right to left, in the dark theme; each refusal in words."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.chat import board_cells, game_id_on, send, tap_cell
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.browser import (
    open_page,
    page_cells,
    play_on,
    policy_violations,
    press_back,
    screenshot,
    wait_ply,
)
from tests.webapp.support import bot_with_mini_app

# Every test here drives the page in Chromium.
pytestmark = pytest.mark.browser

ALICE = FakeTelegram.user(1001, "Alice", language_code="en")
MARYAM = FakeTelegram.user(1004, "مریم", language_code="fa")


async def test_playing_on_the_page_in_chromium(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _page_url):
        await send(telegram, ALICE, "/start hard")
        board = telegram.last_bot_message(ALICE["id"])
        # Opened exactly where the board's "Open board" button points.
        url = board.reply_markup["inline_keyboard"][-1][0]["web_app"]["url"]
        page, outside = await open_page(browser, url, telegram.token, ALICE)
        await wait_ply(page, 0)
        assert await page.text_content("#status") == "Your turn as ❌"
        assert await page.get_attribute("html", "dir") == "ltr"
        assert await page.locator("#actions [data-action='hint']").count() == 1

        await page.click("#board .cell[data-cell='4']")
        await wait_ply(page, 2)  # Alice's move and the AI's reply, without a reload
        cells = await page_cells(page)
        assert cells[4] == "X" and cells.count("O") == 1
        assert board_cells(telegram, board) == cells
        assert await page.locator("#board .cell.last").count() == 1
        moves = await page.eval_on_selector_all("#moves li", "l => l.map(e => e.textContent)")
        assert moves[0] == "❌ 2 2" and moves[1].startswith("⭕ ")  # as typed in the chat
        assert "impact:light" in await page.evaluate("window.hapticCalls")
        # Taken cells are not clickable; the free ones are.
        assert await page.locator("#board .cell:enabled").count() == 7

        # A tap in chat shows on the page at once (server-sent events), AI reply included.
        free = board_cells(telegram, board).index("_")
        await tap_cell(telegram, ALICE, board, free)
        await wait_ply(page, 4)
        assert await page_cells(page) == board_cells(telegram, board)

        await play_on(page)  # to the end (Hard never loses)
        final = await page_cells(page)
        assert board_cells(telegram, board) == final
        status = await page.text_content("#status")
        # In the chat board's words (bot.views.endings), which say the same in private.
        assert status in ("Nobody loses 🤝", "The AI won this time. Play again?")
        wins = await page.locator("#board .cell.win").count()
        assert wins == (0 if status.startswith("Nobody") else 3)
        assert await page.locator("#board svg.lines line").count() == (wins > 0)
        # The end buzzes once, and a loss does not buzz "success".
        ends = [c for c in await page.evaluate("window.hapticCalls") if c.startswith("notif")]
        assert ends == ["notification:warning" if wins == 0 else "notification:error"]
        assert await page.locator("#board .cell:enabled").count() == 0
        # What the chat offers under a finished game against the AI: Play again, Swap
        # sides, Another level, Review (Alice did not win) and Picture.
        actions = await page.eval_on_selector_all(
            "#actions button", "b => b.map(e => e.dataset.action)"
        )
        assert actions == ["again", "swap", "level", "review", "picture", "replay"]
        await screenshot(page, "miniapp-light.png")

        dark, _ = await open_page(browser, url, telegram.token, ALICE, "dark")
        await dark.wait_for_selector("#board[data-status='finished']")
        assert await page_cells(dark) == final
        background = await dark.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(23, 33, 43)"  # DARK's bg_color
        await screenshot(dark, "miniapp-dark.png")
        assert outside == ["https://telegram.org/js/telegram-web-app.js"]

        # Play again: a new game, posted in chat, opened on the page.
        await page.click("#actions [data-action='again']")
        await page.wait_for_selector("#board[data-status='active'][data-ply='0']")
        assert game_id_on(telegram, telegram.last_bot_message(ALICE["id"])) != game_id_on(
            telegram, board
        )


async def test_the_start_page_starts_a_game_in_chromium(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page_url):
        telegram.add_chat(FakeTelegram.private_chat(ALICE))
        page, outside = await open_page(browser, page_url, telegram.token, ALICE)
        await page.wait_for_selector("#home:not([hidden])")
        assert await page.text_content("#hello") == "Hi, Alice!"
        # The content policy lets Telegram's script load (refused here by the test's
        # network, not by the policy) and refuses nothing the page itself does.
        assert outside == ["https://telegram.org/js/telegram-web-app.js"]
        assert await page.is_visible("#no-games")
        # The six sizes in one row at 390 px: 8×8 does not wrap onto a row of its own.
        tops = await page.eval_on_selector_all("#sizes button", "b => b.map(e => e.offsetTop)")
        assert len(tops) == 6 and len(set(tops)) == 1
        await page.click("#levels [data-level='medium']")
        await page.click("#marks [data-mark='O']")
        await page.click("#sizes [data-size='5']")
        await page.click("#start")
        # Medium plays ❌ and moves at once; the page shows its move on a 5×5 board.
        await wait_ply(page, 1)
        assert len(await page_cells(page)) == 25
        board = telegram.last_bot_message(ALICE["id"])
        assert board_cells(telegram, board, 5) == await page_cells(page)
        # Telegram's Back button leads back, in place of the page's own "← Games".
        assert not await page.is_visible("#back")
        await press_back(page)
        await page.wait_for_selector("#open-games li")
        assert "your turn" in await page.text_content("#open-games")
        assert await policy_violations(page) == []


async def test_an_8x8_game_in_persian_right_to_left_in_the_dark_theme(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page_url):
        telegram.add_chat(FakeTelegram.private_chat(MARYAM))
        page, _ = await open_page(browser, page_url, telegram.token, MARYAM, "dark")
        await page.wait_for_selector("#home:not([hidden])")
        assert await page.get_attribute("html", "lang") == "fa"
        assert await page.get_attribute("html", "dir") == "rtl"
        assert await page.text_content("#hello") == "سلام مریم!"
        assert await page.text_content("#start") == "شروع"
        await page.click("#levels [data-level='easy']")
        await page.click("#sizes [data-size='8']")
        await page.click("#start")
        await wait_ply(page, 0)
        assert await page.text_content("#status") == "نوبت شماست: ❌"
        assert "(شما)" in await page.text_content("#players")
        # The board keeps the chat's column order: cell 0 is at the top left.
        first = await page.eval_on_selector("#board .cell[data-cell='0']", "c => c.offsetLeft")
        last = await page.eval_on_selector("#board .cell[data-cell='7']", "c => c.offsetLeft")
        assert first < last
        await page.click("#board .cell[data-cell='27']")
        await wait_ply(page, 2)
        await screenshot(page, "miniapp-persian.png")
        await play_on(page)
        board = telegram.last_bot_message(MARYAM["id"])
        assert board_cells(telegram, board, 8) == await page_cells(page)
        status = await page.text_content("#status")
        assert status in ("بردید! 🎉 عالی بازی کردید.", "هیچ‌کس نباخت 🤝") or "برد" in status
