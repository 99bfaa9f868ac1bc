"""How the page opens, in Chromium, as requests (bench/page_open.py times it): the board drawn
after three round trips one after another (the page; its files at once; the game with the
words), its files gzipped and kept for good, and a second open asking for nothing but the page
(304) and the game."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.chat import send
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.browser import PHONE, page_url, policy_violations, recorded_page, wait_ply
from tests.webapp.support import bot_with_mini_app, public_id_on

pytestmark = pytest.mark.browser

ALICE = FakeTelegram.user(1001, "Alice", language_code="en")
FOREVER = "public, max-age=31536000, immutable"


@pytest.mark.parametrize("width", [320, 390])
async def test_the_board_is_drawn_after_three_round_trips_and_a_second_open_fetches_the_game_only(
    telegram: FakeTelegram, database_url: str, browser: Any, width: int
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, base):
        await send(telegram, ALICE, "/start easy")
        board = telegram.last_bot_message(ALICE["id"])
        game = public_id_on(telegram, board)
        context = await browser.new_context(
            viewport={**PHONE, "width": width}, device_scale_factor=2
        )
        page, first = await recorded_page(context, page_url(board), telegram.token, ALICE)
        await wait_ply(page, 0)
        await page.wait_for_selector("#board .cell:enabled")
        assert await page.text_content("#status") == "Your turn as ❌"
        await first.wait_for(page, "/events")
        paths = first.paths(base)
        # The page; its style, its theme's script and its modules as one file, at once; the
        # game with the words; then the game's live stream, once it is drawn.
        assert [p.split(".")[0] for p in paths[1:4]] == ["static/app", "static/shell", "static/app"]
        assert paths[0].startswith("?game=") and paths[4:] == [
            f"api/games/{game}?words=1",
            f"api/games/{game}/events",
        ]
        assert first.round_trips() == 3
        # The page, its files, and the game with the words: all gzipped.
        for request in first.fetched()[:5]:
            assert request["headers"]["content-encoding"] == "gzip", request["url"]
        assert [r["headers"]["cache-control"] for r in first.fetched()[:4]] == [
            "no-cache",
            FOREVER,
            FOREVER,
            FOREVER,
        ]
        assert await policy_violations(page) == []
        await page.close()

        # Opened again: the files come from the browser's cache, the page is a 304.
        again, second = await recorded_page(context, page_url(board), telegram.token, ALICE)
        await wait_ply(again, 0)
        await second.wait_for(again, "/events")
        assert second.paths(base) == [
            paths[0],
            f"api/games/{game}?words=1",
            f"api/games/{game}/events",
        ]
        assert second.fetched()[0]["sent"] == 304
        assert second.round_trips() == 2
        await context.close()
