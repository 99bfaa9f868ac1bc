"""The Mini App in a real headless Chromium (Debian's `chromium`, driven by Playwright): a stub
of `window.Telegram.WebApp` with valid initData, taps on cells, the AI's replies and a tap in
chat appearing live, the chat board edited to the same position, and screenshots of the page
in Telegram's light and dark themes (bench/screenshots/latest/, for a reviewer to look at; a
reviewed pair is committed one folder up)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.chat import board_cells, game_id_on, send, tap_cell
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.support import bot_with_mini_app, telegram_init_data

playwright_api = pytest.importorskip("playwright.async_api") if not os.environ.get("CI") else None
if playwright_api is None:  # in CI the browser tests must run: a missing piece is a failure
    import playwright.async_api as playwright_api

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI must run the browser tests: install Debian's chromium package")
    pytest.skip("no chromium here (apt-get install chromium)", allow_module_level=True)

# Not the committed pair: a test run must not change tracked files.
SCREENSHOTS = Path(__file__).resolve().parents[2] / "bench" / "screenshots" / "latest"
ALICE = FakeTelegram.user(1001, "Alice", language_code="en")
PHONE = {"width": 390, "height": 844}
# themeParams as Telegram's clients send them, light and dark.
LIGHT = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#999999",
    "link_color": "#2481cc",
    "button_color": "#2481cc",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#efeff3",
}
DARK = {
    "bg_color": "#17212b",
    "text_color": "#f5f5f5",
    "hint_color": "#708499",
    "link_color": "#6ab3f3",
    "button_color": "#5288c1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#232e3c",
}


def telegram_stub(init_data: str, user: dict[str, Any], theme: dict[str, str], scheme: str) -> str:
    """A script standing in for telegram-web-app.js: what the page uses of Telegram.WebApp.
    Haptic calls are recorded in window.hapticCalls."""
    unsafe = {"user": {"id": user["id"], "first_name": user["first_name"]}}
    return f"""
      window.hapticCalls = [];
      window.Telegram = {{ WebApp: {{
        initData: {json.dumps(init_data)},
        initDataUnsafe: {json.dumps(unsafe)},
        themeParams: {json.dumps(theme)},
        colorScheme: {json.dumps(scheme)},
        version: "7.0", platform: "android",
        ready() {{}}, expand() {{}}, onEvent() {{}}, offEvent() {{}},
        isVersionAtLeast() {{ return true; }},
        HapticFeedback: {{
          impactOccurred(style) {{ window.hapticCalls.push("impact:" + style); }},
          notificationOccurred(kind) {{ window.hapticCalls.push("notification:" + kind); }},
          selectionChanged() {{}},
        }},
      }} }};
    """


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    async with playwright_api.async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            yield browser
        finally:
            await browser.close()


async def open_page(
    browser: Any, url: str, token: str, theme: dict[str, str], scheme: str
) -> tuple[Any, list[str]]:
    """The page at `url` on a phone-sized screen, as Telegram would open it for Alice. Nothing
    leaves 127.0.0.1: the request for telegram.org's script is refused (and listed)."""
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2)
    outside: list[str] = []

    async def only_local(route: Any) -> None:
        if route.request.url.startswith("http://127.0.0.1:"):
            await route.continue_()
        else:
            outside.append(route.request.url)
            await route.abort()

    await context.route("**/*", only_local)
    page = await context.new_page()
    await page.add_init_script(
        telegram_stub(telegram_init_data(token, ALICE), ALICE, theme, scheme)
    )
    await page.goto(url)
    return page, outside


async def page_cells(page: Any) -> str:
    return await page.eval_on_selector_all(
        "#board .cell",
        "cells => cells.map(c => c.classList.contains('X') ? 'X'"
        " : c.classList.contains('O') ? 'O' : '_').join('')",
    )


async def wait_ply(page: Any, ply: int) -> None:
    await page.wait_for_selector(f"#board[data-ply='{ply}']")


async def test_playing_on_the_page_in_chromium(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _page_url):
        await send(telegram, ALICE, "/start hard")
        board = telegram.last_bot_message(ALICE["id"])
        game_id = game_id_on(telegram, board)
        # Opened exactly where the board's "Open board" button points.
        url = board.reply_markup["inline_keyboard"][-1][0]["web_app"]["url"]
        page, outside = await open_page(browser, url, telegram.token, LIGHT, "light")
        await wait_ply(page, 0)
        assert await page.text_content("#status") == "Your turn as X"

        await page.click("#board .cell[data-cell='4']")
        await wait_ply(page, 2)  # Alice's move and the AI's reply, without a reload
        cells = await page_cells(page)
        assert cells[4] == "X" and cells.count("O") == 1
        assert board_cells(telegram, board) == cells
        assert await page.locator("#board .cell.last").count() == 1
        assert await page.locator("#moves li").count() == 2
        assert "impact:light" in await page.evaluate("window.hapticCalls")

        # A tap in chat shows on the page at once (server-sent events), AI reply included.
        free = board_cells(telegram, board).index("_")
        await tap_cell(telegram, ALICE, board, free)
        await wait_ply(page, 4)
        assert await page_cells(page) == board_cells(telegram, board)

        # Then on the page to the end (Hard never loses).
        while await page.get_attribute("#board", "data-status") == "active":
            ply = int(await page.get_attribute("#board", "data-ply"))
            await page.click("#board .cell:not([disabled])")
            await page.wait_for_selector(f"#board:not([data-ply='{ply}'])")
        final = await page_cells(page)
        assert board_cells(telegram, board) == final
        status = await page.text_content("#status")
        assert status in ("Nobody loses 🤝", "Hard AI wins: you lose this one.")
        wins = await page.locator("#board .cell.win").count()
        assert wins == (0 if status.startswith("Nobody") else 3)
        assert await page.locator("#board svg.lines line").count() == (wins > 0)
        # The end buzzes once, and a loss does not buzz "success".
        ends = [c for c in await page.evaluate("window.hapticCalls") if c.startswith("notif")]
        assert ends == ["notification:warning" if wins == 0 else "notification:error"]
        assert await page.locator("#board .cell:not([disabled])").count() == 0
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(SCREENSHOTS / "miniapp-light.png"))

        dark, _ = await open_page(browser, url, telegram.token, DARK, "dark")
        await dark.wait_for_selector("#board[data-status='finished']")
        assert await page_cells(dark) == final
        background = await dark.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(23, 33, 43)"  # DARK's bg_color
        await dark.screenshot(path=str(SCREENSHOTS / "miniapp-dark.png"))
        assert outside == ["https://telegram.org/js/telegram-web-app.js"]
        assert game_id  # the page played the game the chat shows


async def test_the_start_page_starts_a_game_in_chromium(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page_url):
        telegram.add_chat(FakeTelegram.private_chat(ALICE))
        page, _ = await open_page(browser, page_url, telegram.token, LIGHT, "light")
        await page.wait_for_selector("#home:not([hidden])")
        assert await page.text_content("#hello") == "Hi, Alice!"
        assert await page.is_visible("#no-games")
        await page.click("#levels [data-level='medium']")
        await page.click("#marks [data-mark='O']")
        await page.click("#sizes [data-size='5']")
        await page.click("#start")
        # Medium plays ❌ and moves at once; the page shows its move on a 5×5 board.
        await wait_ply(page, 1)
        assert len(await page_cells(page)) == 25
        board = telegram.last_bot_message(ALICE["id"])
        assert board_cells(telegram, board, 5) == await page_cells(page)
        await page.click("#back")
        await page.wait_for_selector("#open-games li")
        assert "your turn" in await page.text_content("#open-games")
