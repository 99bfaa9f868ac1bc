"""The Mini App in Chromium: a draw offered on one page and accepted on the other (issue 52),
at 320 and 390 px; the buttons fit, and both pages end in the chat's words."""

from __future__ import annotations

from typing import Any

import pytest

from bot.locales import en
from tests.e2e.test_matchmaking import pair
from tests.support.chat import current, tap_cell
from tests.webapp.browser import open_page, page_url, wait_ply
from tests.webapp.support import bot_with_mini_app
from tests.webapp.test_api_draws import ALICE, BOB

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [320, 390])
async def test_a_draw_offered_on_one_page_is_accepted_on_the_other(
    telegram: Any, database_url: str, browser: Any, width: int
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _page):
        x_board, o_board = await pair(telegram, ALICE, BOB)
        assert not (await tap_cell(telegram, ALICE, x_board, 4)).get("text")
        alice, _ = await open_page(
            browser, page_url(current(telegram, x_board)), telegram.token, ALICE, width=width
        )
        bob, _ = await open_page(
            browser, page_url(current(telegram, o_board)), telegram.token, BOB, width=width
        )
        for page in (alice, bob):
            await wait_ply(page, 1)
        assert await alice.text_content("#actions [data-action='draw']") == en.BUTTON_DRAW_OFFER
        await alice.click("#actions [data-action='draw']")
        # Bob's page hears it live, and offers him the answers; Alice's waits.
        await bob.wait_for_selector("#actions [data-action='draw_accept']")
        await alice.wait_for_selector("#actions [data-action='draw']", state="detached")
        for page in (alice, bob):
            wide = await page.evaluate("document.documentElement.scrollWidth")
            assert wide <= width
        await bob.click("#actions [data-action='draw_accept']")
        for page in (alice, bob):
            await page.wait_for_function(
                "text => document.querySelector('#status').textContent.includes(text)",
                arg=en.RESULT_DRAW_AGREED,
            )
        assert en.RESULT_DRAW_AGREED in current(telegram, o_board).text
