"""The page on a par with the chat board, in Chromium: both clocks of a game on the clock,
the running one counting down on the page itself, and a loss on time said as the chat says it;
"Play someone" moving to the game once a stranger is found; a long unbroken name that never
makes a 320 px page scroll sideways; and a forged sign-in told apart from a stale one."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from bot.games.db.models import utcnow
from bot.locales import en
from tests.e2e.test_matchmaking import boards_of, pair
from tests.support.chat import send, tap_cell
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.browser import open_page, page_url, screenshot, wait_ply
from tests.webapp.support import bot_with_mini_app

# Every test here drives the page in Chromium.
pytestmark = pytest.mark.browser

ALICE = FakeTelegram.user(1001, "Alice", language_code="en")
DAN = FakeTelegram.user(1004, "Dan", language_code="en")
# One word, longer than a 320 px screen is wide at any font size the page uses.
LONG = FakeTelegram.user(1006, "Maximilianbartholomewalexandervoncrumplehornschnitzel")
CLOCK_SECONDS = 20.0

#: Whether the page is wider than the screen (it would scroll sideways).
SIDEWAYS = "document.documentElement.scrollWidth > document.documentElement.clientWidth"


async def clocks(page: Any) -> dict[str, str]:
    return dict(
        await page.eval_on_selector_all(
            "#players .clock", "cs => cs.map(c => [c.dataset.mark, c.textContent])"
        )
    )


async def test_both_clocks_count_down_on_the_page_and_a_loss_on_time_is_said(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    settings = {"stranger_clock_seconds": CLOCK_SECONDS, "stranger_clock_delay_seconds": 0.0}
    async with bot_with_mini_app(telegram, database_url, **settings) as (runner, _page_url):
        for user in (DAN, ALICE):
            telegram.add_chat(FakeTelegram.private_chat(user))
        x_board, o_board = await pair(telegram, DAN, ALICE)
        await tap_cell(telegram, DAN, x_board, 4)
        page, _ = await open_page(browser, page_url(o_board), telegram.token, ALICE)
        await wait_ply(page, 1)
        assert (await clocks(page))["X"] == "0:20"  # Dan moved at once
        # Alice's clock runs, on the page alone: no state comes meanwhile.
        await page.wait_for_function(
            "() => document.querySelector(\"#players .clock.running[data-mark='O']\")"
            ".textContent <= '0:18'"
        )
        assert (await clocks(page))["X"] == "0:20"
        await screenshot(page, "miniapp-clocks.png")
        # Her time runs out: she lost on time, and the page says so as the chat tells her.
        await runner.turn_clock.tick(utcnow() + timedelta(seconds=CLOCK_SECONDS + 1))
        await page.wait_for_selector("#board[data-status='finished']")
        assert await page.text_content("#status") == en.YOU_FLAGGED.format(name="Dan")
        assert await clocks(page) == {"X": "0:20", "O": "0:00"}
        assert await page.locator("#players .clock.running").count() == 0


async def test_play_someone_moves_to_the_game_once_a_stranger_is_found(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, url):
        for user in (ALICE, DAN):
            telegram.add_chat(FakeTelegram.private_chat(user))
        page, _ = await open_page(browser, url, telegram.token, ALICE)
        await page.wait_for_selector("#home:not([hidden])")
        await page.click("#levels [data-level='someone']")
        await page.click("#start")
        await page.wait_for_selector(f"#message:has-text('{en.PAGE['searching']}')")
        # Dan looks from the chat: paired, and the page goes to the game by itself.
        await send(telegram, DAN, "/play")
        await wait_ply(page, 0)
        assert await page.is_visible("#game") and not await page.is_visible("#message")
        names = await page.eval_on_selector_all(
            "#players .name", "ns => ns.map(n => n.textContent)"
        )
        assert names == ["Alice", "Dan"]
        assert await page.get_attribute("#board", "data-your-turn") == "true"


async def test_a_long_unbroken_name_never_makes_the_page_scroll_sideways_at_320_px(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _url):
        for user in (LONG, ALICE):
            telegram.add_chat(FakeTelegram.private_chat(user))
        # A match (its line names both), the long name's turn first (its status names him).
        await send(telegram, LONG, "/play bo3")
        await send(telegram, ALICE, "/play bo3")
        board = boards_of(telegram, ALICE)[0]
        page, _ = await open_page(browser, page_url(board), telegram.token, ALICE, width=320)
        await wait_ply(page, 0)
        status = await page.text_content("#status")
        assert status.startswith(LONG["first_name"]) and LONG[
            "first_name"
        ] in await page.text_content("#match")
        assert not await page.evaluate(SIDEWAYS)
        await screenshot(page, "miniapp-long-name-320.png")
        await send(telegram, LONG, "/stop")  # he leaves: the ending and the match name him
        await page.wait_for_selector("#board[data-status='finished']")
        assert LONG["first_name"] in await page.text_content("#status")
        assert not await page.evaluate(SIDEWAYS)


async def test_a_forged_sign_in_is_not_called_too_old(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _page_url):
        await send(telegram, ALICE, "/start hard")
        url = page_url(telegram.last_bot_message(ALICE["id"]))
        # Signed with another bot's token: no Telegram sign-in of this bot at all.
        page, _ = await open_page(browser, url, "42:another-bot", ALICE)
        await page.wait_for_selector("#message:not([hidden])")
        assert await page.text_content("#message") == en.PAGE["not_telegram"]
