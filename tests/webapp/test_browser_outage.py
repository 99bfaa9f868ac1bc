"""The Mini App when the server goes away (a restart behind a reverse proxy): a move made
meanwhile is sent again and lands once the server is back; one that cannot be sent says so
and gives the board back; the live stream reconnects, after a 502 too. And a refusal is
said in words, not just redrawn."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.support.chat import board_cells, send, tap_cell
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.browser import open_new_game, open_page, page_cells, wait_ply
from tests.webapp.support import bot_with_mini_app, start_web_server, stop_web_server

# Every test here drives the page in Chromium.
pytestmark = pytest.mark.browser

ALICE = FakeTelegram.user(1001, "Alice", language_code="en")
OFFLINE = "No connection to the server. Trying again…"
NOT_SENT = "Your move was not sent: no connection. Tap again when it is back."


async def test_losing_the_server_mid_game_and_recovering(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (runner, _page_url):
        page, board = await open_new_game(telegram, browser, ALICE)

        # Away for a moment: the move waits, says why, and lands when the server is back.
        await stop_web_server(runner)
        failed_sends: list[str] = []
        sent_again = asyncio.Event()

        def on_failed(request: Any) -> None:
            if request.url.endswith("/moves"):
                failed_sends.append(request.url)
            if len(failed_sends) >= 2:
                sent_again.set()

        page.on("requestfailed", on_failed)
        await page.click("#board .cell[data-cell='4']")
        await page.wait_for_selector(f"#connection:has-text('{OFFLINE}')")
        assert await page.locator("#board .cell:enabled").count() == 0
        # Back once the page has sent the move again at least once, in vain.
        await asyncio.wait_for(sent_again.wait(), 20)
        await start_web_server(runner)
        await wait_ply(page, 2)
        await page.wait_for_selector("#connection", state="hidden")
        assert (await page_cells(page))[4] == "X"
        assert board_cells(telegram, board) == await page_cells(page)

        # Away for longer: the move is given up with a word, and the board is given back.
        await stop_web_server(runner)
        await page.click("#board .cell:enabled")
        await page.wait_for_selector(f"#notice:has-text('{NOT_SENT}')", timeout=20000)
        assert await page.locator("#board .cell:enabled").count() == 7
        await start_web_server(runner)
        # The stream comes back by itself: a tap in chat shows on the page.
        await tap_cell(telegram, ALICE, board, board_cells(telegram, board).index("_"))
        await wait_ply(page, 4)
        await page.wait_for_selector("#connection", state="hidden")
        assert await page_cells(page) == board_cells(telegram, board)


async def test_a_502_on_the_stream_and_a_stale_board_are_not_silent(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _page_url):
        await send(telegram, ALICE, "/start hard")
        board = telegram.last_bot_message(ALICE["id"])
        url = board.reply_markup["inline_keyboard"][-1][0]["web_app"]["url"]
        page, _ = await open_page(browser, url, telegram.token, ALICE)
        answered = []

        async def proxy_restarting(route: Any) -> None:
            answered.append(route.request.url)
            if len(answered) == 1:
                await route.fulfill(status=502, body="Bad Gateway")
            else:
                await route.continue_()

        await page.route("**/events", proxy_restarting)
        await page.reload()
        await wait_ply(page, 0)
        await tap_cell(telegram, ALICE, board, 0)
        await wait_ply(page, 2)  # after the 502 the stream reconnected
        assert len(answered) >= 2

        # A board that missed a move (its stream held up): the click is refused in words.
        await page.route("**/events", lambda route: None)  # never answered
        await page.reload()
        await wait_ply(page, 2)
        await tap_cell(telegram, ALICE, board, board_cells(telegram, board).index("_"))
        # Another cell than the chat's: the same one would be the same move, made already.
        await page.click("#board .cell:enabled >> nth=-1")
        await page.wait_for_selector(
            "#notice:has-text('This board is out of date: the game has moved on.')"
        )
        await wait_ply(page, 4)  # and redrawn as the game is now
        assert "notification:error" in await page.evaluate("window.hapticCalls")
