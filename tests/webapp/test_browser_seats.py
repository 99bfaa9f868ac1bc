"""The Mini App in Chromium for every seat and as much as the chat: Carol (🔺) plays her turn
of a three-player game on the page, and the start page lists it with every player; the start
page starts ultimate and 5×5 with 4 in a row and shares a challenge through the inline mode;
Telegram's Back button, Picture and Another level; an error screen has a way back."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from bot.locales import en
from tests.support.chat import board_cells, current, press, send, tap_cell
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.browser import open_page, press_back, screenshot, telegram_calls, wait_ply
from tests.webapp.support import bot_with_mini_app, telegram_init_data

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
        # Carol's seat is 🔺, as the chat calls it, not "T".
        assert await page.text_content("#status") == en.PAGE["your_turn"].format(mark="🔺")
        await page.click(f"#board .cell[data-cell='{2 * size}']")
        await wait_ply(page, 3)
        moves = await page.eval_on_selector_all("#moves li", "l => l.map(e => e.textContent)")
        assert [move.split(" ")[0] for move in moves] == ["❌", "⭕", "🔺"]
        assert board_cells(telegram, board, size)[2 * size] == "T"
        assert await page.locator(f"#board .cell[data-cell='{2 * size}'] svg.mark.T").count() == 1
        # Alice gives up (from her page): Carol's page says who is out, as the chat does.
        game_id = await page.evaluate("new URLSearchParams(location.search).get('game')")
        headers = {"Authorization": "tma " + telegram_init_data(telegram.token, ALICE)}
        async with aiohttp.ClientSession() as http:
            url = f"{page_url}api/games/{game_id}/actions"
            async with http.post(url, headers=headers, json={"action": "resign"}) as answer:
                assert answer.status == 200
        await page.wait_for_selector("#players .player.out[data-mark='X']")
        assert await page.text_content("#where") == en.MANY_OUT.format(names="Alice")
        await screenshot(page, f"miniapp-seats-game-{width}-{scheme}.png")


@pytest.mark.parametrize(("width", "scheme"), [(320, "light"), (390, "dark")])
async def test_the_start_page_starts_ultimate_and_5x5_with_4_in_a_row(
    telegram: FakeTelegram, database_url: str, browser: Any, width: int, scheme: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page_url):
        telegram.add_chat(FakeTelegram.private_chat(ALICE))
        page, _ = await open_page(browser, page_url, telegram.token, ALICE, scheme, width=width)
        await page.wait_for_selector("#home:not([hidden])")
        # Ultimate, as the chat's menu starts it; the inline share has no ultimate.
        await page.click("#ultimate")
        assert not await page.is_visible("#ks") and not await page.is_visible("#challenge")
        await page.click("#start")
        await page.wait_for_selector("#board.ultimate")
        assert await page.locator("#board .block").count() == 9
        # Telegram's Back button, shown with the game, leads to the start page.
        assert ["BackButton.show"] in await telegram_calls(page)
        await press_back(page)
        await page.wait_for_selector("#home:not([hidden])")
        # 5×5: the line lengths it may have, its usual one (4) chosen.
        await page.click("#sizes [data-size='5']")
        await page.wait_for_selector("#ks:not([hidden])")
        ks = await page.eval_on_selector_all("#ks button", "b => b.map(e => e.dataset.k)")
        assert ks == ["3", "4", "5"]
        await page.click("#ks [data-k='3']")
        await page.click("#ks [data-k='4']")
        assert await page.get_attribute("#ks [data-k='4']", "class") == "chosen"
        # Challenge a person: the chat's inline mode, with this board.
        await page.click("#challenge")
        calls = await telegram_calls(page)
        assert ["switchInlineQuery", "5 4", ["users", "groups"]] in calls
        await page.click("#start")
        await page.wait_for_selector("#board:not(.ultimate)")
        assert await page.locator("#board .cell").count() == 25
        assert await page.text_content("#rules") == en.BOARD_SIZE.format(size=5, k=4)
        board = telegram.last_bot_message(ALICE["id"])
        assert en.BOARD_SIZE.format(size=5, k=4) in board.text
        await screenshot(page, f"miniapp-5x5-k4-{width}-{scheme}.png")
        # Resigned at once: the chat's words, the Picture, and Another level.
        await page.click("#actions [data-action='resign']")
        await page.click("#actions [data-action='resign-yes']")
        await page.wait_for_selector("#board[data-status='finished']")
        assert await page.text_content("#status") == en.RESULT_YOU_RESIGNED
        await page.click("#actions [data-action='picture']")
        await page.wait_for_selector("#notice:not([hidden])")
        assert await page.text_content("#notice") == en.PAGE["picture_sent"]
        photos = [m for m in telegram.messages.values() if m.photo and m.chat_id == ALICE["id"]]
        assert len(photos) == 1
        await page.click("#actions [data-action='level']")
        await page.wait_for_selector("#home:not([hidden])")
        assert await page.get_attribute("#sizes [data-size='5']", "class") == "chosen"
        assert await page.get_attribute("#ks [data-k='4']", "class") == "chosen"


async def test_an_error_screen_has_a_way_back(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page_url):
        url = page_url + "?game=" + "A" * 16  # no such game
        page, _ = await open_page(browser, url, telegram.token, ALICE, "dark", width=320)
        await page.wait_for_selector("#message:not([hidden])")
        assert await page.text_content("#message") == en.POPUP_NO_GAME
        assert await page.is_visible("#message-back")
        assert not await page.is_visible("#message-retry")
        await screenshot(page, "miniapp-error-320-dark.png")
        await press_back(page)  # Telegram's Back button, or the page's own link
        await page.wait_for_selector("#home:not([hidden])")
        assert not await page.is_visible("#message")
        assert not await page.is_visible("#message-actions")
        await page.goto(url)
        await page.wait_for_selector("#message:not([hidden])")
        await page.click("#message-back")
        await page.wait_for_selector("#home:not([hidden])")


async def test_without_telegrams_back_button_the_pages_own_leads_back(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page_url):
        await send(telegram, ALICE, "/start hard")
        page, _ = await open_page(browser, page_url, telegram.token, ALICE, back_button=False)
        await page.wait_for_selector("#open-games li button")
        await page.click("#open-games li button")
        await wait_ply(page, 0)
        assert await page.is_visible("#back")
        await page.click("#back")
        await page.wait_for_selector("#home:not([hidden])")
